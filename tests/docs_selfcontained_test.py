#!/usr/bin/env python3
"""Docs, --help, the man page and the profiles `policy show` prints stand on
their own: they cite public documents (RFC 3986, the WHATWG URL Standard,
UTS #46, UTS #39 ...) by name, never a document a user does not have - the
project's specification ("SPEC" and its section numbers), the draft it grew
from ("the seed draft", its "Appendix E"), or tracker numbers ("issue 18").

Usage: docs_selfcontained_test.py PATH-TO-urisan SRCDIR
"""
import glob
import os
import re
import subprocess
import sys

URISAN = sys.argv[1] if len(sys.argv) > 1 else "urisan"
SRCDIR = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..")

# (pattern, what it cites)
PATTERNS = [
    (re.compile(r"\bSPEC(\s+sections?)?\s+\d|\bSPEC\s+section|\(SPEC\b"),
     "the project specification"),
    (re.compile(r"\bseed\s+draft", re.I), "the seed draft"),
    (re.compile(r"(?<!uriparser )\bissues?\s+#?\d+", re.I), "an issue number"),
    (re.compile(r"(?<!RFC \d{4} )(?<!RFC \d{4}, )\bAppendix\s+[A-Z]\b"),
     "an appendix of no named document"),
]


def texts():
    """(name, text) of everything a user reads."""
    out = []
    for pat in ("doc/*.md", "doc/urisan.1", "doc/*.json", "README.md", "SECURITY.md", "NEWS",
                "python/*.pyi", "python/urisan-stubs/*.pyi", "python/urisan_guard.py",
                "examples/*", "examples/etc/urisan/*", "lua/rspamd/*.lua",
                # the installed headers (the flat urisan.h is made from include/urisan.h)
                "include/*.h", "include/*.def", "include/*.h.in"):
        for path in sorted(glob.glob(os.path.join(SRCDIR, pat))):
            if os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    out.append((os.path.relpath(path, SRCDIR), f.read()))
    r = subprocess.run([URISAN, "--help"], capture_output=True, timeout=30)
    out.append(("urisan --help", r.stdout.decode()))
    cmds = re.findall(r"^  ([a-z][a-z-]*) ", r.stdout.decode().split("Commands:\n", 1)[1], re.M)
    for c in cmds:
        r = subprocess.run([URISAN, c, "--help"], capture_output=True, timeout=30)
        out.append((f"urisan {c} --help", r.stdout.decode()))
    for p in ("default", "proxy", "ssrf", "mail"):
        r = subprocess.run([URISAN, "policy", "show", "--profile", p], capture_output=True,
                           timeout=30)
        out.append((f"urisan policy show --profile {p}", r.stdout.decode()))
    return out


def main():
    hits = []
    for name, text in texts():
        for i, line in enumerate(text.splitlines(), 1):
            for pat, what in PATTERNS:
                m = pat.search(line)
                if m:
                    hits.append(f"{name}:{i}: cites {what}: {line.strip()[:120]}")
    for h in hits:
        print("FAIL", h)
    print(f"{len(hits)} reference(s) to documents a user does not have")
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
