#!/usr/bin/env python3
"""The Squid external ACL helper protocol of `urisan squid-acl`, without
Squid (tests/e2e/squid_e2e.py runs it under a real Squid).

usage: squid_helper_test.py URISAN

Each check is a function named after the behaviour; all run, failures are
listed, exit status 1 when any failed.
"""
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time

from testlib import run_tests

URISAN = None
TIMEOUT = 10.0

# [channel-ID SP] OK|ERR|BH [SP key="value"]... with Squid's quoting rule:
# inside the quotes only \" and \\ escapes, no control bytes.
REPLY = re.compile(rb'^(?:(\d+) )?(OK|ERR|BH)((?: [a-z_]+="(?:[^"\\\x00-\x1f\x7f]|\\["\\])*")*)$')


class Helper:
    """`urisan squid-acl` on pipes, read with a timeout."""

    def __init__(self, *args):
        self.p = subprocess.Popen([URISAN, "squid-acl", *args],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.buf = b""

    def write(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def readline(self, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        fd = self.p.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no reply within %.0f s (have %r)"
                                     % (timeout, self.buf[:200]))
            r, _, _ = select.select([fd], [], [], left)
            if r:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise AssertionError("helper closed stdout (have %r)" % self.buf[:200])
                self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line

    def ask(self, line, timeout=TIMEOUT):
        """Write one request, read its reply before anything else is sent."""
        self.write(line + b"\n")
        return self.readline(timeout)

    def close(self, timeout=TIMEOUT):
        """EOF on stdin; returns (exit status, remaining stdout, stderr)."""
        self.p.stdin.close()
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise AssertionError("helper did not exit on EOF")
        rest = self.buf + self.p.stdout.read()
        err = self.p.stderr.read()
        self.p.stdout.close()
        self.p.stderr.close()
        return self.p.returncode, rest, err


def parse(reply):
    m = REPLY.match(reply)
    assert m, "malformed reply %r" % reply
    return m.group(1), m.group(2), m.group(3)


def expect(reply, channel, result):
    ch, res, _ = parse(reply)
    want_ch = None if channel is None else channel.encode()
    assert ch == want_ch, "channel %r, want %r in %r" % (ch, want_ch, reply)
    assert res == result.encode(), "result %r, want %s in %r" % (res, result, reply)


# --------------------------------------------------------------------------

def test_channel_id_is_echoed_and_verdicts_follow_the_default_policy():
    h = Helper()
    expect(h.ask(b"0 http://example.com/index.html -"), "0", "OK")
    expect(h.ask(b"7 http://127.0.0.1:8080/a%0d%0aSet-Cookie:x -"), "7", "ERR")
    expect(h.ask(b"42 http://example.com/%2e%2e/%2e%2e/etc/passwd -"), "42", "ERR")
    expect(h.ask(b"3 http://example.com/a/../../x -"), "3", "ERR")
    expect(h.ask(b"99 http://example.com/f%00.txt -"), "99", "ERR")
    expect(h.ask(b"12345 http://example.com/ a b c"), "12345", "OK")
    assert h.close()[0] == 0


def test_no_channel_id_without_concurrency():
    h = Helper()
    expect(h.ask(b"http://example.com/"), None, "OK")
    expect(h.ask(b"http://example.com/a%0d%0ab -"), None, "ERR")
    assert h.close()[0] == 0


def test_deny_reply_names_the_reasons_quoted():
    h = Helper()
    r = h.ask(b"5 http://h/a%0d%0a -")
    assert r == (b'5 ERR message="urisan denied the URL: escaped_crlf" '
                 b'log="denied:escaped_crlf;flagged:escaped_ctl"'), r
    r = h.ask(b"6 http://example.com:8080/x -")
    assert r == b'6 OK log="flagged:nondefault_port"', r
    h.close()


def test_connect_host_port_is_judged_as_the_https_tunnel_like_check_format_squid():
    """A CONNECT's %>ru is its authority-form host:port (RFC 9110 9.3.6),
    asked with the acl argument "connect" (doc/squid.md's block): judged
    as https://host:port, the verdict and reasons of the same line read
    by `check --format squid` from access.log; a value with a scheme and
    no // (javascript:alert(1), mailto:a@b) stays what it is. Without the
    argument a value is a URL, as check reads it: 169.254.169.254:443 and
    mailto:1 are no tunnels."""
    cases = [b"169.254.169.254:443", b"example.com:443", b"example.com:8443",
             b"[::1]:443", b"127.0.0.1:22", b"javascript:alert(1)", b"mailto:a@b"]
    h = Helper("--profile", "proxy")
    got = [h.ask(b"%d %s %s" % (i, c, b"connect" if i < 5 else b"-"))
           for i, c in enumerate(cases)]
    plain = [h.ask(b"%d %s -" % (i, c)) for i, c in enumerate([b"example.com:443", b"mailto:1"])]
    h.close()
    for reply, c in zip(plain, [b"example.com:443", b"mailto:1"]):
        r = subprocess.run([URISAN, "check", "--profile", "proxy", c], stdout=subprocess.PIPE,
                           timeout=TIMEOUT)
        want = b"ERR" if r.stdout.startswith(b"deny") else b"OK"
        assert reply.split(b" ")[1] == want, (c, reply, r.stdout)
    assert got[0].startswith(b'0 ERR message="urisan denied the URL: ip_link_local"'), got[0]
    assert got[1] == b"1 OK", got[1]
    assert got[2] == b'2 OK log="flagged:nondefault_port"', got[2]
    assert got[3].startswith(b"3 ERR") and b"ip_loopback" in got[3], got[3]
    assert got[5].startswith(b"5 ERR") and b"dangerous_scheme" in got[5], got[5]
    assert b"no_authority" in got[6], got[6]
    log = b"".join(b"1700000000.000 1 127.0.0.1 TCP_TUNNEL/200 0 CONNECT %s - HIER_NONE/- -\n"
                   % c for c in cases[:5])
    r = subprocess.run([URISAN, "check", "--profile", "proxy", "--format", "squid", "--json", "-"],
                       input=log, stdout=subprocess.PIPE, timeout=TIMEOUT)
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    assert len(rows) == 5, r.stdout
    for c, row, reply in zip(cases, rows, got):
        assert row["uri"] == "https://" + c.decode(), row
        want = b"ERR" if row["verdict"] == "deny" else b"OK"
        assert reply.split(b" ")[1] == want, (c, row["verdict"], reply)


def test_value_is_judged_as_sent_never_percent_decoded():
    h = Helper()
    # %2e%2e is a dot segment either way; %252e%252e only when decoded twice.
    expect(h.ask(b"1 http://example.com/%252e%252e/%252e%252e/x -"), "1", "OK")
    # Decoding %5C would give a raw backslash (denied: invalid).
    expect(h.ask(b"2 http://example.com/a%5Cb -"), "2", "OK")
    expect(h.ask(b"3 http://example.com/a\\b -"), "3", "ERR")
    h.close()


def test_policy_file_is_applied():
    with tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False) as f:
        f.write("# SSRF: no loopback or private targets\n"
                "deny ip_loopback ip_private ip_link_local\n")
        path = f.name
    try:
        h = Helper("--policy", path)
        r = h.ask(b"0 http://127.0.0.1/ -")
        expect(r, "0", "ERR")
        assert b"ip_loopback" in r, r
        expect(h.ask(b"1 http://example.com/ -"), "1", "OK")
        assert h.close()[0] == 0
    finally:
        os.unlink(path)


def test_bad_policy_file_exits_2_with_line_number():
    with tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False) as f:
        f.write("deny escaped_crlf\nfrobnicate everything\n")
        path = f.name
    try:
        r = subprocess.run([URISAN, "squid-acl", "--policy", path], input=b"",
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        assert r.returncode == 2, r
        assert (path + ":2:").encode() in r.stderr, r.stderr
        assert r.stdout == b"", r.stdout
        r = subprocess.run([URISAN, "squid-acl", "--policy", path + ".missing"], input=b"",
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        assert r.returncode == 2, r
    finally:
        os.unlink(path)


def test_operands_are_a_usage_error():
    r = subprocess.run([URISAN, "squid-acl", "http://x/"], input=b"",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    assert r.returncode == 2, r
    # one line naming the word, then where the usage is
    assert r.stderr.decode().splitlines() == [
        "urisan: squid-acl: takes no operands (requests come on standard input), got "
        "'http://x/'", "see 'urisan squid-acl --help'"], r.stderr


def test_replies_are_flushed_one_request_at_a_time():
    # Write one request, wait for its reply, only then write the next:
    # a helper that buffers its output would stall here.
    h = Helper()
    for i in range(200):
        uri = b"http://example.com/%d" % i if i % 3 else b"http://h/%d/%%00" % i
        r = h.ask(b"%d %s -" % (i % 7, uri), timeout=5)
        expect(r, str(i % 7), "ERR" if i % 3 == 0 else "OK")
    assert h.close()[0] == 0


def test_reply_is_not_held_behind_a_partial_next_request():
    # A burst that ends in half a request: every complete one is answered
    # at once, before the rest of the half one arrives.
    h = Helper()
    h.write(b"1 http://a.example/ -\n2 http://b.example/%0a -\n3 http://c.exa")
    expect(h.readline(), "1", "OK")
    expect(h.readline(), "2", "ERR")
    h.write(b"mple/ -\n")
    expect(h.readline(), "3", "OK")
    assert h.close()[0] == 0


def test_a_burst_is_answered_in_order():
    lines = []
    for i in range(5000):
        uri = (b"http://example.com/x/%d" % i if i % 2 else
               b"http://example.com/%%2e%%2e/%%2e%%2e/%d" % i)
        lines.append(b"%d %s -\n" % (i % 100, uri))
    r = subprocess.run([URISAN, "squid-acl"], input=b"".join(lines),
                       stdout=subprocess.PIPE, timeout=60)
    assert r.returncode == 0
    out = r.stdout.split(b"\n")
    assert out[-1] == b"" and len(out) == 5001, len(out)
    for i, reply in enumerate(out[:-1]):
        expect(reply, str(i % 100), "OK" if i % 2 else "ERR")


def test_line_longer_than_8192_is_denied_too_long_and_stays_in_sync():
    h = Helper()
    long_uri = b"http://example.com/" + b"a" * 9000
    r = h.ask(b"4 " + long_uri + b" -")
    expect(r, "4", "ERR")
    assert b"too_long" in r, r
    # Exactly at the limit is judged normally.
    at = b"http://example.com/" + b"b" * (8192 - len(b"http://example.com/"))
    expect(h.ask(b"5 " + at + b" -"), "5", "OK")
    expect(h.ask(b"6 " + at + b"c -"), "6", "ERR")
    expect(h.ask(b"7 http://example.com/next -"), "7", "OK")
    # Long extras after a short value do not matter.
    expect(h.ask(b"8 http://example.com/ " + b"x" * 20000), "8", "OK")
    assert h.close()[0] == 0


def test_five_megabyte_line_gets_one_answer():
    h = Helper()
    big = b"9 http://example.com/" + b"%41" * (5 * 1024 * 1024 // 3) + b" -\n"
    h.write(big + b"10 http://example.com/after -\n")
    r = h.readline(timeout=30)
    expect(r, "9", "ERR")
    assert b"too_long" in r, r
    expect(h.readline(), "10", "OK")
    assert h.close()[0] == 0


def test_garbage_nul_and_empty_lines_get_one_answer_each():
    h = Helper()
    cases = [
        (b"", None, "ERR"),                      # empty line
        (b"1 ", "1", "ERR"),                     # channel-ID, no value
        (b"2 http://h/a\x00b -", "2", "ERR"),      # raw NUL: ctl_raw
        (b"\x00\x00\x00", None, "ERR"),
        (b"3 \xff\xfe\x80garbage\x1b[31m -", "3", "ERR"),
        (b"4 http://h/\xc3\xa9 -", "4", "ERR"),   # raw non-ASCII: invalid
        (b"\r", None, "ERR"),                     # CRLF of an empty line
        (b"5 http://h/ok -\r", "5", "OK"),        # CRLF ending stripped
        (b"6 \"quoted\\\" -", "6", "ERR"),
        # 50 digits are no channel-ID: the value is "000...", a relative
        # reference, which the default policy lets through.
        (b"0" * 50 + b" http://h/%00", None, "OK"),
        (b"   ", None, "ERR"),
        (b"7 http://h/ok", "7", "OK"),
    ]
    for line, ch, res in cases:
        expect(h.ask(line), ch, res)
    code, rest, err = h.close()
    assert code == 0 and rest == b"", (code, rest, err)


def test_all_byte_values_never_break_the_framing():
    h = Helper()
    for b in range(256):
        if b == 0x0a:
            continue
        r = h.ask(b"%d http://h/%c -" % (b, b))
        parse(r)
        assert r.startswith(b"%d " % b), (b, r)
    assert h.close()[0] == 0


def test_eof_without_newline_still_answers_and_exits_0():
    r = subprocess.run([URISAN, "squid-acl"], input=b"1 http://h/\n2 http://h/x%0a",
                       stdout=subprocess.PIPE, timeout=TIMEOUT)
    assert r.returncode == 0
    assert r.stdout.split(b"\n")[:2] == [b"1 OK", b'2 ERR message="urisan denied the URL: escaped_crlf" log="denied:escaped_crlf;flagged:escaped_ctl"'], r.stdout


def test_eof_on_empty_input_exits_0_silently():
    r = subprocess.run([URISAN, "squid-acl", "--quiet"], input=b"", stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT)
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b""), r


def rule_count(profile, policy):
    """The directives `urisan policy check` prints: the count logged."""
    r = subprocess.run([URISAN, "policy", "check"] + (["--profile", profile] if profile else [])
                       + [policy], stdout=subprocess.PIPE, check=True, timeout=TIMEOUT)
    return sum(1 for l in r.stdout.decode().splitlines() if l and not l.startswith("#"))


def test_start_log_says_what_it_enforces():
    """One line on stderr (Squid's cache.log) before any answer: version,
    profile, policy file, number of rules; stdout holds only answers."""
    version = subprocess.run([URISAN, "--version"], stdout=subprocess.PIPE,
                             timeout=TIMEOUT).stdout.decode().split()[-1]
    with tempfile.NamedTemporaryFile("w", suffix=".policy") as f:
        f.write("deny-host one.example\n")
        f.flush()
        for args, profile, path in (([], "default", None),
                                    (["--profile", "proxy"], "proxy", None),
                                    (["--profile", "proxy", "--policy", f.name], "proxy", f.name)):
            n = rule_count(args[1] if args else None, f.name if path else "/dev/null")
            r = subprocess.run([URISAN, "squid-acl"] + args, input=b"0 http://h.example/\n",
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
            want = "urisan: squid-acl: policy in force: urisan %s, profile %s, %s, %d rules\n" % (
                version, profile, "policy file " + path if path else "no policy file", n)
            assert r.returncode == 0 and r.stdout == b"0 OK\n", r
            assert r.stderr.decode() == want, (r.stderr, want)
    assert rule_count("proxy", "/dev/null") > rule_count(None, "/dev/null") > 0


def test_help_exits_0():
    r = subprocess.run([URISAN, "squid-acl", "--help"], stdout=subprocess.PIPE,
                       timeout=TIMEOUT)
    assert r.returncode == 0 and b"squid-acl" in r.stdout, r


def main(argv):
    global URISAN
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    URISAN = os.path.abspath(argv[1])
    return run_tests(globals())

if __name__ == "__main__":
    sys.exit(main(sys.argv))
