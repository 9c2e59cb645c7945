#!/usr/bin/env python3
"""End-to-end tests of the `urisan` command (urisan(1)).

Usage: cli_test.py PATH-TO-urisan   (meson passes the built binary)

Every test runs the real binary. The core promise: exactly one answer per
input, in order, whatever the bytes; JSON lines that a strict parser reads;
the documented exit statuses.
"""
import json
import re
import os
import subprocess
import sys
import tempfile

from testlib import run_tests

URISAN = sys.argv[1] if len(sys.argv) > 1 else "urisan"
SRCDIR = os.environ.get("URISAN_SRCDIR",
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

COMPONENT_KEYS = ["scheme", "userinfo", "host", "host_type", "port", "path",
                  "query", "fragment"]
CHECK_KEYS = ["uri", "valid", "error", "components", "host_ip", "flags",
              "verdict", "reasons", "deny_reasons", "flag_reasons", "truncated",
              "length"]
# hostview.c (ICU, libidn2, libpsl): the host as a reader sees it.
HOSTVIEW_KEYS = ["host_unicode", "host_skeleton", "host_imitates",
                 "registrable_domain"]


def run(args, stdin=b"", timeout=60):
    return subprocess.run([URISAN] + args, input=stdin, capture_output=True,
                          timeout=timeout)


def lines_of(out):
    """stdout split in lines; every line must end with LF."""
    if out == b"":
        return []
    assert out.endswith(b"\n"), "output does not end with a newline"
    return out[:-1].split(b"\n")


RAW_CONTROL = re.compile("[\x00-\x1f\x7f]")


def strict_json(line):
    """Parse one output line: valid UTF-8, no raw control byte, one object."""
    text = line.decode("utf-8")  # raises on invalid UTF-8
    assert not RAW_CONTROL.search(text), "raw control character in a JSON line"
    obj = json.loads(text)
    assert isinstance(obj, dict)
    return obj


def is_usage_error(r, cmd=None, word=None):
    """Exit 2, nothing on stdout, and on stderr one line naming the
    mistake (and the bad word), then where the usage is."""
    lines = r.stderr.decode(errors="replace").splitlines()
    see = f"see 'urisan {cmd} --help'" if cmd else "see 'urisan --help'"
    return (r.returncode == 2 and r.stdout == b"" and len(lines) == 2 and
            lines[0].startswith("urisan: ") and lines[1] == see and
            (word is None or f"'{word}'" in lines[0]))


def check_json(inputs, extra=(), sep=b"\n", final=b"\n"):
    r = run(["check", "--json", *extra], sep.join(inputs) + final)
    assert r.returncode in (0, 1), (r.returncode, r.stderr)
    out = [strict_json(x) for x in lines_of(r.stdout)]
    assert len(out) == len(inputs), f"{len(out)} lines for {len(inputs)} inputs"
    return out, r


def expected_uri(raw):
    """What our JSON writer makes of raw bytes (see src/cli/json.h)."""
    out = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c < 0x80:
            out.append(chr(c))
            i += 1
            continue
        for n in (4, 3, 2):
            try:
                ch = raw[i:i + n].decode("utf-8")
                if len(ch) == 1:
                    out.append(ch)
                    i += n
                    break
            except UnicodeDecodeError:
                pass
        else:
            out.append(chr(c))  # \u00XX of the byte's value
            i += 1
    return "".join(out)


# ----------------------------------------------------------------------
# check --json: one valid JSON line per input, whatever the bytes

NASTY = [
    b"http://example.com/",
    b"",
    b"http://a\x00b/",
    b"\xff\xfe%zz",
    b"x" * 200000,
    b"http://[::1]:80/a/../../b?c#d",
    b"\t javascript:alert(1)",
    b"http://a\rb/",                    # lone CR inside a line is data
    b"http://h/\xc2\x85\xe2\x80\xa8",   # C1 control, U+2028
    b"http://h/\xc0\xae\xed\xa0\x80",   # overlong, surrogate (raw)
    b"\x7f\x1b[31m",
    b"\"\\",
]


def test_nasty_inputs_give_one_json_line_each():
    out, _ = check_json(NASTY)
    for raw, obj in zip(NASTY, out):
        keys = [k for k in obj.keys() if k not in HOSTVIEW_KEYS]
        assert keys == CHECK_KEYS, list(obj.keys())
        assert obj["uri"] == expected_uri(raw[:8193]), (raw[:40], obj["uri"][:40])
        assert obj["length"] == len(raw)
        assert list(obj["components"].keys()) == COMPONENT_KEYS
        assert isinstance(obj["valid"], bool)
        assert obj["verdict"] in ("allow", "flag", "deny")
        assert all(isinstance(f, str) for f in obj["flags"])
        assert obj["error"] is None or set(obj["error"]) == {"code", "offset", "message"}


def test_random_bytes_one_line_each_and_uri_round_trips():
    import random
    rng = random.Random(3986)
    alphabet = bytes(range(256)).replace(b"\n", b"")
    interesting = b"%:/?#[]@\\\r\x00\xc0\xae\xe2\x80\xa8\xf0\x9f\x98\x80\xff"
    inputs = []
    for _ in range(2000):
        n = rng.choice([0, 1, 2, 5, 20, 100, 9000])
        pool = interesting if rng.random() < 0.5 else alphabet
        line = bytes(rng.choices(pool, k=n))
        while line.endswith(b"\r"):
            line = line[:-1]
        inputs.append(line)
    out, _ = check_json(inputs)
    for raw, obj in zip(inputs, out):
        assert obj["length"] == len(raw)
        assert obj["truncated"] == (len(raw) > 8193)
        assert obj["uri"] == expected_uri(raw[:8193]), raw[:60]
    r = run(["check"], b"\n".join(inputs) + b"\n")
    assert len(lines_of(r.stdout)) == len(inputs)


def test_crlf_lines_and_missing_final_newline():
    inputs = [b"http://a/", b"", b"http://b/", b"http://c/"]
    out, _ = check_json(inputs, sep=b"\r\n", final=b"")
    assert [o["uri"] for o in out] == ["http://a/", "", "http://b/", "http://c/"]


def test_empty_input_gives_no_output_and_exit_0():
    r = run(["check", "--json"], b"")
    assert r.returncode == 0 and r.stdout == b"", (r.returncode, r.stdout)


def test_empty_lines_are_inputs():
    out, _ = check_json([b"", b"", b""])
    assert [o["uri"] for o in out] == ["", "", ""]


def test_200000_byte_line_is_too_long_and_truncated():
    big = b"http://h/" + b"a" * 200000
    out, r = check_json([b"http://x/", big, b"http://y/"])
    assert r.returncode == 1
    o = out[1]
    assert o["truncated"] is True and o["length"] == len(big)
    assert o["valid"] is False and o["error"]["code"] == "too_long"
    assert "too_long" in o["flags"] and o["verdict"] == "deny"
    assert len(o["uri"]) <= 8193
    assert out[0]["uri"] == "http://x/" and out[2]["uri"] == "http://y/"
    assert out[0]["truncated"] is False


def test_5_mb_line_does_not_stop_or_desync():
    big = b"\xff" * (5 << 20)
    out, _ = check_json([b"a", big + b"\r", b"b"], sep=b"\n")
    assert out[1]["length"] == len(big)  # the CR of CRLF is not counted
    assert out[1]["truncated"] is True
    assert [out[0]["uri"], out[2]["uri"]] == ["a", "b"]


def test_5_mb_line_with_crlf_reports_length_without_cr():
    big = b"y" * (5 << 20)
    out, _ = check_json([big, b"z"], sep=b"\r\n", final=b"\r\n")
    assert out[0]["length"] == len(big)
    assert out[1]["uri"] == "z"


def test_components_shape():
    out, _ = check_json([b"http://u:p@[::1]:8080/p?q#f", b"mailto:a@b", b"//h:", b"g"])
    c = out[0]["components"]
    assert c == {"scheme": "http", "userinfo": "u:p", "host": "[::1]",
                 "host_type": "ipv6", "port": "8080", "path": "/p",
                 "query": "q", "fragment": "f"}, c
    assert out[0]["host_ip"] == "::1"
    c = out[1]["components"]
    assert c["host"] is None and c["host_type"] is None and c["path"] == "a@b"
    c = out[2]["components"]
    assert c["port"] == "" and c["host"] == "h" and c["scheme"] is None
    assert out[3]["components"]["path"] == "g"


def test_host_ip_is_the_deobfuscated_address():
    out, _ = check_json([b"http://0x7f.1/", b"http://example.com/"])
    assert out[0]["host_ip"] == "127.0.0.1"
    assert "ip_obfuscated" in out[0]["flags"]
    assert out[1]["host_ip"] is None


def test_reasons_list_deny_reasons_first():
    out, _ = check_json([b"http://u:p@127.0.0.1:8080/"])
    o = out[0]
    assert o["verdict"] == "deny"
    assert o["reasons"][0] == "password", o["reasons"]
    assert set(o["reasons"]) == set(o["flags"]), (o["reasons"], o["flags"])


def test_allowed_uri_has_no_reasons_and_exit_0():
    out, r = check_json([b"https://example.com/"])
    assert out[0]["verdict"] == "allow" and out[0]["reasons"] == []
    assert r.returncode == 0


def test_flags_are_in_bit_order():
    out, _ = check_json([b"http://u:p@h:25/%2e%2e/"])
    order = ["invalid", "too_long", "nondefault_port", "reserved_port",
             "userinfo", "password", "escaped_crlf", "escaped_nul",
             "escaped_ctl", "ctl_raw", "whitespace", "non_ascii",
             "invalid_escape", "double_encoding", "overlong_utf8",
             "dot_segments", "encoded_dot", "dot_above_root", "encoded_slash",
             "backslash", "ip_literal", "ip_obfuscated", "ip_loopback",
             "ip_private", "ip_link_local", "idn", "dangerous_scheme",
             "ambiguous_authority", "link_text_mismatch", "homograph",
             "invisible_char", "ip_reserved",
             "ip_multicast", "ip_broadcast", "ip_embedded", "internal_name",
             "single_label"]
    got = out[0]["flags"]
    assert got == [f for f in order if f in got], got


def test_arguments_take_precedence_over_stdin():
    r = run(["check", "--json", "http://a/", "http://b/"], b"http://c/\n")
    out = [strict_json(x) for x in lines_of(r.stdout)]
    assert [o["uri"] for o in out] == ["http://a/", "http://b/"]


def test_double_dash_ends_options():
    r = run(["check", "--json", "--", "--json"])
    out = [strict_json(x) for x in lines_of(r.stdout)]
    assert [o["uri"] for o in out] == ["--json"]


def test_text_mode_one_line_per_input():
    inputs = NASTY + [b"http://a\x0bb", b"a\x00\x00\x00"]
    r = run(["check"], b"\n".join(inputs) + b"\n")
    assert r.returncode == 1
    out = lines_of(r.stdout)
    assert len(out) == len(inputs)
    for line in out:
        verdict = line.split(b" ", 1)[0]
        assert verdict in (b"allow", b"flag", b"deny"), line[:80]
        line.decode("utf-8")
        assert b"\r" not in line and b"\x00" not in line
    assert b"(truncated: 200000 bytes)" in out[4]


def test_check_base_resolves_and_judges_merged_path():
    out, r = check_json([b"../../../etc/passwd", b"g", b"//127.0.0.1/"],
                        extra=["--base", "http://h/a/b/"])
    assert r.returncode == 1
    assert out[0]["resolved"] == "http://h/etc/passwd"
    assert "dot_above_root" in out[0]["flags"] and out[0]["verdict"] == "deny"
    assert out[0]["resolve_error"] is None
    assert out[1]["resolved"] == "http://h/a/b/g" and out[1]["verdict"] == "allow"
    assert out[2]["host_ip"] == "127.0.0.1"


def test_check_base_must_be_absolute():
    for base in ["relative/x", "http://a b/"]:
        r = run(["check", "--base", base, "g"])
        assert is_usage_error(r, "check", base), (base, r.stderr)


def test_example_file():
    path = os.path.join(SRCDIR, "examples", "urls.txt")
    with open(path, "rb") as f:
        data = f.read()
    n = len(lines_of(data))
    r = run(["check", "--json"], data)
    assert r.returncode == 1  # the file has risky URIs on purpose
    out = [strict_json(x) for x in lines_of(r.stdout)]
    assert len(out) == n
    verdicts = {o["verdict"] for o in out}
    assert verdicts == {"allow", "flag", "deny"}, verdicts


# ----------------------------------------------------------------------
# policy


def write_tmp(text):
    fd, path = tempfile.mkstemp(suffix=".policy")
    with os.fdopen(fd, "wb") as f:
        f.write(text)
    return path


def test_policy_error_reports_file_and_line():
    path = write_tmp(b"# comment\ndeny invalid\nno-such-directive x\n")
    try:
        r = run(["check", "--policy", path, "http://a/"])
        assert r.returncode == 2, r.returncode
        err = r.stderr.decode()
        assert err == f"{path}:3:1: unknown directive 'no-such-directive'\n", err
        assert r.stdout == b""
    finally:
        os.unlink(path)


def test_policy_unknown_flag_line_number():
    path = write_tmp(b"\n\n\n\ndeny no_such_flag\n")
    try:
        r = run(["check", "--json", "--policy", path], b"http://a/\n")
        assert r.returncode == 2
        assert r.stderr.decode() == f"{path}:5:6: unknown flag 'no_such_flag'\n", r.stderr
    finally:
        os.unlink(path)


def test_missing_policy_file_is_exit_2():
    r = run(["check", "--policy", "/nonexistent/urisan.policy", "http://a/"])
    assert r.returncode == 2
    assert b"/nonexistent/urisan.policy" in r.stderr


def test_policy_changes_the_verdict():
    path = write_tmp(b"deny nondefault_port\ndeny-host .evil.example\n")
    try:
        out, r = check_json([b"http://a:8080/", b"http://x.evil.example/", b"http://ok/"],
                            extra=["--policy", path])
        assert out[0]["verdict"] == "deny" and "nondefault_port" in out[0]["reasons"]
        assert out[1]["verdict"] == "deny" and "host_denied" in out[1]["reasons"]
        assert out[2]["verdict"] == "allow"
    finally:
        os.unlink(path)


# ----------------------------------------------------------------------
# resolve / normalize / equivalent

BASE = "http://a/b/c/d;p?q"


def test_resolve_rfc3986_examples():
    cases = {"g": "http://a/b/c/g", "./g": "http://a/b/c/g", "../g": "http://a/b/g",
             "//g": "http://g", "?y": "http://a/b/c/d;p?y", "#s": "http://a/b/c/d;p?q#s",
             "": "http://a/b/c/d;p?q", "../../../g": "http://a/g", "g:h": "g:h",
             "http:g": "http:g", "/./g": "http://a/g"}
    r = run(["resolve", BASE, *cases.keys()])
    assert r.returncode == 0, r.stderr
    assert lines_of(r.stdout) == [v.encode() for v in cases.values()]


def test_resolve_options():
    r = run(["resolve", "--non-strict", BASE, "http:g"])
    assert lines_of(r.stdout) == [b"http://a/b/c/g"]
    r = run(["resolve", "--above-root=keep", BASE, "../../../g"])
    assert lines_of(r.stdout) == [b"http://a/../g"]
    r = run(["resolve", "--above-root", "reject", BASE, "../../../g", "g"])
    out = lines_of(r.stdout)
    assert out[0].startswith(b"error: above_root "), out
    assert out[1] == b"http://a/b/c/g"
    assert r.returncode == 1


def test_resolve_error_line_format():
    r = run(["resolve", BASE, "a b"])
    out = lines_of(r.stdout)
    assert len(out) == 1
    parts = out[0].split(b" ", 3)
    assert parts[0] == b"error:" and parts[2].isdigit(), out
    assert r.returncode == 1


def test_resolve_from_stdin_one_line_per_ref():
    refs = [b"g", b"", b"\x00", b"\xff", b"x" * 300000, b"../x", b"a\rb"]
    r = run(["resolve", BASE], b"\n".join(refs) + b"\n")
    out = lines_of(r.stdout)
    assert len(out) == len(refs), out
    assert out[0] == b"http://a/b/c/g" and out[1] == BASE.encode()
    r = run(["resolve", "--json", BASE], b"\n".join(refs) + b"\n")
    out = [strict_json(x) for x in lines_of(r.stdout)]
    assert len(out) == len(refs)
    for o in out:
        assert set(o) >= {"base", "ref", "result", "error", "flags"}
    assert out[5]["result"] == "http://a/b/x"
    assert out[4]["truncated"] is True and out[4]["result"] is None
    assert out[4]["error"]["code"] == "too_long"


def test_resolve_json_reports_dot_above_root():
    r = run(["resolve", "--json", BASE, "../../../g"])
    o = strict_json(lines_of(r.stdout)[0])
    assert o["result"] == "http://a/g" and "dot_above_root" in o["flags"]
    assert o["error"] is None


def test_resolve_usage_errors():
    for args in (["resolve"], ["resolve", "--above-root=sideways", BASE, "g"],
                 ["resolve", "g", "h"], ["resolve", "--bogus", BASE]):
        r = run(args)
        assert is_usage_error(r, "resolve"), (args, r.stderr)


def test_normalize_basics():
    r = run(["normalize", "HTTP://Ex.COM:80/%7e/a/../b", "http://a b", "http://h"])
    out = lines_of(r.stdout)
    assert out[0] == b"http://ex.com/~/b", out
    assert out[1].startswith(b"error: ")
    assert out[2] == b"http://h/"
    assert r.returncode == 1
    r2 = run(["normalize", out[0].decode()])
    assert lines_of(r2.stdout) == [out[0]] and r2.returncode == 0


def test_normalize_stdin_and_json():
    inputs = [b"HTTP://A/", b"", b"\xff", b"z" * 100000, b"http://a/%41"]
    r = run(["normalize", "--json"], b"\n".join(inputs) + b"\n")
    out = [strict_json(x) for x in lines_of(r.stdout)]
    assert len(out) == len(inputs)
    assert out[0]["result"] == "http://a/" and out[0]["error"] is None
    assert out[3]["error"]["code"] == "too_long" and out[3]["truncated"] is True
    assert out[4]["result"] == "http://a/A"
    r = run(["normalize"], b"\n".join(inputs) + b"\n")
    assert len(lines_of(r.stdout)) == len(inputs)


def test_equivalent_exit_statuses():
    assert run(["equivalent", "HTTP://Ex.COM:80", "http://ex.com/"]).returncode == 0
    assert run(["equivalent", "http://a/", "http://b/"]).returncode == 1
    r = run(["equivalent", "http://a b", "x"])
    assert r.returncode == 2 and b"A:" in r.stderr
    r = run(["equivalent", "x"])
    assert is_usage_error(r, "equivalent"), r.stderr


# ----------------------------------------------------------------------
# help, version, usage errors

COMMANDS = ["check", "resolve", "normalize", "equivalent", "extract", "squid-acl"]


def test_help_and_version():
    r = run(["--help"])
    assert r.returncode == 0
    for c in COMMANDS:
        assert c.encode() in r.stdout
    for c in COMMANDS:
        r = run([c, "--help"])
        assert r.returncode == 0 and r.stdout.startswith(f"usage: urisan {c}".encode()), c
    r = run(["--version"])
    assert r.returncode == 0 and r.stdout.startswith(b"urisan ")


def test_usage_errors_are_one_line_naming_the_word_then_see_help():
    for args, cmd, word in (([], None, None), (["frobnicate"], None, "frobnicate"),
                            (["--frobnicate"], None, "--frobnicate"),
                            (["check", "--nope"], "check", "--nope"),
                            (["check", "--policy"], "check", "--policy"),
                            (["check", "--json=1"], "check", "--json"),
                            (["normalize", "-x"], "normalize", "-x"),
                            (["resolve", "rel"], "resolve", "rel"),
                            (["extract", "a", "b"], "extract", "b"),
                            (["policy", "frob"], "policy", "frob"),
                            (["check", "--fields", "nope", "x"], "check", "nope")):
        r = run(args)
        assert is_usage_error(r, cmd, word), (args, r.stderr)
        assert b"usage:" not in r.stderr, args


def test_resolve_seed_draft_appendix_c2_in_keep_mode():
    # doc/resolve.md: every seed draft Appendix C example passes in the mode
    # it is written for; C.2 is the draft's (RFC 2396) algorithm: --above-root=keep.
    cases = {"../../../g": "http://a/../g", "../../../../g": "http://a/../../g",
             "/./g": "http://a/./g", "/../g": "http://a/../g",
             "g.": "http://a/b/c/g.", "..g": "http://a/b/c/..g",
             "./../g": "http://a/b/g", "./g/.": "http://a/b/c/g/",
             "g;x=1/../y": "http://a/b/c/y", "g#s/../x": "http://a/b/c/g#s/../x",
             "http:g": "http:g"}
    r = run(["resolve", "--above-root=keep", BASE, *cases.keys()])
    assert r.returncode == 0, r.stderr
    assert lines_of(r.stdout) == [v.encode() for v in cases.values()]
    r = run(["resolve", "--above-root=keep", "--non-strict", BASE, "http:g"])
    assert lines_of(r.stdout) == [b"http://a/b/c/g"]


def test_milter_max_message_takes_k_and_m_suffixes():
    # the minimum (1024) was compared before the suffix: "256k" was refused
    r = run(["milter", "--help"])
    if r.returncode != 0:
        return  # built without libmilter
    for ok in ("2k", "256k", "1M", "1024"):
        r = run(["milter", "--socket", "bogus:x", "--max-message", ok])
        assert r.returncode == 2 and b"--max-message" not in r.stderr, (ok, r.stderr[:200])
    for bad in ("1000", "0k", "2G", "1025x", "2048M"):
        r = run(["milter", "--socket", "bogus:x", "--max-message", bad])
        assert r.returncode == 2 and b"--max-message" in r.stderr, (bad, r.stderr[:200])


class Milter:
    """`urisan milter` on a unix socket in a temporary directory, its log
    in a file (the daemon behaviour: start line, SIGHUP, SIGTERM)."""

    def __init__(self, d, *extra):
        self.sock = os.path.join(d, "m.sock")
        self.logpath = os.path.join(d, "m.log")
        self.log_f = open(self.logpath, "w")
        self.p = subprocess.Popen([URISAN, "milter", "--socket", "unix:" + self.sock, *extra],
                                  stdout=self.log_f, stderr=subprocess.STDOUT)
        assert self.wait("listening on"), self.log()

    def log(self):
        with open(self.logpath, errors="replace") as f:
            return f.read()

    def wait(self, needle, timeout=10):
        import time
        end = time.time() + timeout
        while time.time() < end:
            if needle in self.log():
                return True
            if self.p.poll() is not None:
                return needle in self.log()
            time.sleep(0.02)
        return False

    def judging(self, timeout=10):
        """True once a thread of the milter is running (state R in
        /proc): after the end of a large message, that is its judgement.
        A fixed sleep raced a fast machine, which had judged 11 MB before
        the signal came."""
        import glob
        import time
        end = time.time() + timeout
        running = 0
        while time.time() < end:
            for st in glob.glob("/proc/%d/task/*/stat" % self.p.pid):
                try:
                    with open(st) as f:
                        state = f.read().rsplit(")", 1)[1].split()[0]
                except OSError:
                    continue
                if state == "R":
                    running += 1
                    break
            else:
                running = 0
            if running >= 2:  # seen on a CPU twice, 20 ms apart
                return True
            time.sleep(0.02 if running else 0.001)
        return False

    def message(self, body_bytes):
        """A session that sends one message and its end: the milter judges
        it (end of message) while the caller does what it wants; read the
        answer with answer(c)."""
        import socket
        import struct
        c = socket.socket(socket.AF_UNIX)
        c.connect(self.sock)

        def send(cmd, data):
            c.sendall(struct.pack(">I", len(data) + 1) + cmd + data)

        def reply():
            n = struct.unpack(">I", self.recv(c, 4))[0]
            return self.recv(c, n)
        send(b"O", struct.pack(">III", 6, 0x1ff, 0))
        assert reply()[:1] == b"O"
        for cmd, data in ((b"C", b"client\0U"), (b"M", b"<a@client.example>\0"),
                          (b"R", b"<b@test.example>\0"),
                          (b"L", b"Content-Type\0text/plain\0"), (b"N", b"")):
            send(cmd, data)
            assert reply()[:1] == b"c", cmd
        for i in range(0, len(body_bytes), 65000):
            send(b"B", body_bytes[i:i + 65000])
            assert reply()[:1] == b"c"
        send(b"E", b"")
        return c, reply

    @staticmethod
    def recv(c, n):
        got = b""
        while len(got) < n:
            more = c.recv(n - len(got))
            if not more:
                raise EOFError("the milter closed the connection")
            got += more
        return got

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        self.log_f.close()


def milter_built():
    return run(["milter", "--help"]).returncode == 0


def stop_bound():
    """Seconds SIGTERM may take to end the process: 1, or 4 for a
    sanitizer build (its exit scans the heap for leaks)."""
    import shutil
    exe = shutil.which(URISAN) or URISAN
    with open(exe, "rb") as f:
        return 4.0 if b"AddressSanitizer" in f.read() else 1.0


def test_milter_sighup_keeps_the_policy_on_a_mistake_and_takes_a_good_one():
    import signal
    import time
    if not milter_built():
        return
    with tempfile.TemporaryDirectory() as d:
        pol = os.path.join(d, "p.policy")
        with open(pol, "w") as f:
            f.write("deny-host blocked.example\n")
        m = Milter(d, "--profile", "mail", "--policy", pol)
        try:
            first = m.log().split("\n")[0]
            assert (first.startswith("urisan: milter: policy in force: urisan 0.") and
                    "profile mail, policy file " + pol + ", " in first and " rules" in first), first
            with open(pol, "w") as f:
                f.write("deny-host blocked.example\n\nallow-host [::1\n")
            m.p.send_signal(signal.SIGHUP)
            assert m.wait("reload failed"), m.log()
            assert pol + ":3:12:" in m.log(), m.log()
            time.sleep(0.1)
            assert m.p.poll() is None, m.log()
            with open(pol, "w") as f:
                f.write("deny-host other.example\n")
            m.p.send_signal(signal.SIGHUP)
            assert m.wait("policy reloaded; in force: urisan 0."), m.log()
            assert m.p.poll() is None
        finally:
            m.stop()


def test_milter_sigterm_stops_within_1s_and_drains_messages_being_judged():
    import signal
    import time
    if not milter_built():
        return
    with tempfile.TemporaryDirectory() as d:
        m = Milter(d, "--profile", "mail")
        try:
            t0 = time.time()
            m.p.send_signal(signal.SIGTERM)
            rc = m.p.wait(5)
            took = time.time() - t0
            assert rc == 0 and took < stop_bound(), (rc, took, m.log())
            assert "SIGTERM: draining (0 messages being judged)" in m.log(), m.log()
            assert "stopped after 0 messages" in m.log(), m.log()
        finally:
            m.stop()
        # after traffic: a message answered, its session still open (an
        # MTA keeps it for the next message); the stop is as quick
        m = Milter(d, "--profile", "mail")
        try:
            c, reply = m.message(b"see https://a.example/ now\r\n")
            while reply()[:1] not in (b"a", b"c", b"y", b"t", b"r", b"d"):
                pass
            t0 = time.time()
            m.p.send_signal(signal.SIGTERM)
            rc = m.p.wait(5)
            took = time.time() - t0
            assert rc == 0 and took < stop_bound(), (rc, took, m.log())
            assert "stopped after 1 message\n" in m.log(), m.log()
            c.close()
        finally:
            m.stop()
        # a message being judged: SIGTERM waits for it and its answer
        body = b"".join(b"see https://h%d.example/p?u=http://10.0.0.%d/ now\r\n" % (i, i % 250)
                        for i in range(500000))
        m = Milter(d, "--profile", "mail", "--max-message", "32M", "--drain-timeout", "120")
        try:
            c, reply = m.message(body)
            # SIGTERM once the judgement runs: a thread of the milter on a CPU
            assert m.judging(), m.log()
            m.p.send_signal(signal.SIGTERM)
            assert m.wait("draining (1 message being judged)"), m.log()
            answers = []
            while True:
                a = reply()
                answers.append(a[:1])
                if a[:1] in (b"a", b"c", b"y", b"t", b"r", b"d"):
                    break
            rc = m.p.wait(120)
            assert rc == 0, (rc, m.log())
            assert answers[-1] in (b"a", b"c"), answers
            assert "stopped after 1 message\n" in m.log(), m.log()
            c.close()
        finally:
            m.stop()
        # --drain-timeout bounds the wait
        m = Milter(d, "--profile", "mail", "--max-message", "32M", "--drain-timeout", "0")
        try:
            c, reply = m.message(body)
            m.p.send_signal(signal.SIGTERM)
            rc = m.p.wait(5)
            c.close()
            assert "cut short while being judged" in m.log(), m.log()
        finally:
            m.stop()


def test_check_json_lists_nested_urls():
    out, _ = check_json([b"https://a.example/?url=http://127.0.0.1/&n=http%253A%252F%252F10.0.0.1%252F"
                         b"#u=//[::1]/", b"https://a.example/?q=1"])
    o = out[0]
    assert o["nested_capped"] is False, o
    got = [(n["name"], n["uri"], n["depth"], n["host_ip"]) for n in o["nested"]]
    assert got == [("url", "http://127.0.0.1/", 1, "127.0.0.1"),
                   ("n", "http://10.0.0.1/", 1, "10.0.0.1"),
                   ("u", "//[::1]/", 1, "::1")], got
    assert o["nested"][0]["flags"] == ["ip_literal", "ip_loopback"], o["nested"][0]
    assert "ip_private" in o["nested"][1]["flags"]
    # a line without nested URLs has neither key: its bytes are as before
    assert "nested" not in out[1] and "nested_capped" not in out[1], out[1]
    assert list(out[1])[-1] == "length"


def test_check_json_nested_list_is_capped_at_16():
    def uri(k):
        return ("http://a.example/?" + "&".join("p%d=//h%d.example/" % (i, i)
                                                for i in range(k))).encode()
    out, _ = check_json([uri(16), uri(17), uri(40)])
    assert len(out[0]["nested"]) == 16 and out[0]["nested_capped"] is False
    for o in out[1:]:
        assert len(o["nested"]) == 16 and o["nested_capped"] is True, o
        assert [n["name"] for n in o["nested"]] == ["p%d" % i for i in range(16)]


def test_check_json_nested_uri_is_escaped():
    # the decoded value holds a quote, a backslash, LF, 0x01, DEL, U+00E9
    # and a byte that is no UTF-8: each must come out as valid JSON
    out, r = check_json([b"http://a.example/?u=http:%2F%2Fa%22b%5C%0A%01%7F%C3%A9%FF/"
                         b"&%22n%0A=//h.example/"])
    o = out[0]
    assert o["nested"][0]["uri"] == 'http://a"b\\\n\x01\x7f\u00e9\u00ff/', o["nested"][0]
    assert b'"uri":"http://a\\"b\\\\\\u000a\\u0001\\u007f\xc3\xa9\\u00ff/"' in r.stdout, r.stdout
    # the name is shown as written (not decoded)
    assert o["nested"][1]["name"] == "%22n%0A", o["nested"][1]


def test_check_json_nested_depth_and_fields():
    u = b"https://a.example/?u=https://b.example/%3Fv%3Dhttp://127.0.0.1/"
    out, _ = check_json([u], extra=("--profile", "ssrf"))
    got = [(n["uri"], n["depth"]) for n in out[0]["nested"]]
    assert got == [("https://b.example/?v=http://127.0.0.1/", 1),
                   ("http://127.0.0.1/", 2)], got
    r = run(["check", "--fields", "nested_capped,uri,nested", "--", u.decode(),
             "http://b.example/"])
    rows = [strict_json(x) for x in lines_of(r.stdout)]
    assert list(rows[0]) == ["nested_capped", "uri", "nested"], rows[0]
    assert len(rows[0]["nested"]) == 1  # the default policy's depth 1
    assert list(rows[1]) == ["uri"], rows[1]
    # --base: the URLs nested in the resolved URI
    out, _ = check_json([b"?next=//127.0.0.1/"], extra=("--base", "http://b.example/x"))
    assert out[0]["resolved"] == "http://b.example/x?next=//127.0.0.1/"
    assert out[0]["nested"][0]["host_ip"] == "127.0.0.1", out[0]


# ----------------------------------------------------------------------
# tests/spec/*.md through `check --json` (format: tests/spec/README.md);
# test_spec.c runs the same files against the library.

SPEC_DIR = os.path.join(SRCDIR, "tests", "spec")
SPEC_PARTS = ["scheme", "userinfo", "host", "port", "path", "query", "fragment"]
SPEC_TYPES = ["none", "empty", "reg-name", "ipv4", "ipv6", "ipv6-zone",
              "ipvfuture", "invalid"]
ARROW = "\u2192".encode()


def spec_names():
    """Flag and status names from the public header and the flag list."""
    import re
    inc = os.path.join(SRCDIR, "include")
    with open(os.path.join(inc, "urisan_flags.def")) as f:
        flags = re.findall(r"^URISAN_FLAG\(\s*\w+,\s*(\w+),", f.read(), re.M)
    with open(os.path.join(inc, "urisan.h")) as f:
        status = re.findall(r"^\s*X\(\s*\w+,\s*(\w+),\s*\d+,", f.read(), re.M)
    assert "invalid" in flags and "port_range" in status
    return set(flags), set(status) - {"ok"}


class SpecError(Exception):
    pass


def spec_quoted(line, i):
    """The backtick-quoted bytes at line[i]: (bytes, index after)."""
    import re
    if line[i:i + 1] != b"`":
        raise SpecError("expected a `quoted` value")
    end = line.find(b"`", i + 1)
    if end < 0:
        raise SpecError("unterminated ` quote")
    raw = line[i + 1:end]
    if any(c < 0x20 or c == 0x7F for c in raw):
        raise SpecError("raw control byte in quoted text (write it as \\xNN)")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError("invalid UTF-8 in quoted text (write the bytes as \\xNN)")
    val = re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), raw)
    return val, end + 1


