#!/usr/bin/env python3
"""nested_diff_test.py - URLs nested in parameters, judged against two real
clients that follow them.

    nested_diff_test.py URISAN [COUNT] [SEED]

Generates COUNT (default 60,000) URLs, seeded and deterministic, whose
query or fragment parameters carry URLs: chains of 1 to 5 hops; every
spelling a URL parser reads as an authority (http:h, http:/h, http:\\\\h,
http:///h, //h, /\\h, \\\\h, TAB inside); decoy userinfo (example.org@,
example.org;@); padding before and after with "+", %20, TAB and other C0
controls, and the Unicode white space that Python's str.strip() and
JavaScript's trim() remove (U+0085, U+00A0, U+1680, U+2000-200A, U+2028,
U+2029, U+202F, U+205F, U+3000, U+FEFF, percent-encoded), 0 to 300 of
them; percent-encoding applied once or twice (or only where needed);
separators "&", ";" and "&amp;"; the parameter in the query or in the
fragment; and pages whose own path starts with "//" or "/\\" (a
network-path reference to an application that joins its request-target
to its base). Then:

  - Node (tests/nested_diff_follow.js: URLSearchParams + new URL(value,
    page), and new URL(value.trim(), page)) and Python
    (urllib.parse.parse_qsl + urljoin of the value, and of value.strip())
    follow every hop of every URL, each in one process; a page whose path
    starts with "//" is also joined to itself (new URL(path, page),
    urljoin(page, path));
  - `urisan check --json --profile ssrf` and `--profile mail` judge the
    file, each in one process.

Every URL where either client reaches a loopback, link-local, private,
reserved or metadata address, or an internal, metadata or wildcard-DNS
name, must be denied under ssrf; every one where a client reaches a
loopback or link-local address or an internal or wildcard-DNS name must be
denied under mail (a page with a "//" path under ssrf only: the
other profiles report double_slash_path and leave the verdict to the
application). A hop is a value that takes the client to another
site (scheme or host): a relative reference with a query of its own
(?next=/login%3Furl%3Dhttp://127.0.0.1/) is a request to the same site,
judged when it arrives there, and is not followed. Plain public redirect parameters
(?next=https%3A%2F%2Fexample.org%2Fa) are counted apart: the share ssrf
does not deny is printed (the allow rate). Exit 77 (skip) without node.
"""
import functools
import ipaddress
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
from urllib.parse import parse_qsl, quote, urljoin, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))

INTERNAL_HOSTS = [
    "127.0.0.1", "127.1.2.3", "169.254.169.254", "10.0.0.1", "192.168.0.1", "172.16.5.4",
    "100.64.0.1", "100.100.100.200", "0.0.0.0", "240.0.0.1", "224.0.0.1", "[::1]",
    "[fe80::1]", "[fd00:ec2::254]", "[::ffff:127.0.0.1]", "2130706433", "0x7f.1",
    "0177.0.0.1", "localhost", "app.localhost", "LOCALHOST", "metadata.google.internal",
    "db.internal", "printer.local", "nas.home.arpa", "127.0.0.1.nip.io", "7f000001.nip.io",
    "127-0-0-1.sslip.io", "a.localtest.me", "metadata", "instance-data",
]
PUBLIC_HOSTS = ["example.org", "www.example.com", "example.net", "cdn.example.org",
                "93.184.216.34"]
# How a hop's URL is spelled: (scheme part, authority separator).
SPELLINGS = [
    "http://", "https://", "HTTP://", "http:", "http:/", "http:\\\\", "http:///",
    "https:\\/", "http:\\", "//", "/\\", "\\\\", "\\/", "///", "/\t/", "ht\ttp://",
    "https:/\t/", "\\\t\\",
]
DECOYS = ["", "", "", "example.org@", "example.org;@", "user:pw@", "example.org%40@"]
NAMES = ["url", "next", "u", "redirect", "target", "r", "continue", "dest"]
PADS = ["+", "%20", "%09", "%0A", "%0D", "%0C", "%01", "%1F", "%00", "+%20", "%09+",
        # what str.strip() and trim() remove and the URL parser does not
        "%C2%85", "%C2%A0", "%E1%9A%80", "%E2%80%80", "%E2%80%83", "%E2%80%8A", "%E2%80%A8",
        "%E2%80%A9", "%E2%80%AF", "%E2%81%9F", "%E3%80%80", "%EF%BB%BF", "%C2%A0+"]
