#!/usr/bin/env python3
"""`urisan check --resolve` against a real DNS server on 127.0.0.1
(tests/dns/dns_server.py): every address of a name judged by the address
rule, any denied address denies, NXDOMAIN / SERVFAIL / a time-out fail
closed with their own reason, a CNAME to an internal name, IPv4-mapped and
NAT64 AAAA read as the IPv4 they carry, a rebinding name judged on the
answer it gave, answers cached within their TTL and asked for once when a
name is on many lines.

usage: dns_check_test.py URISAN
"""
import json
import subprocess
import sys

from dnstest import DnsServer

URISAN = sys.argv[1]

ZONE = {
    "public.test.": {"A": ["93.184.216.34"], "AAAA": ["2606:2800:220:1::248"], "ttl": 300},
    "loop.test.": {"A": ["127.0.0.1"]},
    "meta.test.": {"A": ["169.254.169.254"]},
    "mix.test.": {"A": ["93.184.216.34", "10.0.0.5"]},
    "mapped.test.": {"AAAA": ["::ffff:169.254.169.254"]},
    "nat64.test.": {"AAAA": ["64:ff9b::a9fe:a9fe"]},
    "alias.test.": {"CNAME": "db.corp.test."},
    "db.corp.test.": {"A": ["10.1.2.3"]},
    "rebind.test.": {"ttl": 0, "rebind": {"A": [["93.184.216.34"], ["127.0.0.1"]]}},
    "fail.test.": {"rcode": "SERVFAIL"},
    "slow.test.": {"drop": True},
    "nodata.test.": {"TXT": ["x"]},
}

# url, verdict, reasons, status, [(address, classes, verdict)]
CASES = [
    ("http://public.test/", "allow", [], "ok",
     [("93.184.216.34", [], "allow"), ("2606:2800:220:1::248", [], "allow")]),
    ("http://loop.test/", "deny", ["resolved_ip_denied"], "ok",
     [("127.0.0.1", ["ip_loopback"], "deny")]),
    ("http://meta.test/latest/meta-data/", "deny", ["resolved_ip_denied"], "ok",
     [("169.254.169.254", ["ip_link_local"], "deny")]),
    ("http://mix.test/", "deny", ["resolved_ip_denied"], "ok",
     [("93.184.216.34", [], "allow"), ("10.0.0.5", ["ip_private"], "deny")]),
    ("http://mapped.test/", "deny", ["resolved_ip_denied"], "ok",
     [("::ffff:169.254.169.254", ["ip_link_local", "ip_embedded"], "deny")]),
    ("http://nat64.test/", "deny", ["resolved_ip_denied"], "ok",
     [("64:ff9b::a9fe:a9fe", ["ip_link_local", "ip_embedded"], "deny")]),
    ("http://alias.test/", "deny", ["resolved_ip_denied"], "ok",
     [("10.1.2.3", ["ip_private"], "deny")]),
    ("http://fail.test/", "deny", ["dns_servfail"], "servfail", []),
    ("http://slow.test/", "deny", ["dns_timeout"], "timeout", []),
    ("http://nx.test/", "deny", ["dns_nxdomain"], "nxdomain", []),
    ("http://nodata.test/", "deny", ["dns_failed"], "failed", []),
    ("http://169.254.169.254/", "deny", ["ip_link_local", "resolved_ip_denied", "ip_literal"],
     "literal",
     [("169.254.169.254", ["ip_link_local"], "deny")]),
    ("http://PUBLIC.test./", "allow", [], "ok",
     [("93.184.216.34", [], "allow"), ("2606:2800:220:1::248", [], "allow")]),
]

failures = []


def check(args, lines):
    p = subprocess.run([URISAN, "check", "--resolve"] + args, input="\n".join(lines) + "\n",
                       capture_output=True, text=True, timeout=120)
    return p.returncode, [json.loads(x) for x in p.stdout.splitlines()], p.stderr


def expect(what, cond):
    if not cond:
        failures.append(what)


