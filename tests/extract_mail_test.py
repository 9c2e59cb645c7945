#!/usr/bin/env python3
"""`urisan extract` end to end (urisan(1), EXTRACT): free text, and --mail on
the fixtures in tests/mail/ plus a 10 MB message generated here.

usage: extract_mail_test.py PATH/TO/urisan [--big-mib N]

--big-mib N: the generated message is N MiB instead (the quick size: 3,
each of its two parts still over 1 MiB).

Results are asserted, never time. The mail cases skip (with a message)
when the command was built without the 'mail' option.
"""
import base64
import json
import os
import quopri
import resource
import subprocess
import sys
import tempfile

import testlib
from testlib import check, failures

URISAN = sys.argv[1]
BIG_MIB = int(sys.argv[sys.argv.index("--big-mib") + 1]) if "--big-mib" in sys.argv else 10
HERE = os.path.dirname(os.path.abspath(__file__))
MAIL = os.path.join(HERE, "mail")


def run(args, stdin=b""):
    return testlib.extract(URISAN, args, stdin)


def hits(args, stdin=b""):
    return testlib.extract_rows(URISAN, args, stdin)


def uris(rows):
    return [r["uri"] for r in rows]


def by_uri(rows, uri):
    for r in rows:
        if r["uri"] == uri:
            return r
    return None


# ---- free text --------------------------------------------------------

APPENDIX_E = (b'   Yes, Jim, I found it under "http://www.w3.org/Addressing/",\n'
              b'   but you can probably pick it up from <ftp://ds.internic.\n'
              b'   net/rfc/>.  Note the warning in <http://www.ics.uci.edu/pub/\n'
              b'   ietf/uri/historical.html#WARNING>.\n')


def test_free_text():
    rc, rows, _ = hits(["-"], APPENDIX_E)
    check(rc == 0, "appendix E: exit 0")
    check(uris(rows) == ["http://www.w3.org/Addressing/", "ftp://ds.internic.net/rfc/",
                         "http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING"],
          "appendix E: exactly its three URIs, got %r" % uris(rows))
    for r in rows:
        check(r["part"] == 0 and r["context"] == "text" and r["display"] is None,
              "free text: part 0, context text, display null: %r" % r)
        check(APPENDIX_E[r["offset"]:r["offset"] + 4] in (b"http", b"ftp:"),
              "offset points at the URI: %r" % r)
    check(rows[1]["form"] == ["angle", "wrapped"], "wrapped form: %r" % rows[1]["form"])

    # From a file argument, same result; text output has one line per hit.
    with tempfile.NamedTemporaryFile(suffix=".txt") as f:
        f.write(APPENDIX_E)
        f.flush()
        rc, rows2, _ = hits([f.name])
        check(uris(rows2) == uris(rows), "file argument equals stdin")
        rc, out, _ = run([f.name])
        lines = out.decode().splitlines()
        check(len(lines) == 3 and lines[0].startswith("0 31 text allow - \"http://www.w3.org/"),
              "text output lines: %r" % lines[:1])

    rc, rows, _ = hits([], b"bad http://a.example/%zz and www.example.com.")
    check(rc == 1, "a denied hit exits 1 (got %d)" % rc)
    check(uris(rows) == ["http://a.example/%zz", "http://www.example.com"], "bare + www: %r" % uris(rows))
    check(rows[1]["form"] == ["abbreviated", "trimmed"], "www form: %r" % rows[1]["form"])

    # NUL, invalid UTF-8 and controls: one JSON line per hit, valid JSON.
    rc, rows, _ = hits([], b"\x00\xff http://a.example/\xff\xfe\x01 x")
    check(len(rows) == 1 and rows[0]["uri"] == "http://a.example/\u00ff\u00fe",
          "raw bytes are escaped: %r" % rows)

    rc, out, err = run(["/nonexistent/file"])
    check(rc == 2 and b"nonexistent" in err, "missing file: exit 2 with the path")
    rc, out, err = run(["a", "b"])
    check(rc == 2, "two files: usage error")


