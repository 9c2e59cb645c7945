#!/usr/bin/env python3
"""Hostile mail and HTML: the reproducers of the attack on the
mail path, each a regression test (tests/mail/hostile/, also in
corpus/mail/issue18-*).

usage: hostile_mail_test.py PATH/TO/urisan

Results are asserted, never time. Skips (exit 77) when urisan was built
without the 'mail' option.
"""
import json
import os
import subprocess
import sys

from testlib import check, failures

URISAN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
HOSTILE = os.path.join(HERE, "mail", "hostile")


def extract(path_or_bytes, extra=()):
    if isinstance(path_or_bytes, bytes):
        args, stdin = ["-"], path_or_bytes
    else:
        args, stdin = [path_or_bytes], b""
    p = subprocess.run([URISAN, "extract", "--mail", "--json"] + list(extra) + args,
                       input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rows = [json.loads(line) for line in p.stdout.decode("utf-8").splitlines()]
    return p.returncode, rows, p.stderr.decode("utf-8", "replace")


def html_msg(html):
    return ("MIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n" + html + "\n").encode()


def uris(rows):
    return [r.get("written", r["uri"]) for r in rows if r.get("uri") is not None]


# ---- 1. links a browser renders are missed -----------------------------

def test_comment_and_foreign_content():
    for name, want in [("comment-bang.eml", "https://evil.example/login"),
                       ("svg-title.eml", "https://evil2.example/"),
                       ("svg-style.eml", "https://evil3.example/")]:
        rc, rows, err = extract(os.path.join(HOSTILE, name))
        check(want in uris(rows), "%s: %s found, got %r (%s)" % (name, want, uris(rows), err))
    # the comment states of the standard, each way a comment ends or not
    cases = [
        ('<!--><a href="https://a1.example/">', ["https://a1.example/"]),
        ('<!---><a href="https://a2.example/">', ["https://a2.example/"]),
        ('<!-- --!-><a href="https://hidden.example/"> -->', []),
        ('<!-- <!-- nested --><a href="https://a3.example/">', ["https://a3.example/"]),
        ('<!--!><a href="https://hidden.example/">-->', []),
        ('<? <a href="https://hidden.example/"> ?><a href="https://a4.example/">', ["https://a4.example/"]),
        ('</3 <a href="https://hidden.example/">', []),
        ('</a title="<a href=https://hidden.example/>"><a href="https://a5.example/">',
         ["https://a5.example/"]),
        ('<![CDATA[<a href="https://hidden.example/">]]>', []),  # a bogus comment in HTML
        ('<![CDATA[ x ]]><a href="https://c1.example/">', ["https://c1.example/"]),
        ('<svg><![CDATA[<a href="https://hidden.example/">]]></svg>', []),
        ('<math><mtext><a href="https://m1.example/">x</a></mtext></math>', ["https://m1.example/"]),
        ('<svg><p><style><a href="https://hidden.example/"></style>', []),
        ('<svg><a xlink:href="https://x1.example/">x</a></svg>', ["https://x1.example/"]),
        ('<script><!--<script></script><a href="https://hidden.example/"></script>-->'
         '</script><a href="https://s1.example/">', ["https://s1.example/"]),
        ('<noscript><a href="https://n1.example/">x</a></noscript>', ["https://n1.example/"]),
        ('<form action="https://f1.example/"><form action="https://hidden.example/">'
         '<button formaction="https://f2.example/">', ["https://f1.example/", "https://f2.example/"]),
        ('<template><a href="https://t1.example/">x</a></template>', ["https://t1.example/"]),
    ]
    for html, want in cases:
        rc, rows, err = extract(html_msg(html))
        check(uris(rows) == want, "%r: want %r, got %r" % (html, want, uris(rows)))


# ---- 2. entities from the complete table --------------------------------

def test_entities_complete_table():
    rc, rows, err = extract(os.path.join(HOSTILE, "entities-full-table.eml"))
    check(uris(rows) == ["https://ev\u200bil.com/d", "https://ev\u2060il.com/c",
                         "https://\U0001d556vil.com/b", "https://fjord.com/e"],
          "entities decoded from the full table: %r" % uris(rows))
    cases = [
        ('<a href="https://x.example/?a=1&not=2">', "https://x.example/?a=1&not=2"),
        ('<a href="https://x.example/&notin;">', "https://x.example/\u2209"),
        ('<a href="https://x.example/&notit;">', "https://x.example/&notit;"),  # legacy before alnum
        ('<a href="https://x.example/&NotEqualTilde;">', "https://x.example/\u2242\u0338"),
        ('<a href="https://x.example/&ampx">', "https://x.example/&ampx"),
        ('<a href="https://x.example/&#x80;&#0;&#xD800;&#1114112;">',
         "https://x.example/\u20ac\ufffd\ufffd\ufffd"),
        ('<a href="https://x.example/\r\na\rb\x00">', "https://x.example/\na\nb\ufffd"),
    ]
    for html, want in cases:
        rc, rows, err = extract(html_msg(html))
        check(uris(rows) == [want], "%r: want %r, got %r" % (html, want, uris(rows)))


# ---- 3./4. bounded mail work ---------------------------------------------

def run_rss(data):
    """extract --mail on data: (exit, rows, max RSS of the child in KiB)."""
    import resource
    r = subprocess.run(["/usr/bin/env", "python3", "-c",
                        "import resource,subprocess,sys;"
                        "p=subprocess.run(sys.argv[1:],stdin=sys.stdin,stdout=subprocess.PIPE);"
                        "sys.stdout.buffer.write(p.stdout);"
                        "sys.stderr.write('RSS %d EXIT %d' % (resource.getrusage("
                        "resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode))",
                        URISAN, "extract", "--mail", "--json", "-"],
                       input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tail = r.stderr.decode().rsplit("RSS ", 1)[1].split()
    rows = [json.loads(line) for line in r.stdout.decode("utf-8").splitlines()]
    return int(tail[2]), rows, int(tail[0])


def limit_rows(rows):
    return [r["limit"] for r in rows if r["context"] == "limit"]


def test_limits():
    size = 3_500_000
    shapes = {
        # reproducer 3: one Content-Type with many parameters
        "params": b"From: a@b\nMIME-Version: 1.0\nContent-Type: text/plain; " +
                  b"; ".join([b"a=b"] * (size // 5)) + b"\n\nhttp://x.example/\n",
        # the same folded over lines of a normal size
        "params-folded": b"From: a@b\nMIME-Version: 1.0\nContent-Type: text/plain" +
                         b";\n a=b" * (size // 7) + b"\n\nhttp://x.example/\n",
        "headers": b"".join(b"X-H%d: v\n" % i for i in range(size // 12)) +
                   b"\nhttp://x.example/\n",
    }
    # reproducer 4: nesting, each level a new boundary
    deep = ["From: a@b\nMIME-Version: 1.0\n"]
    i = 0
    while sum(map(len, deep)) < size // 2:
        deep.append('Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (i, i))
        i += 1
    deep.append("Content-Type: text/plain\n\nhttp://x.example/\n")
    deep += ["--b%d--\n" % k for k in reversed(range(i))]
    shapes["depth"] = "".join(deep).encode()
    # nesting under the depth limit, then "--" lines: GMime compares each
    # with every enclosing boundary (17 MB/s before the limit "boundaries")
    dash = ["From: a@b\nMIME-Version: 1.0\n"]
    dash += ['Content-Type: multipart/mixed; boundary="boundary-%d"\n\n--boundary-%d\n' % (k, k)
             for k in range(63)]
    dash.append("Content-Type: text/plain\n\nhttp://x.example/\n")
    dash += ["--boundary-%d-not\n" % (k % 63) for k in range(size // 18)]
    dash += ["--boundary-%d--\n" % k for k in reversed(range(63))]
    shapes["dash-lines"] = "".join(dash).encode()
    # many fields in a part's head (GMime keeps each: 682 MB RSS for 16 MB)
    shapes["part-headers"] = (b"From: a@b\nMIME-Version: 1.0\n"
                              b"Content-Type: multipart/mixed; boundary=\"p\"\n\n--p\n" +
                              b"".join(b"X-P%d: v\n" % k for k in range(size // 12)) +
                              b"Content-Type: text/plain\n\nhttp://x.example/\n--p--\n")
    want = {"params": "header_size", "params-folded": "params", "headers": "headers",
            "depth": "depth", "dash-lines": "boundaries", "part-headers": "headers"}
    for name, data in shapes.items():
        rc, rows, rss = run_rss(data)
        check(rc == 1, "%s: exit 1 (mail_limit denied), got %d" % (name, rc))
        check(limit_rows(rows) == [want[name]], "%s: limit %s, got %r" % (name, want[name],
                                                                      limit_rows(rows)))
        check("http://x.example/" in uris(rows), "%s: the link is still found" % name)
        # the bound of doc/mail.md: a fixed overhead + a small multiple of the message
        check(rss < 64 * 1024 + 4 * len(data) // 1024,
              "%s: max RSS %d KiB for %d bytes" % (name, rss, len(data)))
    # a policy may accept the limits: then they are flagged, exit 0
    with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "mh-allow-limit.policy"), "w") as f:
        f.write("flag mail_limit\n")
        pol = f.name
    rc, rows, err = extract(shapes["params-folded"], ["--policy", pol])
    check(rc == 0 and rows[-1]["verdict"] == "flag", "flag mail_limit: exit 0, %d %r" %
          (rc, rows[-1:]))


def main():
    p = subprocess.run([URISAN, "extract", "--mail", "-"], input=b"x",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if b"meson option 'mail'" in p.stderr:
        print("SKIP: urisan built without the 'mail' option")
        return 77
    test_comment_and_foreign_content()
    test_entities_complete_table()
    test_limits()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all hostile mail cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
