#!/usr/bin/env python3
"""SSRF payloads from public knowledge under `--profile ssrf`: every one is
denied; under `--profile proxy` (check and squid-acl) what a forward proxy
must never forward is denied and intranet hosts are not. Each case says what a client would connect to; the nested ones
(a URL inside a query or fragment parameter: the open-redirect and SSRF
chain shape) say where the redirect or the second fetch goes.

usage: ssrf_payloads_test.py URISAN
"""
import json
import subprocess
import sys
import tempfile

URISAN = sys.argv[1]

DENY = [
    # cloud metadata endpoints
    ("http://169.254.169.254/latest/meta-data/", "AWS IMDS, 169.254.169.254"),
    ("http://[fd00:ec2::254]/latest/meta-data/", "AWS IMDS over IPv6 (ULA)"),
    ("http://metadata.google.internal/computeMetadata/v1/", "GCP metadata, 169.254.169.254"),
    ("http://metadata/computeMetadata/v1/", "GCP short name, via the search domain"),
    ("http://169.254.169.254/metadata/instance?api-version=2021-02-01", "Azure IMDS"),
    ("http://192.0.0.192/latest/meta-data/", "Oracle Cloud metadata, 192.0.0.192"),
    ("http://100.100.100.200/latest/meta-data/", "Alibaba Cloud metadata (CGNAT range)"),
    ("http://169.254.169.254/metadata/v1/", "DigitalOcean metadata"),
    ("http://instance-data/latest/meta-data/", "EC2 instance-data name"),
    # every IPv4 spelling the analysis de-obfuscates -> 127.0.0.1 / metadata
    ("http://2130706433/", "127.0.0.1 as one decimal number"),
    ("http://0x7f000001/", "127.0.0.1 in hex"),
    ("http://0x7f.1/", "127.0.0.1, 2-part hex"),
    ("http://0177.0.0.1/", "127.0.0.1 with an octal part"),
    ("http://127.1/", "127.0.0.1, 2-part"),
    ("http://127.000.000.001/", "127.0.0.1 zero-padded"),
    ("http://127.0.0.1./", "127.0.0.1 with the root dot"),
    ("http://%31%32%37.0.0.1/", "127.0.0.1 with percent-encoded digits"),
    ("http://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11/", "127.0.0.1 in fullwidth digits"),
    ("http://0xa9fea9fe/", "169.254.169.254 in hex"),
    ("http://2852039166/", "169.254.169.254 as a number"),
    ("http://0/", "0.0.0.0: the local host on Linux"),
    ("http://127.0.0.1:6379/", "Redis on the fetcher itself"),
    ("http://10.0.0.1/", "the internal network"),
    ("http://192.168.1.1/", "the home router"),
    ("http://172.16.0.1/", "RFC 1918"),
    ("http://224.0.0.1/", "multicast"),
    ("http://255.255.255.255/", "limited broadcast"),
    # IPv6 and IPv6 embeddings
    ("http://[::1]/", "loopback"),
    ("http://[::]/", "unspecified: the local host"),
    ("http://[0:0:0:0:0:ffff:127.0.0.1]/", "IPv4-mapped 127.0.0.1"),
    ("http://[::ffff:a9fe:a9fe]/", "IPv4-mapped 169.254.169.254"),
    ("http://[::127.0.0.1]/", "IPv4-compatible 127.0.0.1"),
    ("http://[64:ff9b::7f00:1]/", "NAT64 to 127.0.0.1"),
    ("http://[64:ff9b::a9fe:a9fe]/", "NAT64 to 169.254.169.254"),
    ("http://[2002:7f00:1::]/", "6to4 around 127.0.0.1"),
    ("http://[2002:a9fe:a9fe::1]/", "6to4 around 169.254.169.254"),
    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "Teredo, client 127.0.0.1"),
    ("http://[fe80::1%25eth0]/", "link-local with a zone"),
    ("http://[fc00::1]/", "unique local"),
    ("http://[fec0::1]/", "site-local (deprecated)"),
    # internal names
    ("http://localhost/", "loopback by RFC 6761"),
    ("http://LOCALHOST./", "the same, case and root dot"),
    ("http://a.localhost/", "loopback in browsers"),
    ("http://printer.local/", "mDNS on the local link"),
    ("http://router.home.arpa/", "home network"),
    ("http://db.internal/", "private-use TLD"),
    ("http://intranet/", "one-label intranet host"),
    # wildcard DNS services that map a name to an address
    ("http://127.0.0.1.nip.io/", "nip.io -> 127.0.0.1"),
    ("http://169.254.169.254.sslip.io/", "sslip.io -> 169.254.169.254"),
    ("http://a.127.0.0.1.xip.io/", "xip.io -> 127.0.0.1"),
    ("http://localtest.me/", "localtest.me -> 127.0.0.1"),
    ("http://app.lvh.me/", "lvh.me -> 127.0.0.1"),
    ("http://7f000001.nip.io/", "nip.io hex form -> 127.0.0.1"),
    ("http://127-0-0-1.sslip.io/", "sslip.io dashed form -> 127.0.0.1"),
    ("http://a.local.gd/", "local.gd and its subdomains -> 127.0.0.1"),
    ("http://app.localhost.direct/", "localhost.direct -> 127.0.0.1"),
    ("http://7f000001.a9fea9fe.rbndr.us/", "rbndr.us rebinding: 127.0.0.1 / 169.254.169.254"),
    ("http://make-127-0-0-1-rr.1u.ms/", "1u.ms rebinding -> 127.0.0.1"),
    ("http://a.10.0.0.1.1time.127.0.0.1.forever.x.rebind.network/", "rebind.network -> 127.0.0.1"),
    # /etc/hosts loopback aliases of Debian and Red Hat
    ("http://localhost4/", "Red Hat /etc/hosts: 127.0.0.1"),
    ("http://localhost6.localdomain6/", "Red Hat /etc/hosts: ::1"),
    ("http://ip6-localhost/", "Debian /etc/hosts: ::1"),
    ("http://ip6-loopback/", "Debian /etc/hosts: ::1"),
    # cloud metadata services neither link-local nor internal by name
    ("http://168.63.129.16/machine?comp=goalstate", "Azure WireServer, answered by the VM's host"),
    ("http://metadata.tencentyun.com/latest/meta-data/", "Tencent Cloud metadata, 169.254.0.23"),
    ("https://metadata.packet.net/metadata", "Equinix Metal metadata for the asking machine"),
    ("http://[fd00:ec2::23]/", "EKS Pod Identity agent over IPv6"),
    ("http://kubernetes.default.svc/api/v1/namespaces", "the Kubernetes API in the cluster"),
    ("http://vault.service.consul/v1/secret", "Consul DNS inside the cluster"),
    ("http://[v1.127.0.0.1]/", "IPvFuture: no client connects to an address; fail closed"),
    # schemes, ports, credentials, parser confusion
    ("gopher://127.0.0.1:6379/_INFO", "gopher to Redis"),
    ("dict://127.0.0.1:11211/stats", "dict to memcached"),
    ("file:///etc/passwd", "a local file"),
    ("http://example.com:6379/", "a public host's Redis port"),
    ("http://user@example.com/", "credentials / '@' confusion"),
    ("http://example.com@127.0.0.1/", "userinfo hides the real host"),
    ("http://127.0.0.1\\@example.com/", "backslash: browsers see 127.0.0.1"),
    ("http:/127.0.0.1/", "one slash: browsers connect to 127.0.0.1"),
    ("http://example.com/%0d%0aHost:%20127.0.0.1", "header injection"),
    ("//127.0.0.1/", "network-path reference"),
    # nested URLs: where a redirect or a follow-up fetch of the parameter goes
    ("https://example.com/redirect?url=http://169.254.169.254/latest/meta-data/",
     "open redirect -> AWS IMDS 169.254.169.254"),
    ("https://example.com/login?next=http%3A%2F%2F127.0.0.1%2Fadmin", "encoded next= -> 127.0.0.1"),
    ("https://example.com/?u=http%253A%252F%252F10.0.0.1%252F", "double-encoded u= -> 10.0.0.1"),
    ("https://example.com/?url=//169.254.169.254/", "network-path url= -> 169.254.169.254"),
    ("https://example.com/?url=/%5C169.254.169.254/", "'/\\' url=, browsers read //169.254.169.254"),
    ("https://example.com/#u=http://metadata.google.internal/", "fragment parameter -> GCP metadata"),
    ("https://example.com/?a=1&target=http://0x7f000001/", "second parameter, hex 127.0.0.1"),
    ("https://example.com/?url=https://example.org/?next=http://127.0.0.1/",
     "two levels: example.org redirects on to 127.0.0.1"),
    ("https://example.com/?cb=javascript:alert(1)", "callback parameter with a script URL"),
    # nested metadata names: the redirect or second fetch resolves them inside
    ("https://example.com/?url=http://metadata.google.internal/computeMetadata/v1/",
     "nested GCP metadata name -> 169.254.169.254"),
    ("https://example.com/?url=http://METADATA.GOOGLE.INTERNAL./", "the same, case and root dot"),
    ("https://example.com/?next=http%3A%2F%2Fmetadata%2FcomputeMetadata%2Fv1%2F",
     "encoded one-label 'metadata' -> GCP metadata via the search domain"),
    ("https://example.com/#u=http://instance-data/latest/meta-data/",
     "fragment parameter -> EC2 instance-data (169.254.169.254)"),
    ("https://example.com/?u=//localhost/", "network-path -> localhost, 127.0.0.1"),
    # nested addresses in the denied ranges, every spelling
    ("https://example.com/?url=http://[::ffff:169.254.169.254]/", "mapped IPv6 -> AWS IMDS"),
    ("https://example.com/?url=http://[2002:a9fe:a9fe::]/", "6to4 -> 169.254.169.254"),
    ("https://example.com/?url=http://192.0.0.192/", "Oracle Cloud metadata, 192.0.0.192"),
    ("https://example.com/?url=http://100.100.100.200/", "Alibaba Cloud metadata, 100.100.100.200"),
    ("https://example.com/?url=http://2852039166/", "decimal 169.254.169.254"),
    ("https://example.com/?url=http://example.org:6379/", "a public host's Redis port"),
    ("https://example.com/?url=http://localhost4/", "nested Red Hat loopback alias -> 127.0.0.1"),
    ("https://example.com/?url=http://168.63.129.16/", "nested Azure WireServer"),
]

