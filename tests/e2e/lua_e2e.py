#!/usr/bin/env python3
"""End-to-end test: the urisan Lua module inside a real nginx
(lua-nginx-module, LuaJIT) and a real HAProxy 2.6 (Lua 5.3), with the
blocks of doc/lua.md.

usage: lua_e2e.py LUADIR [--only nginx|haproxy] [--requests N] [--connections N]

LUADIR is the build's lua/ directory (lua/5.1/urisan.so, lua/5.3/urisan.so).
For each server it starts, on 127.0.0.1 and free ports, an origin that
records every request target it receives (gateway_origin.py) and the
server with a configuration generated around the doc's blocks (copied
verbatim; only ports, the module directory and file paths are replaced),
the ssrf profile plus a site policy file denying blocked.example. Then:

 1. facts: raw request lines on a socket. Allowed URIs reach the origin
    unchanged (200 and the origin's echo); denied ones - the metadata
    address by Host header and as an absolute-form target, traversal
    (%2e%2e above the root, ..%2f), escaped CR/LF, URLs nested in the
    query (?next=http://169.254.169.254/, ?url=http%3A%2F%2F127.0.0.1...,
    double-encoded, //metadata/...), the site policy's host - get 403
    with X-Urisan-Verdict: deny and X-Urisan-Deny-Reasons, and never
    reach the origin; the access log has the verdict and reasons.
 2. nginx only: reload. The policy file gains a deny-host; SIGHUP to the
    master: the new workers deny that host. Then a policy file with a
    mistake: the reload fails (the error log names line, column, word),
    the running workers keep the last good policy.
 3. load: N requests (default 4,000) over C persistent connections
    (default 20), every other one to be denied, each target unique:
    0 lost, 0 wrong, and the origin saw exactly the allowed ones.

Everything started here is stopped by PID, also on failure. Exit 0 on
success, 1 on failure, 77 (skip) when neither server with Lua can be run.
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gateway_e2e as e2e  # noqa: E402
from gateway_e2e import Failure, SkipGateway, log  # noqa: E402
import gateway_rows  # noqa: E402

SKIP = 77
DOC = os.path.join(HERE, "..", "..", "doc", "lua.md")
NGINX_MODULES = "/usr/lib/nginx/modules"


def doc_block(marker):
    """The fenced block after <!-- MARKER: ... --> in doc/lua.md."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- %s: [^>]*-->\n```\w*\n(.*?)```" % re.escape(marker), text, re.S)
    if not m:
        raise Failure("no block marked '%s' in %s" % (marker, DOC))
    return m.group(1)


replace_once = e2e.replace_once

SITE_POLICY = "# site policy (tests/e2e/lua_e2e.py)\ndeny-host blocked.example\n"
SITE_POLICY_2 = SITE_POLICY + "deny-host later.example\n"
SITE_POLICY_BAD = "deny-host blocked.example\ndeny bogus_flag\n"


