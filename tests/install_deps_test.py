#!/usr/bin/env python3
"""tools/install-deps.sh installs every Build-Depends of debian/control.

CI runs on a fresh machine: a build dependency that only a developer's
machine happened to have (dh-python did, until stop 21) fails
tools/deb-check.sh there and nowhere else. Virtual packages
(debhelper-compat) are provided by a listed package.
"""
import os
import re
import sys

VIRTUAL = {"debhelper-compat": "debhelper"}


def build_depends(control):
    text = open(control, encoding="utf-8").read()
    m = re.search(r"^Build-Depends:(.*?)(?=^\S)", text, re.S | re.M)
    if m is None:
        sys.exit(f"{control}: no Build-Depends field")
    names = []
    for item in m.group(1).split(","):
        alt = item.split("|")[0]
        alt = re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", alt).strip()
        if alt:
            names.append(alt)
    return names


def installed_list(script):
    text = open(script, encoding="utf-8").read()
    m = re.search(r"^pkgs=\((.*?)^\)", text, re.S | re.M)
    if m is None:
        sys.exit(f"{script}: no pkgs=( ... ) list")
    words = []
    for line in m.group(1).splitlines():
        words += line.split("#")[0].split()
    return set(words)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    need = build_depends(os.path.join(root, "debian", "control"))
    have = installed_list(os.path.join(root, "tools", "install-deps.sh"))
    if len(need) < 5 or len(have) < 5:
        sys.exit(f"parsed too little: {len(need)} build-depends, {len(have)} packages")
    missing = [p for p in need if VIRTUAL.get(p, p) not in have]
    for p in missing:
        print(f"debian/control Build-Depends '{p}' is not installed by tools/install-deps.sh")
    print(f"{len(need)} build dependencies, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
