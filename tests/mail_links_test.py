#!/usr/bin/env python3
"""Mail links as the reader sees them: `urisan extract --mail`.

- links written in Unicode (IRIs, RFC 3987) are judged as the URI a
  browser opens (host by UTS #46 to A-labels, the rest UTF-8
  percent-encoded), the text as written in the key "written": the set of
  tests/mail/idn/hosts.tsv (sources in tests/mail/idn/SOURCES.md), each
  in a text part and in an HTML part, none denied by --profile mail;
- every place an HTML part puts a URL a mail client loads or shows, with
  its context (tests/mail/places/*.eml);
- UNC paths in text are file: links.

Usage: mail_links_test.py path/to/urisan   (exit 77: built without mail)
"""
import os
import sys

import testlib
from testlib import check, failures

URISAN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
MAIL = os.path.join(HERE, "mail")


def extract(args, stdin=b""):
    return testlib.extract(URISAN, args, stdin)


def rows_of(args, stdin=b""):
    return testlib.extract_rows(URISAN, args, stdin)


def message(parts):
    """A multipart/mixed message of (content type, UTF-8 body) parts."""
    out = ["From: a@sender.example", "To: b@receiver.example", "Subject: links",
           "MIME-Version: 1.0", "Content-Type: multipart/mixed; boundary=BOUNDARY", ""]
    for ctype, body in parts:
        out += ["--BOUNDARY", "Content-Type: %s; charset=utf-8" % ctype,
                "Content-Transfer-Encoding: 8bit", "", body]
    out += ["--BOUNDARY--", ""]
    return "\n".join(out).encode("utf-8")


# ---- links written in Unicode -----------------------------------------

def idn_hosts():
    path = os.path.join(MAIL, "idn", "hosts.tsv")
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]


def idn_link(host):
    """https://HOST/LABEL?q=LABEL: a path and a query in the host's script."""
    labels = host.split(".")
    label = labels[1] if labels[0] == "nic" else labels[0]
    return "https://%s/%s?q=%s" % (host, label, label)


def test_idn_set():
    hosts = idn_hosts()
    scripts = {s for _, script, _ in hosts for s in script.split("+")}
    for want in ("Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Han", "Devanagari", "Thai"):
        check(want in scripts, "IDN set: script %s present" % want)
    check(len(hosts) >= 200, "IDN set: at least 200 hosts (%d)" % len(hosts))
    links = [idn_link(h) for h, _, _ in hosts]
    text = "\n".join("Visit %s today." % u for u in links)
    html = "".join('<p><a href="%s">%s</a></p>\n' % (u, u) for u in links)
    rc, rows, err = rows_of(["--mail", "--profile", "mail", "-"],
                            message([("text/plain", text), ("text/html", html)]))
    check(rc == 0, "IDN set: --profile mail denies none (exit %d)" % rc)
    for ctx in ("text", "html-href"):
        got = [r for r in rows if r["context"] == ctx]
        check(len(got) == len(links), "IDN set: %d %s hits (%d)" % (len(links), ctx, len(got)))
        for r, written in zip(got, links):
            what = "IDN %s %s" % (ctx, written)
            check(r.get("written") == written, what + ": written as in the message")
            check(r["verdict"] != "deny", what + ": not denied (%s)" % r["reasons"])
            check("invalid" not in r["flags"] and "idn" in r["flags"],
                  what + ": idn, never invalid (%s)" % r["flags"])
            check(all(ord(ch) < 128 for ch in r["uri"]), what + ": uri is ASCII " + r["uri"])
            host = written.split("/")[2]
            check(r["host_unicode"] == host, what + ": host_unicode " + str(r["host_unicode"]))


