#!/usr/bin/env python3
"""The libcurl helper (include/urisan_curl.h) against a real DNS server and
real origins on 127.0.0.1: 127.0.0.2 stands in for a public address
(`allow ip_loopback` in the test policy), 127.0.0.3 for an internal one
(`deny-ip 127.0.0.3`). The internal origin receives nothing - by name,
CNAME, a name with a mixed answer, a redirect by name or by address - and
a rebinding name is fetched at the address that was judged.

usage: dns_curl_test.py DNS_CURL
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dnstest import DnsServer, Origin  # noqa: E402

PROG = sys.argv[1]
POLICY = "profile ssrf\nallow ip_loopback\nallow-port 1-65535\ndeny-ip 127.0.0.3\n"
failures = []


def expect(what, cond):
    if not cond:
        failures.append(what)


with Origin("127.0.0.3", "internal") as internal, Origin("127.0.0.2", "public") as public:
    I, P = internal.port, public.port
    ZONE = {
        "public.test.": {"A": ["127.0.0.2"]},
        "inside.test.": {"A": ["127.0.0.3"]},
        "mix.test.": {"A": ["127.0.0.2", "127.0.0.3"]},
        "alias.test.": {"CNAME": "inside.test."},
        "meta.test.": {"A": ["169.254.169.254"]},
        "rebind.test.": {"ttl": 0, "rebind": {"A": [["127.0.0.2"], ["127.0.0.3"]]}},
        "fail.test.": {"rcode": "SERVFAIL"},
    }
    with Origin("127.0.0.2", "r1", redirect=f"http://inside.test:{I}/x") as r1, \
         Origin("127.0.0.2", "r2", redirect=f"http://127.0.0.3:{I}/x") as r2, \
         Origin("127.0.0.2", "r3", redirect=f"http://public.test:{P}/landed") as r3, \
         DnsServer(ZONE) as dns:
        cases = [
            (f"http://public.test:{P}/a", "ok 200 127.0.0.2 public"),
            (f"http://inside.test:{I}/", "refused 2"),
            (f"http://mix.test:{I}/", "refused 2"),
            (f"http://alias.test:{I}/", "refused 2"),
            (f"http://meta.test:{I}/", "refused 2"),
            (f"http://fail.test:{I}/", "refused 2"),
            (f"http://127.0.0.3:{I}/", "refused 1"),
            (f"http://public.test:{r1.port}/go", f"refused 2 http://inside.test:{I}/x"),
            (f"http://public.test:{r2.port}/go", f"refused 1 http://127.0.0.3:{I}/x"),
            (f"http://public.test:{r3.port}/go", "ok 200 127.0.0.2 public"),
            (f"http://rebind.test:{P}/r", "ok 200 127.0.0.2 public"),
            (f"http://rebind.test:{P}/r2", "refused 2"),
        ]
        p = subprocess.run([PROG, dns.addr, POLICY] + [u for u, _ in cases],
                           capture_output=True, text=True, timeout=120)
        lines = p.stdout.splitlines()
        expect(f"one line per URL: {p.stdout!r} {p.stderr!r}", len(lines) == len(cases))
        for (url, want), got in zip(cases, lines):
            expect(f"{url}: {got!r}, want {want!r}", got.startswith(want))
        expect(f"Host is the name: {public.requests}",
               ("/r", f"rebind.test:{P}") in public.requests and
               ("/a", f"public.test:{P}") in public.requests)
    expect(f"the internal origin received nothing: {internal.requests}", internal.requests == [])

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {len(cases)} fetches; internal origin received 0 requests")
