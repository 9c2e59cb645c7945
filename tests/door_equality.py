#!/usr/bin/env python3
"""One URI, one verdict through every door.

The same inputs, under each profile and under the mail profile plus a
policy denying homograph, invisible_char and host_uts46 (of the URI and
of its nested URLs: `deny nested:homograph` ...), through every
door urisan has; `urisan check --json` is the reference:

  - python   the Python module's check(): check's whole object, key for
             key and value for value, in the same key order (a dict
             keeps order; its text is str, bytes that are no UTF-8
             surrogate-escaped, doc/python.md: compared as the command
             writes them, \\u00XX);
  - lua-5.1, lua-5.3  the Lua module's check() table in LuaJIT and Lua 5.3
             (lua/tests/door_lua.py): check's whole object in the Lua form
             doc/lua.md promises (null is urisan.null, arrays sequences,
             integers, the bytes), key for key and value for value (a
             table keeps no order); rspamd, its check_link on the text
             rspamd hands it (the host in Unicode), the same and
             `written`, the text, where the link was converted;
  - c        the C API (tests/doors/door_c.c: urisan_judge): the verdict
             and flags - all a urisan_judgement hands its caller (a C
             caller reads the other keys through urisan_result_value, the
             writer every other door walks);
  - extract  `urisan extract --json` on the inputs written "<URL>": each
             link found whole has check's value for every key the two
             share (EXTRACT_SHARED: uri, length, the decision - flags,
             verdict, the reasons - and the host view's keys), the
             decision and host view keys in check's order. The others
             differ by design: part, offset, context, display and form
             say where and how the text holds the link (extract's own);
             valid, error, components, host_ip, truncated, nested and
             nested_capped are the parse and analysis of one URI that a
             link's line leaves to `check`;
  - squid    `urisan squid-acl`: OK where check does not deny, ERR where
             it does;
  - serve    `urisan serve` (X-Original-URL): the same verdict and the
             same deny and flag reasons in X-Urisan-Verdict,
             X-Urisan-Deny-Reasons, X-Urisan-Flag-Reasons as check under
             the policy plus require-authority (for every input a header
             carries as is: printable ASCII without a space);
  - milter   the milter's per-message path (tests/doors/door_milter.c:
             milter_judge) on one message per input, against `urisan
             extract --mail` on the same messages (an mbox): the same
             verdict per message.

A difference is printed with the input, the key (a path: components.host,
nested[0].flags) and each side's value; any difference fails the test.
Before the doors run, the comparison is tried on pairs that must differ
(a value, a type - true is not 1 -, a missing key, the key order): a
comparison that cannot fail fails the test.

Inputs: a sample of the shared URL lists (skipped when ../shared/data is
absent), the lines of corpus/, the homograph test set (tests/homograph),
generated nested URLs. A new door is a class with NAME and a method
`answers(inputs, cfg)` giving, for each input it can judge, what it says
(see Door below; with ORDERED set, a whole object) - add it to DOORS
(or from another file with --door MODULE:CLASS).

usage: door_equality.py URISAN [--door-c EXE] [--door-milter EXE]
                        [--python-path DIR] [--door MODULE:CLASS ...] [--sample N]
--sample N (the quick size): every Nth of the shared-list and corpus
lines; the homograph set, the nested and deceptive URLs, every door and
every configuration stay whole.
Exit 0 pass, 1 a door differs, 77 nothing to run.
"""
import argparse
import codecs
import importlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

# A sanitizer build preloads its runtime for this interpreter (the Python
# module); the command and the C drivers have it linked in and refuse a
# second one: their children do not inherit it. A door that runs an
# interpreter loading the instrumented library (Lua) gives it back from
# URISAN_SANITIZER_PRELOAD.
_preload = os.environ.pop("LD_PRELOAD", None)
if _preload:
    os.environ["URISAN_SANITIZER_PRELOAD"] = _preload

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "..", "shared", "data", "urls")
PER_LIST = 400        # lines a shared list gives
MAX_LEN = 2000        # longer inputs are left out (a line reader's bound)
HOST_FLAGS = ("homograph", "invisible_char", "host_uts46")

# ---------------------------------------------------------------- inputs


def usable(u):
    return (0 < len(u) <= MAX_LEN and b"\n" not in u and b"\r" not in u and b"\0" not in u)


def shared_sample():
    out = []
    if not os.path.isdir(DATA):
        print("note: %s absent: no shared URL lists in the sample" % DATA)
        return out
    for name in sorted(os.listdir(DATA)):
        with open(os.path.join(DATA, name), "rb") as f:
            lines = f.read().split(b"\n")
        step = max(1, len(lines) // PER_LIST)
        out += lines[::step][:PER_LIST]
    return out


def corpus_lines():
    out = []
    base = os.path.join(ROOT, "corpus")
    for sub in sorted(os.listdir(base)):
        if sub in ("mail", "milter", "html5", "policy", "serve"):
            continue   # messages, HTML, policies, HTTP requests: no URI lines
        d = os.path.join(base, sub)
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name), "rb") as f:
                out += f.read().split(b"\n")[:50]
    return out


