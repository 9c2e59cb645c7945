#!/usr/bin/env python3
"""`urisan serve` on its own (no gateway): the answers, the URI sources
and their trust, malformed requests, SIGHUP, SIGTERM, and the bounds.

usage: serve_test.py URISAN [--short-bounds]

--short-bounds: the bounds phase with a 1 s idle timeout, watched for
2 s (at least 20 answers), instead of 3 s watched for 5 s (at least 50);
the same abuse clients and checks.

Every server started here listens on 127.0.0.1 on a port the kernel
picks (--listen 127.0.0.1:0; the port is read from its log) and is
stopped by PID, also on failure. The abuse clients bind 127.0.0.2-4 as
their source address so the service sees them as other clients than
the one it must keep serving (127.0.0.1). Exit 0 pass, 1 fail, 77 skip
(urisan built without serve).
"""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

URISAN = os.path.abspath(sys.argv[1])
# the bounds phase: (idle timeout, seconds watched, answers at least)
BOUNDS = (1, 2, 20) if "--short-bounds" in sys.argv[2:] else (3, 5, 50)
FAILURES = []
PROCS = []
LOGS = []


def log(msg):
    sys.stdout.write(msg + "\n")
    sys.stdout.flush()


def check(cond, what):
    if cond:
        log("ok   " + what)
    else:
        log("FAIL " + what)
        FAILURES.append(what)


class Serve:
    def __init__(self, *args, env=None):
        self.errf = tempfile.NamedTemporaryFile(prefix="urisan-serve-", suffix=".log",
                                                delete=False)
        LOGS.append(self.errf.name)
        self.proc = subprocess.Popen([URISAN, "serve", "--listen", "127.0.0.1:0"] + list(args),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.errf, env=env)
        PROCS.append(self.proc)
        self.port = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log())
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError("serve did not start: " + self.log())

    def log(self):
        with open(self.errf.name, "rb") as f:
            return f.read().decode("latin-1")

    def reload(self, until="policy reloaded"):
        """SIGHUP, then wait (5 s at most) for a new log line holding until."""
        seen = self.log().count(until)
        self.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and self.log().count(until) == seen:
            time.sleep(0.02)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return None
        return self.proc.returncode


def connect(port, src="127.0.0.1", timeout=10):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def read_all(s):
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError):
        pass
    return out


def raw(port, data, src="127.0.0.1", timeout=10):
    s = connect(port, src, timeout)
    try:
        s.sendall(data)
        return read_all(s)
    finally:
        s.close()


def parse(resp):
    """(status, {lower-case header: value}, body) of the first response."""
    head, _, body = resp.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d{3})", lines[0]) if lines else None
    hdrs = {}
    for l in lines[1:]:
        k, _, v = l.partition(b":")
        hdrs[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
    return (int(m.group(1)) if m else None), hdrs, body


def ask(port, headers, target=b"/authz", src="127.0.0.1"):
    req = b"GET " + target + b" HTTP/1.1\r\n" + b"".join(
        k + b": " + v + b"\r\n" for k, v in headers) + b"Connection: close\r\n\r\n"
    if not any(k.lower() == b"host" for k, _ in headers):
        req = req.replace(b"\r\n", b"\r\nHost: urisan.test\r\n", 1)
    return parse(raw(port, req, src))


# --------------------------------------------------------------------------

VERSION = None


def rules_of(profile=None, policy=None):
    """The directives `urisan policy check` prints for a policy (the
    default or --profile, a file on top): the rule count services log."""
    with tempfile.NamedTemporaryFile("w", suffix=".policy") as empty:
        r = subprocess.run([URISAN, "policy", "check"] +
                           (["--profile", profile] if profile else []) + [policy or empty.name],
                           stdout=subprocess.PIPE, check=True)
    return sum(1 for l in r.stdout.decode().splitlines() if l and not l.startswith("#"))


def health_json(body):
    import json
    try:
        return json.loads(body)
    except ValueError:
        return {"unparsed": body}


def enforce_line(version, profile, policy, rules):
    return "policy in force: urisan %s, profile %s, %s, %d rules" % (
        version, profile, "policy file " + policy if policy else "no policy file", rules)


def test_says_what_it_enforces():
    """The log at start and on reload, and /healthz, name the version, the
    profile, the policy file and the number of rules in force; --profile
    ssrf is never logged as the built-in default."""
    pol = tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False)
    pol.write("deny-host one.example\n")
    pol.close()
    srv = Serve("--profile", "ssrf", "--policy", pol.name)
    n1 = rules_of("ssrf", pol.name)
    want = enforce_line(VERSION, "ssrf", pol.name, n1)
    check(n1 > rules_of("ssrf") > rules_of() > 0,
          "rule counts: ssrf + a file > ssrf > default > 0")
    check(("urisan: serve: " + want + "\n") in srv.log() and "built-in default" not in srv.log(),
          "start log: %r" % want)
    st, h, body = parse(raw(srv.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                                      b"Connection: close\r\n\r\n"))
    check(st == 200 and health_json(body) == {"status": "ok", "version": VERSION,
                                              "profile": "ssrf", "policy_file": pol.name,
                                              "rules": n1},
          "/healthz under --profile ssrf --policy FILE: %r" % body)
    with open(pol.name, "w") as f:
        f.write("deny-host one.example\ndeny-host two.example\n")
    srv.reload()
    want = enforce_line(VERSION, "ssrf", pol.name, n1 + 1)
    check(("urisan: serve: policy reloaded; " + want[len("policy "):] + "\n") in srv.log(),
          "reload log: %r" % want)
    st, h, body = parse(raw(srv.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                                      b"Connection: close\r\n\r\n"))
    check(health_json(body).get("rules") == n1 + 1, "/healthz after reload: %r" % body)
    check(srv.stop() == 0, "SIGTERM -> exit 0")
    os.unlink(pol.name)


