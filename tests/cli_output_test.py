#!/usr/bin/env python3
"""cli_output_test.py - the command's output path: --fields, the
buffered output (order, flushing for an interactive peer, write errors), and
the JSON escape around its 8-byte fast path.

Usage: cli_output_test.py PATH-TO-urisan [--quick]

--quick (the quick suite): "no line takes anything from the line before"
runs each URI alone under two of its seven option sets (not all seven:
217 process starts were most of the test's time); under every set each
URI's line must still be the same after each of its predecessors.
"""
import json
import os
import select
import subprocess
import sys

from testlib import run_tests

URISAN = sys.argv[1] if len(sys.argv) > 1 else "urisan"
QUICK = "--quick" in sys.argv[2:]


def run(args, stdin=b"", timeout=120):
    return subprocess.run([URISAN] + args, input=stdin, capture_output=True, timeout=timeout)


def jlines(out):
    assert out.endswith(b"\n") or out == b""
    return [json.loads(x) for x in out.decode("utf-8").splitlines()]


def pairs(line):
    return json.loads(line, object_pairs_hook=lambda kv: kv)


# ---- --fields ----

def test_fields_keeps_only_the_named_keys_in_that_order():
    r = run(["check", "--fields", "verdict,uri,host,reasons", "http://evil.example/%2e%2e/x",
             "javascript:alert(1)"])
    assert r.returncode == 1, r
    out = r.stdout.decode().splitlines()
    assert [k for k, _ in pairs(out[0])] == ["verdict", "uri", "host", "reasons"]
    first = dict(pairs(out[0]))
    assert first["uri"] == "http://evil.example/%2e%2e/x"
    assert first["host"] == "evil.example"
    second = dict(pairs(out[1]))
    assert second["verdict"] == "deny" and second["host"] is None


def test_fields_equals_the_same_keys_of_the_full_line():
    inputs = b"http://a/b\nhttps://[::1]:8080/p?q#f\nnot a uri\n\x00\xff\n"
    full = jlines(run(["check", "--json"], inputs).stdout)
    keys = ["length", "flags", "components", "error", "valid"]
    part = run(["check", "--json", "--fields", ",".join(keys)], inputs).stdout
    for f, line in zip(full, part.decode().splitlines()):
        assert [k for k, _ in pairs(line)] == keys
        assert json.loads(line) == {k: f[k] for k in keys}


def test_decision_run_kept_bytes_equal_the_keys_written_one_by_one():
    # flags..flag_reasons in table order are one run whose bytes are kept
    # per (flags, decision) (fields.c); out of order each is written alone.
    # Decisions interleaved and repeated, so kept runs are copied.
    uris = [b"http://a.example/", b"http://evil.example/%2e%2e/x", b"not a uri",
            b"http://user:pw@1.2.3.4/", b"http://xn--pple-43d.com/", b"javascript:alert(1)",
            b"http://a.example/%00", b"\x00\xff", b"http://b.example//x/../y"]
    inputs = b"\n".join(uris * 7 + list(reversed(uris)) * 5) + b"\n"
    run_keys = ["flags", "verdict", "reasons", "deny_reasons", "flag_reasons"]
    at_start = run(["check", "--fields", ",".join(run_keys)], inputs).stdout.decode()
    alone = run(["check", "--fields", ",".join(run_keys[::-1])], inputs).stdout.decode()
    full = run(["check", "--json"], inputs).stdout.decode()
    a, b, f = at_start.splitlines(), alone.splitlines(), full.splitlines()
    assert len(a) == len(b) == len(f) == 9 * 12
    assert len(set(a)) > 4, "the inputs have several distinct decisions"
    for la, lb, lf in zip(a, b, f):
        assert la.startswith('{"flags":[')
        assert [k for k, _ in pairs(la)] == run_keys
        assert dict(pairs(la)) == dict(pairs(lb)) == {k: v for k, v in pairs(lf) if k in run_keys}
        assert la[1:-1] in lf


