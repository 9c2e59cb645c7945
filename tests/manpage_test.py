#!/usr/bin/env python3
"""The man page (doc/urisan.1) against the command's --help.

Usage: manpage_test.py PATH-TO-urisan SRCDIR

SYNOPSIS lists every command `urisan --help` lists and, for each, every
option its `--help` lists, and no other; each option has an entry of its
own (.TP .B --opt / .BI --opt) somewhere in the page.

The page fits an 80-column terminal: `MANWIDTH=80 man -l doc/urisan.1`
writes no line longer than 80 characters and no groff warning (a table
wider than the line).
"""
import os
import re
import shutil
import subprocess
import sys

URISAN = sys.argv[1] if len(sys.argv) > 1 else "urisan"
SRCDIR = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..")
OPT = re.compile(r"--[a-z][a-z0-9-]*")


def helptext(*args):
    r = subprocess.run([URISAN, *args, "--help"], capture_output=True, timeout=30)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout.decode()


def commands_of_help():
    text = helptext()
    part = text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*) ", part, re.M)]


def man_source():
    with open(os.path.join(SRCDIR, "doc", "urisan.1"), encoding="utf-8") as f:
        return f.read()


def synopsis(man):
    """{command: set of options} of the SYNOPSIS section."""
    sec = man.split(".SH SYNOPSIS\n", 1)[1].split("\n.SH ", 1)[0].replace("\\-", "-")
    out = {}
    for entry in sec.split(".br\n"):
        m = re.match(r"\.B urisan ([a-z][a-z-]*)\s*\n", entry)
        if m:
            out[m.group(1)] = set(OPT.findall(entry[m.end():]))
    return out


def width():
    """Lines of `MANWIDTH=80 man -l` wider than 80 columns, groff warnings."""
    if shutil.which("man") is None:
        print("no man(1) (package man-db): the page's width is not checked")
        return []
    env = dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="", LC_ALL="C.UTF-8",
               MANROFFSEQ="", MANPAGER="cat", PAGER="cat")
    r = subprocess.run(["man", "-l", os.path.join(SRCDIR, "doc", "urisan.1")],
                       capture_output=True, env=env, timeout=60)
    text = re.sub(r".\x08", "", r.stdout.decode("utf-8", "replace"))   # overstrike
    out = [f"man -l at 80 columns, line {i}: {len(l.expandtabs())} columns: {l.strip()[:60]}"
           for i, l in enumerate(text.split("\n"), 1) if len(l.expandtabs()) > 80]
    out += [f"man -l at 80 columns: {w}" for w in r.stderr.decode().splitlines() if w.strip()]
    if r.returncode != 0 or len(text) < 10000:
        out.append(f"man -l failed ({r.returncode}): {r.stderr.decode()[:200]}")
    return out


def main():
    failures = []
    man = man_source()
    syn = synopsis(man)
    cmds = commands_of_help()
    if sorted(syn) != sorted(cmds):
        failures.append(f"SYNOPSIS lists {sorted(syn)}, --help lists {sorted(cmds)}")
    flat = man.replace("\\-", "-")
    for c in cmds:
        h = helptext(c)
        if "not built in this binary" in h:
            continue
        want = set(OPT.findall(h)) - {"--help"}
        got = syn.get(c, set())
        if want != got:
            failures.append(f"{c}: --help has {sorted(want - got)} not in SYNOPSIS, "
                            f"SYNOPSIS has {sorted(got - want)} not in --help")
        for o in sorted(want):
            if not re.search(r"^\.(B|BI|BR|IB)\s+\"?" + re.escape(o) + r"(\b|=|\"|\s|$)", flat,
                             re.M):
                failures.append(f"{c}: {o} has no entry of its own in the man page")
    failures += width()
    for f in failures:
        print("FAIL", f)
    print(f"{len(cmds)} commands compared, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