def spec_word(w, case, flags, status):
    if len(w) > 1 and w[0] in "+-":
        if w[1:] not in flags:
            raise SpecError("unknown flag name")
        if w[1:] in case["set" if w[0] == "-" else "clear"]:
            raise SpecError("flag both +set and -clear")
        case["set" if w[0] == "+" else "clear"].add(w[1:])
    elif len(w) > 1 and w[0] == "~":
        if w[1:] not in flags:
            raise SpecError("unknown flag name")
        case["either"].add(w[1:])
    elif w.startswith("ip=") and len(w) > 3:
        if "ip" in case or len(w) - 3 >= 48:
            raise SpecError("ip= given twice or too long")
        case["ip"] = w[3:]
    elif w.startswith("flags="):
        if "exact" in case:
            raise SpecError("flags= given twice")
        names = [] if w == "flags=none" else w[6:].split(",")
        if any(n not in flags for n in names):
            raise SpecError("unknown flag name in flags=")
        case["exact"] = set(names)
    elif w.startswith("type="):
        if w[5:] not in SPEC_TYPES:
            raise SpecError("unknown host type")
        case["type"] = w[5:]
    elif w.startswith("verdict="):
        if w[8:] not in ("allow", "flag", "deny"):
            raise SpecError("unknown verdict")
        case["verdict"] = w[8:]
    elif w == "valid" or "@" in w:
        if "status" in case:
            raise SpecError("a second status word")
        name, _, off = w.partition("@")
        if w != "valid" and (name not in status or not off.isdigit()):
            raise SpecError("unknown status or bad offset (want name@offset)")
        case["status"] = (name, int(off)) if w != "valid" else ("ok", 0)
    else:
        raise SpecError("unknown expectation word")