# The deny-host list of the profile (public wildcard-DNS services) judges
# nested URLs too: the reason must be nested_host_denied, the rule and not
# some flag of the name.
NESTED_HOST = [
    ("https://example.com/?url=http://127.0.0.1.nip.io/", "nip.io -> 127.0.0.1"),
    ("https://example.com/?next=http%3A%2F%2F169.254.169.254.sslip.io%2Flatest%2Fmeta-data%2F",
     "encoded sslip.io -> 169.254.169.254 (AWS IMDS)"),
    ("https://example.com/?u=http%253A%252F%252F10.0.0.1.xip.io%252F",
     "double-encoded xip.io -> 10.0.0.1"),
    ("https://example.com/#u=//app.lvh.me/", "fragment, network-path lvh.me -> 127.0.0.1"),
    ("https://example.com/?url=/%5Clocaltest.me/", "'/\\' -> //localtest.me -> 127.0.0.1"),
    ("https://example.com/?url=https://example.org/?next=http://a.127.0.0.1.NIP.IO./",
     "two levels: example.org redirects on to nip.io -> 127.0.0.1"),
    ("https://example.com/?url=http://a.local.gd/", "local.gd -> 127.0.0.1"),
    ("https://example.com/?url=http://metadata.tencentyun.com/", "Tencent Cloud metadata"),
]

