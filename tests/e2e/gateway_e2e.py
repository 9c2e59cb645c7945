#!/usr/bin/env python3
"""End-to-end test: `urisan serve` as the authorization service of a real
nginx and a real HAProxy (issue 14), with the snippets of doc/gateways.md.

usage: gateway_e2e.py URISAN [--keep] [--only nginx|haproxy]
                      [--requests N] [--connections N]

For each gateway (Debian 12's nginx 1.22 with auth_request, HAProxy 2.6
with the Lua core.httpclient action) it starts, on 127.0.0.1 and free
ports: an origin that records every request target it receives
(gateway_origin.py), `urisan serve` with the command line the snippet's
comment names (--profile ssrf as shipped; only the port is changed, and
a --policy file is added for phase 3), and the gateway with a
configuration generated around the doc's block (copied verbatim; only
ports and file paths are replaced). Then:

 1. facts: raw request lines written on a socket (no client rewrites
    them). Allowed URIs reach the origin unchanged (200 and the origin's
    echo, and the origin's log has the target); denied ones (escaped
    CR/LF, %2e%2e above the root, the 0x7f.1 host of an absolute-form
    request, %00, a loopback Host, a client's own X-Original-URL trying
    to steer the decision) get 403 and never reach the origin; requests
    the gateway itself refuses (a raw NUL) never do either. The
    gateway's access log shows the verdict and the reasons.
    1b. what the ssrf profile must stop, each 403 and never at the
    origin: ?next= the metadata service and Host: 169.254.169.254;
    HTTP/1.0 requests without Host (nginx judges them under its
    server_name, HAProxy denies no_host_header); ordinary redirect
    parameters stay allowed.
    1c. the doc's example access-log lines are sent and must be logged
    exactly as the doc shows them.
    1d. nginx: the snippet less its server_name line gives 403
    no_host_header for HTTP/1.0 without Host (never the service's own
    Host judged).
    1e. nested URLs, each 403 and never at the origin: every spelling
    real clients read as reaching an internal host (";" in the value,
    "+" and 80 x %20 before it, /%09/, http:%5C%5C, http:/, http:///, 3
    nested levels, and 6: deeper than followed, nested_deep). Reported
    after phase 4 so the others still run.
 2. load: N requests (default 10,000) over C persistent connections at
    once (default 50), about half to be denied, each target unique.
    Each must get its verdict (200 with the origin's echo, or 403):
    0 lost, 0 wrong; the origin must have seen exactly the allowed ones.
 3. reload under load: the same with SIGHUP sent to the service every
    0.1 s, alternating two good policy files and a bad one (the service
    logs it and keeps the old policy): 0 lost, 0 wrong; then a policy
    that denies one host takes effect (403, reason host_denied); SIGTERM
    makes the service exit 0.
 4. fail closed: with the service stopped, an allowed URI does not get
    through (nginx 500, HAProxy 403) and never reaches the origin.

Everything started here is stopped by PID, also on failure. Exit 0 on
success, 1 on failure, 77 (skip) when neither nginx nor haproxy can be
found or installed (one missing is skipped with a message).
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import gateway_rows

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "doc", "gateways.md")


_thread = threading.local()   # prefix: the gateway a thread runs ("[nginx] ")


def log(msg):
    prefix = getattr(_thread, "prefix", "")
    sys.stdout.write("".join(prefix + line + "\n" for line in msg.split("\n")))
    sys.stdout.flush()


class Failure(Exception):
    pass


class SkipGateway(Exception):
    pass


# --------------------------------------------------------------------------
# Processes we start, stopped by PID whatever happens.
# --------------------------------------------------------------------------

class Procs:
    def __init__(self):
        self.procs = []

    def start(self, argv, **kw):
        p = subprocess.Popen(argv, **kw)
        self.procs.append(p)
        return p

    def stop_all(self):
        for p in reversed(self.procs):
            stop(p)
        self.procs = []


def stop(p, grace=10.0, sig=signal.SIGTERM):
    """sig, wait, then SIGKILL: only this PID."""
    if p.poll() is not None:
        return p.returncode
    try:
        p.send_signal(sig)
        return p.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(timeout=grace)
        return None
    except ProcessLookupError:
        return p.returncode


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listening(port, proc, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.02)
    return False


def find_binary(name, package):
    for cand in (shutil.which(name), "/usr/sbin/" + name):
        if cand and os.access(cand, os.X_OK):
            return cand
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return None
    # tools/install-deps.sh installs without letting Debian start the
    # package's service (a temporary policy-rc.d, the old one restored).
    deps = os.path.join(HERE, "..", "..", "tools", "install-deps.sh")
    log("%s not found: tools/install-deps.sh %s" % (name, package))
    try:
        subprocess.run(["bash", deps, package], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=900, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for cand in (shutil.which(name), "/usr/sbin/" + name):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def doc_block(lang):
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"```%s\n(.*?)```" % re.escape(lang), text, re.S)
    if not m:
        raise Failure("no ```%s block in %s" % (lang, DOC))
    return m.group(1)


def replace_once(text, old, new, what):
    if old not in text:
        raise Failure("the doc's %s block lost %r" % (what, old))
    return text.replace(old, new)


# --------------------------------------------------------------------------
# The pieces: origin, urisan serve, the gateways
# --------------------------------------------------------------------------

class Origin:
    def __init__(self, procs, tmp):
        self.log_path = os.path.join(tmp, "origin.log")
        open(self.log_path, "wb").close()
        self.proc = procs.start([sys.executable, os.path.join(HERE, "gateway_origin.py"),
                                 self.log_path], stdout=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        line = self.proc.stdout.readline()
        if not line.strip().isdigit():
            raise Failure("origin did not start")
        self.port = int(line)

    def seen(self):
        """Targets the origin received, as bytes, in order."""
        import ast
        with open(self.log_path, "rb") as f:
            return [ast.literal_eval(l.decode("ascii")) for l in f if l.strip()]


def serve_args(block):
    """The `urisan serve ...` command line a doc block names in its
    comment, as a list of arguments after "serve", with the listen port
    made 0 (a free one): the service runs as the doc says."""
    m = re.search(r"(?m)^(?:#|--) urisan serve (.*)$", block)
    if not m:
        raise Failure("the doc's block names no 'urisan serve ...' command line")
    args = shlex.split(m.group(1))
    if args[:2] != ["--listen", "127.0.0.1:8181"]:
        raise Failure("the doc's serve command does not start with --listen 127.0.0.1:8181: %r"
                      % args)
    return ["--listen", "127.0.0.1:0"] + args[2:]


class Serve:
    def __init__(self, procs, urisan, tmp, args):
        self.err_path = os.path.join(tmp, "serve.%d.log" % len(procs.procs))
        self.err = open(self.err_path, "wb")
        self.argv = [urisan, "serve"] + list(args)
        self.proc = procs.start(self.argv, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.monotonic() + 10
        self.port = None
        while time.monotonic() < deadline and self.port is None:
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log())
            if m:
                self.port = int(m.group(1))
            elif self.proc.poll() is not None:
                break
            else:
                time.sleep(0.02)
        if self.port is None:
            raise Failure("urisan serve did not start:\n" + self.log())

    def log(self):
        with open(self.err_path, "rb") as f:
            return f.read().decode("latin-1")

    def stop(self):
        rc = stop(self.proc)
        if rc != 0:
            raise Failure("urisan serve exited %r after SIGTERM:\n%s" % (rc, self.log()))


NGINX_CONF = """\
# Generated by tests/e2e/gateway_e2e.py around doc/gateways.md's block
daemon off;
master_process on;
worker_processes 2;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx.error.log warn;
{user}
events {{ worker_connections 1024; }}
http {{
    client_body_temp_path {tmp}/nginx-body;
    proxy_temp_path {tmp}/nginx-proxy;
    fastcgi_temp_path {tmp}/nginx-fastcgi;
    uwsgi_temp_path {tmp}/nginx-uwsgi;
    scgi_temp_path {tmp}/nginx-scgi;
    access_log off;
    keepalive_requests 100000;
# ---- doc/gateways.md ----
{snippet}
# ----
}}
"""

HAPROXY_CONF = """\
# Generated by tests/e2e/gateway_e2e.py around doc/gateways.md's block
{global_part}
    pidfile {tmp}/haproxy.pid
    log {tmp}/haproxy.sock local0 info
    nbthread 2
    {user}