def homograph_set():
    out = [b"https://xn--80ak6aa92e.com/"]   # the one every door must deny under deny homograph
    path = os.path.join(HERE, "homograph", "eval.tsv")
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"#") or not line.strip():
                continue
            host = line.split(b"\t")[1] if b"\t" in line else line.strip()
            out += [b"https://" + host.strip() + b"/login", b"mailto:a@" + host.strip()]
    return out


def nested_urls():
    inner = [b"https://xn--80ak6aa92e.com/", b"http://127.0.0.1/admin", b"javascript:alert(1)",
             b"http://ex\xe2\x80\x8bample.com/", b"http://\xef\xbd\x85vil.com/", b"http://a.b/",
             b"mailto:a@xn--80ak6aa92e.com", b"+https:\\\\xn--80ak6aa92e.com/",
             b"https://b\xc3\xbccher.de/", b"https://%65vil.com/"]
    out = list(inner)   # each judged on its own too
    for u in inner:
        once = urllib.parse.quote(u, safe=b"").encode()
        twice = urllib.parse.quote(once, safe=b"").encode()
        out += [b"https://r.example/?url=" + once, b"https://r.example/?a=1&u=" + twice,
                b"https://r.example/#next=" + once,
                b"https://r.example/?u=" + urllib.parse.quote(b"https://s.example/?to=" + once,
                                                              safe=b"").encode()]
    return out


def deceptive_urls():
    """The mail profile's deceptive-host flags (doc/policy.md "Deceptive
    hosts"): platform pages, shorteners, brands in other hosts and paths,
    alone and combined, and the brands' own names."""
    return [b"https://paypal-login.web.app/", b"https://paypa1.pages.dev/verify",
            b"https://mysite.netlify.app/news", b"https://bit.ly/3abcDEF", b"https://t.co/x1",
            b"https://paypal.com.secure-login.example/", b"https://microsoft-365.example/x",
            b"https://evil.example/paypal.com/login", b"https://www.paypal.com/signin",
            b"https://paypal.de/", b"https://a.blob.core.windows.net/c/i.html",
            b"https://docs.google.com/forms/d/e/x/viewform", b"https://x.example/?u=https%3A%2F%2Fpaypal-login.web.app%2F",
            b"https://login-microsoft.sharepoint.com/:b:/g/x", b"https://ipfs.io/ipfs/bafyx/index.html"]


SAMPLE = 1   # --sample N: every Nth line of the shared lists and corpus/


