#!/usr/bin/env python3
"""Conformance review of `urisan check --json` (RFC 3986; urisan(1) INPUT,
FLAGS, POLICY, JSON OUTPUT, EXIT STATUS; doc/policy.md).

Usage: tools/spec_review.py [PATH-TO-urisan]   (default build-review/src/cli/urisan)

Each case is written from those documents alone: the examples they give,
the boundaries of every rule and the obvious negatives. A case names flags that
must be set (has), flags that must not be set (not_), optionally the exact
flag set, validity, verdict, components and host_ip. Prints every mismatch
and exits 1 when there is one.
"""
import json
import subprocess
import sys

URISAN = sys.argv[1] if len(sys.argv) > 1 else "build-review/src/cli/urisan"

CASES = []


def case(uri, has=(), not_=(), exact=None, valid=None, verdict=None, comp=None,
         host_ip=Ellipsis, error=None, base=None, note=""):
    if isinstance(uri, str):
        uri = uri.encode("utf-8", "surrogateescape")
    CASES.append(dict(uri=uri, has=set(has.split() if isinstance(has, str) else has),
                      not_=set(not_.split() if isinstance(not_, str) else not_),
                      exact=None if exact is None else set(exact.split()),
                      valid=valid, verdict=verdict, comp=comp or {},
                      host_ip=host_ip, error=error, base=base, note=note))


def yes(flag, *uris, **kw):
    for u in uris:
        case(u, has=flag, **kw)


def no(flag, *uris, **kw):
    for u in uris:
        case(u, not_=flag, **kw)


# ---------------------------------------------------------------- invalid
yes("invalid", "http://a b/", "http://h:65536/", "http://[fe80::1%eth0]/",
    "http://[::1]x/", ":a", "1a:b", "http://h/#a#b", "http://h/a[b", "http://h:8a/",
    "http://a@b@c/", "http://[::1]:80:81/", "http://[1:2:3:4:5:6:7:8:9]/",
    "http://[0:0:0:0:0:0:0::1]/", "http://[:1::1:]/", "http://[v.x]/", "http://[vz.x]/",
    "http://[v1.]/", "http://[fe80::1%25]/", "http://[fe80::1%2]/", "http://[foo]/",
    "http://h/%", "http://h/%4", "http://h/%zz", "a b", "http://h/<>", "http://h/\"",
    "http://[::1/", "http://h/{x}", "http://h/a|b", "http://h/a^b", "http://h/`",
    "http://a" + "b" * 255 + "/", "http://" + "a" * 64 + ".com/")
no("invalid", "http://h:65535/", "http://[fe80::1%25eth0]/", "http://[v1.x]/",
   "http://[V1F.a:b!]/", "a:b", "", "//", "http:", "mailto:a@b", "http://%41/",
   "http://h:/", "http://h/?#", "http://[::1]/", "http://[::ffff:1.2.3.4]/",
   "http://[1:2:3:4:5:6:7:8]/", "http://[::]/", "urn:isbn:0451450523",
   "http://h/?a/b?c", "http://h/#a/b?c", "./a:b", "http://u:p@h/", "http://@/",
   "http://a" + "b" * 62 + "/", "http://" + ".".join(["a" * 63] * 4)[:255] + "/",
   "http://[fe80::1%25eth%30]/", "http://h/a;b=c,d", "?q", "#f", "http://h:0/",
   "http://1.2.3.4/", "http://256.1.1.1/", "http://h/%41")
case("http://[::1]:80:81/", comp={"host": "[::1]", "port": "80:81"})
case("http://h:80:81/", comp={"host": "h:80", "port": "81"}, valid=False)
case("http://a@b@c:1/", comp={"userinfo": "a@b", "host": "c", "port": "1"})
case("http://[::1]x:80/", valid=False)

# IPv6 / IPvFuture / zone id grammar (RFC 3986 3.2.2, RFC 6874)
no("invalid", "http://[::1.2.3.4]/", "http://[1:2:3:4:5:6:1.2.3.4]/", "http://[::1:2:3:4:5:6:7]/",
   "http://[1:2:3:4:5:6:7::]/", "http://[fe80::1%25%41]/", "http://[v1.:]/", "http://[::ffff:1.2.3.4]/",
   "http://[1::]/", "http://[A:B:C:D:E:F:0:1]/", "http://[fe80::1%25eth0.x~_-]/")
yes("invalid", "http://[::ffff:1.2.3]/", "http://[1:2:3:4:5:6:7:1.2.3.4]/", "http://[::01.2.3.4]/",
    "http://[1::2::3]/", "http://[12345::]/", "http://[::1:2:3:4:5:6:7:8]/",
    "http://[1:2:3:4::5:6:7:8]/", "http://[fe80::1%25a%zz]/", "http://[fe80::1%25a:b]/",
    "http://[v1.x%25y]/", "http://[1:2:3:4:5:6:7]/", "http://[::1]]/", "http://[[::1]/",
    "http://[::256.1.1.1]/", "http://[:::]/", "http://[1:]/", "http://[g::]/")

