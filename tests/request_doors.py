#!/usr/bin/env python3
"""One request, one verdict through every door.

Generated (Host, target, method) combinations, hostile and ordinary -
Hosts with every delimiter and separator a Host must not hold, lists,
two Host fields, none; origin-form, absolute-form (matching the Host or
not), authority-form and asterisk-form targets, "//" paths, padded and
nested parameters; tokens and non-tokens as methods - judged by each
door of the library's one request judgement (urisan_judge_request):

  - python   the Python module's check_request() (the reference);
  - lua      the Lua module's urisan.check_request{} (lua5.4, LuaJIT);
  - serve    `urisan serve --trust target`, the request sent as it is
             over HTTP: X-Urisan-Verdict and X-Urisan-Deny-Reasons.
             A request the HTTP library refuses itself (400: HTTP/1.1
             without Host) is counted apart, not compared.

Every door must give the reference's verdict and deny reasons. A new
door (the nginx module's) is a class with NAME and answers(combos,
profile) -> {index: (verdict, deny reasons)} - add it with
--door MODULE:CLASS. combos(n, seed) and the classes are importable (the
e2e tests send a sample through the real servers).

usage: request_doors.py URISAN --python-path DIR [--lua-dir DIR]
                        [--count N] [--seed S] [--door MODULE:CLASS ...]
Exit 0 pass, 1 a door differs, 77 nothing to compare with.
"""
import argparse
import importlib
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

HOSTS = [
    "www.example.com", "www.example.com:8080", "WWW.Example.COM", "[::1]:8080",
    "127.0.0.1", "169.254.169.254", "10.0.0.1", "2130706433", "0x7f.1", "localhost",
    "metadata", "example.org:80", "b\u00fccher.example", "xn--bcher-kva.example",
    # what a Host must not hold (RFC 9110 7.2): each moves bytes elsewhere
    "www.example.com?a=", "www.example.com#", "www.example.com:80?a=", "www.example.com/?a=",
    "169.254.169.254,www.example.com", "evil.example@www.example.com",
    "www.example.com\\evil.example", "www.example.com evil", "www.example.com\tx", "",
    "www.example.com/", "a,b", "www.example.com%2F", "www.example.com:", "www.example.com:99999",
]
TARGETS = [
    "/", "/a/b?c=d", "/login?next=/home", "/r?next=https%3A%2F%2Fexample.org%2Fa",
    "/hq2?u=http://169.254.169.254/latest/meta-data/", "/hq6/%2e%2e/%2e%2e/etc/passwd",
    "/c8?u=%C2%A0http://169.254.169.254/latest/meta-data/",
    "/m?u=%E2%80%83javascript:alert(1)", "/p?u=%E3%80%80http://127.0.0.1/%EF%BB%BF",
    "//169.254.169.254/latest/meta-data/", "/\\169.254.169.254/", "///a",
    "/a%0d%0aSet-Cookie:x=1", "/~user/%41%42?x=%2F",
    "http://www.example.com/a", "http://169.254.169.254/latest/meta-data/",
    "https://www.example.com:443/x", "http://www.example.com@169.254.169.254/",
    "www.example.com:443", "*", "", "a/b", "mailto:a@b.example", "http:x",
]
METHODS = ["GET", "GET", "GET", "POST", "HEAD", "OPTIONS", "CONNECT", "PUT", "get",
           "G@T", "PRI"]
PROFILES = ["ssrf", "default"]