def test_doc_log_lines():
    """The log lines doc/gateways.md shows (start, listening, reload) are
    the service's: run as the doc's lines say, with a policy file of one
    rule on top of ssrf, then a second rule and SIGHUP."""
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "doc", "gateways.md")
    with open(doc, encoding="utf-8") as f:
        lines = [l.strip() for l in f if l.startswith("    urisan: serve: ")]
    check(len(lines) == 3, "doc/gateways.md shows 3 serve log lines (%d)" % len(lines))
    pol = tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False)
    pol.write("deny-host one.example\n")
    pol.close()
    srv = Serve("--trust", "original-uri", "--profile", "ssrf", "--policy", pol.name)
    with open(pol.name, "w") as f:
        f.write("deny-host one.example\ndeny-host two.example\n")
    srv.reload()
    got = [l for l in srv.log().splitlines()]
    for want in lines:
        want = want.replace("/etc/urisan/gateway.policy", pol.name).replace(
            "127.0.0.1:8181", "127.0.0.1:%d" % srv.port).replace("urisan 0.2.0", "urisan " + VERSION)
        check(want in got, "the doc's log line is the service's: %s" % want[:90])
    srv.stop()
    os.unlink(pol.name)


def test_service_unit_defaults():
    """examples/urisan-serve.service as shipped (its ExecStart, with a free
    port and an empty policy file): the metadata cases get 403."""
    unit = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                        "urisan-serve.service")
    with open(unit) as f:
        execs = [l.split("=", 1)[1].split() for l in f if l.startswith("ExecStart=")]
    check(len(execs) == 1 and execs[0][1] == "serve", "the unit has one ExecStart of serve")
    args = execs[0][2:]
    pol = tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False)
    pol.close()
    for opt, value in (("--listen", "127.0.0.1:0"), ("--policy", pol.name)):
        if opt in args:
            args[args.index(opt) + 1] = value
    srv = Serve(*args[2:]) if args[:2] == ["--listen", "127.0.0.1:0"] else None
    check(srv is not None, "the unit's ExecStart starts with --listen: %r" % execs)
    if srv is None:
        return
    for uri, host, want in ((b"/login?next=http://169.254.169.254/latest/meta-data/",
                             b"example.com", 403),
                            (b"/latest/meta-data/", b"169.254.169.254", 403),
                            (b"/index.html", b"example.com", 200)):
        st, h, _ = ask(srv.port, [(b"X-Original-URI", uri), (b"X-Original-Host", host)])
        check(st == want, "the unit's service: %s %s -> %s %s (want %d)"
              % (host.decode(), uri.decode(), st, h.get("x-urisan-deny-reasons"), want))
    srv.stop()
    os.unlink(pol.name)