def test_iri_conversion():
    # the example of the report: a plain-text IDN link
    rc, rows, _ = rows_of(["--mail", "--profile", "mail", "-"],
                          message([("text/plain", "Menu at https://bücher.de/angebote")]))
    check(rc == 0 and len(rows) == 1, "bücher.de: one hit, not denied")
    r = rows[0]
    check(r["uri"] == "https://xn--bcher-kva.de/angebote", "bücher.de: A-label " + r["uri"])
    check(r["written"] == "https://bücher.de/angebote", "bücher.de: written kept")
    check(r["flags"] == ["idn"] and r["verdict"] == "flag", "bücher.de: idn only %s" % r["flags"])
    # userinfo, path, query, fragment: UTF-8 percent-encoding; upper case
    # and NFD input map as UTS #46 maps them
    cases = [
        ("https://user:pässword@bücher.de:8443/straße?q=grün#früh",
         "https://user:p%C3%A4ssword@xn--bcher-kva.de:8443/stra%C3%9Fe?q=gr%C3%BCn#fr%C3%BCh"),
        ("https://BÜCHER.de/", "https://xn--bcher-kva.de/"),
        ("https://bu\u0308cher.de/", "https://xn--bcher-kva.de/"),
        ("https://straße.de/", "https://xn--strae-oqa.de/"),
        ("https://example.com/日本語", "https://example.com/%E6%97%A5%E6%9C%AC%E8%AA%9E"),
        ("mailto:info@bücher.de", "mailto:info@b%C3%BCcher.de"),
    ]
    html = "".join('<a href="%s">x</a>\n' % w for w, _ in cases)
    rc, rows, _ = rows_of(["--mail", "-"], message([("text/html", html)]))
    got = {r.get("written"): r for r in rows}
    for written, uri in cases:
        r = got.get(written)
        check(r is not None and r["uri"] == uri,
              "IRI %s -> %s (%s)" % (written, uri, r and r["uri"]))
    # left as written, judged as written (fail closed): hidden characters,
    # hosts UTS #46 changes beyond case, invalid UTF-8
    kept = ["https://\uff45vil.com/", "https://bü\u200bcher.de/", "https://paypal.com/\u202egpj.exe",
            "https://b\u00fccher.de/\u0085"]
    html = "".join('<a href="%s">x</a>\n' % w for w in kept)
    rc, rows, _ = rows_of(["--mail", "-"], message([("text/html", html)]))
    check(len(rows) == len(kept), "kept: %d hits" % len(rows))
    for r in rows:
        check("written" not in r and "invalid" in r["flags"] and r["verdict"] == "deny",
              "kept as written and denied: %r %s" % (r["uri"], r["flags"]))
    # an ASCII link has no "written" key: rows as before
    rc, rows, _ = rows_of(["--mail", "-"], message([("text/plain", "see https://example.com/")]))
    check(len(rows) == 1 and "written" not in rows[0], "ASCII link: no written key")


def test_free_text_reads_as_the_mail_doors():
    """Free-text `extract` (no --mail) reads a link written in Unicode as the
    URI a browser opens, exactly as extract --mail and the milter do."""
    rc, rows, _ = rows_of(["--profile", "mail", "-"], "https://bücher.de/angebote\n".encode())
    check(rc == 0 and len(rows) == 1, "free text bücher.de: one hit, exit 0 (not denied): %d" % rc)
    if rows:
        r = rows[0]
        check(r["uri"] == "https://xn--bcher-kva.de/angebote" and r["flags"] == ["idn"] and
              r["verdict"] == "flag" and r.get("written") == "https://bücher.de/angebote",
              "free text bücher.de: flag idn, written kept: %r" % r)
    # the text output: flag, not deny
    rc, out, _ = extract(["--profile", "mail", "-"], "https://bücher.de/angebote\n".encode())
    check(rc == 0 and b"flag flagged:idn" in out and b"deny" not in out,
          "free text bücher.de (text output): %r" % out)
    # each IRI case gives the same uri, flags and verdict in free text as in a text part
    links = ["https://user:pässword@bücher.de:8443/straße?q=grün#früh", "https://BÜCHER.de/",
             "https://xn--pple-43d.com/", "https://аpple.com/", "https://\uff45vil.com/",
             "https://bü\u200bcher.de/", "mailto:info@bücher.de"]
    text = "".join(" %s \n" % l for l in links)
    _, free, _ = rows_of(["--profile", "mail", "-"], text.encode())
    _, mail, _ = rows_of(["--mail", "--profile", "mail", "-"], message([("text/plain", text)]))
    key = lambda r: (r["uri"], r.get("written"), r["flags"], r["verdict"])
    check([key(r) for r in free] == [key(r) for r in mail],
          "free text and --mail read the same: %r / %r" % ([key(r) for r in free],
                                                           [key(r) for r in mail]))

# ---- every place an HTML part puts a URL --------------------------------