with DnsServer(ZONE) as dns:
    rc, out, err = check(["--profile", "ssrf", "--json", "--dns-server", dns.addr],
                         [c[0] for c in CASES])
    expect(f"exit 1 with denials, got {rc}: {err}", rc == 1)
    expect(f"one line per input: {len(out)}", len(out) == len(CASES))
    for (url, verdict, reasons, status, addrs), o in zip(CASES, out):
        r = o.get("resolve") or {}
        expect(f"{url}: verdict {o['verdict']}", o["verdict"] == verdict)
        expect(f"{url}: reasons {o['reasons']}", o["reasons"] == reasons)
        expect(f"{url}: status {r.get('status')}", r.get("status") == status)
        got = sorted((a["address"], a["classes"], a["verdict"]) for a in r.get("addresses", []))
        expect(f"{url}: addresses {got}", got == sorted(addrs))
        if verdict == "deny":
            expect(f"{url}: denied text {r.get('denied')}", r.get("denied"))

    # a public-looking name on many lines is asked for once; the second
    # run's answers come from the cache within the TTL
    before = len(dns.queries("public.test."))
    rc, out, err = check(["--json", "--dns-server", dns.addr], ["http://public.test/x"] * 2000)
    asked = len(dns.queries("public.test.")) - before
    expect(f"2000 lines of one name: {asked} queries (want 2: A and AAAA)", asked == 2)
    expect("2000 lines out", len(out) == 2000)
    expect("later lines from the cache", out[-1]["resolve"]["cached"] is True)

    # rebinding (TTL 0): never cached - each run asks again and judges
    # the answer it got (public first, loopback after)
    rc1, out1, _ = check(["--profile", "ssrf", "--json", "--dns-server", dns.addr],
                         ["http://rebind.test/"])
    rc2, out2, _ = check(["--profile", "ssrf", "--json", "--dns-server", dns.addr],
                         ["http://rebind.test/"])
    expect(f"rebind first: {out1}", out1[0]["verdict"] == "allow" and rc1 == 0)
    expect(f"rebind after: {out2}", out2[0]["verdict"] == "deny" and rc2 == 1 and
           out2[0]["resolve"]["addresses"][0]["address"] == "127.0.0.1")

    # text output names the address and its class
    p = subprocess.run([URISAN, "check", "--resolve", "--profile", "ssrf", "--dns-server",
                        dns.addr, "http://meta.test/"], capture_output=True, text=True,
                       timeout=60)
    expect(f"text: {p.stdout!r}", "resolves to 169.254.169.254 (ip_link_local)" in p.stdout)

    # squid-acl --resolve: the helper protocol, each reply under its
    # channel-ID, in order; CONNECT's host:port looked up as the host
    p = subprocess.run([URISAN, "squid-acl", "--quiet", "--profile", "proxy", "--resolve",
                        "--dns-server", dns.addr],
                       input="0 http://meta.test/x -\n1 http://public.test/ -\n"
                             "2 http://fail.test/ -\n3 http://loop.test:8080/ -\n",
                       capture_output=True, text=True, timeout=60)
    want = ['0 ERR message="urisan denied the URL: resolves to 169.254.169.254 (ip_link_local)"'
            ' log="denied:resolved_ip_denied"',
            "1 OK",
            '2 ERR message="urisan denied the URL: dns_servfail: fail.test"'
            ' log="denied:dns_servfail"',
            '3 ERR message="urisan denied the URL: resolves to 127.0.0.1 (ip_loopback)"'
            ' log="denied:resolved_ip_denied;flagged:nondefault_port"']
    expect(f"squid-acl --resolve: {p.stdout!r} {p.stderr!r}", p.stdout.splitlines() == want)

# usage errors: a bad server list, --dns-server alone, --resolve with --jobs
for args, word in ((["--resolve", "--dns-server", "not an address"], "--dns-server"),
                   (["--dns-server", "127.0.0.1"], "--dns-server needs --resolve"),
                   (["--resolve", "--jobs", "2"], "--jobs")):
    p = subprocess.run([URISAN, "check"] + args + ["http://a.test/"], capture_output=True,
                       text=True, timeout=60)
    expect(f"{args}: exit {p.returncode} {p.stderr!r}", p.returncode == 2 and word in p.stderr)
for args, word in ((["--resolve", "--dns-server", "not an address"], "--dns-server"),
                   (["--dns-server", "127.0.0.1"], "--dns-server needs --resolve")):
    p = subprocess.run([URISAN, "squid-acl"] + args, input="", capture_output=True,
                       text=True, timeout=60)
    expect(f"squid-acl {args}: exit {p.returncode} {p.stderr!r}",
           p.returncode == 2 and word in p.stderr)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {len(CASES)} names, cache, rebinding, text, squid-acl --resolve, usage errors")
