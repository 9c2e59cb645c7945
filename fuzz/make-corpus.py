#!/usr/bin/env python3
"""make-corpus.py - (re)generate the seed corpora corpus/<harness>/seed-*.

Seeds come from three places, all small and deterministic:
  - examples written by hand (typed below, one per flag and per rule);
  - the conformance vectors of ../shared/data/vectors (SOURCES.md);
  - a fixed-seed random sample of ../shared/data/urls.
Files this script did not write (crash-*, diff-*, merged coverage from
fuzz/run-campaign) are left alone; seed-* files are rewritten.

usage: fuzz/make-corpus.py [SHARED_DATA_DIR]   (run from the project root)
"""
import hashlib
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, '..', 'shared', 'data')
VEC = os.path.join(DATA, 'vectors')
URLS = os.path.join(DATA, 'urls')
MAX_PER_HARNESS = 300


def unescape(s):
    """TSV escapes of vectors/SOURCES.md: \\\\ \\t \\n \\r \\xHH."""
    out = bytearray()
    b = s.encode('utf-8')
    i = 0
    while i < len(b):
        c = b[i]
        if c == 0x5c and i + 1 < len(b):
            n = chr(b[i + 1])
            if n == '\\':
                out.append(0x5c); i += 2; continue
            if n == 't':
                out.append(9); i += 2; continue
            if n == 'n':
                out.append(10); i += 2; continue
            if n == 'r':
                out.append(13); i += 2; continue
            if n == 'x' and i + 3 < len(b):
                try:
                    out.append(int(b[i + 2:i + 4].decode(), 16)); i += 4; continue
                except ValueError:
                    pass
        out.append(c)
        i += 1
    return bytes(out)


def tsv(name):
    path = os.path.join(VEC, name)
    if not os.path.exists(path):
        return []
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    hdr = lines[0].split('\t')
    rows = []
    for ln in lines[1:]:
        if ln == '':
            continue
        cols = ln.split('\t')
        rows.append({h: unescape(cols[i]) if i < len(cols) else b'' for i, h in enumerate(hdr)})
    return rows


def url_sample(n_per_file, seed=8):
    rnd = random.Random(seed)
    out = []
    for name in sorted(os.listdir(URLS)) if os.path.isdir(URLS) else []:
        if not name.endswith('.txt'):
            continue
        with open(os.path.join(URLS, name), 'rb') as f:
            lines = [l.rstrip(b'\r') for l in f.read().split(b'\n') if l]
        rnd.shuffle(lines)
        out += lines[:n_per_file]
    return out