def inputs():
    seen, out = set(), []
    groups = [("shared", shared_sample()[::SAMPLE]), ("corpus", corpus_lines()[SAMPLE // 2::SAMPLE]),
              ("homograph", homograph_set()), ("nested", nested_urls()),
              ("deceptive", deceptive_urls())]
    counts = {}
    for name, lines in groups:
        k = 0
        for u in lines:
            if usable(u) and u not in seen:
                seen.add(u)
                out.append(u)
                k += 1
        counts[name] = k
    return out, counts

# ------------------------------------------------------------ configurations


def configs(tmp):
    pol = os.path.join(tmp, "deny-host-flags.policy")
    with open(pol, "w") as f:
        f.write("# the host layer's flags, denied, of the URI and of its nested URLs\n"
                "deny homograph invisible_char host_uts46\n"
                "deny nested:homograph nested:invisible_char nested:host_uts46\n")
    out = []
    for prof in ("default", "proxy", "ssrf", "mail"):
        out.append({"name": prof, "args": ["--profile", prof], "profile": prof, "policy": None})
    # what the reference must deny under it (else doors agreeing to allow would pass)
    must = [b"https://xn--80ak6aa92e.com/",
            b"https://r.example/?url=" + urllib.parse.quote(b"https://xn--80ak6aa92e.com/",
                                                            safe=b"").encode(),
            b"https://r.example/?url=" + urllib.parse.quote(b"mailto:a@xn--80ak6aa92e.com",
                                                            safe=b"").encode()]
    out.append({"name": "mail+deny-host-flags", "args": ["--profile", "mail", "--policy", pol],
                "profile": "mail", "policy": pol, "must_deny": must})
    # the host lists meet the host a client resolves (UTS #46: mapped,
    # percent-decoded, A-labels), of the URI and of its nested URLs
    lists = os.path.join(tmp, "host-lists.policy")
    with open(lists, "w") as f:
        f.write("allow invalid non_ascii ambiguous_authority\n"
                "deny-host evil.com xn--bcher-kva.de xn--80ak6aa92e.com\n")
    must = [b"http://\xef\xbd\x85vil.com/", b"https://b\xc3\xbccher.de/", b"https://%65vil.com/",
            b"https://r.example/?url=" + urllib.parse.quote(b"http://\xef\xbd\x85vil.com/",
                                                            safe=b"").encode(),
            b"https://r.example/?url=" + urllib.parse.quote(b"https://b\xc3\xbccher.de/",
                                                            safe=b"").encode()]
    out.append({"name": "host-lists", "args": ["--policy", lists], "profile": "default",
                "policy": lists, "must_deny": must})
    return out

# ------------------------------------------------------------ comparison

ABSENT = "<absent>"


def differences(got, want, ordered, path="", out=None):
    """[(key path, door's value, check's value)]: where got is not want.
    Strict: the same type (true is not 1, 1 is not 1.0), the same keys,
    equal values; the same key order where ordered is True, or the same
    relative order of the keys ordered names (a tuple); none with False."""
    out = [] if out is None else out
    if isinstance(want, dict):
        if not isinstance(got, dict):
            out.append((path or "(object)", got, want))
            return out
        if ordered:
            keys = [k for k in got if k in want]
            ref = [k for k in want if k in got]
            if ordered is not True:
                keys = [k for k in keys if k in ordered]
                ref = [k for k in ref if k in ordered]
            if keys != ref:
                out.append(((path + " " if path else "") + "(key order)", keys, ref))
        for k in want:
            differences(got.get(k, ABSENT), want[k], ordered,
                        path + "." + k if path else k, out)
        for k in got:
            if k not in want:
                out.append((path + "." + k if path else k, got[k], ABSENT))
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            out.append((path, got, want))
        else:
            for i, (g, w) in enumerate(zip(got, want)):
                differences(g, w, ordered, "%s[%d]" % (path, i), out)
    elif type(got) is not type(want) or got != want:
        out.append((path, got, want))
    return out


def same(got, want, ordered):
    """differences() finds none - the common case, told at once: JSON text
    tells true from 1, 1 from 1.0, null from a missing key, a key order."""
    if json.dumps(got, sort_keys=True) != json.dumps(want, sort_keys=True):
        return False
    if ordered is True:
        return json.dumps(got) == json.dumps(want)
    if ordered:
        return [k for k in got if k in ordered] == [k for k in want if k in ordered]
    return True


def comparison_fails():
    """The comparison on pairs that must differ: the ones it misses."""
    ref = {"uri": "a", "valid": True, "error": None, "length": 1, "flags": ["x"],
           "nested": [{"flags": []}]}
    must = {"a value": dict(ref, uri="b"), "a type": dict(ref, valid=1),
            "null": dict(ref, error=False), "a key missing": {k: v for k, v in ref.items()
                                                              if k != "error"},
            "a key more": dict(ref, more=None), "a list": dict(ref, flags=["x", "y"]),
            "deep": dict(ref, nested=[{"flags": ["y"]}]),
            "the order": dict(reversed(list(ref.items())))}
    missed = [what for what, got in must.items()
              if not differences(got, ref, True) or same(got, ref, True)]
    rev = dict(reversed(list(ref.items())))
    if differences(rev, ref, False) or not same(rev, ref, False):
        missed.append("the order, where none is kept")
    return missed


def as_cli(v):
    """A Python door's value with its text as check --json writes it: the
    bytes (str surrogate-escaped, doc/python.md) as UTF-8, any other byte
    as the character of its value (\\u00XX)."""
    if isinstance(v, str):
        return v.encode("utf-8", "surrogateescape").decode("utf-8", "urisan-cli")
    if isinstance(v, dict):
        return {k: as_cli(x) for k, x in v.items()}
    if isinstance(v, list):
        return [as_cli(x) for x in v]
    if not (v is None or isinstance(v, (bool, int))):
        return "<python %s>" % type(v).__name__   # a tuple, bytes ...: no JSON value (differs)
    return v


codecs.register_error("urisan-cli",
                      lambda e: ("".join(chr(x) for x in e.object[e.start:e.end]), e.end))

# ------------------------------------------------------------------ doors


def run(cmd, stdin):
    r = subprocess.run(cmd, input=stdin, capture_output=True)
    if r.returncode not in (0, 1):
        raise RuntimeError("%s: exit %d: %s" % (cmd, r.returncode, r.stderr[-400:]))
    return r.stdout


class Door:
    """A door: answers(inputs, cfg) -> {index: answer} for the inputs it can
    judge; an answer is compared with want(check_row) of the same input:
    key for key by differences() when ORDERED is set (True: in the same
    key order; a tuple: those keys in the same order; False: no order),
    else as a value."""
    NAME = "?"
    ORDERED = None

    def want(self, row):
        return (row["verdict"], tuple(row["flags"]))

    def reference(self, cfg, tmp):
        """The check arguments this door answers as: cfg's own."""
        return cfg["args"]


class CheckDoor(Door):
    NAME = "check"

    def __init__(self, exe):
        self.exe = exe

    def rows(self, urls, args):
        out = run([self.exe, "check", "--json"] + args, b"\n".join(urls) + b"\n")
        rows = [json.loads(l) for l in out.decode("utf-8").splitlines()]
        assert len(rows) == len(urls), (len(rows), len(urls))
        return rows


class PythonDoor(Door):
    NAME = "python"
    ORDERED = True    # a dict keeps order: check's

    def __init__(self, path):
        sys.path.insert(0, path)
        import urisan   # noqa: E402 (the module built here)
        self.m = urisan

    def answers(self, urls, cfg):
        text = ""
        if cfg["policy"]:
            with open(cfg["policy"]) as f:
                text = f.read()
        pol = self.m.Policy(text, profile=cfg["profile"])
        return {i: as_cli(self.m.check(u, policy=pol)) for i, u in enumerate(urls)}

    def want(self, row):
        return row


class CDoor(Door):
    NAME = "c"

    def __init__(self, exe):
        self.exe = exe

    def answers(self, urls, cfg):
        out = run([self.exe] + cfg["args"], b"\n".join(urls) + b"\n").decode().splitlines()
        assert len(out) == len(urls), (len(out), len(urls))
        res = {}
        for i, line in enumerate(out):
            v, _, f = line.partition("\t")
            res[i] = (v, tuple(x for x in f.split(",") if x))
        return res


# The keys a line of extract --json shares with check --json's object, in
# check's order: the URI, its length, the decision and the host view.
# The decision and host view keys are in check's order on extract's line
# too (EXTRACT_ORDER); uri leads both; length is among extract's own keys
# (after part and offset), after truncated in check's.
EXTRACT_SHARED = ("uri", "flags", "verdict", "reasons", "deny_reasons", "flag_reasons",
                  "host_unicode", "host_skeleton", "host_imitates", "registrable_domain",
                  "length")
EXTRACT_ORDER = EXTRACT_SHARED[:-1]


class ExtractDoor(Door):
    """Each input written "<URL>" on a line of its own; the link found
    whole (its offset and length are the input's). A link written with a
    Unicode host is read as the URI a client opens (doc/extract.md: `uri`
    the converted URI, `written` the text): its row is compared with
    check's object of that URI, length aside (extract's is the written
    text's)."""
    NAME = "extract"
    ORDERED = EXTRACT_ORDER

    def __init__(self, exe):
        self.exe = exe
        self.opened = {}   # input index -> check's object of the URI opened

    def want(self, row):
        """check's shared keys in check's order (one check lacks: differs)"""
        want = {k: v for k, v in row.items() if k in EXTRACT_SHARED}
        want.update((k, "<absent from check>") for k in EXTRACT_SHARED if k not in row)
        return want

    def wanted(self, i, row):
        if i not in self.opened:
            return self.want(row)
        want = self.want(self.opened[i])
        del want["length"]
        return want

    def answers(self, urls, cfg):
        ok = [i for i, u in enumerate(urls)
              if not re.search(rb"[\s<>\"]", u) and b"://" in u[:40]]
        at, text = {}, b""
        for i in ok:
            at[len(text) + 1] = i
            text += b"<" + urls[i] + b">\n"
        rows = [json.loads(l) for l in
                run([self.exe, "extract", "--json"] + cfg["args"], text).decode().splitlines()]
        res, opened = {}, {}
        for r in rows:
            i = at.get(r["offset"])
            if i is None or r["length"] != len(urls[i]) or i in res:
                continue
            res[i] = {k: v for k, v in r.items() if k in EXTRACT_SHARED}
            if "written" in r:
                del res[i]["length"]
                opened[i] = r["uri"].encode("utf-8", "surrogateescape")
        self.opened = {}
        if opened:
            order = sorted(opened)
            got = CheckDoor(self.exe).rows([opened[i] for i in order], cfg["args"])
            self.opened = dict(zip(order, got))
        print("note: extract: %d links whole, %d of them read as the URI a client opens"
              % (len(res), len(opened)))
        return res


class SquidDoor(Door):
    NAME = "squid"

    def __init__(self, exe):
        self.exe = exe

    def want(self, row):
        return "ERR" if row["verdict"] == "deny" else "OK"

    def answers(self, urls, cfg):
        # "-" is Squid's "no value" (ERR by design), not a URI
        ok = [i for i, u in enumerate(urls) if b" " not in u and u != b"-"]
        text = b"".join(b"%d %s\n" % (k, urls[i]) for k, i in enumerate(ok))
        out = run([self.exe, "squid-acl"] + cfg["args"], text).decode("latin-1").splitlines()
        assert len(out) == len(ok), (len(out), len(ok))
        return {ok[int(l.split(" ", 2)[0])]: l.split(" ", 2)[1] for l in out}


class ServeDoor(Door):
    NAME = "serve"

    def __init__(self, exe):
        self.exe = exe

    def want(self, row):
        deny = ",".join(row["deny_reasons"]) or "-"
        flag = ",".join(row["flag_reasons"]) or "-"
        return (row["verdict"], deny, flag)

    def reference(self, cfg, tmp):
        """A gateway forwards only to a host: serve judges as the policy
        plus require-authority (doc/gateways.md)."""
        text = ""
        if cfg["policy"]:
            with open(cfg["policy"]) as f:
                text = f.read()
        path = os.path.join(tmp, cfg["name"] + ".serve.policy")
        with open(path, "w") as f:
            f.write(text + "require-authority\n")
        return ["--profile", cfg["profile"], "--policy", path]

    def answers(self, urls, cfg):
        # every input a header value carries as is: printable ASCII, no
        # space (relative references and URIs without a host too: their
        # not_absolute, no_authority are the library's require-authority)
        ok = [i for i, u in enumerate(urls) if u and all(0x20 < c < 0x7f for c in u)]
        err = tempfile.TemporaryFile()
        proc = subprocess.Popen([self.exe, "serve", "--listen", "127.0.0.1:0", "--trust",
                                 "original-url"] + cfg["args"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
        try:
            port = None
            deadline = time.monotonic() + 10
            while port is None and time.monotonic() < deadline and proc.poll() is None:
                err.seek(0)
                m = re.search(rb"listening on 127\.0\.0\.1:(\d+)", err.read())
                port = int(m.group(1)) if m else None
                time.sleep(0.02)
            if port is None:
                raise RuntimeError("serve did not start")
            return {i: self.ask(port, urls[i]) for i in ok}
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    @staticmethod
    def ask(port, url):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            s.sendall(b"GET /auth HTTP/1.1\r\nHost: x\r\nX-Original-URL: " + url +
                      b"\r\nConnection: close\r\n\r\n")
            data = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                data += b
        finally:
            s.close()
        head = data.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
        h = {k.lower(): v.strip() for k, _, v in (l.partition(":") for l in head[1:])}
        return (h.get("x-urisan-verdict"), h.get("x-urisan-deny-reasons"),
                h.get("x-urisan-flag-reasons"))


class MilterDoor(Door):
    """Per message (one link each): the milter's verdict against the worst
    verdict `extract --mail` gives the links of the same message."""
    NAME = "milter"

    def __init__(self, exe, urisan):
        self.exe, self.urisan = exe, urisan

    def answers(self, urls, cfg):
        with tempfile.TemporaryDirectory() as d:
            mbox = os.path.join(d, "doors.mbox")
            out = run([self.exe, "--mbox", mbox] + cfg["args"],
                      b"\n".join(urls) + b"\n").decode().splitlines()
            rows = [json.loads(l) for l in
                    run([self.urisan, "extract", "--mail", "--json"] + cfg["args"] + [mbox],
                        b"").decode().splitlines()]
        assert len(out) == len(urls), (len(out), len(urls))
        order = {"allow": 0, "flag": 1, "deny": 2}
        worst, links = {}, {}
        for r in rows:
            if "message" not in r or r.get("context") == "limit":
                continue
            k = r["message"] - 1
            links[k] = links.get(k, 0) + 1
            v = r["verdict"]
            if order.get(v, 2) >= order.get(worst.get(k, "allow"), 0):
                worst[k] = v
        self.extract_says = {k: (worst[k], links[k]) for k in worst}
        res = {}
        for i, line in enumerate(out):
            v, _, n = line.partition("\t")
            res[i] = (v, int(n))
        return res

    def compare(self, urls, cfg, rows, got):
        """The reference of this door is extract --mail, not check."""
        bad, n = [], 0
        for i, (v, links) in got.items():
            if links == 0 and i not in self.extract_says:
                continue
            n += 1
            if self.extract_says.get(i) != (v, links):
                bad.append((urls[i], (v, links), self.extract_says.get(i)))
        return n, bad


# ------------------------------------------------- every kind of mail link
# A sample of the inputs, each put in every place of a message that
# liburisan-mail reads (attachments by file name and content, calendar
# invites, HTML places): the milter's verdict and link count per message
# against `extract --mail`'s, and the Python module's extract_mail.

def _mime(ctype, body, name=None, b64=True):
    h = "Content-Type: %s\n" % ctype
    if name:
        h += 'Content-Disposition: attachment; filename="%s"\n' % name
    if b64:
        import base64
        return (h + "Content-Transfer-Encoding: base64\n\n" +
                base64.encodebytes(body).decode() + "\n").encode()
    return (h + "\n").encode() + body + b"\n"


def _attr(u):
    """u as an HTML attribute value (quoted, & and " as references)"""
    return u.replace(b"&", b"&amp;").replace(b'"', b"&quot;")


def _pdf(u):
    """A one-page PDF whose link annotation opens u (a URI action)."""
    lit = u.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] >>",
            b"<< /Type /Annot /Subtype /Link /Rect [72 700 300 720] /A << /S /URI /URI (" +
            lit + b") >> >>"]
    out, offs = b"%PDF-1.7\n", []
    for i, body in enumerate(objs, 1):
        offs.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    x = len(out)
    out += b"xref\n0 5\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offs)
    return out + b"trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % x


def _docx(u):
    """A .docx whose document holds an external hyperlink to u."""
    import io
    import zipfile
    target = u.decode("utf-8", "replace").replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml",
                   '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                   'content-types"><Default Extension="xml" ContentType="application/xml"/></Types>')
        z.writestr("word/_rels/document.xml.rels",
                   '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
                   'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
                   'openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="' +
                   target + '" TargetMode="External"/></Relationships>')
        z.writestr("word/document.xml", '<?xml version="1.0"?><w:document xmlns:w="http://schemas.'
                   'openxmlformats.org/wordprocessingml/2006/main"/>')
    return buf.getvalue()


MAIL_KINDS = {
    "pdf": lambda u: _mime("application/octet-stream", _pdf(u), "invoice.pdf"),
    "docx": lambda u: _mime("application/octet-stream", _docx(u), "invoice.docx"),
    "html-octet-stream": lambda u: _mime("application/octet-stream",
                                         b'<html><a href="' + _attr(u) + b'">x</a></html>', "inv.html"),
    "svg": lambda u: _mime("image/svg+xml", b'<svg><a href="' + _attr(u) + b'"><text>t</text></a></svg>',
                           "fax.svg"),
    "url-shortcut": lambda u: _mime("application/octet-stream",
                                    b"[InternetShortcut]\r\nURL=" + u + b"\r\n", "a.url"),
    "webloc": lambda u: _mime("application/octet-stream",
                              b"<?xml version=\"1.0\"?><plist><dict><key>URL</key><string>" +
                              u.replace(b"&", b"&amp;").replace(b"<", b"&lt;") +
                              b"</string></dict></plist>", "a.webloc"),
    "desktop": lambda u: _mime("application/x-desktop",
                               b"[Desktop Entry]\nType=Link\nURL=" + u + b"\n", "a.desktop"),
    "ics": lambda u: _mime("text/calendar", b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nURL:" + u +
                           b"\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", "invite.ics"),
    "conditional-comment": lambda u: _mime("text/html", b'<!--[if mso]><v:roundrect href="' +
                                           _attr(u) + b'"></v:roundrect><![endif]-->', b64=False),
    "meta-refresh": lambda u: _mime("text/html", b'<meta http-equiv=refresh content="0;url=' +
                                    _attr(u) + b'">', b64=False),
    "srcdoc": lambda u: _mime("text/html", b'<iframe srcdoc="&lt;a href=&quot;' +
                              _attr(_attr(u)) + b'&quot;&gt;x&lt;/a&gt;"></iframe>', b64=False),
    "svg-animate": lambda u: _mime("text/html", b'<svg><a><set attributeName=href to="' +
                                   _attr(u) + b'"/></a></svg>', b64=False),
    "safelinks": lambda u: _mime("text/html", b'<a href="https://nam02.safelinks.protection.outlook.com/?url=' +
                                 _attr(urllib.parse.quote_from_bytes(u, safe="").encode()) +
                                 b'&amp;data=05">x</a>', b64=False),
    "object-param": lambda u: _mime("text/html", b'<object><param name=movie value="' +
                                    _attr(u) + b'"></object>', b64=False),
}
MAIL_KINDS_PER = 12   # inputs put in each kind of place


QR_PNGS = r"""
import io, sys, qrcode
for line in sys.stdin.buffer.read().split(b"\n"):
    if line:
        out = io.BytesIO()
        qrcode.make(bytes.fromhex(line.decode()).decode()).save(out, "PNG")
        sys.stdout.write(out.getvalue().hex() + "\n")
"""


def qr_pngs(urls):
    """A PNG of a QR code of each URL, made by Debian's python3-qrcode
    (/usr/bin/python3), or None without it."""
    try:
        r = subprocess.run(["/usr/bin/python3", "-c", QR_PNGS], capture_output=True,
                           input=b"".join(u.hex().encode() + b"\n" for u in urls), timeout=120)
    except OSError:
        return None
    if r.returncode != 0:
        return None
    return [bytes.fromhex(l) for l in r.stdout.decode().split()]


def mail_kind_messages(urls):
    """(kind, url, message bytes) for a sample of the inputs."""
    step = max(1, len(urls) // MAIL_KINDS_PER)
    sample = [u for u in urls[::step] if b"\x00" not in u and not u.startswith(b"From ")]
    out = []

    def message(kind, u, body):
        return (kind, u, b"From: a@example.org\nTo: b@example.org\nSubject: kinds\n"
                b"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=KB\n\n--KB\n"
                b"Content-Type: text/plain\n\nsee attached\n--KB\n" + body + b"--KB--\n")
    for kind, make in MAIL_KINDS.items():
        for u in sample[:MAIL_KINDS_PER]:
            out.append(message(kind, u, make(u)))
    # a QR code in an image labelled application/octet-stream: the URLs
    # a code holds as a link (ASCII, a scheme, what fits a code)
    qr_urls = [u for u in sample if u.isascii() and re.match(rb"[A-Za-z][A-Za-z0-9+.-]*:\S", u)
               and len(u) < 400 and b"\n" not in u][:MAIL_KINDS_PER]
    pngs = qr_pngs(qr_urls) if qr_urls else None
    if pngs is None:
        print("note: mail kinds: no QR images (Debian's python3-qrcode is not installed)")
    else:
        for u, png in zip(qr_urls, pngs):
            out.append(message("qr-png", u, _mime("application/octet-stream", png, "scan.png")))
    return out


def worst_of(rows):
    order = {"allow": 0, "flag": 1, "deny": 2}
    links = [r for r in rows if r.get("context") != "limit"]
    worst = "allow"
    for r in links:
        if order.get(r["verdict"], 2) > order[worst]:
            worst = r["verdict"]
    return (worst, len(links)) if links else None


LUA_MAIL = r"""
-- the rspamd plugin's reading: urisan.extract_mail on each message;
-- "worst<TAB>links" a line, as `urisan milter --messages` prints
local u = require "urisan"
local pol = u.policy{ profile = arg[1], file = arg[3] }
local order = { allow = 0, flag = 1, deny = 2 }
for path in io.lines(arg[2]) do
  local f = assert(io.open(path, "rb")); local m = f:read("*a"); f:close()
  local worst, n = "allow", 0
  for _, r in ipairs(u.extract_mail(m, pol)) do
    if r.context ~= "limit" then
      n = n + 1
      if order[r.verdict] > order[worst] then worst = r.verdict end
    end
  end
  io.write(worst, "\t", n, "\n")
end
"""


def lua_mail_worst(cfg, list_path, tmp):
    """The Lua module's extract_mail (LuaJIT, rspamd's) on the messages
    listed in list_path: lines "worst<TAB>links", or None without it."""
    import door_lua
    found = door_lua.lua_doors().get("5.1")
    if found is None:
        return None
    lua, cpath = found
    script = os.path.join(tmp, "mail_kinds.lua")
    with open(script, "w") as f:
        f.write(LUA_MAIL)
    argv = [lua, script, cfg["profile"], list_path] + ([cfg["policy"]] if cfg["policy"] else [])
    env = dict(os.environ, LUA_CPATH=os.path.join(cpath, "?.so"))
    if os.environ.get("URISAN_SANITIZER_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["URISAN_SANITIZER_PRELOAD"]
    out = subprocess.run(argv, capture_output=True, env=env)
    if out.returncode != 0:
        raise RuntimeError("extract_mail in Lua: exit %d: %s" % (out.returncode, out.stderr[-400:]))
    return out.stdout.decode().splitlines()


def check_mail_kinds(exe, milter, pymod, cfg, msgs, tmp):
    """Differences between the milter, extract --mail and Python's
    extract_mail on the messages; (compared, [(kind, url, says...)])."""
    paths = []
    for i, (_, _, m) in enumerate(msgs):
        p = os.path.join(tmp, "kind-%d.eml" % i)
        with open(p, "wb") as f:
            f.write(m)
        paths.append(p)
    mbox = os.path.join(tmp, "kinds.mbox")
    mil = run([milter, "--messages", "--mbox", mbox] + cfg["args"],
              ("\n".join(paths) + "\n").encode()).decode().splitlines()
    list_path = os.path.join(tmp, "kinds.list")
    with open(list_path, "w") as f:
        f.write("\n".join(paths) + "\n")
    lua = lua_mail_worst(cfg, list_path, tmp) if "URISAN_LUA_DOORS" in os.environ else None
    by_msg = {}
    for l in run([exe, "extract", "--mail", "--json"] + cfg["args"] + [mbox], b"").decode().splitlines():
        r = json.loads(l)
        by_msg.setdefault(r["message"] - 1, []).append(r)
    pol = None
    if pymod is not None and hasattr(pymod, "extract_mail"):
        text = open(cfg["policy"]).read() if cfg["policy"] else ""
        pol = pymod.Policy(text, profile=cfg["profile"])
    bad = []
    for i, (kind, u, m) in enumerate(msgs):
        ext = worst_of(by_msg.get(i, []))
        v, _, n = mil[i].partition("\t")
        milt = (v, int(n)) if int(n) else None
        if ext is None:
            bad.append((kind, u, "no link found", milt, ext))
            continue
        if milt != ext:
            bad.append((kind, u, "milter", milt, ext))
        if pol is not None:
            py = worst_of(pymod.extract_mail(m, policy=pol))
            if py != ext:
                bad.append((kind, u, "python", py, ext))
        if lua is not None:
            v, _, n = lua[i].partition("\t")
            got = (v, int(n)) if int(n) else None
            if got != ext:
                bad.append((kind, u, "lua extract_mail", got, ext))
    doors = ["milter"] + (["python"] if pol is not None else []) + (["lua"] if lua else [])
    return len(msgs), bad, doors


def print_differences(door, cfg, bad, inputs=5):
    """The first inputs that differ, each key with both sides' values, and
    how many inputs differ in each key."""
    per_key = {}
    for u, d in bad:
        for key, _, _ in d:
            per_key[key] = per_key.get(key, 0) + 1
    for u, d in bad[:inputs]:
        print("DIFFER %s %s: input %r" % (door, cfg, u[:160]))
        for key, a, w in d[:8]:
            print("    %-28s %s: %s\n    %-28s check: %s" % (key, door, short(a), "", short(w)))
        if len(d) > 8:
            print("    ... %d more keys" % (len(d) - 8))
    if bad:
        print("DIFFER %s %s: %d inputs; by key: %s" % (
            door, cfg, len(bad), ", ".join("%s %d" % kv for kv in sorted(per_key.items()))))


def short(v, n=200):
    t = v if v == ABSENT else json.dumps(v, ensure_ascii=False)
    return t if len(t) <= n else t[:n] + "..."


def load_door(spec, ns):
    mod, _, cls = spec.partition(":")
    sys.path.insert(0, os.getcwd())
    return getattr(importlib.import_module(mod), cls)(ns)

# ------------------------------------------------------------------ main


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("urisan")
    ap.add_argument("--door-c")
    ap.add_argument("--door-milter")
    ap.add_argument("--python-path")
    ap.add_argument("--door", action="append", default=[])
    ap.add_argument("--sample", type=int, default=1)
    ns = ap.parse_args()
    global SAMPLE
    SAMPLE = max(1, ns.sample)
    exe = os.path.abspath(ns.urisan)
    probe = json.loads(run([exe, "check", "--json"], b"http://a/\n").splitlines()[0])
    if "host_unicode" not in probe:
        print("SKIP: urisan built without the host layer")
        return 77
    check = CheckDoor(exe)
    doors = [ExtractDoor(exe), SquidDoor(exe)]
    # serve is built with libmicrohttpd: --help lists it then (a usage
    # error names no command, so ask --help, never the bare command)
    usage = subprocess.run([exe, "--help"], capture_output=True)
    if b"\n  serve " in usage.stdout + usage.stderr:
        doors.append(ServeDoor(exe))
    if ns.door_c:
        doors.append(CDoor(ns.door_c))
    if ns.python_path:
        doors.append(PythonDoor(ns.python_path))
    if ns.door_milter:
        doors.append(MilterDoor(ns.door_milter, exe))
    doors += [load_door(s, ns) for s in ns.door]

    missed = comparison_fails()
    if missed:
        print("FAIL: the comparison misses a difference: %s" % ", ".join(missed))
        return 1

    urls, counts = inputs()
    print("inputs: %d (%s)" % (len(urls), ", ".join("%s %d" % kv for kv in counts.items())))
    failures = 0
    # the mail kinds' messages: drawn from the inputs at their full size,
    # so the quick size makes the same messages as the full one
    if ns.door_milter:
        sample, SAMPLE = SAMPLE, 1
        kind_msgs = mail_kind_messages(inputs()[0])
        SAMPLE = sample
    else:
        kind_msgs = []
    pymod = None
    if ns.python_path:
        sys.path.insert(0, ns.python_path)
        import urisan as pymod   # noqa: E402 (the module built here)
    with tempfile.TemporaryDirectory() as tmp:
        for cfg in configs(tmp):
            rows = check.rows(urls, cfg["args"])
            for u in cfg.get("must_deny", []):
                v = rows[urls.index(u)]["verdict"]
                if v != "deny":
                    print("NOT DENIED %s: %r: check says %s" % (cfg["name"], u, v))
                    failures += 1
            denied = sum(r["verdict"] == "deny" for r in rows)
            host = sum(any(f in r["flags"] for f in HOST_FLAGS) for r in rows)
            line = ["%-22s check: %d deny, %d with a host flag" % (cfg["name"], denied, host)]
            for door in doors:
                got = door.answers(urls, cfg)
                ref_args = door.reference(cfg, tmp)
                ref = rows if ref_args == cfg["args"] else check.rows(urls, ref_args)
                ordered = getattr(door, "ORDERED", None)
                if hasattr(door, "compare"):
                    n, bad = door.compare(urls, cfg, ref, got)
                elif ordered is not None:
                    n, bad = len(got), []
                    for i, a in sorted(got.items()):
                        w = door.wanted(i, ref[i]) if hasattr(door, "wanted") else door.want(ref[i])
                        d = [] if same(a, w, ordered) else differences(a, w, ordered)
                        if d:
                            bad.append((urls[i], d))
                    print_differences(door.NAME, cfg["name"], bad)
                else:
                    bad = [(urls[i], a, door.want(ref[i])) for i, a in sorted(got.items())
                           if a != door.want(ref[i])]
                    n = len(got)
                line.append("%s %d/%d" % (door.NAME, n - len(bad), n))
                if ordered is None:
                    for u, a, w in bad[:5]:
                        print("DIFFER %s %s: %r says %r, check says %r"
                              % (door.NAME, cfg["name"], u[:120], a, w))
                failures += len(bad)
            if kind_msgs:
                n, bad, kdoors = check_mail_kinds(exe, ns.door_milter, pymod, cfg, kind_msgs, tmp)
                line.append("mail kinds %d/%d (%s)" % (n - len(bad), n, ", ".join(kdoors)))
                for b in bad[:5]:
                    print("DIFFER mail-kinds %s %s %r: %s says %r, extract --mail says %r"
                          % (cfg["name"], b[0], b[1][:100], b[2], b[3], b[4]))
                failures += len(bad)
            print("; ".join(line))
    print("%s: %d difference(s)" % ("FAIL" if failures else "ok", failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