# The proxy profile (a forward proxy's helper, `squid-acl --profile proxy`)
# never forwards to the proxy's own host, the cloud metadata services or
# addresses no server answers from - by whatever name or spelling reaches
# them. Each case: where the proxy would connect. Intranet hosts (private
# addresses, one-label names) stay allowed: a forward proxy reaches them.
PROXY_DENY = [
    ("http://127.0.0.1/", "the proxy itself"),
    ("http://0x7f.1:3128/", "the proxy's own port, hex spelling"),
    ("http://[::ffff:7f00:1]/", "IPv4-mapped 127.0.0.1"),
    ("http://localhost/", "the proxy itself by name"),
    ("http://localhost4/", "Red Hat /etc/hosts alias of 127.0.0.1"),
    ("http://localhost6.localdomain6/", "Red Hat /etc/hosts alias of ::1"),
    ("http://ip6-localhost/", "Debian /etc/hosts alias of ::1"),
    ("http://127.0.0.1.nip.io/", "nip.io -> 127.0.0.1"),
    ("http://127.0.0.1.NIP.IO./", "the same, case and root dot"),
    ("http://7f000001.nip.io/", "nip.io hex form -> 127.0.0.1"),
    ("http://127-0-0-1.sslip.io:3128/", "sslip.io dashed form -> the proxy's port"),
    ("http://--1.sslip.io/", "sslip.io IPv6 form -> ::1"),
    ("http://localtest.me/", "localtest.me -> 127.0.0.1"),
    ("http://app.lvh.me/", "lvh.me -> 127.0.0.1"),
    ("http://a.local.gd/", "local.gd -> 127.0.0.1"),
    ("http://169.254.169.254/latest/meta-data/", "AWS/Azure/GCP/DigitalOcean metadata"),
    ("http://169.254.169.254.nip.io/latest/meta-data/", "nip.io -> 169.254.169.254"),
    ("http://a9fea9fe.nip.io/latest/meta-data/", "nip.io hex -> 169.254.169.254"),
    ("http://metadata.google.internal/computeMetadata/v1/", "GCP metadata"),
    ("http://metadata/computeMetadata/v1/", "GCP /etc/hosts name of the metadata server"),
    ("http://instance-data/latest/meta-data/", "EC2 name of the metadata server"),
    ("http://[fd00:ec2::254]/latest/meta-data/", "AWS IMDS over IPv6 (a ULA, else only reported)"),
    ("http://100.100.100.200/latest/meta-data/", "Alibaba Cloud metadata (CGNAT, else only reported)"),
    ("http://[::ffff:100.100.100.200]/latest/meta-data/", "the same, IPv4-mapped"),
    ("http://168.63.129.16/machine?comp=goalstate", "Azure WireServer"),
    ("http://metadata.tencentyun.com/latest/meta-data/", "Tencent Cloud metadata"),
    ("http://192.0.0.192/latest/meta-data/", "Oracle Cloud metadata"),
    ("http://[v1.127.0.0.1]/", "IPvFuture: no address; fail closed"),
    ("http://255.255.255.255/", "limited broadcast"),
]
PROXY_ALLOW = ["https://example.com/", "http://10.0.0.1/", "http://wiki/", "http://8.8.8.8/",
               "https://[2606:4700::1111]/", "http://1.1.1.1.example.org/",
               "https://nip.io.example.org/", "https://example.com/?next=https://example.org/"]