# ---------------------------------------------------------------- too_long
TL = "too_long invalid"
case("http://h/" + "a" * (8192 - 9), not_="too_long", valid=True)
case("http://h/" + "a" * (8193 - 9), exact=TL, verdict="deny")
case("javascript://%00@1:2@" + "a" * 9000, exact=TL, verdict="deny")
case("a" * 64 + "://h/", not_="too_long")
case("a" * 65 + "://h/", exact=TL)
case("http://" + "u" * 1024 + "@h/", not_="too_long")
case("http://" + "u" * 1025 + "@h/", exact=TL)
case("http://" + ".".join(["a" * 63] * 4)[:255] + "/", not_="too_long")
case("http://" + ".".join(["a" * 63] * 5)[:256] + "/", exact=TL)
case("http://" + "a" * 63 + ".com/", not_="too_long")
case("http://" + "a" * 64 + ".com/", exact=TL)
case("http://[" + "0" * 300 + "::1]/", exact=TL)
case("http://h" + "/a" * 1024, not_="too_long")
case("http://h" + "/a" * 1025, exact=TL)
case("/" + "/a" * 1023, not_="too_long")   # "//..." would be an authority
case("/a" * 1025, exact=TL)
case("a" + "/a" * 1023, not_="too_long")
case("a" + "/a" * 1024, exact=TL)
case("http://h/?" + "/" * 3000, not_="too_long")   # query slashes are no segments
case("http://h/#" + "/" * 3000, not_="too_long")

# ---------------------------------------------------------------- ports
DEFAULTS = dict(http=80, https=443, ws=80, wss=443, ftp=21, gopher=70, telnet=23,
                nntp=119, news=119, wais=210, prospero=1525, ldap=389, ldaps=636,
                imap=143, pop=110, smtp=25, ssh=22, sftp=22, rtsp=554, sip=5060,
                sips=5061, git=9418, dict=2628, tftp=69)
for s, p in DEFAULTS.items():
    no("nondefault_port reserved_port", f"{s}://h:{p}/", f"{s.upper()}://h:{p}/",
       f"{s}://h:0{p}/")
    yes("nondefault_port", f"{s}://h:{p + 1}/")
no("nondefault_port reserved_port", "http://h:/", "http://h/", "//h:/", "http://[::1]:80/",
   "http://h:8a/", "http://h:0080/", "http://u:8080@h/")
yes("nondefault_port", "http://h:8080/", "//h:80/", "foo://h:80/", "http://h:65536/",
    "http://h:99999999999999999999/", "http://h:443/", "https://h:80/", "http://[::1]:81/")
no("reserved_port", "http://h:8080/", "http://h:1024/", "http://h:65536/",
   "http://h:99999999999999999999/", "http://h:100000000000000000080/")
yes("reserved_port nondefault_port", "http://h:0/", "http://h:1023/", "http://h:25/",
    "http://h:23/", "http://h:110/", "//h:80/", "foo://h:80/", "http://h:443/",
    "http://h:00025/")

# ---------------------------------------------------------------- userinfo / password
yes("userinfo", "http://@h/", "http://u@h/", "http://u:@h/", "//u@h", "http://a@b@c/")
no("userinfo password", "http://h/@x", "mailto:a@b", "http://h/?@", "http://h#@")
yes("password userinfo", "http://u:@h/", "http://:@h/", "http://u:p@h/", "http://a:b@c@d/")
no("password", "http://u@h:80/", "http://u@h/", "http://@h:/")

# ---------------------------------------------------------------- escapes
yes("escaped_crlf escaped_ctl", "http://h/%0d", "http://h/%0D", "http://h/%0a", "http://h/%0A",
    "http://h/?%0d%0a", "http://h/#%0a", "http://u%0a@h/", "http://h%0d/", "%0a")
no("escaped_crlf", "http://h/%0b", "http://h/%250a", "http://h/0d0a", "http://h/%0")
yes("escaped_nul escaped_ctl", "http://h/%00", "http://h/?%00", "http://h/#%00", "%00")
no("escaped_nul", "http://h/%2500", "http://h/%010", "http://h/%0")
yes("escaped_ctl", "http://h/%01", "http://h/%1f", "http://h/%1F", "http://h/%7f",
    "http://h/%7F", "http://h/%09", "http://h/%20%1b")
no("escaped_ctl escaped_crlf escaped_nul", "http://h/%20", "http://h/%80", "http://h/%9f",
   "http://h/%7e", "http://h/%2F", "http://h/%251f")
for c in list(range(0x20)) + [0x7f]:
    case(b"http://h/a" + bytes([c]) + b"b", has="ctl_raw")
    case(("http://h/%%%02x" % c).encode(), has="escaped_ctl")
    case(("http://h/%%%02X" % c).encode(), has="escaped_ctl")
