#!/usr/bin/env python3
"""Prints one plain closing line for a meson test run: 'tests: N passed, N failed, N skipped'."""
import json, sys

passed = failed = skipped = 0
with open(sys.argv[1]) as fp:
    for line in fp:
        r = json.loads(line)
        res = r.get("result")
        if res in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif res == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
