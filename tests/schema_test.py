#!/usr/bin/env python3
"""Every JSON line the command's test suites produce validates against
doc/urisan-output.schema.json (JSON Schema draft 2020-12, python3-jsonschema).

Usage: schema_test.py PATH-TO-urisan SRCDIR [--sample N]

The suites (SUITES below: every one that writes such JSON, but for the
bulk-data ones named there) run with a stand-in for the binary that passes everything
through and keeps each JSON line of check, extract, resolve and normalize;
then every kept line - and the lines of a few runs of its own (--fields,
--explain, --base, nested URLs, logs, every mail fixture) - is validated
against its command's definition. The schema allows no unknown key: a key,
flag or reason added without the schema fails here.

--sample N (the quick size; without it every suite runs and every line is
validated) runs the suites of QUICK_SUITES, reads every line as JSON, and
validates each line of a shape
not seen before - its command, each key with the kind of its value (null,
string, number, boolean, array, object) and each lower-case word it
carries as a string (flags, reasons, verdicts, statuses) - and every Nth
line besides: each class of line the suites make is validated at least
once, and a sample of the rest for the values' own rules.
"""
import glob
import json
import os
import re
import shlex
import stat
import subprocess
import sys
import tempfile

URISAN = os.path.abspath(sys.argv[1])
SRCDIR = os.path.abspath(sys.argv[2])
SAMPLE = int(sys.argv[4]) if sys.argv[3:4] == ["--sample"] else 1
# A line's shape (--sample): its keys, each with the first byte of its
# value, and its quoted lower-case words.
SHAPE = re.compile(rb'"([a-z][a-z_0-9]*)"(:[n"\[{tf0-9-]|)')
# The suites that run check, extract, resolve or normalize with JSON output
# (squid_helper_test runs squid-acl, which writes none: it is here so that
# a JSON line it ever makes is validated); the ones that also want the
# source tree get it as their second argument. Left out: output_identity,
# nested_diff, door_equality, jobs and stream, whose JSON is that of the
# suites here on bulk data (output_identity and jobs compare it byte for
# byte with a run these kinds of lines cover; stream measures the binary's
# RSS, which a stand-in would hide), and impersonation_eval, whose lines
# are hostview_test's keys.
SUITES = ["cli_test.py", "decision_cli_test.py", "explain_test.py", "hostview_test.py",
          "mailbox_test.py", "cli_output_test.py", "logformat_test.py", "extract_mail_test.py",
          "hostile_mail_test.py", "mail_links_test.py", "squid_helper_test.py",
          "logs_doc_test.py", "addrclass_oracle.py", "homograph_eval.py",
          "host_flags_policy_test.py", "ssrf_payloads_test.py"]
# The quick size's suites: with this test's own runs, they make every key
# with each kind of value and every flag, reason and verdict word (per
# command) that all the suites make, measured on a full run's lines (the
# suites left out add combinations only; cli_output's 17 MB and
# extract_mail's 34 MB of lines add none). cli_test.py's 10 MB of lines
# add 7 flags and the cut inputs of resolve and normalize: own_runs makes
# those, so its 9 s run through the stand-in is left to the full size.
QUICK_SUITES = ["explain_test.py", "hostview_test.py", "mailbox_test.py",
                "logformat_test.py", "mail_links_test.py", "ssrf_payloads_test.py"]
WANTS_SRCDIR = {"logs_doc_test.py"}
NO_JSON = {"squid_helper_test.py"}
COMMANDS = ("check", "extract", "resolve", "normalize")