def spec_case(line, flags, status):
    case = {"set": set(), "clear": set(), "either": set(), "parts": {}}
    case["input"], i = spec_quoted(line, 2)
    sep = b" " + ARROW + b" "
    if line[i:i + len(sep)] != sep:
        raise SpecError("expected \" \u2192 \" after the input")
    i += len(sep)
    words = 0
    while i < len(line):
        if line[i:i + 1] == b" ":
            i += 1
            continue
        j = i
        while j < len(line) and line[j:j + 1] not in (b" ", b"=", b"`"):
            j += 1
        key = line[i:j].decode("utf-8", "replace")
        if key in SPEC_PARTS and line[j:j + 1] == b"=":
            if key in case["parts"]:
                raise SpecError("a component named twice")
            case["parts"][key], j = spec_quoted(line, j + 1)
        else:
            while j < len(line) and line[j:j + 1] != b" ":
                j += 1
            spec_word(line[i:j].decode("utf-8", "replace"), case, flags, status)
        words += 1
        i = j
    if not words:
        raise SpecError("no expectation after the arrow")
    if case["either"] and ("exact" not in case or case["either"] & case["exact"]):
        raise SpecError("~flag is for a flag flags= leaves open (and only with flags=)")
    return case


def read_spec_text(path, data, flags, status):
    """The cases of one file's bytes; raises with file:line and text."""
    cases = []
    for no, line in enumerate(data.split(b"\n"), 1):
        where = f"{path}:{no}: "
        try:
            if line.startswith(b"- `"):
                c = spec_case(line, flags, status)
                c["where"] = where + line.decode("utf-8", "replace")
                cases.append(c)
            elif ARROW in line:
                raise SpecError("a line with an arrow that is no case "
                                "(a case starts with \"- `\")")
        except SpecError as e:
            raise SpecError(f"{where}{e}: {line.decode('utf-8', 'replace')}")
    if not cases:
        raise SpecError(f"{path}: no cases in this file")
    return cases