def request(port, raw, timeout=20):
    """Write raw, read to the close: (status, headers dict, body)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    chunks = []
    try:
        s.sendall(raw)
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
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    m = re.match(r"HTTP/\d\.\d (\d{3})", lines[0]) if lines else None
    hdrs = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return (int(m.group(1)) if m else None), hdrs, body


def get(target, host=b"example.com"):
    return b"GET " + target + b" HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n"


ALLOW, DENY, REFUSED = "allow", "deny", "refused"

# (name, raw request, outcome, a deny reason); /fN/ finds it in the logs.
FACTS = [
    ("plain", get(b"/f1/index.html?q=1"), ALLOW, None),
    ("escapes and tilde kept", get(b"/f2/~user/%41%42?x=%2F"), ALLOW, None),
    ("metadata by Host", get(b"/f3/latest/meta-data/", b"169.254.169.254"), DENY, "ip_link_local"),
    ("metadata, absolute-form",
     get(b"http://169.254.169.254/f4/latest/meta-data/", b"169.254.169.254"), DENY,
     "ip_link_local"),
    # nginx refuses these two itself (400: above the root once decoded)
    ("..%2f traversal", get(b"/f5/..%2f..%2f..%2fetc/passwd"), "nginx:" + DENY, "encoded_slash"),
    ("%2e%2e above the root", get(b"/f6/a/%2e%2e/%2e%2e/%2e%2e/etc/passwd"), "nginx:" + DENY,
     "dot_above_root"),
    ("double-encoded traversal", get(b"/f13/%252e%252e/%252e%252e/etc/passwd"), DENY,
     "double_encoding"),
    ("..%5c traversal", get(b"/f14/..%5c..%5cwindows/win.ini"), DENY, "encoded_slash"),
    ("escaped CR/LF", get(b"/f7/a%0d%0aSet-Cookie:x=1"), DENY, "escaped_crlf"),
    ("nested ?next=metadata", get(b"/f8/r?next=http://169.254.169.254/latest/"), DENY,
     "nested_url"),
    ("nested, encoded loopback", get(b"/f9/r?url=http%3A%2F%2F127.0.0.1%3A6379%2F"), DENY,
     "nested_url"),
    ("nested, double-encoded", get(b"/f10/r?url=http%253A%252F%252F10.0.0.1%252F"), DENY,
     "nested_url"),
    ("nested //metadata", get(b"/f11/r?u=//metadata/computeMetadata/v1/"), DENY,
     "nested_host_denied"),
    ("site policy's host", get(b"/f12/", b"blocked.example"), DENY, "host_denied"),
]


def check_facts(gw, origin):
    before = len(origin.seen())
    failures = []
    for name, raw, expect, reason in FACTS:
        if expect.startswith("nginx:"):
            expect = REFUSED if gw.name == "nginx" else expect[6:]
        status, hdrs, body = request(gw.port, raw)
        target = raw.split(b" ")[1]
        marker = re.search(rb"/f\d+/", target).group(0)
        reached = [t for t in origin.seen()[before:] if marker in t]
        if expect == ALLOW:
            ok = status == 200 and body == b"origin saw: " + target + b"\n" and reached == [target]
        elif expect == REFUSED:
            ok = status == 400 and not reached
        else:
            ok = (status == 403 and not reached and hdrs.get("x-urisan-verdict") == "deny" and
                  reason in hdrs.get("x-urisan-deny-reasons", "").split(","))
        log("  %-28s %-6s -> %s %s, origin %s  %s" % (
            name, expect, status, hdrs.get("x-urisan-deny-reasons", ""),
            "saw it" if reached else "never saw it", "ok" if ok else "WRONG"))
        if not ok:
            failures.append("%s: %r -> %s %r %r, origin saw %r" % (name, raw, status, hdrs,
                                                                     body[:80], reached))
            continue
        if expect == DENY:  # the log line of a denied request
            line = [l for l in gw.access_log(marker.decode()).splitlines()
                    if marker.decode() in l]
            if not line or "urisan=deny" not in line[-1] or reason not in line[-1]:
                failures.append("%s: the access log does not show urisan=deny with %s: %r"
                                % (name, reason, line))
    if failures:
        raise Failure("facts through %s:\n  " % gw.name + "\n  ".join(failures))


class Nginx(e2e.Gateway):
    name = "nginx"

    def __init__(self, procs, tmp, binary, origin, luadir, policy):
        super().__init__(procs, tmp, binary, origin, None)
        self.luadir, self.policy = luadir, policy

    def start(self):
        for m in ("ndk_http_module.so", "ngx_http_lua_module.so"):
            if not os.path.exists(os.path.join(NGINX_MODULES, m)):
                raise SkipGateway("nginx without %s (apt-get install libnginx-mod-http-lua)" % m)
        snip = doc_block("lua nginx")
        snip = replace_once(snip, "/usr/lib/x86_64-linux-gnu/lua/5.1/",
                            os.path.join(self.luadir, "5.1") + "/", "nginx")
        snip = replace_once(snip, "/etc/urisan/site.policy", self.policy, "nginx")
        snip = replace_once(snip, "127.0.0.1:9000", "127.0.0.1:%d" % self.origin.port, "nginx")
        snip = replace_once(snip, "listen 127.0.0.1:8080", "listen 127.0.0.1:%d" % self.port,
                            "nginx")
        snip = replace_once(snip, "/var/log/nginx/urisan.log", self.path("access.log"), "nginx")
        user = "user root;" if os.geteuid() == 0 else ""
        conf = e2e.NGINX_CONF.format(tmp=self.tmp, snippet=snip, user=user)
        # Debian's nginx.conf loads the modules from modules-enabled/
        conf = "".join("load_module %s/%s;\n" % (NGINX_MODULES, m)
                       for m in ("ndk_http_module.so", "ngx_http_lua_module.so")) + conf
        with open(self.path("nginx.conf"), "w") as f:
            f.write(conf)
        argv = [self.binary, "-p", self.tmp, "-c", self.path("nginx.conf"),
                "-e", self.path("nginx.error.log")]
        chk = subprocess.run(argv + ["-t"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if chk.returncode != 0:
            raise Failure("nginx -t rejects the generated config:\n" + chk.stdout.decode("latin-1"))
        self.proc = self.procs.start(argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not e2e.wait_listening(self.port, self.proc, 20):
            raise Failure("nginx could not be started:\n" + self.read("nginx.error.log"))
        log("nginx %d on 127.0.0.1:%d, files in %s" % (self.proc.pid, self.port, self.tmp))

    def access_log(self, needle=None):
        return e2e.wait_log(lambda: self.read("access.log"), needle)


class Haproxy(e2e.Gateway):
    name = "haproxy"

    def __init__(self, procs, tmp, binary, origin, luadir, policy):
        super().__init__(procs, tmp, binary, origin, None)
        self.luadir, self.policy = luadir, policy

    def start(self):
        self.logsock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.logsock.bind(self.path("haproxy.sock"))
        os.chmod(self.path("haproxy.sock"), 0o666)
        self.loglines = []
        threading.Thread(target=self._read_log, daemon=True).start()
        lua = doc_block("lua haproxy script")
        lua = replace_once(lua, "/usr/lib/x86_64-linux-gnu/lua/5.3/",
                           os.path.join(self.luadir, "5.3") + "/", "haproxy lua")
        lua = replace_once(lua, "/etc/urisan/site.policy", self.policy, "haproxy lua")
        with open(self.path("urisan-inproc.lua"), "w") as f:
            f.write(lua)
        snip = doc_block("lua haproxy")
        snip = replace_once(snip, "/etc/haproxy/urisan-inproc.lua", self.path("urisan-inproc.lua"),
                            "haproxy")
        snip = replace_once(snip, "bind 127.0.0.1:8080", "bind 127.0.0.1:%d" % self.port, "haproxy")
        snip = replace_once(snip, "127.0.0.1:9000", "127.0.0.1:%d" % self.origin.port, "haproxy")
        global_part, _, rest = snip.partition("\nfrontend ")
        conf = e2e.HAPROXY_CONF.format(tmp=self.tmp, global_part=global_part.rstrip(),
                                       rest="frontend " + rest, user="")
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
        if not e2e.wait_listening(self.port, self.proc, 20):
            raise Failure("haproxy could not be started:\n" + self.read("haproxy.stderr"))
        log("haproxy %d on 127.0.0.1:%d, files in %s" % (self.proc.pid, self.port, self.tmp))

    _read_log = e2e.Haproxy._read_log
    access_log = e2e.Haproxy.access_log


def wait_for(cond, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.02)
    raise Failure("after %d s: %s" % (timeout, what))


def reload_phase(gw, origin):
    """SIGHUP to nginx's master after the policy file changed."""
    later = lambda: request(gw.port, get(b"/r1/", b"later.example"))[0]  # noqa: E731
    if later() != 200:
        raise Failure("later.example denied before the policy named it")
    e2e.write_policy(gw.policy, SITE_POLICY_2)
    gw.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: later() == 403, 15, "a reload did not pick up the changed policy file")
    log("  reload: the changed policy file denies later.example")
    e2e.write_policy(gw.policy, SITE_POLICY_BAD)
    mark = len(gw.read("nginx.error.log"))
    gw.proc.send_signal(signal.SIGHUP)
    want = "site.policy:2:6: unknown flag 'bogus_flag'"
    wait_for(lambda: want in gw.read("nginx.error.log")[mark:], 15,
             "the failed reload's error (%s) is not in the error log" % want)
    time.sleep(0.5)
    st_later, st_ok = later(), request(gw.port, get(b"/r2/ok"))[0]
    if st_later != 403 or st_ok != 200 or gw.proc.poll() is not None:
        raise Failure("after a reload with a bad policy: later.example %s, /r2/ok %s (want 403, "
                      "200: the old policy kept)" % (st_later, st_ok))
    log("  reload with a bad policy: refused (%s), the last good policy kept" % want)
    e2e.write_policy(gw.policy, SITE_POLICY)