# ---- mail fixtures ----------------------------------------------------

def mail(name):
    return hits(["--mail", os.path.join(MAIL, name)])


def test_qp_soft_break():
    rc, rows, _ = mail("qp_soft_break.eml")
    check(uris(rows) == [
        "https://statements.example.com/download/2025/03/statement-0001.pdf?token=abc123&lang=en",
        "https://lists.example.com/unsub?id=42",
        "http://127.0.0.1:8080/pixel.gif"], "qp: soft breaks joined: %r" % uris(rows))
    check(all(r["part"] == "1" and r["context"] == "text" for r in rows), "qp: part 1, text")
    check("ip_loopback" in rows[2]["flags"], "qp: loopback pixel flagged")


def test_base64_html():
    rc, rows, _ = mail("base64_html.eml")
    got = [(r["context"], r["uri"], r["display"]) for r in rows]
    # the style sheet's url() is loaded by the client: reported (css-url)
    check(got == [
        ("css-url", "http://style.example/x.png", None),
        ("html-href", "https://cdn.example.com/s.css", None),
        ("html-href", "https://shop.example.com/offer?id=7&ref=mail", "See the offer"),
        ("html-src", "https://img.example.com/banner.png", None),
        ("html-src", "https://js.example.com/t.js", None)],
        "base64 html: links and CSS, not comments/script/title text: %r" % got)


def test_entities():
    rc, rows, _ = mail("entities.eml")
    u = uris(rows)
    check(u[:3] == ["http://evil.example/login?a=1&b=2", "https://decimal.example/",
                    "javascript:alert(document.cookie)"], "entities decoded: %r" % u[:3])
    check(by_uri(rows, "javascript:alert(document.cookie)")["verdict"] == "deny",
          "entity-spelled javascript: denied")
    # the tab is removed as the WHATWG URL parser removes it: the browser
    # opens javascript:alert(1); the tab inside the scheme is a flag
    tab = by_uri(rows, "javascript:alert(1)")
    check(tab is not None and tab.get("written") == "java\tscript:alert(1)" and
          "dangerous_scheme" in tab["flags"] and "whitespace" in tab["flags"] and
          "invalid" not in tab["flags"] and tab["verdict"] == "deny",
          "&#x09; inside the scheme: removed, whitespace flagged, denied %r" % tab)
    check("https://unquoted.example/a&b" in u, "unquoted attribute value")
    check("https://trimmed.example/" in u, "white space around the URL trimmed")
    check("?x=1&copy=2" in u, "legacy entity before '=' stays as written in attributes")
    check("https://upper.example/" in u and "https://second.example/" not in u,
          "upper-case tag; first of two href attributes wins")
    check(rc == 1, "entities: exit 1 (denied hits)")


def test_phish():
    rc, rows, _ = mail("phish.eml")
    mism = [(r["display"], r["uri"]) for r in rows if "link_text_mismatch" in r["flags"]]
    check(mism == [
        ("https://www.paypal.com/signin", "http://paypal.com.account-verify.example.net/signin"),
        ("paypal.com", "http://198.51.100.7/paypal/")],
        "mismatch exactly on the two disguised links: %r" % mism)
    first = rows[0]
    check(first["verdict"] in ("flag", "deny") and "link_text_mismatch" in first["reasons"],
          "mismatch is a reason of the verdict: %r" % first)
    check(len(rows) == 8, "phish: eight links, got %d" % len(rows))


