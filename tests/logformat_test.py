#!/usr/bin/env python3
"""logformat_test.py URISAN - `urisan check --format` (src/cli/logformat.c):
the URI each log format yields, gzip input, --tsv passthrough, the line
and lineno keys, one result per line, bad lines denied, errors."""
import gzip
import json
import os
import subprocess
import sys
import tempfile

from testlib import check, failures

URISAN = sys.argv[1]


def run(args, stdin=b""):
    return subprocess.run([URISAN, "check"] + args, input=stdin, capture_output=True)


SQUID = (b"1700000000.123    250 10.0.0.1 TCP_MISS/200 1234 GET http://example.com/a - HIER_DIRECT/1.2.3.4 text/html\n"
         b"1700000001.456      5 10.0.0.2 TCP_TUNNEL/200 0 CONNECT 127.0.0.1:22 - HIER_NONE/- -\n"
         b"1700000002.000  12345 10.0.0.3 TCP_MISS/200 99 GET http://u:p@169.254.169.254/x - HIER_DIRECT/1.2.3.4 text/plain\n"
         b"garbage\n"
         b"1700000003.000 1 10.0.0.4 TCP_MISS/200 1 GET http://b\xffad/ - HIER_NONE/- -\r\n")
COMBINED = (b'127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /a.gif?a=%0d%0a HTTP/1.0" 200 2326 "http://r/" "Mozilla/4.08 [en]"\n'
            b'10.1.1.1 - - [10/Oct/2000:13:55:36 -0700] "-" 400 0 "-" "-"\n'
            b'10.1.1.1 - - [10/Oct/2000:13:55:36 -0700] "GET http://x/ok HTTP/1.1" 200 0 "-" "-"\n')
ZEEK = (b"#separator \\x09\n#fields\tts\tuid\thost\turi\tstatus_code\n#types\ttime\tstring\tstring\tstring\tcount\n"
        b"1.0\tC1\texample.com\t/x/../../y\t200\n"
        b"2.0\tC2\t-\thttp://evil.example:8080/p\t200\n"
        b"3.0\tC3\tex.com\t-\t200\n#close\t2020\n")