defaults
    mode http
    log global
    timeout connect 5s
    timeout client 30s
    timeout server 30s
    timeout http-keep-alive 30s
{rest}
"""


def wait_log(read, needle, timeout=3.0):
    """The access log (read()); with needle, once it holds needle (a line
    follows the answer: up to timeout), else after 0.2 s."""
    deadline = time.monotonic() + (timeout if needle is not None else 0.2)
    while (needle is None or needle not in read()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return read()


class Gateway:
    name = None

    def __init__(self, procs, tmp, binary, origin, serve):
        self.procs, self.tmp, self.binary = procs, tmp, binary
        self.origin, self.serve = origin, serve
        self.port = free_port()
        self.proc = None

    def path(self, name):
        return os.path.join(self.tmp, name)

    def read(self, name):
        try:
            with open(self.path(name), "rb") as f:
                return f.read().decode("latin-1")
        except OSError:
            return ""


class Nginx(Gateway):
    name = "nginx"
    no_server_name = False   # the snippet less its server_name line

    @staticmethod
    def serve_args():
        return serve_args(doc_block("nginx"))

    def start(self):
        snip = doc_block("nginx")
        if self.no_server_name:
            snip, n = re.subn(r"(?m)^ *server_name .*\n", "", snip)
            if n != 1:
                raise Failure("the doc's nginx block has no one server_name line")
        snip = replace_once(snip, "127.0.0.1:8181", "127.0.0.1:%d" % self.serve.port, "nginx")
        snip = replace_once(snip, "127.0.0.1:9000", "127.0.0.1:%d" % self.origin.port, "nginx")
        snip = replace_once(snip, "listen 127.0.0.1:8080", "listen 127.0.0.1:%d" % self.port, "nginx")
        snip = replace_once(snip, "/var/log/nginx/urisan.log", self.path("access.log"), "nginx")
        user = "user root;" if os.geteuid() == 0 else ""
        conf = NGINX_CONF.format(tmp=self.tmp, snippet=snip, user=user)
        with open(self.path("nginx.conf"), "w") as f:
            f.write(conf)
        argv = [self.binary, "-p", self.tmp, "-c", self.path("nginx.conf"),
                "-e", self.path("nginx.error.log")]
        chk = subprocess.run(argv + ["-t"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if chk.returncode != 0:
            raise Failure("nginx -t rejects the generated config:\n"
                          + chk.stdout.decode("latin-1"))
        self.proc = self.procs.start(argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_listening(self.port, self.proc, 20):
            raise SkipGateway("nginx could not be started:\n" + self.read("nginx.error.log"))
        log("nginx %d on 127.0.0.1:%d, files in %s" % (self.proc.pid, self.port, self.tmp))

    def access_log(self, needle=None):
        return wait_log(lambda: self.read("access.log"), needle)


class Haproxy(Gateway):
    name = "haproxy"

    @staticmethod
    def serve_args():
        return serve_args(doc_block("lua"))

    def start(self):
        # HAProxy logs to a syslog socket only: a unix datagram socket here.
        self.logsock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.logsock.bind(self.path("haproxy.sock"))
        os.chmod(self.path("haproxy.sock"), 0o666)
        self.loglines = []
        threading.Thread(target=self._read_log, daemon=True).start()

        lua = doc_block("lua")
        lua = replace_once(lua, "http://127.0.0.1:8181/", "http://127.0.0.1:%d/" % self.serve.port,
                           "haproxy lua")
        with open(self.path("urisan.lua"), "w") as f:
            f.write(lua)
        snip = doc_block("haproxy")
        snip = replace_once(snip, "/etc/haproxy/urisan.lua", self.path("urisan.lua"), "haproxy")
        snip = replace_once(snip, "bind 127.0.0.1:8080", "bind 127.0.0.1:%d" % self.port, "haproxy")
        snip = replace_once(snip, "127.0.0.1:9000", "127.0.0.1:%d" % self.origin.port, "haproxy")
        global_part, _, rest = snip.partition("\nfrontend ")
        rest = "frontend " + rest
        user = ""
        conf = HAPROXY_CONF.format(tmp=self.tmp, global_part=global_part.rstrip(),
                                   rest=rest, user=user)
        with open(self.path("haproxy.cfg"), "w") as f:
            f.write(conf)
        chk = subprocess.run([self.binary, "-c", "-f", self.path("haproxy.cfg")],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if chk.returncode != 0:
            raise Failure("haproxy -c rejects the generated config:\n"
                          + chk.stdout.decode("latin-1"))
        err = open(self.path("haproxy.stderr"), "wb")
        self.proc = self.procs.start([self.binary, "-db", "-f", self.path("haproxy.cfg")],
                                     stdin=subprocess.DEVNULL, stdout=err, stderr=err)
        if not wait_listening(self.port, self.proc, 20):
            raise SkipGateway("haproxy could not be started:\n" + self.read("haproxy.stderr"))
        log("haproxy %d on 127.0.0.1:%d, files in %s" % (self.proc.pid, self.port, self.tmp))

    def _read_log(self):
        while True:
            try:
                data = self.logsock.recv(65536)
            except OSError:
                return
            self.loglines.append(data.decode("latin-1"))

    def access_log(self, needle=None):
        return wait_log(lambda: "\n".join(self.loglines), needle)


# --------------------------------------------------------------------------
# HTTP clients
# --------------------------------------------------------------------------

def raw_request(port, data, timeout=20):
    """Write data as is, read until the server closes; (status, body)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        chunks = []
        while True:
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                break
            if not b:
                break
            chunks.append(b)
    finally:
        s.close()
    resp = b"".join(chunks)
    head, _, body = resp.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/\d\.\d (\d{3})", head)
    return (int(m.group(1)) if m else None), body


