#!/usr/bin/env python3
"""From the command line: deny reasons apart from flag-only ones
(check --json deny_reasons/flag_reasons, text denied:...;flagged:...,
Squid log=), --profile on every command with --policy, `profile` lines,
policy mistakes as FILE:LINE:COLUMN: message 'word', `urisan policy
check|show`, the Squid helper's ERR rules.

usage: decision_cli_test.py URISAN
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from testlib import run_tests

URISAN = sys.argv[1] if len(sys.argv) > 1 else "urisan"


def run(args, stdin=b""):
    return subprocess.run([URISAN] + args, input=stdin, capture_output=True, timeout=60)


def tmp_policy(text):
    fd, path = tempfile.mkstemp(suffix=".policy")
    with os.fdopen(fd, "wb") as f:
        f.write(text)
    return path


def check_json(uris, *extra):
    r = run(["check", "--json", *extra], b"".join(u + b"\n" for u in uris))
    return [json.loads(x) for x in r.stdout.splitlines()], r


def test_json_has_deny_reasons_and_flag_reasons_apart():
    out, r = check_json([b"http://u:p@127.0.0.1:8080/", b"http://127.0.0.1/",
                         b"https://example.com/"])
    assert r.returncode == 1
    d, f, a = out
    assert d["deny_reasons"] == ["password"], d
    assert set(d["flag_reasons"]) == {"userinfo", "nondefault_port", "ip_literal",
                                      "ip_loopback"}, d
    # reasons keeps its old meaning: deny reasons first, then the others
    assert d["reasons"] == d["deny_reasons"] + d["flag_reasons"], d
    assert f["verdict"] == "flag" and f["deny_reasons"] == []
    assert f["flag_reasons"] == ["ip_literal", "ip_loopback"]
    assert a["deny_reasons"] == [] and a["flag_reasons"] == [] and a["reasons"] == []


def test_json_rules_are_deny_reasons():
    path = tmp_policy(b"allow-scheme https\n")
    try:
        out, _ = check_json([b"http://u@h/"], "--policy", path)
        assert out[0]["deny_reasons"] == ["scheme_not_allowed"], out
        assert out[0]["flag_reasons"] == ["userinfo"], out
    finally:
        os.unlink(path)


def test_text_mode_shows_denied_and_flagged_apart():
    r = run(["check", "http://u:p@h/", "http://127.0.0.1/", "http://a/"])
    assert r.stdout.decode().splitlines() == [
        'deny denied:password;flagged:userinfo "http://u:p@h/"',
        'flag flagged:ip_literal,ip_loopback "http://127.0.0.1/"',
        'allow - "http://a/"'], r.stdout


def test_squid_log_shows_denied_and_flagged_apart():
    r = run(["squid-acl"], b"1 http://u:p@h/\n2 http://127.0.0.1/\n")
    assert r.stdout.decode().splitlines() == [
        '1 ERR message="urisan denied the URL: password" log="denied:password;flagged:userinfo"',
        '2 OK log="flagged:ip_literal,ip_loopback"'], r.stdout


def test_profile_option_on_every_command_with_policy():
    r = run(["check", "--profile", "ssrf", "http://10.0.0.1/"])
    assert r.returncode == 1 and r.stdout.startswith(b"deny denied:ip_private"), r.stdout
    r = run(["squid-acl", "--profile", "proxy"], b"TCP_MISS/200\nhttp://example.com/\n")
    lines = r.stdout.splitlines()
    assert lines[0].startswith(b"ERR ") and b"not_absolute" in lines[0], lines
    assert lines[1] == b"OK", lines
    r = run(["extract", "--json", "--profile", "mail"], b"see http://bank@evil.example/ now\n")
    hit = json.loads(r.stdout.splitlines()[0])
    assert hit["verdict"] == "deny" and "userinfo" in hit["deny_reasons"], hit
    for cmd in (["check", "x"], ["extract"], ["squid-acl"], ["policy", "show"]):
        r = run([cmd[0], "--profile", "nope", *cmd[1:]])
        assert r.returncode == 2, (cmd, r.returncode)
        assert b"unknown profile 'nope'" in r.stderr, (cmd, r.stderr)


def test_policy_file_on_top_of_profile_and_profile_line():
    path = tmp_policy(b"allow ip_private\n")
    try:
        r = run(["check", "--profile", "ssrf", "--policy", path, "http://10.0.0.1/",
                 "http://127.0.0.1/"])
        assert r.stdout.decode().splitlines()[0].startswith("flag "), r.stdout
        assert r.stdout.decode().splitlines()[1].startswith("deny "), r.stdout
    finally:
        os.unlink(path)
    path = tmp_policy(b"# mine\nprofile ssrf\nallow-port 8443\n")
    try:
        r = run(["check", "--policy", path, "https://example.com:8443/", "http://[::1]/"])
        lines = r.stdout.decode().splitlines()
        assert not lines[0].startswith("deny"), lines
        assert lines[1].startswith("deny"), lines
    finally:
        os.unlink(path)


def test_policy_mistake_names_line_column_and_word():
    path = tmp_policy(b"deny invalid\n\ndeny password pasword\n")
    try:
        r = run(["check", "--policy", path, "http://a/"])
        assert r.returncode == 2 and r.stdout == b""
        assert r.stderr.decode() == (f"{path}:3:15: unknown flag 'pasword'"
                                     " (did you mean 'password'?)\n"), r.stderr
        r = run(["policy", "check", path])
        assert r.returncode == 1
        assert r.stderr.decode() == (f"{path}:3:15: unknown flag 'pasword'"
                                     " (did you mean 'password'?)\n"
                                     f"{path}: 1 error, 0 warnings\n"), r.stderr
    finally:
        os.unlink(path)
    path = tmp_policy(b"deny-host \x01x\n")
    try:
        r = run(["policy", "check", path])
        assert r.stderr.decode() == (f"{path}:1:11: control character '\\x01'\n"
                                     f"{path}: 1 error, 0 warnings\n"), r.stderr
    finally:
        os.unlink(path)


def test_policy_check_prints_the_effective_policy_which_parses_back():
    path = tmp_policy(b"profile proxy\ndeny-host *.evil.example\n")
    try:
        r = run(["policy", "check", path])
        assert r.returncode == 0, r.stderr
        text = r.stdout
        assert b"require-authority\n" in text and b"deny-host *.evil.example\n" in text, text
        again = tmp_policy(text)
        try:
            r2 = run(["policy", "check", again])
            assert r2.returncode == 0 and r2.stdout == text, r2.stderr
        finally:
            os.unlink(again)
    finally:
        os.unlink(path)


def test_policy_show_prints_each_profile():
    for name in ("default", "proxy", "ssrf", "mail"):
        r = run(["policy", "show", "--profile", name])
        assert r.returncode == 0 and r.stdout.startswith(b"# " + name.encode()), (name, r)
    r = run(["policy", "show"])
    assert r.stdout.startswith(b"# default"), r.stdout
    # the handler table, each row with its source
    for h in (b"ms-word", b"ms-visio", b"ms-its", b"mk", b"hcp", b"search-ms", b"ms-msdt",
              b"ms-officecmd", b"microsoft-edge", b"jnlp", b"telnet", b"vnc", b"rdp", b"steam",
              b"zoommtg", b"ms-cxh", b"ms-settings", b"ms-appinstaller"):
        assert re.search(rb"(?m)^#   " + re.escape(h) + rb" +\S.*\(.+\)$", r.stdout), h
    r = run(["policy", "frob"])
    assert r.returncode == 2


def test_squid_err_for_dash_empty_and_bare_channel_id():
    r = run(["squid-acl"], b"-\n\n7\n8 -\n9 \n")
    assert r.stdout.decode().splitlines() == [
        'ERR message="urisan: no URL in the request (Squid sent -)" log="no_value"',
        'ERR message="urisan: no URL in the request" log="empty"',
        '7 ERR message="urisan: no URL in the request" log="empty"',
        '8 ERR message="urisan: no URL in the request (Squid sent -)" log="no_value"',
        '9 ERR message="urisan: no URL in the request" log="empty"'], r.stdout


def test_squid_proxy_profile_refuses_non_absolute_values_and_judges_connect_as_https():
    vals = [b"TCP_MISS/200", b"/index.html", b"//h/x", b"file:///etc/passwd"]
    r = run(["squid-acl", "--profile", "proxy"], b"".join(v + b"\n" for v in vals))
    lines = r.stdout.splitlines()
    assert len(lines) == len(vals)
    for v, line in zip(vals, lines):
        assert line.startswith(b"ERR message="), (v, line)
    # a CONNECT's host:port (RFC 9110 9.3.6), asked with the acl argument
    # "connect", is the tunnel https://host:port; without it, a URL
    r = run(["squid-acl", "--profile", "proxy"],
            b"api.github.com:443 connect\n169.254.169.254:443 connect\napi.github.com:443 -\n")
    assert r.stdout.splitlines()[0] == b"OK", r.stdout
    assert r.stdout.splitlines()[1].startswith(b"ERR") and b"ip_link_local" in r.stdout, r.stdout
    assert r.stdout.splitlines()[2].startswith(b"ERR"), r.stdout


def test_deny_ip_allow_ip_from_the_command():
    path = tmp_policy(b"deny-ip 10.0.0.0/8 fd00::/8\nallow-ip 192.168.1.0/24 [2001:db8::]/32\n")
    try:
        uris = [b"http://0xa.1/", b"http://[2002:a00:1::]/", b"http://192.168.1.9/",
                b"http://192.168.2.9/", b"http://example.com/"]
        rows, r = check_json(uris, "--policy", path)
        assert [x["verdict"] for x in rows] == ["deny", "deny", "flag", "deny", "allow"], rows
        assert rows[0]["deny_reasons"] == ["ip_obfuscated", "ip_denied", "ip_not_allowed"], rows[0]
        assert rows[1]["deny_reasons"] == ["ip_denied", "ip_not_allowed"], rows[1]
        assert rows[3]["deny_reasons"] == ["ip_not_allowed"], rows[3]
        assert rows[3]["reasons"] == ["ip_not_allowed", "ip_literal", "ip_private"], rows[3]
        r = run(["check", "--policy", path, "http://10.9.9.9/"])
        assert r.stdout == b'deny denied:ip_denied,ip_not_allowed;flagged:ip_literal,ip_private ' \
                           b'"http://10.9.9.9/"\n', r.stdout
        r = run(["squid-acl", "--policy", path], b"http://10.0.0.1/\n")
        assert r.stdout.startswith(b"ERR ") and b"ip_denied" in r.stdout, r.stdout
        r = run(["policy", "check", path])
        assert r.returncode == 0, r.stderr
        assert (b"deny-ip 10.0.0.0/8\ndeny-ip fd00::/8\nallow-ip 192.168.1.0/24\n"
                b"allow-ip 2001:db8::/32\n") in r.stdout, r.stdout
        again = tmp_policy(r.stdout)
        try:
            r2 = run(["policy", "check", again])
            assert r2.returncode == 0 and r2.stdout == r.stdout, r2.stderr
        finally:
            os.unlink(again)
    finally:
        os.unlink(path)


def test_address_range_mistakes_name_line_column_and_word():
    cases = [
        (b"deny-ip 10.0.0.0/8\n\ndeny-ip 10.0.0.0/33\n",
         "3:9: invalid address range (IPv4 prefix length is 0-32) '10.0.0.0/33'"),
        (b"deny-ip 10.0.0.1/8\n",
         "1:9: invalid address range (host bits set: write the range's first address) "
         "'10.0.0.1/8'"),
        (b"allow-ip fe80::1%eth0\n",
         "1:10: invalid address range (a zone id is no part of an address: drop '%...') "
         "'fe80::1%eth0'"),
        (b"deny-ip evil.com\n",
         "1:9: invalid address range (a name is no address: use deny-host / allow-host) "
         "'evil.com'"),
        (b"deny-host 10.0.0.0/8\n",
         "1:11: an address range is no host (use deny-ip / allow-ip) '10.0.0.0/8'"),
    ]
    for text, want in cases:
        path = tmp_policy(text)
        try:
            r = run(["policy", "check", path])
            assert r.returncode == 1 and r.stdout == b"", (text, r)
            assert r.stderr.decode() == f"{path}:{want}\n{path}: 1 error, 0 warnings\n", \
                r.stderr
        finally:
            os.unlink(path)


def main():
    return run_tests(globals())


if __name__ == "__main__":
    sys.exit(main())
