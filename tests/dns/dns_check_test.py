#!/usr/bin/env python3
"""`urisan check --resolve` against a real DNS server on 127.0.0.1
(tests/dns/dns_server.py): every address of a name judged by the address
rule, any denied address denies, NXDOMAIN / SERVFAIL / a time-out fail
closed with their own reason, a CNAME to an internal name, IPv4-mapped and
NAT64 AAAA read as the IPv4 they carry, a rebinding name judged on the
answer it gave, answers cached within their TTL and asked for once when a
name is on many lines.

usage: dns_check_test.py URISAN [--no-timeout]

--no-timeout: without the name whose answer never comes (the resolver
waits its fixed 2 s + 4 s for it); the time-out's reason and status are
then left to dns_guard_test.py (the same resolver, timeout_ms 300).
"""
import json
import subprocess
import sys

from dnstest import DnsServer

URISAN = sys.argv[1]
NO_TIMEOUT = "--no-timeout" in sys.argv[2:]

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


def start_check(args, lines):
    """urisan check --resolve ARGS over lines, started (its input written:
    a few lines, within the pipe's buffer)."""
    p = subprocess.Popen([URISAN, "check", "--resolve"] + args, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    text = "\n".join(lines) + "\n"
    if len(text) < 4096:
        p.stdin.write(text)
        p.stdin.close()
        p.stdin = None   # communicate() then only reads
        text = None
    return p, text


def finish_check(started):
    p, text = started
    out, err = p.communicate(text, timeout=120)
    return p.returncode, [json.loads(x) for x in out.splitlines()], err


def check(args, lines):
    return finish_check(start_check(args, lines))


def expect_cases(cases, rc, out, err):
    expect(f"exit 1 with denials, got {rc}: {err}", rc == 1)
    expect(f"one line per input: {len(out)}", len(out) == len(cases))
    for (url, verdict, reasons, status, addrs), o in zip(cases, out):
        r = o.get("resolve") or {}
        expect(f"{url}: verdict {o['verdict']}", o["verdict"] == verdict)
        expect(f"{url}: reasons {o['reasons']}", o["reasons"] == reasons)
        expect(f"{url}: status {r.get('status')}", r.get("status") == status)
        got = sorted((a["address"], a["classes"], a["verdict"]) for a in r.get("addresses", []))
        expect(f"{url}: addresses {got}", got == sorted(addrs))
        if verdict == "deny":
            expect(f"{url}: denied text {r.get('denied')}", r.get("denied"))


def expect(what, cond):
    if not cond:
        failures.append(what)


def usage_errors():
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


with DnsServer(ZONE) as dns:
    # The name that times out (the resolver's own 2 s + 4 s) runs in a
    # process of its own while everything else is checked.
    slow = [c for c in CASES if c[3] == "timeout" and not NO_TIMEOUT]
    slow_run = slow and start_check(["--profile", "ssrf", "--json", "--dns-server", dns.addr],
                           [c[0] for c in slow])
    rest = [c for c in CASES if c[3] != "timeout"]
    expect_cases(rest, *check(["--profile", "ssrf", "--json", "--dns-server", dns.addr],
                              [c[0] for c in rest]))

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
    usage_errors()
    if slow:
        expect_cases(slow, *finish_check(slow_run))

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {len(CASES) - NO_TIMEOUT} names, cache, rebinding, text, squid-acl --resolve, usage errors")