def read_spec_files():
    """Every case of tests/spec; raises with file:line and text."""
    flags, status = spec_names()
    names = sorted(n for n in os.listdir(SPEC_DIR)
                   if n.endswith(".md") and n != "README.md")
    assert names, f"{SPEC_DIR}: no spec files (*.md) found"
    cases = []
    for name in names:
        path = os.path.join(SPEC_DIR, name)
        with open(path, "rb") as f:
            cases += read_spec_text(path, f.read(), flags, status)
    return cases


def spec_results(cases):
    """check --json of every case's input: a line on stdin, or an argument
    when the input holds LF or ends in CR (the line reader takes those)."""
    by_arg = [c for c in cases if b"\n" in c["input"] or c["input"].endswith(b"\r")]
    by_line = [c for c in cases if c not in by_arg]
    assert all(b"\0" not in c["input"] for c in by_arg), \
        [c["where"] for c in by_arg if b"\0" in c["input"]]
    out, _ = check_json([c["input"] for c in by_line])
    results = list(zip(by_line, out))
    if by_arg:
        r = run(["check", "--json", "--"] + [c["input"] for c in by_arg])
        got = [strict_json(x) for x in lines_of(r.stdout)]
        assert len(got) == len(by_arg), (len(got), len(by_arg), r.stderr)
        results += list(zip(by_arg, got))
    return results


