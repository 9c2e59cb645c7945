#!/usr/bin/env python3
"""End-to-end test: `urisan squid-acl` as the external ACL helper of a real
Squid (issue 5), with the squid.conf snippet of doc/squid.md.

usage: squid_e2e.py URISAN [--keep] [--requests N] [--connections N]

It starts a local origin server (origin.py) and Squid on 127.0.0.1 and
free ports, with a generated squid.conf (no cache_dir; logs, pid and
state in a temporary directory) around the snippet read from
doc/squid.md, its helper path replaced by URISAN. Two recorder helpers
(recorder.py) write down the exact bytes Squid hands a helper for %>ru
and for %'>ru. Then:

 0. plain: Squid with the snippet turned back into Debian's defaults
    (%>ru, uri_whitespace strip). Raw request lines, written on a socket
    so no client rewrites them, check what a helper is handed: escapes
    unchanged; ~ and \ escaped; spaces stripped; scheme lower-cased;
    numeric host rewritten; userinfo removed; and which control bytes
    get through.
 1. snippet: Squid with the snippet as documented, its helper on the
    default policy (without the snippet's --profile proxy, which denies
    the origin's 127.0.0.1 as loopback). The same requests:
    escaped CR/LF, %2e%2e and raw /../ above the root, %00 are denied
    (403), plain URIs reach the origin (200); %'>ru hands the URL over
    byte for byte. In both phases Squid must enforce exactly what the
    helper answers for the value recorded, and access.log must show
    each request with its status and, when denied, the reasons.
 2. load, on the snippet's Squid: N requests (default 10,000) over C
    persistent connections at once (default 50), about half to be
    denied, each URI unique so each is a helper lookup. Every one must
    get its verdict (allowed: 200 with the origin's echo of its own path;
    denied: 403), none may be lost, the helper never restarted (same
    PIDs, nothing in cache.log).
 3. the snippet verbatim (its helper line with --profile proxy), every
    request routed to a recording origin: nested URLs to denied hosts
    and the cloud metadata service (169.254.169.254 by address, by name)
    get 403 and never reach the origin; `CONNECT 169.254.169.254:443` is
    denied by the helper (it judges https://host:port); the helper's
    start line in cache.log is the one doc/squid.md shows.

Everything started here is stopped by PID, also on failure. Exit 0 on
success, 1 on failure, 77 (skip) only when Squid is missing and cannot be
installed, or cannot be started at all.
"""
import http.client
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    sys.stdout.write(msg + "\n")
    sys.stdout.flush()


class Failure(Exception):
    pass


class SkipTest(Exception):
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


def stop(p, grace=10.0, sig=signal.SIGTERM):
    """SIGTERM (or sig), wait, then SIGKILL: only this PID."""
    if p.poll() is not None:
        return
    try:
        p.send_signal(sig)
        p.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(timeout=grace)
    except ProcessLookupError:
        pass


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


# --------------------------------------------------------------------------
# Squid
# --------------------------------------------------------------------------

