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
import json
import os
import subprocess
import sys

URISAN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
MAIL = os.path.join(HERE, "mail")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def extract(args, stdin=b""):
    p = subprocess.run([URISAN, "extract"] + args, input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def rows_of(args, stdin=b""):
    rc, out, err = extract(["--json"] + args, stdin)
    return rc, [json.loads(line) for line in out.decode("utf-8").splitlines()], err


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


def mail_built():
    rc, _, err = extract(["--mail", "-"], message([("text/plain", "x")]))
    return not (rc == 2 and b"not available" in err)


def main():
    if not mail_built():
        print("SKIP: urisan built without the 'mail' option")
        return 77
    test_iri_conversion()
    test_idn_set()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all mail link cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
