#!/usr/bin/env python3
"""`urisan extract --resolve` against a real DNS server on 127.0.0.1
(tests/dns/dns_server.py): every link found in free text, in a mail
message and in an mbox has its host looked up and every address judged,
a link to a name that resolves inside is denied, rows keep their order
(also past the window of held rows) and their message in a mailbox, and
the options' misuse is a usage error.

Every JSON row, and check --resolve's lines, are validated against
doc/urisan-output.schema.json when python3-jsonschema is installed (of
the 1,500 rows of one name, each shape once: rows alike but for their
numbers; 2 shapes, fresh and cached).

usage: dns_extract_test.py URISAN
"""
import json
import os
import re
import subprocess
import sys

from dnstest import DnsServer

URISAN = sys.argv[1]

ZONE = {
    "public.test.": {"A": ["93.184.216.34"], "ttl": 300},
    "meta.test.": {"A": ["169.254.169.254"]},
    "alias.test.": {"CNAME": "db.corp.test."},
    "db.corp.test.": {"A": ["10.1.2.3"]},
    "fail.test.": {"rcode": "SERVFAIL"},
}

failures = []
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "doc",
                      "urisan-output.schema.json")
try:
    import jsonschema
    with open(SCHEMA) as f:
        schema = json.load(f)
    VALID = {c: jsonschema.Draft202012Validator({"$ref": "#/$defs/" + c, "$defs": schema["$defs"]})
             for c in ("extract", "check")}
except ImportError:
    VALID = None
    print("note: python3-jsonschema is not installed: rows not validated against the schema")
validated = 0


def expect(what, cond):
    if not cond:
        failures.append(what)


def extract(args, text, shapes=False):
    p = subprocess.run([URISAN, "extract", "--resolve"] + args, input=text,
                       capture_output=True, text=True, timeout=120)
    json_out = "--json" in args or "--fields" in args
    rows = [json.loads(x) for x in p.stdout.splitlines()] if json_out else p.stdout
    validate("extract", rows if json_out else [], shapes)
    return p.returncode, rows, p.stderr


def validate(cmd, rows, shapes=False):
    """Each row against the schema; shapes: rows that differ only in their
    numbers (1,500 links of one name, /0 .. /1499) once a shape."""
    global validated
    seen = set()
    for r in rows if VALID else []:
        if shapes:
            shape = re.sub(r"[0-9]+", "0", json.dumps(r, sort_keys=True))
            if shape in seen:
                continue
            seen.add(shape)
        errs = [e.message for e in VALID[cmd].iter_errors(r)]
        expect(f"schema ({cmd}): {errs[:2]} in {r}", not errs)
        validated += 1


TEXT = ("See https://public.test/docs and the status page http://meta.test/latest/ "
        "or mail the team.\nInternal: http://alias.test/admin, broken: http://fail.test/x\n")
# host -> (verdict, reason the answer adds, status)
WANT = {
    "public.test": ("allow", None, "ok"),
    "meta.test": ("deny", "resolved_ip_denied", "ok"),
    "alias.test": ("deny", "resolved_ip_denied", "ok"),
    "fail.test": ("deny", "dns_servfail", "servfail"),
}


def check_rows(what, rows):
    hosts = [r["uri"].split("/")[2] for r in rows]
    expect(f"{what}: links in order {hosts}", hosts == list(WANT))
    for r in rows:
        host = r["uri"].split("/")[2]
        verdict, reason, status = WANT[host]
        res = r.get("resolve") or {}
        expect(f"{what} {host}: verdict {r['verdict']}", r["verdict"] == verdict)
        expect(f"{what} {host}: status {res.get('status')}", res.get("status") == status)
        if reason:
            expect(f"{what} {host}: reasons {r['reasons']}", reason in r["reasons"])
            expect(f"{what} {host}: denied text", bool(res.get("denied")))


