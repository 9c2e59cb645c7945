#!/usr/bin/env python3
"""Hosts as a reader sees them (the host layer, src/host): the keys
host_unicode, host_skeleton, host_imitates, registrable_domain of
`check --json` and `extract --json`, and the flags homograph and
invisible_char, judged by the policy like the library's flags.

Usage: hostview_test.py URISAN. Exit 77 when built without hostview.
"""
import json
import subprocess
import sys

from testlib import run_tests

URISAN = sys.argv[1] if len(sys.argv) > 1 else "urisan"


def check(*uris, extra=()):
    r = subprocess.run([URISAN, "check", "--json", *extra, *uris], capture_output=True)
    assert r.returncode in (0, 1), r.stderr
    out = [json.loads(l) for l in r.stdout.decode().splitlines()]
    assert len(out) == len(uris)
    return out


def extract_mail(msg, extra=()):
    r = subprocess.run([URISAN, "extract", "--mail", "--json", *extra], input=msg,
                       capture_output=True)
    assert r.returncode in (0, 1), r.stderr
    return [json.loads(l) for l in r.stdout.decode().splitlines()], r


def test_a_label_is_shown_as_unicode_and_its_lookalike_named():
    (o,) = check("http://xn--pple-43d.com/login")
    assert o["host_unicode"] == "\u0430pple.com", o
    # no protected name under the default policy: none is named (a
    # skeleton read back as a name is no name anyone protects)
    assert o["host_imitates"] is None, o
    assert o["host_skeleton"] == "apple.corn", o     # an IDN: shown
    (m,) = check("http://xn--pple-43d.com/login", extra=("--profile", "mail"))
    assert m["host_imitates"] == "apple.com" and "homograph" in m["flags"], m
    assert o["registrable_domain"] == "xn--pple-43d.com", o
    assert "homograph" in o["flags"] and "idn" in o["flags"], o
    assert "homograph" in o["reasons"], o


def test_whole_script_cyrillic_label_is_a_homograph():
    (o,) = check("http://\u0455\u0441\u043e\u0440\u0435.com/")  # ѕсоре
    assert "homograph" in o["flags"], o
    assert o["host_imitates"] is None, o
    def protected(path):
        (p,) = check("http://\u0455\u0441\u043e\u0440\u0435.com/", extra=("--policy", path))
        assert "homograph" in p["flags"] and p["host_imitates"] == "scope.com", p
    with_policy("protect-host scope.com\n", protected)


def test_ordinary_idns_are_not_homographs():
    for o in check("http://xn--bcher-kva.de/", "http://b%C3%BCcher.de/",
                   "http://%D0%BF%D1%80%D0%B8%D0%BC%D0%B5%D1%80.%D1%80%D1%84/"):
        assert "homograph" not in o["flags"], o
        assert o["host_imitates"] is None, o
    (o,) = check("http://xn--bcher-kva.de/")
    assert o["host_unicode"] == "b\u00fccher.de", o


def test_ascii_hosts_get_registrable_domain_and_no_new_flags():
    (o, p, q) = check("http://www.bbc.co.uk/x", "https://a.b.example.com/", "http://[::1]/")
    assert o["registrable_domain"] == "bbc.co.uk", o
    assert o["host_unicode"] == "www.bbc.co.uk" and o["host_imitates"] is None, o
    assert o["flags"] == [], o
    assert p["registrable_domain"] == "example.com", p
    assert q["host_unicode"] is None and q["registrable_domain"] is None, q


def test_obfuscated_ipv4_is_no_name():
    (o,) = check("http://0x7f.1/")
    assert o["host_unicode"] is None and o["registrable_domain"] is None, o


def test_zero_width_space_in_host_is_invisible_char():
    (o,) = check("http://ex%E2%80%8Bample.com/", "http://exa%E2%80%AEmple.com/")[:1]
    assert "invisible_char" in o["flags"], o
    (o,) = check("http://exa%E2%80%AEmple.com/")   # RLO
    assert "invisible_char" in o["flags"], o
    (o,) = check("http://example.com/%E2%80%8B")    # in the path: not the host
    assert "invisible_char" not in o["flags"], o


def test_policy_can_deny_homograph():
    import os
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False) as f:
        f.write("deny homograph\n")
        path = f.name
    try:
        r = subprocess.run([URISAN, "check", "--policy", path, "http://xn--pple-43d.com/"],
                           capture_output=True)
        assert r.returncode == 1 and r.stdout.startswith(b"deny "), r
        r = subprocess.run([URISAN, "check", "--policy", path, "http://xn--bcher-kva.de/"],
                           capture_output=True)
        assert r.returncode == 0, r
    finally:
        os.unlink(path)


MAIL = (b"From: a@example.com\r\nTo: b@example.com\r\nSubject: x\r\n"
        b"MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        b"<a href=\"http://xn--pple-43d.com/\">apple</a>\r\n"
        b"<a href=\"https://bank.example/\">bank\xe2\x80\x8b.example</a>\r\n"
        b"<a href=\"https://shop.example.co.uk/\">shop</a>\r\n")