def run(cls, binary, luadir, args):
    procs = e2e.Procs()
    tmp = tempfile.mkdtemp(prefix="urisan-lua-%s-" % cls.name)
    try:
        origin = e2e.Origin(procs, tmp)
        policy = os.path.join(tmp, "site.policy")
        e2e.write_policy(policy, SITE_POLICY)
        gw = cls(procs, tmp, binary, origin, luadir, policy)
        gw.start()
        log("%s: facts" % cls.name)
        check_facts(gw, origin)
        log("%s: the rows every door must stop (tests/e2e/gateway_rows.py)" % cls.name)
        failures = gateway_rows.check_rows(cls.name + " Lua", gw.port, origin.seen, log)
        if failures:
            raise Failure("rows through %s Lua:\n  " % cls.name + "\n  ".join(failures))
        if cls is Nginx:
            reload_phase(gw, origin)
        secs = e2e.load(gw, origin, args.requests, args.connections, "lua" + cls.name)
        log("%s: load: %d requests over %d connections in %.1f s: 0 lost, 0 wrong"
            % (cls.name, args.requests, args.connections, secs))
    finally:
        procs.stop_all()
    subprocess.run(["rm", "-rf", tmp], check=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("luadir")
    ap.add_argument("--only", choices=["nginx", "haproxy"])
    ap.add_argument("--requests", type=int, default=4000)
    ap.add_argument("--connections", type=int, default=20)
    args = ap.parse_args()
    ran = 0
    for cls, name, pkg, abi in [(Nginx, "nginx", "nginx", "5.1"),
                                (Haproxy, "haproxy", "haproxy", "5.3")]:
        if args.only and args.only != name:
            continue
        if not os.path.exists(os.path.join(args.luadir, abi, "urisan.so")):
            log("%s: skipped: no Lua %s module in %s" % (name, abi, args.luadir))
            continue
        binary = e2e.find_binary(name, pkg)
        if binary is None:
            log("%s: skipped: not installed" % name)
            continue
        try:
            run(cls, binary, os.path.abspath(args.luadir), args)
            ran += 1
        except SkipGateway as e:
            log("%s: skipped: %s" % (name, e))
        except Failure as e:
            log("FAIL: %s" % e)
            return 1
    return 0 if ran else SKIP


if __name__ == "__main__":
    sys.exit(main())
