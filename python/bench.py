#!/usr/bin/env python3
"""python/bench.py [FILE...] - what the Python binding costs per URL.

Same process, same URLs, interleaved rounds (the median of each is kept):
  C loop      urisan._check_loop: urisan_check over the list inside C
  verdict()   urisan.verdict(u): the binding's call with no result dict
  check()     urisan.check(u): the full dict of `check --json`
  urlsplit    urllib.parse.urlsplit(u): the standard library's split only
Run with PYTHONPATH=build/python; default input: ../shared/data/urls/kasztp.txt.
"""
import os
import statistics
import sys
import time
import urllib.parse

import urisan

here = os.path.dirname(os.path.abspath(__file__))
files = sys.argv[1:] or [os.path.join(here, "..", "..", "shared", "data", "urls", "kasztp.txt")]
urls = []
for f in files:
    with open(f, "rb") as fh:
        urls += [l.rstrip(b"\r\n").decode("utf-8", "surrogateescape") for l in fh]
urls = [u for u in urls if u][:200000]
rounds = int(os.environ.get("ROUNDS", "5"))


def t_c():
    return urisan._check_loop(urls)[0]


def t_verdict():
    f = urisan.verdict
    t = time.perf_counter()
    for u in urls:
        f(u)
    return time.perf_counter() - t


def t_check():
    f = urisan.check
    t = time.perf_counter()
    for u in urls:
        f(u)
    return time.perf_counter() - t


def t_split():
    f = urllib.parse.urlsplit
    t = time.perf_counter()
    for u in urls:
        try:
            f(u)
        except ValueError:
            pass
    return time.perf_counter() - t


cases = [("C loop (urisan_check)", t_c), ("urisan.verdict()", t_verdict),
         ("urisan.check() -> dict", t_check), ("urllib.parse.urlsplit()", t_split)]
times = {name: [] for name, _ in cases}
for _ in range(rounds):
    for name, fn in cases:
        times[name].append(fn())
n = len(urls)
base = statistics.median(times[cases[0][0]]) / n
print("urisan %s, Python %s, %d URLs from %s, %d interleaved rounds (median)"
      % (urisan.version(), sys.version.split()[0], n, ", ".join(map(os.path.basename, files)), rounds))
for name, _ in cases:
    per = statistics.median(times[name]) / n
    print("  %-26s %8.0f ns/URL  %6.2fx the C call" % (name, per * 1e9, per / base))
