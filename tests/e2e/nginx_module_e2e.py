#!/usr/bin/env python3
"""End-to-end test: the nginx module (ngx_http_urisan_module) inside a real
nginx, with the block of doc/gateways.md "In-process: the nginx module".

usage: nginx_module_e2e.py MODULE [--requests N] [--connections N]

MODULE is the build's nginx/ngx_http_urisan_module.so. It starts, on
127.0.0.1 and free ports, an origin that records every request target it
receives (gateway_origin.py) and Debian's nginx with a configuration
generated around the doc's block (copied verbatim; only ports and file
paths are replaced), loading the module by its absolute path, the ssrf
profile plus a site policy file that denies blocked.example. Then:

 0. fail closed at configuration: `nginx -t` refuses a policy file with
    a mistake (naming file, line, column and word), a missing file and
    an unknown profile.
 1. facts: raw requests on a socket. Ordinary ones reach the origin
    unchanged (200 and the origin's echo); the gateway attacks (a Host
    that carries "?", "#", ":80?", a comma list, an absolute-form target
    whose authority is not the Host, no Host at all) and the usual ones
    (the metadata service by Host, escaped CR/LF, a nested URL, the site
    policy's host) get 403 with
    X-Urisan-Verdict: deny and X-Urisan-Deny-Reasons, or nginx's own 400,
    and never reach the origin. The access log has $urisan_verdict and
    $urisan_reasons of each.
 2. metrics: the urisan_metrics location after the facts: every counter
    exact. Then the rows every gateway door must stop
    (tests/e2e/gateway_rows.py, as gateway_e2e and lua_e2e): 403 (or
    nginx's 400) and the origin never sees them.
 3. reload: the policy file gains a deny-host; `nginx -s reload` (SIGHUP
    to the master): the new workers deny that host. Then a file with a
    mistake: the reload is refused (the error log names line, column,
    word), the workers keep the last good policy, and the metrics count
    one reload and one failure.
 4. load: N requests (default 2,000) over C persistent connections
    (default 20), every other one to be denied, each target unique:
    0 lost, 0 wrong, and the origin saw exactly the allowed ones.

With a module built with AddressSanitizer (the clang+ASan build), nginx
runs with the sanitizer's runtime preloaded, and any report in its
output fails the test.

Everything started here is stopped by PID, also on failure. Exit 0 on
success, 1 on failure, 77 (skip) when nginx or the module is missing.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gateway_e2e as e2e  # noqa: E402
from gateway_e2e import Failure, log  # noqa: E402
import gateway_rows  # noqa: E402
import lua_e2e  # noqa: E402
from lua_e2e import request, get  # noqa: E402

SKIP = 77

SITE_POLICY = lua_e2e.SITE_POLICY
SITE_POLICY_BAD = lua_e2e.SITE_POLICY_BAD

ALLOW, DENY, REFUSED = "allow", "deny", "refused"


def doc_block(marker):
    """The fenced block after <!-- MARKER: ... --> in doc/gateways.md."""
    with open(e2e.DOC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- %s: [^>]*-->\n```\w*\n(.*?)```" % re.escape(marker), text, re.S)
    if not m:
        raise Failure("no block marked '%s' in %s" % (marker, e2e.DOC))
    return m.group(1)


def raw_get(target, *headers):
    return (b"GET " + target + b" HTTP/1.1\r\n" + b"".join(h + b"\r\n" for h in headers)
            + b"Connection: close\r\n\r\n")


# (name, raw request, outcome, a deny reason or None); /mN/ finds it in the
# logs. REFUSED: nginx answers 400 itself before any module runs.
FACTS = [
    ("plain", get(b"/m1/index.html?q=1", b"www.example.com"), ALLOW, None),
    ("escapes kept", get(b"/m2/~user/%41%42?x=%2F", b"www.example.com"), ALLOW, None),
    ("ordinary redirect parameter", get(b"/m3/login?next=/account", b"www.example.com"),
     ALLOW, None),
    ("metadata by Host", get(b"/m4/latest/meta-data/", b"169.254.169.254"), DENY,
     "ip_link_local"),
    ("escaped CR/LF", get(b"/m5/a%0d%0aSet-Cookie:x=1", b"www.example.com"), DENY,
     "escaped_crlf"),
    ("nested ?next=metadata", get(b"/m6/r?next=http://169.254.169.254/latest/",
                                  b"www.example.com"), DENY, "nested_url"),
    ("site policy's host", get(b"/m7/", b"blocked.example"), DENY, "host_denied"),
    # the gateway table of the attack pass (doc/gateways.md)
    ("Host with ?", get(b"/m8/hq2?u=http://169.254.169.254/latest/meta-data/",
                        b"www.example.com?a="), DENY, "bad_host_header"),
    ("Host with #", get(b"/m9/hq6/%2e%2e/%2e%2e/etc/passwd", b"www.example.com#"), DENY,
     "bad_host_header"),
    ("Host with :80?", get(b"/m10/", b"www.example.com:80?a="), DENY, "bad_host_header"),
    ("Host with a comma", get(b"/m11/", b"169.254.169.254,www.example.com"), DENY,
     "bad_host_header"),
    ("absolute-form, another Host",
     raw_get(b"http://169.254.169.254/m12/latest/", b"Host: www.example.com"), DENY, None),
    ("HTTP/1.0 without Host", b"GET /m13/ HTTP/1.0\r\n\r\n", DENY, "no_host_header"),
    # nginx refuses these itself: a "/" in Host, a climb above the root
    ("Host with /", get(b"/m14/", b"www.example.com/?a="), REFUSED, None),
    ("%2e%2e above the root", get(b"/m15/a/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
                                  b"www.example.com"), REFUSED, None),
]


class Nginx(e2e.Gateway):
    name = "nginx"

    def __init__(self, procs, tmp, binary, origin, module, policy):
        super().__init__(procs, tmp, binary, origin, None)
        self.module, self.policy = module, policy
        self.metrics_port = self.port
        self.env = dict(os.environ)
        preload = asan_runtime(module)
        if preload:
            self.env["LD_PRELOAD"] = preload
            # nginx frees its pools at exit, not every allocation: no leak check
            self.env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"

    def conf(self, profile=None, policy=None):
        snip = doc_block("nginx module")
        snip = e2e.replace_once(snip, "127.0.0.1:9000", "127.0.0.1:%d" % self.origin.port,
                                "nginx module")
        snip = e2e.replace_once(snip, "listen 127.0.0.1:8080", "listen 127.0.0.1:%d" % self.port,
                                "nginx module")
        snip = e2e.replace_once(snip, "/var/log/nginx/urisan.log", self.path("access.log"),
                                "nginx module")
        snip = e2e.replace_once(snip, "/etc/urisan/site.policy", policy or self.policy,
                                "nginx module")
        if profile is not None:
            snip = e2e.replace_once(snip, "urisan_profile ssrf;", "urisan_profile %s;" % profile,
                                    "nginx module")
        user = "user root;" if os.geteuid() == 0 else ""
        conf = e2e.NGINX_CONF.format(tmp=self.tmp, snippet=snip, user=user)
        return "load_module %s;\n" % self.module + conf

    def argv(self, conf_name="nginx.conf"):
        return [self.binary, "-p", self.tmp, "-c", self.path(conf_name),
                "-e", self.path("nginx.error.log")]

    def test_config(self, conf_text):
        with open(self.path("test.conf"), "w") as f:
            f.write(conf_text)
        r = subprocess.run(self.argv("test.conf") + ["-t"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=self.env, timeout=60)
        return r.returncode, r.stdout.decode("latin-1")

    def start(self):
        with open(self.path("nginx.conf"), "w") as f:
            f.write(self.conf())
        chk = subprocess.run(self.argv() + ["-t"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env=self.env)
        if chk.returncode != 0:
            raise Failure("nginx -t rejects the generated config:\n" + chk.stdout.decode("latin-1"))
        self.out = open(self.path("nginx.stderr"), "wb")
        self.proc = self.procs.start(self.argv(), stdin=subprocess.DEVNULL, stdout=self.out,
                                     stderr=self.out, env=self.env)
        if not e2e.wait_listening(self.port, self.proc, 20):
            raise Failure("nginx could not be started:\n" + self.read("nginx.error.log")
                          + self.read("nginx.stderr"))
        log("nginx %d on 127.0.0.1:%d with %s, files in %s%s" % (
            self.proc.pid, self.port, self.module, self.tmp,
            " (ASan runtime preloaded)" if "LD_PRELOAD" in self.env else ""))

    def access_log(self):
        return self.read("access.log")

    def sanitizer_reports(self):
        text = self.read("nginx.stderr") + self.read("nginx.error.log")
        return [l for l in text.splitlines() if "AddressSanitizer" in l or "runtime error:" in l]


def asan_runtime(module):
    """The sanitizer runtime to preload into nginx when the module was
    built with AddressSanitizer, else None."""
    syms = subprocess.run(["nm", "-D", "--undefined-only", module], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout.decode()
    if "__asan_" not in syms:
        return None
    needed = subprocess.run(["objdump", "-p", module], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL).stdout.decode()
    m = re.search(r"NEEDED\s+(libasan\.so\.\d+)", needed)
    cands = [["gcc", "-print-file-name=" + m.group(1)]] if m else [
        ["clang", "-print-file-name=libclang_rt.asan-x86_64.so"]]
    libs = []
    for argv in cands:
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               timeout=30).stdout.decode().strip()
        except OSError:
            continue
        if os.path.isabs(p) and os.path.exists(p):
            libs.append(p)
    if not libs:
        raise Failure("the module needs the ASan runtime and none was found")
    # (clang's ASan runtime carries UBSan's handlers too)
    return ":".join(libs)


def config_fails_closed(gw):
    bad = gw.path("bad.policy")
    e2e.write_policy(bad, SITE_POLICY_BAD)
    rc, out = gw.test_config(gw.conf(policy=bad))
    want = "urisan_policy %s:2:6: unknown flag 'bogus_flag'" % bad
    if rc == 0 or want not in out:
        raise Failure("nginx -t with a bad policy file: exit %d, want %r in:\n%s" % (rc, want, out))
    rc, out = gw.test_config(gw.conf(policy=gw.path("no-such.policy")))
    if rc == 0 or "no-such.policy" not in out:
        raise Failure("nginx -t with a missing policy file: exit %d:\n%s" % (rc, out))
    rc, out = gw.test_config(gw.conf(profile="no-such-profile"))
    if rc == 0 or 'urisan_profile "no-such-profile": no such profile' not in out:
        raise Failure("nginx -t with an unknown profile: exit %d:\n%s" % (rc, out))
    log("  nginx -t refuses a bad policy file, a missing one and an unknown profile")


def check_facts(gw, origin, facts):
    before = len(origin.seen())
    failures = []
    counts = {"allow": 0, "deny": 0, "reasons": {}}
    for name, raw, expect, reason in facts:
        status, hdrs, body = request(gw.port, raw)
        target = raw.split(b" ")[1]
        marker = re.search(rb"/m\d+/", target).group(0)
        reached = [t for t in origin.seen()[before:] if marker in t]
        reasons = hdrs.get("x-urisan-deny-reasons", "")
        if expect == ALLOW:
            ok = status == 200 and body.startswith(b"origin saw: ") and len(reached) == 1
        elif expect == REFUSED:
            ok = status == 400 and not reached
        else:
            ok = (status == 403 and not reached and hdrs.get("x-urisan-verdict") == "deny" and
                  (reason is None or reason in reasons.split(",")))
        log("  %-30s %-7s -> %s %s, origin %s  %s" % (
            name, expect, status, reasons, "saw it" if reached else "never saw it",
            "ok" if ok else "WRONG"))
        if not ok:
            failures.append("%s: %r -> %s %r %r, origin saw %r" % (name, raw, status, hdrs,
                                                                     body[:80], reached))
            continue
        if expect == REFUSED:
            continue
        counts[expect] += 1
        if expect == DENY:
            for r in reasons.split(","):
                counts["reasons"][r] = counts["reasons"].get(r, 0) + 1
        line = [l for l in gw.access_log().splitlines() if marker.decode() in l]
        want = ("urisan=deny reasons=" + reasons) if expect == DENY else "urisan=allow reasons=-"
        if not line or not line[-1].endswith(want):
            failures.append("%s: the access log line %r does not end with %r" % (name, line, want))
    if failures:
        raise Failure("facts through the nginx module:\n  " + "\n  ".join(failures))
    return counts


def scrape(gw):
    status, hdrs, body = request(gw.port, get(b"/urisan-metrics", b"127.0.0.1"))
    if status != 200 or hdrs.get("content-type") != "text/plain; version=0.0.4; charset=utf-8":
        raise Failure("the metrics location: %s %r" % (status, hdrs))
    series = {}
    for line in body.decode("ascii").splitlines():
        if line and not line.startswith("#"):
            k, _, v = line.rpartition(" ")
            series[k] = v
    return series


def check_metrics(gw, counts):
    got = scrape(gw)
    want = {'urisan_requests_total{verdict="allow"}': str(counts["allow"]),
            'urisan_requests_total{verdict="flag"}': "0",
            'urisan_requests_total{verdict="deny"}': str(counts["deny"])}
    for r, n in counts["reasons"].items():
        want['urisan_denials_total{reason="%s"}' % r] = str(n)
    malformed = sum(n for r, n in counts["reasons"].items()
                    if r in ("bad_host_header", "no_host_header", "host_mismatch"))
    want["urisan_malformed_requests_total"] = str(malformed)
    want["urisan_policy_reloads_total"] = "0"
    want["urisan_policy_reload_failures_total"] = "0"
    want["urisan_decision_duration_seconds_count"] = str(counts["allow"] + counts["deny"])
    rest = {k: v for k, v in got.items()
            if not k.startswith("urisan_decision_duration_seconds_bucket")
            and k != "urisan_decision_duration_seconds_sum"}
    if rest != want:
        raise Failure("metrics after the facts differ: %r" % {
            k: (rest.get(k), want.get(k)) for k in set(rest) | set(want)
            if rest.get(k) != want.get(k)})
    log("  metrics: every counter exact after the facts (%d allowed, %d denied)"
        % (counts["allow"], counts["deny"]))


def reload_phase(gw, origin):
    """lua_e2e's: a changed policy file picked up by `nginx -s reload`, one
    with a mistake refused with the old policy kept; then the counters."""
    lua_e2e.reload_phase(gw, origin)
    got = scrape(gw)
    if (got.get("urisan_policy_reloads_total"), got.get("urisan_policy_reload_failures_total")) \
            != ("1", "1"):
        raise Failure("metrics after one reload and one refused: %r" % {
            k: v for k, v in got.items() if "reload" in k})
    log("  metrics: 1 reload, 1 failure")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--connections", type=int, default=20)
    args = ap.parse_args()
    module = os.path.abspath(args.module)
    if not os.path.exists(module):
        log("SKIP: no nginx module at %s" % module)
        return SKIP
    binary = e2e.find_binary("nginx", "nginx")
    if binary is None:
        log("SKIP: nginx not installed")
        return SKIP
    procs = e2e.Procs()
    tmp = tempfile.mkdtemp(prefix="urisan-ngxmod-")
    gw = None
    try:
        origin = e2e.Origin(procs, tmp)
        policy = os.path.join(tmp, "site.policy")
        e2e.write_policy(policy, SITE_POLICY)
        gw = Nginx(procs, tmp, binary, origin, module, policy)
        config_fails_closed(gw)
        gw.start()
        log("facts")
        counts = check_facts(gw, origin, FACTS)
        check_metrics(gw, counts)
        log("the rows every door must stop (tests/e2e/gateway_rows.py)")
        failures = gateway_rows.check_rows("nginx module", gw.port, origin.seen, log)
        if failures:
            raise Failure("\n".join(failures))
        reload_phase(gw, origin)
        secs = e2e.load(gw, origin, args.requests, args.connections, "ngxmod")
        log("load: %d requests over %d connections in %.1f s: 0 lost, 0 wrong"
            % (args.requests, args.connections, secs))
        reports = gw.sanitizer_reports()
        if reports:
            raise Failure("sanitizer reports:\n" + "\n".join(reports[:20]))
    except Failure as e:
        log("FAIL: %s" % e)
        if gw is not None:
            log(gw.read("nginx.error.log")[-3000:])
        return 1
    finally:
        procs.stop_all()
        if gw is not None and gw.sanitizer_reports():
            log("sanitizer: " + "\n".join(gw.sanitizer_reports()[:20]))
    subprocess.run(["rm", "-rf", tmp], check=False)
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