# The stand-in: a shell script that runs the binary itself unless the
# command writes JSON (no Python start for those calls), and KEEPER then.
STAND_IN = """#!/bin/sh
case "$1" in check|extract|resolve|normalize)
  for a in "$@"; do
    case "$a" in --json|--fields|--fields=*) exec /usr/bin/python3 %s "$@";; esac
  done;;
esac
exec %s "$@"
"""
WRAPPER = r'''#!/usr/bin/python3
import os, stat, subprocess, sys
REAL, LOG = %r, %r
args = sys.argv[1:]
json_out = bool(args) and args[0] in %r and any(
    a in ("--json", "--fields") or a.startswith("--fields=") for a in args[1:])
def to_dev_full():
    # a write-error test (stdout /dev/full): the binary itself must meet
    # the error; nothing is written, so there is no line to keep
    try:
        st, full = os.fstat(1), os.stat("/dev/full")
    except OSError:
        return False
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == full.st_rdev
if not json_out or to_dev_full():
    os.execv(REAL, [REAL] + args)
p = subprocess.Popen([REAL] + args, stdout=subprocess.PIPE)
out = sys.stdout.buffer
with open(LOG, "ab") as log:
    for line in p.stdout:
        out.write(line)
        out.flush()
        log.write(args[0].encode() + b"\t" + line.rstrip(b"\n") + b"\n")
sys.exit(p.wait())
'''


def own_runs(run):
    """JSON runs of this test's own: options the suites may not combine."""
    with tempfile.NamedTemporaryFile("wb", suffix=".policy", delete=False) as f:
        f.write(b"profile ssrf\ndeny-host .evil.example\ndeny nested:ip_loopback\n")
        pol = f.name
    try:
        uris = b"\n".join([b"http://u:p@10.0.0.1:8080/", b"https://a.example/?next=http%3A%2F%2F127.0.0.1%2F",
                           b"http://www.evil.example/", b"https://b\xc3\xbccher.example/", b"%zz", b"",
                           b"mailto:a@b.example", b"http://[::ffff:127.0.0.1]/", b"x" * 9000]) + b"\n"
        run(["check", "--json"], uris)
        # the flags and the cut inputs of cli_test.py's lines that the
        # quick size's suites make nowhere else (measured on their lines)
        nested = b"&".join(b"p%d=//h%d.example/" % (i, i) for i in range(40))
        run(["check", "--json"], b"\n".join([
            b"http://a.example/?u=http:%2F%2Fa%22b%5C%0A%01%7F%C3%A9%FF/&%22n%0A=//h.example/",
            b"http://example.com/static/%2e%2e/%2e%2e/etc/passwd", b"http://example.com%2F10.0.0.1/",
            b"http://example.com/file%00.txt", b"ms-word:ofe|u|https://files.example/a.docx",
            b"http://example.com/%c0%ae%c0%ae/windows/win.ini", b'//exa"mple', b"#/\xff%\xe2",
            b"http://a.example/?" + nested]) + b"\n")
        run(["normalize", "--json"], b"HTTP://A/\n\xff\n" + b"z" * 9000 + b"\n")
        run(["resolve", "--json", "http://a/b/c/d;p?q"], b"\n../x\n\x00\na\rb\n" + b"x" * 9000 + b"\n")
        run(["check", "--json", "--explain", "--policy", pol], uris)
        run(["check", "--fields", "uri,explain,nested,host,port,nested_capped", "--explain"], uris)
        run(["check", "--json", "--base", "http://a/b/c/", "../../../x", "g?y#z", "http://a b"], b"")
        run(["extract", "--json", "--explain", "--profile", "mail"],
            b"see http://u@x.example/ <https://b\xc3\xbccher.example/> www.a.example "
            b"http://a.example/%zz\n")
        run(["resolve", "--json", "http://a/b/c", "g", "../../../x", "http://a b", "//h"], b"")
        run(["resolve", "--json", "rel"], b"g\n")
        run(["normalize", "--json", "HTTP://A/%7e", "http://a b", ""], b"")
        logs = ('1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET /a?b HTTP/1.1" 200 1 "-" "ua"\n'
                'junk\n').encode()
        run(["check", "--format", "combined", "--json", "--explain"], logs)
        for m in sorted(glob.glob(os.path.join(SRCDIR, "tests", "mail", "*.eml")))[:200]:
            with open(m, "rb") as f:
                run(["extract", "--mail", "--json", "--explain"], f.read())
    finally:
        os.unlink(pol)


