#!/usr/bin/env python3
"""Deceptive hosts under the mail profile (doc/policy.md "Deceptive
hosts"): each signal alone is flagged, the combinations phishing shows
are denied, and legitimate mail in the same styles is never denied.

Builds messages (none copied from a corpus) and runs `urisan extract
--mail --json --profile mail` on them:

- phishing: a brand's name on a platform page (paypal-login.web.app), link
  text that names the brand's site over a link to a platform page or to
  a host that carries the brand's name, a look-alike brand on a platform;
- legitimate: a newsletter on its own hosting platform, shortened links,
  a shared document, a sub-brand's host, the brand's own sites and
  country domains, an article whose path names a site;
- a handful of single URLs through `urisan check`, `--explain` naming the
  deny-combined line, and the policy language's new lines with their
  errors (file:line:column, the word).

Prints the rates: phishing messages denied, legitimate messages denied.
Usage: deceptive_hosts_test.py path/to/urisan   (exit 77: built without mail)
"""
import json
import os
import subprocess
import sys
import tempfile

from testlib import check, failures

URISAN = sys.argv[1]


def msg(html, subject="Notice"):
    return ("From: Sender <news@sender.example>\nTo: reader@example.org\n"
            "Subject: %s\nMIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n%s\n"
            % (subject, html)).encode()


def a(href, text):
    return '<p><a href="%s">%s</a></p>' % (href, text)


PHISHING = [
    ("brand on a platform page", a("https://paypal-login.web.app/verify", "Verify your account")),
    ("brand in a storage bucket host", a("https://microsoft-365-login.blob.core.windows.net/o/i.html",
                                         "View document")),
    ("text names the brand, link to a platform", a("https://secure-update.pages.dev/",
                                                   "https://www.paypal.com/myaccount")),
    ("text names the brand, link to its name in another host",
     a("https://paypal.com.account-verify.example/", "www.paypal.com")),
    ("look-alike on a platform", a("https://paypa1.netlify.app/", "Log in")),
    ("text names a site, link to a SharePoint page", a("https://contoso-my.sharepoint.com/:b:/p/x",
                                                      "https://www.dhl.com/track")),
    ("text names a site, link to an IPFS gateway", a("https://ipfs.io/ipfs/bafybeigd/index.html",
                                                    "https://login.microsoftonline.com/")),
]

LEGITIMATE = [
    ("newsletter on its own platform", a("https://shopnews.netlify.app/issue-12", "Read issue 12")),
    ("shortened links", a("https://bit.ly/3xYzAbc", "Our sale") + a("https://t.co/AbCdEf", "tweet")),
    ("shared document and form", a("https://docs.google.com/document/d/1abc/edit", "Agenda") +
     a("https://forms.gle/AbCdEf123", "Sign up")),
    ("the brand's own sites", a("https://www.paypal.com/us/webapps/mpp/home", "PayPal") +
     a("https://www.paypal.de/", "https://www.paypal.de/")),
    ("a sub-brand's host", a("https://paypal-community.com/t5/forum", "Community")),
    ("a tracked link whose text is its own site", a("https://click.sender.example/r?u=1",
                                                   "Visit our shop")),
    ("an article whose path names a site", a("https://news.example/2026/paypal.com-outage", "story")),
    ("a platform page whose text is the same page",
     a("https://shopnews.netlify.app/", "https://shopnews.netlify.app/")),
]


def scan(data):
    r = subprocess.run([URISAN, "extract", "--mail", "--json", "--profile", "mail", "-"],
                       input=data, capture_output=True, timeout=60)
    return [json.loads(l) for l in r.stdout.decode().splitlines()]


def check_one(uri, *extra):
    r = subprocess.run([URISAN, "check", "--profile", "mail", "--json", *extra, uri],
                       capture_output=True, timeout=30)
    return json.loads(r.stdout.decode().splitlines()[0])