def combos(n, seed):
    """n (host, host_count, target, method) combinations, deterministic:
    host None is no Host field; host_count 2 is the field twice."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        host = rng.choice(HOSTS)
        count = 1
        r = rng.random()
        if r < 0.05:
            host, count = None, 0
        elif r < 0.10:
            count = 2
        out.append((host, count, rng.choice(TARGETS), rng.choice(METHODS)))
    return out


def sendable(c):
    """Can the combination go over HTTP/1.1 as it is (serve, the e2e)?"""
    host, _, target, method = c
    return (target != "" and " " not in target and "\t" not in target and
            all(0x20 < ord(ch) < 0x7f for ch in target) and
            (host is None or all(ch == "\t" or 0x20 <= ord(ch) < 0x7f for ch in host)) and
            all(0x20 < ord(ch) < 0x7f for ch in method))


def raw(c):
    host, count, target, method = c
    head = "%s %s HTTP/1.1\r\n" % (method, target)
    if host is not None:
        head += ("Host: %s\r\n" % host) * count
    return (head + "Connection: close\r\n\r\n").encode("latin-1")


class Door:
    NAME = "?"

    def answers(self, cs, profile):
        raise NotImplementedError


class PythonDoor(Door):
    NAME = "python"

    def __init__(self, path):
        sys.path.insert(0, path)
        self.urisan = importlib.import_module("urisan")

    def answers(self, cs, profile):
        u = self.urisan
        pol = u.Policy(profile=profile)
        out = {}
        for i, (host, count, target, method) in enumerate(cs):
            h = None if host is None else ([host] * count if count > 1 else host)
            r = u.check_request(scheme="http", host=h, target=target, method=method, policy=pol)
            out[i] = (r["verdict"], ",".join(r["deny_reasons"]))
        return out


LUA_JUDGE = r'''
local urisan = require "urisan"
local pol = urisan.policy{ profile = arg[2] }
local function unhex(s) return (s:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end)) end
for line in io.lines(arg[1]) do
    local h, n, t, m = line:match("^(%x*)\t(%d)\t(%x*)\t(%x*)$")
    local host = nil
    if n == "1" then host = unhex(h) elseif n == "2" then host = { unhex(h), unhex(h) } end
    local r = urisan.check_request{ scheme = "http", host = host, target = unhex(t),
                                    method = unhex(m), policy = pol }
    io.write(r.verdict, "\t", table.concat(r.deny_reasons, ","), "\n")
end
'''


class LuaDoor(Door):
    def __init__(self, interp, cpath, name):
        self.interp, self.cpath, self.NAME = interp, cpath, name

    def answers(self, cs, profile):
        with tempfile.TemporaryDirectory() as d:
            script, data = os.path.join(d, "judge.lua"), os.path.join(d, "in.tsv")
            with open(script, "w") as f:
                f.write(LUA_JUDGE)
            with open(data, "w") as f:
                for host, count, target, method in cs:
                    f.write("%s\t%d\t%s\t%s\n" % ((host or "").encode().hex(), count,
                                                   target.encode().hex(), method.encode().hex()))
            env = dict(os.environ, LUA_CPATH=self.cpath + "/?.so")
            p = subprocess.run([self.interp, script, data, profile], capture_output=True, env=env,
                               check=True)
        lines = p.stdout.decode().splitlines()
        return {i: tuple(l.split("\t")) for i, l in enumerate(lines)}


class ServeDoor(Door):
    NAME = "serve"

    def __init__(self, exe):
        self.exe = exe

    def answers(self, cs, profile):
        err = tempfile.TemporaryFile()
        proc = subprocess.Popen([self.exe, "serve", "--listen", "127.0.0.1:0", "--trust",
                                 "target", "--profile", profile], stdin=subprocess.DEVNULL,
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
            return {i: self.ask(port, c) for i, c in enumerate(cs) if sendable(c)}
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    @staticmethod
    def ask(port, c):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        data = b""
        try:
            s.sendall(raw(c))
            while True:
                b = s.recv(65536)
                if not b:
                    break
                data += b
        except ConnectionResetError:
            pass
        finally:
            s.close()
        head = data.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
        h = {k.lower(): v.strip() for k, _, v in (l.partition(":") for l in head[1:])}
        if "x-urisan-verdict" not in h:   # the HTTP library refused it: a deny
            return ("deny", None)
        deny = h.get("x-urisan-deny-reasons", "-")
        return (h["x-urisan-verdict"], "" if deny == "-" else deny)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("urisan")
    ap.add_argument("--python-path", required=True)
    ap.add_argument("--lua-dir")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--door", action="append", default=[])
    a = ap.parse_args()
    try:
        ref = PythonDoor(a.python_path)
    except ImportError as e:
        print("SKIP: the Python module cannot be loaded: %s" % e)
        return 77
    if not hasattr(ref.urisan, "check_request"):
        print("SKIP: the Python module has no check_request (built without the host layer)")
        return 77
    doors = [ServeDoor(a.urisan)]
    if a.lua_dir:
        for interp, sub in (("lua5.4", "5.4"), ("luajit", "5.1"), ("lua5.3", "5.3")):
            so = os.path.join(a.lua_dir, sub, "urisan.so")
            if shutil.which(interp) and os.path.exists(so):
                doors.append(LuaDoor(interp, os.path.dirname(so), "lua " + sub))
    for spec in a.door:
        mod, _, cls = spec.partition(":")
        doors.append(getattr(importlib.import_module(mod), cls)())
    cs = combos(a.count, a.seed)
    bad = compared = 0
    for profile in PROFILES:
        want = ref.answers(cs, profile)
        print("request_doors: %d requests (seed %d) under %s: reference deny %d, flag %d, "
              "allow %d" % (len(cs), a.seed, profile,
                            sum(v[0] == "deny" for v in want.values()),
                            sum(v[0] == "flag" for v in want.values()),
                            sum(v[0] == "allow" for v in want.values())))
        for door in doors:
            got = door.answers(cs, profile)
            # a request the HTTP library refuses (400: HTTP/1.1 without
            # Host) never reaches the judgement: counted, not compared
            diff = [i for i, v in got.items()
                    if v[1] is not None and (v[0] != want[i][0] or v[1] != want[i][1])]
            refused = sum(1 for v in got.values() if v[1] is None)
            print("  %-8s judged %d (%d refused by the HTTP library): %d differ" %
                  (door.NAME, len(got), refused, len(diff)))
            for i in diff[:10]:
                print("FAIL %s %s: %r -> %r, python %r" % (door.NAME, profile, cs[i], got[i],
                                                           want[i]))
            bad += len(diff)
            compared += len(got)
            if len(got) < len(cs) // 2 and door.NAME != "serve":
                print("FAIL %s judged only %d of %d" % (door.NAME, len(got), len(cs)))
                bad += 1
    print("%d passed, %d failed" % (compared - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
