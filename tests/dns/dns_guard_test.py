#!/usr/bin/env python3
"""The Python guard (urisan_guard: requests adapter, httpx transport)
against a real DNS server and real HTTP origins on 127.0.0.1.

127.0.0.2 stands in for a public address (the test policy lets loopback
through: profile ssrf + `allow ip_loopback`) and 127.0.0.3 for an internal
one (`deny-ip 127.0.0.3`). The internal origin must receive nothing, from
any name, redirect or rebinding; the rebinding name must be connected at
the address that was judged; Host is the name.

usage: dns_guard_test.py   (PYTHONPATH: the build's python/ directory)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dnstest import DnsServer, Origin  # noqa: E402

try:
    import requests
    import httpx
except ImportError as e:
    print(f"SKIP: {e} (apt-get install python3-requests python3-httpx)")
    sys.exit(77)
import urisan_guard  # noqa: E402

POLICY = "allow ip_loopback\nallow-port 1-65535\ndeny-ip 127.0.0.3\n"
failures = []


def expect(what, cond):
    if not cond:
        failures.append(what)


def denied(fetch, url):
    try:
        r = fetch(url)
    except urisan_guard.GuardError as e:
        return e
    failures.append(f"{url}: not denied, status {r.status_code}")
    return None


with Origin("127.0.0.3", "internal") as internal, Origin("127.0.0.2", "public") as public:
    ZONE = {
        "public.test.": {"A": ["127.0.0.2"]},
        "inside.test.": {"A": ["127.0.0.3"]},
        "mix.test.": {"A": ["127.0.0.2", "127.0.0.3"]},
        "meta.test.": {"A": ["169.254.169.254"]},
        "alias.test.": {"CNAME": "inside.test."},
        "mapped.test.": {"AAAA": ["::ffff:127.0.0.3"]},
        "rebind.test.": {"ttl": 0, "rebind": {"A": [["127.0.0.2"], ["127.0.0.3"]]}},
        "rebind2.test.": {"ttl": 0, "rebind": {"A": [["127.0.0.2"], ["127.0.0.3"]]}},
        "fail.test.": {"rcode": "SERVFAIL"},
        "slow.test.": {"drop": True},
    }
    inward = f"http://inside.test:{internal.port}/secret"
    with Origin("127.0.0.2", "redirect-name", redirect=inward) as redir_name, \
         Origin("127.0.0.2", "redirect-ip",
                redirect=f"http://127.0.0.3:{internal.port}/secret") as redir_ip, \
         Origin("127.0.0.2", "redirect-ok",
                redirect=f"http://public.test:{public.port}/landed") as redir_ok, \
         DnsServer(ZONE) as dns:
        guard = urisan_guard.Guard(policy=POLICY, profile="ssrf", dns_server=dns.addr,
                                   max_redirects=3, timeout_ms=300, tries=1)
        for kind, client in (("requests", urisan_guard.requests_session(guard)),
                             ("httpx", urisan_guard.httpx_client(guard))):
            fetch = client.get
            P, I = public.port, internal.port
            n0 = len(public.requests)
            r = fetch(f"http://public.test:{P}/a")
            expect(f"{kind}: public fetched", r.status_code == 200 and r.text == "public")
            expect(f"{kind}: Host is the name {public.requests[-1]}",
                   public.requests[-1] == ("/a", f"public.test:{P}"))
            for url, reason in ((f"http://inside.test:{I}/", "ip_denied"),
                                (f"http://mix.test:{I}/", "ip_denied"),
                                (f"http://alias.test:{I}/", "ip_denied"),
                                (f"http://mapped.test:{I}/", "ip_denied"),
                                (f"http://meta.test:{I}/", "ip_link_local"),
                                (f"http://127.0.0.3:{I}/", "ip_denied"),
                                (f"http://fail.test:{I}/", "dns_servfail"),
                                (f"http://slow.test:{I}/", "dns_timeout"),
                                (f"http://nx.test:{I}/", "dns_nxdomain"),
                                (f"http://user:pw@public.test:{P}/", "password")):
                e = denied(fetch, url)
                if e is not None:
                    text = str(e)
                    expect(f"{kind} {url}: {text}", reason in text or
                           reason in e.decision.get("reasons", []) or
                           any(reason in a["reasons"] for a in e.decision.get("addresses", [])))
            # a public origin that redirects inward: the hop is judged, refused
            e = denied(fetch, f"http://public.test:{redir_name.port}/go")
            expect(f"{kind}: redirect by name refused at the hop: {e}",
                   e is not None and e.url == inward and e.stage == "address")
            e = denied(fetch, f"http://public.test:{redir_ip.port}/go")
            expect(f"{kind}: redirect to the address refused: {e}",
                   e is not None and e.stage in ("url", "address"))
            expect(f"{kind}: redirectors asked once each",
                   len(redir_name.requests) >= 1 and len(redir_ip.requests) >= 1)
            # a redirect to a public place is followed
            r = fetch(f"http://public.test:{redir_ok.port}/go")
            expect(f"{kind}: public redirect followed", r.status_code == 200 and
                   public.requests[-1] == ("/landed", f"public.test:{P}"))
            # rebinding: the first answer (public) is judged and connected;
            # the next lookup answers inside and is refused
            name = "rebind.test" if kind == "requests" else "rebind2.test"
            r = fetch(f"http://{name}:{P}/r")
            expect(f"{kind}: rebinding name connected at the judged address",
                   r.text == "public" and public.requests[-1] == ("/r", f"{name}:{P}"))
            e = denied(fetch, f"http://{name}:{P}/r2")
            expect(f"{kind}: second answer (inside) refused", e is not None)
            expect(f"{kind}: public origin got {len(public.requests) - n0}",
                   len(public.requests) - n0 == 3)
        expect(f"the internal origin received nothing: {internal.requests}",
               internal.requests == [])

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok: requests and httpx; internal origin received 0 requests")
