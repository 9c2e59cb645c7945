#!/usr/bin/env python3
"""Rewritten links read as the rewriting service decodes them: `urisan extract --mail`.

A mail gateway rewrites each link to pass through its own host (Microsoft
Safe Links, Proofpoint URL Defense v1/v2/v3, Barracuda Link Protection)
and sites wrap links in redirectors (Google's /url?q=). The links are
built here in each service's public format around destinations (a
loopback address, a javascript: link, an ordinary site), in text and
HTML parts and in an attachment; each must be judged as its destination
(`uri`), with the wrapper in `written` and the service in `rewriter`, and
the wrapper's host must not be held against it (a policy denying the
wrapper's host does not deny an ordinary destination).

Usage: mail_rewritten_test.py path/to/urisan   (exit 77: built without mail)
"""
import base64
import os
import sys
import tempfile
import urllib.parse

import testlib
from testlib import check, failures

URISAN = sys.argv[1]


def q(u):
    return urllib.parse.quote(u, safe="")


def proofpoint_v3(url):
    """Proofpoint v3: '%' '#' '&' replaced by '*', their bytes base64url."""
    repl, out = [], []
    for ch in url:
        if ch in "%#&":
            repl.append(ch)
            out.append("*")
        else:
            out.append(ch)
    enc = base64.urlsafe_b64encode("".join(repl).encode()).decode().rstrip("=")
    return "https://urldefense.com/v3/__%s__;%s!!G_uCfscf7eWS!abcdef$" % ("".join(out), enc)


WRAPPERS = {
    "safelinks": lambda u: "https://nam12.safelinks.protection.outlook.com/?url=%s&data=05%%7C01"
                           "%%7Cx%%40example.com&sdata=abc%%3D&reserved=0" % q(u),
    "proofpoint-v1": lambda u: "https://urldefense.proofpoint.com/v1/url?u=%s&k=abc%%3D%%0A" % q(u),
    "proofpoint-v2": lambda u: "https://urldefense.proofpoint.com/v2/url?u=%s&d=DwMFaQ&c=x&r=y"
                               % q(u).replace("%", "-").replace("/", "_"),
    "proofpoint-v3": proofpoint_v3,
    "barracuda": lambda u: "https://linkprotect.cudasvc.com/url?a=%s&c=E,1,abc&typo=1" % q(u),
    "google": lambda u: "https://www.google.com/url?q=%s&sa=D&source=editors" % q(u),
}

DESTS = [("http://127.0.0.1/admin?x=1&y=2#top", "deny"),
         ("javascript:alert(document.cookie)", "deny"),
         ("https://www.example.org/a/b?c=d", "allow")]


def message(links):
    html = "".join('<p><a href="%s">www.example.org</a></p>\n' % l.replace("&", "&amp;")
                   for l in links)
    return ("From: a@sender.example\r\nTo: b@receiver.example\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
            "Content-Type: multipart/mixed; boundary=RW\r\n\r\n"
            "--RW\r\nContent-Type: text/plain\r\n\r\n%s\r\n"
            "--RW\r\nContent-Type: text/html\r\n\r\n%s\r\n"
            "--RW\r\nContent-Type: application/octet-stream\r\n"
            "Content-Disposition: attachment; filename=go.url\r\n\r\n"
            "[InternetShortcut]\r\nURL=%s\r\n--RW--\r\n"
            % ("\r\n".join(links), html, links[0])).encode()


def rows(msg, args=()):
    rc, rs, err = testlib.extract_rows(URISAN, ["--mail", "--profile", "mail"] + list(args) +
                                       ["-"], msg)
    return rs


def test_each_service_each_destination_in_each_place():
    for svc, wrap in WRAPPERS.items():
        for dest, verdict in DESTS:
            w = wrap(dest)
            rs = rows(message([w]))
            for ctx in ("text", "html-href", "shortcut-url"):
                got = [r for r in rs if r["context"] == ctx]
                ok = any(r["uri"] == dest and r.get("rewriter") == svc and r.get("written") == w
                         and r["verdict"] == verdict for r in got)
                check(ok, "%s around %s in %s: judged as the destination, %s (got %s)" % (
                    svc, dest, ctx, verdict,
                    [(r["uri"], r.get("rewriter"), r["verdict"]) for r in got]))


def test_the_link_text_is_judged_against_the_destination():
    rs = rows(message([WRAPPERS["safelinks"]("https://evil.example/login")]))
    href = [r for r in rs if r["context"] == "html-href"]
    check(href and "link_text_mismatch" in href[0]["flags"],
          "text www.example.org over a Safe Link to evil.example: link_text_mismatch (%s)"
          % [r["flags"] for r in href])
    rs = rows(message([WRAPPERS["safelinks"]("https://www.example.org/x")]))
    href = [r for r in rs if r["context"] == "html-href"]
    check(href and "link_text_mismatch" not in href[0]["flags"],
          "the same text over a Safe Link to www.example.org: no mismatch")


def test_the_wrappers_host_is_not_held_against_the_link():
    with tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False) as f:
        f.write("deny-host .safelinks.protection.outlook.com .proofpoint.com\n")
        pol = f.name
    try:
        for svc in ("safelinks", "proofpoint-v2"):
            rs = rows(message([WRAPPERS[svc]("https://www.example.org/a")]), ["--policy", pol])
            check(rs and all(r["verdict"] == "allow" for r in rs),
                  "%s: a policy denying the wrapper's host allows an ordinary destination (%s)"
                  % (svc, [(r["context"], r["verdict"], r["reasons"]) for r in rs]))
    finally:
        os.unlink(pol)


def test_a_link_rewritten_twice_is_read_through():
    inner = WRAPPERS["proofpoint-v2"]("http://127.0.0.1/twice")
    rs = rows(message([WRAPPERS["safelinks"](inner)]))
    check(any(r["uri"] == "http://127.0.0.1/twice" and r.get("rewriter") == "safelinks"
              for r in rs), "Safe Links around Proofpoint: the innermost destination")


def test_lookalike_wrappers_are_not_read():
    for w in ("https://safelinks.protection.outlook.com.evil.example/?url=http%3A%2F%2F127.0.0.1%2F",
              "https://urldefense.proofpoint.com.evil.example/v2/url?u=http-3A__127.0.0.1_",
              "https://www.google.com/search?q=http://127.0.0.1/"):
        rs = rows(message([w]))
        check(all(r["uri"] != "http://127.0.0.1/" and "rewriter" not in r for r in rs),
              "%s: not a rewriting service" % w)


def main():
    rc, _, err = testlib.extract(URISAN, ["--mail", "-"], message(["x"]))
    if rc == 2 and b"not available" in err:
        print("SKIP: urisan built without the 'mail' option")
        return 77
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            fn()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all rewritten-link cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