no("ctl_raw", "http://h/a b", "http://h/\x80", "http://h/\xc2\xa0")
for c in b" \t\n\x0b\x0c\r":
    case(b"http://h/a" + bytes([c]) + b"b", has="whitespace invalid")
    case(bytes([c]) + b"http://h/", has="whitespace")
no("whitespace", "http://h/\x01", "http://h/%20", "http://h/\xc2\xa0", "http://h/\x1c",
   "http://h/\x85")
case("http://h/a b", has="whitespace", not_="ctl_raw")
case(b"http://h/a\tb", has="whitespace ctl_raw")
yes("non_ascii invalid", "http://h/\xc3\xbc", "http://h/\x80", "http://h/\xff",
    "http://bücher.de/", "http://h/?\xff", "http://h/#\xff")
no("non_ascii", "http://h/%c3%bc", "http://h/%ff")
yes("invalid_escape invalid", "http://h/%", "http://h/%4", "http://h/%zz", "http://h/%g0",
    "http://h/%%", "http://h/?%", "http://h/#%x1", "http://%zz/", "http://u%@h/", "%",
    "http://h/%0g", "http://h/%%32%65")
no("invalid_escape", "http://h/%41", "http://h/%aF", "http://h/%25")
yes("double_encoding", "http://h/%252e", "http://h/%2500", "http://h/%%32%65",
    "http://h/%2541", "http://h/%25%32%65", "http://h/%2%35", "http://h/?%252f",
    "http://h/#%252f", "http://%252e/", "http://h/%25%34%31", "http://h/%25%34A")
no("double_encoding", "http://h/%25", "http://h/%25zz", "http://h/%252", "http://h/%2e",
   "http://h/%25%25", "http://h/%25g0", "http://h/100%25")

# ---------------------------------------------------------------- overlong_utf8
yes("overlong_utf8", "http://h/%c0%ae", "http://h/%C0%AE", "http://h/%c0%af", "http://h/%c1%9c",
    "http://h/%e0%80%ae", "http://h/%c0%80", "http://h/%f0%80%80%af", "http://h/%f0%8f%bf%bf",
    "http://h/%f8%80%80%80%af", "http://h/%f8%87%bf%bf%bf", "http://h/%fc%80%80%80%80%af",
    "http://h/%fc%83%bf%bf%bf%bf", "http://h/?%c0%ae", "http://h/#%c0%ae", "http://%c0%ae/",
    "http://h/%c0%c0%ae", "http://h/%e0%9f%bf", "http://h/%c1%bf", "http://h/%e0%80%c0%ae",
    "http://h/%2e%c0%ae", "http://u%c0%ae@h/")
no("overlong_utf8", "http://h/%c2%ae", "http://h/%e0%a0%80", "http://h/%f0%90%80%80",
   b"http://h/\xc0\xae", "http://h/%25c0%25ae", "http://h/%c0%2e", "http://h/%c0",
   "http://h/%c0.%ae", "http://h/%c0x%ae", "http://h/%f8%88%80%80%80",
   "http://h/%fc%84%80%80%80%80", "http://h/%c0/%ae", "http://h/%e0%a0%ae",
   "http://h/%f0%90%80%af", "http://h/%c0%c0", "http://h/%25c0%ae")

# ---------------------------------------------------------------- dot segments
yes("dot_segments", "/a/./b", "/a/../b", "/.", "/..", ".", "..", "./a", "a/..", "a/.",
    "http://h/.", "http://h/..", "http://h/a/./", "http:.", "mailto:..", "/a/%2e/b",
    "/a/%2E%2E/b", "/a/.%2e/b", "/a/%2e./b", "http://h//./x", "//h/./x")
no("dot_segments encoded_dot dot_above_root", "/a/.b", "/a/..b", "/a/.../b", "/a?/../",
   "/a#/..", "http://./", "http://../", "/a/%252e/b", "/a\\..\\b", "/a/.;/b", "/a/%2e%2e%2e/",
   "/a/..%2f", "/a/%2ex/", "/a%2eb", "http://h/?%2e%2e", "http://h/#/../..", "?..", "#.",
   "/a/. /", "/a/%2e%20/", "http://h/a.", "...", "/....")
yes("encoded_dot dot_segments", "/%2e/", "/%2E", "/a/%2e%2e", "http://h/%2e%2E/x", ".%2e", "%2e")
no("encoded_dot", "/./", "/../x", "/a/%2ex", "http://h/?%2e", "http://%2e/")
yes("dot_above_root dot_segments", "/../x", "/a/../../x", "http://h/%2e%2e/x", "/./../x", "/..",
    "http://h/..", "/a/b/../../..", "/a/./../..", "//h/../x", "http://h/a/../..",
    "/%2e%2e", "http://h/../", "/a/../b/../..")
no("dot_above_root", "../x", "/a/../x", "a/../../x", "http://h//../x", "/a/b/../..",
   "http:../x", "..", "./..", "mailto:../../x", "/a/../b", "http://h/a/b/../../", "http://h",
   "http://h/..x", "/a/..%2f..", "//h/a/..", "/a//../..")