# A policy on top of the profile with the operator's own ranges and names:
# deny-ip and deny-host judge nested URLs (reasons nested_ip_denied,
# nested_host_denied); the addresses are public, so no class flag denies.
CUSTOM_POLICY = ("profile ssrf\n"
                 "deny-ip 198.18.0.0/15 8.8.4.0/24 2001:4860::/32\n"
                 "deny-host .corp.example.com\n")
CUSTOM = [
    ("https://example.com/?url=http://8.8.4.4/", "nested_ip_denied", "8.8.4.4, a denied range"),
    ("https://example.com/?url=http://[2001:4860:4860::8844]/", "nested_ip_denied",
     "2001:4860:4860::8844, a denied IPv6 range"),
    ("https://example.com/?url=http://[64:ff9b::8.8.4.4]/", "nested_ip_denied",
     "NAT64 -> 8.8.4.4, the IPv4 it carries is in a denied range"),
    ("https://example.com/?u=http://134743044/", "nested_ip_denied", "decimal 8.8.4.4"),
    ("https://example.com/?u=//wiki.corp.example.com/", "nested_host_denied",
     "network-path -> wiki.corp.example.com, a denied name"),
]

ALLOW = ["https://example.com/", "http://example.org/a?b=c", "https://8.8.8.8/",
         "https://[2606:4700::1111]/", "https://example.com/?next=https://example.org/a",
         "https://example.com/?u=https://nip.io.example.org/", "https://example.com/?u=https://8.8.8.8/"]


