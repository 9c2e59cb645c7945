#!/usr/bin/env python3
"""The places HTML hides a link a reader's client opens: `urisan extract --mail`.

Messages built here, each link found with its context under --profile
mail:
- Outlook's conditional comments (`<!--[if mso]>...<![endif]-->`): their
  content read as HTML, VML included (`<v:roundrect href>`, `<v:fill
  src>`), relative links against the document's base; a plain comment
  stays unread;
- `<meta http-equiv=refresh>` (HTML's declarative refresh steps);
- `<iframe srcdoc>` as a document of its own (nested, and bounded);
- SVG `<set>`/`<animate>`/`<animateMotion>` setting href;
- `<object><param name=movie value=...>` and `<embed src>`;
- Content-Base and Content-Location as the base of relative links;
- `<base href>` read as browsers read it: backslashes, tabs, entities.

Usage: mail_html_places_test.py path/to/urisan   (exit 77: built without mail)
"""
import sys

import testlib
from testlib import check, failures

URISAN = sys.argv[1]


def html_message(html, headers="", part_headers=""):
    return ("From: a@sender.example\r\nTo: b@receiver.example\r\nSubject: x\r\n"
            "MIME-Version: 1.0\r\n%sContent-Type: text/html; charset=utf-8\r\n%s\r\n%s\r\n"
            % (headers, part_headers, html)).encode("utf-8")


def rows(msg):
    rc, rs, err = testlib.extract_rows(URISAN, ["--mail", "--profile", "mail", "-"], msg)
    return rs


def has(rs, uri, context, verdict=None):
    return any(r["uri"] == uri and r["context"] == context and
               (verdict is None or r["verdict"] == verdict) for r in rs)


def expect(rs, uri, context, verdict, what):
    check(has(rs, uri, context, verdict), "%s: %s as %s %s (got %s)" % (
        what, uri, context, verdict,
        [(r["uri"], r["context"], r["verdict"]) for r in rs]))


def test_conditional_comments_are_read_as_html():
    html = ('<html><head><base href="https://base.example/d/"></head><body>'
            '<!--[if mso]><v:roundrect xmlns:v="urn:schemas-microsoft-com:vml" '
            'href="http://127.0.0.1/mso" arcsize="10%"><v:fill type="tile" '
            'src="http://10.0.0.1/bg.png"/><center>Pay</center></v:roundrect>'
            '<a href="rel/x">r</a><![endif]-->'
            '<!--[IF gte mso 9]><a href="javascript:alert(1)">x</a><![endif]-->'
            '<!--[if !mso]><!--><a href="https://ok.example/">Pay</a><!--<![endif]-->'
            '<!-- a plain comment <a href="http://127.0.0.9/plain">no</a> -->'
            '</body></html>')
    rs = rows(html_message(html))
    expect(rs, "http://127.0.0.1/mso", "html-href", "deny", "VML roundrect href")
    expect(rs, "http://10.0.0.1/bg.png", "html-src", "flag", "VML fill src")
    expect(rs, "https://base.example/d/rel/x", "html-href", "allow",
           "a relative link in a conditional comment, against <base>")
    expect(rs, "javascript:alert(1)", "html-href", "deny", "[IF gte mso 9], any case")
    expect(rs, "https://ok.example/", "html-href", "allow", "downlevel-revealed link")
    check(not any(r["uri"] == "http://127.0.0.9/plain" for r in rs),
          "a plain comment is not read")
    off = [r["offset"] for r in rs if r["uri"] == "http://127.0.0.1/mso"]
    check(off and html_message(html)[:0] == b"" and
          html.encode()[off[0]:off[0] + 20] == b"http://127.0.0.1/mso",
          "offset of a link in a conditional comment is its place in the part (%s)" % off)


def test_conditional_comment_running_to_the_end():
    rs = rows(html_message('<p>x</p><!--[if mso]><a href="http://127.0.0.1/cut">x</a>'))
    expect(rs, "http://127.0.0.1/cut", "html-href", "deny",
           "an unterminated conditional comment runs to the end")


def test_meta_refresh():
    for content, uri in (("0;url=http://127.0.0.1/r", "http://127.0.0.1/r"),
                         ("0; URL='http://127.0.0.1/q'", "http://127.0.0.1/q"),
                         ("5 , url = http://127.0.0.1/s", "http://127.0.0.1/s"),
                         ("0;javascript:alert(3)", "javascript:alert(3)"),
                         ("1.5;http://127.0.0.1/t", "http://127.0.0.1/t")):
        rs = rows(html_message('<meta http-equiv="Refresh" content="%s">' % content))
        check(any(r["uri"] == uri and r["context"] == "meta-refresh" and r["verdict"] != "allow"
                  for r in rs), "refresh content %r: %s (%s)" % (content, uri,
                                                                 [r["uri"] for r in rs]))
    rs = rows(html_message('<meta http-equiv=refresh content="30">'
                           '<meta name=refresh content="0;url=http://127.0.0.1/n">'))
    check(not any(r["context"] == "meta-refresh" for r in rs),
          "a refresh without a URL, and a meta without http-equiv, give none")


