#!/usr/bin/env python3
"""units_test.py URISAN SRCDIR

The systemd units of examples/ (the Debian package installs them as they
are) work as copied, with only the binary's path, the policy folder and
the listening port substituted:
  1. `systemd-analyze verify` accepts each unit without a word (a wrong
     key, a missing binary, a bad value all print one);
  2. each policy file a unit names is shipped (examples/etc/urisan, the
     package's /etc/urisan) and passes `urisan policy --strict check`
     under the unit's profile; so does every /etc/urisan/NAME.policy that
     README.md, doc/ or the man page names;
  3. the unit's ExecStart starts (its start line), answers (serve: a
     request for the metadata service is denied; milter: a message with a
     loopback link is rejected), and stops on SIGTERM with exit 0 within
     1 s, as doc/mail.md and doc/gateways.md say.
Without systemd-analyze (package systemd, in tools/install-deps.sh) the
test says so and runs steps 2 and 3.
"""
import glob
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

URISAN = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
ETC = os.path.join(SRC, "examples", "etc", "urisan")
FAILED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def substituted(text, port):
    text = text.replace("/usr/bin/urisan", URISAN).replace("/etc/urisan/", ETC + "/")
    text = re.sub(r"inet:\d+@127\.0\.0\.1", "inet:%d@127.0.0.1" % port, text)
    return re.sub(r"--listen 127\.0\.0\.1:\d+", "--listen 127.0.0.1:%d" % port, text)


def exec_start(unit_text):
    m = re.search(r"^ExecStart=(.*)$", unit_text, re.M)
    return m.group(1).split() if m else []


# ---- the milter protocol (libmilter's), just enough for one message ----
def pkt(cmd, data=b""):
    return struct.pack(">I", len(data) + 1) + cmd + data


def recv_pkt(s):
    def exact(n):
        b = b""
        while len(b) < n:
            c = s.recv(n - len(b))
            if not c:
                raise EOFError("the milter closed the connection")
            b += c
        return b
    n = struct.unpack(">I", exact(4))[0]
    d = exact(n)
    return d[:1], d[1:]


def milter_message(port, body):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(pkt(b"O", struct.pack(">III", 6, 0x1FF, 0)))
    assert recv_pkt(s)[0] == b"O"

    def ask(cmd, data=b""):
        s.sendall(pkt(cmd, data))
        while True:
            r, _ = recv_pkt(s)
            if r in (b"c", b"a", b"r", b"t", b"d", b"y"):
                return r
    ask(b"C", b"client\x004" + struct.pack(">H", 25) + b"127.0.0.1\x00")
    ask(b"H", b"client.example\x00")
    ask(b"M", b"<a@example.org>\x00")
    ask(b"R", b"<b@example.org>\x00")
    ask(b"L", b"Subject\x00links\x00")
    ask(b"N")
    ask(b"B", body)
    r = ask(b"E")
    s.sendall(pkt(b"Q"))
    s.close()
    return r


def http_get(port, headers):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(("GET /auth HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: close\r\n\r\n"
               % "".join("%s: %s\r\n" % kv for kv in headers)).encode())
    data = b""
    while True:
        c = s.recv(4096)
        if not c:
            break
        data += c
    s.close()
    return data.split(b"\r\n", 1)[0].decode()


def run_unit(name, argv, port, tmp):
    errlog = open(os.path.join(tmp, name + ".log"), "w+b")
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errlog, cwd=tmp)
    try:
        start = time.monotonic()
        log = b""
        while b"listening on" not in log and time.monotonic() - start < 10 and p.poll() is None:
            time.sleep(0.05)
            errlog.seek(0)
            log = errlog.read()
        check(b"listening on" in log, "%s: ExecStart starts: %s" % (name, log.decode()[:300]))
        if b"listening on" not in log:
            return
        if "milter" in name:
            r = milter_message(port, b"see http://127.0.0.1/admin\r\n")
            check(r in (b"y", b"r"), "%s: a message with a loopback link is rejected (%r)" % (name, r))
        else:
            line = http_get(port, [("X-Original-URI", "/latest/meta-data/"),
                                   ("X-Original-Host", "169.254.169.254")])
            check(" 403 " in line + " ", "%s: the metadata service is denied (%s)" % (name, line))
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(5)
        except subprocess.TimeoutExpired:
            rc = None
        took = time.monotonic() - t0
        check(rc == 0 and took < 1.0,
              "%s: SIGTERM after traffic: exit %s in %.3f s (documented: 0 within 1 s)"
              % (name, rc, took))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def main():
    units = sorted(glob.glob(os.path.join(SRC, "examples", "*.service")))
    check(len(units) >= 2, "examples/ has the milter's and serve's units: %s"
          % [os.path.basename(u) for u in units])
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        print("systemd-analyze not installed (package systemd): the units are not verified")
    builtin = subprocess.run([URISAN, "--help"], capture_output=True, text=True).stdout
    tmp = tempfile.mkdtemp(prefix="urisan-units-")
    try:
        for path in units:
            name = os.path.basename(path)
            text = open(path, encoding="utf-8").read()
            argv = exec_start(text)
            check(argv[:1] == ["/usr/bin/urisan"],
                  "%s: ExecStart is the package's /usr/bin/urisan (%s)" % (name, argv[:1]))
            port = free_port()
            copy = os.path.join(tmp, name)
            with open(copy, "w", encoding="utf-8") as f:
                f.write(substituted(text, port))
            if analyze:
                r = subprocess.run([analyze, "verify", "--man=no", copy],
                                   capture_output=True, text=True, timeout=120)
                out = (r.stdout + r.stderr).strip()
                check(r.returncode == 0 and out == "",
                      "%s: systemd-analyze verify: exit %d %s" % (name, r.returncode, out))
            prof = argv[argv.index("--profile") + 1] if "--profile" in argv else "default"
            for pol in re.findall(r"/etc/urisan/[\w.-]+", " ".join(argv)):
                shipped = os.path.join(ETC, os.path.basename(pol))
                r = subprocess.run([URISAN, "policy", "--profile", prof, "--strict", "check",
                                    shipped], capture_output=True, text=True)
                check(r.returncode == 0, "%s names %s: shipped and valid under --profile %s %s"
                      % (name, pol, prof, r.stderr.strip()))
            cmd = argv[1:2]
            if cmd and cmd[0] not in builtin:
                print("%s: this build has no `urisan %s`: not started" % (name, cmd[0]))
                continue
            run_unit(name, exec_start(substituted(text, port)), port, tmp)
        named = set()
        for doc in [os.path.join(SRC, "README.md"), os.path.join(SRC, "doc", "urisan.1")] + \
                glob.glob(os.path.join(SRC, "doc", "*.md")):
            named |= set(re.findall(r"/etc/urisan/([\w-]+\.policy)", open(doc, encoding="utf-8").read()))
        shipped = set(os.path.basename(p) for p in glob.glob(os.path.join(ETC, "*.policy")))
        check(named <= shipped, "every /etc/urisan/*.policy the docs name is shipped: named %s, "
              "shipped %s" % (sorted(named), sorted(shipped)))
        for pol in sorted(shipped):
            text = open(os.path.join(ETC, pol), encoding="utf-8").read()
            check(all(l.startswith("#") or not l.strip() for l in text.splitlines()),
                  "examples/etc/urisan/%s is comments only (the profile alone applies)" % pol)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
