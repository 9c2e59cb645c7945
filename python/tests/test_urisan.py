"""The urisan Python module against the `urisan` command (same keys, same
values) and on its own: types, errors, policies, threads."""
import codecs
import json
import os
import subprocess
import threading
import time

import pytest

import urisan


def cli_text(b):
    """How the command's JSON writes bytes: UTF-8 kept, any other byte as
    the character of its value (\\u00XX)."""
    return b.decode("utf-8", "urisan-cli")


def _cli_errors(e):
    return ("".join(chr(x) for x in e.object[e.start:e.end]), e.end)


codecs.register_error("urisan-cli", _cli_errors)


def as_cli(v):
    """A module result with its strings written the command's way."""
    if isinstance(v, str):
        return cli_text(v.encode("utf-8", "surrogateescape"))
    if isinstance(v, dict):
        return {k: as_cli(x) for k, x in v.items()}
    if isinstance(v, list):
        return [as_cli(x) for x in v]
    return v


# The module decides through the host layer as the command does: the same
# flags (homograph, invisible_char, host_uts46 among them) and verdicts,
# and check() has the four host view keys too; extract() has not.
HOSTVIEW_KEYS = ("host_unicode", "host_skeleton", "host_imitates", "registrable_domain")


def without_hostview_keys(row):
    return {k: v for k, v in row.items() if k not in HOSTVIEW_KEYS}


def run(exe, args, stdin, keys=True):
    r = subprocess.run([exe] + args, input=stdin, capture_output=True, check=False)
    assert r.returncode in (0, 1), r.stderr
    rows = [json.loads(line) for line in r.stdout.decode("utf-8").splitlines()]
    return rows if keys else [without_hostview_keys(row) for row in rows]


def sample_urls(srcdir, limit=400):
    lines = []
    with open(os.path.join(srcdir, "examples", "urls.txt"), "rb") as f:
        lines += [l.rstrip(b"\r\n") for l in f]
    data = os.path.join(srcdir, "..", "shared", "data", "urls")
    if os.path.isdir(data):
        for name in sorted(os.listdir(data)):
            with open(os.path.join(data, name), "rb") as f:
                for i, l in enumerate(f):
                    if i >= limit:
                        break
                    lines.append(l.rstrip(b"\r\n"))
    # http://\u2460\u2461.example/ and http://\uff25x.example/: UTS #46 maps
    # their hosts (host_uts46, a flag of the host layer)
    lines += [b"\xff\xfe", b"http://\xc3\xa9.example/", b"http://[::1%25eth0]:99/",
              b"http://\xe2\x91\xa0\xe2\x91\xa1.example/", b"http://\xef\xbc\xa5x.example/",
              b"javascript:alert(1)", b"", b"http://a/%0d%0a", b"//x:99999"]
    return [l for l in lines if b"\n" not in l and b"\r" not in l]


def test_check_equals_cli_json(exe, srcdir):
    urls = sample_urls(srcdir)
    want = run(exe, ["check", "--json"], b"\n".join(urls) + b"\n")
    assert len(want) == len(urls)
    for u, w in zip(urls, want):
        got = urisan.check(u)
        assert list(got) == list(w), u            # same keys, same order
        assert as_cli(got) == w, u
        s = u.decode("utf-8", "surrogateescape")
        if s.encode("utf-8", "strict" if u.isascii() else "surrogateescape") == u:
            try:
                assert urisan.check(u.decode("utf-8")) == got   # str == bytes
            except UnicodeDecodeError:
                pass


def test_check_base_equals_cli_json(exe, srcdir):
    """check(ref, base=B) is `urisan check --json --base B` (urisan_check_base)."""
    base = "http://a/b/c/d;p?q"
    urls = sample_urls(srcdir, 200) + [b"../../../../etc/passwd", b"a%zz", b"//10.0.0.1/x",
                                       b"javascript:alert(1)", b"//u:p@h/"]
    want = run(exe, ["check", "--json", "--base", base], b"\n".join(urls) + b"\n")
    assert len(want) == len(urls)
    for u, w in zip(urls, want):
        got = urisan.check(u, base=base)
        assert list(got) == list(w), u
        assert as_cli(got) == w, u
    got = urisan.check("../../../../etc/passwd", base=base)
    assert got["resolved"] == "http://a/etc/passwd" and "dot_above_root" in got["flags"]
    got = urisan.check("x", base="relative")
    assert got["resolved"] is None and got["resolve_error"]["code"] == "base_not_absolute"
    assert got["verdict"] == "deny"
    assert urisan.check("x", base=None) == urisan.check("x")