case("../../../x", base="http://a/b/c/d", has="dot_above_root dot_segments")
case("../x", base="http://a/b/c", has="dot_segments", not_="dot_above_root")
case("g", base="http://a/b/c/..", not_="dot_above_root")

# ---------------------------------------------------------------- encoded_slash / backslash
yes("encoded_slash", "http://h/a%2fb", "http://h/a%2Fb", "http://h/a%5cb", "http://h/a%5Cb",
    "http://a%2fb/", "http://u%2f@h/", "a%2fb", "/%5c", "http://h:%2f/", "http://[%2f]/",
    "http://h/%%2f")
no("encoded_slash", "http://h/?a%2fb", "http://h/#%2f", "http://h/%252f", "http://h/%2g",
   "http://h/a/b", "http://h/%5d", "?%5c", "http://h/%2")
yes("backslash invalid", "http://h/a\\b", "http://h/?a\\b", "http://h/#\\", "\\", "http:\\\\h",
    "http://a\\b/")
no("backslash", "http://h/%5c", "http://h/a/b")

# ---------------------------------------------------------------- IP hosts
yes("ip_literal", "http://1.2.3.4/", "http://[::1]/", "http://[v1.x]/", "http://[fe80::1%25eth0]/",
    "http://[fe80::1%eth0]/", "http://0x7f.1/", "http://1.2.3/", "http://u@1.2.3.4:80/",
    "http://[::ffff:1.2.3.4]/", "foo://1.2.3.4/", "//1.2.3.4/", "http://[V7.abc]/")
no("ip_literal ip_obfuscated ip_loopback ip_private ip_link_local", "http://example.com/",
   "http://[foo]/", "http://localhost/", "http://h/127.0.0.1", "mailto:127.0.0.1",
   "http://1.2.3.4.5/", "http://256.1.1.1/", "http://0x100000000/", "http://4294967296/",
   "http://09.0.0.1/", "http://1..2/", "http://.1.2.3/", "http://1.2.3.4../", "http://a1.2.3.4/",
   "http://[/", "http://[]/", "http://0x1g/", "http://1.2.3.4a/",
   "http://12.34.56.78.example/", "http://1e2/", "http://0x7f.0x100.0.1/",
   "http://127.0.0.1:80@evil/"[:0] + "http://evil/127.0.0.1")
OBF = ["2130706433", "0x7f.1", "0177.0.0.1", "127.1", "127.000.000.001", "%31%32%37.0.0.1",
       "１２７．０．０．１", "①②⑦.⓪.⓪.①", "127。0。0。1", "127.0.0.1.", "0x7F000001",
       "0X7F.1", "017700000001", "127.0.1", "0x7f.0.0.1", "0x7f.0x0.0x0.0x1", "127.0.0.01",
       "%31%32%37%2e%30%2e%30%2e%31", "127%2e0%2e0%2e1", "%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1",
       "127%E3%80%820.0.1", "0x", "0", "00", "0x7f.1.", "１２７.1",
       "127.0.0.1%E3%80%82", "%30x7f.1"]
for h in OBF:
    case("http://" + h + "/", has="ip_obfuscated ip_literal ip_loopback", host_ip="127.0.0.1"
         if h not in ("0x", "0", "00") else "0.0.0.0", note="obfuscated loopback")
    case("foo://" + h + "/", has="ip_obfuscated ip_literal")
    case("//" + h + "/x", has="ip_obfuscated ip_literal")
yes("ip_obfuscated", "http://4294967295/", "http://0xa.0xa.0xa.0xa/", "http://10.1/",
    "http://169.254.43518/", "http://0251.0376.0251.0376/", "http://u:p@0x7f.1:8080/",
    "http://0xA9FEA9FE/", "http://01.2.3.4/", "http://1.2.3.04/", "http://001.2.3.4/")
no("ip_obfuscated", "http://127.0.0.1/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/",
   "http://0.0.0.0/", "http://10.0.0.1/", "http://1.2.3.4/", "http://[::1]/",
   "http://[::127.0.0.1]/")