def test_answers():
    srv = Serve("--trust", "original-url,original-uri,forwarded-uri")
    p = srv.port
    cases = [
        # (what, headers, status, verdict, deny reasons, flag reasons)
        ("original-url allowed", [(b"X-Original-URL", b"https://example.com/a?b=c")],
         200, "allow", "-", "-"),
        ("original-url escaped CR/LF denied",
         [(b"X-Original-URL", b"http://example.com/a%0d%0ab")], 403, "deny",
         "escaped_crlf", None),
        ("original-uri + host + proto",
         [(b"X-Original-URI", b"/x/%2e%2e/%2e%2e/y"), (b"X-Original-Host", b"example.com"),
          (b"X-Original-Proto", b"https")], 403, "deny", "dot_above_root",
         "dot_segments,encoded_dot"),
        # The sub-request's own Host names the service, not the host the
        # client asked for: never judged (it would be allowed).
        ("original-uri without X-Original-Host: no_host_header",
         [(b"Host", b"urisan"), (b"X-Original-URI", b"/")], 403, "deny", "no_host_header", "-"),
        ("forwarded-uri without X-Forwarded-Host: no_host_header",
         [(b"Host", b"urisan"), (b"X-Forwarded-Uri", b"/")], 403, "deny", "no_host_header",
         "-"),
        ("flagged: 200 with flag reasons",
         [(b"X-Original-URL", b"http://127.0.0.1/")], 200, "flag", "-",
         "ip_literal,ip_loopback"),
        ("forwarded-uri (Traefik, Caddy)",
         [(b"X-Forwarded-Uri", b"/ok"), (b"X-Forwarded-Host", b"example.com"),
          (b"X-Forwarded-Proto", b"https")], 200, "allow", "-", "-"),
        ("precedence: original-url before original-uri",
         [(b"X-Original-URL", b"http://example.com/a%00"), (b"X-Original-URI", b"/ok"),
          (b"X-Original-Host", b"example.com")], 403, "deny", None, None),
        ("no trusted source: no_uri", [], 403, "deny", "no_uri", "-"),
        ("host with @ cannot move into userinfo",
         [(b"X-Original-URI", b"/x"), (b"X-Original-Host", b"good.example@evil.example")],
         403, "deny", "bad_host_header", "-"),
        ("host with / cannot end the authority",
         [(b"X-Original-URI", b"/x"), (b"X-Original-Host", b"evil.example/good")],
         403, "deny", "bad_host_header", "-"),
        ("empty host", [(b"X-Original-URI", b"/x"), (b"X-Original-Host", b"")],
         403, "deny", "bad_host_header", "-"),
        ("proto that is no scheme",
         [(b"X-Original-URI", b"/x"), (b"X-Original-Host", b"a"),
          (b"X-Original-Proto", b"ht tp:")], 403, "deny", "bad_proto_header", "-"),
        ("URI that is not origin-form",
         [(b"X-Original-URI", b"evil.example/x"), (b"X-Original-Host", b"a")],
         403, "deny", "bad_uri_header", "-"),
        ("duplicate X-Original-URL",
         [(b"X-Original-URL", b"http://a.example/"), (b"X-Original-URL", b"http://b.example/")],
         403, "deny", "duplicate_header", "-"),
        ("relative X-Original-URL: the reasons of require-authority",
         [(b"X-Original-URL", b"/just/a/path")], 403, "deny", "not_absolute,no_authority",
         "-"),
        ("X-Original-URL without a host: no_authority",
         [(b"X-Original-URL", b"mailto:a@b.example")], 403, "deny", "no_authority", "-"),
        ("raw CR inside a header value",
         [(b"X-Original-URL", b"http://a.example/x\ry")], 403, "deny", None, None),
    ]
    for what, hdrs, st, verdict, deny, flag in cases:
        status, h, body = ask(p, hdrs)
        ok = status == st and h.get("x-urisan-verdict") == verdict and body == b""
        if deny is not None:
            ok = ok and h.get("x-urisan-deny-reasons") == deny
        if flag is not None:
            ok = ok and h.get("x-urisan-flag-reasons") == flag
        check(ok, "%s -> %s %s deny=%s flag=%s" % (what, status, h.get("x-urisan-verdict"),
                                                   h.get("x-urisan-deny-reasons"),
                                                   h.get("x-urisan-flag-reasons")))

    # The default policy says no require-authority: its reasons are serve's.
    status, h, body = ask(p, [(b"X-Original-URL", b"/just/a/path"), (b"X-Urisan-Explain", b"1")])
    check(h.get("x-urisan-explain") == "not_absolute=serve no_authority=serve",
          "serve's own require-authority explained as serve's (%r)" % h.get("x-urisan-explain"))

    status, h, body = parse(raw(p, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
    check(status == 200 and h.get("content-type") == "application/json" and
          health_json(body) == {"status": "ok", "version": VERSION, "profile": "default",
                                "policy_file": None, "rules": rules_of()},
          "/healthz -> 200 with what is enforced as JSON (%r)" % body)

    # Malformed requests: libmicrohttpd answers 400 (or 431/505), never a crash.
    for what, req, want in [
        ("no HTTP version", b"GET /x\r\n\r\n", 400),
        ("header line without colon", b"GET /x HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n", 400),
        ("space before colon", b"GET /x HTTP/1.1\r\nHost : a\r\n\r\n", 400),
        ("HTTP/1.1 without Host", b"GET /x HTTP/1.1\r\n\r\n", 400),
        ("unknown HTTP version", b"GET /x HTTP/9.9\r\nHost: a\r\n\r\n", 505),
        ("oversized header", b"GET /x HTTP/1.1\r\nHost: a\r\nX-Big: " + b"a" * 40000 +
         b"\r\n\r\n", 431),
        ("oversized request line", b"GET /" + b"a" * 40000 + b" HTTP/1.1\r\nHost: a\r\n\r\n",
         414),
    ]:
        status, _, _ = parse(raw(p, req))
        check(status == want, "malformed: %s -> %s" % (what, status))

    # A one-word request line: libmicrohttpd 0.9.75 closes at once
    # without a status line (doc/gateways.md) - no hang, no crash.
    t0 = time.monotonic()
    resp = raw(p, b"GARBAGE\r\n\r\n")
    check(resp == b"" and time.monotonic() - t0 < 2.0, "one-word request line -> closed")

    # Exactly one answer per request: three pipelined on one connection.
    one = b"GET /authz HTTP/1.1\r\nHost: a\r\nX-Original-URL: http://example.com/%d\r\n\r\n"
    data = one % 1 + one % 2 + (one % 3).replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")
    resp = raw(p, data)
    check(resp.count(b"HTTP/1.1 200 ") == 3 and resp.count(b"HTTP/1.") == 3,
          "three pipelined requests -> three answers")
    # A body is never taken as a second request.
    resp = raw(p, b"POST /authz HTTP/1.1\r\nHost: a\r\nX-Original-URL: http://example.com/\r\n"
               b"Content-Length: 52\r\nConnection: close\r\n\r\n"
               b"GET /x HTTP/1.1\r\nHost: a\r\nX-Original-URL: x\r\n\r\n")
    check(resp.count(b"HTTP/1.") == 1, "request with a body -> one answer")
    check(srv.stop() == 0, "SIGTERM -> exit 0")


def test_target_source():
    srv = Serve("--trust", "target", "--strip-prefix", "/authz")
    p = srv.port
    st, h, _ = ask(p, [(b"Host", b"example.com")], target=b"/authz/a/b?c=d")
    check(st == 200 and h.get("x-urisan-verdict") == "allow", "target /authz/a/b -> allow")
    st, h, _ = ask(p, [(b"Host", b"example.com")], target=b"/authz/a%0d%0a")
    check(st == 403 and h.get("x-urisan-deny-reasons") == "escaped_crlf",
          "target /authz/a%0d%0a -> deny escaped_crlf")
    st, h, _ = ask(p, [(b"Host", b"example.com")], target=b"/elsewhere")
    check(st == 403 and h.get("x-urisan-deny-reasons") == "outside_prefix",
          "target outside --strip-prefix -> deny outside_prefix")
    st, _, body = ask(p, [(b"Host", b"example.com")], target=b"/healthz")
    check(st == 200 and health_json(body).get("status") == "ok",
          "/healthz with --strip-prefix -> health")
    srv.stop()
    # Without a prefix the target /healthz is a URI like any other.
    pol = tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False)
    pol.write("deny-host denied.example\n")
    pol.close()
    srv = Serve("--trust", "target", "--policy", pol.name)
    st, h, _ = ask(srv.port, [(b"Host", b"denied.example")], target=b"/healthz")
    check(st == 403 and h.get("x-urisan-deny-reasons") == "host_denied",
          "target trusted, no prefix: /healthz on a denied host -> 403 host_denied")
    srv.stop()
    os.unlink(pol.name)


def test_usage():
    for args, what in [(["--trust", "bogus"], "'bogus'"),
                       (["--trust", "target,target"], "'target'"),
                       (["--listen", "localhost:80"], "numeric"),
                       (["--threads", "0"], "--threads"),
                       (["--strip-prefix", "x"], "--strip-prefix"),
                       (["operand"], "no operands")]:
        r = subprocess.run([URISAN, "serve"] + args, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)
        check(r.returncode == 2 and what in r.stderr.decode(),
              "serve %s -> exit 2 naming %s" % (" ".join(args), what))
    pol = tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False)
    pol.write("# ok\nnot a directive\n")
    pol.close()
    r = subprocess.run([URISAN, "serve", "--listen", "127.0.0.1:0", "--policy", pol.name],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=10)
    check(r.returncode == 2 and (pol.name + ":2") in r.stderr.decode(),
          "serve with a bad policy file -> exit 2 naming FILE:2")
    os.unlink(pol.name)