def test_nested():
    rc, rows, _ = mail("nested_multipart.eml")
    got = [(r["part"], r["context"], r["uri"]) for r in rows]
    check(got == [
        ("1.1", "text", "https://alt-plain.example/a"),
        ("1.2", "html-href", "https://alt-html.example/a"),
        ("2", "limit", None),
        ("3.1", "text", "https://inner-plain.example/wrapped/path"),
        ("3.2", "html-href", "https://inner-html.example/f")],
        "nested: parts in order, preamble/epilogue unseen: %r" % got)
    # part 2 has a PNG signature and no PNG after it: the image reader
    # cannot read it, which is told (fail closed), naming the file; the
    # URL-like bytes inside it are no link
    lim = [r for r in rows if r["context"] == "limit"]
    check(len(lim) == 1 and lim[0]["limit"] == "reader" and "x.png" in lim[0]["limit_message"]
          and lim[0]["verdict"] == "deny",
          "nested: the image that is no image is a reader limit naming x.png: %r" % lim)


def test_charsets():
    rc, rows, _ = mail("charsets.eml")
    got = [(r["part"], r.get("written", r["uri"]), r["display"]) for r in rows]
    check(got == [
        ("1", "http://caf\u00e9.example/menu", None),
        ("1", "http://example.com/\u00fcber", None),
        ("2", "http://example.com/na\u00efve", "Caf\u00e9 \u2014 na\u00efve"),
        ("2", "http://example.com/q", None)],  # the visible text (html-text)
        "iso-8859-1 and windows-1252 converted to UTF-8: %r" % got)
    # written in Unicode: judged as the URI a browser opens (A-label host)
    check(rows[0]["uri"] == "http://xn--caf-dma.example/menu" and rows[0]["flags"] == ["idn"],
          "IRI host: A-label, flagged idn only: %r" % rows[0])


def test_empty_links():
    """Fuzz finding (corpus/mail/crash-empty-link-buffers.html): links
    whose URL and text are empty, before any buffer was allocated, were
    addressed as NULL + 0."""
    head = b"From: a@example.org\nMIME-Version: 1.0\nContent-Type: text/html\n\n"
    for body, want in ((b'<a href=""></a>', [("html-href", "", "")]),
                       (b'<img src="">', [("html-src", "", None)]),
                       (b'<a href="x"></a>', [("html-href", "x", "")])):
        rc, rows, err = hits(["--mail", "-"], head + body)
        check(rc == 0 and b"runtime error" not in err,
              "empty links: no undefined behaviour (%d): %r" % (rc, err[:300]))
        check([(r["context"], r["uri"], r["display"]) for r in rows] == want,
              "empty links reported as such: %r" % rows)


def test_deep_nesting():
    """Past GMime's nesting limit the parts are not parsed: the command
    fails closed - the raw message is scanned as part "raw", exit 2."""
    depth = 1100
    parts = ["From: a@example.org\nMIME-Version: 1.0\n"
             "Content-Type: multipart/mixed; boundary=b0\n\n"]
    for i in range(1, depth):
        parts.append("--b%d\nContent-Type: multipart/mixed; boundary=b%d\n\n" % (i - 1, i))
    parts.append("--b%d\nContent-Type: text/plain\n\nhttp://deep.example/\n" % (depth - 1))
    parts += ["--b%d--\n" % i for i in reversed(range(depth))]
    rc, rows, err = hits(["--mail", "-"], "".join(parts).encode())
    # a limit is a line of its own (flag mail_limit, denied by
    # the default policy: exit 1) and a warning
    check(rc == 1 and b"limit depth" in err, "deep nesting: exit 1 with a warning (%d)" % rc)
    check([(r["part"], r["uri"]) for r in rows] == [("raw", "http://deep.example/"), ("raw", None)],
          "deep nesting: the hidden link is still reported: %r" % rows)
    check(rows[-1]["context"] == "limit" and rows[-1]["limit"] == "depth" and
          rows[-1]["flags"] == ["mail_limit"] and rows[-1]["verdict"] == "deny",
          "deep nesting: the limit line: %r" % rows[-1:])
    # 300 levels: past the default depth limit (64) as well.
    rc, rows, _ = mail("../../corpus/mail/deep-nesting.eml") if os.path.exists(
        os.path.join(MAIL, "../../corpus/mail/deep-nesting.eml")) else (0, [], b"")
    if rows:
        check(rc == 1 and rows[-1]["limit"] == "depth", "300 levels: the depth limit %r" %
              rows[-1:])


