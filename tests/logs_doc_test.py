#!/usr/bin/env python3
"""logs_doc_test.py URISAN SRCDIR - the recipes of doc/logs.md, run as
written, give useful output.

Every command of the page's ```sh blocks is taken verbatim (a line ending
in `|` or `\\` goes on on the next) and run by bash in a scratch directory,
with `urisan` (the build's) first on PATH and /var/log/squid standing for
a directory of the scratch one (the only change). The logs they read are
made here: the page's own `access.log` example (combined), the same
requests as `common` and Apache `vhost_combined` lines, rotated gzip
copies, Squid native logs and Zeek http.log files. Each command has a
check of its output: origin-form lines judged as full URLs with --host,
the page's example output lines byte for byte, CONNECT lines without port
flags, metadata lines denied, every log line accounted for. A recipe
without a check fails the test, so a new one gets one. The Dask commands
are run by the python suite (python/tests/test_dask_example.py) and are
the only ones left out here.

Exit 77 (skip) when bash, jq or GNU parallel is missing (Debian packages
bash, jq, parallel; tools/install-deps.sh installs them).
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

URISAN = os.path.abspath(sys.argv[1])
SRCDIR = os.path.abspath(sys.argv[2])
DOC = os.path.join(SRCDIR, "doc", "logs.md")
failures = []


def check(cond, what):
    print("ok   " + what[:150] if cond else "FAIL " + what)
    if not cond:
        failures.append(what)


def blocks(text):
    """(info string, body, the comment line before the block) of each
    fenced block."""
    out = []
    for m in re.finditer(r"(?:<!--(.*?)-->\n)?```(\w*)\n(.*?)```", text, re.S):
        out.append((m.group(2), m.group(3), (m.group(1) or "").strip()))
    return out


def marked(bl, prefix):
    found = [body for _, body, mark in bl if mark.startswith(prefix)]
    if len(found) != 1:
        raise SystemExit("FAIL: doc/logs.md has %d blocks marked '%s'" % (len(found), prefix))
    return found[0]


def commands(bl):
    """The shell commands of the ```sh blocks, continuation lines joined."""
    cmds = []
    for info, body, _ in bl:
        if info != "sh":
            continue
        cur = ""
        for line in body.splitlines():
            if not cur and (not line.strip() or line.lstrip().startswith("#")):
                continue
            cur += line + "\n"
            if not re.search(r"(\||\\)\s*$", line):
                cmds.append(cur.rstrip("\n"))
                cur = ""
        if cur:
            cmds.append(cur.rstrip("\n"))
    return cmds


# --- the logs ---------------------------------------------------------

def common_of(combined_line):
    """A combined line without its referer and user-agent: common."""
    return re.sub(r' "[^"]*" "[^"]*"$', "", combined_line)


SQUID_LINES = [
    "1764202200.101    250 10.0.0.5 TCP_MISS/200 5120 GET http://www.example.org/index.html - HIER_DIRECT/93.184.216.34 text/html",
    "1764202201.202  60012 10.0.0.5 TCP_TUNNEL/200 4711 CONNECT api.github.com:443 - HIER_DIRECT/140.82.121.6 -",
    "1764202202.303      3 10.0.0.6 TCP_MISS/200 120 GET http://169.254.169.254/latest/meta-data/ - HIER_DIRECT/169.254.169.254 text/plain",
    "1764202203.404     14 10.0.0.6 TCP_MISS/200 80 GET http://metadata.google.internal/computeMetadata/v1/ - HIER_DIRECT/169.254.169.254 text/plain",
    "1764202204.505     44 10.0.0.7 TCP_MISS/200 900 GET http://10.1.2.3/intranet/ - HIER_DIRECT/10.1.2.3 text/html",
    "1764202205.606  30001 10.0.0.7 TCP_TUNNEL/200 333 CONNECT www.example.net:443 - HIER_DIRECT/93.184.216.34 -",
]
SQUID_METADATA = {2, 3}     # indexes of the lines a proxy must deny

ZEEK_HEAD = ("#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n"
             "#path\thttp\n#fields\tts\tuid\tid.orig_h\thost\turi\tstatus_code\n"
             "#types\ttime\tstring\taddr\tstring\tstring\tcount\n")
ZEEK_FILES = {
    "http.00:00:00-01:00:00.log.gz": [
        "1764201600.1\tCa1\t10.0.0.5\twww.example.org\t/index.html\t200",
        "1764201601.2\tCa2\t10.0.0.6\t169.254.169.254\t/latest/meta-data/iam/security-credentials/\t200",
    ],
    "http.01:00:00-02:00:00.log.gz": [
        "1764205200.3\tCb1\t10.0.0.7\tmetadata.google.internal\t/computeMetadata/v1/\t200",
        "1764205201.4\tCb2\t10.0.0.7\tcdn.example.com\t/app.js\t200",
    ],
}
ZEEK_DENIED = 2


def write_logs(tmp, access):
    with open(os.path.join(tmp, "access.log"), "w") as f:
        f.write(access)
    with gzip.open(os.path.join(tmp, "access.log.1.gz"), "wt") as f:
        f.write(access)
    lines = access.splitlines()
    for sub, conv in (("common", common_of),
                      ("vhost_combined", lambda l: "www.example.com:443 " + l)):
        os.mkdir(os.path.join(tmp, sub))
        with open(os.path.join(tmp, sub, "access.log"), "w") as f:
            f.write("".join(conv(l) + "\n" for l in lines))
    squid = os.path.join(tmp, "var", "log", "squid")
    os.makedirs(squid)
    with open(os.path.join(squid, "access.log"), "w") as f:
        f.write("".join(l + "\n" for l in SQUID_LINES[:3]))
    with gzip.open(os.path.join(squid, "access.log.1.gz"), "wt") as f:
        f.write("".join(l + "\n" for l in SQUID_LINES[3:]))
    for name, recs in ZEEK_FILES.items():
        with gzip.open(os.path.join(tmp, name), "wt") as f:
            f.write(ZEEK_HEAD + "".join(r + "\n" for r in recs) + "#close\t2026-11-27-02-00-00\n")
    # which Squid line is in which file
    return {0: "access.log", 1: "access.log", 2: "access.log",
            3: "access.log.1.gz", 4: "access.log.1.gz", 5: "access.log.1.gz"}, squid


# --- the checks, one per recipe -----------------------------------------

def squid_file_lines(squid, where):
    return {i: (os.path.join(squid, where[i]), l) for i, l in enumerate(SQUID_LINES)}


def run_in(tmp, env, cmd, cwd=None):
    return subprocess.run(["bash", "-c", cmd], cwd=cwd or tmp, env=env, capture_output=True,
                          timeout=300)


def main():
    for tool in ("bash", "jq", "parallel"):
        if shutil.which(tool) is None:
            print("SKIP: %s is not installed (tools/install-deps.sh installs it)" % tool)
            return 77
    with open(DOC, encoding="utf-8") as f:
        bl = blocks(f.read())
    access = marked(bl, "access.log:")
    want_out = marked(bl, "output:")
    want_jq = marked(bl, "jq output:")
    cmds = commands(bl)
    check(len(cmds) >= 6, "doc/logs.md has its recipes (%d commands)" % len(cmds))

    tmp = tempfile.mkdtemp(prefix="urisan-logs-doc-")
    try:
        where, squid = write_logs(tmp, access)
        bindir = os.path.join(tmp, "bin")
        os.mkdir(bindir)
        os.symlink(URISAN, os.path.join(bindir, "urisan"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
                   HOME=tmp, LC_ALL="C.UTF-8")
        checked = 0
        for doc_cmd in cmds:
            if doc_cmd.startswith("/usr/bin/python3 examples/dask/"):
                continue   # the python suite runs these
            cmd = doc_cmd.replace("/var/log/squid", squid)
            r = run_in(tmp, env, cmd)
            head = doc_cmd.split("\n")[0][:90]
            err = r.stderr.decode(errors="replace")[-300:]
            if doc_cmd.startswith("urisan check --format combined --profile ssrf --host"):
                checked += 1
                check(r.stdout.decode() == want_out and r.returncode == 1,
                      "%s: prints the page's lines, exit 1 (got %r, %d, %s)"
                      % (head, r.stdout.decode()[:400], r.returncode, err))
                for sub in ("common", "vhost_combined"):
                    rs = run_in(tmp, env, cmd, cwd=os.path.join(tmp, sub))
                    check(rs.stdout.decode() == want_out,
                          "%s: the same over %s lines (got %r)" % (head, sub, rs.stdout[:400]))
                lines = r.stdout.decode().splitlines()
                check(all('"https://www.example.com/' in l for l, a in
                          zip(lines, access.splitlines()) if '"GET /' in a),
                      "%s: origin-form lines judged as full URLs" % head)
            elif "--format squid --profile proxy --tsv" in doc_cmd and "denied.log" in doc_cmd:
                checked += 1
                with open(os.path.join(tmp, "denied.log")) as f:
                    got = f.read().splitlines()
                want = [SQUID_LINES[i] for i in sorted(SQUID_METADATA)]
                check(sorted(got) == sorted(want),
                      "%s: denied.log holds the metadata lines, nothing else (%r)" % (head, got))
            elif "--format combined --json" in doc_cmd and "jq" in doc_cmd:
                checked += 1
                check(r.stdout.decode() == want_jq,
                      "%s: prints the page's lines (got %r, %s)" % (head, r.stdout[:400], err))
            elif "--format zeek" in doc_cmd:
                checked += 1
                check(r.stdout.decode().strip() == str(ZEEK_DENIED),
                      "%s: counts the %d metadata requests (got %r, %s)"
                      % (head, ZEEK_DENIED, r.stdout, err))
            elif "parallel -k --tag" in doc_cmd:
                checked += 1
                with open(os.path.join(tmp, "verdicts.tsv")) as f:
                    rows = [l.split("\t", 3) for l in f.read().splitlines()]
                files = squid_file_lines(squid, where)
                want = [[files[i][0], "deny" if i in SQUID_METADATA else
                         ("flag" if "10.1.2.3" in l else "allow"), None, l]
                        for i, l in enumerate(SQUID_LINES)]
                got_ok = len(rows) == len(want) and all(
                    g[0] == w[0] and g[1] == w[1] and g[3] == w[3] for g, w in zip(rows, want))
                check(got_ok, "%s: one tagged line per log line, in file order, metadata "
                      "denied (%r)" % (head, rows))
                connect = [g for g in rows if " CONNECT " in g[3]]
                check(len(connect) == 2 and all(g[1] == "allow" and g[2] == "-" for g in connect),
                      "%s: CONNECT host:443 lines allowed, no port flag (%r)" % (head, connect))
            elif "parallel '" in doc_cmd and ".jsonl" in doc_cmd:
                checked += 1
                rows = []
                for name in ("access.jsonl", "access.log.1.jsonl"):
                    path = os.path.join(tmp, name)
                    if os.path.exists(path):
                        with open(path) as f:
                            rows += [json.loads(l) for l in f]
                check(len(rows) == len(SQUID_LINES), "%s: access.jsonl and access.log.1.jsonl, "
                      "a JSON line per log line (%d, %s)" % (head, len(rows), err))
                by_line = {x.get("line"): x for x in rows}
                meta = [by_line.get(SQUID_LINES[i], {}) for i in sorted(SQUID_METADATA)]
                check(all(m.get("verdict") == "deny" for m in meta),
                      "%s: metadata lines denied (%r)" % (head, [m.get("reasons") for m in meta]))
                conn = [x for x in rows if " CONNECT " in x.get("line", "")]
                check(len(conn) == 2 and all(
                    x["verdict"] == "allow" and x["components"]["port"] == "443" and
                    not {"nondefault_port", "reserved_port"} & set(x["flags"]) for x in conn),
                    "%s: CONNECT judged as https://host:443, no port flag (%r)"
                    % (head, [(x["uri"], x["flags"]) for x in conn]))
            else:
                check(False, "a recipe of doc/logs.md without a check here: %r" % doc_cmd)
        check(checked == 6, "every recipe ran (%d of 6)" % checked)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