def run(args, uris):
    r = subprocess.run([URISAN, "check", "--json"] + args,
                       input="\n".join(uris).encode() + b"\n", capture_output=True)
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(out) == len(uris), (len(out), len(uris), r.stderr)
    return out


def want_reason(cases, out, reason_of):
    bad = 0
    for case, o in zip(cases, out):
        reason = reason_of(case)
        if o["verdict"] != "deny" or reason not in o["deny_reasons"]:
            bad += 1
            print("NOT DENIED by %s: %s (%s): %s" % (reason, case[0], case[-1], o["deny_reasons"]))
    return bad


def main():
    uris = [u for u, _ in DENY] + ALLOW
    out = run(["--profile", "ssrf"], uris)
    bad = 0
    for (uri, what), o in zip(DENY, out):
        if o["verdict"] != "deny":
            bad += 1
            print("NOT DENIED %s (%s): %s" % (uri, what, o["flags"]))
    for uri, o in zip(ALLOW, out[len(DENY):]):
        if o["verdict"] == "deny":
            bad += 1
            print("DENIED %s: %s" % (uri, o["deny_reasons"]))
    bad += want_reason(NESTED_HOST, run(["--profile", "ssrf"], [u for u, _ in NESTED_HOST]),
                       lambda c: "nested_host_denied")
    out = run(["--profile", "proxy"], [u for u, _ in PROXY_DENY] + PROXY_ALLOW)
    for (uri, what), o in zip(PROXY_DENY, out):
        if o["verdict"] != "deny":
            bad += 1
            print("NOT DENIED under proxy %s (%s): %s" % (uri, what, o["flags"]))
    for uri, o in zip(PROXY_ALLOW, out[len(PROXY_DENY):]):
        if o["verdict"] == "deny":
            bad += 1
            print("DENIED under proxy %s: %s" % (uri, o["deny_reasons"]))
    # the Squid helper answers ERR to each of them (the command Squid runs)
    r = subprocess.run([URISAN, "squid-acl", "--profile", "proxy"],
                       input="\n".join(u for u, _ in PROXY_DENY).encode() + b"\n", capture_output=True)
    answers = r.stdout.decode().splitlines()
    assert len(answers) == len(PROXY_DENY), (answers, r.stderr)
    for (uri, what), a in zip(PROXY_DENY, answers):
        if not a.startswith("ERR"):
            bad += 1
            print("squid-acl --profile proxy answered %r to %s (%s)" % (a, uri, what))
    with tempfile.NamedTemporaryFile("w", suffix=".policy") as pf:
        pf.write(CUSTOM_POLICY)
        pf.flush()
        out = run(["--policy", pf.name], [u for u, _, _ in CUSTOM] + ALLOW[:5])
        bad += want_reason(CUSTOM, out, lambda c: c[1])
        for uri, o in zip(ALLOW[:5], out[len(CUSTOM):]):
            if o["verdict"] == "deny":
                bad += 1
                print("DENIED under the custom policy %s: %s" % (uri, o["deny_reasons"]))
    print("%d payloads denied, %d public URLs allowed; proxy: %d denied, %d allowed; %d wrong" %
          (len(DENY) + len(NESTED_HOST) + len(CUSTOM), len(ALLOW), len(PROXY_DENY),
           len(PROXY_ALLOW), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