def test_fields_components_as_keys():
    r = run(["check", "--fields", "scheme,userinfo,host,host_type,port,path,query,fragment",
             "http://u@h.example:81/p?q#f"])
    assert json.loads(r.stdout) == {"scheme": "http", "userinfo": "u", "host": "h.example",
                                    "host_type": "reg-name", "port": "81", "path": "/p",
                                    "query": "q", "fragment": "f"}


def test_fields_unknown_name_is_a_usage_error_naming_it():
    r = run(["check", "--fields", "uri,hots", "http://a/"])
    assert r.returncode == 2 and r.stdout == b""
    err = r.stderr.decode()
    assert "unknown field 'hots'" in err and "host" in err, err


def test_fields_empty_repeated_and_option_bound_names():
    for lst, word in [("uri,,verdict", "empty field name"), ("uri,uri", "'uri' given twice"),
                      ("", "empty field name"), ("resolved", "needs --base")]:
        r = run(["check", "--fields", lst, "http://a/"])
        assert r.returncode == 2 and word in r.stderr.decode(), (lst, r.stderr)
    r = run(["check", "--base", "http://a/b/", "--fields", "uri,resolved", "../c"])
    assert json.loads(r.stdout) == {"uri": "../c", "resolved": "http://a/c"}


def test_fields_on_normalize_resolve_extract():
    r = run(["normalize", "--fields", "result", "HTTP://A/%7e"])
    assert json.loads(r.stdout) == {"result": "http://a/~"}
    r = run(["resolve", "--fields", "ref,result", "http://a/b/c", "../d"])
    assert json.loads(r.stdout) == {"ref": "../d", "result": "http://a/d"}
    r = run(["extract", "--fields", "uri,offset"], b"see http://x.example/ now\n")
    assert json.loads(r.stdout) == {"uri": "http://x.example/", "offset": 4}
    r = run(["extract", "--fields", "url"], b"x\n")
    assert r.returncode == 2 and "unknown field 'url'" in r.stderr.decode()


def test_fields_with_format_is_a_usage_error():
    r = run(["check", "--format", "field:2", "--fields", "uri,verdict", "-"], b"GET http://a/ x\n")
    assert r.returncode == 2 and "--fields and --format exclude each other" in r.stderr.decode()
    r = run(["check", "--fields", "uri,lineno", "http://a/"])
    assert r.returncode == 2 and "'lineno' needs --format" in r.stderr.decode(), r.stderr


def test_fields_leaving_out_host_keys_keeps_idn_flags():
    r = run(["check", "--fields", "uri,flags", "http://xn--pple-43d.com/"])
    o = json.loads(r.stdout)
    assert "homograph" in o["flags"] and "idn" in o["flags"], o


def test_no_line_takes_anything_from_the_line_before():
    # check keeps the last host's view (hostview_last) and the bytes of
    # runs (fields.c: valid+error, the four host view keys) from one line
    # to the next; each line must be what that line alone gives. Same
    # host with other ports, userinfo, case and escapes; hosts of 24
    # (skeleton made again from a memo), 64 and 65 bytes (kept and not);
    # IP literals, no host, mailto with and without '@'; JSON escapes; one
    # error code at two offsets.
    h64 = b"a" * 60 + b".com"
    h65 = b"a" * 61 + b".com"
    uris = [b"http://example.com/a", b"https://u:p@example.com:8080/b", b"http://EXAMPLE.com/",
            b"http://ex%61mple.com/", b"http://example.com./", b"http://xn--pple-43d.com/",
            "http://\u0430pple.com/".encode(), b'http://a"b.com/', b"http://a%22b.com/",
            b"http://a\\b.com/", b"http://" + b"m" * 20 + b".com/",
            b"http://" + b"M" * 20 + b".com/", b"http://" + h64 + b"/",
            b"http://" + h64 + b":81/", b"http://" + h65 + b"/", b"http://" + h65 + b"/x",
            b"http://[::1]/", b"http://[2001:db8::1]/", b"http://127.0.0.1/", b"urn:isbn:1", b"",
            b"http:///x", b"mailto:a@example.com", b"mailto:nobody", b"mailto:a@",
            b"mailto:b@example.com,c@x.net", b"not a uri", b"\x00\xff", b"http://example.com/ x",
            b"http://example.com/xy z", b"http://example.com/" + b"p" * 9000]
    seq = (uris + uris[::-1] + [u for pair in zip(uris, uris[1:]) for u in pair] +
           [u for u in uris for _ in (0, 1)])
    data = b"\n".join(seq) + b"\n"
    host = "host_unicode,host_skeleton,host_imitates,registrable_domain"
    sets = (["--json"], ["--fields", "valid,error," + host + ",uri"], ["--fields", host],
            ["--fields", "error,valid,registrable_domain,host_unicode,components,uri"],
            ["--fields", "host_skeleton,host_imitates,registrable_domain,valid"],
            ["--json", "--base", "http://example.com/b/"], ["--json", "--profile", "ssrf"])
    for n, args in enumerate(sets):
        out = run(["check"] + args, data).stdout.split(b"\n")
        assert len(out) == len(seq) + 1, (args, len(out))
        seen = {}   # each URI's line after each of its predecessors: one line
        for u, line in zip(seq, out):
            assert seen.setdefault(u, line) == line, (args, u[:80], line[:300], seen[u][:300])
        if QUICK and n >= 2:
            continue
        for u, line in seen.items():
            alone = run(["check"] + args, u + b"\n").stdout
            assert line + b"\n" == alone, (args, u[:80], line[:300], alone[:300])


