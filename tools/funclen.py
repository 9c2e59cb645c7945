#!/usr/bin/env python3
"""funclen.py - the length of every C function in a tree, longest first.

    tools/funclen.py [--over N] [DIR...]     (default: src, over 80)

A function is a definition whose body opens with "{" at column 0 and
closes with "}" at column 0 (the project's style, src/ and tests/); its
length counts the lines from the first line of its signature to the
closing brace. Prints "LINES FILE:LINE NAME" for each function longer
than N lines and exits 0.
"""
import os
import re
import sys

NAME = re.compile(r"\b(\w+)\s*\(")


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out = []
    for i, line in enumerate(lines):
        if line.rstrip() != "{":
            continue
        # the signature: back to the line after a blank, '}', ';', '#' or comment end
        j = i
        while j > 0:
            prev = lines[j - 1]
            if (not prev.strip() or prev.startswith(("}", "#", " *", "/*"))
                    or prev.rstrip().endswith((";", "*/"))):
                break
            j -= 1
        sig = " ".join(lines[j:i])
        m = NAME.search(sig)
        if not m or "=" in sig.split("(")[0]:
            continue  # an initialiser, not a function
        k = i + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        out.append((k - j + 1, j + 1, m.group(1)))
    return out


def main(argv):
    over = 80
    if len(argv) > 2 and argv[1] == "--over":
        over = int(argv[2])
        argv = argv[2:]
    dirs = argv[1:] or [os.path.join(os.path.dirname(__file__), "..", "src")]
    rows = []
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    p = os.path.join(root, f)
                    rel = os.path.relpath(p, os.path.join(d, ".."))
                    rows += [(n, rel, ln, name) for n, ln, name in functions(p)]
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    for n, rel, ln, name in rows:
        if n > over:
            print(f"{n:5d} {rel}:{ln} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