PAD_COUNTS = [0, 0, 0, 1, 2, 3, 80, 81, 300]

WILDCARD = (".nip.io", ".sslip.io", ".xip.io", ".xip.name", ".localtest.me", ".lvh.me",
            ".vcap.me", ".lacolhost.com", ".traefik.me", ".localho.st", ".local.gd",
            ".localhost.direct", ".rbndr.us", ".rebind.network", ".1u.ms")
INTERNAL_SUFFIX = ("localhost", ".localhost", ".local", ".internal", ".home.arpa",
                   ".localdomain", ".lan", ".intranet", ".corp", ".home", ".private",
                   "localhost4", "localhost6", ".localdomain4", ".localdomain6",
                   "ip6-localhost", "ip6-loopback")
METADATA_NAMES = {"metadata", "instance-data", "metadata.tencentyun.com",
                  "metadata.packet.net", "metadata.platformequinix.com"}
METADATA_NETS = [ipaddress.ip_network(n) for n in (
    "fd00:ec2::254/128", "fd00:ec2::23/128", "100.100.100.200/32", "168.63.129.16/32")]
CGNAT = ipaddress.ip_network("100.64.0.0/10")


def address(h):
    """The address a client connects to for host text h, or None."""
    t = h[1:-1] if h.startswith("[") and h.endswith("]") else h
    try:
        a = ipaddress.ip_address(t)
    except ValueError:
        try:  # 2130706433, 0x7f.1, 0177.0.0.1: what inet_aton reads
            if t and all(c in "0123456789abcdefxABCDEFX." for c in t):
                a = ipaddress.ip_address(socket.inet_aton(t))
            else:
                return None
        except OSError:
            return None
    if isinstance(a, ipaddress.IPv6Address) and a.ipv4_mapped is not None:
        a = a.ipv4_mapped
    return a


@functools.lru_cache(maxsize=None)
def classify(h):
    """What kind of place host h is: a set of kinds ({} for public)."""
    h = h.lower().rstrip(".")
    a = address(h)
    if a is not None:
        if any(a in n for n in METADATA_NETS if n.version == a.version):
            return {"metadata"}
        if a.is_loopback:
            return {"loopback"}
        if a.is_link_local:
            return {"link_local"}
        if a.is_private or (a.version == 4 and a in CGNAT):
            return {"private"}
        if a.is_reserved or a.is_multicast or a.is_unspecified or not a.is_global:
            return {"reserved"}
        return set()
    if h.endswith(WILDCARD):
        return {"wildcard"}
    if h in METADATA_NAMES:
        return {"metadata"}
    if h.endswith(INTERNAL_SUFFIX):
        return {"internal"}
    if "." not in h:
        return {"single_label"}
    return set()


SSRF_MUST = {"loopback", "link_local", "private", "reserved", "metadata", "internal",
             "wildcard", "single_label"}
MAIL_MUST = {"loopback", "link_local", "internal", "wildcard"}


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------

def encode(rng, s):
    """s as a parameter value: encoded once, twice, only where a line needs
    it (controls), or as a browser form would (spaces as +)."""
    k = rng.randrange(6)
    if k == 0:
        return "".join(c if 0x20 < ord(c) < 0x7F else "%%%02X" % ord(c) for c in s)
    if k == 1:
        return quote(quote(s, safe=""), safe="")
    if k == 2:
        return quote(s, safe=":/")
    return quote(s, safe="")


