#!/usr/bin/env python3
"""Homograph detection on tests/homograph/eval.tsv.

Runs `urisan check --json` on http://HOST/ for each host of the set and
counts: a confusable host without the homograph flag is a false negative,
a legitimate host with it a false positive. The figures are printed (the
closing note quotes them) and the test fails when either count exceeds
the recorded bound below, or when the output misses the keys.

Usage: homograph_eval.py URISAN [EVAL_TSV]
Exit 77 (skip) when urisan was built without hostview (no ICU/libidn2/libpsl).
"""
import json
import os
import subprocess
import sys

# Recorded with the set as written (see the set's header). Lower is fine;
# higher fails.
MAX_FALSE_NEGATIVES = 1
MAX_FALSE_POSITIVES = 2


def main():
    urisan = sys.argv[1]
    tsv = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "homograph", "eval.tsv")
    rows = []
    with open(tsv, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 4 or parts[0] not in ("confusable", "legitimate"):
                print(f"{tsv}:{n}: expected KIND HOST IMITATES HOW: {line!r}")
                return 1
            rows.append(parts)
    ncon = sum(1 for r in rows if r[0] == "confusable")
    nleg = len(rows) - ncon
    if ncon < 50 or nleg < 50:
        print(f"the set needs >= 50 of each kind: {ncon} confusable, {nleg} legitimate")
        return 1
    inp = "".join(f"http://{r[1]}/\n" for r in rows).encode()
    p = subprocess.run([urisan, "check", "--json"], input=inp, capture_output=True)
    if p.returncode not in (0, 1):
        print("urisan check failed:", p.stderr.decode(errors="replace"))
        return 1
    out = [json.loads(l) for l in p.stdout.decode().splitlines()]
    if len(out) != len(rows):
        print(f"{len(rows)} inputs, {len(out)} answers")
        return 1
    if "host_unicode" not in out[0]:
        print("SKIP: urisan was built without hostview (ICU, libidn2, libpsl)")
        return 77
    fn, fp, bad, named = [], [], [], []
    for (kind, host, imitates, how), o in zip(rows, out):
        hit = "homograph" in o["flags"]
        if kind == "confusable" and not hit:
            fn.append((host, imitates, how, o["host_skeleton"]))
        if kind == "legitimate" and hit:
            fp.append((host, how, o["host_skeleton"], o["host_imitates"]))
        if o["host_unicode"] is None or "." not in o["host_unicode"]:
            bad.append((host, "no host_unicode"))
        if kind == "confusable" and hit and o["host_imitates"] is not None:
            named.append((host, imitates, o["host_imitates"]))
    print(f"homograph evaluation: {ncon} confusable, {nleg} legitimate IDNs")
    print(f"  false negatives: {len(fn)} of {ncon}")
    for x in fn:
        print("    FN", *x)
    print(f"  false positives: {len(fp)} of {nleg}")
    for x in fp:
        print("    FP", *x)
    # host_imitates is the ASCII name of the TR39 skeleton: where it is not
    # the name the row imitates, TR39 holds the letters apart (Cyrillic
    # palochka is "i" there, not "l"): shown, not counted as an error.
    same = [x for x in named if x[1] == x[2]]
    print(f"  host_imitates given for {len(named)} confusables; "
          f"the imitated name itself for {len(same)}")
    for x in named:
        if x[1] != x[2]:
            print("    imitates", *x)
    for x in bad:
        print("  WRONG", *x)
    ok = len(fn) <= MAX_FALSE_NEGATIVES and len(fp) <= MAX_FALSE_POSITIVES and not bad
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