def test_check_with_policy_file_equals_cli(exe, srcdir):
    path = os.path.join(srcdir, "examples", "policy.txt")
    pol = urisan.Policy.from_file(path)
    urls = sample_urls(srcdir, 100)
    want = run(exe, ["check", "--json", "--policy", path], b"\n".join(urls) + b"\n")
    for u, w in zip(urls, want):
        assert as_cli(urisan.check(u, policy=pol)) == w, u
        assert urisan.verdict(u, policy=pol) == w["verdict"]


def test_parse_and_analyse_are_prefixes_of_check():
    u = "http://u:p@127.0.0.1:8080/a/../b?q#f"
    c = urisan.check(u)
    p = urisan.parse(u)
    a = urisan.analyse(u)
    assert list(p) == ["uri", "valid", "error", "components"]
    assert list(a) == ["uri", "valid", "error", "components", "host_ip", "flags"]
    assert p == {k: c[k] for k in p}
    assert a == {k: c[k] for k in a}
    assert urisan.analyze(u) == a
    assert a["host_ip"] == "127.0.0.1" and "ip_loopback" in a["flags"]
    bad = urisan.parse("http://a b/")
    assert bad["valid"] is False and bad["error"]["code"] == "bad_host"
    assert bad["error"]["offset"] == 8


def test_policy_text_and_errors():
    pol = urisan.Policy("allow-scheme https\ndeny userinfo\n")
    assert urisan.check("http://x/", policy=pol)["reasons"] == ["scheme_not_allowed"]
    assert urisan.check("https://x/")["verdict"] == "allow"
    assert urisan.check(b"https://a@x/", policy=pol)["verdict"] == "deny"
    assert urisan.Policy(b"limit uri 100\n").limits()["max_uri"] == 100
    with pytest.raises(urisan.PolicyError) as ei:
        urisan.Policy("allow-scheme https\nfrobnicate yes\n", name="mine.policy")
    assert ei.value.line == 2 and ei.value.column == 1 and ei.value.word == "frobnicate"
    assert str(ei.value).startswith("mine.policy:2:1: ") and "'frobnicate'" in str(ei.value)
    assert isinstance(ei.value, urisan.Error) and isinstance(ei.value, ValueError)
    with pytest.raises(FileNotFoundError):
        urisan.Policy.from_file("/nonexistent/urisan.policy")
    # address rules (doc/policy.md "Address rules")
    pol = urisan.Policy("deny-ip 10.0.0.0/8\nallow-ip 192.168.1.0/24 10.0.0.0/8\n")
    got = urisan.check("http://[::ffff:a00:1]/", policy=pol)
    assert got["deny_reasons"] == ["ip_denied", "ip_not_allowed"], got
    assert urisan.check("http://0xc0.0xa8.1.1/", policy=pol)["deny_reasons"] == ["ip_obfuscated"]
    assert urisan.check("http://example.com/", policy=pol)["verdict"] == "allow"
    with pytest.raises(urisan.PolicyError) as ei:
        urisan.Policy("deny-ip 10.0.0.0/8\ndeny-ip 10.0.0.0/33\n")
    assert ei.value.line == 2 and ei.value.column == 9 and ei.value.word == "10.0.0.0/33"
    assert "invalid address range" in str(ei.value)
    with pytest.raises(TypeError):
        urisan.check("http://x/", policy="allow-scheme https")


def test_profiles_equal_cli(exe, srcdir):
    names = urisan.Policy.profiles()
    assert "proxy" in names and "ssrf" in names
    urls = sample_urls(srcdir, 60)
    for name in names:
        pol = urisan.Policy(profile=name)
        want = run(exe, ["check", "--json", "--profile", name], b"\n".join(urls) + b"\n")
        for u, w in zip(urls, want):
            assert as_cli(urisan.check(u, policy=pol)) == w, (name, u)
    path = os.path.join(srcdir, "examples", "policy.txt")
    pol = urisan.Policy.from_file(path, profile="ssrf")
    want = run(exe, ["check", "--json", "--profile", "ssrf", "--policy", path],
               b"\n".join(urls) + b"\n")
    for u, w in zip(urls, want):
        assert as_cli(urisan.check(u, policy=pol)) == w, u
    with pytest.raises(urisan.PolicyError) as ei:
        urisan.Policy(profile="nosuch")
    assert "unknown profile 'nosuch'" in str(ei.value)