def pad(rng):
    n = rng.choice(PAD_COUNTS)
    if n == 3:
        n = rng.randrange(301)
    if n < 8:
        return "".join(rng.choice(PADS) for _ in range(n))
    a, b = rng.choice(PADS), rng.choice(PADS)
    return (a + b) * (n // 2) + a * (n % 2)


def hop_url(rng, host, rest):
    sp = rng.choice(SPELLINGS)
    decoy = rng.choice(DECOYS) if "@" not in host else ""
    return sp + decoy + host + rest


def carry(rng, page, value):
    """page with a parameter holding value, among decoys, in the query or
    the fragment."""
    name = rng.choice(NAMES)
    sep = rng.choice(["&", "&", "&", ";", "&amp;"])
    params = [name + "=" + pad(rng) + value + (pad(rng) if rng.random() < 0.3 else "")]
    if rng.random() < 0.5:
        params.insert(0, "a=1")
    if rng.random() < 0.3:
        params.append("b=x+y")
    q = sep.join(params)
    return page + ("#" if rng.random() < 0.25 else "?") + q


def chain(rng):
    """One URL whose parameters carry a chain of 1 to 5 hops to an internal
    or a public target."""
    hops = rng.randint(1, 5)
    target = rng.choice(INTERNAL_HOSTS if rng.random() < 0.7 else PUBLIC_HOSTS)
    inner = hop_url(rng, target, rng.choice(["/", "/latest/meta-data/", "/admin", ""]))
    for _ in range(hops - 1):
        via = "https://" + rng.choice(PUBLIC_HOSTS) + "/r"
        inner = carry(rng, via, encode(rng, inner))
    line = carry(rng, "https://app.example/go", encode(rng, inner))
    return line.replace("\t", "%09").replace("\n", "%0A").replace("\r", "%0D")


def public_redirect(rng):
    """A plain redirect parameter to a public site."""
    host = rng.choice(PUBLIC_HOSTS[:4])
    path = rng.choice(["/a", "/", "/login?x=1", "/p/q.html", "/search?q=a+b"])
    target = rng.choice(["https://", "http://"]) + host + path
    v = rng.choice([quote(target, safe=""), quote(target, safe=":/"), quote(target, safe="")])
    name = rng.choice(NAMES)
    return "https://app.example/login?" + rng.choice(["", "a=1&"]) + name + "=" + v


def double_slash(rng):
    """A page whose own path is a network-path reference: "//" or "/\\"
    then a host."""
    host = rng.choice(INTERNAL_HOSTS if rng.random() < 0.7 else PUBLIC_HOSTS)
    if host.startswith("[") or ":" in host:
        host = "169.254.169.254"
    return ("https://app.example" + rng.choice(["//", "/\\", "//", "///"]) + host +
            rng.choice(["/latest/meta-data/", "/", "/a?b=1"]))


def generate(count, seed):
    rng = random.Random(seed)
    public = max(count // 20, 1000)
    slashes = max(count // 50, 200)
    lines = [public_redirect(rng) for _ in range(public)]
    lines += [double_slash(rng) for _ in range(slashes)]
    lines += [chain(rng) for _ in range(count - public - slashes)]
    return lines, public


# ---------------------------------------------------------------------------
# The Python client
# ---------------------------------------------------------------------------

SPECIAL = ("http", "https", "ws", "wss", "ftp")


def py_values(sp):
    out = [v for _, v in parse_qsl(sp.query, keep_blank_values=True)]
    out += [v for _, v in parse_qsl(sp.fragment, keep_blank_values=True)]
    return out


def py_follow(line):
    hosts, seen, todo = [], {line}, [(line, 1)]
    try:
        sp0 = urlsplit(line)
        if sp0.path.startswith("//"):  # the page's own target joined to it
            # (urlsplit keeps "\\": Python reads "/\\h" as a path)
            h = urlsplit(urljoin(line, sp0.path)).hostname
            if h and h != sp0.hostname:
                hosts.append(h)
    except ValueError:
        pass
    while todo:
        page, depth = todo.pop()
        if depth > 6 or len(seen) > 64:
            continue
        try:
            sp = urlsplit(page)
        except ValueError:
            continue
        vals = py_values(sp)
        for v in vals + [v.strip() for v in vals if v.strip() != v]:
            try:
                t = urljoin(page, v)
                h = urlsplit(t).hostname
            except ValueError:
                continue
            if t in seen:
                continue
            seen.add(t)
            if sp.scheme in SPECIAL and (urlsplit(t).scheme, h) == (sp.scheme, sp.hostname):
                continue  # same site: see the note on relative references
            if h:
                hosts.append(h)
            todo.append((t, depth + 1))
    return hosts


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------

def verdicts(urisan, path, profile):
    with open(path, "rb") as f:
        p = subprocess.run([urisan, "check", "--json", "--fields", "verdict", "--profile",
                            profile], stdin=f, capture_output=True, check=False)
    if p.returncode not in (0, 1):
        sys.exit("urisan check --profile %s: exit %d: %s" % (profile, p.returncode,
                                                                p.stderr.decode()[:500]))
    out = [json.loads(l)["verdict"] for l in p.stdout.decode().splitlines()]
    return out


def main():
    urisan = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 60000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 24
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        print("SKIP: node is not installed (tools/install-deps.sh nodejs)")
        return 77
    lines, public = generate(count, seed)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "urls.txt")
        with open(path, "w", encoding="ascii") as f:
            f.write("\n".join(lines) + "\n")
        p = subprocess.run([node, os.path.join(HERE, "nested_diff_follow.js"), path],
                           capture_output=True, check=True)
        node_hosts = [json.loads(l) for l in p.stdout.decode().splitlines()]
        ssrf = verdicts(urisan, path, "ssrf")
        mail = verdicts(urisan, path, "mail")
    assert len(node_hosts) == len(lines) == len(ssrf) == len(mail), (
        len(node_hosts), len(lines), len(ssrf), len(mail))
    fails = {"ssrf": [], "mail": []}
    reach = {"ssrf": 0, "mail": 0}
    by_client = {"node": 0, "python": 0}
    for i, line in enumerate(lines):
        kinds = {"node": set(), "python": set()}
        for h in node_hosts[i]:
            kinds["node"] |= classify(h)
        for h in py_follow(line):
            kinds["python"] |= classify(h)
        for c in by_client:
            by_client[c] += bool(kinds[c] & SSRF_MUST)
        both = kinds["node"] | kinds["python"]
        if both & SSRF_MUST:
            reach["ssrf"] += 1
            if ssrf[i] != "deny":
                fails["ssrf"].append((line, sorted(both), node_hosts[i]))
        if both & MAIL_MUST and not line.startswith("https://app.example/" + "/") and \
                not line.startswith("https://app.example/\\"):
            reach["mail"] += 1
            if mail[i] != "deny":
                fails["mail"].append((line, sorted(both), node_hosts[i]))
    plain = ssrf[:public]
    allowed = sum(v != "deny" for v in plain)
    print("nested_diff: %d URLs (seed %d), %d plain public redirects" % (len(lines), seed, public))
    print("  internal reach: node %d, python %d" % (by_client["node"], by_client["python"]))
    for prof in ("ssrf", "mail"):
        verd = ssrf if prof == "ssrf" else mail
        print("  --profile %s: %d reach a place it denies; %d of them not denied; "
              "verdicts deny %d, flag %d, allow %d" %
              (prof, reach[prof], len(fails[prof]), verd.count("deny"), verd.count("flag"),
               verd.count("allow")))
    print("  plain public redirects not denied under ssrf: %d of %d (%.2f%%); under mail: %d"
          % (allowed, public, 100.0 * allowed / public, sum(v != "deny" for v in mail[:public])))
    bad = False
    for prof in ("ssrf", "mail"):
        for line, kinds, nh in fails[prof][:20]:
            print("FAIL %s: %r reaches %s (node: %s)" % (prof, line[:400], kinds, nh[:4]))
            bad = True
    if allowed < public:
        denied = [l for l, v in zip(lines[:public], plain) if v == "deny"]
        for l in denied[:10]:
            print("FAIL ssrf denies a plain public redirect: %s" % l)
        bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