def test_iframe_srcdoc_is_a_document_of_its_own():
    html = ('<iframe srcdoc="&lt;a href=&quot;http://127.0.0.2/sd&quot;&gt;x&lt;/a&gt;'
            '&lt;iframe srcdoc=&quot;&amp;lt;a href=http://127.0.0.3/sd2&amp;gt;y&quot;&gt;">'
            '</iframe>')
    rs = rows(html_message(html))
    expect(rs, "http://127.0.0.2/sd", "html-href", "deny", "srcdoc link")
    expect(rs, "http://127.0.0.3/sd2", "html-href", "deny", "srcdoc in srcdoc")
    # nested past the bound: a limit, told and denied
    inner = '<a href=http://127.0.0.4/deep>z</a>'
    for _ in range(5):
        inner = '<iframe srcdoc="%s"></iframe>' % inner.replace("&", "&amp;").replace('"', "&quot;")
    rs = rows(html_message(inner))
    check(any(r["context"] == "limit" and r["verdict"] == "deny" for r in rs),
          "srcdoc nested 5 deep: a limit row, denied")


def test_svg_animation_of_href():
    html = ('<svg><a><set attributeName="href" to="javascript:alert(1)"/>'
            '<animate attributeName="xlink:href" values="https://ok.example/;javascript:alert(2)"/>'
            '<animateMotion attributeName="href" from="http://127.0.0.1/f"/>'
            '<animate attributeName="fill" to="http://127.0.0.9/not-href"/>'
            '<text>x</text></a></svg>')
    rs = rows(html_message(html))
    expect(rs, "javascript:alert(1)", "svg-animate", "deny", "<set to>")
    expect(rs, "javascript:alert(2)", "svg-animate", "deny", "<animate values>, second")
    expect(rs, "https://ok.example/", "svg-animate", "allow", "<animate values>, first")
    expect(rs, "http://127.0.0.1/f", "svg-animate", "deny", "<animateMotion from>")
    check(not any(r["uri"] == "http://127.0.0.9/not-href" for r in rs),
          "an animation of another attribute is no link")


def test_object_param_and_embed():
    html = ('<object><param name="Movie" value="http://127.0.0.4/m.swf">'
            '<param name="quality" value="http://127.0.0.9/no"></object>'
            '<embed src="http://127.0.0.5/e">')
    rs = rows(html_message(html))
    expect(rs, "http://127.0.0.4/m.swf", "object-param", "deny", "<param name=movie>")
    expect(rs, "http://127.0.0.5/e", "html-src", "deny", "<embed src>")
    check(not any(r["uri"] == "http://127.0.0.9/no" for r in rs),
          "<param name=quality> is no link")


def test_content_base_and_content_location():
    rs = rows(html_message('<a href="x/y">a</a>', headers='Content-Base: "http://127.0.0.1/b/"\r\n'))
    expect(rs, "http://127.0.0.1/b/x/y", "html-href", "deny", "Content-Base (quoted)")
    rs = rows(html_message('<a href="x/y">a</a>',
                           part_headers="Content-Location: http://10.9.9.9/page.html\r\n"))
    expect(rs, "http://10.9.9.9/x/y", "html-href", "flag", "Content-Location")
    rs = rows(html_message('<base href="https://own.example/"><a href="x">a</a>',
                           headers="Content-Base: http://127.0.0.1/b/\r\n"))
    expect(rs, "https://own.example/x", "html-href", "allow", "<base href> over Content-Base")


def test_base_href_read_as_browsers_read_it():
    for base, what in (('http:\\\\127.0.0.1\\', "backslashes"),
                       ('ht&#9;tp://127.0.0.1/', "an entity TAB in the scheme"),
                       ('  http://127.0.0.1/&#10;', "white space around, a LF")):
        rs = rows(html_message('<base href="%s"><a href="x/y">a</a>' % base))
        expect(rs, "http://127.0.0.1/x/y", "html-href", "deny", "<base> with " + what)


def main():
    rc, _, err = testlib.extract(URISAN, ["--mail", "-"], html_message("<p>x</p>"))
    if rc == 2 and b"not available" in err:
        print("SKIP: urisan built without the 'mail' option")
        return 77
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            fn()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all HTML place cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