class KeepAlive:
    """One persistent HTTP/1.1 connection; request() -> (status, body)."""

    def __init__(self, port):
        self.port = port
        self.sock = None
        self.buf = b""

    def connect(self):
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        self.buf = b""

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _fill(self):
        b = self.sock.recv(65536)
        if not b:
            raise ConnectionError("closed")
        self.buf += b

    def request(self, target):
        if self.sock is None:
            self.connect()
        self.sock.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: load.example\r\n\r\n")
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        status = int(head[9:12])
        m = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
        n = int(m.group(1)) if m else 0
        while len(self.buf) < n:
            self._fill()
        body, self.buf = self.buf[:n], self.buf[n:]
        if re.search(rb"(?i)\r\nconnection:\s*close", head):
            self.close()
        return status, body


# --------------------------------------------------------------------------
# Phase 1: facts
# --------------------------------------------------------------------------

ALLOW, DENY, REFUSED = "allow", "deny", "refused"   # refused: the gateway's own 400


def fact_cases(gw):
    """(name, raw request, expected outcome, expected deny reason or None).
    Each target carries a unique /fN/ to find it in the logs."""
    host = b"Host: example.com\r\n"
    close = b"Connection: close\r\n\r\n"

    def get(target, extra=b""):
        return b"GET " + target + b" HTTP/1.1\r\n" + host + extra + close

    return [
        ("plain", get(b"/f1/index.html?q=1"), ALLOW, None),
        ("escaped CR/LF", get(b"/f2/a%0d%0aSet-Cookie:x=1"), DENY, "escaped_crlf"),
        ("%2e%2e above root", get(b"/%2e%2e/%2E%2e/f3/passwd"),
         REFUSED if gw == "nginx" else DENY, "dot_above_root"),
        ("0x7f.1 host, absolute-form",
         b"GET http://0x7f.1/f4/ HTTP/1.1\r\nHost: 0x7f.1\r\n" + close, DENY, "ip_obfuscated"),
        # nginx refuses %00 and a climb above the root itself (400).
        ("%00", get(b"/f5/a%00.txt"), REFUSED if gw == "nginx" else DENY, "escaped_nul"),
        ("client's own X-Original-URL",
         get(b"/f6/a%0d%0ab", b"X-Original-URL: http://example.com/\r\n"
             b"X-Forwarded-Uri: /\r\n"), DENY, "escaped_crlf"),
        ("raw NUL in the target", get(b"/f7/a\x00b"), REFUSED, None),
        ("flagged (a dot segment)", get(b"/f8/a/./ok"), ALLOW, None),
        ("tilde and escapes kept", get(b"/f9/~user/%41%42?x=%2F"), ALLOW, None),
        ("loopback literal host (ssrf)",
         b"GET /f10/ok HTTP/1.1\r\nHost: 127.0.0.1\r\n" + close, DENY, "ip_loopback"),
    ]