# ---- a 10 MB message --------------------------------------------------

def big_message(path, target=(BIG_MIB << 20) + (1 << 19)):
    """multipart/mixed: a quoted-printable text part and a base64 HTML part,
    about target bytes; returns the expected hit counts."""
    text_lines, html_links = [], []
    n_text = n_html = n_mism = 0
    size = 0
    i = 0
    while size < target:
        text_lines.append("Line %d: statement at https://statements%d.example.com/download/%s?id=%d "
                          "(see it soon)." % (i, i, "d" * 40, i))
        n_text += 1
        if i % 100 == 0:
            html_links.append('<a href="https://evil.example/%d">bank%d.com</a><br>' % (i, i))
            n_mism += 1
        else:
            html_links.append('<a href="https://www.site%d.com/?a=1&amp;b=%d">site%d.com</a><br>'
                              % (i, i, i))
        n_html += 1
        size += len(text_lines[-1]) * 1.05 + len(html_links[-1]) * 1.37
        i += 1
    qp = quopri.encodestring(("\n".join(text_lines) + "\n").encode())
    b64 = base64.encodebytes(("<html><body>" + "\n".join(html_links) + "</body></html>").encode())
    with open(path, "wb") as f:
        f.write(b"From: a@example.org\nTo: b@example.org\nSubject: big\n"
                b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=BIG\n\n"
                b"--BIG\nContent-Type: text/plain; charset=utf-8\n"
                b"Content-Transfer-Encoding: quoted-printable\n\n")
        f.write(qp)
        f.write(b"\n--BIG\nContent-Type: text/html; charset=utf-8\n"
                b"Content-Transfer-Encoding: base64\n\n")
        f.write(b64)
        f.write(b"\n--BIG--\n")
    return n_text, n_html, n_mism


