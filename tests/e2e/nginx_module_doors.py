#!/usr/bin/env python3
"""Request-level door equality: generated (Host, target, method) requests,
hostile and ordinary, judged by the library's request call through the
Python module (urisan.check_request) and by the nginx module inside a
real nginx: the same verdict and the same reasons for every request
nginx hands to the module.

usage: nginx_module_doors.py MODULE PYTHONPATH [--sample N] [--seed S]

MODULE is the build's nginx/ngx_http_urisan_module.so, PYTHONPATH the
directory of the build's urisan Python module. The combinations: every
Host of HOSTS (absent, ordinary, internal addresses, a port, and Host
values that carry ? # @ \\ , a space or a percent escape) with every
target of TARGETS (origin-form with traversal, escapes, nested URLs, a
//-target, absolute-form matching the Host or not, asterisk-form) and
every method of METHODS: more than 2,000. --sample N judges N of them
drawn with --seed (default: 500; 0: all, the 'slow' suite's run).

nginx answers some requests itself before any module runs (400 for a
Host or target it refuses, 405 for a method it does not take); those
carry no verdict and are counted, not compared. nginx (ssrf profile, a
policy file denying blocked.example) runs on 127.0.0.1 and a free port
and is stopped by PID, also on failure. Exit 0 pass, 1 a door differs,
77 (skip) without nginx, the module or the Python module.
"""
import argparse
import os
import random
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gateway_e2e as e2e  # noqa: E402
from gateway_e2e import log  # noqa: E402

SKIP = 77
POLICY = "deny-host blocked.example\n"

HOSTS = [None, "example.com", "www.example.com", "example.com:80", "example.com:8080",
         "EXAMPLE.com", "blocked.example", "169.254.169.254", "127.0.0.1", "[::1]",
         "10.0.0.1", "0x7f.1", "xn--80ak6aa92e.com", "metadata.google.internal",
         "www.example.com?a=", "www.example.com#", "www.example.com:80?a=",
         "169.254.169.254,www.example.com", "user@example.com", "a\\b.example",
         "example.com.", "ex%41mple.com", "a b.example", ""]
TARGETS = ["/", "/index.html?q=1", "/a/../b", "/a/%2e%2e/b", "/%2e%2e/%2e%2e/etc/passwd",
           "/a%0d%0aSet-Cookie:x", "/r?next=http://169.254.169.254/latest/meta-data/",
           "/r?u=%C2%A0http://169.254.169.254/latest/", "/r?u=http%3A%2F%2F127.0.0.1%2F",
           "//169.254.169.254/latest/meta-data/", "/~user/%41%42", "/a;b=c?d#",
           "/%252e%252e/x", "http://example.com/abs", "http://169.254.169.254/abs",
           "https://www.example.com/abs", "http://blocked.example/x", "*",
           "/login?next=/account", "/very/long/" + "a" * 300]
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"]

CONF = """\
load_module {module};
daemon off;
master_process on;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
{user}
events {{ worker_connections 256; }}
http {{
    client_body_temp_path {tmp}/b; proxy_temp_path {tmp}/p;
    fastcgi_temp_path {tmp}/f; uwsgi_temp_path {tmp}/u; scgi_temp_path {tmp}/s;
    access_log off;
    server {{
        listen 127.0.0.1:{port};
        urisan on;
        urisan_profile ssrf;
        urisan_policy {tmp}/site.policy;
        location / {{
            root {tmp}/www;
            add_header X-Door-Verdict $urisan_verdict always;
            add_header X-Door-Reasons $urisan_reasons always;
        }}
    }}
}}
"""


