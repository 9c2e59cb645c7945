#!/usr/bin/env python3
"""doc/debian.md lists every binary package of debian/control, and no
other: its table's first column against the Package: fields.

Usage: debian_doc_test.py SRCDIR
"""
import os
import re
import sys


def main():
    root = sys.argv[1]
    control = open(os.path.join(root, "debian", "control"), encoding="utf-8").read()
    doc = open(os.path.join(root, "doc", "debian.md"), encoding="utf-8").read()
    packages = re.findall(r"^Package:\s*(\S+)", control, re.M)
    listed = re.findall(r"^\| `([a-z0-9.+-]+)` \|", doc, re.M)
    ok = len(packages) >= 5 and sorted(packages) == sorted(listed)
    print(("ok   " if ok else "FAIL ") + "debian/control builds %s; doc/debian.md lists %s"
          % (sorted(packages), sorted(listed)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
