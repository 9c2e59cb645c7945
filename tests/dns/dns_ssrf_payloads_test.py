#!/usr/bin/env python3
"""`check --resolve --profile ssrf` against a DNS server that answers as
the public DNS does: every name-based payload of tests/ssrf_payloads_test.py
is denied (the wildcard services by the profile's names and by the address
they resolve to, the internal names by their flags or their NXDOMAIN), and
so are names no string rule can judge - an attacker's own name that
resolves to the metadata address, a loopback or a private address, through
a CNAME, as an IPv4-mapped or NAT64 AAAA, or among public addresses.
Public names stay allowed.

usage: dns_ssrf_payloads_test.py URISAN
"""
import json
import os
import subprocess
import sys
import urllib.parse

from dnstest import DnsServer

URISAN = sys.argv[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.argv = [sys.argv[0], URISAN]
import ssrf_payloads_test as payloads  # noqa: E402

# What the public DNS answers (2025) for the names of the payloads; a name
# not listed is NXDOMAIN (.internal, .local, .home.arpa, .svc, .consul, one
# label: none of them exists in the public DNS).
PUBLIC = {
    "127.0.0.1.nip.io.": ["127.0.0.1"], "169.254.169.254.sslip.io.": ["169.254.169.254"],
    "a.127.0.0.1.xip.io.": ["127.0.0.1"], "localtest.me.": ["127.0.0.1"],
    "app.lvh.me.": ["127.0.0.1"], "7f000001.nip.io.": ["127.0.0.1"],
    "127-0-0-1.sslip.io.": ["127.0.0.1"], "a.local.gd.": ["127.0.0.1"],
    "app.localhost.direct.": ["127.0.0.1"], "7f000001.a9fea9fe.rbndr.us.": ["169.254.169.254"],
    "make-127-0-0-1-rr.1u.ms.": ["127.0.0.1"],
    "a.10.0.0.1.1time.127.0.0.1.forever.x.rebind.network.": ["127.0.0.1"],
    "metadata.tencentyun.com.": ["169.254.0.23"], "metadata.packet.net.": ["147.75.195.231"],
    "example.com.": ["93.184.216.34"], "example.org.": ["93.184.215.14"],
    "10.0.0.1.xip.io.": ["10.0.0.1"], "a.127.0.0.1.nip.io.": ["127.0.0.1"],
}
# Names only resolution can judge: (url, zone entry)
ATTACKER = [
    ("http://imds.attacker.test/latest/meta-data/", {"A": ["169.254.169.254"]}),
    ("http://redis.attacker.test:80/", {"A": ["127.0.0.1"]}),
    ("http://intra.attacker.test/", {"A": ["10.20.30.40"]}),
    ("http://cgnat.attacker.test/", {"A": ["100.100.100.200"]}),
    ("http://ula.attacker.test/", {"AAAA": ["fd00:ec2::254"]}),
    ("http://mapped.attacker.test/", {"AAAA": ["::ffff:127.0.0.1"]}),
    ("http://nat64.attacker.test/", {"AAAA": ["64:ff9b::a9fe:a9fe"]}),
    ("http://sixto4.attacker.test/", {"AAAA": ["2002:a9fe:a9fe::1"]}),
    ("http://mixed.attacker.test/", {"A": ["93.184.216.34", "169.254.169.254"]}),
    ("http://cname.attacker.test/", {"CNAME": "inside.attacker.test."}),
]
ZONE = {n: {"A": [a for a in v if ":" not in a]} for n, v in PUBLIC.items()}
for url, entry in ATTACKER:
    if entry is not None:
        ZONE[urllib.parse.urlsplit(url).hostname + "."] = entry
ZONE["inside.attacker.test."] = {"A": ["192.168.0.10"]}


def is_name_based(url):
    host = urllib.parse.urlsplit(url).hostname or ""
    return host and not host.startswith("[") and not all(c in "0123456789.x" for c in host.lower())


def main():
    name_based = [(u, w) for u, w in payloads.DENY if is_name_based(u)]
    name_based += [(u, w) for u, w in payloads.NESTED_HOST]
    attacker = [(u, "resolves inward") for u, e in ATTACKER if e is not None]
    urls = [u for u, _ in name_based + attacker]
    allow = ["https://example.com/", "http://example.org/index.html"]
    with DnsServer(ZONE) as dns:
        p = subprocess.run([URISAN, "check", "--resolve", "--profile", "ssrf", "--json",
                            "--dns-server", dns.addr], input="\n".join(urls + allow) + "\n",
                           capture_output=True, text=True, timeout=300)
    out = [json.loads(x) for x in p.stdout.splitlines()]
    assert len(out) == len(urls) + len(allow), p.stderr
    bad = 0
    for (u, what), o in zip(name_based + attacker, out):
        if o["verdict"] != "deny":
            bad += 1
            print("NOT DENIED %s (%s): %s" % (u, what, o.get("resolve")))
    for (u, what), o in zip(attacker, out[len(name_based):]):
        if "resolved_ip_denied" not in o["reasons"]:
            bad += 1
            print("%s (%s): not by its address: %s" % (u, what, o["reasons"]))
    for u, o in zip(allow, out[len(urls):]):
        if o["verdict"] != "allow":
            bad += 1
            print("DENIED public %s: %s %s" % (u, o["reasons"], o.get("resolve")))
    print("%d name-based payloads and %d names that resolve inward denied, %d public allowed; "
          "%d wrong" % (len(name_based), len(attacker), len(allow), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