# Examples written by hand: one or more per rule of parsing and per flag.
EXAMPLES = [
    b'http://www.ics.uci.edu/pub/ietf/uri/#Related',
    b'http://h:80:81/', b'http://[::1]:8080/', b'http://[::1]x/', b'http://[::1',
    b'http://u@h@x/', b'http://user:pass@host/', b'http://:@h/', b'http://h:/',
    b'http://h:080/', b'http://h:25/', b'http://h:65536/', b'http://h:99999999999999999999/',
    b'https://h:443/', b'foo://h:1/', b'//h:80/', b'http://%0d%0a@h/', b'/a%00b',
    b'/a%1f%7F', b'/a\x00b', b'/a b\tc', b'/\xc3\xa9', b'/%zz', b'/%2', b'%',
    b'/%252e', b'/%2500', b'/%%32%65', b'/%c0%ae/', b'/%c0%af', b'/%c1%9c', b'/%e0%80%ae',
    b'/%c0%80', b'/%f0%80%80%af', b'/%f8%80%80%80%af', b'/%fc%80%80%80%80%af',
    b'/./a/../b', b'/%2e%2E/x', b'/%2e/', b'http://h/%2e%2e/x', b'/../x', b'/a/../../x',
    b'a/../../x', b'?/../', b'#/../', b'http://h/a%2fb', b'http://h/a%5Cb', b'http://h/a\\b',
    b'http://127.0.0.1/', b'http://2130706433/', b'http://0x7f.1/', b'http://0177.0.0.1/',
    b'http://127.1/', b'http://127.000.000.001/', b'http://%31%32%37.0.0.1/',
    'http://１２７．０．０．１/'.encode(), 'http://①②⑦.⓪.⓪.①/'.encode(),
    'http://127。0。0。1/'.encode(), b'http://[::ffff:127.0.0.1]/', b'http://[::1]/',
    b'http://[::]/', b'http://[64:ff9b::7f00:1]/', b'http://[::127.0.0.1]/',
    b'http://10.0.0.1/', b'http://172.16.0.1/', b'http://192.168.1.1/', b'http://100.64.0.1/',
    b'http://[fc00::1]/', b'http://169.254.169.254/latest/meta-data/', b'http://[fe80::1%25eth0]/',
    b'http://[v1.x]/', b'http://[vz.x]/', b'http://[1::2::3]/', b'http://localhost/',
    b'http://xn--nxasmq6b.com/', b'http://XN--a.b/', 'http://bücher.de/'.encode(),
    b'http://b%C3%BCcher.de/', b'javascript:alert(1)', b'JavaScript:alert(1)',
    b'java\tscript:alert(1)', b' \x01javascript:alert(1)', b'vbscript:x', b'data:text/html,x',
    b'file:///etc/passwd', b'gopher://h/', b'dict://h:11211/', b'ldap://h/', b'tftp://h/x',
    b'jar:file:x!/y', b'netdoc:/x', b'http://a\\@b/', b'http:\\\\a', b'http:/\\a',
    b'\\/\\/a', b'http:evil', b'http:/evil', b'http:///evil', b'file:////host/share',
    b'///a', b'/\\a', b'\\\\a', b'http://a#@b', b'http://a?@b/', b'http://a/@b',
    b'http://a\t.b/', b'http://%2f/', b'http://%23/', b'http://%00/', b'http://%67oogle.com/',
    b'dict:///127.0.0.1:11211/', b'mailto:/a@b', b'foo:///x', b'file://localhost/x',
    b'file://LOCALHOST/x', b'file://127.0.0.1/x', b'file://C:/x', b'file://c|/x',
    b'mailto:a@b', b'urn:isbn:0', b'a:', b':', b':a', b'//', b'///', b'?', b'#', b'',
    b'http://' + b'a' * 64 + b'.com/', b'http://' + b'a.' * 128 + b'/', b'x' * 65 + b':',
    b'http://h/' + b'a/' * 1030, b'/' * 1100, b'/%2e%2e' * 50, b'%25' * 200,
    b'http://[' + b'0:' * 7 + b'0]/', b'http://[0:0:0:0:0:0:0::1]/', b'http://[:1::1:]/',
    b'http://[1:2:3:4:5:6:1.2.3.4]/', b'http://[::1.2.3.4]/', b'http://[::1.2.3]/',
    b'http://[::1%eth0]/', b'http://[::1%25]/', b'http://[::1%25%41]/', b'http://1.2.3.4.5/',
    b'http://01.2.3.4/', b'http://256.1.1.1/', b's3://bucket/key', b'a+b-c.d:x',
    b'1a:b', b'g;x=1/../y', b'../../../g', b'http:g', b'.//g', b'foo:a/b',
]


def resolve_pairs():
    pairs = []
    for r in tsv('rfc3986-resolve.tsv'):
        pairs.append((b'http://a/b/c/d;p?q', r['ref']))
    for name, bk, rk in (('uriparser-resolve.tsv', 'base', 'ref'),
                         ('go-url-resolve.tsv', 'base', 'ref'),
                         ('python-urljoin.tsv', 'base', 'ref'),
                         ('curl-1560-redirect.tsv', 'base', 'set_url')):
        for r in tsv(name):
            pairs.append((r[bk], r[rk]))
    # seed draft Appendix C
    for ref in (b'../../../g', b'../../../../g', b'/./g', b'/../g', b'http:g', b'g?y/./x',
                b'g#s/../x', b'./../g', b'g;x=1/../y'):
        pairs.append((b'http://a/b/c/d;p?q', ref))
    # the rootless and authority-confusion cases of vectors/SOURCES.md
    pairs += [(b'foo:a/b', b'../c'), (b'f:/a', b'.//g'), (b'f:/a', b'..//g'),
              (b'f:a', b'.//g'), (b'f:/a/b', b'../..//g'), (b'f:', b'g'), (b'f:', b'//g'),
              (b'http://a', b'g'), (b'http://a', b'../g'), (b'f:/a', b'/.//g')]
    return pairs


