#!/usr/bin/env python3
"""`urisan policy check FILE` as a linter (doc/policy.md "Checking a policy").

Usage: policy_lint_test.py PATH-TO-urisan

Every mistake of a file in one run, each as FILE:LINE:COLUMN: message
'word'; the warnings (duplicate entries, a rule undone by a later one,
allow-host and deny-host entries that overlap, '*.NAME' without NAME, a
nested: rule on a flag no nested URL carries); "did you mean"; --strict.
"""
import os
import subprocess
import sys
import tempfile

from testlib import run_tests

URISAN = sys.argv[1] if len(sys.argv) > 1 else "urisan"


def lint(text, *opts):
    fd, path = tempfile.mkstemp(suffix=".policy")
    with os.fdopen(fd, "wb") as f:
        f.write(text)
    try:
        r = subprocess.run([URISAN, "policy", *opts, "check", path], capture_output=True,
                           timeout=60)
        lines = r.stderr.decode().splitlines()
        diags = [ln[len(path) + 1:] for ln in lines if ln.startswith(path + ":")]
        # the last line sums up: "FILE: N errors, M warnings"
        return r, [d for d in diags if not d.startswith(" ")], \
            [ln for ln in lines if not ln.startswith(path + ":")]
    finally:
        os.unlink(path)


def test_every_mistake_in_one_run():
    r, diags, other = lint(b"# four mistakes\n"
                           b"deny pasword\n"
                           b"deny-host evil..com\n"
                           b"allow-port 99999 80\n"
                           b"allow-schem http\n"
                           b"deny password\n")
    assert r.returncode == 1 and r.stdout == b"", r
    assert diags == [
        "2:6: unknown flag 'pasword' (did you mean 'password'?)",
        "3:11: empty label in host 'evil..com'",
        "4:12: invalid port (want N or N-M, 0-65535) '99999'",
        "5:1: unknown directive 'allow-schem' (did you mean 'allow-scheme'?)",
    ], diags
    assert other == [], other
    assert r.stderr.decode().endswith(": 4 errors, 0 warnings\n"), r.stderr


def test_every_bad_word_of_a_line():
    r, diags, _ = lint(b"deny usrinfo password ip_privat\n")
    assert r.returncode == 1
    assert diags == ["1:6: unknown flag 'usrinfo' (did you mean 'userinfo'?)",
                     "1:23: unknown flag 'ip_privat' (did you mean 'ip_private'?)"], diags


def test_no_suggestion_for_a_word_close_to_nothing():
    r, diags, _ = lint(b"deny frobnicate\n")
    assert diags == ["1:6: unknown flag 'frobnicate'"], diags


def test_first_mistake_is_the_one_check_reports():
    fd, path = tempfile.mkstemp(suffix=".policy")
    with os.fdopen(fd, "wb") as f:
        f.write(b"deny ip_privat\ndeny x\n")
    try:
        r = subprocess.run([URISAN, "check", "--policy", path, "http://a/"], capture_output=True)
        assert r.returncode == 2
        assert r.stderr.decode() == (f"{path}:1:6: unknown flag 'ip_privat'"
                                     " (did you mean 'ip_private'?)\n"), r.stderr
    finally:
        os.unlink(path)


def test_duplicate_entries():
    r, diags, _ = lint(b"deny password\ndeny password\n"
                       b"allow-scheme http https http\n"
                       b"deny-host evil.example evil.example\n"
                       b"deny-host .bad.example www.bad.example\n"
                       b"allow-port 80 8000-8100 8080\n")
    assert r.returncode == 0, r
    assert diags == [
        "2:6: warning: duplicate rule for 'password' (line 1)",
        "3:25: warning: duplicate entry 'http'",
        "4:24: warning: duplicate entry 'evil.example'",
        "5:24: warning: entry already covered by an earlier one 'www.bad.example', by "
        "'.bad.example'",
        "6:25: warning: port already allowed by an earlier entry '8080'",
    ], diags


