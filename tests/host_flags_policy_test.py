#!/usr/bin/env python3
"""A policy that denies or flags a host-layer flag (homograph,
invisible_char, host_uts46) holds in a build with the host layer
(liburisan-host) and is refused, when loaded, by one without it: the
error names the file, line, column and word, and `policy check`, `check`
and `squid-acl` all refuse it. Never a silent no-op.

Usage: host_flags_policy_test.py URISAN
"""
import json
import os
import subprocess
import sys
import tempfile

URISAN = sys.argv[1]
HOMOGRAPH = b"https://xn--80ak6aa92e.com/\n"


def run(args, stdin=b""):
    return subprocess.run([URISAN] + args, input=stdin, capture_output=True)


def main():
    probe = run(["check", "--json"], HOMOGRAPH)
    has_host = "host_unicode" in json.loads(probe.stdout.decode().splitlines()[0])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pol.txt")
        with open(path, "w") as f:
            f.write("# deny lookalike hosts\ndeny invalid  homograph\n")
        runs = [run(["policy", "check", path]), run(["check", "--policy", path], HOMOGRAPH),
                run(["squid-acl", "--policy", path], b"1 " + HOMOGRAPH)]
        for r in runs:
            if has_host:
                assert r.returncode in (0, 1), r.stderr
            else:
                err = r.stderr.decode()
                assert r.returncode in (1, 2), (r.returncode, err)   # policy check: 1
                assert "%s:2:15:" % path in err and "'homograph'" in err, err
                assert r.stdout == b"", r.stdout
        if has_host:
            assert runs[1].stdout.startswith(b"deny denied:homograph"), runs[1].stdout
            assert runs[2].stdout.startswith(b"1 ERR "), runs[2].stdout
    print("ok: %s" % ("host layer: the rule holds" if has_host
                      else "no host layer: the policy is refused at its word"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
