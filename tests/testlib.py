"""testlib.py - what the Python tests share (they import it from their own
folder, which Python puts first on sys.path).

- run_tests(globals()): run every function test_* of a test file in name
  order, each to the end whatever the others did; print "ok   NAME" or
  "FAIL NAME" with the traceback; return the exit status (1 when any
  failed).
- check(cond, what): the tests that count their failures rather than stop
  at the first: "ok   WHAT" or "FAIL WHAT", each failure kept in failures.
- extract(URISAN, args, stdin), extract_rows(...): `urisan extract` and
  `urisan extract --json` run once.
"""
import json
import subprocess
import sys
import traceback

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run_tests(scope):
    tests = [(n, f) for n, f in sorted(scope.items())
             if n.startswith("test_") and callable(f)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print(f"ok   {name}")
        except Exception:
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exc(file=sys.stdout)
    print(f"{len(tests) - failed}/{len(tests)} passed")
    return 1 if failed else 0


def extract(urisan, args, stdin=b""):
    """`urisan extract ARGS` on stdin: (exit status, stdout, stderr)."""
    p = subprocess.run([urisan, "extract"] + list(args), input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def extract_rows(urisan, args, stdin=b""):
    """`urisan extract --json ARGS`: (exit status, its rows, stderr)."""
    rc, out, err = extract(urisan, ["--json"] + list(args), stdin)
    return rc, [json.loads(line) for line in out.decode("utf-8").splitlines()], err