def test_resolve_normalize_equivalent_equal_cli(exe):
    base = "http://a/b/c/d;p?q"
    refs = ["g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g#s", "..", "../g",
            "../..", "../../g", "../../../g", "/./g", "g.", "g..", "./../g", "g;x=1/../y"]
    r = subprocess.run([exe, "resolve", base] + refs, capture_output=True, text=True)
    assert r.stdout.splitlines() == [urisan.resolve(base, x) for x in refs]
    assert urisan.resolve(base, b"../g") == b"http://a/b/g"
    assert urisan.resolve(base, "../../../g", above_root="keep") == "http://a/../g"
    with pytest.raises(urisan.Error) as ei:
        urisan.resolve(base, "../../../g", above_root="reject")
    assert ei.value.code == "above_root" and ei.value.input == 1
    with pytest.raises(urisan.Error) as ei:
        urisan.resolve("relative/base", "g")
    assert ei.value.code == "base_not_absolute"
    with pytest.raises(ValueError):
        urisan.resolve(base, "g", above_root="sideways")
    assert urisan.resolve(base, "http:g", non_strict=True) == "http://a/b/c/g"
    for u in ["HTTP://Ex.COM:80/%7e/a/../b", "http://a/%41%2f", "HTTP://[::FFFF:1.2.3.4]:0080/"]:
        r = subprocess.run([exe, "normalize", u], capture_output=True, text=True)
        assert urisan.normalize(u) == r.stdout.rstrip("\n")
        assert urisan.normalize(u.encode()) == r.stdout.rstrip("\n").encode()
    assert urisan.equivalent("HTTP://Ex.COM:80", "http://ex.com/") is True
    assert urisan.equivalent(b"http://a/b", "http://a/c") is False
    with pytest.raises(urisan.Error) as ei:
        urisan.normalize("http://a b/")
    assert ei.value.code == "bad_host"


def test_long_results_grow_the_buffer():
    long_path = "/" + "a" * 5000
    assert urisan.normalize("http://x" + long_path) == "http://x" + long_path
    assert urisan.resolve("http://x/", long_path) == "http://x" + long_path
    assert urisan.equivalent("http://x" + long_path, "HTTP://X" + long_path)
    with pytest.raises(urisan.Error) as ei:
        urisan.normalize("http://x/" + "a" * 9000)
    assert ei.value.code == "too_long"


def test_extract_equals_cli(exe, srcdir):
    text = (b"see http://a.b/x and <mailto:x@y>, \"https://q.example/p?x=1\" or "
            b"www.example.org. URL:ftp://f/g and javascript:alert(1)\n" * 50)
    want = run(exe, ["extract", "--json"], text, keys=False)
    got = urisan.extract(text)
    assert [as_cli(h) for h in got] == want
    assert urisan.extract(text.decode()) == got
    assert len(got) > 64        # more than one batch of the C call


def test_types_and_bad_input():
    with pytest.raises(TypeError):
        urisan.check(42)
    with pytest.raises(TypeError):
        urisan.check(bytearray(b"http://x/"))
    with pytest.raises(UnicodeEncodeError):
        urisan.check("http://x/\udcff")          # a lone surrogate is no text
    assert urisan.check("")["valid"] is True
    nul = urisan.check(b"http://x/\x00y")
    assert "ctl_raw" in nul["flags"] and nul["length"] == 11
    big = urisan.check("http://x/" + "a" * 20000)
    assert big["verdict"] == "deny" and "too_long" in big["flags"]
    assert urisan.flag_names()[0] == "invalid" and "idn" in urisan.flag_names()
    assert urisan.__version__ == urisan.version()


def test_threads_agree_with_sequential(srcdir):
    urls = sample_urls(srcdir, 200)
    want = [urisan.check(u) for u in urls]
    out = [None] * 4

    def work(i):
        out[i] = [urisan.check(u) for u in urls]

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(o == want for o in out)


def gil_gap(text):
    """The longest stretch, as a share of one long C call in a thread,
    in which the main thread ran no Python code."""
    done = threading.Event()
    window = []

    def work():
        t0 = time.perf_counter()
        urisan.extract(text)
        window.extend((t0, time.perf_counter()))
        done.set()

    samples = []
    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        samples.append(time.perf_counter())
    t.join()
    t0, t1 = window
    inside = [t0] + [x for x in samples if t0 < x < t1] + [t1]
    return max(b - a for a, b in zip(inside, inside[1:])) / (t1 - t0)