def test_reload_and_drain():
    pol = tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False)
    pol.write("deny-host one.example\n")
    pol.close()
    srv = Serve("--policy", pol.name, "--drain-timeout", "5")
    p = srv.port

    def verdict(host):
        st, h, _ = ask(p, [(b"X-Original-URL", b"http://" + host + b"/")])
        return st

    check(verdict(b"one.example") == 403 and verdict(b"two.example") == 200,
          "policy: one.example denied, two.example allowed")
    with open(pol.name, "w") as f:
        f.write("deny-host two.example\n")
    srv.reload()
    check(verdict(b"one.example") == 200 and verdict(b"two.example") == 403,
          "SIGHUP: the new file is in force")
    with open(pol.name, "w") as f:
        f.write("deny-host three.example\nthis is wrong\n")
    srv.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and "reload failed" not in srv.log():
        time.sleep(0.02)
    check((pol.name + ":2") in srv.log() and "keeping the policy in force" in srv.log(),
          "SIGHUP with a bad file: logged with FILE:LINE")
    check(verdict(b"two.example") == 403 and verdict(b"three.example") == 200,
          "SIGHUP with a bad file: the old policy stays")

    # SIGTERM with a request in flight (its request line sent, headers not
    # finished): it is still answered, with Connection: close; new
    # connections are refused; then exit 0.
    s = connect(p)
    s.sendall(b"GET /authz HTTP/1.1\r\nHost: a\r\n")
    time.sleep(0.2)
    srv.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    alive = srv.proc.poll() is None
    refused = False
    try:
        connect(p, timeout=2).close()
    except OSError:
        refused = True
    s.sendall(b"X-Original-URL: http://example.com/\r\n\r\n")
    status, h, _ = parse(read_all(s))
    s.close()
    try:
        rc = srv.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        rc = None
    check(alive and refused, "SIGTERM: still answering in-flight, new connections refused")
    check(status == 200 and h.get("connection", "").lower() == "close",
          "SIGTERM: the in-flight request got its answer with Connection: close")
    check(rc == 0, "SIGTERM: exit 0 after draining (%r)" % rc)
    os.unlink(pol.name)