def spec_mismatch(c, obj):
    """What in obj differs from the case c, or None."""
    if "status" in c:
        err = obj["error"]
        got = ("ok", 0) if obj["valid"] else (err["code"], err["offset"])
        want = c["status"]
        if obj["valid"] != (want[0] == "ok") or got != want:
            return f"status {got}"
    comp = obj["components"]
    if c["parts"]:
        for k in SPEC_PARTS:
            want = expected_uri(c["parts"][k]) if k in c["parts"] else None
            if comp[k] != want:
                return f"{k} {comp[k]!r}, want {want!r}"
    if "type" in c and (comp["host_type"] or "none") != c["type"]:
        return f"host_type {comp['host_type']}"
    got = set(obj["flags"])
    if not c["set"] <= got or c["clear"] & got:
        return f"flags {obj['flags']}"
    if "exact" in c and got - c["either"] != c["exact"]:
        return f"flags {obj['flags']}"
    if "ip" in c and obj["host_ip"] != (None if c["ip"] == "none" else c["ip"]):
        return f"host_ip {obj['host_ip']}"
    if "verdict" in c and obj["verdict"] != c["verdict"]:
        return f"verdict {obj['verdict']}"
    return None


def test_spec_files_hold_for_check_json():
    cases = read_spec_files()
    results = spec_results(cases)
    assert len(results) == len(cases)
    bad = [f"{c['where']}: {m}" for c, obj in results
           for m in [spec_mismatch(c, obj)] if m]
    assert not bad, f"{len(bad)} of {len(cases)} cases differ:\n" + "\n".join(bad[:40])
    print(f"     {len(cases)} spec cases agree")


