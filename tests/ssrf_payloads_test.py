#!/usr/bin/env python3
"""SSRF payloads from public knowledge under `--profile ssrf`: every one is
denied. Each case says what a client would connect to; the nested ones
(a URL inside a query or fragment parameter: the open-redirect and SSRF
chain shape) say where the redirect or the second fetch goes.

usage: ssrf_payloads_test.py URISAN
"""
import json
import subprocess
import sys

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
]

ALLOW = ["https://example.com/", "http://example.org/a?b=c", "https://8.8.8.8/",
         "https://[2606:4700::1111]/", "https://example.com/?next=https://example.org/a"]


def main():
    uris = [u for u, _ in DENY] + ALLOW
    r = subprocess.run([URISAN, "check", "--json", "--profile", "ssrf"],
                       input="\n".join(uris).encode() + b"\n", capture_output=True)
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(out) == len(uris), (len(out), len(uris))
    bad = 0
    for (uri, what), o in zip(DENY, out):
        if o["verdict"] != "deny":
            bad += 1
            print("NOT DENIED %s (%s): %s" % (uri, what, o["flags"]))
    for uri, o in zip(ALLOW, out[len(DENY):]):
        if o["verdict"] == "deny":
            bad += 1
            print("DENIED %s: %s" % (uri, o["deny_reasons"]))
    print("%d payloads denied, %d public URLs allowed, %d wrong" % (len(DENY), len(ALLOW), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