def single_inputs():
    seen = []
    for s in EXAMPLES:
        seen.append(s)
    for r in tsv('uriparser-parse.tsv'):
        seen.append(r['uri'])
    for r in tsv('curl-1560.tsv'):
        seen.append(r['input'])
    for r in tsv('go-url-parse.tsv'):
        seen.append(r['input'])
    for r in tsv('rfc3986-normalize.tsv') + tsv('uriparser-normalize.tsv'):
        seen.append(r['input'])
    for r in tsv('uriparser-ip.tsv'):
        t = r['text']
        seen.append(b'http://[' + t + b']/' if r['kind'] == b'ipv6' else b'http://' + t + b'/')
    wpt = os.path.join(VEC, 'wpt-urltestdata.json')
    if os.path.exists(wpt):
        with open(wpt, encoding='utf-8') as f:
            for t in json.load(f):
                if isinstance(t, dict):
                    seen.append(t['input'].encode('utf-8', 'surrogatepass'))
    return seen


def uniq(items):
    out, have = [], set()
    for x in items:
        if x not in have:
            have.add(x)
            out.append(x)
    return out


def pick(items, n, seed):
    """Keep the examples written by hand (first), then a fixed-seed sample
    of the rest."""
    items = uniq(items)
    if len(items) <= n:
        return items
    head = items[:len(EXAMPLES)]
    rest = items[len(EXAMPLES):]
    random.Random(seed).shuffle(rest)
    return head + rest[:max(0, n - len(head))]


def write(harness, items, prefix='seed'):
    d = os.path.join(ROOT, 'corpus', harness)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.startswith(prefix + '-'):
            os.unlink(os.path.join(d, f))
    for x in items:
        h = hashlib.sha1(x).hexdigest()[:12]
        with open(os.path.join(d, '%s-%s' % (prefix, h)), 'wb') as f:
            f.write(x)
    print('corpus/%s: %d %s files' % (harness, len(items), prefix))