def test_gil_is_released_during_the_c_call():
    # One long C call (extract over ~24 MB of text with a single URL).
    # Holding the GIL for it would keep the main thread out for the whole
    # call: one gap as long as the call. Released, the main thread runs all
    # along. Three tries: a busy machine may deschedule the main thread;
    # a held GIL fails every time.
    text = b"words, words and more words " * 900000 + b"http://example.com/"
    shares = []
    for _ in range(3):
        shares.append(gil_gap(text))
        if shares[-1] < 0.5:
            break
    assert min(shares) < 0.5, shares


def test_check_lists_nested_urls_as_cli(exe):
    # doc/output.md "nested": the first 16, in the library's order, and
    # nested_capped exactly when there were more; absent without nested_url
    many = "http://x/?" + "&".join("p%d=http://10.0.0.%d/" % (i, i) for i in range(17))
    cases = [many, "http://x/?a=http://127.0.0.1/&b=%2F%2Fe%22x",
             "http://x/?u=http%3A%2F%2Fa%3Fv%3Dhttp%253A%252F%252F169.254.169.254%252F",
             "http://x/?a=b"]
    want = run(exe, ["check", "--json", "--profile", "ssrf"],
               "\n".join(cases).encode() + b"\n")
    pol = urisan.Policy(profile="ssrf")
    for u, w in zip(cases, want):
        got = urisan.check(u, policy=pol)
        assert as_cli(got) == w, u
    got = urisan.check(many)
    assert len(got["nested"]) == 16 and got["nested_capped"] is True
    assert got["nested"][15] == {"name": "p15", "uri": "http://10.0.0.15/", "depth": 1,
                                 "flags": ["ip_literal", "ip_private"], "host_ip": "10.0.0.15"}
    assert "nested" not in urisan.check("http://x/?a=b")
    # u decoded once holds escapes that decode again: read once and twice
    # (doc/policy.md "Nested URLs"), each with its v
    assert [n["depth"] for n in urisan.check(cases[2], policy=pol)["nested"]] == [1, 2, 1, 2]


def mail_messages(srcdir):
    """tests/mail (and its hostile messages) and the mail corpus' IRI,
    HTML-place and UNC messages."""
    out = []
    for d in ("tests/mail", "tests/mail/hostile"):
        full = os.path.join(srcdir, d)
        out += sorted(os.path.join(full, f) for f in os.listdir(full) if f.endswith(".eml"))
    for f in ("iri-links.eml", "places-all.eml", "unc-paths.eml"):
        out.append(os.path.join(srcdir, "corpus", "mail", f))
    return out


def test_extract_mail_equals_cli(exe, srcdir):
    try:
        urisan.extract_mail(b"Subject: x\n\nhttp://a.example/\n")
    except NotImplementedError:
        pytest.skip("built without liburisan-mail")
    for path in mail_messages(srcdir):
        with open(path, "rb") as f:
            data = f.read()
        r = subprocess.run([exe, "extract", "--mail", "--json", path], capture_output=True,
                           check=False)
        want = [without_hostview_keys(json.loads(line))
                for line in r.stdout.decode("utf-8").splitlines()]
        got = urisan.extract_mail(data)
        assert [as_cli(h) for h in got] == want, path
        assert urisan.extract(data, mail=True) == got
        # the message's worst verdict decides the command's exit status
        assert r.returncode == (1 if any(h["verdict"] == "deny" for h in got) else 0), path
    with pytest.raises(ValueError):
        urisan.extract_mail(b"")


IMPERSONATION_MAIL = (b"From: a@example.com\r\nTo: b@example.com\r\nSubject: x\r\n"
                      b"Content-Type: text/plain\r\n\r\n"
                      b"see https://xn--80ak6aa92e.com/ and https://paypa1.com/x "
                      b"and https://www.example.com/\r\n")


