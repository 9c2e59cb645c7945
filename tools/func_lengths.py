#!/usr/bin/env python3
"""func_lengths.py - functions of the given C files longer than N lines.

    tools/func_lengths.py [--over N] FILE...     (default N = 80)

A function is a top-level definition: a line opening with '{' at column 0
after a signature, up to the next '}' at column 0 (the project's style,
doc/STYLE). Its length counts the lines from the signature's first line
to the closing brace. Prints "LINES FILE:LINE NAME", longest first.
"""
import re
import sys


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("{"):
            # the signature: back to the previous blank/semicolon/brace line
            j = i - 1
            while j > 0 and lines[j - 1].strip() and not re.search(r"[;}]\s*$|^#|\*/\s*$", lines[j - 1]):
                j -= 1
            sig = " ".join(s.strip() for s in lines[j:i])
            m = re.search(r"(\w+)\s*\(", sig)
            name = m.group(1) if m else "?"
            k = i + 1
            while k < len(lines) and not lines[k].startswith("}"):
                k += 1
            if "(" in sig:
                out.append((k - j + 1, j + 1, name))
            i = k + 1
        else:
            i += 1
    return out


def main(argv):
    over = 80
    if len(argv) > 1 and argv[1] == "--over":
        over = int(argv[2])
        argv = argv[2:]
    rows = []
    for p in argv[1:]:
        for n, line, name in functions(p):
            if n > over:
                rows.append((n, "%s:%d" % (p, line), name))
    rows.sort(key=lambda r: (-r[0], r[1]))
    for n, where, name in rows:
        print("%4d %s %s" % (n, where, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
