#!/usr/bin/env python3
"""What the default policy does is said once and the same way by the man
page (POLICY), `urisan policy show` and the command itself: it denies its
list, allows internal_name and single_label (listed among the flags, the
verdict allow: http://localhost/), and flags every other flag
(http://127.0.0.1/ is flag, ip_loopback).

Usage: default_policy_doc_test.py URISAN SRCDIR
"""
import json
import os
import re
import subprocess
import sys

URISAN, SRC = sys.argv[1], sys.argv[2]
FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def judged(uri):
    r = subprocess.run([URISAN, "check", "--json", uri], capture_output=True, text=True)
    return json.loads(r.stdout)


def main():
    local = judged("http://localhost/")
    check(local["verdict"] == "allow" and {"internal_name", "single_label"} <= set(local["flags"])
          and local["flag_reasons"] == [],
          "http://localhost/: allow, internal_name and single_label listed (%s %s)"
          % (local["verdict"], local["flags"]))
    loop = judged("http://127.0.0.1/")
    check(loop["verdict"] == "flag" and "ip_loopback" in loop["flag_reasons"],
          "http://127.0.0.1/: flag, ip_loopback (%s %s)" % (loop["verdict"], loop["flag_reasons"]))
    show = subprocess.run([URISAN, "policy", "show"], capture_output=True, text=True).stdout
    check("internal_name and single_label are allowed" in " ".join(show.replace("#", "").split())
          and "every other flag makes it flag" in show,
          "policy show says so: %r" % show.splitlines()[:3])
    man = open(os.path.join(SRC, "doc", "urisan.1"), encoding="utf-8").read()
    sec = man.split(".SH POLICY\n", 1)[1].split(".TP", 1)[0]
    words = " ".join(re.sub(r"^\.[A-Z]+ ?", "", sec, flags=re.M).replace("\\-", "-").split())
    check("allows internal_name and single_label" in words and "flags every other flag" in words,
          "the man page's POLICY says so: %r" % words[-300:])
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