case("http://4294967295/", host_ip="255.255.255.255")
case("http://169.254.43518/", has="ip_link_local", host_ip="169.254.169.254")
case("http://0xA9FEA9FE/", has="ip_link_local", host_ip="169.254.169.254")
case("http://0xa.0xa.0xa.0xa/", has="ip_private", host_ip="10.10.10.10")
yes("ip_loopback", "http://127.0.0.1/", "http://127.255.255.255/", "http://0.0.0.0/",
    "http://0.1.2.3/", "http://[::1]/", "http://[::]/", "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/", "http://[::127.0.0.1]/", "http://[64:ff9b::127.0.0.1]/",
    "http://[64:ff9b::7f00:1]/", "http://[0:0::1]/", "http://[0:0:0:0:0:0:0:1]/",
    "http://[::1%25lo]/", "http://[::ffff:0.0.0.0]/", "http://[::1]:80/", "http://u@127.0.0.1/",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/", "http://[::FFFF:7F00:1]/")
no("ip_loopback", "http://128.0.0.1/", "http://localhost/", "http://[::ffff:128.0.0.1]/",
   "http://[2001:db8::1]/", "http://126.255.255.255/", "http://1.0.0.0/",
   "http://[::1:0:0:1]/", "http://[64:ff9c::7f00:1]/", "http://[1::1]/", "http://[fe80::1]/")
yes("ip_private", "http://10.0.0.1/", "http://10.255.255.255/", "http://172.16.0.1/",
    "http://172.31.255.255/", "http://192.168.0.1/", "http://192.168.255.255/",
    "http://100.64.0.1/", "http://100.127.255.255/", "http://[fc00::1]/", "http://[fd12::1]/",
    "http://[fdff:ffff::]/", "http://[::ffff:10.0.0.1]/", "http://[::ffff:192.168.1.1]/",
    "http://[64:ff9b::10.0.0.1]/", "http://[::10.0.0.1]/", "http://0xc0a80001/",
    "http://[FC00::]/")
no("ip_private", "http://172.15.255.255/", "http://172.32.0.0/", "http://192.169.0.1/",
   "http://100.63.255.255/", "http://100.128.0.0/", "http://11.0.0.1/", "http://[fbff::1]/",
   "http://[fe00::1]/", "http://9.255.255.255/", "http://192.167.255.255/",
   "http://10.example/")
yes("ip_link_local", "http://169.254.0.1/", "http://169.254.169.254/", "http://169.254.255.255/",
    "http://[fe80::1]/", "http://[febf::1]/", "http://[fe80::1%25eth0]/",
    "http://[::ffff:169.254.169.254]/", "http://[64:ff9b::a9fe:a9fe]/", "http://[FE80::1]/")
no("ip_link_local", "http://169.253.0.1/", "http://169.255.0.1/", "http://[fec0::1]/",
   "http://[fe7f::1]/", "http://[ff02::1]/")
case("http://[::ffff:7f00:1]/", has="ip_loopback", not_="ip_obfuscated")
case("http://[0:0::1]/", host_ip="::1")
case("http://0x7f.1/", host_ip="127.0.0.1")
case("http://[fe80::1%25eth0]/", host_ip="fe80::1")
case("http://[v1.x]/", host_ip=None)
case("http://localhost/", host_ip=None)
case("http://example.com/", host_ip=None)
case("http://1.2.3.4/", host_ip="1.2.3.4")
case("http://[2001:DB8::1]/", host_ip="2001:db8::1")

# UTS #46 mappings beyond fullwidth/circled (fixed in 4b8f2bc) and raw TAB/LF/CR
# removed by WHATWG before the host is parsed (fixed in 8cd5679)
case("http://0x7\u1da0.1/", has="ip_obfuscated ip_loopback", host_ip="127.0.0.1")
case("http://0x\u00aa.1/", has="ip_obfuscated ip_private", host_ip="10.0.0.1")
case("http://0x\u33c4.1/", has="ip_obfuscated", host_ip="204.0.0.1")
case("http://127.0.0.\u20611/", has="ip_obfuscated ip_loopback", host_ip="127.0.0.1")
case("http://169.254.169.254\t/", has="ip_obfuscated ip_link_local", host_ip="169.254.169.254")
case("http://127.0.0.1%09/", not_="ip_literal ip_obfuscated", host_ip=None)

# ---------------------------------------------------------------- idn
yes("idn", "http://xn--bcher-kva.example/", "http://www.XN--abc.com/", "http://Xn--a/",
    "http://xn--/", "http://%78n--abc.com/", "http://a.xn--b/", "http://bücher.de/",
    "http://b%C3%BCcher.de/", "http://%80/", "http://x%6e--a/", "http://xN--a.com:80/",
    "http://u@xn--a.com/", "http://１２７．０．０．１/", "http://a.%78%6E%2D%2Dz/")
no("idn", "http://axn--b.com/", "http://xn-a.com/", "http://h/xn--a", "http://h/b\xc3\xbc",
   "http://example.com/", "http://xn.com/", "http://x-n--a/", "http://xn-/",
   "http://h/?%c3%bc", "http://xn--@h/", "mailto:xn--a@b", "http://h:80/xn--")

# ---------------------------------------------------------------- dangerous_scheme
DANGER = ["javascript", "vbscript", "data", "file", "gopher", "dict", "ldap", "tftp", "jar",
          "netdoc"]
for s in DANGER:
    yes("dangerous_scheme", s + ":x", s.upper() + ":x", s.capitalize() + "://h/x",
        verdict="deny")
yes("dangerous_scheme", "java\tscript:alert(1)", "java\nscript:x", "java\rscript:x",
    " javascript:x", "\x01javascript:x", "\x00javascript:x", "\r\njavascript:x",
    " \tjavascript:x", "\x1f\x20JaVaScRiPt:x", "\tj\ta\tv\ta\ts\tc\tr\ti\tp\tt\t:x",
    "javascript\t:x", "data:text/html,x", "file:///etc/passwd", "javascript:")
no("dangerous_scheme", "javascripts:x", "ldaps://h/", "https://h/", "xjavascript:x",
   "javascript", "a javascript:x", "jav\x01ascript:x", "java%09script:x",
   "\x7fjavascript:x", "\xc2\xa0javascript:x", "javascript :x", "/javascript:x",
   "http://h/javascript:x", "?javascript:x", "datax:y", "filex:y", "jar2:y",
   "java script:x", "http://javascript:80/", "./javascript:x")

# ---------------------------------------------------------------- ambiguous_authority
AA = "ambiguous_authority"
yes(AA,
    # more than one @
    "http://a@b@c/", "http://a@evil.com:80@good.com/", "//a@b@c", "foo://a@b@c/",
    # backslash in authority or among the slashes
    "http://a\\@b", "http://a\\b/", "http:\\\\a", "http:/\\a", "http:\\/a", "\\/\\/a", "/\\a",
    "\\\\a", "foo:\\\\a", "foo:/\\a", "file:\\\\h/x", "http://h\\/x", "//a\\b",
    # special scheme not followed by exactly //
    "http:evil", "http:/evil", "http:///evil", "https:evil", "ws:/x", "wss:///x", "ftp:x",
    "HTTP:evil", "Https:/evil", "http:", "http:?x", "http:#x", "http:////evil", "http:\\x",
    # file: with 4+ slashes
    "file:////host/share", "file://///x", "FILE:////h/s",
    # reference without scheme
    "///evil", "////evil", "/\\evil", "\\\\evil",
    # @ after # ? \ ending the authority, before the next /
    "http://a#@b", "http://a?@b/", "http://a?@b", "http://a#x?@b", "//a?@b", "http://a?x@b",
    "http://a#x@b/", "foo://a#@b",
    # TAB CR LF in the authority
    "http://a\tb/", "http://a\nb/", "http://a\rb/", "http://\tevil.com/", "http://u\t@h/",
    "http://h:8\t0/", "//a\tb",
    # escapes in a name host
    "http://%2f/", "http://a%2fb/", "http://%67oogle.com/", "http://evil%00.com/",
    "http://a%23b/", "http://%31%32%37.0.0.1/", "http://%41/", "http://a%2e/", "//%41/",
    "foo://%41/", "http://u@%41:80/", "http://1.2.3.%34/",
    # other scheme with one slash or three+
    "dict:///127.0.0.1:11211/", "mailto:/a@b", "foo:///x", "foo:/x", "foo:////x", "foo:/",
    "foo:///", "gopher:///h/", "ldap:/x",
    # file: localhost / 127.0.0.1
    "file://localhost/etc/passwd", "file://LOCALHOST/x", "file://LocalHost/x",
    "file://127.0.0.1/x", "file://localhost", "file://localhost:80/x", "file://u@localhost/x",
    "File://localhost/", "file://localhost?x", "file://127.0.0.1",
    # file: drive letter
    "file://C:/x", "file://c|/x", "file://C:", "file://c|", "file://Z:/", "file://C:?x")
no(AA, "http://a/", "http://u@h/", "http://u:p@h:80/p?q#f", "http://h/@x", "http://h/a@b@c",
   "http://a/?@b", "http://a/#@b", "http://a#/@b", "http://a?x/@b", "http://a/\\@b",
   "//a", "/a", "a", "a/b", "", "?@x", "#@x", "foo://x", "foo:x", "mailto:a@b", "urn:isbn:1",
   "file:///etc/passwd", "file://host/x", "file:/x", "file:x", "file:", "file://",
   "file://127.1/x", "file://localhost./x", "file://localhostx/x", "file://cc:/x",
   "file://C:x/", "file://1:/x", "http://a/%2f", "http://u%40@h/",
   "http://[fe80::1%25eth0]/", "http://127.0.0.1/", "http://a%zz/", "http://h/\tx",
   "http://h/\\x", "\\a", "foo:\\a", "http://[::1]/", "foo:", "foo:?x", "//h/\\x",
   "http://a?b/@c", "ws://h/", "wss://h/", "ftp://h/", "https://h/",
   "dict://h:2628/", "ldap://h/", "mailto:a@b@c", "news:comp.x", "file://127.0.0.2/",
   "file://C/", "file://C:a/", " http://evil/", "data:,x")

# ---------------------------------------------------------------- implications
for u in ["http://u:p@h/", "http://h:25/", "http://h/%0d", "http://h/%00", "http://0x7f.1/",
          "/../x", "/%2e/", "http://h/\xff", "http://h/%", "http://h/\\",
          "http://" + "u" * 1025 + "@h/"]:
    case(u, note="implication")

# ---------------------------------------------------------------- default policy (urisan(1) POLICY)
DENY = ["invalid", "too_long", "escaped_crlf", "escaped_nul", "ctl_raw", "dot_above_root",
        "password", "dangerous_scheme", "ambiguous_authority", "ip_obfuscated"]
case("http://example.com/", exact="", verdict="allow")
case("http://h:8080/", exact="nondefault_port", verdict="flag")
case("http://u@h/", exact="userinfo", verdict="flag")
case("http://1.2.3.4/", exact="ip_literal", verdict="flag")
case("http://127.0.0.1/", exact="ip_literal ip_loopback", verdict="flag")
case("http://h/%01", exact="escaped_ctl", verdict="flag")
case("http://h/a/../b", exact="dot_segments", verdict="flag")
case("http://h/%2e/b", exact="dot_segments encoded_dot", verdict="flag")
case("http://h/a%2fb", exact="encoded_slash", verdict="flag")
case("http://h/%252e", exact="double_encoding", verdict="flag")
case("http://h/%c0%ae", exact="overlong_utf8", verdict="flag")
case("http://xn--a.com/", exact="idn", verdict="flag")
case("http://h:25/", exact="nondefault_port reserved_port", verdict="flag")
case("http://[fe80::1]/", exact="ip_literal ip_link_local", verdict="flag")
case("http://10.0.0.1/", exact="ip_literal ip_private", verdict="flag")
case("http://u:p@h/", exact="userinfo password", verdict="deny")
case("http://h/%0a", exact="escaped_crlf escaped_ctl", verdict="deny")
case("http://h/%00", exact="escaped_nul escaped_ctl", verdict="deny")
case("/../x", exact="dot_segments dot_above_root", verdict="deny")
case("javascript:alert(1)", exact="dangerous_scheme", verdict="deny")
case("http://0x7f.1/", exact="ip_literal ip_obfuscated ip_loopback", verdict="deny")
case("http:evil", exact="ambiguous_authority", verdict="deny")
case("http://h/\x01", has="ctl_raw", verdict="deny")
case("http://h/ ", has="whitespace invalid", verdict="deny")

# ---------------------------------------------------------------- components (urisan(1) JSON OUTPUT)
NULLS = dict(scheme=None, userinfo=None, host=None, host_type=None, port=None, path="",
             query=None, fragment=None)
case("", comp=NULLS, valid=True, exact="")
case("foo", comp=dict(NULLS, path="foo"))
case("http://@:/?#", comp=dict(scheme="http", userinfo="", host="", host_type="empty",
                               port="", path="/", query="", fragment=""))
case("http://h", comp=dict(scheme="http", userinfo=None, host="h", host_type="reg-name",
                           port=None, path="", query=None, fragment=None))
case("http://[::1]:8080/p", comp=dict(host="[::1]", host_type="ipv6", port="8080"))
case("http://[fe80::1%25eth0]/", comp=dict(host="[fe80::1%25eth0]", host_type="ipv6-zone"))
case("http://[v1.x]/", comp=dict(host="[v1.x]", host_type="ipvfuture"))
case("http://1.2.3.4/", comp=dict(host="1.2.3.4", host_type="ipv4"))
case("http://0x7f.1/", comp=dict(host="0x7f.1", host_type="reg-name"))
case("file:///x", comp=dict(host="", host_type="empty", path="/x"))
case("mailto:a@b", comp=dict(scheme="mailto", userinfo=None, host=None, path="a@b"))
case("http://h:080/", comp=dict(port="080"))
case("?", comp=dict(NULLS, query=""))
case("#", comp=dict(NULLS, fragment=""))
case("//", comp=dict(NULLS, host="", host_type="empty"))
case("http://a:b@c:d@e:80/x", comp=dict(userinfo="a:b@c:d", host="e", port="80"))
case("http://h:80:81/", comp=dict(host="h:80", port="81"))
case("http://[::1]:", comp=dict(host="[::1]", port=""))
case("HTTP://H/", comp=dict(scheme="HTTP", host="H"))

def cli_checks():
    """urisan(1) INPUT, JSON OUTPUT, EXIT STATUS: one answer per input, CRLF,
    JSON escaping, exit statuses."""
    errs = []
    def run(args, stdin=b""):
        return subprocess.run([URISAN] + args, input=stdin, capture_output=True)
    r = run(["check", "--json"], b"http://a/\r\n\r\nhttp://b/\r\r\nx\x00y\n\xff\xc0\xae\xed\xa0\x80\x01\n" +
            b"http://h/" + b"a" * 3000000 + b"\nlast")
    lines = r.stdout.split(b"\n")
    if lines[-1] != b"" or len(lines) != 8:
        errs.append(f"stdin: {len(lines) - 1} answers for 7 inputs")
    else:
        objs = [json.loads(l.decode("utf-8")) for l in lines[:-1]]
        want = ["http://a/", "", "http://b/\r", "x\x00y", "\u00ff\u00c0\u00ae\u00ed\u00a0\u0080\x01"]
        for o, w in zip(objs, want):
            if o["uri"] != w:
                errs.append(f"uri {o['uri']!r} != {w!r}")
        if set(objs[5]["flags"]) != {"too_long", "invalid"}:
            errs.append("multi-megabyte line is not exactly too_long+invalid")
        if objs[6]["uri"] != "last":
            errs.append("last line without LF lost")
        for k in ["uri", "valid", "error", "components", "host_ip", "flags", "verdict", "reasons"]:
            if k not in objs[0]:
                errs.append(f"key {k} missing")
        if r.returncode != 1:
            errs.append(f"exit {r.returncode} with denied inputs")
    if run(["check", "--json", "http://a/", "http://h:8080/"]).returncode != 0:
        errs.append("exit status not 0 when nothing is denied")
    r = run(["check", "--json", "--policy", "/nonexistent/x", "http://a/"])
    if r.returncode != 2:
        errs.append(f"exit {r.returncode} for a missing policy file")
    r = run(["check", "--bogus-option"])
    if r.returncode != 2 or b"usage" not in r.stderr.lower() + r.stdout.lower():
        errs.append("usage error does not exit 2 with usage")
    return errs


def flags_ok(c, flags):
    errs = []
    for f in c["has"]:
        if f not in flags:
            errs.append(f"missing {f}")
    for f in c["not_"]:
        if f in flags:
            errs.append(f"unexpected {f}")
    if c["exact"] is not None and set(flags) != c["exact"]:
        errs.append(f"flags {sorted(flags)} != exact {sorted(c['exact'])}")
    # implications (doc/policy.md)
    imp = [("password", "userinfo"), ("reserved_port", "nondefault_port"),
           ("escaped_crlf", "escaped_ctl"), ("escaped_nul", "escaped_ctl"),
           ("ip_obfuscated", "ip_literal"), ("dot_above_root", "dot_segments"),
           ("encoded_dot", "dot_segments"), ("non_ascii", "invalid"),
           ("invalid_escape", "invalid"), ("backslash", "invalid"), ("too_long", "invalid")]
    for a, b in imp:
        if a in flags and b not in flags:
            errs.append(f"{a} without {b}")
    if "too_long" in flags and set(flags) != {"too_long", "invalid"}:
        errs.append("too_long with other flags")
    return errs


def run_one(c):
    args = [URISAN, "check", "--json"]
    if c["base"]:
        args += ["--base", c["base"]]
    u = c["uri"]
    if b"\0" in u or b"\n" in u or b"\r" in u:
        r = subprocess.run(args, input=u + b"\n", capture_output=True) if b"\n" not in u \
            and not u.endswith(b"\r") else None
        if r is None:
            r = subprocess.run(args + [u], capture_output=True) if b"\0" not in u else None
        if r is None:
            return None, ["cannot pass input"]
    else:
        r = subprocess.run(args + ["--", u] if u.startswith(b"-") else args + [u],
                           capture_output=True)
    lines = r.stdout.split(b"\n")
    if len(lines) != 2 or lines[1] != b"":
        return None, [f"{len(lines) - 1} output lines, rc {r.returncode}, {r.stderr[:200]}"]
    obj = json.loads(lines[0].decode("utf-8"))
    errs = flags_ok(c, obj["flags"])
    if c["valid"] is not None and obj["valid"] != c["valid"]:
        errs.append(f"valid {obj['valid']} != {c['valid']}")
    if obj["valid"] != ("invalid" not in obj["flags"]):
        errs.append("valid disagrees with the invalid flag")
    if c["verdict"] is not None and obj["verdict"] != c["verdict"]:
        errs.append(f"verdict {obj['verdict']} != {c['verdict']}")
    for k, v in c["comp"].items():
        if obj["components"][k] != v:
            errs.append(f"components.{k} {obj['components'][k]!r} != {v!r}")
    if c["host_ip"] is not Ellipsis and obj["host_ip"] != c["host_ip"]:
        errs.append(f"host_ip {obj['host_ip']!r} != {c['host_ip']!r}")
    # default policy: deny iff a deny flag is present
    denied = any(f in DENY for f in obj["flags"])
    want = "deny" if denied else ("flag" if obj["flags"] else "allow")
    if obj["verdict"] != want:
        errs.append(f"default verdict {obj['verdict']} != {want}")
    if r.returncode != (1 if want == "deny" else 0):
        errs.append(f"exit status {r.returncode}")
    return obj, errs


def main():
    bad = 0
    for c in CASES:
        obj, errs = run_one(c)
        if errs:
            bad += 1
            shown = c["uri"][:120]
            print(f"FAIL {shown!r}{' base=' + c['base'] if c['base'] else ''}: "
                  f"{'; '.join(errs)}" + (f"  flags={obj['flags']}" if obj else ""))
    for e in cli_checks():
        bad += 1
        print("FAIL cli:", e)
    print(f"{len(CASES)} cases + CLI checks, {bad} failing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