def find_squid():
    for cand in (shutil.which("squid"), "/usr/sbin/squid"):
        if cand and os.access(cand, os.X_OK):
            return cand
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return None
    # tools/install-deps.sh keeps Debian from starting (or stopping) the
    # system Squid service while it installs; this test runs its own.
    deps = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "tools", "install-deps.sh")
    log("squid not found: tools/install-deps.sh squid")
    try:
        subprocess.run(["bash", deps, "squid"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=900, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for cand in (shutil.which("squid"), "/usr/sbin/squid"):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


SQUID_CONF = """\
# Generated by tests/e2e/squid_e2e.py
http_port 127.0.0.1:{port}
pid_filename {tmp}/squid.pid
cache_log {tmp}/cache.log
cache_store_log none
coredump_dir {tmp}
netdb_filename none
cache deny all
cache_mem 8 MB
visible_hostname urisan-e2e
shutdown_lifetime 1 seconds
{user}
strip_query_terms off
logformat urisan %ts.%03tu %>a %Ss/%03>Hs %rm %>ru ext_log=%ea
access_log stdio:{tmp}/access.log logformat=urisan

# Record what a helper is handed with %>ru and with %'>ru, for the
# requests marked as facts only.
external_acl_type rec_url concurrency=10 ttl=0 negative_ttl=0 children-max=1 %>ru {python} {tmp}/recorder.py {tmp}/seen_url.log
external_acl_type rec_raw concurrency=10 ttl=0 negative_ttl=0 children-max=1 %'>ru {python} {tmp}/recorder.py {tmp}/seen_raw.log
acl facts req_header X-Urisan-Facts .
acl rec_url external rec_url
acl rec_raw external rec_raw

http_access allow localhost manager
http_access deny manager
http_access deny facts !rec_url
http_access deny facts !rec_raw

# ---- the helper under test ----
{helper}
# ----

http_access allow localhost
http_access deny all
"""


def read_snippet():
    """The squid.conf block of doc/squid.md."""
    path = os.path.join(HERE, "..", "..", "doc", "squid.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"```squidconf\n(.*?)```", text, re.S)
    if not m:
        raise Failure("no ```squidconf block in %s" % path)
    return m.group(1)


HELPER_LINE = re.compile(r"(external_acl_type urisan .*?) \S*/urisan (squid-acl[^\n]*)(?=\n)")


def snippet_helper_args(snippet):
    """The helper's arguments in the snippet (after its path): the policy
    doc/squid.md recommends, `squid-acl --profile proxy`."""
    m = HELPER_LINE.search(snippet)
    if not m:
        raise Failure("the snippet has no 'external_acl_type urisan ... "
                      "/PATH/urisan squid-acl ...' line")
    return m.group(2).split()


def helper_conf(snippet, urisan, plain, default_policy=False):
    """The snippet with our binary in place of the helper's path, the
    rest of its line verbatim; plain: back to Debian's defaults;
    default_policy: the helper without the snippet's --profile (the
    facts phases, whose origin is on 127.0.0.1, which the proxy profile
    denies as loopback)."""
    snippet_helper_args(snippet)
    conf, n = HELPER_LINE.subn(
        lambda m: m.group(1) + " " + urisan + " " + ("squid-acl" if default_policy else m.group(2)),
        snippet)
    if n != 1:
        raise Failure("the snippet has %d helper lines" % n)
    if plain:
        conf = conf.replace("%'>ru", "%>ru")
        conf = re.sub(r"(?m)^uri_whitespace .*$", "", conf)
    return conf


class Squid:
    def __init__(self, squid, urisan, procs, snippet, plain, default_policy=True, extra=""):
        self.squid = squid
        self.urisan = urisan
        self.procs = procs
        self.snippet = snippet
        self.plain = plain
        self.default_policy = default_policy   # the helper without the snippet's --profile
        self.extra = extra       # more squid.conf lines (routing)
        # The recorder that sees what the helper under test sees.
        self.seen_log = "seen_url.log" if plain else "seen_raw.log"
        self.tmp = tempfile.mkdtemp(prefix="urisan-e2e-")
        self.port = free_port()
        self.proc = None
        self.stopping = False

    def path(self, name):
        return os.path.join(self.tmp, name)

    def read(self, name):
        try:
            with open(self.path(name), "rb") as f:
                return f.read().decode("latin-1")
        except OSError:
            return ""

    RUNNABLE = {}   # (argv, user): the answer, asked once a test

    def runnable(self, argv, pw):
        """Can Squid's helper user run argv (EOF in, exit 0)?"""
        key = (tuple(argv), pw and pw.pw_uid)
        if key not in Squid.RUNNABLE:
            Squid.RUNNABLE[key] = self._runnable(argv, pw)
        return Squid.RUNNABLE[key]

    def _runnable(self, argv, pw):
        kw = {}
        if pw is not None:
            kw = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
        try:
            r = subprocess.run(argv, input=b"", stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=20, **kw)
        except (OSError, subprocess.SubprocessError):
            return False
        return r.returncode == 0

    def start(self, wait=True):
        """Squid started; wait: until it listens (else ready() waits)."""
        user, pw = "", None
        if os.geteuid() == 0:
            # As root Squid drops to cache_effective_user: let that user
            # write its logs here and run the helpers.
            try:
                pw = pwd.getpwnam("proxy")
            except KeyError:
                pw = pwd.getpwnam("nobody")
            user = "cache_effective_user %s" % pw.pw_name
            os.chown(self.tmp, pw.pw_uid, pw.pw_gid)
        os.chmod(self.tmp, 0o755)
        # The helpers run as that user: copy them here when it cannot
        # reach them where they are (a build tree under /root, say).
        urisan = self.urisan
        if not self.runnable([urisan, "squid-acl"], pw):
            urisan = self.path("urisan")
            shutil.copy(self.urisan, urisan)
            if not self.runnable([urisan, "squid-acl"], pw):
                raise Failure("%s squid-acl does not run as the helper user"
                              % self.urisan)
        recorder = self.path("recorder.py")
        shutil.copy(os.path.join(HERE, "recorder.py"), recorder)
        python = None
        for py in (sys.executable, "/usr/bin/python3"):
            if self.runnable([py, "-c", "pass"], pw):
                python = py
                break
        if python is None:
            raise Failure("no python3 the helper user can run")
        helper = helper_conf(self.snippet, urisan, self.plain, self.default_policy) + self.extra
        if "%'>ru" not in helper and not self.plain:
            self.seen_log = "seen_url.log"
        conf = SQUID_CONF.format(port=self.port, tmp=self.tmp, user=user,
                                 python=python, helper=helper)
        with open(self.path("squid.conf"), "w") as f:
            f.write(conf)
        chk = subprocess.run([self.squid, "-k", "parse", "-f",
                              self.path("squid.conf")],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if chk.returncode != 0:
            raise Failure("squid -k parse rejects the generated config:\n"
                          + chk.stdout.decode("latin-1"))
        err = open(self.path("squid.stderr"), "wb")
        self.proc = self.procs.start(
            [self.squid, "-N", "-d", "1", "-f", self.path("squid.conf")],
            stdin=subprocess.DEVNULL, stdout=err, stderr=err)
        if wait:
            self.ready()

    def ready(self):
        if not wait_listening(self.port, self.proc, 30):
            raise SkipTest("squid could not be started:\n"
                           + self.read("squid.stderr")[-3000:]
                           + self.read("cache.log")[-3000:])
        log("squid %d listening on 127.0.0.1:%d, files in %s"
            % (self.proc.pid, self.port, self.tmp))

    def begin_stop(self):
        """SIGINT (Squid's immediate shutdown, no shutdown_lifetime), not
        waiting: the next phase runs while it shuts down (~1.5 s)."""
        if self.proc is not None and self.proc.poll() is None and not self.stopping:
            self.proc.send_signal(signal.SIGINT)
            self.stopping = True

    def stop(self):
        if self.proc is not None:
            if self.stopping:
                try:
                    self.proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    pass
            stop(self.proc, grace=15, sig=signal.SIGINT)

    def cleanup(self, keep):
        self.stop()
        if keep:
            log("kept %s" % self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def mgr(self, page):
        """A cache manager page, through the proxy port."""
        req = ("GET cache_object://127.0.0.1/%s HTTP/1.0\r\n"
               "Host: 127.0.0.1\r\n\r\n" % page).encode()
        status, _, body = raw_request(self.port, req)
        if status != 200:
            raise Failure("cache manager page %s: status %s" % (page, status))
        return body.decode("latin-1")

    def helper_stats(self, name):
        """(requests sent, replies received, set of helper PIDs)."""
        text = self.mgr("external_acl")
        m = re.search(r"External ACL Statistics: %s\b(.*?)(?:\nExternal ACL Statistics:|\Z)"
                      % re.escape(name), text, re.S)
        if not m:
            raise Failure("no statistics for helper %s:\n%s" % (name, text))
        sec = m.group(1)
        sent = int(re.search(r"requests sent: (\d+)", sec).group(1))
        recv = int(re.search(r"replies received: (\d+)", sec).group(1))
        pids = set()
        for line in sec.splitlines():
            f = line.split()
            # "  ID #   FD   PID  # Requests ..." rows start with a digit id
            if len(f) >= 5 and f[0].isdigit() and f[1].isdigit() and f[2].isdigit():
                pids.add(int(f[2]))
        return sent, recv, pids


# --------------------------------------------------------------------------
# HTTP clients
# --------------------------------------------------------------------------

def raw_request(port, data, timeout=20):
    """Write data as is, read until the server closes; (status, head, body)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        chunks = []
        while True:
            b = s.recv(65536)
            if not b:
                break
            chunks.append(b)
    finally:
        s.close()
    resp = b"".join(chunks)
    head, _, body = resp.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/\d\.\d (\d{3})", head)
    return (int(m.group(1)) if m else None), head, body


def facts_request(target, host):
    return (b"GET " + target + b" HTTP/1.1\r\nHost: " + host +
            b"\r\nX-Urisan-Facts: 1\r\nConnection: close\r\n\r\n")


def helper_verdicts(urisan, values, args=()):
    """What `urisan squid-acl` answers, run directly (one run, a channel ID
    a value), for each value: ["0 OK ...", ...] as it answers one alone."""
    lines = b"".join(b"%d %s\n" % (i, v) for i, v in enumerate(values))
    r = subprocess.run([urisan, "squid-acl", "--quiet"] + list(args),
                       input=lines, stdout=subprocess.PIPE, timeout=60)
    got = {}
    for line in r.stdout.decode("latin-1").splitlines():
        ch, _, rest = line.partition(" ")
        got[int(ch)] = "0 " + rest
    return [got.get(i, "") for i in range(len(values))]


# --------------------------------------------------------------------------
# Phase 1: facts
# --------------------------------------------------------------------------

DENY, PASS, REJECT = "403", "not 403", "400"   # expected outcomes


def fact_cases(op):
    """(name, request-target, Host, {mode: (value a helper gets or None
    when Squid refuses the request itself, outcome)}) for mode "url"
    (%>ru, uri_whitespace strip) and "raw" (the snippet: %'>ru,
    uri_whitespace deny). Paths are unique (/fN/) to find each in the
    logs."""
    o = b"127.0.0.1:%d" % op
    h = b"http://" + o

    def same(v, outcome):
        return {"url": (v, outcome), "raw": (v, outcome)}

    return [
        ("escaped CR/LF", h + b"/f1/a%0d%0aSet-Cookie:x=1", o,
         same(h + b"/f1/a%0d%0aSet-Cookie:x=1", DENY)),
        ("%2e%2e above root", h + b"/%2e%2e/%2E%2e/f2/passwd", o,
         same(h + b"/%2e%2e/%2E%2e/f2/passwd", DENY)),
        ("raw /../ above root", h + b"/f3/../../etc/passwd", o,
         same(h + b"/f3/../../etc/passwd", DENY)),
        ("%00", h + b"/f4/a%00.txt", o, same(h + b"/f4/a%00.txt", DENY)),
        ("plain", h + b"/f5/index.html?q=1", o,
         same(h + b"/f5/index.html?q=1", 200)),
        ("tilde, backslash", h + b"/f6/~user/a\\b", o,
         {"url": (h + b"/f6/%7Euser/a%5Cb", 200),
          "raw": (h + b"/f6/~user/a\\b", DENY)}),
        ("space", h + b"/f7/a b", o,
         {"url": (h + b"/f7/ab", 200), "raw": (None, REJECT)}),
        ("upper-case scheme", b"HTTP://" + o + b"/f8/x", o,
         same(h + b"/f8/x", 200)),
        ("decimal IPv4 host", b"http://2130706433:%d/f9/x" % op,
         b"2130706433:%d" % op, same(h + b"/f9/x", 200)),
        ("userinfo", b"http://user:secret@" + o + b"/f10/x", o,
         same(h + b"/f10/x", 200)),
        ("non-ASCII", h + b"/f11/na\xc3\xafve", o,
         {"url": (h + b"/f11/na%C3%AFve", 200),
          "raw": (h + b"/f11/na\xc3\xafve", DENY)}),
        ("IPv6 literal", b"http://[::1]:%d/f12/x" % op, b"[::1]:%d" % op,
         {"url": (b"http://%%5B::1%%5D:%d/f12/x" % op, DENY),
          "raw": (b"http://[::1]:%d/f12/x" % op, PASS)}),
        ("vertical tab", h + b"/f13/a\x0bb", o,
         {"url": (h + b"/f13/a%0Bb", PASS), "raw": (h + b"/f13/a\x0bb", DENY)}),
        ("fragment", h + b"/f14/p#frag", o,
         {"url": (h + b"/f14/p%23frag", 200), "raw": (h + b"/f14/p#frag", 200)}),
        ("long URL", h + b"/f15/" + b"a" * 9000, o, same(None, REJECT)),
        ("hex IPv4 host", b"http://0x7f000001:%d/f16/x" % op,
         b"0x7f000001:%d" % op, same(h + b"/f16/x", 200)),
    ]


def ask(sq, target, host):
    """One facts request: (status, body, value handed to each recorder)."""
    before = {n: len(sq.read(n).splitlines()) for n in ("seen_url.log", "seen_raw.log")}
    status, _, body = raw_request(sq.port, facts_request(target, host))
    seen, problems = {}, []
    for n, b in before.items():
        lines = sq.read(n).splitlines()
        if len(lines) == b:
            seen[n] = None
            continue
        if len(lines) != b + 1:
            problems.append("%s has %d new lines" % (n, len(lines) - b))
        # A bytes repr() of the line after the channel-ID. Squid appends
        # %DATA ("-" when the acl line has no arguments) to the FORMAT
        # values; the value is the first field.
        line = eval(lines[b], {"__builtins__": {}})
        seen[n] = line.split(b" ")[0]
        if line != seen[n] + b" -":
            problems.append("%s: helper line %r is not 'VALUE -'" % (n, line))
    return status, body, seen, problems


def judge_outcome(status, outcome):
    if outcome == DENY:
        return status == 403
    if outcome == PASS:
        return status is not None and status != 403
    if outcome == REJECT:
        return status == 400
    return status == outcome


def facts(sq, urisan, origin_port):
    """Phases 0 and 1: [failure, ...]."""
    mode = "url" if sq.plain else "raw"
    failures = []
    rows = []
    asked = []
    for name, target, host, want in fact_cases(origin_port):
        status, body, seen, problems = ask(sq, target, host)
        failures += ["%s: %s" % (name, p) for p in problems]
        asked.append((name, target, want, status, body, seen[sq.seen_log]))
    verdicts = iter(helper_verdicts(urisan, [a[5] for a in asked if a[5] is not None]))
    for name, target, want, status, body, value in asked:
        want_seen, outcome = want[mode]
        verdict = next(verdicts) if value is not None else None
        log("  %-18s %-4s %s\n  %18s  got %r -> %s"
            % (name, mode, "sent %r" % target[:70], "", value and value[:70],
               "%s, helper: %s" % (status, verdict) if verdict else status))
        if value != want_seen:
            failures.append("%s: a helper was handed %r, want %r"
                            % (name, value, want_seen))
        if not judge_outcome(status, outcome):
            failures.append("%s: status %s, want %s" % (name, status, outcome))
        # Whatever arrives, Squid enforces exactly what the helper answers.
        if value is None:
            if status != 400:
                failures.append("%s: no helper saw it, yet status %s" % (name, status))
        elif not verdict.startswith(("0 OK", "0 ERR")):
            failures.append("%s: helper answered %r" % (name, verdict))
        elif (status == 403) != verdict.startswith("0 ERR"):
            failures.append("%s: status %s, but the helper answers %r"
                            % (name, status, verdict))
        if status == 200 and b"origin saw: " not in body:
            failures.append("%s: 200 without the origin's body" % name)
        rows.append((name, target, value, status, verdict))

    # access.log: every request that reached the ACLs, with its reasons
    # (written after the reply: wait for the last one's line, up to 5 s).
    last = max(n for n, row in enumerate(rows, 1) if row[2] is not None)
    deadline = time.monotonic() + 5
    while "/f%d/" % last not in sq.read("access.log") and time.monotonic() < deadline:
        time.sleep(0.02)
    alog = sq.read("access.log").splitlines()
    for n, (name, target, value, status, verdict) in enumerate(rows, 1):
        if value is None:
            continue
        mark = "/f%d/" % n
        lines = [l for l in alog if mark in l and " GET " in l]
        if len(lines) != 1 or ("/%03d GET " % status) not in lines[0]:
            failures.append("%s: access.log lines %r, want one with status %s"
                            % (name, lines, status))
            continue
        m = re.search(r' log="([^"]*)"', verdict)
        want_log = m.group(1) if m else "-"
        if not lines[0].endswith(" ext_log=" + want_log):
            failures.append("%s: access.log %r, want ext_log=%s"
                            % (name, lines[0], want_log))

    failures += control_bytes(sq, urisan, origin_port)
    return failures


def connect(sq, o):
    """CONNECT o through Squid, then a GET through the tunnel: (the
    CONNECT's answer head, what came back through the tunnel)."""
    s = socket.create_connection(("127.0.0.1", sq.port), timeout=20)
    try:
        s.sendall(b"CONNECT " + o + b" HTTP/1.1\r\nHost: " + o + b"\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            b = s.recv(4096)
            if not b:
                break
            head += b
        # Through the tunnel, the origin itself answers.
        s.sendall(b"GET /tunnel HTTP/1.1\r\nHost: " + o + b"\r\nConnection: close\r\n\r\n")
        rest = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            rest += b
    finally:
        s.close()
    log("  CONNECT %s -> %r, then %r" % (o.decode(), head.split(b"\r\n")[0],
                                        rest.split(b"\r\n")[0]))
    return head, rest


def connect_passes(sq, origin_port):
    """CONNECT carries host:port, not a URL: the snippet asks the helper
    for it too, which judges https://host:port (the default policy of
    the facts phase only flags the origin's 127.0.0.1), and the tunnel
    opens."""
    sent0 = sq.helper_stats("urisan")[0]
    head, rest = connect(sq, b"127.0.0.1:%d" % origin_port)
    sent1 = sq.helper_stats("urisan")[0]
    failures = []
    if not head.startswith(b"HTTP/1.1 200"):
        failures.append("CONNECT: %r" % head[:100])
    if b"origin saw: /tunnel" not in rest:
        failures.append("CONNECT: the tunnel gave %r" % rest[:200])
    if sent1 - sent0 != 1:
        failures.append("CONNECT: the helper was asked %d times, not once" % (sent1 - sent0))
    return failures


def connect_denied(sq):
    """The snippet verbatim (--profile proxy): CONNECT to the cloud
    metadata service's address is denied by the helper (403, ip_link_local
    in access.log), no tunnel opened."""
    sent0 = sq.helper_stats("urisan")[0]
    head, _ = connect(sq, b"169.254.169.254:443")
    sent1 = sq.helper_stats("urisan")[0]
    lines = [l for l in sq.read("access.log").splitlines() if " CONNECT 169.254.169.254:443" in l]
    failures = []
    if not head.startswith(b"HTTP/1.1 403"):
        failures.append("CONNECT 169.254.169.254:443 not denied: %r" % head[:100])
    if sent1 - sent0 != 1:
        failures.append("CONNECT 169.254.169.254:443: the helper was asked %d times"
                        % (sent1 - sent0))
    if not lines or "ip_link_local" not in lines[-1]:
        failures.append("access.log does not name ip_link_local for the CONNECT: %r" % lines)
    return failures


def control_bytes(sq, urisan, origin_port):
    """Each C0 control byte and DEL (not LF, which ends the request line)
    in a path: Squid refuses it, strips or cuts it, or hands it over.
    Whatever a helper gets never holds a space or LF (the protocol's
    framing), and a raw control byte that gets through is denied."""
    o = b"127.0.0.1:%d" % origin_port
    mode = "url" if sq.plain else "raw"
    failures = []
    refused, changed, raw = [], [], []
    for c in list(range(0x20)) + [0x7f]:
        if c == 0x0a:
            continue
        target = b"http://" + o + b"/fc%02x/a" % c + bytes([c]) + b"b"
        status, _, seen, problems = ask(sq, target, o)
        failures += ["control %02x: %s" % (c, p) for p in problems]
        value = seen[sq.seen_log]
        if value is None:
            refused.append(c)
            if status != 400:
                failures.append("control %02x: no helper saw it, status %s" % (c, status))
            continue
        if b" " in value or b"\n" in value:
            failures.append("control %02x: a helper got %r" % (c, value))
        if bytes([c]) in value:
            raw.append(c)
            if status != 403:
                failures.append("control %02x: handed over raw, status %s" % (c, status))
        else:
            changed.append((c, value[value.index(b"/fc"):]))
    log("  control bytes (%s): refused by Squid: %s" % (mode, " ".join("%02x" % c for c in refused)))
    log("  %22s  to helpers raw (denied): %s" % ("", " ".join("%02x" % c for c in raw) or "none"))
    log("  %22s  changed: %s" % ("", ", ".join("%02x as %r" % cv for cv in changed) or "none"))
    return failures


# --------------------------------------------------------------------------
# Phase 2: load
# --------------------------------------------------------------------------

def load_targets(origin_port, n):
    """Unique URIs, about half denied, and the status each must get."""
    o = "http://127.0.0.1:%d" % origin_port
    out = []
    for i in range(n):
        k = i % 6
        if k == 0:
            out.append((o + "/load/%d/a%%0d%%0aX-Injected:%d" % (i, i), 403))
        elif k == 1:
            out.append((o + "/load/%%2e%%2e/%%2e%%2e/%d/etc/passwd" % i, 403))
        elif k == 2:
            out.append((o + "/load/%d/file%%00.txt" % i, 403))
        else:
            out.append((o + "/load/%d/ok.html?q=%d" % (i, i), 200))
    return out


def load(sq, origin_port, n, conns):
    targets = load_targets(origin_port, n)
    lock = threading.Lock()
    state = {"next": 0, "ok": 0, "wrong": [], "lost": [], "answered": 0}

    def worker():
        c = http.client.HTTPConnection("127.0.0.1", sq.port, timeout=60)
        while True:
            with lock:
                i = state["next"]
                if i >= len(targets):
                    break
                state["next"] = i + 1
            url, want = targets[i]
            try:
                c.request("GET", url, headers={
                    "Host": "127.0.0.1:%d" % origin_port})
                r = c.getresponse()
                body = r.read()
            except (OSError, http.client.HTTPException) as e:
                with lock:
                    state["lost"].append((url, repr(e)))
                c.close()
                c = http.client.HTTPConnection("127.0.0.1", sq.port, timeout=60)
                continue
            path = url[url.index("/load/"):]
            good = r.status == want and (
                want != 200 or body == b"origin saw: " + path.encode() + b"\n")
            with lock:
                state["answered"] += 1
                if good:
                    state["ok"] += 1
                else:
                    state["wrong"].append((url, r.status, want, body[:200]))
        c.close()

    threads = [threading.Thread(target=worker) for _ in range(conns)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    return targets, state, elapsed


# --------------------------------------------------------------------------
# Phase 3: the snippet's --profile proxy: nested URLs, the metadata service
# --------------------------------------------------------------------------

# Every request goes to the recording origin whatever its host, so that
# URLs name an ordinary site (app.example): under the proxy profile the
# origin's own 127.0.0.1 would be denied as loopback before any nested
# URL is looked at.
PROXY_ROUTE = """
cache_peer 127.0.0.1 parent {port} 0 no-query no-digest originserver name=origin
never_direct allow all
"""


def proxy_cases():
    """(name, path, outcome, a reason the helper's log= must hold or None).
    Paths carry a unique /qN/. Each nested URL names a host the proxy
    profile's deny lists hold (127.0.0.1.nip.io: wildcard DNS, the proxy
    host itself), spelled as real clients (URLSearchParams and a WHATWG
    URL parser, Python's parse_qs and urljoin) read it."""
    nip = b"127.0.0.1.nip.io/"
    deep = b"http://" + nip
    for i in range(5):
        deep = b"http://hop%d.example/r?next=" % (i + 1) + deep
        if i == 1:
            three = deep   # the host is the third nested URL
    return [
        ("a public nested URL", b"/q0/r?u=https://example.org/", 200, None),
        ("plain nested wildcard-DNS host", b"/q9/r?u=http://" + nip, DENY, "nested_host_denied"),
        ("';' inside the value", b"/q1/r?u=http://example.org;@" + nip, DENY, None),
        ("'+' before the URL", b"/q2/r?u=+http://" + nip, DENY, None),
        ("80 x %20 before the URL", b"/q3/r?u=" + b"%20" * 80 + b"http://" + nip, DENY, None),
        ("a tab in /%09/", b"/q4/r?u=/%09/" + nip, DENY, None),
        ("http:%5C%5C", b"/q5/r?u=http:%5C%5C" + nip, DENY, None),
        ("http:/", b"/q6/r?u=http:/" + nip, DENY, None),
        ("http:///", b"/q7/r?u=http:///" + nip, DENY, None),
        ("3 nested levels (followed)", b"/q8/r?next=" + three, DENY, None),
        # Deeper than every profile follows (3 levels): proxy reports it
        # (flag nested_deep), it does not deny it; ssrf and mail do.
        ("6 nested levels (reported)", b"/q10/r?next=" + deep, 200, "nested_deep"),
        # The cloud metadata service, by address and by name (absolute
        # URLs: the request names that host itself).
        ("metadata address", b"http://169.254.169.254/latest/meta-data/", DENY, "ip_link_local"),
        ("metadata name", b"http://metadata.google.internal/computeMetadata/v1/", DENY,
         "internal_name"),
    ]


def proxy_phase(sq, origin_log):
    """Each case through the snippet's Squid, its helper line verbatim
    (--profile proxy): denied ones get 403 and the origin receives
    nothing; the others reach it unchanged. The helper's log= names the
    reason where one is given."""
    import ast
    failures = []
    args = snippet_helper_args(sq.snippet)[1:]
    if args != ["--profile", "proxy"]:
        failures.append("the snippet's helper runs with %r, not --profile proxy" % args)
    cases = proxy_cases()
    urls = [path if path.startswith(b"http://") else b"http://app.example" + path
            for _, path, _, _ in cases]
    verdicts = helper_verdicts(sq.urisan, urls, args)
    for (name, path, outcome, reason), url, verdict in zip(cases, urls, verdicts):
        with open(origin_log, "rb") as f:
            before = len(f.read().splitlines())
        host = url.split(b"/")[2]
        path = b"/" + url.split(b"/", 3)[3]
        status, _, body = raw_request(sq.port, b"GET " + url + b" HTTP/1.1\r\nHost: " + host +
                                      b"\r\nConnection: close\r\n\r\n")
        with open(origin_log, "rb") as f:
            seen = [ast.literal_eval(l.decode("ascii")) for l in f.read().splitlines()[before:]]
        reached = path in seen
        ok = judge_outcome(status, outcome) and reached == (outcome == 200)
        if ok and outcome == 200:
            ok = body == b"origin saw: " + path + b"\n"
        if ok and reason is not None:
            ok = reason in verdict
        log("  %-32s -> %s, origin %s; helper: %s  %s"
            % (name, status, "saw it" if reached else "never saw it", verdict[:70],
               "ok" if ok else "WRONG"))
        if not ok:
            failures.append("--profile proxy, %s: %r -> %s, origin %s, helper %r (want %s%s)"
                            % (name, url[:120], status, "saw it" if reached else "never saw it",
                               verdict, outcome, ", " + reason if reason else ""))
    # What the helper logs at start is the line doc/squid.md shows.
    with open(os.path.join(HERE, "..", "..", "doc", "squid.md"), encoding="utf-8") as f:
        want = [l.strip() for l in f if l.startswith("    urisan: squid-acl: ")]
    version = subprocess.run([sq.urisan, "--version"], stdout=subprocess.PIPE,
                             timeout=20).stdout.decode().split()[-1]
    lines = sq.read("cache.log").splitlines()
    if len(want) != 1 or want[0].replace("urisan 0.2.0", "urisan " + version) not in lines:
        failures.append("cache.log does not hold the helper's line doc/squid.md shows (%r): %r"
                        % (want, [l for l in lines if "squid-acl" in l]))
    return failures


def reconfigure_logs_again(sq):
    """`squid -k reconfigure` (SIGHUP) starts new helpers: each says again
    what it enforces in cache.log."""
    mark = "urisan: squid-acl: policy in force: "
    before = sq.read("cache.log").count(mark)
    sq.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and sq.read("cache.log").count(mark) <= before:
        time.sleep(0.1)
    after = sq.read("cache.log").count(mark)
    log("  squid -k reconfigure: helper lines in cache.log %d -> %d" % (before, after))
    return [] if after > before else ["after a reconfigure no new helper logged what it enforces"]


# --------------------------------------------------------------------------

def main(argv):
    args = argv[1:]
    keep = "--keep" in args
    n, conns = 10000, 50
    if "--requests" in args:
        n = int(args[args.index("--requests") + 1])
    if "--connections" in args:
        conns = int(args[args.index("--connections") + 1])
    pos = [a for i, a in enumerate(args) if not a.startswith("--")
           and (i == 0 or args[i - 1] not in ("--requests", "--connections"))]
    if len(pos) != 1:
        sys.stderr.write(__doc__)
        return 2
    urisan = os.path.abspath(pos[0])
    if not os.access(urisan, os.X_OK):
        log("FAIL: %s is not executable" % urisan)
        return 1

    squid = find_squid()
    if squid is None:
        log("SKIP: squid is not installed and could not be installed "
            "(apt-get install -y squid needs root and a package mirror)")
        return SKIP
    ver = subprocess.run([squid, "-v"], stdout=subprocess.PIPE).stdout
    log(ver.decode("latin-1").splitlines()[0] if ver else squid)

    # A test runner's timeout sends SIGTERM: unwind, so that the finally
    # clause below still stops what we started.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))
    procs = Procs()
    squids = []
    sq = None
    origin_log = None
    failures = []
    try:
        snippet = read_snippet()
        origin = procs.start([sys.executable, os.path.join(HERE, "origin.py")],
                             stdout=subprocess.PIPE)
        origin_port = int(origin.stdout.readline())
        log("origin %d listening on 127.0.0.1:%d" % (origin.pid, origin_port))

        # The three phases' Squids start at once (each start takes ~1 s).
        origin_log = os.path.join(tempfile.mkdtemp(prefix="urisan-e2e-origin-"), "seen.log")
        open(origin_log, "wb").close()
        rec = procs.start([sys.executable, os.path.join(HERE, "gateway_origin.py"), origin_log],
                          stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        rec_port = int(rec.stdout.readline())
        sq0 = Squid(squid, urisan, procs, snippet, plain=True)
        sq1 = Squid(squid, urisan, procs, snippet, plain=False)
        sq3 = Squid(squid, urisan, procs, snippet, plain=False, default_policy=False,
                    extra=PROXY_ROUTE.format(port=rec_port))
        for q in (sq0, sq1, sq3):
            squids.append(q)
            q.start(wait=False)

        log("phase 0: Debian's defaults (%>ru, uri_whitespace strip): "
            "what a helper is handed")
        sq = sq0
        sq.ready()
        failures += facts(sq, urisan, origin_port)
        failures += helper_log_clean(sq)
        if failures:
            raise Failure("phase 0")
        sq.begin_stop()   # waited for and removed at the end

        log("phase 1: the snippet of doc/squid.md")
        sq = sq1
        sq.ready()
        _, _, pids0 = sq.helper_stats("urisan")
        failures += facts(sq, urisan, origin_port)
        failures += connect_passes(sq, origin_port)
        if failures:
            raise Failure("phase 1")

        log("phase 2: %d requests over %d connections" % (n, conns))
        sent0, recv0, _ = sq.helper_stats("urisan")
        targets, st, elapsed = load(sq, origin_port, n, conns)
        sent1, recv1, pids2 = sq.helper_stats("urisan")
        answers = recv1 - recv0
        denied = sum(1 for _, w in targets if w == 403)
        log("  requests %d (%d to deny), answered %d, right %d, wrong %d, lost %d"
            % (n, denied, st["answered"], st["ok"], len(st["wrong"]),
               len(st["lost"])))
        log("  %.1f s, %.0f requests/s; helper: %d answers, %.0f answers/s; "
            "helper PIDs %s" % (elapsed, n / elapsed, answers,
                                answers / elapsed, sorted(pids2)))
        for w in st["wrong"][:10]:
            failures.append("wrong answer: %r" % (w,))
        for w in st["lost"][:10]:
            failures.append("lost: %r" % (w,))
        if st["lost"] or st["wrong"] or st["ok"] != n:
            failures.append("%d right of %d" % (st["ok"], n))
        if answers < n:
            failures.append("helper answered %d lookups for %d unique URIs"
                            % (answers, n))
        if sent1 - sent0 != answers:
            failures.append("helper: %d requests sent, %d replies"
                            % (sent1 - sent0, answers))
        if not pids0 <= pids2:
            failures.append("helper restarted: PIDs %s before, %s after"
                            % (sorted(pids0), sorted(pids2)))
        failures += helper_log_clean(sq)
        alines = [line for line in sq.read("access.log").splitlines()
                  if " GET http://127.0.0.1:%d/load/" % origin_port in line]
        if len(alines) != n:
            failures.append("access.log has %d load lines, want %d"
                            % (len(alines), n))
        if failures:
            raise Failure("phase 2")
        sq.begin_stop()

        log("phase 3: the snippet verbatim (--profile proxy): nested URLs, metadata")
        sq = sq3
        sq.ready()
        failures += proxy_phase(sq, origin_log)
        failures += connect_denied(sq)
        failures += helper_log_clean(sq)
        failures += reconfigure_logs_again(sq)
        if failures:
            raise Failure("phase 3")
        log("PASS")
        return 0
    except SkipTest as e:
        log("SKIP: %s" % e)
        return SKIP
    except Failure as e:
        log("FAIL (%s):\n  %s" % (e, "\n  ".join(failures)))
        if sq is not None:
            log("--- cache.log (tail) ---\n" + sq.read("cache.log")[-4000:])
        return 1
    finally:
        for q in squids:
            q.begin_stop()
        for q in squids:
            q.cleanup(keep)
        procs.stop_all()
        if origin_log is not None:
            shutil.rmtree(os.path.dirname(origin_log), ignore_errors=True)


def helper_log_clean(sq):
    """cache.log must not tell of a helper that died, was restarted, or
    answered BH, nor of any other trouble."""
    bad = [line for line in sq.read("cache.log").splitlines()
           if re.search(r"exited|FATAL|assertion|Too few|queue overload|"
                        r"\bBH\b|crash|helper.*(died|error)", line, re.I)]
    return ["cache.log:\n  " + "\n  ".join(bad[:20])] if bad else []


if __name__ == "__main__":
    sys.exit(main(sys.argv))