def test_rule_undone_by_a_later_one():
    r, diags, _ = lint(b"deny nondefault_port\nflag userinfo\n\nallow nondefault_port\n"
                       b"deny userinfo\n")
    assert diags == ["4:7: warning: undoes an earlier rule for 'nondefault_port' (line 1)",
                     "5:6: warning: undoes an earlier rule for 'userinfo' (line 2)"], diags
    # a profile's rule changed by the file is what a file is for: no warning
    r, diags, _ = lint(b"profile ssrf\nallow ip_private\nflag userinfo\n")
    assert diags == [] and r.returncode == 0, (diags, r)
    # `all` then a name: the usual way to write "everything but"
    r, diags, _ = lint(b"flag all\ndeny password\n")
    assert diags == [], diags


def test_overlapping_allow_and_deny_hosts():
    r, diags, _ = lint(b"deny-host .evil.example\nallow-host www.evil.example good.example\n"
                       b"allow-host *.corp.example\ndeny-host db.corp.example\n")
    assert diags == [
        "2:12: warning: allow-host entry overlaps deny-host (the hosts in both are denied) "
        "'www.evil.example', deny-host holds '.evil.example'",
        "4:11: warning: deny-host entry overlaps allow-host (the hosts in both are denied) "
        "'db.corp.example', allow-host holds '*.corp.example'",
        # warnings about the whole policy come last
        "3:12: warning: '*.NAME' leaves NAME itself out (write '.NAME' for both): "
        "'*.corp.example'",
    ], diags


def test_star_dot_leaves_the_apex_out():
    r, diags, _ = lint(b"deny-host *.evil.example\n")
    assert diags == ["1:11: warning: '*.NAME' leaves NAME itself out (write '.NAME' for both):"
                     " '*.evil.example'"], diags
    # the apex listed too, or ".NAME": no warning
    for text in (b"deny-host *.evil.example\ndeny-host evil.example\n",
                 b"deny-host .evil.example\n", b"deny-host *.evil.example Evil.Example.\n"):
        r, diags, _ = lint(text)
        assert diags == [], (text, diags)


def test_rule_no_part_of_the_build_can_apply():
    r, diags, _ = lint(b"deny nested:link_text_mismatch nested:ip_private\n")
    assert diags == ["1:6: warning: no nested URL carries this flag (it is a mail link's):"
                     " 'nested:link_text_mismatch'"], diags
    # the host layer judges a nested URL's host: nested:homograph can fire
    r, diags, _ = lint(b"deny nested:homograph nested:invisible_char nested:host_uts46\n")
    assert diags == [], diags


def test_strict_turns_warnings_into_exit_1():
    text = b"deny-host *.evil.example\n"
    r, diags, _ = lint(text)
    assert r.returncode == 0 and b"deny-host *.evil.example\n" in r.stdout, r
    r, diags, _ = lint(text, "--strict")
    assert r.returncode == 1 and len(diags) == 1, r
    r, diags, other = lint(b"deny-host .evil.example\n", "--strict")
    assert r.returncode == 0 and diags == [] and other == [] and r.stderr == b"", r


def test_the_first_100_problems_then_and_n_more():
    """A hostile policy of thousands of mistakes writes 100 of them, then a
    count of the rest; the summary counts them all; the exit status is the
    same."""
    r, diags, other = lint(b"deny pasword\n" * 5000)
    assert r.returncode == 1 and r.stdout == b"", r
    shown = [d for d in diags if "unknown flag" in d]
    assert len(shown) == 100 and shown[0].startswith("1:6:") and shown[-1].startswith("100:6:"), \
        shown[-1:]
    assert ": and 4900 more\n" in r.stderr.decode(), r.stderr[-300:]
    assert r.stderr.decode().endswith(": 5000 errors, 0 warnings\n"), r.stderr[-200:]
    assert len(r.stderr) < 20000, len(r.stderr)
    r, diags, _ = lint(b"deny pasword\n" * 100)
    assert r.returncode == 1 and b" more\n" not in r.stderr, r.stderr[-300:]


def main():
    return run_tests(globals())


if __name__ == "__main__":
    sys.exit(main())