# (HTML, [(context, uri), ...]): each place a mail client loads or shows a
# URL, alone in a document.
PLACES = [
    ('<a href="https://a.example/">x</a>', [("html-href", "https://a.example/")]),
    ('<link rel=stylesheet href="https://link.example/s.css">',
     [("html-href", "https://link.example/s.css")]),
    ('<area href="https://area.example/" ping="https://p1.example/ https://p2.example/">',
     [("html-href", "https://area.example/"), ("html-ping", "https://p1.example/"),
      ("html-ping", "https://p2.example/")]),
    ('<img src="https://img.example/a.png" srcset="https://s1.example/a.png 1x,'
     'https://s2.example/b.png 2x, https://s3.example/c,d.png 300w">',
     [("html-src", "https://img.example/a.png"), ("html-srcset", "https://s1.example/a.png"),
      ("html-srcset", "https://s2.example/b.png"), ("html-srcset", "https://s3.example/c,d.png")]),
    ('<picture><source srcset="https://src.example/x.webp"></picture>',
     [("html-srcset", "https://src.example/x.webp")]),
    ('<form action="https://form.example/"><button formaction="https://fa.example/">b</button></form>',
     [("html-action", "https://form.example/"), ("html-formaction", "https://fa.example/")]),
    ('<body background="https://body.example/bg.png">',
     [("html-background", "https://body.example/bg.png")]),
    ('<table background="https://table.example/"><tr background="https://tr.example/">'
     '<td background="https://td.example/">x</td><th background="https://th.example/">y</th>'
     '</tr></table>',
     [("html-background", "https://table.example/"), ("html-background", "https://tr.example/"),
      ("html-background", "https://td.example/"), ("html-background", "https://th.example/")]),
    ('<video poster="https://poster.example/p.jpg" src="https://vid.example/v.mp4"></video>',
     [("html-poster", "https://poster.example/p.jpg"), ("html-src", "https://vid.example/v.mp4")]),
    ('<object data="https://obj.example/o" codebase="https://cb.example/" '
     'classid="https://cls.example/" archive="https://ar1.example/a.jar https://ar2.example/b.jar">'
     '</object>',
     [("html-data", "https://obj.example/o"), ("html-codebase", "https://cb.example/"),
      ("html-classid", "https://cls.example/"), ("html-archive", "https://ar1.example/a.jar"),
      ("html-archive", "https://ar2.example/b.jar")]),
    ('<blockquote cite="https://cite.example/">q</blockquote>',
     [("html-cite", "https://cite.example/")]),
    ('<img longdesc="https://ld.example/" lowsrc="https://low.example/" dynsrc="https://dyn.example/">',
     [("html-longdesc", "https://ld.example/"), ("html-lowsrc", "https://low.example/"),
      ("html-dynsrc", "https://dyn.example/")]),
    ('<html manifest="https://man.example/m.appcache"><head profile="https://prof.example/">'
     '</head><body><div itemscope itemtype="https://schema.example/A https://schema.example/B">'
     '</div>',
     [("html-manifest", "https://man.example/m.appcache"), ("html-profile", "https://prof.example/"),
      ("html-itemtype", "https://schema.example/A"), ("html-itemtype", "https://schema.example/B")]),
    ('<iframe src="https://frame.example/"></iframe><embed src="https://embed.example/">'
     '<audio src="https://audio.example/a.mp3"></audio><track src="https://track.example/t.vtt">',
     [("html-src", "https://frame.example/"), ("html-src", "https://embed.example/"),
      ("html-src", "https://audio.example/a.mp3"), ("html-src", "https://track.example/t.vtt")]),
    ('<svg><image xlink:href="https://svg.example/i.png"/></svg>',
     [("html-href", "https://svg.example/i.png")]),
    # CSS: style attributes (entities decoded first) and <style>
    ('<p style="background:url(https://css1.example/a.png)">x</p>',
     [("css-url", "https://css1.example/a.png")]),
    ("<p style=\"background-image: URL( 'https://css2.example/b.png' )\">x</p>",
     [("css-url", "https://css2.example/b.png")]),
    ('<div style="background:u\\72l(https://css3.example/esc\\2e png)">x</div>',
     [("css-url", "https://css3.example/esc.png")]),
    ('<div style="background:url(https&#58;//css4.example/ent)">x</div>',
     [("css-url", "https://css4.example/ent")]),
    ('<div style="background-image:image-set(\'https://set1.example/a.png\' 1x, '
     'url(https://set2.example/b.png) 2x)">x</div>',
     [("css-url", "https://set1.example/a.png"), ("css-url", "https://set2.example/b.png")]),
    ('<style>@import "https://imp1.example/a.css"; @import url(https://imp2.example/b.css) print;'
     '@font-face { src: url("https://font.example/f.woff2") } '
     '/* url(https://commented.example/) */ td { background: url(https://style.example/x) }</style>',
     [("css-import", "https://imp1.example/a.css"), ("css-import", "https://imp2.example/b.css"),
      ("css-url", "https://font.example/f.woff2"), ("css-url", "https://style.example/x")]),
    ('<style>@\\69mport \'https://imp3.example/c.css\';</style>',
     [("css-import", "https://imp3.example/c.css")]),
    # the visible text, found as in a text part
    ('<p>copy this: https://roche.example/user/verify/abc</p>',
     [("html-text", "https://roche.example/user/verify/abc")]),
    ('<p>go to www.<b>visible</b>.example/login now</p>',
     [("html-text", "http://www.visible.example/login")]),
    ('<p>https&#58;//ent.example/x</p>', [("html-text", "https://ent.example/x")]),
    ('<div>one https://one.example/</div><div>two</div>',
     [("html-text", "https://one.example/")]),
    # not visible, or not loaded: nothing
    ('<!-- https://comment.example/ --><script>var u="https://script.example/"</script>'
     '<template><p>https://template.example/</p></template>'
     '<title>https://title.example/</title><textarea>https://ta.example/</textarea>'
     '<style>p { color: red } /* https://stylecomment.example/ */</style>', []),
    ('<div data="https://notobject.example/" background="https://notbody.example/">x</div>', []),
    # the text of a link is its display, not another link
    ('<a href="https://href.example/">https://shown.example/</a>',
     [("html-href", "https://href.example/")]),
    # <base href>: relative links resolve against it (the base itself is a hit)
    ('<base href="https://base.example/dir/"><a href="page?x=1">p</a>'
     '<img src="/img.png" srcset="a.png 1x"><p style="background:url(bg.png)">t</p>'
     '<a href="https://abs.example/">a</a>',
     [("html-href", "https://base.example/dir/"), ("html-href", "https://base.example/dir/page?x=1"),
      ("html-src", "https://base.example/img.png"), ("html-srcset", "https://base.example/dir/a.png"),
      ("css-url", "https://base.example/dir/bg.png"), ("html-href", "https://abs.example/")]),
]