META = b"http://169.254.169.254/latest/meta-data/"


def chain(hops, last):
    """A redirect chain: hop N's parameter is hop N-1's URL, as is."""
    u = last
    for i in range(hops):
        u = b"http://hop%d.example/r?next=" % (i + 1) + u
    return u


def get_example(target, h=b"Host: example.com\r\n"):
    return b"GET " + target + b" HTTP/1.1\r\n" + h + b"Connection: close\r\n\r\n"


def threat_cases(gw):
    """What --profile ssrf, the snippets' profile, must stop, each with a
    unique /bN/ or /hN/ marker: the metadata requests an operator's
    first try found allowed under the default policy, and HTTP/1.0
    requests without Host; ordinary redirect parameters stay allowed."""
    get = get_example
    return [
        # The operator's first try (the default policy allowed both).
        ("?next= the metadata service", get(b"/b0/login?next=" + META), DENY, None),
        ("Host: 169.254.169.254", get(b"/b9/latest/meta-data/", b"Host: 169.254.169.254\r\n"),
         DENY, "ip_link_local"),
        ("Host: a private address", get(b"/b10/", b"Host: 10.0.0.1\r\n"), DENY, "ip_private"),
        ("?next=/home", get(b"/b11/r?next=/home"), ALLOW, None),
        ("?next= a public URL, encoded", get(b"/b12/r?next=https%3A%2F%2Fexample.org%2Fa"),
         ALLOW, None),
        # HTTP/1.0 without Host.
        ("HTTP/1.0 without Host",
         b"GET /h1/x HTTP/1.0\r\n\r\n", ALLOW if gw == "nginx" else DENY,
         None if gw == "nginx" else "no_host_header"),
        ("HTTP/1.0 without Host, ?next= metadata",
         b"GET /h2/login?next=" + META + b" HTTP/1.0\r\n\r\n", DENY, None),
        ("HTTP/1.0 absolute-form metadata, no Host",
         b"GET http://169.254.169.254/h3/ HTTP/1.0\r\n\r\n", DENY, "ip_link_local"),
    ]


