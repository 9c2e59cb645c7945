#!/usr/bin/env python3
"""Handler schemes (doc/policy.md "Handler schemes"): every row of the
table `urisan policy show` prints, as a link in the text and in the HTML
of a message, is denied by `extract --mail --profile mail` with the flag
handler_scheme; `urisan check` reports it under the default policy and
the mail profile denies it in a nested URL too. The rates are printed.

Usage: handler_schemes_test.py path/to/urisan   (exit 77: built without mail)
"""
import json
import re
import subprocess
import sys

from testlib import check, failures

URISAN = sys.argv[1]


def run(args, stdin=b""):
    return subprocess.run([URISAN] + args, input=stdin, capture_output=True)


def table():
    out = run(["policy", "show"]).stdout.decode()
    return re.findall(r"(?m)^#   ([a-z][a-z0-9+.-]*) +\S", out)


def message(text, html):
    return ("From: a@example.org\nSubject: x\nMIME-Version: 1.0\n"
            "Content-Type: multipart/alternative; boundary=b\n\n"
            "--b\nContent-Type: text/plain; charset=utf-8\n\n%s\n"
            "--b\nContent-Type: text/html; charset=utf-8\n\n%s\n--b--\n" % (text, html)).encode()


# A link of each scheme as a message carries it: in text the form the
# linkifiers of mail clients link (scheme://...), in HTML the handler's
# own command form.
def forms(name):
    text = "%s://files.evil.example/invoice" % name
    if name.startswith("ms-") and name not in ("ms-msdt", "ms-settings", "ms-its", "ms-cxh",
                                                "ms-cxh-full", "ms-appinstaller", "ms-officecmd"):
        html = "%s:ofe|u|https://files.evil.example/invoice.docx" % name
    elif name == "mk":
        html = "mk:@MSITStore:\\\\files.evil.example\\share\\help.chm::/x.htm"
    elif name == "search-ms":
        html = "search-ms:query=invoice&crumb=location:\\\\files.evil.example\\share"
    else:
        html = "%s:https://files.evil.example/x" % name
    return text, html


def main():
    rows = table()
    if len(rows) < 30:
        print("FAIL: policy show lists %d handler schemes" % len(rows))
        return 1
    r = run(["extract", "--mail", "-"], message("x", "x"))
    if r.returncode == 2 and b"not available" in r.stderr:
        print("SKIP: urisan built without the 'mail' option")
        return 77
    text = "\n".join("see %s now" % forms(n)[0] for n in rows)
    html = "".join('<p><a href="%s">open</a></p>\n' % forms(n)[1] for n in rows)
    out = run(["extract", "--mail", "--json", "--profile", "mail", "-"], message(text, html))
    got = [json.loads(l) for l in out.stdout.decode().splitlines()]
    denied = {"text": set(), "html-href": set()}
    for g in got:
        scheme = g["uri"].split(":", 1)[0].lower()
        if g["context"] in denied and g["verdict"] == "deny" and "handler_scheme" in g["flags"]:
            denied[g["context"]].add(scheme)
    for ctx in ("text", "html-href"):
        missing = sorted(set(rows) - denied[ctx])
        print("handler schemes denied under mail in %s links: %d of %d" % (ctx, len(denied[ctx]),
                                                                          len(rows)))
        check(not missing, "%s: every handler row denied (missing %s)" % (ctx, missing))
    # the default policy reports them; the mail profile denies them nested
    urls = [forms(n)[1] for n in rows]
    out = run(["check", "--json"], "".join(u + "\n" for u in urls).encode())
    res = [json.loads(l) for l in out.stdout.decode().splitlines()]
    check(all("handler_scheme" in x["flags"] and "handler_scheme" in x["flag_reasons"]
              for x in res), "default policy: handler_scheme reported on every row")
    nested = ["https://r.example/?url=%s" % u.replace("&", "%26") for u in urls[:5]]
    out = run(["check", "--json", "--profile", "mail"], "".join(u + "\n" for u in nested).encode())
    res = [json.loads(l) for l in out.stdout.decode().splitlines()]
    check(all(x["verdict"] == "deny" for x in res), "mail: a nested handler link is denied %r"
          % [(x["uri"], x["deny_reasons"]) for x in res if x["verdict"] != "deny"])
    # web schemes are never handler schemes
    out = run(["check", "--json"], b"https://example.com/\nftp://example.com/\nmailto:a@b.example\n")
    check(all("handler_scheme" not in json.loads(l)["flags"] for l in out.stdout.splitlines()),
          "http, ftp, mailto: no handler_scheme")
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