def test_mailto_domain_flags_do_not_depend_on_the_output_mode():
    # A mailto: address's domain is the host hostview.c views, but the
    # library sets no idn flag there: the homograph, invisible_char and
    # host_uts46 it earns were judged only when --json wrote the host view
    # keys, so check, check --fields flags,verdict and check --json gave
    # three verdicts (fuzz/cli, corpus/cli/crash-mailto-domain-by-mode).
    uris = [b"mailto:a@xn--pple-43d.com", "mailto:a@\u0430pple.com".encode(),
            b"mailto:a@exa%C2%ADmple.com", b"MAILTO:b@x.org,a@xn--pple-43d.com",
            b"mailto:Joe@E\xe2\x93\xaaxample.COM", b"mailto:a@example.com", b"mailto:nobody"]
    data = b"\n".join(uris) + b"\n"
    full = [json.loads(x) for x in run(["check", "--json"], data).stdout.splitlines()]
    part = [json.loads(x) for x in
            run(["check", "--fields", "flags,verdict,reasons"], data).stdout.splitlines()]
    text = run(["check"], data).stdout.decode().splitlines()
    assert len(full) == len(part) == len(text) == len(uris)
    assert "homograph" in full[0]["flags"] and "invisible_char" in full[2]["flags"], full
    for u, f, p, t in zip(uris, full, part, text):
        assert p == {k: f[k] for k in ("flags", "verdict", "reasons")}, (u, f["flags"], p)
        want = f["verdict"]
        if f["deny_reasons"]:
            want += " denied:" + ",".join(f["deny_reasons"])
        if f["flag_reasons"]:
            want += (";" if f["deny_reasons"] else " ") + "flagged:" + ",".join(f["flag_reasons"])
        assert t.startswith(want + " "), (u, t, want)


# ---- buffered output ----

