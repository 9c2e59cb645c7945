#!/usr/bin/env python3
"""End-to-end test: `urisan squid-acl --resolve` as the external ACL
helper of a real Squid, with the resolve snippet of doc/squid.md.

usage: squid_resolve_e2e.py URISAN

It starts the tests' DNS responder (tests/dns/dns_server.py) and a
recording origin on 127.0.0.1, and Squid on a free port with a generated
squid.conf around the snippet, its helper path replaced by URISAN and its
--dns-server by the responder. Squid itself resolves through a server
that does not answer (dns_nameservers 127.0.0.1, nothing on port 53), so
a request the helper lets through ends in Squid's own DNS error, never
at an origin. Then, through the proxy:

- a name that resolves to 169.254.169.254, one whose CNAME leads to a
  loopback address, a mix of a public and a loopback address, a name that
  does not exist and a SERVFAIL are denied by the helper (403, the
  reasons resolved_ip_denied / dns_nxdomain / dns_servfail in
  access.log);
- a name that resolves to a public address gets past the helper (Squid's
  own DNS failure: 502 or 503, not 403);
- a CONNECT to a name that resolves to 169.254.169.254 is denied (403);
- the origin receives nothing.

Everything started here is stopped by PID, also on failure. Exit 0 on
success, 1 on failure, 77 (skip) when Squid is missing and cannot be
installed, or cannot be started.
"""
import os
import re
import sys
import threading
import http.server

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "dns"))

import squid_e2e as sq  # noqa: E402
from dnstest import DnsServer  # noqa: E402

ZONE = {
    "public.test.": {"A": ["93.184.216.34"], "ttl": 300},
    "meta.test.": {"A": ["169.254.169.254"]},
    "alias.test.": {"CNAME": "db.corp.test."},
    "db.corp.test.": {"A": ["127.0.0.5"]},
    "mix.test.": {"A": ["93.184.216.34", "127.0.0.1"]},
    "fail.test.": {"rcode": "SERVFAIL"},
}

# (host, expected status, reason in access.log or None)
CASES = [
    ("meta.test", 403, "resolved_ip_denied"),
    ("alias.test", 403, "resolved_ip_denied"),
    ("mix.test", 403, "resolved_ip_denied"),
    ("nx.test", 403, "dns_nxdomain"),
    ("fail.test", 403, "dns_servfail"),
    ("public.test", None, None),   # past the helper: Squid's DNS error
]


def read_resolve_snippet():
    path = os.path.join(HERE, "..", "..", "doc", "squid.md")
    with open(path, encoding="utf-8") as f:
        m = re.search(r"```squidconf-resolve\n(.*?)```", f.read(), re.S)
    if not m:
        raise sq.Failure("no ```squidconf-resolve block in doc/squid.md")
    return m.group(1)


class Recorder(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):
        Recorder.seen.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *a):
        pass


def main(argv):
    urisan = os.path.abspath(argv[1])
    procs = sq.Procs()
    squid = None
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    failures = []
    try:
        path = sq.find_squid()
        if path is None:
            raise sq.SkipTest("no squid")
        with DnsServer(ZONE) as dns:
            snippet = read_resolve_snippet()
            if "--dns-server 127.0.0.1" not in snippet or "--resolve" not in snippet:
                raise sq.Failure("the resolve snippet lost --resolve --dns-server 127.0.0.1")
            snippet = snippet.replace("--dns-server 127.0.0.1", "--dns-server " + dns.addr)
            # Squid gives up its own lookup of public.test after ~1.4 s (dns_timeout
            # 3 s with the default 5 s retransmit interval took 6 s)
            extra = ("dns_nameservers 127.0.0.1\ndns_timeout 1 seconds\n"
                     "dns_retransmit_interval 200 milliseconds\n")
            squid = sq.Squid(path, urisan, procs, snippet, plain=False, default_policy=False,
                             extra="\n" + extra)
            squid.start()
            for host, want, reason in CASES:
                target = b"http://%s/latest/meta-data/" % host.encode()
                status, head, _ = sq.raw_request(
                    squid.port, b"GET " + target + b" HTTP/1.1\r\nHost: " + host.encode() +
                    b"\r\nConnection: close\r\n\r\n", timeout=30)
                if (status != want) if want else status not in (502, 503):
                    failures.append("%s: status %s, want %s" % (host, status, want or "502/503"))
            # CONNECT: its host:port looked up as the tunnel https://host:port
            status, _, _ = sq.raw_request(
                squid.port, b"CONNECT meta.test:443 HTTP/1.1\r\nHost: meta.test:443\r\nConnection: close\r\n\r\n",
                timeout=30)
            if status != 403:
                failures.append("CONNECT meta.test:443: status %s, want 403" % status)
            log = squid.read("access.log")
            line = [ln for ln in log.splitlines() if "CONNECT meta.test:443" in ln]
            if not line or "resolved_ip_denied" not in line[-1]:
                failures.append("CONNECT meta.test:443: access.log says %r" % line)
            for host, want, reason in CASES:
                line = [ln for ln in log.splitlines() if "//%s/" % host in ln]
                if not line:
                    failures.append("%s: not in access.log" % host)
                elif reason and reason not in line[-1]:
                    failures.append("%s: access.log says %r, want %s" % (host, line[-1], reason))
            asked = {q[0] for q in dns.queries()}
            for host, _, _ in CASES:
                if host + "." not in asked:
                    failures.append("%s: the helper never asked the DNS server" % host)
        if Recorder.seen:
            failures.append("the origin received %r" % Recorder.seen)
        failures += sq.helper_log_clean(squid)
        if failures:
            raise sq.Failure("resolve")
        sq.log("PASS: %d names through Squid, the helper judged every address" % len(CASES))
        return 0
    except sq.SkipTest as e:
        sq.log("SKIP: %s" % e)
        return sq.SKIP
    except sq.Failure as e:
        sq.log("FAIL (%s):\n  %s" % (e, "\n  ".join(failures)))
        if squid is not None:
            sq.log("--- cache.log (tail) ---\n" + squid.read("cache.log")[-3000:])
        return 1
    finally:
        if squid is not None:
            squid.cleanup(False)
        procs.stop_all()
        origin.shutdown()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