def test_extract_mail_judges_impersonation_as_the_command(exe):
    """The mail profile's protected names: the same homograph and lookalike
    flags and verdicts as extract --mail --profile mail."""
    try:
        urisan.extract_mail(b"Subject: x\n\nhttp://a.example/\n")
    except NotImplementedError:
        pytest.skip("built without liburisan-mail")
    pol = urisan.Policy(profile="mail")
    got = urisan.extract_mail(IMPERSONATION_MAIL, policy=pol)
    r = subprocess.run([exe, "extract", "--mail", "--json", "--profile", "mail", "-"],
                       input=IMPERSONATION_MAIL, capture_output=True, check=False)
    want = [without_hostview_keys(json.loads(line)) for line in r.stdout.decode().splitlines()]
    assert [as_cli(h) for h in got] == want
    by = {h["uri"]: h for h in got}
    assert by["https://xn--80ak6aa92e.com/"]["verdict"] == "deny"
    assert "homograph" in by["https://xn--80ak6aa92e.com/"]["flags"]
    assert by["https://paypa1.com/x"]["flags"] == ["lookalike"]
    assert by["https://www.example.com/"]["flags"] == []
    c = urisan.check("https://paypa1.com/", policy=pol)
    assert c["host_imitates"] == "paypal.com" and c["host_skeleton"] == "paypal.corn"
    c = urisan.check("https://www.example.com/", policy=pol)
    assert c["host_imitates"] is None and c["host_skeleton"] is None


REQUEST_CASES = [
    # (host, target, method, request_reason)
    ("www.example.com?a=", "/hq2?u=http://169.254.169.254/latest/meta-data/", "GET",
     "bad_host_header"),
    ("www.example.com#", "/hq6/%2e%2e/%2e%2e/etc/passwd", "GET", "bad_host_header"),
    ("169.254.169.254,www.example.com", "/", "GET", "bad_host_header"),
    (["a.example", "b.example"], "/", "GET", "duplicate_header"),
    ("www.example.com", "http://169.254.169.254/", "GET", "host_mismatch"),
    ("www.example.com:443", "www.example.com:443", "CONNECT", "authority_form"),
    ("www.example.com", "*", "OPTIONS", "asterisk_form"),
    ("www.example.com", "/", "GE T", "bad_method"),
    ("www.example.com", "/a?b=c", "GET", None),
]


@pytest.mark.parametrize("host,target,method,why", REQUEST_CASES)
def test_check_request_rejects_the_part_or_checks_the_uri(host, target, method, why):
    if not hasattr(urisan, "check_request"):
        pytest.skip("built without the host layer")
    ssrf = urisan.Policy(profile="ssrf")
    r = urisan.check_request(scheme="http", host=host, target=target, method=method,
                             policy=ssrf)
    assert r["request_reason"] == why
    if why is not None:
        assert r["verdict"] == "deny" and r["deny_reasons"] == [why] and r["uri"] is None
    else:
        want = urisan.check("http://%s%s" % (host, target), policy=ssrf)
        assert {k: v for k, v in r.items() if k != "request_reason"} == want


def test_check_request_refuses_unknown_keywords_headers_and_trust():
    if not hasattr(urisan, "check_request"):
        pytest.skip("built without the host layer")
    with pytest.raises(TypeError, match="hots"):
        urisan.check_request(hots="a", target="/")
    with pytest.raises(ValueError, match="X-Bogus"):
        urisan.check_request(target="/", headers={"X-Bogus": "1"})
    with pytest.raises(ValueError, match="nope"):
        urisan.check_request(target="/", trust="nope")
    r = urisan.check_request(target="/x", trust="original-uri,target", host="h.example",
                             headers={"X-Original-URI": "/y", "X-Original-Host": "o.example"})
    assert r["uri"] == "http://o.example/y"


def test_extract_reads_a_unicode_link_as_the_uri_a_browser_opens(exe):
    """Free-text extract judges https://bücher.de/angebote as the URI a
    browser opens (idn, not invalid), written kept, as the command does."""
    pol = urisan.Policy(profile="mail")
    text = "Angebote: https://bücher.de/angebote\n"
    got = urisan.extract(text, policy=pol)
    r = subprocess.run([exe, "extract", "--json", "--profile", "mail", "-"],
                       input=text.encode(), capture_output=True, check=False)
    want = [json.loads(line) for line in r.stdout.decode().splitlines()]
    assert len(got) == 1 and len(want) == 1
    h = got[0]
    if "idn" not in want[0]["flags"]:
        pytest.skip("built without the host layer")
    assert h["uri"] == want[0]["uri"] == "https://xn--bcher-kva.de/angebote"
    assert h["written"] == want[0]["written"] == "https://bücher.de/angebote"
    assert h["flags"] == want[0]["flags"] == ["idn"]
    assert h["verdict"] == "flag"
