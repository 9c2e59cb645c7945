#!/usr/bin/env python3
"""Every cache of the host layer and of the command's writers keeps
answers that are a function of its key alone: `urisan check --json` writes the same bytes with each one
turned off (URISAN_BENCH_CACHES_OFF, the switch urisan-bench measures
them with; doc/bench.md "Every cache") and with all of them off.

Inputs: the homograph test set, the lines of corpus/ and, when the shared
data is there, the shared URL lists (each twice, so the memo and the last
host are asked again).

Usage: caches_off_test.py URISAN SRCDIR [switches|no-switches] (the shared
data: $URISAN_DATA). Exit 77 without the host layer, and in a build without
-Dbench_switches=true, whose libraries read no environment.
"""
import os
import subprocess
import sys

URISAN, SRC = sys.argv[1], sys.argv[2]
SWITCHES = len(sys.argv) < 4 or sys.argv[3] == "switches"
DATA = os.environ.get("URISAN_DATA", "")
CACHES = ("memo", "last", "skeleton", "runs")


def inputs():
    lines = []
    with open(os.path.join(SRC, "tests", "homograph", "eval.tsv"), "rb") as f:
        rows = [l.split(b"\t") for l in f.read().split(b"\n") if l and not l.startswith(b"#")]
        lines += [b"http://" + r[1] + b"/" for r in rows if len(r) > 1]
    for root, _, files in os.walk(os.path.join(SRC, "corpus")):
        for name in sorted(files):
            with open(os.path.join(root, name), "rb") as f:
                lines += [l for l in f.read().split(b"\n") if l and b"\r" not in l]
    urls = os.path.join(DATA, "urls") if DATA else ""
    if urls and os.path.isdir(urls):
        for name in sorted(os.listdir(urls)):
            with open(os.path.join(urls, name), "rb") as f:
                lines += f.read().split(b"\n")[:20000]
    else:
        print("no shared data: homograph set and corpus/ only")
    return b"\n".join(lines + lines) + b"\n"


def run(text, off):
    env = dict(os.environ)
    env.pop("URISAN_BENCH_CACHES_OFF", None)
    if off:
        env["URISAN_BENCH_CACHES_OFF"] = off
    r = subprocess.run([URISAN, "check", "--json"], input=text, capture_output=True, env=env)
    assert r.returncode in (0, 1), r.stderr
    return r.stdout


def main():
    if not SWITCHES:
        print("skip: built without -Dbench_switches=true, so nothing reads "
              "URISAN_BENCH_CACHES_OFF (the ASan stage of .ci/run builds with it)")
        return 77
    text = inputs()
    want = run(text, None)
    if b'"host_unicode"' not in want:
        print("skip: built without the host layer")
        return 77
    failed = 0
    for off in CACHES + (",".join(CACHES),):
        got = run(text, off)
        same = got == want
        print("%s %s off: %d lines" % ("ok  " if same else "FAIL", off, want.count(b"\n")))
        failed += not same
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