def test_bounds():
    """Idle flood (twice the connection limit), slowloris, oversized
    headers: the normal client is still answered, promptly."""
    idle, watched, least = BOUNDS
    srv = Serve("--max-connections", "40", "--max-per-client", "10", "--idle-timeout", str(idle),
                "--max-header-bytes", "4096", "--threads", "2")
    p = srv.port
    stop = threading.Event()
    held = []
    counts = {"oversized_431": 0}

    def idle_flood():
        for _ in range(80):
            try:
                held.append(connect(p, "127.0.0.2", timeout=30))
            except OSError:
                pass

    def slowloris():
        socks = []
        for _ in range(10):
            try:
                s = connect(p, "127.0.0.3", timeout=30)
                s.sendall(b"GET /authz HTTP/1.1\r\nHost: a\r\nX-Slow: ")
                socks.append(s)
            except OSError:
                pass
        while not stop.is_set():
            for s in socks:
                try:
                    s.send(b"a")
                except OSError:
                    pass
            stop.wait(1.0)
        for s in socks:
            s.close()

    def oversized():
        while not stop.is_set():
            try:
                st, _, _ = parse(raw(p, b"GET /authz HTTP/1.1\r\nHost: a\r\nX-Big: " +
                                     b"b" * 8192 + b"\r\n\r\n", "127.0.0.4", timeout=5))
                if st == 431:
                    counts["oversized_431"] += 1
            except OSError:
                pass

    def hammer():
        # one client as fast as it can on its 10 keep-alive connections
        req = b"GET /authz HTTP/1.1\r\nHost: a\r\nX-Original-URL: http://example.com/\r\n\r\n"
        socks = []
        for _ in range(10):
            try:
                socks.append(connect(p, "127.0.0.5", timeout=5))
            except OSError:
                pass
        while not stop.is_set():
            for s in socks:
                try:
                    s.sendall(req * 4)
                    got = b""
                    while got.count(b"HTTP/1.1 200") < 4:
                        b = s.recv(65536)
                        if not b:
                            break
                        got += b
                    counts["hammer"] = counts.get("hammer", 0) + got.count(b"HTTP/1.1 200")
                except OSError:
                    pass
        for s in socks:
            s.close()

    threads = [threading.Thread(target=f) for f in (idle_flood, slowloris, oversized, hammer)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    worst, answered, wrong = 0.0, 0, 0
    t_end = time.monotonic() + watched   # longer than the idle timeout
    while time.monotonic() < t_end:
        t0 = time.monotonic()
        try:
            st, h, _ = ask(p, [(b"X-Original-URL", b"http://example.com/a%0d%0a")])
            if st == 403 and h.get("x-urisan-deny-reasons") == "escaped_crlf":
                answered += 1
            else:
                wrong += 1
        except OSError:
            wrong += 1
        worst = max(worst, time.monotonic() - t0)
        time.sleep(0.02)
    stop.set()
    for t in threads:
        t.join()
    # The idle connections the service accepted were closed by the timeout.
    closed = 0
    for s in held:
        s.settimeout(0.5)
        try:
            if s.recv(1) == b"":
                closed += 1
        except (socket.timeout, ConnectionResetError):
            pass
        s.close()
    check(answered > least and wrong == 0 and worst < 2.0,
          "under idle flood (80 > 40 connections), slowloris, oversized headers and a "
          "client hammering 10 connections (%d answers): %d answered, %d wrong, "
          "slowest %.2f s" % (counts.get("hammer", 0), answered, wrong, worst))
    check(counts["oversized_431"] > 0, "oversized headers -> 431 (%d times)"
          % counts["oversized_431"])
    check(closed == len(held), "idle connections closed by the server (%d of %d)"
          % (closed, len(held)))
    check(srv.stop() == 0, "SIGTERM after the abuse -> exit 0")


def test_notify():
    """Type=notify: READY=1 once listening, RELOADING=1 then READY=1 on
    SIGHUP, STOPPING=1 on SIGTERM, on the $NOTIFY_SOCKET datagram socket
    (here an abstract one, "@name", as systemd may use)."""
    name = "urisan-serve-test-%d" % os.getpid()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(10)
    srv = Serve(env=dict(os.environ, NOTIFY_SOCKET="@" + name))

    def next_msg():
        try:
            return sock.recv(4096).decode()
        except socket.timeout:
            return ""

    first = next_msg()
    check(first.startswith("READY=1\nSTATUS=listening on 127.0.0.1:%d" % srv.port),
          "NOTIFY_SOCKET: READY=1 with the address (%r)" % first)
    srv.proc.send_signal(signal.SIGHUP)
    got = [next_msg(), next_msg()]
    check(got[0] == "RELOADING=1" and got[1].startswith("READY=1"),
          "NOTIFY_SOCKET: SIGHUP -> RELOADING=1, READY=1 (%r)" % got)
    srv.proc.send_signal(signal.SIGTERM)
    got = next_msg()
    check(got == "STOPPING=1" and srv.proc.wait(timeout=15) == 0,
          "NOTIFY_SOCKET: SIGTERM -> STOPPING=1, exit 0 (%r)" % got)
    sock.close()


def main():
    r = subprocess.run([URISAN, "serve", "--help"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        log("SKIP: urisan built without serve (libmicrohttpd missing)")
        return 77
    global VERSION
    VERSION = subprocess.run([URISAN, "--version"], stdout=subprocess.PIPE,
                             check=True).stdout.decode().split()[-1]
    try:
        test_usage()
        test_says_what_it_enforces()
        test_service_unit_defaults()
        test_doc_log_lines()
        test_answers()
        test_target_source()
        test_reload_and_drain()
        test_notify()
        test_bounds()
    finally:
        for p in PROCS:
            if p.poll() is None:
                p.kill()
                p.wait()
        if not FAILURES:
            for name in LOGS:
                os.unlink(name)
    if FAILURES:
        log("%d failure(s)" % len(FAILURES))
        return 1
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
