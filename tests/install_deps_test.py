#!/usr/bin/env python3
"""tools/install-deps.sh installs every Build-Depends of debian/control.

CI runs on a fresh machine: a build dependency that only a developer's
machine happened to have (dh-python did, until stop 21) fails
tools/deb-check.sh there and nowhere else. Virtual packages
(debhelper-compat) are provided by a listed package.

The minimal list (`install-deps.sh --minimal`, what tools/quickstart.sh
installs) is the one README's "Quick start" gives, word for word, and a
part of the full list.
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
    script = open(os.path.join(root, "tools", "install-deps.sh"), encoding="utf-8").read()
    m = re.search(r"^minimal=\((.*?)\)", script, re.S | re.M)
    minimal = m.group(1).split() if m else []
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    r = re.search(r"The first installs only what the command and `extract --mail` need:\s*`([^`]*)`",
                  readme)
    listed = r.group(1).split() if r else []
    bad = 0
    if not minimal or listed != minimal:
        print(f"README's minimal list {listed} is not install-deps.sh --minimal's {minimal}")
        bad = 1
    if f"installs {len(minimal)} packages" not in readme:
        print(f"README's Quick start does not say 'installs {len(minimal)} packages'")
        bad = 1
    if "bash tools/install-deps.sh --minimal" not in open(
            os.path.join(root, "tools", "quickstart.sh"), encoding="utf-8").read():
        print("tools/quickstart.sh does not install the minimal list")
        bad = 1
    for p in minimal:
        if p not in have:
            print(f"minimal package {p} is not in the full list")
            bad = 1
    print(f"minimal list: {len(minimal)} packages, README and quickstart agree" if not bad else "")
    return 1 if missing or bad else 0


if __name__ == "__main__":
    sys.exit(main())
