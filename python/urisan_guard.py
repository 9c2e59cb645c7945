"""urisan_guard - fetch a URL only where urisan allows it (doc/python.md).

Every request, and every redirect hop, is judged twice before a byte is
sent: the URL as text (urisan.check: schemes, ports, obfuscated addresses,
nested URLs ...) and the addresses its host resolves to (liburisan-net:
A and AAAA through c-ares, every address judged by the rule that judges an
IP literal host). The connection then goes to an address that was judged -
never to a second, rebound DNS answer - with the TLS server name and the
Host header still the name. A denial raises GuardError carrying the
decision.

    import requests, urisan_guard
    guard = urisan_guard.Guard(profile="ssrf")
    session = urisan_guard.requests_session(guard)
    session.get(url)                      # GuardError when denied

    import httpx
    client = urisan_guard.httpx_client(guard)
    client.get(url)

Not covered: a proxy (the proxy decides where it connects: requests through
a proxy are refused), HTTP/2 and asyncio transports.
"""
import threading
import urllib.parse

import _urisan_net
import urisan

__all__ = ["Guard", "GuardError", "GuardedAdapter", "GuardedTransport",
           "requests_session", "httpx_client"]


class GuardError(Exception):
    """A URL the guard refused. .url; .stage: "url" (the text was denied:
    .decision is urisan.check's dict) or "address" (an address the host
    resolves to was denied, or the lookup failed: .decision is the
    resolver's dict, with "addresses", "status" and "denied")."""

    def __init__(self, url, stage, decision):
        self.url, self.stage, self.decision = url, stage, decision
        if stage == "url":
            why = ",".join(decision.get("deny_reasons") or decision.get("reasons") or [])
        else:
            why = decision.get("denied") or ",".join(decision.get("reasons", []))
        super().__init__(f"urisan denied {url}: {why}")


class Guard:
    """The judgement: a policy (text) on top of a profile, a resolver
    (one per thread, each with its answer cache) and a bound on redirect
    hops."""

    def __init__(self, policy=None, profile="ssrf", dns_server=None, max_redirects=5,
                 timeout_ms=0, tries=0):
        self.policy_text, self.profile = policy, profile
        self.dns_server, self.max_redirects = dns_server, max_redirects
        self._timeout_ms, self._tries = timeout_ms, tries
        self.policy = urisan.Policy(policy or "", profile=profile)
        self._local = threading.local()

    def _resolver(self):
        r = getattr(self._local, "resolver", None)
        if r is None:
            r = _urisan_net.Resolver(dns_server=self.dns_server, policy=self.policy_text,
                                     profile=self.profile, timeout_ms=self._timeout_ms,
                                     tries=self._tries)
            self._local.resolver = r
        return r

    def judge(self, url):
        """The addresses to connect to for url (IPv4 first), or GuardError."""
        d = urisan.check(url, policy=self.policy)
        if d["verdict"] == "deny":
            raise GuardError(url, "url", d)
        r = self._resolver().judge_url(url)
        if r["verdict"] == "deny" or not r["addresses"]:
            raise GuardError(url, "address", r)
        addrs = [a["address"] for a in r["addresses"]]
        return sorted(addrs, key=lambda a: ":" in a)


def _host_header(url):
    p = urllib.parse.urlsplit(url)
    host = p.hostname or ""
    if ":" in host:
        host = "[" + host + "]"
    return host if p.port is None else f"{host}:{p.port}"


# ---- requests (urllib3 1.26) ------------------------------------------

try:
    import requests
    import requests.adapters
    from requests.utils import select_proxy
except ImportError:  # requests not installed: only the httpx transport
    requests = None

if requests is not None:
    class GuardedAdapter(requests.adapters.HTTPAdapter):
        """A requests transport adapter: each request (each redirect hop:
        requests sends every hop through the adapter) is judged, and its
        connection goes to the judged address."""

        def __init__(self, guard, **kw):
            self.guard = guard
            self._pin = threading.local()
            super().__init__(**kw)

        def send(self, request, **kw):
            addrs = self.guard.judge(request.url)
            self._pin.addr = addrs[0]
            request.headers["Host"] = _host_header(request.url)
            try:
                return super().send(request, **kw)
            finally:
                self._pin.addr = None

        def get_connection(self, url, proxies=None):
            if proxies and select_proxy(url, proxies):
                raise GuardError(url, "address", {"verdict": "deny", "reasons": ["proxy"],
                                                  "denied": "a proxy decides where it connects",
                                                  "addresses": []})
            addr = getattr(self._pin, "addr", None)
            if addr is None:  # never connect to an address not judged
                raise GuardError(url, "address", {"verdict": "deny", "reasons": [],
                                                  "denied": "not judged", "addresses": []})
            p = urllib.parse.urlsplit(url)
            scheme = p.scheme.lower()
            port = p.port or (443 if scheme == "https" else 80)
            kw = {}
            if scheme == "https":
                kw = {"server_hostname": p.hostname, "assert_hostname": p.hostname}
            return self.poolmanager.connection_from_host(addr, port, scheme=scheme,
                                                         pool_kwargs=kw)

    def requests_session(guard):
        """A requests.Session whose http:// and https:// requests go through
        GuardedAdapter, with at most guard.max_redirects hops, no proxies
        from the environment."""
        s = requests.Session()
        adapter = GuardedAdapter(guard)
        s.mount("http://", adapter)
        s.mount("https://", adapter)
        s.max_redirects = guard.max_redirects
        s.trust_env = False
        return s


# ---- httpx (httpcore 0.16) --------------------------------------------

try:
    import httpx
except ImportError:
    httpx = None

if httpx is not None:
    class _PinnedBackend:
        """httpcore's network backend, connecting to the judged address of
        the request being sent instead of looking the name up again."""

        def __init__(self, inner, transport):
            self.inner, self.transport = inner, transport

        def connect_tcp(self, host, port, timeout=None, local_address=None, **kw):
            pin = getattr(self.transport._pin, "pin", None)
            if pin is None or pin[0] != host.strip("[]").lower():
                raise GuardError(host, "address", {"verdict": "deny", "reasons": [],
                                                   "denied": "not judged", "addresses": []})
            return self.inner.connect_tcp(pin[1], port, timeout=timeout,
                                          local_address=local_address, **kw)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    class GuardedTransport(httpx.HTTPTransport):
        """An httpx transport: each request (each redirect hop: httpx sends
        every hop through the transport) is judged; the connection goes to
        the judged address; TLS's server name and Host stay the name."""

        def __init__(self, guard, **kw):
            super().__init__(**kw)
            self.guard = guard
            self._pin = threading.local()
            pool = self._pool
            pool._network_backend = _PinnedBackend(pool._network_backend, self)

        def handle_request(self, request):
            url = str(request.url)
            addrs = self.guard.judge(url)
            self._pin.pin = (request.url.host.lower(), addrs[0])
            try:
                return super().handle_request(request)
            finally:
                self._pin.pin = None

    def httpx_client(guard, **kw):
        """An httpx.Client through GuardedTransport, following at most
        guard.max_redirects redirects, no proxies from the environment."""
        return httpx.Client(transport=GuardedTransport(guard), follow_redirects=True,
                            max_redirects=guard.max_redirects, trust_env=False, **kw)