with DnsServer(ZONE) as dns:
    server = ["--dns-server", dns.addr]
    # free text
    rc, rows, err = extract(["--json", "--profile", "ssrf"] + server, TEXT)
    expect(f"text: exit 1 with denials, got {rc}: {err}", rc == 1)
    check_rows("text", rows)

    # text output names the address and its class
    rc, out, err = extract(["--profile", "ssrf"] + server, "go to http://meta.test/x now\n")
    expect(f"text form: {out!r}", "resolves to 169.254.169.254 (ip_link_local)" in out)

    # a mail message: the HTML part's links
    html = "".join(f'<a href="{u}">link</a>\n' for u in
                   ("https://public.test/docs", "http://meta.test/latest/",
                    "http://alias.test/admin", "http://fail.test/x"))
    msg = ("From: a@example.org\nTo: b@example.org\nSubject: s\nMIME-Version: 1.0\n"
           "Content-Type: text/html; charset=utf-8\n\n" + html)
    rc, rows, err = extract(["--json", "--mail", "--profile", "ssrf"] + server, msg)
    expect(f"mail: exit {rc}: {err}", rc == 1)
    check_rows("mail", rows)

    # an mbox: each row keeps its message
    mbox = ("From a@example.org Mon Jan  1 00:00:00 2024\n" + msg.replace(html, html[:46]) +
            "\nFrom a@example.org Mon Jan  1 00:00:00 2024\n" +
            msg.replace(html, '<a href="http://meta.test/">x</a>\n'))
    rc, rows, err = extract(["--json", "--mail", "--profile", "ssrf"] + server, mbox)
    got = [(r.get("message"), r["uri"], r["verdict"]) for r in rows]
    expect(f"mbox rows {got}", got == [(1, "https://public.test/docs", "allow"),
                                       (2, "http://meta.test/", "deny")])

    # more links than the window holds: every one out, in order, and the
    # name asked for once
    before = len(dns.queries("public.test."))
    many = "".join(f"https://public.test/{i}\n" for i in range(1500))
    rc, rows, err = extract(["--json"] + server, many, shapes=True)
    expect(f"1500 links: {len(rows)} rows, exit {rc}: {err}", len(rows) == 1500 and rc == 0)
    expect("1500 links in order",
           [r["uri"] for r in rows] == [f"https://public.test/{i}" for i in range(1500)])
    asked = len(dns.queries("public.test.")) - before
    expect(f"1500 links of one name: {asked} queries (want 2: A and AAAA)", asked == 2)

    # check --resolve's lines against the schema too
    p = subprocess.run([URISAN, "check", "--resolve", "--json", "--profile", "ssrf"] + server,
                       input="http://meta.test/\nhttp://public.test/\nhttp://fail.test/\n",
                       capture_output=True, text=True, timeout=60)
    validate("check", [json.loads(x) for x in p.stdout.splitlines()])

    # a link without a host (mailto:, urn:) keeps its string verdict:
    # no address a client connects to, status no_host
    rc, rows, err = extract(["--json", "--profile", "mail"] + server,
                            "write to mailto:a@b.example or urn:isbn:0451450523\n")
    got = [(r["uri"], r["verdict"], r["resolve"]["status"], r["resolve"]["denied"]) for r in rows]
    expect(f"no host: {got}", got == [("mailto:a@b.example", "allow", "no_host", None),
                                      ("urn:isbn:0451450523", "allow", "no_host", None)])
    rc, out, err = extract(["--profile", "mail"] + server, "mailto:a@b.example\n")
    expect(f"no host, text: {out!r}", out.endswith('"mailto:a@b.example" (dns no_host)\n'))

    # --fields names resolve
    rc, rows, err = extract(["--fields", "uri,resolve"] + server, "http://meta.test/\n")
    expect(f"--fields: {rows}", list(rows[0]) == ["uri", "resolve"])

# misuse: --dns-server alone, --resolve with --jobs, resolve named without
# --resolve, a bad server
for args, word in ((["--dns-server", "127.0.0.1"], "--dns-server needs --resolve"),
                   (["--resolve", "--jobs", "2"], "--jobs"),
                   (["--fields", "uri,resolve"], "--resolve"),
                   (["--resolve", "--dns-server", "not an address"], "--dns-server")):
    p = subprocess.run([URISAN, "extract"] + args, input="http://a.test/\n",
                       capture_output=True, text=True, timeout=60)
    expect(f"{args}: exit {p.returncode} {p.stderr!r}", p.returncode == 2 and word in p.stderr)

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok: text, text form, mail, mbox, 1500 links past the window, --fields, misuse;"
      f" {validated} JSON lines valid against the schema")