def test_big_message():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big.eml")
        n_text, n_html, n_mism = big_message(path)
        size = os.path.getsize(path)
        check(size >= BIG_MIB << 20, "big message is at least %d MiB (%d)" % (BIG_MIB, size))
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        p = subprocess.run([URISAN, "extract", "--mail", "--json", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        check(p.returncode in (0, 1), "big: exit %d: %s" % (p.returncode, p.stderr[:200]))
        lines = p.stdout.splitlines()
        text = html = mism = 0
        qp_ok = True
        for line in lines:
            r = json.loads(line)
            if r["context"] == "text":
                text += 1
                if not r["uri"].endswith("?id=%d" % (text - 1)):
                    qp_ok = False
            else:
                html += 1
                if "link_text_mismatch" in r["flags"]:
                    mism += 1
        check(text == n_text, "big: %d text hits, want %d" % (text, n_text))
        check(qp_ok, "big: every QP-wrapped URL whole")
        check(html == n_html, "big: %d html hits, want %d" % (html, n_html))
        check(mism == n_mism, "big: %d mismatches, want %d" % (mism, n_mism))
        # Bounded memory: a small multiple of the message (generous for
        # sanitizer builds, whose shadow memory counts too).
        if rss_kib > before:
            check(rss_kib * 1024 < 60 * size + (512 << 20),
                  "big: peak RSS %d KiB for a %d-byte message" % (rss_kib, size))
        print("big message: %d bytes, %d hits, peak RSS %d KiB" % (size, len(lines), rss_kib))


# Tree construction: what parse5 and the HTML standard put in
# the document, per corpus/mail/issue18-tree-*.eml. Each was a difference
# of the html5_diff test before the tree-construction emulation
# (src/mail/html_tree.c); the CDATA pair is where parse5 8 and the
# standard differ (doc/extract.md): urisan follows the standard.
TREE_CASES = {
    "select-template": ["href=https://t1.example/", "href=https://t2.example/"],
    "table-head": ["href=https://cell.example/"],
    "template-tr": [],
    "template-head": ["href=https://after.example/"],
    "frameset-body": ["src=https://frame.example/"],
    "frameset-html-attr": ["href=https://html.example/", "src=https://frame.example/"],
    "cdata-foreignobject": [],
    "cdata-desc-spec": ["href=https://after-cdata.example/"],
    "svg-title-select": [],
    "aaa-svg-desc": [],
    "doctype-table-p": ["href=https://noquirks.example/"],
}


def test_tree_construction():
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "mail")
    for name, want in sorted(TREE_CASES.items()):
        with open(os.path.join(corpus, "issue18-tree-%s.eml" % name), "rb") as f:
            rc, rows, err = hits(["--mail", "-"], f.read())
        got = sorted("%s=%s" % (r["context"][5:], r["uri"]) for r in rows
                     if r["uri"] is not None and r["context"].startswith("html-"))
        check(rc in (0, 1) and got == want, "tree %s: %r, want %r (%r)" % (name, got, want, err[:200]))


def test_header_urls():
    """URLs in the Subject and other text header fields, RFC 2047
    encoded-words decoded, context "header" and the field's name."""
    rc, rows, err = hits(["--mail", os.path.join(MAIL, "header_urls.eml")])
    got = [(r["part"], r["context"], r.get("header"), r["uri"]) for r in rows]
    check(got == [("HEADER", "header", "From", "http://www.bank.example"),
                  ("HEADER", "header", "Subject", "https://evil.example/login"),
                  ("HEADER", "header", "Comments", "http://xn--pple-43d.com/"),
                  ("HEADER", "header", "Thread-Topic", "http://topic.example/"),
                  ("HEADER", "header", "List-Unsubscribe", "https://list.example/unsub?u=1"),
                  ("HEADER", "header", "List-Unsubscribe", "mailto:unsub@list.example"),
                  ("1", "text", None, "http://body.example/"),
                  ("2.HEADER", "header", "Subject", "javascript:alert(1)")],
          "header URLs: %r (%s)" % (got, err[:200]))
    # offsets into the decoded value; the verdicts are the policy's
    r = by_uri(rows, "https://evil.example/login")
    check(r is not None and (r["offset"], r["length"]) == (6, 26), "Subject offset: %r" % r)
    r = by_uri(rows, "javascript:alert(1)")
    check(r is not None and r["verdict"] == "deny" and rc == 1,
          "an encoded javascript: Subject of an attached message is denied: %r %d" % (r, rc))
    check(all("header" not in r for r in rows if r["context"] != "header"),
          "the header key only on header rows")
    # text output: the field's name ends the line
    rc2, out, err2 = run(["--mail", os.path.join(MAIL, "header_urls.eml")])
    lines = out.decode("utf-8").splitlines()
    check(lines[1] == 'HEADER 6 header allow - "https://evil.example/login" "Subject"',
          "text output of a header hit: %r" % lines[1:2])


def mail_built():
    rc, out, err = run(["--mail", os.path.join(MAIL, "qp_soft_break.eml")])
    if rc == 2 and b"not available" in err:
        return False
    return True


def main():
    test_free_text()
    if mail_built():
        test_qp_soft_break()
        test_base64_html()
        test_entities()
        test_phish()
        test_nested()
        test_charsets()
        test_empty_links()
        test_deep_nesting()
        test_tree_construction()
        test_header_urls()
        test_big_message()
    else:
        rc, out, err = run(["--mail", "-"], b"x")
        check(rc == 2 and b"meson option 'mail'" in err, "--mail without GMime: clear error, exit 2")
        print("SKIP: mail cases (urisan built without the 'mail' option)")
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all extract cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