def nested_cases():
    """Every spelling of a nested URL that real clients (URLSearchParams
    and a WHATWG URL parser, Python's parse_qs and urljoin) read as
    reaching an internal host while the old reading did not: ";" in the
    value, "+" and 80 x %20 before the URL, a tab in /%09/, backslashes
    and missing or extra slashes after "http:", a chain deeper than the
    profile follows. Each must get 403 under --profile ssrf."""
    get = get_example
    nip = b"127.0.0.1.nip.io/"
    return [
        ("';' inside the value", get(b"/b1/r?url=http://example.org;@169.254.169.254/latest/"),
         DENY, None),
        ("'+' before the URL", get(b"/b2/r?url=+http://169.254.169.254/"), DENY, None),
        ("80 x %20 before the URL", get(b"/b3/r?url=" + b"%20" * 80 + b"http://169.254.169.254/"),
         DENY, None),
        ("a tab in /%09/", get(b"/b4/r?url=/%09/127.0.0.1/"), DENY, None),
        ("http:\\\\ (escaped)", get(b"/b5/r?u=http:%5C%5C" + nip), DENY, None),
        ("http:/", get(b"/b6/r?u=http:/" + nip), DENY, None),
        ("http:///", get(b"/b7/r?u=http:///" + nip), DENY, None),
        ("6 nested levels (deeper than followed)", get(b"/b8/r?next=" + chain(5, META)), DENY,
         "nested_deep"),
        ("3 nested levels", get(b"/b13/r?next=" + chain(2, META)), DENY, None),
    ]


def check_facts(gw, origin, cases=None, title="facts"):
    before = len(origin.seen())
    failures = []
    for name, req, expect, reason in (cases if cases is not None else fact_cases(gw.name)):
        status, body = raw_request(gw.port, req)
        target = req.split(b" ")[1]
        marker = re.search(rb"/[fhb]\d+/", target).group(0)
        reached = [t for t in origin.seen()[before:] if marker in t]
        if expect == ALLOW:
            ok = status == 200 and body == b"origin saw: " + target + b"\n" and \
                reached == [target]
        elif expect == DENY:
            ok = status == 403 and not reached
        else:
            ok = status == 400 and not reached
        log("  %-34s %-8s -> %s, origin %s  %s" % (name, expect, status,
            "saw it" if reached else "never saw it", "ok" if ok else "WRONG"))
        if not ok:
            failures.append("%s: %r -> %s %r, origin saw %r" % (name, req, status, body[:80],
                                                                  reached))
        if ok and expect == DENY and reason:
            line = [l for l in gw.access_log(marker.decode()).splitlines()
                    if marker.decode() in l]
            if not line or "urisan=deny" not in line[-1] or reason not in line[-1]:
                failures.append("%s: the access log does not show urisan=deny with %s: %r"
                                % (name, reason, line))
    if failures:
        raise Failure("%s through %s:\n  " % (title, gw.name) + "\n  ".join(failures))
    if cases is not None:
        return
    # The flagged one is logged as such, with its reasons.
    line = [l for l in gw.access_log("/f8/").splitlines() if "/f8/" in l]
    if not line or "urisan=flag" not in line[-1] or "dot_segments" not in line[-1]:
        raise Failure("%s access log: the flagged request is not logged as "
                      "urisan=flag ... dot_segments: %r" % (gw.name, line))