def test_spec_reader_refuses_malformed_lines():
    """The reader of the spec files fails closed, as test_spec.c's does."""
    flags, status = spec_names()
    a = "\u2192"
    refused = [
        (f"# h\n\n- `a` {a} +nosuchflag\n", 3, "unknown flag name"),
        (f"- `a` {a} flags=invalid,nosuch\n", 1, "unknown flag name in flags="),
        (f"- `a` {a} +invalid -invalid\n", 1, "both"),
        (f"- `a` {a} bad_hots@3\n", 1, "unknown status"),
        (f"- `a` {a} bad_host@x\n", 1, "bad offset"),
        (f"- `a` {a} valid bad_host@1\n", 1, "second status"),
        (f"- `a` {a} type=ipv7\n", 1, "unknown host type"),
        (f"- `a` {a} verdict=maybe\n", 1, "unknown verdict"),
        (f"- `a` {a} valid fine\n", 1, "unknown expectation word"),
        (f"- `a` {a}\n", 1, "expected"),
        (f"- `a` {a} \n", 1, "no expectation"),
        ("- `a` -> valid\n", 1, "expected"),
        (f"- `a {a} valid\n", 1, "unterminated"),
        (f"- `a\tb` {a} valid\n", 1, "raw control byte"),
        (f"- `a` {a} host=h\n", 1, "quoted"),
        (f"- `a` {a} host=`h` host=`i`\n", 1, "twice"),
        (f"- `a` {a} flags=none flags=invalid\n", 1, "twice"),
        (f"- `a` {a} ip=1.2.3.4 ip=1.2.3.4\n", 1, "twice"),
        (f"- `a` {a} +invalid ~idn\n", 1, "~flag"),
        (f"- `a` {a} flags=idn ~idn\n", 1, "~flag"),
        (f"- `a` {a} flags=none ~nosuch\n", 1, "unknown flag name"),
        (f"- `a` {a} valid\n-`b` {a} valid\n", 2, "no case"),
        ("# only prose\n", 0, "no cases"),
    ]
    for text, line, msg in refused:
        try:
            read_spec_text("self", text.encode(), flags, status)
        except SpecError as e:
            assert msg in str(e), (text, str(e))
            assert (f"self:{line}: " in str(e)) == (line > 0), (text, str(e))
            continue
        raise AssertionError(f"accepted: {text!r}")
    try:
        read_spec_text("self", b"- `a\xc3` " + ARROW + b" valid\n", flags, status)
        raise AssertionError("accepted invalid UTF-8")
    except SpecError as e:
        assert "invalid UTF-8" in str(e), str(e)
    got = read_spec_text("self", f"- `a\\x00b\\x5c\\x60` {a} bad_path@1 +ctl_raw "
                         "path=`` type=none\n".encode(), flags, status)
    assert got[0]["input"] == b"a\0b\\`" and got[0]["status"] == ("bad_path", 1)
    assert got[0]["parts"] == {"path": b""} and got[0]["type"] == "none"


def main():
    return run_tests(globals())


if __name__ == "__main__":
    sys.exit(main())