def test_every_address_of_a_mailto_link_is_judged():
    # RFC 6068: the message goes to every address; the host view keys
    # show the first address's domain, the flags are those of all
    first, second = check("mailto:a@example.com,b@xn--80ak6aa92e.com",
                          "mailto:b@xn--80ak6aa92e.com,a@example.com")
    for o in (first, second):
        assert "homograph" in o["flags"], o
    assert first["host_unicode"] == "example.com", first
    assert second["host_imitates"] is None, second     # no protected name
    (m,) = check("mailto:b@xn--80ak6aa92e.com,a@example.com", extra=("--profile", "mail"))
    assert m["host_imitates"] == "apple.com" and m["verdict"] == "deny", m
    r = subprocess.run([URISAN, "extract", "--json"],
                       input=b"write to <mailto:a@example.com,b@xn--80ak6aa92e.com>\n",
                       capture_output=True)
    (row,) = [json.loads(l) for l in r.stdout.decode().splitlines()]
    assert "homograph" in row["flags"], row


def test_extract_mail_rows_carry_the_host_view():
    rows, _ = extract_mail(MAIL, extra=("--profile", "mail"))
    by = {r["uri"]: r for r in rows}
    a = by["http://xn--pple-43d.com/"]
    assert "homograph" in a["flags"] and a["host_imitates"] == "apple.com", a
    assert a["verdict"] == "deny", a
    b = by["https://bank.example/"]
    assert "invisible_char" in b["flags"], b    # the link text has a ZWSP
    c = by["https://shop.example.co.uk/"]
    assert c["registrable_domain"] == "example.co.uk" and c["flags"] == [], c
    assert c["host_skeleton"] is None, c    # plain ASCII, no look-alike


def test_nested_hosts_are_judged_against_the_protected_names():
    """profile mail + deny nested:lookalike: a redirector to paypa1.com is
    denied, its nested URL listed with lookalike; one to paypal.com is not."""
    def run(path):
        bad, good = check("https://r.example/?next=https%3A%2F%2Fpaypa1.com%2F",
                          "https://r.example/?next=https%3A%2F%2Fwww.paypal.com%2F",
                          extra=("--policy", path))
        assert bad["verdict"] == "deny" and "nested_url" in bad["deny_reasons"], bad
        assert bad["nested"][0]["flags"] == ["lookalike"], bad
        assert good["verdict"] != "deny" and good["nested"][0]["flags"] == [], good
    with_policy("profile mail\ndeny nested:lookalike\n", run)


def with_policy(text, fn):
    import os
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        return fn(path)
    finally:
        os.unlink(path)


def test_issue18_reproducer_2_host_rules_match_the_uts46_form():
    """corpus/mail/issue18-entities-full-table.eml: entities decoded, then
    UTS #46 (zero-width space and word joiner ignored, mathematical e
    mapped): deny-host evil.com matches what the browser resolves."""
    import os
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "mail",
                          "issue18-entities-full-table.eml")
    with open(corpus, "rb") as f:
        msg = f.read()

    def run(path):
        return extract_mail(msg, extra=("--policy", path))
    rows, _ = with_policy("deny-host evil.com .evil.com fjord.com\n", run)
    by = {r["uri"]: r for r in rows}
    for uri in ("https://ev\u200bil.com/d", "https://ev\u2060il.com/c",
                "https://\U0001d556vil.com/b"):
        r = by[uri]
        assert "host_uts46" in r["flags"], r
        assert r["verdict"] == "deny" and "host_denied" in r["deny_reasons"], r
        assert r["host_unicode"] == "evil.com", r
    r = by["https://fjord.com/e"]          # &fjlig; is "fj": plain ASCII
    assert "host_denied" in r["deny_reasons"] and "host_uts46" not in r["flags"], r


def test_nested_rules_judge_the_host_of_a_nested_url():
    # `deny nested:homograph` judges the nested URL's host as the URI's own
    # (it had been a rule that never fired: nested hosts got no host view)
    nested = "https://r.example/?next=https%3A%2F%2Fxn--80ak6aa92e.com%2Flogin"
    mailto = "https://r.example/?to=mailto:b@xn--80ak6aa92e.com"
    plain = "https://r.example/?next=https%3A%2F%2Fexample.com%2F"

    def run(path):
        rows = check(nested, mailto, plain, extra=("--profile", "mail", "--policy", path))
        assert [r["verdict"] for r in rows] == ["deny", "deny", "flag"], rows
        assert rows[0]["deny_reasons"] == ["nested_url"], rows[0]
        # the list of nested URLs names the flag of the one that carries it
        assert rows[0]["nested"][0]["flags"] == ["idn", "homograph"], rows[0]["nested"]
        assert rows[1]["nested"][0]["flags"] == ["homograph"], rows[1]["nested"]
        assert rows[2]["nested"][0]["flags"] == [], rows[2]["nested"]
        text = ("see %s or %s\n" % (nested, plain)).encode()
        r = subprocess.run([URISAN, "extract", "--json", "--profile", "mail", "--policy", path],
                           input=text, capture_output=True)
        got = [json.loads(l)["verdict"] for l in r.stdout.decode().splitlines()]
        assert got == ["deny", "flag"], (got, r.stderr)
        return rows
    with_policy("deny nested:homograph\n", run)
    # without the rule the nested homograph is only what the profile says
    rows = check(nested, extra=("--profile", "mail"))
    assert rows[0]["verdict"] == "flag", rows[0]