# --------------------------------------------------------------------------
# Phases 2 and 3: load, and reload under load
# --------------------------------------------------------------------------

def load(gw, origin, nreq, nconn, tag, during=None):
    """nreq unique requests over nconn connections; every other one is
    to be denied (escaped CR/LF). Returns (lost, wrong, seconds)."""
    before = len(origin.seen())
    per = [nreq // nconn + (1 if i < nreq % nconn else 0) for i in range(nconn)]
    lost, wrong, examples = [0], [0], []
    lock = threading.Lock()
    allowed = set()
    for c in range(nconn):
        for i in range(per[c]):
            if (c + i) % 2 == 0:
                allowed.add(b"/%s/%d/%d/page?x=%d" % (tag.encode(), c, i, i))

    def worker(c):
        conn = KeepAlive(gw.port)
        for i in range(per[c]):
            ok_target = b"/%s/%d/%d/page?x=%d" % (tag.encode(), c, i, i)
            target = ok_target if (c + i) % 2 == 0 else \
                b"/%s/%d/%d/a%%0d%%0aSet-Cookie:x" % (tag.encode(), c, i)
            try:
                status, body = conn.request(target)
            except (OSError, ConnectionError, ValueError):
                conn.close()
                with lock:
                    lost[0] += 1
                continue
            good = (status == 200 and body == b"origin saw: " + target + b"\n") \
                if target == ok_target else status == 403
            if not good:
                with lock:
                    wrong[0] += 1
                    if len(examples) < 5:
                        examples.append((target, status, body[:80]))
        conn.close()

    threads = [threading.Thread(target=worker, args=(c,)) for c in range(nconn)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    stop_evt = threading.Event()
    side = None
    if during is not None:
        side = threading.Thread(target=during, args=(stop_evt,))
        side.start()
    for t in threads:
        t.join()
    secs = time.monotonic() - t0
    stop_evt.set()
    if side is not None:
        side.join()
    time.sleep(0.2)
    seen = origin.seen()[before:]
    seen_set = set(seen)
    if seen_set != allowed or len(seen) != len(allowed):
        extra = [t for t in seen if t not in allowed][:5]
        missing = [t for t in allowed if t not in seen_set][:5]
        raise Failure("%s %s: the origin saw %d requests, expected the %d allowed; "
                      "not allowed but seen: %r; allowed but not seen: %r"
                      % (gw.name, tag, len(seen), len(allowed), extra, missing))
    if lost[0] or wrong[0]:
        raise Failure("%s %s: %d lost, %d wrong of %d (e.g. %r)"
                      % (gw.name, tag, lost[0], wrong[0], nreq, examples))
    return secs


def write_policy(path, text):
    tmp = path + ".new"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


POLICY_A = "# A: the default\n"
POLICY_B = "# B: one more denied host, none of the load's\ndeny-host never.example\n"
POLICY_BAD = "this is not a policy\n"
POLICY_C = "deny-host blocked.example\n"


def reload_phase(gw, origin, serve, policy, nreq, nconn):
    count = [0]

    def hup(stop_evt):
        files = [POLICY_B, POLICY_BAD, POLICY_A]
        # at least one of each file, however short the load
        while not stop_evt.is_set() or count[0] < 3:
            write_policy(policy, files[count[0] % 3])
            serve.proc.send_signal(signal.SIGHUP)
            count[0] += 1
            if stop_evt.wait(0.1):
                time.sleep(0.1)   # after the load: each file read before the next
        write_policy(policy, POLICY_A)

    secs = load(gw, origin, nreq, nconn, "r" + gw.name, during=hup)
    deadline = time.monotonic() + 5
    while "keeping the policy in force" not in serve.log() and time.monotonic() < deadline:
        time.sleep(0.02)
    serve_log = serve.log()
    if "reload failed" not in serve_log or "keeping the policy in force" not in serve_log:
        raise Failure("the bad policy file was not reported:\n" + serve_log[-2000:])
    if serve.proc.poll() is not None:
        raise Failure("urisan serve died during reloads:\n" + serve_log[-2000:])
    # A new policy takes effect.
    write_policy(policy, POLICY_C)
    serve.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 10
    status = None
    while time.monotonic() < deadline:
        status, _ = raw_request(gw.port, b"GET /c1/x HTTP/1.1\r\nHost: blocked.example\r\n"
                                b"Connection: close\r\n\r\n")
        if status == 403:
            break
        time.sleep(0.05)
    if status != 403:
        raise Failure("after SIGHUP with deny-host blocked.example: status %s" % status)
    write_policy(policy, POLICY_A)
    serve.proc.send_signal(signal.SIGHUP)
    return secs, count[0]


# --------------------------------------------------------------------------

def doc_log_lines(name):
    """The example access-log lines the doc gives for gateway name."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- %s log:[^>]*-->\n```text\n(.*?)```" % re.escape(name), text, re.S)
    if not m:
        raise Failure("no example log block for %s in %s" % (name, DOC))
    return [l for l in m.group(1).splitlines() if l.strip()]


def check_doc_log(gw, origin):
    """Send the request of each example log line of the doc (with the Host
    it shows: the one logged, except where nginx refused the request
    before reading it, where the sent Host is example.com) and require
    the gateway to log exactly that line; a request logged as refused or
    denied never reaches the origin."""
    failures = []
    for want in doc_log_lines(gw.name):
        m = re.match(r'127\.0\.0\.1 (\S+) "GET (\S+) HTTP/1\.1" (\d{3}) ', want)
        if not m:
            raise Failure("the doc's %s log line is not 'ADDR HOST \"GET ...\" STATUS ': %r"
                          % (gw.name, want))
        host, target, status = m.group(1).encode(), m.group(2).encode(), int(m.group(3))
        if status == 400:
            host = b"example.com"
        before = len(origin.seen())
        got_status, _ = raw_request(gw.port, b"GET " + target + b" HTTP/1.1\r\nHost: " + host +
                                    b"\r\nConnection: close\r\n\r\n")
        reached = target in origin.seen()[before:]
        req = '"GET %s HTTP/1.1"' % target.decode()
        deadline = time.monotonic() + 3   # a log line may follow the answer
        while True:
            lines = [l[l.index("127.0.0.1 "):].rstrip() for l in gw.access_log(req).splitlines()
                     if req in l and "127.0.0.1 " in l]
            if lines or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        ok = got_status == status and lines and lines[-1] == want and \
            (status == 200) == reached
        log("  doc log line: %s  %s" % (want[:90], "ok" if ok else "WRONG"))
        if not ok:
            failures.append("sent %s with Host %s: status %s, origin %s, logged %r; the doc "
                            "says %r" % (target, host, got_status,
                                         "saw it" if reached else "never saw it",
                                         lines[-1] if lines else None, want))
    if failures:
        raise Failure("the doc's example log lines through %s:\n  " % gw.name
                      + "\n  ".join(failures))


def nginx_without_server_name(procs, tmp, binary, origin, serve):
    """The snippet less its server_name line: nginx then knows no host for
    an HTTP/1.0 request without Host, sends no X-Original-Host, and the
    service answers 403 no_host_header (never its own Host judged)."""
    tmp2 = os.path.join(tmp, "no-server-name")
    os.mkdir(tmp2)
    gw2 = Nginx(procs, tmp2, binary, origin, serve)
    gw2.no_server_name = True
    gw2.start()
    check_facts(gw2, origin, [("HTTP/1.0 without Host, no server_name",
                               b"GET /h5/x HTTP/1.0\r\n\r\n", DENY, "no_host_header")],
                "the nginx snippet without server_name")
    stop(gw2.proc)


def run_gateway(cls, binary, urisan, args):
    procs = Procs()
    tmp = tempfile.mkdtemp(prefix="urisan-gw-%s-" % cls.name)
    os.chmod(tmp, 0o755)
    ok = False
    try:
        origin = Origin(procs, tmp)
        policy = os.path.join(tmp, "serve.policy")
        write_policy(policy, POLICY_A)
        # The service as the doc's snippet runs it, plus a policy file
        # (the doc's [--policy FILE]) for the reload phase.
        serve = Serve(procs, urisan, tmp, cls.serve_args() + ["--policy", policy])
        if not re.search(r"policy in force: urisan \S+, profile ssrf, policy file ", serve.log()):
            raise Failure("urisan serve as the doc runs it does not log profile ssrf:\n"
                          + serve.log())
        gw = cls(procs, tmp, binary, origin, serve)
        gw.start()
        log("%s: 1. facts (%s)" % (cls.name, " ".join(serve.argv[1:])))
        check_facts(gw, origin)
        log("%s: 1b. metadata, HTTP/1.0 without Host" % cls.name)
        check_facts(gw, origin, threat_cases(cls.name), "--profile ssrf cases")
        log("%s: 1e. nested URLs as clients read them" % cls.name)
        # Every phase runs even when this one fails; it fails at the end.
        nested_failed = None
        try:
            check_facts(gw, origin, nested_cases(), "nested URLs under --profile ssrf")
        except Failure as e:
            nested_failed = e
            log("  (failed: reported at the end)")
        log("%s: 1f. the rows every door must stop (tests/e2e/gateway_rows.py)" % cls.name)
        failures = gateway_rows.check_rows(cls.name + " + serve", gw.port, origin.seen, log)
        if failures:
            raise Failure("rows through %s + serve:\n  " % cls.name + "\n  ".join(failures))
        log("%s: 1c. the doc's example log lines" % cls.name)
        check_doc_log(gw, origin)
        if cls is Nginx:
            log("nginx: 1d. the snippet without server_name")
            nginx_without_server_name(procs, tmp, binary, origin, serve)
        log("%s: 2. load, %d requests over %d connections" % (cls.name, args.requests,
                                                              args.connections))
        secs = load(gw, origin, args.requests, args.connections, "l" + cls.name)
        log("  0 lost, 0 wrong, origin saw exactly the allowed ones (%.1f s, %.0f req/s)"
            % (secs, args.requests / secs))
        n3 = max(args.requests // 3, args.connections)
        log("%s: 3. reload under load, %d requests" % (cls.name, n3))
        secs, hups = reload_phase(gw, origin, serve, policy, n3, args.connections)
        log("  %d SIGHUPs (good, bad, good files); 0 lost, 0 wrong (%.1f s); "
            "a new deny-host took effect" % (hups, secs))
        serve.stop()
        log("  urisan serve: SIGTERM -> exit 0")
        # 4. fail closed: with the service gone nothing gets through.
        before = len(origin.seen())
        status, _ = raw_request(gw.port, b"GET /down/index.html HTTP/1.1\r\n"
                                b"Host: example.com\r\nConnection: close\r\n\r\n")
        if status in (None, 200) or [t for t in origin.seen()[before:] if b"/down/" in t]:
            raise Failure("%s with urisan serve stopped: status %s, or the origin saw it"
                          % (cls.name, status))
        log("%s: 4. service stopped: an allowed URI gets %d, origin never saw it"
            % (cls.name, status))
        if nested_failed is not None:
            raise nested_failed
        ok = True
    finally:
        procs.stop_all()
        if args.keep or not ok:
            log("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("urisan")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--only", choices=["nginx", "haproxy"])
    ap.add_argument("--requests", type=int, default=10000)
    ap.add_argument("--connections", type=int, default=50)
    args = ap.parse_args()
    urisan = os.path.abspath(args.urisan)
    r = subprocess.run([urisan, "serve", "--help"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        log("SKIP: this urisan has no serve command (libmicrohttpd missing at build time)")
        return SKIP

    runs = []
    for cls, name, pkg in ((Nginx, "nginx", "nginx"), (Haproxy, "haproxy", "haproxy")):
        if args.only and args.only != name:
            continue
        binary = find_binary(name, pkg)
        if binary is None:
            log("SKIP %s: not installed and cannot be installed" % name)
            continue
        runs.append((cls, name, binary))

    def run_one(cls, name, binary):
        if len(runs) > 1:
            _thread.prefix = "[%s] " % name
        run_gateway(cls, binary, urisan, args)

    # nginx's and HAProxy's runs at once: each has its own service, origin,
    # ports, files and processes (a run's log lines carry its name).
    with concurrent.futures.ThreadPoolExecutor(max(len(runs), 1)) as ex:
        done = [(name, ex.submit(run_one, cls, name, binary)) for cls, name, binary in runs]
    ran, failed = 0, False
    for name, fut in done:
        try:
            fut.result()
            ran += 1
        except SkipGateway as e:
            log("SKIP %s: %s" % (name, e))
        except Failure as e:
            log("FAIL %s: %s" % (name, e))
            failed = True
    if failed:
        return 1
    if ran == 0:
        log("SKIP: no gateway could be run")
        return SKIP
    log("PASS: %d gateway(s)" % ran)
    return 0


if __name__ == "__main__":
    sys.exit(main())
