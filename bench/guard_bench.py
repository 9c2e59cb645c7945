#!/usr/bin/env python3
"""The guard's cost, side by side in one run (doc/bench.md "Where the
client connects"):

1. per request: requests and httpx fetching from an origin on 127.0.0.2,
   plain (the URL names the address: no lookup, no judgement) against
   urisan_guard (the URL names a host that the DNS server on 127.0.0.1
   answers; each request judged as text, looked up - from the cache after
   the first - and every address judged, then pinned). Wall time per
   request, median of ROUNDS interleaved rounds of N requests.
2. per URL: `urisan check --json` against `check --json --resolve` on the
   same lines (names on a warm cache: a few names, many lines), in
   instructions (callgrind, the whole process; the difference per line).

usage: PYTHONPATH=build/python:python bench/guard_bench.py URISAN [N] [ROUNDS]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "dns"))
from dnstest import DnsServer, Origin  # noqa: E402

import httpx  # noqa: E402
import requests  # noqa: E402
import urisan_guard  # noqa: E402

URISAN = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 300
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
POLICY = "allow ip_loopback\nallow-port 1-65535\n"


def per_request(fetch, url):
    t = time.perf_counter()
    for _ in range(N):
        r = fetch(url)
        assert r.status_code == 200
    return (time.perf_counter() - t) / N * 1e6


def instructions(args, text):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", URISAN]
                       + args, input=text, capture_output=True, text=True, check=False)
        for line in open(out):
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    return 0


with Origin("127.0.0.2", "public") as origin, \
     DnsServer({f"n{i}.test.": {"A": ["127.0.0.2"], "ttl": 3600} for i in range(8)}) as dns:
    guard = urisan_guard.Guard(policy=POLICY, profile="ssrf", dns_server=dns.addr)
    plain_url = f"http://127.0.0.2:{origin.port}/x"
    guarded_url = f"http://n0.test:{origin.port}/x"
    plain_session = requests.Session()
    plain_session.trust_env = False  # as the guard's: no proxy, no netrc
    clients = {
        "requests": (plain_session, urisan_guard.requests_session(guard)),
        "httpx": (httpx.Client(trust_env=False), urisan_guard.httpx_client(guard)),
    }
    rows = []
    for name, (plain, guarded) in clients.items():
        plain.get(plain_url)
        guarded.get(guarded_url)  # warm: the answer in the cache
        p, g = [], []
        for _ in range(ROUNDS):
            p.append(per_request(plain.get, plain_url))
            g.append(per_request(guarded.get, guarded_url))
        mp, mg = statistics.median(p), statistics.median(g)
        rows.append((name, mp, mg))
    # the guard's own work per request, without HTTP: judge() on a warm cache
    t = time.perf_counter()
    for _ in range(N * 10):
        guard.judge(guarded_url)
    judge_us = (time.perf_counter() - t) / (N * 10) * 1e6

    lines = "".join(f"http://n{i % 8}.test/p{i}\n" for i in range(20000))
    base = instructions(["check", "--json"], lines)
    res = instructions(["check", "--json", "--resolve", "--dns-server", dns.addr], lines)

print(f"{'client':10} {'plain us/req':>13} {'guarded us/req':>15} {'extra':>8}")
for name, mp, mg in rows:
    print(f"{name:10} {mp:13.1f} {mg:15.1f} {mg - mp:+8.1f}")
print(f"Guard.judge on a warm cache: {judge_us:.1f} us a URL")
print(f"check --json:           {base / 20000:10.0f} instructions a line (20,000 lines, 8 names)")
print(f"check --json --resolve: {res / 20000:10.0f} instructions a line (warm cache after 8 lookups)")