def test_html_places():
    for html, want in PLACES:
        rc, rows, err = rows_of(["--mail", "-"], message([("text/html", html)]))
        got = [(r["context"], r["uri"]) for r in rows]
        check(got == want, "HTML places: %s\n   want %r\n    got %r" % (html, want, got))
    # each new context of a hit, with its offset inside the part
    rc, rows, _ = rows_of(["--mail", "-"],
                          message([("text/html", "<p>x</p>\n<p>see https://off.example/</p>")]))
    check(len(rows) == 1 and rows[0]["offset"] == 16,
          "html-text offset: where the URL is in the part (%r)" % rows)
    # a relative link after <base>: written keeps the link as written
    rc, rows, _ = rows_of(["--mail", "-"], message([(
        "text/html", '<base href="https://b.example/"><a href="x">x</a>')]))
    check(rows[1].get("written") == "x" and rows[1]["uri"] == "https://b.example/x",
          "base: written as written, uri resolved: %r" % rows[1])


# ---- UNC paths ----------------------------------------------------------

def test_unc():
    text = ("Open \\\\fileserver.evil.example\\share\\invoice.pdf, or "
            "(\\\\10.0.0.5\\c$\\x.txt). Not a\\\\b\\c, not \\\\only, "
            "\\\\bücher.example\\s\\y")
    rc, rows, _ = rows_of(["--mail", "-"], message([
        ("text/plain", text), ("text/html", "<p>see \\\\html.example\\share\\a.doc</p>")]))
    got = [(r["part"], r["context"], r["uri"], r.get("written")) for r in rows]
    want = [
        ("1", "text", "file://fileserver.evil.example/share/invoice.pdf",
         "\\\\fileserver.evil.example\\share\\invoice.pdf"),
        ("1", "text", "file://10.0.0.5/c$/x.txt", "\\\\10.0.0.5\\c$\\x.txt"),
        ("1", "text", "file://xn--bcher-kva.example/s/y", "\\\\bücher.example\\s\\y"),
        ("2", "html-text", "file://html.example/share/a.doc", "\\\\html.example\\share\\a.doc"),
    ]
    check(got == want, "UNC paths as file: links\n   want %r\n    got %r" % (want, got))
    by = {r["uri"]: r for r in rows}
    r = by.get("file://10.0.0.5/c$/x.txt")
    check(r is not None and "ip_private" in r["flags"] and r["offset"] == text.index("\\\\10"),
          "UNC host judged (ip_private), offset of the path: %r" % r)
    r = by.get("file://fileserver.evil.example/share/invoice.pdf")
    check(r is not None and r["registrable_domain"] == "evil.example" and r["verdict"] == "deny",
          "UNC host: registrable domain, file: denied by default: %r" % r)
    # a path that is not UTF-8 is not converted: kept as written, judged
    # as written (fail closed): invalid and denied, in host or path
    for raw in (b"\\\\h\\x\xac", b"\\\\h\xac\\x"):
        data = b"Subject: t\nContent-Type: text/plain; charset=utf-8\n\n" + raw + b"\n"
        rc, rows, _ = rows_of(["--mail", "-"], data)
        r = rows[0] if len(rows) == 1 else None
        check(r is not None and r.get("written") is not None and "invalid" in r["flags"]
              and r["verdict"] == "deny" and rc == 1,
              "UNC path not UTF-8 %r: invalid, denied: %r" % (raw, rows))


