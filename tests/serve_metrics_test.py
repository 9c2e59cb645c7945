#!/usr/bin/env python3
"""`urisan serve`'s GET /metrics (doc/gateways.md "Metrics"): after a known
mix of requests, every counter holds exactly what was sent.

usage: serve_metrics_test.py URISAN

The service runs --profile ssrf with a policy file that denies one host,
on 127.0.0.1 and a port the kernel picks (stopped by PID, also on
failure). The mix: allowed, flagged, denied by flags, by a rule, and
malformed (a Host that is no host, no host at all, a header twice), then
a good and a bad SIGHUP. /healthz and /metrics themselves are not
counted. Exit 0 pass, 1 fail, 77 skip (urisan built without serve).
"""
import os
import re
import subprocess
import sys
import tempfile

import serve_test as st
from serve_test import Serve, ask, check, log, parse, raw

SAMPLE = re.compile(r'^([a-z_]+)(\{[a-z]+="[^"]*"\})? (\S+)$')


def scrape(port):
    """(status, content type, {series: value}, families with HELP and TYPE)."""
    status, h, body = parse(raw(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
                                      b"Connection: close\r\n\r\n"))
    series, typed = {}, set()
    for line in body.decode("ascii").splitlines():
        if line.startswith("# TYPE "):
            typed.add(line.split()[2])
            continue
        if line.startswith("# HELP ") or not line:
            continue
        m = SAMPLE.match(line)
        if not m:
            raise AssertionError("not an exposition line: %r" % line)
        series[m.group(1) + (m.group(2) or "")] = m.group(3)
    return status, h.get("content-type"), series, typed


def test_counts_after_a_known_mix():
    pol = tempfile.NamedTemporaryFile("w", suffix=".policy", delete=False)
    pol.write("deny-host blocked.example\n")
    pol.close()
    srv = Serve("--trust", "original-uri", "--profile", "ssrf", "--policy", pol.name)
    p = srv.port
    host = (b"X-Original-Host", b"example.com")

    def judge(target, *headers, want):
        status, h, _ = ask(p, [(b"X-Original-URI", target)] + list(headers or [host]))
        check(status == want, "%r -> %d (%d %r)" % (target, want, status,
                                                    h.get("x-urisan-deny-reasons")))

    try:
        for t in (b"/a", b"/b", b"/c"):
            judge(t, want=200)                                        # allow x3
        judge(b"/a/./b", want=200)                                    # flag: dot_segments
        judge(b"/r?u=http://x.example/", want=200)                    # flag: nested_url
        judge(b"/login?next=http://169.254.169.254/latest/", want=403)   # nested_url
        judge(b"/a%0d%0aSet-Cookie:x", want=403)                      # escaped_crlf, escaped_ctl
        judge(b"/%2561", want=403)                                    # double_encoding
        judge(b"/x", (b"X-Original-Host", b"blocked.example"), want=403)   # host_denied
        judge(b"/x", (b"X-Original-Host", b"www.example.com?a="), want=403)  # bad_host_header
        judge(b"/x", (b"X-Original-Host", b"a b"), want=403)          # bad_host_header
        judge(b"/x", (b"X-Original-Proto", b"http"), want=403)       # no_host_header
        judge(b"/x", host, host, want=403)                            # duplicate_header
        raw(p, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        scrape(p)
        srv.reload()                                                  # good
        with open(pol.name, "w") as f:
            f.write("deny-host blocked.example\nno-such-directive\n")
        srv.reload(until="keeping the policy in force")               # bad

        status, ctype, got, typed = scrape(p)
        check(status == 200 and ctype == "text/plain; version=0.0.4; charset=utf-8",
              "/metrics -> 200 text/plain; version=0.0.4 (%r %r)" % (status, ctype))
        want = {
            'urisan_requests_total{verdict="allow"}': "3",
            'urisan_requests_total{verdict="flag"}': "2",
            'urisan_requests_total{verdict="deny"}': "8",
            'urisan_denials_total{reason="nested_url"}': "1",
            'urisan_denials_total{reason="escaped_crlf"}': "1",
            'urisan_denials_total{reason="escaped_ctl"}': "1",
            'urisan_denials_total{reason="double_encoding"}': "1",
            'urisan_denials_total{reason="host_denied"}': "1",
            'urisan_denials_total{reason="bad_host_header"}': "2",
            'urisan_denials_total{reason="no_host_header"}': "1",
            'urisan_denials_total{reason="duplicate_header"}': "1",
            "urisan_malformed_requests_total": "4",
            "urisan_policy_reloads_total": "1",
            "urisan_policy_reload_failures_total": "1",
            "urisan_decision_duration_seconds_count": "13",
            'urisan_decision_duration_seconds_bucket{le="+Inf"}': "13",
        }
        rest = {k: v for k, v in got.items()
                if not k.startswith("urisan_decision_duration_seconds_bucket{")
                or k.endswith('"+Inf"}')}
        rest.pop("urisan_decision_duration_seconds_sum", None)
        check(rest == want, "every counter exact after the mix: %r" % (
            {k: (rest.get(k), want.get(k)) for k in set(rest) | set(want)
             if rest.get(k) != want.get(k)}))
        buckets = [int(v) for k, v in got.items()
                   if k.startswith("urisan_decision_duration_seconds_bucket{")]
        check(len(buckets) == 11 and buckets == sorted(buckets),
              "the histogram's buckets are cumulative (%r)" % buckets)
        check(float(got.get("urisan_decision_duration_seconds_sum", "0")) > 0,
              "the histogram's sum is above 0")
        check(typed == {"urisan_requests_total", "urisan_denials_total",
                        "urisan_malformed_requests_total", "urisan_policy_reloads_total",
                        "urisan_policy_reload_failures_total",
                        "urisan_decision_duration_seconds"},
              "the documented families, each with its TYPE (%r)" % sorted(typed))
        # a client's own X-Original-URI: /metrics is judged, not answered
        status, h, _ = ask(p, [(b"X-Original-URI", b"/metrics"), host], target=b"/metrics")
        check(status == 200 and h.get("x-urisan-verdict") == "allow",
              "/metrics with a URI header is judged like any request")
        check(srv.stop() == 0, "SIGTERM -> exit 0")
    finally:
        os.unlink(pol.name)


def main():
    r = subprocess.run([st.URISAN, "serve", "--help"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        log("SKIP: urisan built without serve (libmicrohttpd missing)")
        return 77
    try:
        test_counts_after_a_known_mix()
    finally:
        for proc in st.PROCS:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if not st.FAILURES:
            for name in st.LOGS:
                os.unlink(name)
    if st.FAILURES:
        log("%d failure(s)" % len(st.FAILURES))
        return 1
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