def policy_seeds():
    """Policy files: the documented example, each directive, each error."""
    ex = os.path.join(ROOT, 'examples', 'policy.txt')
    out = []
    if os.path.exists(ex):
        with open(ex, 'rb') as f:
            out.append(f.read())
    lines = [
        b'deny invalid too_long', b'flag idn', b'allow all', b'deny all', b'flag all',
        b'allow nondefault_port', b'allow-scheme http https ws wss', b'allow-scheme HTTP',
        b'allow-port 80 443 8000-8999', b'allow-port 0-65535', b'allow-port 65536',
        b'allow-port 9-1', b'deny-host metadata.google.internal .internal.example.com',
        b'deny-host 127.0.0.1 [::1] Example.COM.', b'allow-host .example.com',
        b'limit uri 4096', b'limit scheme 1', b'limit userinfo 0', b'limit host 99999999999',
        b'limit label 63', b'limit segments 256', b'limit bogus 1',
        b'dangerous-scheme ms-msdt search-ms', b'default-port foo 1234', b'default-port http x',
        b'# comment', b'   ', b'deny', b'deny nosuchflag', b'frobnicate x',
        b'deny invalid # trailing comment', b'deny\tinvalid', b'deny invalid\r',
        b'allow-scheme 1http', b'allow-scheme ' + b'a' * 65, b'deny-host ' + b'h' * 256,
        b'deny-host \xc3\xa9.example', b'deny \x00', b'allow-port ' + b' '.join(b'%d' % i for i in range(130)),
    ]
    out += lines
    rnd = random.Random(7)
    for i in range(40):
        k = rnd.randint(2, 6)
        out.append(b'\n'.join(rnd.choice(lines) for _ in range(k)) + (b'\n' if i % 2 else b''))
    # the rest of the grammar - address rules, *.suffix and
    # .suffix hosts, profile lines, require-*, and their mistakes (after
    # the older seeds, which stay as they were)
    grammar = [
        b'deny-ip 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16', b'deny-ip fd00::/8 fe80::/10',
        b'deny-ip 169.254.169.254 [::1] [fe80::]/10 ::ffff:10.0.0.0/104',
        b'allow-ip 192.168.1.0/24 2001:db8::/32', b'allow-ip 0.0.0.0/0 ::/0',
        b'deny-ip 10.0.0.0/33', b'deny-ip 10.0.0.1/8', b'deny-ip fd00::/129',
        b'deny-ip fe80::1%eth0', b'deny-ip 0x7f.1', b'deny-ip 2130706433', b'deny-ip evil.com',
        b'deny-ip [10.0.0.0]/8', b'deny-ip 10.0.0.0/08', b'deny-ip 10.0.0.0/', b'deny-ip /8',
        b'deny-ip', b'allow-ip ' + b' '.join(b'10.%d.%d.0/24' % (i >> 8, i & 255) for i in range(200)),
        b'deny-host *.evil.com .evil.org evil.net', b'allow-host *.corp.example', b'deny-host *.',
        b'deny-host *evil.com', b'deny-host a.*.com', b'deny-host evil.com:8080',
        b'deny-host evil.com/x', b'deny-host u@h', b'deny-host a..b', b'deny-host 10.0.0.0/8',
        b'deny-host [::g]', b'require-authority', b'require-absolute', b'require-authority yes',
        b'profile ssrf', b'profile proxy', b'profile mail', b'profile default', b'profile sssrf',
        b'profile', b'profile ssrf mail', b'deny pasword', b'deny-host \xef\xbd\x85vil.com',
    ]
    out += grammar
    rnd = random.Random(13)
    for i in range(30):
        body = [rnd.choice(grammar + lines) for _ in range(rnd.randint(2, 6))]
        if i % 3 == 0:
            body.insert(0, b'profile ' + rnd.choice([b'proxy', b'ssrf', b'mail', b'default']))
        out.append(b'\n'.join(body) + (b'\n' if i % 2 else b''))
    return uniq(out)


def main():
    singles = single_inputs()
    urls = url_sample(15)
    one = pick(singles, MAX_PER_HARNESS - len(urls), 1) + urls
    for h in ('parse', 'analyze', 'normalize', 'uriparser'):
        write(h, one)
    # curl: absolute http(s) URIs and the host-confusion examples
    web = [x for x in singles if x[:4].lower() == b'http' or x[:2] in (b'//', b'\\\\')]
    write('curl', pick(EXAMPLES + web, MAX_PER_HARNESS - 30, 2) + urls[:30])
    write('resolve', uniq(b + b'\n' + r for b, r in resolve_pairs())[:MAX_PER_HARNESS])
    # cli: several lines per file, with CRLF, NUL and invalid UTF-8 mixed in
    rnd = random.Random(3)
    lines = uniq(singles + urls)
    cli = []
    for i in range(60):
        k = rnd.randint(1, 8)
        chunk = [lines[rnd.randrange(len(lines))].replace(b'\n', b'') for _ in range(k)]
        sep = [b'\n', b'\r\n', b'\n\n'][i % 3]
        tail = b'' if i % 4 == 0 else sep
        cli.append(sep.join(chunk) + tail)
    cli += [b'', b'\n', b'\r\n', b'\x00\n\xff\xfe\n', b'\r', b'a\rb\n', b'\n' * 50,
            b'http://a/\r\r\n', b'\xc3\n\xa9\n', b'x' * 9000 + b'\n' + b'http://h/']
    write('cli', cli)
    write('policy', policy_seeds())


if __name__ == '__main__':
    main()