# ---- recall against an independent extraction ---------------------------

def independent_hosts(data):
    """The link hosts of a message as an independent extraction finds them
    (Python's email package and html.parser, regular expressions for URLs):
    the method of the public phishing-corpus comparison."""
    import email
    import email.policy
    import html.parser
    import re
    url = re.compile(r"(?:https?://|www\.)([A-Za-z0-9.-]+)")
    unc = re.compile(r"\\\\([A-Za-z0-9.-]+)\\")
    css = re.compile(r"url\(\s*['\"]?(?:https?://)([A-Za-z0-9.-]+)")
    hosts = set()

    def text_hosts(t):
        for m in url.finditer(t):
            hosts.add(m.group(1).lower().rstrip("."))
        for m in unc.finditer(t):
            hosts.add(m.group(1).lower())

    class P(html.parser.HTMLParser):
        skip = 0

        def handle_starttag(self, tag, attrs):
            if tag in ("script", "style", "template", "title"):
                self.skip += 1
            for _, v in attrs:
                if v:
                    text_hosts(v)
                    for m in css.finditer(v):
                        hosts.add(m.group(1).lower())

        def handle_endtag(self, tag):
            if tag in ("script", "style", "template", "title") and self.skip:
                self.skip -= 1

        def handle_data(self, d):
            if self.lasttag == "style":
                for m in css.finditer(d):
                    hosts.add(m.group(1).lower())
            elif not self.skip:
                text_hosts(d)

    msg = email.message_from_bytes(data, policy=email.policy.default)
    for part in msg.walk():
        if part.get_content_maintype() != "text":
            continue
        body = part.get_content()
        if part.get_content_subtype() == "html":
            P().feed(body)
        else:
            text_hosts(body)
    return hosts


def test_recall_of_the_missed_classes():
    """Each class the public-corpus comparison found missing (CSS, the
    visible text of HTML parts, background attributes; srcset, ping,
    poster, <object data>, UNC paths by hand) is reported now: every host
    the independent extraction finds is one of urisan's."""
    folder = os.path.join(MAIL, "recall")
    contexts = set()
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        rc, rows, _ = rows_of(["--mail", "-"], data)
        ours = set()
        for r in rows:
            if r["uri"] is None:
                continue
            contexts.add(r["context"])
            host = r.get("host_unicode") or ""
            if host:
                ours.add(host)
        theirs = independent_hosts(data)
        missed = sorted(theirs - ours)
        print("recall %s: %d of %d hosts" % (name, len(theirs) - len(missed), len(theirs)))
        check(not missed, "recall %s: missed %s" % (name, missed))
        check("commented.parcel.example" not in ours, "a comment's URL is not reported")
    for ctx in ("css-url", "css-import", "html-text", "html-background", "html-srcset",
                "html-ping", "html-poster", "html-data"):
        check(ctx in contexts, "recall: a %s hit" % ctx)


def mail_built():
    rc, _, err = extract(["--mail", "-"], message([("text/plain", "x")]))
    return not (rc == 2 and b"not available" in err)


def main():
    if not mail_built():
        print("SKIP: urisan built without the 'mail' option")
        return 77
    test_iri_conversion()
    test_free_text_reads_as_the_mail_doors()
    test_idn_set()
    test_html_places()
    test_unc()
    test_recall_of_the_missed_classes()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all mail link cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