def main():
    probe = subprocess.run([URISAN, "extract", "--mail", "-"], input=b"", capture_output=True)
    if b"not built" in probe.stderr or b"without" in probe.stderr:
        print("skip: built without liburisan-mail")
        return 77
    denied = 0
    for name, html in PHISHING:
        rows = [r for r in scan(msg(html)) if r.get("uri")]
        worst = [r for r in rows if r["verdict"] == "deny"]
        denied += bool(worst)
        check(bool(worst), "phishing, %s: denied (%s)" %
              (name, [(r["uri"], r["verdict"], r["flags"]) for r in rows]))
    legit_denied = 0
    for name, html in LEGITIMATE:
        rows = [r for r in scan(msg(html)) if r.get("uri")]
        bad = [r for r in rows if r["verdict"] == "deny"]
        legit_denied += bool(bad)
        check(not bad and rows, "legitimate, %s: not denied (%s)" %
              (name, [(r["uri"], r["verdict"], r["flags"]) for r in rows]))
    print("phishing messages denied: %d of %d; legitimate messages denied: %d of %d"
          % (denied, len(PHISHING), legit_denied, len(LEGITIMATE)))

    # single URLs: each signal alone flags, names what it is
    for uri, flags, verdict in [
            ("https://mysite.netlify.app/", ["user_content"], "flag"),
            ("https://bit.ly/x", ["shortener"], "flag"),
            ("https://paypal.com.secure-login.example/", ["brand_misplaced"], "flag"),
            ("https://evil.example/paypal.com/login", ["brand_misplaced"], "flag"),
            ("https://paypal-login.web.app/", ["user_content", "brand_misplaced"], "deny"),
            ("https://www.paypal.com/", [], "allow"),
            ("https://paypal.de/", [], "allow"),
            ("https://orange.fr.example/", ["brand_misplaced"], "flag")]:
        o = check_one(uri)
        check(o["verdict"] == verdict and all(f in o["flags"] for f in flags) and
              (flags or not o["flags"]),
              "check %s: %s %s (%s %s)" % (uri, verdict, flags, o["verdict"], o["flags"]))
    # the default policy knows no list: none of the flags
    r = subprocess.run([URISAN, "check", "--json", "https://paypal-login.web.app/"],
                       capture_output=True, timeout=30)
    o = json.loads(r.stdout)
    check(not {"user_content", "brand_misplaced"} & set(o["flags"]),
          "default policy: no deceptive-host flag (%s)" % o["flags"])
    # --explain names the deny-combined line
    r = subprocess.run([URISAN, "check", "--profile", "mail", "--explain",
                        "https://paypal-login.web.app/"], capture_output=True, timeout=30)
    check(b"user_content=profile mail" in r.stdout and b"deny" in r.stdout,
          "--explain names the mail profile's deny-combined line (%r)" % r.stdout)

    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "p.policy")
        with open(p, "w") as f:
            f.write("user-content-host .example-pages.test\nshortener-host s.test\n"
                    "deny-combined shortener user_content nondefault_port\n")
        r = subprocess.run([URISAN, "check", "--policy", p, "--explain",
                            "https://a.example-pages.test:8443/", "https://s.test/x"],
                           capture_output=True, timeout=30)
        out = r.stdout.decode().splitlines()
        check(len(out) == 2 and out[0].startswith("flag ") and "user_content" in out[0] and
              out[1].startswith("flag flagged:shortener"),
              "a policy's own lists: the flags, no deny without every flag (%s)" % out)
        for text, want in [("deny-combined user_content\n", ":1:1: deny-combined takes two flags"),
                           ("deny-combined user_content bogus\n", ":1:28: unknown flag 'bogus'"),
                           ("deny-combined shortener shortener\n", "flag named twice"),
                           ("user-content-host a..b\n", ":1:19: empty label in host"),
                           ("shortener-host\n", "missing argument")]:
            with open(p, "w") as f:
                f.write(text)
            r = subprocess.run([URISAN, "policy", "check", p], capture_output=True, timeout=30)
            check(r.returncode != 0 and want in r.stderr.decode(),
                  "policy check %r: %r (%s)" % (text.strip(), want, r.stderr.decode().strip()))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