def test_many_lines_cross_the_block_boundary_in_order():
    # ~40 MB of JSON: many 256 KiB blocks; each line must be there, in order.
    n = 200000
    data = b"".join(b"http://h%d.example/%s\n" % (i, b"p" * (i % 50)) for i in range(n))
    r = run(["check", "--fields", "uri,length"], data)
    out = r.stdout.decode().splitlines()
    assert len(out) == n
    for i in (0, 1, n // 3, n // 2, n - 1):
        assert json.loads(out[i])["uri"] == "http://h%d.example/%s" % (i, "p" * (i % 50))


def test_interactive_peer_gets_each_answer_before_its_next_line():
    # A peer that writes one line and waits (a coprocess, Squid): the answer
    # must come although stdin stays open and stdout is a pipe.
    # --jobs: the workers read standard input in turn; the one that would
    # wait has every line read so far judged and written first.
    for args in (["check", "--json"], ["check"], ["normalize"], ["squid-acl"],
                 ["check", "--json", "--jobs", "2"], ["check", "--jobs", "3"]):
        p = subprocess.Popen([URISAN] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        try:
            for i in range(3):
                p.stdin.write(b"http://a%d.example/\n" % i)
                p.stdin.flush()
                ready, _, _ = select.select([p.stdout], [], [], 10)
                assert ready, "%s: no answer to line %d while stdin is open" % (args, i + 1)
                line = p.stdout.readline()
                assert line.endswith(b"\n") and b"a%d.example" % i in line or args == ["squid-acl"], line
        finally:
            p.stdin.close()
            p.wait(timeout=10)


def test_write_error_is_reported_with_exit_2():
    if not os.path.exists("/dev/full"):
        print("  (no /dev/full; skipped)")
        return
    with open("/dev/full", "wb") as full:
        for args in (["check", "--json"], ["check"], ["normalize"]):
            p = subprocess.run([URISAN] + args, input=b"http://a/\n" * 100000, stdout=full,
                               stderr=subprocess.PIPE, timeout=60)
            assert p.returncode == 2, (args, p.returncode)
            assert b"write error on standard output" in p.stderr, p.stderr


def test_stderr_message_comes_after_the_lines_before_it():
    # stdout and stderr into one pipe: the message is the whole output.
    with open(os.devnull, "rb") as dn:
        p = subprocess.run([URISAN, "check", "--policy", "/nonexistent/p"], stdin=dn,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
    assert p.returncode == 2 and p.stdout.startswith(b"urisan: check: /nonexistent/p")


# ---- the escape around its fast path ----

def expected(raw):
    """urisan(1), JSON OUTPUT / src/cli/json.h: the JSON string body our
    writer produces."""
    out = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c < 0x20 or c == 0x7F:
            out.append("\\u%04x" % c)
            i += 1
            continue
        if c < 0x80:
            out.append("\\" + chr(c) if c in (0x22, 0x5C) else chr(c))
            i += 1
            continue
        for n in (2, 3, 4):
            try:
                ch = raw[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(ch) == 1:
                cp = ord(ch)
                out.append("\\u%04x" % cp if cp < 0xA0 or cp in (0x2028, 0x2029) else ch)
                i += n
                break
        else:
            out.append("\\u%04x" % c)
            i += 1
    return "".join(out)


def expected_text(raw):
    """src/cli/render.c cli_text_escape (quoted): the text-mode body."""
    out = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c in (0x09, 0x0A, 0x0D):
            out.append({9: "\\t", 10: "\\n", 13: "\\r"}[c])
            i += 1
            continue
        if c < 0x20 or c == 0x7F:
            out.append("\\u{%04X}" % c)
            i += 1
            continue
        if c < 0x80:
            out.append("\\" + chr(c) if c in (0x22, 0x5C) else chr(c))
            i += 1
            continue
        for n in (2, 3, 4):
            try:
                ch = raw[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(ch) == 1:
                cp = ord(ch)
                out.append("\\u{%04X}" % cp if hidden(cp) else ch)
                i += n
                break
        else:
            out.append("\\x{%02X}" % c)
            i += 1
    return "".join(out)


def hidden(cp):
    """C1, bidi controls and marks, zero-width and default-ignorable
    characters, line/paragraph separators (doc/output.md)."""
    return (cp < 0xA0 or cp in (0xAD, 0x34F, 0x61C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164,
                                0xFEFF, 0xFFA0)
            or 0x180B <= cp <= 0x180F or 0x200B <= cp <= 0x200F or 0x2028 <= cp <= 0x202E
            or 0x2060 <= cp <= 0x206F or 0xFE00 <= cp <= 0xFE0F or 0xFFF0 <= cp <= 0xFFFB
            or 0x1BCA0 <= cp <= 0x1BCA3 or 0x1D173 <= cp <= 0x1D17A or 0xE0000 <= cp <= 0xE0FFF)


def test_escape_of_every_special_byte_at_every_position_of_a_block():
    specials = [b'"', b"\\", b"\x00", b"\x1f", b"\x7f", b"\x80", b"\xc3\xa9", b"\xe2\x80\xa8",
                b"\xf0\x9f\x98\x80", b"\xc2\x85", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff"]
    lines = []
    for sp in specials:
        for pos in range(0, 20):
            for tail in (0, 1, 7, 8, 9):
                lines.append(b"a" * pos + sp + b"b" * tail)
    r = run(["check"], b"\n".join(lines) + b"\n")
    out = r.stdout.decode("utf-8").splitlines()
    assert len(out) == len(lines)
    for raw, line in zip(lines, out):
        body = line[line.index(' "') + 2:line.rindex('"')]
        assert body == expected_text(raw), (raw, body, expected_text(raw))
    # JSON: the JSON escape, as before
    r = run(["check", "--json"], b"\n".join(lines) + b"\n")
    out = r.stdout.decode("utf-8").splitlines()
    assert len(out) == len(lines)
    for raw, line in zip(lines, out):
        body = line[len('{"uri":"'):line.index('","valid"')]
        assert body == expected(raw), (raw, body, expected(raw))


def test_text_output_escapes_every_class_a_terminal_acts_on():
    # each class: C0, DEL, C1, bidi controls, bidi marks, zero-width,
    # other default-ignorable, invalid UTF-8; visible Unicode stays
    cases = [
        (b"\x01", "\\u{0001}"), (b"\x1b[31m", "\\u{001B}[31m"), (b"\x7f", "\\u{007F}"),
        (b"\xc2\x85", "\\u{0085}"), (b"\xc2\x9b", "\\u{009B}"),
        (b"\xe2\x80\xae", "\\u{202E}"), (b"\xe2\x80\xaa", "\\u{202A}"),
        (b"\xe2\x81\xa6", "\\u{2066}"), (b"\xe2\x81\xa9", "\\u{2069}"),
        (b"\xe2\x80\x8f", "\\u{200F}"), (b"\xe2\x80\x8b", "\\u{200B}"),
        (b"\xe2\x80\x8d", "\\u{200D}"), (b"\xef\xbb\xbf", "\\u{FEFF}"),
        (b"\xc2\xad", "\\u{00AD}"), (b"\xef\xb8\x8f", "\\u{FE0F}"),
        (b"\xf3\xa0\x80\x81", "\\u{E0001}"), (b"\xe2\x80\xa8", "\\u{2028}"),
        (b"\xff", "\\x{FF}"), (b"\xc3", "\\x{C3}"), (b"\xed\xa0\x80", "\\x{ED}\\x{A0}\\x{80}"),
        (b"\xc3\xbc", "\u00fc"), (b"\xe4\xbe\x8b", "\u4f8b"),
    ]
    for cmd in (["check"], ["extract"]):
        # extract ends a bare URL at a C0 control or DEL: those via check
        sel = [(raw, want) for raw, want in cases if cmd == ["check"] or raw[0] >= 0x80]
        text = b"\n".join(b"http://a.example/" + raw for raw, _ in sel) + b"\n"
        out = run(cmd, text).stdout.decode("utf-8").splitlines()
        assert len(out) == len(sel), (cmd, out)
        for (raw, want), line in zip(sel, out):
            body = line[line.index(' "') + 2:line.rindex('"')]
            if cmd == ["extract"] and raw in (b"\xc3\xbc", b"\xe4\xbe\x8b"):
                # a link written in visible Unicode: extract judges (and
                # prints) the URI a browser opens for it
                want = "".join("%%%02X" % b for b in raw)
            assert body == "http://a.example/" + want, (cmd, raw, body, want)
    # JSON output is unchanged: the JSON escape (U+202E as it is)
    r = run(["check", "--json"], b"http://a.example/\xe2\x80\xae\n")
    assert '"uri":"http://a.example/\u202e"' in r.stdout.decode("utf-8"), r.stdout
    # normalize and resolve (text): never the raw character
    for cmd in (["normalize"], ["resolve", "http://a.example/"]):
        r = run(cmd, b"http://a.example/\xe2\x80\xae\n")
        assert b"\xe2\x80\xae" not in r.stdout, (cmd, r.stdout)


def main():
    return run_tests(globals())

if __name__ == "__main__":
    sys.exit(main())