def main():
    try:
        import jsonschema
    except ImportError:
        print("SKIP: python3-jsonschema is not installed (tools/install-deps.sh)")
        return 77
    with open(os.path.join(SRCDIR, "doc", "urisan-output.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validators = {c: jsonschema.Draft202012Validator({"$ref": "#/$defs/" + c,
                                                      "$defs": schema["$defs"]})
                  for c in COMMANDS}
    tmp = tempfile.mkdtemp(prefix="urisan-schema-")
    log = os.path.join(tmp, "json.log")
    keeper = os.path.join(tmp, "keep.py")
    with open(keeper, "w") as f:
        f.write(WRAPPER % (URISAN, log, COMMANDS))
    wrapper = os.path.join(tmp, "urisan")
    with open(wrapper, "w") as f:
        f.write(STAND_IN % (shlex.quote(keeper), shlex.quote(URISAN)))
    os.chmod(wrapper, stat.S_IRWXU)
    failed_suites = []
    kept = {}
    for s in SUITES if SAMPLE == 1 else QUICK_SUITES:
        path = os.path.join(SRCDIR, "tests", s)
        if not os.path.exists(path):
            failed_suites.append((s, "named here but not in tests/"))
            continue
        before = os.path.getsize(log) if os.path.exists(log) else 0
        extra = [SRCDIR] if s in WANTS_SRCDIR else []
        r = subprocess.run([sys.executable, path, wrapper] + extra, capture_output=True,
                           timeout=1800, env=dict(os.environ, URISAN_SRCDIR=SRCDIR))
        if r.returncode not in (0, 77):
            failed_suites.append((s, r.stdout.decode(errors="replace")[-1500:]))
        kept[s] = (os.path.getsize(log) if os.path.exists(log) else 0) - before
        if r.returncode == 0 and kept[s] == 0 and s not in NO_JSON:
            failed_suites.append((s, "passed, but no JSON line of it reached the stand-in"))

    def run(args, stdin):
        subprocess.run([wrapper] + args, input=stdin, capture_output=True, timeout=300)

    own_runs(run)
    bad = []
    n = {c: 0 for c in COMMANDS}
    shapes = set()
    validated = 0
    with open(log, "rb") as f:
        for i, raw in enumerate(f):
            cmd, _, line = raw.rstrip(b"\n").partition(b"\t")
            cmd = cmd.decode()
            n[cmd] += 1
            try:
                obj = json.loads(line)
            except ValueError as e:
                bad.append(f"{cmd}: not JSON ({e}): {line[:200]!r}")
                continue
            if SAMPLE > 1:
                shape = (cmd, frozenset(SHAPE.findall(line)))
                if shape in shapes and i % SAMPLE:
                    continue
                shapes.add(shape)
            validated += 1
            errs = sorted(validators[cmd].iter_errors(obj), key=lambda e: list(e.path))
            if errs:
                e = errs[0]
                bad.append(f"{cmd}: {e.message[:200]} at {list(e.path)}: {line[:300]!r}")
    for s, out in failed_suites:
        print(f"FAIL: {s} failed through the stand-in:\n{out}")
    seen = set()
    for b in bad:
        key = b.split(":", 2)[1][:120]
        if key not in seen:
            seen.add(key)
            print("FAIL", b)
    print("JSON bytes kept per suite: " + ", ".join(f"{k} {v}" for k, v in kept.items()))
    if SAMPLE > 1:
        print(f"--sample {SAMPLE}: {len(shapes)} shapes of line; validated {validated} of "
              f"{sum(n.values())} lines: one of each shape and every {SAMPLE}th")
    print(f"validated {validated} lines of {n}; {len(bad)} invalid")
    return 1 if bad or failed_suites or min(n.values()) == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
