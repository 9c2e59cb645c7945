#!/usr/bin/env python3
"""`urisan extract --mail` on mailboxes: every message of an
mbox (From-line unescaping, mboxrd) and of a Maildir (new/ then cur/),
each hit naming its message (index, Message-ID, file); a single message
keeps its output (no message keys).

Usage: mailbox_test.py URISAN. Exit 77 when built without --mail.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

URISAN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))


def msg(mid, body):
    return (f"From: a@example.org\nTo: b@example.org\nSubject: {mid}\n"
            f"Message-ID: <{mid}@x>\n\n{body}\n")


def extract(path, extra=()):
    r = subprocess.run([URISAN, "extract", "--mail", "--json", *extra, path],
                       capture_output=True)
    return r, [json.loads(l) for l in r.stdout.decode().splitlines()]


def main():
    r = subprocess.run([URISAN, "extract", "--mail", os.path.join(HERE, "mail", "phish.eml")],
                       capture_output=True)
    if r.returncode == 2 and b"not available" in r.stderr:
        print("SKIP: built without --mail")
        return 77
    fails = 0

    def expect(cond, what):
        nonlocal fails
        print(("ok   " if cond else "FAIL ") + what)
        fails += not cond

    d = tempfile.mkdtemp(prefix="urisan-mailbox-")
    try:
        box = os.path.join(d, "box.mbox")
        with open(box, "w") as f:
            f.write("From a@example.org Mon Jan  1 00:00:00 2024\n")
            f.write(msg("m1", "see http://one.example/a"))
            f.write("\nFrom b@example.org Mon Jan  1 00:00:01 2024\n")
            f.write(msg("m2", ">From the start: http://two.example/b\n>>From kept http://two.example/c"))
            f.write("\nFrom c@example.org Mon Jan  1 00:00:02 2024\n")
            f.write("From: c@example.org\nSubject: no id\n\nhttp://three.example/\n\n")
        r, rows = extract(box)
        expect(r.returncode == 0, f"mbox: exit {r.returncode} {r.stderr!r}")
        got = [(x["message"], x["message_id"], x["uri"], x["offset"]) for x in rows]
        expect(got == [(1, "<m1@x>", "http://one.example/a", 4),
                       (2, "<m2@x>", "http://two.example/b", 16),
                       (2, "<m2@x>", "http://two.example/c", 48),
                       (3, "", "http://three.example/", 0)],
               f"mbox: every message, one '>' removed from >*From lines: {got}")
        expect(all(x["file"] == box for x in rows), "mbox: file named")
        r = subprocess.run([URISAN, "extract", "--mail", box], capture_output=True)
        lines = r.stdout.decode().splitlines()
        expect(len(lines) == 4 and lines[0].startswith("1 1 4 text ") and
               lines[3].startswith("3 1 0 text "), f"mbox text lines start MESSAGE PART: {lines}")

        md = os.path.join(d, "Maildir")
        for sub in ("cur", "new", "tmp"):
            os.makedirs(os.path.join(md, sub))
        with open(os.path.join(md, "new", "200.host"), "w") as f:
            f.write(msg("n1", "http://new.example/"))
        with open(os.path.join(md, "cur", "100.host:2,S"), "w") as f:
            f.write(msg("c1", "javascript:alert(1) and http://cur.example/"))
        with open(os.path.join(md, "tmp", "300.host"), "w") as f:
            f.write(msg("t1", "http://tmp.example/"))
        r, rows = extract(md)
        got = [(x["message"], x["message_id"], os.path.relpath(x["file"], md), x["uri"])
               for x in rows]
        expect(r.returncode == 1, f"Maildir: exit 1 (a denied link) {r.returncode}")
        expect(got == [(1, "<n1@x>", "new/200.host", "http://new.example/"),
                       (2, "<c1@x>", "cur/100.host:2,S", "javascript:alert(1)"),
                       (2, "<c1@x>", "cur/100.host:2,S", "http://cur.example/")],
               f"Maildir: new/ then cur/, tmp/ skipped: {got}")

        r, rows = extract(os.path.join(HERE, "mail", "phish.eml"))
        expect(rows and "message" not in rows[0], "a single message has no message keys")
    finally:
        shutil.rmtree(d)
    print("PASS" if fails == 0 else f"FAIL ({fails})")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