def ask(port, method, host, target):
    """(status, verdict, reasons) from nginx; verdict None: nginx answered
    before the module."""
    req = "%s %s HTTP/1.1\r\n" % (method, target)
    if host is not None:
        req += "Host: %s\r\n" % host
    req += "Content-Length: 0\r\nConnection: close\r\n\r\n"
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    data = b""
    try:
        s.sendall(req.encode("latin-1"))
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    except ConnectionResetError:
        pass
    finally:
        s.close()
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    status = int(head[0].split()[1]) if head and len(head[0].split()) > 1 else None
    hdrs = {}
    for line in head[1:]:
        k, _, v = line.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return status, hdrs.get("x-door-verdict"), hdrs.get("x-door-reasons")


def library(urisan, policy, method, host, target):
    r = urisan.check_request(scheme="http", host=host, target=target, method=method,
                             policy=policy)
    if r["verdict"] == "deny":
        reasons = ",".join(r["deny_reasons"]) or "denied"
    elif r["verdict"] == "flag":
        reasons = ",".join(r["flag_reasons"])
    else:
        reasons = "-"
    return r["verdict"], reasons or "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("pythonpath")
    ap.add_argument("--sample", type=int, default=500)
    ap.add_argument("--seed", type=int, default=34)
    args = ap.parse_args()
    combos = [(m, h, t) for h in HOSTS for t in TARGETS for m in METHODS]
    if not os.path.exists(args.module):
        log("SKIP: no nginx module at %s" % args.module)
        return SKIP
    sys.path.insert(0, os.path.abspath(args.pythonpath))
    try:
        import urisan
    except ImportError as e:
        log("SKIP: the urisan Python module: %s" % e)
        return SKIP
    nginx = e2e.find_binary("nginx", "nginx")
    if nginx is None:
        log("SKIP: nginx not installed")
        return SKIP
    if args.sample and args.sample < len(combos):
        combos = random.Random(args.seed).sample(combos, args.sample)
    policy = urisan.Policy(POLICY, profile="ssrf")
    procs = e2e.Procs()
    tmp = tempfile.mkdtemp(prefix="urisan-ngxdoors-")
    try:
        os.mkdir(os.path.join(tmp, "www"))
        with open(os.path.join(tmp, "site.policy"), "w") as f:
            f.write(POLICY)
        port = e2e.free_port()
        with open(os.path.join(tmp, "nginx.conf"), "w") as f:
            f.write(CONF.format(module=os.path.abspath(args.module), tmp=tmp, port=port,
                                user="user root;" if os.geteuid() == 0 else ""))
        env = dict(os.environ)
        from nginx_module_e2e import asan_runtime
        preload = asan_runtime(os.path.abspath(args.module))
        if preload:
            env["LD_PRELOAD"] = preload
            env["ASAN_OPTIONS"] = "detect_leaks=0"
        p = procs.start([nginx, "-p", tmp, "-c", os.path.join(tmp, "nginx.conf"),
                         "-e", os.path.join(tmp, "error.log")], stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        if not e2e.wait_listening(port, p, 20):
            log("FAIL: nginx did not start")
            return 1
        differ, refused, same = [], 0, {"allow": 0, "flag": 0, "deny": 0}
        for method, host, target in combos:
            status, verdict, reasons = ask(port, method, host, target)
            if verdict is None:
                refused += 1   # nginx answered itself (400, 405 ...)
                continue
            want = library(urisan, policy, method, host, target)
            if (verdict, reasons) != want:
                differ.append("%s %r Host %r: nginx module %s %s, library %s %s"
                              % (method, target, host, verdict, reasons, want[0], want[1]))
            else:
                same[verdict] += 1
        judged = len(combos) - refused
        log("%d requests: %d judged by the nginx module as by the library (allow %d, flag %d, "
            "deny %d), %d differ; %d answered by nginx itself before the module"
            % (len(combos), judged - len(differ), same["allow"], same["flag"], same["deny"],
               len(differ), refused))
        for d in differ[:30]:
            log("DIFFER " + d)
        if differ:
            return 1
        if judged < len(combos) // 2:
            log("FAIL: nginx answered most requests itself: nothing compared")
            return 1
    finally:
        procs.stop_all()
        subprocess.run(["rm", "-rf", tmp], check=False)
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