tmp = tempfile.mkdtemp(prefix="urisan-logs-")
try:
    # squid: field 7 after padded fields; CONNECT judged as the authority
    # it names: https://host:port (no port flag for :443)
    r = run(["--format", "squid", "--json"], SQUID)
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    check(len(rows) == 5 and r.returncode == 1, "squid: one result per line, exit 1 (denied)")
    check([x["uri"] for x in rows[:3]] == ["http://example.com/a", "https://127.0.0.1:22",
                                           "http://u:p@169.254.169.254/x"], "squid: URI of field 7")
    check(rows[0]["verdict"] == "allow" and rows[2]["verdict"] == "deny", "squid: verdicts")
    check("ip_loopback" in rows[1]["flags"] and rows[1]["components"]["port"] == "22",
          "squid: CONNECT target's host and port are judged")
    check(rows[3]["uri"] is None and rows[3]["error"]["code"] == "bad_log_line"
          and rows[3]["verdict"] == "deny" and rows[3]["line"] == "garbage" and rows[3]["lineno"] == 4,
          "squid: a line without 7 fields is a denied bad_log_line, not skipped")
    check(rows[4]["lineno"] == 5 and rows[4]["line"].endswith("HIER_NONE/- -")
          and "non_ascii" in rows[4]["flags"], "squid: CRLF line, non-UTF-8 byte kept")
    check(all(x["line"] == l.rstrip(b"\r").decode("latin-1").replace("\xff", "\xff")
              for x, l in zip(rows[:4], SQUID.split(b"\n"))), "squid: line key is the whole log line")

    # gzip (by content) and several files, one after the other
    plain = os.path.join(tmp, "access.log")
    gz = os.path.join(tmp, "access.log.1.gz")
    with open(plain, "wb") as f:
        f.write(SQUID)
    with gzip.open(gz, "wb") as f:
        f.write(SQUID * 3)
    r = run(["--format", "squid", "--tsv", gz, plain])
    lines = r.stdout.split(b"\n")[:-1]
    check(len(lines) == 20, "gz + plain files: 15 + 5 results (%d)" % len(lines))
    check(lines[0] == b"allow\t-\t" + SQUID.split(b"\n")[0], "--tsv: verdict, reasons, the line byte for byte")
    check(lines[4].split(b"\t", 2)[2] == SQUID.split(b"\n")[4].rstrip(b"\r"), "--tsv: non-UTF-8 passthrough")
    check(lines[3].startswith(b"deny\tdenied:invalid\tgarbage"), "--tsv: a bad line is a deny")
    with open(gz, "rb") as f:
        r = run(["--format", "squid"], f.read())
    check(len(r.stdout.splitlines()) == 15, "gzip on standard input")
    broken = os.path.join(tmp, "broken.gz")
    with open(gz, "rb") as f:
        data = f.read()
    with open(broken, "wb") as f:
        f.write(data[:len(data) // 2])
    r = run(["--format", "squid", broken])
    check(r.returncode == 2 and b"broken.gz: the gzip data is cut short" in r.stderr and
          b"<fd:" not in r.stderr,
          "a truncated .gz is an error naming the file and why, not zlib's stream: %r"
          % r.stderr[-160:])

    # combined
    r = run(["--format", "combined", "--json"], COMBINED)
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    check([x["uri"] for x in rows] == ["/a.gif?a=%0d%0a", None, "http://x/ok"], "combined: the request line's URI")
    check("escaped_crlf" in rows[0]["flags"] and rows[1]["error"]["code"] == "bad_log_line",
          "combined: flags; a '-' request line is a bad line")
    # CONNECT host:443 is no nondefault or reserved port; :25 is
    r = run(["--format", "squid", "--json"],
            b"1700000000.000    100 10.0.0.1 TCP_TUNNEL/200 0 CONNECT api.github.com:443 - HIER_DIRECT/1.2.3.4 -\n"
            b"1700000000.000    100 10.0.0.1 TCP_TUNNEL/200 0 CONNECT evil.example:25 - HIER_DIRECT/1.2.3.4 -\n")
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    check(rows[0]["verdict"] == "allow" and rows[0]["flags"] == [] and
          rows[0]["components"]["host"] == "api.github.com" and rows[0]["components"]["port"] == "443",
          "squid: CONNECT host:443 judged as its host and port, no port flag: %r" % rows[0]["flags"])
    check("reserved_port" in rows[1]["flags"], "squid: CONNECT host:25 is a reserved port")
    # vhost_combined ("%v:%p" first) and --host: origin-form lines as full URLs
    VHOST = (b'www.example.com:443 1.2.3.4 - - [01/Jan/2024:00:00:00 +0000] "GET /index.html?a=1 HTTP/1.1" 200 5 "-" "ua"\n'
             b'shop.example:8080 1.2.3.4 - - [x] "GET /a HTTP/1.1" 200 5 "-" "ua"\n'
             b'1.2.3.4 - - [x] "GET /b HTTP/1.1" 200 5 "-" "ua"\n'
             b'1.2.3.4 - - [x] "GET http://abs.example/c HTTP/1.1" 200 5 "-" "ua"\n')
    r = run(["--format", "combined", "--json", "--profile", "ssrf"], VHOST)
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    check([x["uri"] for x in rows] == ["https://www.example.com/index.html?a=1",
                                       "http://shop.example:8080/a", "/b", "http://abs.example/c"],
          "vhost_combined: the vhost's name and port make the URL: %r" % [x["uri"] for x in rows])
    check(rows[0]["verdict"] == "allow", "vhost_combined: a normal page passes --profile ssrf")
    r = run(["--format", "combined", "--json", "--profile", "ssrf", "--host", "site.example",
             "--scheme", "https"], VHOST)
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    check([x["uri"] for x in rows] == ["https://site.example/index.html?a=1", "https://site.example/a",
                                       "https://site.example/b", "http://abs.example/c"],
          "--host/--scheme: origin-form lines judged as full URLs: %r" % [x["uri"] for x in rows])
    check([x["verdict"] for x in rows] == ["allow"] * 4, "--host: useful verdicts under ssrf")

    # zeek
    r = run(["--format", "zeek", "--json"], ZEEK)
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    check(len(rows) == 3, "zeek: # lines are headers, 3 records")
    check([x["uri"] for x in rows] == ["http://example.com/x/../../y", "http://evil.example:8080/p", None],
          "zeek: host + uri, absolute uri as is, unset uri a bad line")
    r = run(["--format", "zeek"], b"1.0\tC1\tx\t/\t200\n")
    check(b"no #fields header" in r.stdout and r.returncode == 1, "zeek: no header: bad line")

    # field:N
    r = run(["--format", "field:2", "--tsv"], b"a http://x/ c\none\n")
    check(r.stdout == b"allow\t-\ta http://x/ c\ndeny\tdenied:invalid\tone\n", "field:2")

    # a log line longer than the kept prefix: never judged on a cut URI
    long_line = b"1 2 3 4 5 GET http://x/" + b"a" * 100000 + b" - H/- -\n"
    r = run(["--format", "squid", "--json"], long_line + SQUID[:100])
    rows = [json.loads(l) for l in r.stdout.splitlines()]
    check(rows[0]["verdict"] == "deny" and "too_long" in rows[0]["flags"] and rows[0]["truncated"],
          "a cut URI is too_long and truncated")
    check(len(rows) == 2 and rows[1]["lineno"] == 2, "the next line follows")

    # usage errors
    for args, word in ((["--format", "apache"], b"unknown log format 'apache'"),
                       (["--format", "field:0"], b"field:0"),
                       (["--tsv"], b"--tsv needs --format"),
                       (["--format", "squid", "--tsv", "--json"], b"exclude each other"),
                       (["--format", "squid", "--host", "x"], b"'--host' needs --format combined"),
                       (["--format", "combined", "--host", "a/b"], b"--host 'a/b'"),
                       (["--format", "combined", "--scheme", "ftp"], b"--scheme 'ftp'")):
        r = run(args)
        check(r.returncode == 2 and word in r.stderr, "usage error %s" % args)
    r = run(["--format", "squid", os.path.join(tmp, "missing.log")])
    check(r.returncode == 2 and b"missing.log: No such file" in r.stderr, "missing file: exit 2, named")
finally:
    subprocess.run(["rm", "-rf", tmp])

sys.exit(1 if failures else 0)