def test_uts46_flag_only_for_ignored_or_mapped_code_points():
    cases = {
        "https://ev%E2%80%8Bil.com/": True,        # zero-width space, escaped
        "https://\uff45vil.com/": True,            # fullwidth e
        "https://pay\u00adpal.com/": True,         # soft hyphen
        "https://a\ufe0fb.com/": True,             # variation selector 16
        "https://a\u202eb.com/": True,             # bidi override
        "https://\ufb01le.com/": True,             # fi ligature
        "https://b\u00fccher.de/": False,          # an ordinary IDN
        "https://B\u00dcCHER.de/": False,          # only case differs
        "https://stra\u00dfe.de/": False,          # sharp s: kept (non-transitional)
        "https://xn--bcher-kva.de/": False,
        "https://example.com/": False,
    }
    out = check(*cases)
    for o, (uri, want) in zip(out, cases.items()):
        assert ("host_uts46" in o["flags"]) == want, (uri, o["flags"])


def test_check_host_rules_match_the_uts46_form_too():
    def run(path):
        r = subprocess.run([URISAN, "check", "--policy", path,
                            "https://\uff45vil.com/", "https://evil.com/", "https://good.com/"],
                           capture_output=True)
        return r.stdout.decode().splitlines()
    lines = with_policy("deny-host evil.com\n", run)
    assert "host_denied" in lines[0] and "host_uts46" in lines[0], lines
    assert lines[1].startswith("deny denied:host_denied"), lines
    assert lines[2].startswith("allow"), lines


def test_host_lists_meet_idn_escaped_and_nested_hosts_in_their_uts46_form():
    # these passed `deny-host` before: only a host UTS #46 maps beyond case
    # (host_uts46) was compared in its other form, never a plain IDN, a
    # percent-escaped host or a nested URL's host
    nested = "https://r.example/?url=" + "http%3A%2F%2F%EF%BD%85vil.com%2F"
    uris = ["https://b\u00fccher.de/", "https://b%C3%BCcher.de/x", "https://%65vil.com/",
            nested, "https://xn--bcher-kva.de/", "https://good.com/",
            "https://r.example/?url=https%3A%2F%2Fgood.com%2F"]

    def run(path):
        r = subprocess.run([URISAN, "check", "--policy", path] + uris, capture_output=True)
        return [l.split(" ")[0:2] for l in r.stdout.decode().splitlines()]
    got = with_policy("allow invalid non_ascii ambiguous_authority\n"
                      "deny-host evil.com xn--bcher-kva.de\n", run)
    want = [["deny", "denied:host_denied;flagged:idn"],
            ["deny", "denied:host_denied;flagged:idn"],
            ["deny", "denied:host_denied"],
            ["deny", "denied:nested_host_denied;flagged:nested_url"],
            ["deny", "denied:host_denied;flagged:idn"],
            ["allow", "-"],
            ["flag", "flagged:nested_url"]]
    assert got == want, got
    # allow-host: both forms must pass, so an IDN passes as its xn-- form only
    got = with_policy("allow invalid non_ascii ambiguous_authority\n"
                      "allow-host xn--bcher-kva.de\n", run)
    assert [g[0] for g in got[:2]] == ["deny", "deny"] and got[4][0] == "flag", got


def test_registrable_domain_follows_the_public_suffix_list():
    # the rules as the list states them: a wildcard (*.mm, *.kobe.jp), an
    # exception (!www.ck, !city.kobe.jp), an unlisted top-level label
    # (the implicit "*" rule: "m" is a public suffix, "1214.m" is not)
    got = check("http://x.mm/", "http://a.x.mm/", "http://www.ck/", "http://foo.ck/",
                "http://a.b.city.kobe.jp/", "http://a.foo.kobe.jp/", "http://1214.m/",
                "http://www.1214.m/")
    want = [None, "a.x.mm", "www.ck", None, "city.kobe.jp", "a.foo.kobe.jp", "1214.m",
            "1214.m"]
    assert [o["registrable_domain"] for o in got] == want, got
    # a name that ends in the root's dot, written as U+3002 or U+FF0E: that
    # of the name without it, the dot kept ("0.bg" is a public suffix)
    got = check("http://bkent.net\u3002/", "http://0.bg\uff0e/", "http://www.0.bg\u3002/")
    assert [o["registrable_domain"] for o in got] == ["bkent.net.", None, "www.0.bg."], got


def main():
    r = subprocess.run([URISAN, "check", "--json", "http://a.example/"], capture_output=True)
    if b"host_unicode" not in r.stdout:
        print("SKIP: urisan built without hostview (ICU, libidn2, libpsl)")
        return 77
    return run_tests(globals())


if __name__ == "__main__":
    sys.exit(main())
