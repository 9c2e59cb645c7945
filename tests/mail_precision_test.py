#!/usr/bin/env python3
"""Legitimate mail read as its reader's client reads it: 0 denials.

Builds newsletters and ordinary mail in the styles that legitimate mail
uses (none copied from a corpus) and runs `urisan extract --mail --json
--profile mail` on them:

- HTML attribute values with a line break or spaces inside
  (href="http://a.example/cease-and-de\\n sist.html", a mailto: whose
  subject has spaces and a line break), leading and trailing white space,
  tabs: the link is the URL the browser opens (WHATWG URL: white space
  stripped and removed, spaces percent-encoded), `written` keeps the value;
- quote headers of plain-text replies ("[mailto:list-admin@x]On Behalf
  Of", "<mailto:...>"), code samples (a Perl "File::Spec", "Data::Dumper",
  an href="$PHP_SELF" in an HTML code sample), text links in brackets and
  sentences;
- marketing trackers and redirectors with long query strings, images,
  list-unsubscribe mailto: links with subjects.

Every message must get no deny, and each link listed must be found with
the URI the client opens. The count of messages and links is printed.
A host split over lines in an attribute is flagged (whitespace), not
invalid, and a relative link with no base is no_base, not invalid.

Usage: mail_precision_test.py path/to/urisan   (exit 77: built without mail)
"""
import json
import subprocess
import sys

from testlib import check, failures

URISAN = sys.argv[1]


def msg(parts, subject="News"):
    out = ["From: News <news@shop.example>", "To: reader@example.org",
           "Subject: %s" % subject, "MIME-Version: 1.0",
           "Content-Type: multipart/alternative; boundary=bb", ""]
    for ctype, body in parts:
        out += ["--bb", "Content-Type: %s; charset=utf-8" % ctype,
                "Content-Transfer-Encoding: 8bit", "", body]
    out.append("--bb--")
    return ("\n".join(out) + "\n").encode()


def scan(data):
    r = subprocess.run([URISAN, "extract", "--mail", "--json", "--profile", "mail", "-"],
                       input=data, capture_output=True)
    return [json.loads(l) for l in r.stdout.decode().splitlines()]


# (name, message, [URIs that must be found, as opened], {uri: flags wanted})
CASES = [
    ("href with a line break and a space inside",
     msg([("text/html", '<p><a href="http://www.mets-online.example/metsonline-ceaseandde\n'
           ' sist.html">read</a></p>')]),
     ["http://www.mets-online.example/metsonline-ceaseandde%20sist.html"], {}),
    ("mailto with a subject, spaces and a line break",
     msg([("text/html", '<a href="mailto:tony@penguin.example?subject=Penguin Shell - Donate Web \n'
           'Space">donate</a>')]),
     ["mailto:tony@penguin.example?subject=Penguin%20Shell%20-%20Donate%20Web%20Space"], {}),
    ("leading and trailing white space, tabs",
     msg([("text/html", '<a href="\n  https://shop.example/sale\t/shoes  ">shoes</a>'
           '<img src=" https://img.shop.example/a.png ">')]),
     ["https://shop.example/sale/shoes", "https://img.shop.example/a.png"], {}),
    ("quote header of a reply",
     msg([("text/plain", "-----Original Message-----\nFrom: list-admin@lists.example "
           "[mailto:list-admin@lists.example]On Behalf Of Tony\nSent: Monday\n"
           "Subject: RE: [ILUG] shell\n\n> see <mailto:help@lists.example> and "
           "(http://lists.example/faq) for more.\n")]),
     ["mailto:list-admin@lists.example", "mailto:help@lists.example",
      "http://lists.example/faq"], {}),
    ("code sample in text and HTML",
     msg([("text/plain", "use File::Spec;\nuse Data::Dumper;\nmy $p = File::Spec->catfile(...);\n"),
          ("text/html", '<pre>echo "&lt;form action=\\"$PHP_SELF\\"&gt;";</pre>'
           '<form action="$PHP_SELF"></form><a href="#top">top</a>'
           '<a href="page2.html">next</a>')]),
     [], {}),
    ("marketing trackers and redirectors",
     msg([("text/html", '<a href="https://click.mail.shop.example/?qs=3a1f9c0d2b7e'
           '&amp;utm_source=newsletter&amp;utm_medium=email&amp;utm_campaign=spring">Shop</a>'
           '<img src="https://open.mail.shop.example/o.gif?u=4f2a&amp;m=77" width="1" '
           'height="1"><a href="https://t.shop.example/r?url=https%3A%2F%2Fwww.shop.example'
           '%2Fspring">Spring</a>'),
          ("text/plain", "Shop: https://click.mail.shop.example/?qs=3a1f9c0d2b7e\n"
           "Unsubscribe: mailto:unsubscribe@shop.example?subject=unsubscribe\n")]),
     ["https://click.mail.shop.example/?qs=3a1f9c0d2b7e&utm_source=newsletter&utm_medium=email"
      "&utm_campaign=spring", "mailto:unsubscribe@shop.example?subject=unsubscribe"], {}),
    ("ftp. and www. names in text",
     msg([("text/plain", "Mirror at ftp.debian.example/debian/ or www.debian.example.\n")]),
     ["ftp://ftp.debian.example/debian/", "http://www.debian.example"], {}),
    ("a host split over two lines is flagged, opened joined",
     msg([("text/html", '<a href="https://www.shop\n.example/">shop</a>')]),
     ["https://www.shop.example/"], {"https://www.shop.example/": {"whitespace"}}),
    ("a relative link with no base goes nowhere",
     msg([("text/html", '<a href="$PHP_SELF?x=1 2">self</a>')]),
     [], {"$PHP_SELF?x=1%202": {"no_base"}}),
]


def main():
    r = subprocess.run([URISAN, "extract", "--mail", "-"], input=msg([("text/plain", "x")]),
                       capture_output=True)
    if r.returncode == 2 and b"not available" in r.stderr:
        print("SKIP: urisan built without the 'mail' option")
        return 77
    links = denied_msgs = 0
    for name, data, want, flags in CASES:
        rows = scan(data)
        links += len(rows)
        denied = [(x["uri"], x["deny_reasons"]) for x in rows if x["verdict"] == "deny"]
        denied_msgs += bool(denied)
        check(not denied, "%s: no deny %r" % (name, denied))
        uris = [x["uri"] for x in rows]
        for w in want:
            check(w in uris, "%s: %s found (got %r)" % (name, w, uris))
        for u, fl in flags.items():
            got = [set(x["flags"]) for x in rows if x["uri"] == u]
            check(got and fl <= got[0] and "invalid" not in got[0],
                  "%s: %s has %s, not invalid (%r)" % (name, u, sorted(fl), got))
        for x in rows:
            check(not x["uri"].lower().startswith("file:"),
                  "%s: no file: link from a module name (%s)" % (name, x["uri"]))
    print("legitimate messages: %d, links: %d, messages with a denied link: %d"
          % (len(CASES), links, denied_msgs))
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
