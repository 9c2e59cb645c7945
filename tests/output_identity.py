#!/usr/bin/env python3
"""output_identity.py - the command's output is byte-identical to that of the
commit before the fast output path.

    output_identity.py URISAN_EXE SRCDIR WORKDIR [--sample N]

Builds `urisan` of the reference commit (REF_COMMIT, from this repository's
own history via `git archive`; cached in WORKDIR) and runs both binaries,
with the same arguments and standard input, over every shared URL file and
every fuzz corpus (each corpus directory as one input, its files joined by
LF), in every output mode of check, normalize, resolve, extract and
squid-acl. It requires for each run the same exit status and the same bytes:

  - text modes and squid-acl: equal output;
  - JSON Lines: each new line equals the old one, or (keys are append only,
    doc/output.md) starts with the old line minus its closing brace and
    continues with ',' - the old keys, values and order are byte-identical
    and later issues' keys follow;
  - `check --fields` with the old key list: equal output.

--sample N (the quick size) keeps every Nth line of each shared URL file,
from a different offset in each, and runs the corpus directories joined
as one input (one run per mode instead of one per directory: a process
start is most of a corpus run; on a difference each directory is run
alone to name it); every corpus file, every mail message and every mode
stay whole. Without it (suite 'slow'), every line, a run per directory.

Exits 77 (skip) when git history, meson or the shared data are missing.

When an issue changes the output on purpose (a text format, a key in the
middle of a line), move REF_COMMIT to the commit that did it.
"""
import json
import os
import shutil
import subprocess
import sys

# The reference output. Was fa27127 (the old output path: json_w, stdio per
# line), which the fast path of 8f8f703 matched byte for byte; moved to
# 1c93135, which adds the flag host_uts46 to the flags of hosts UTS #46 maps;
# moved to 85e5b6b, which adds the flag nested_url (bit 37) to the flags
# of URIs with a URL nested in a query or fragment parameter (and so turns
# their verdict allow -> flag): on the shared data 19 (kasztp), 110
# (userbait), 0 (node_files), 2 (isaacs_files) lines of check --json, all
# other output byte-identical; moved to 090c980, which flags the /etc/hosts
# loopback aliases (localhost4, ip6-localhost ...) internal_name and adds
# the wildcard-DNS, metadata and IPvFuture rules to the proxy, ssrf and
# mail profiles: on the shared data no line of any output changes; on
# corpus/ the new name-* and nested-localhost6 files and, under the
# profiles, the corpus lines those lists name; moved to c9b6742 (written
# 3349332 here before: no such commit, the test skipped), which
# judges a mailto: address's domain (homograph, invisible_char,
# host_uts46) in text mode and --fields as check --json did: on the shared
# data no line of any output changes; on corpus/ the text-mode check lines
# of corpus/cli/crash-mailto-domain-by-mode gain host_uts46; moved to
# c159941, which decides every door through the host layer: squid-acl's log=
# lists homograph, invisible_char and host_uts46 (OK/ERR unchanged under
# the default policy; userbait 1 line, corpus/cli 60, curl 1, extract 1)
# and the new corpus/cli/mailto-every-address lines judge every address
# (check, extract: +homograph on 2 lines); nothing else changes; moved to
# a57128f, which judges the host of a URL nested in a parameter and lists
# its homograph / invisible_char / host_uts46 on the nested URL in check
# --json: on the shared data no line of any output changes; on corpus/
# only the lines of the new corpus/nested/nested-host-homograph; moved to
# 5962b4e, which adds the flag double_slash_path (bit 45) to URIs whose
# path starts with // or /\ and reads a nested value with its Unicode
# white space trimmed: 156 of 346 runs differ (the shared data and
# corpus/), each line by the new flag and its reason, or by nested_url on
# a value padded with U+00A0 (corpus/request's /c8?u=%C2%A0http://...).
# Moved to e1fe345, which changes on purpose (the mail doors'
# links read as the reader's client reads them): free-text
# extract judges a link written in Unicode as the URI a browser opens
# (uri A-labels / %XX, a key "written" added: userbait 1 line, corpus/
# analyze, cli, curl, extract, html5, link_opened, normalize, parse,
# resolve, uriparser); text links end at an unmatched ) ] } and "ftp."
# names are completed to ftp:// (corpus/cli, extract, mail: hits split or
# added); the flag handler_scheme (corpus/cli: steam:, telnet: ... lines
# of check, --profile, --base, squid-acl's log=); extract --mail reads
# HTML attribute URLs as the WHATWG parser does and flags no_base
# (mail/entities.eml, corpus/mail, milter). On the shared data no line of
# check, normalize, resolve or squid-acl changes. Moved to the commit that
# gives squid-acl the acl argument "connect" (a CONNECT's host:port judged
# as https://host:port: corpus/cli/squid-connect-authority-form's lines
# with it); no other output changed since e1fe345 (the address rule's
# deny-host forms need a policy with address entries, check --resolve
# and extract --resolve a flag).
REF_COMMIT = "abed548031b3284b51915abdbae4add1488bec5e"

BASE = "http://a/b/c/d;p?q"
def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def build_ref(srcdir, workdir):
    """The reference binary, built once per commit into workdir."""
    exe = os.path.join(workdir, "ref-" + REF_COMMIT[:12], "build", "src", "cli", "urisan")
    if os.access(exe, os.X_OK):
        return exe
    if shutil.which("git") is None or shutil.which("meson") is None:
        skip("git or meson missing: cannot build the reference binary")
    full = subprocess.run(["git", "-C", srcdir, "rev-parse", "--verify", "-q",
                           REF_COMMIT + "^{commit}"], capture_output=True, text=True)
    if full.returncode != 0:
        skip("reference commit %s is not in this clone's history" % REF_COMMIT[:12])
    top = os.path.join(workdir, "ref-" + REF_COMMIT[:12])
    shutil.rmtree(top, ignore_errors=True)
    src = os.path.join(top, "src")
    os.makedirs(src)
    arch = subprocess.run(["git", "-C", srcdir, "archive", "--format=tar", REF_COMMIT],
                          capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", src], input=arch, check=True)
    bdir = os.path.join(top, "build")
    # A release build with the default options, so the optional parts of
    # `urisan` (mail, hostview) are there exactly when they are in the
    # binary under test; tests, bench and oracles are not needed.
    subprocess.run(["meson", "setup", bdir, src, "--buildtype=release",
                    "-Dtests=disabled", "-Dbench=disabled", "-Doracles=disabled",
                    ], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["meson", "compile", "-C", bdir, "src/cli/urisan"], check=True,
                   stdout=subprocess.DEVNULL)
    return exe


def inputs(srcdir, sample=1):
    data = os.environ.get("URISAN_DATA", os.path.join(srcdir, "..", "shared", "data"))
    urls = os.path.join(data, "urls")
    out = []
    for i, name in enumerate(["kasztp", "userbait", "node_files", "isaacs_files"]):
        path = os.path.join(urls, name + ".txt")
        if os.path.isfile(path):
            with open(path, "rb") as f:
                body = f.read()
            if sample > 1:
                lines = body.split(b"\n")
                body = b"\n".join(lines[i % sample::sample]) + b"\n"
                name += " (every %dth line)" % sample
            out.append((name, body))
    corpus = os.path.join(srcdir, "corpus")
    for d in sorted(os.listdir(corpus)) if os.path.isdir(corpus) else []:
        parts = []
        for fn in sorted(os.listdir(os.path.join(corpus, d))):
            with open(os.path.join(corpus, d, fn), "rb") as f:
                parts.append(f.read())
        out.append(("corpus/" + d, b"\n".join(parts)))
    if sample > 1:
        dirs = [x for x in out if x[0].startswith("corpus/")]
        out = [x for x in out if not x[0].startswith("corpus/")]
        if dirs:
            out.append(("corpus/* (joined)", b"\n".join(body for _, body in dirs), dirs))
    return out


# Messages whose output changed on purpose after REF_COMMIT, each checked
# by the test that owns the change instead: the readers of binary
# attachments (PDF, Office Open XML, QR codes in images: src/mail/readers.h)
# report the links of attachments_binary.eml, and a reader limit for the
# image of nested_multipart.eml that is no image (tests/readers_test.py,
# tests/extract_mail_test.py).
CHANGED_ON_PURPOSE = {os.path.join("mail", "attachments_binary.eml"),
                      os.path.join("mail", "nested_multipart.eml")}


def mail_inputs(srcdir):
    """Each message of tests/mail and tests/mail/hostile, for extract --mail."""
    out = []
    for sub in ["mail", os.path.join("mail", "hostile")]:
        d = os.path.join(srcdir, "tests", sub)
        for fn in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            path = os.path.join(d, fn)
            if os.path.join(sub, fn) in CHANGED_ON_PURPOSE:
                continue
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    out.append((os.path.join(sub, fn), f.read()))
    return out


def run(exe, args, data):
    p = subprocess.run([exe] + args, input=data, capture_output=True, timeout=600)
    return p.returncode, p.stdout


# Keys an issue corrected on purpose, compared by a rule instead of byte
# for byte (each new value is the old one or what the rule allows):
#  - host_imitates (impersonation: protect-host): only ever a protected
#    name, never a TR39 skeleton read back as one ("appie.com" for
#    аррӏе.com); none of the modes here protects a name, so it is null;
#  - host_skeleton: null for a plain ASCII host that is no look-alike (no
#    idn, homograph or lookalike flag): "www.exarnple.corn" for
#    www.example.com looked as if the host were garbled. --fields naming
#    it still gives it for every host (the --fields run below);
#  - registrable_domain: read from the Public Suffix List as text (libpsl's
#    sorted table) rather than libpsl's compiled DAFSA form, which answers
#    otherwise for two kinds of name: one whose UTS #46 form ends in the
#    root's dot ("0.bg\u3002": looked up as "0.bg", the dot kept) and one
#    under the top-level label "m" (the DAFSA form takes "1214.m" for a
#    public suffix: no rule of the list says so).
CORRECTED = {}


def corrected(key, old, new, line, fields):
    """Is new (for old) what the correction of key allows? fields: the
    line was asked for with --fields, which gives host_skeleton for every
    host (a reference after the correction wrote null there)."""
    if key == "host_imitates":
        return new is None
    if key == "host_skeleton":
        if fields and old is None:
            return True
        flags = set(line.get("flags") or [])
        return new is None and not flags & {"idn", "homograph", "lookalike"}
    if key == "registrable_domain":
        name = line.get("host_unicode") or ""
        return name.endswith(".") or name.rsplit(".", 1)[-1] == "m"
    return False


def same_line(a, b, fields=False):
    """a (reference) and b (new) the same line but for appended keys and
    the corrected keys; counts the corrections in CORRECTED."""
    try:
        oa = json.loads(a, object_pairs_hook=lambda kv: kv)
        ob = json.loads(b, object_pairs_hook=lambda kv: kv)
    except ValueError:
        return False
    if not isinstance(oa, list) or not isinstance(ob, list) or len(ob) < len(oa):
        return False
    line = dict(ob)
    fixed = []
    for (ka, va), (kb, vb) in zip(oa, ob):
        if ka != kb:
            return False
        if va != vb:
            if not corrected(ka, va, vb, line, fields):
                return False
            fixed.append(ka)
    for k in fixed:
        CORRECTED[k] = CORRECTED.get(k, 0) + 1
    return True


def same_json(old, new, fields=False):
    """None when each new line is the old one, maybe with keys appended
    (and the corrected keys as their rule allows); else a description of
    the first difference."""
    ol, nl = old.split(b"\n"), new.split(b"\n")
    if len(ol) != len(nl):
        return "%d lines, reference %d" % (len(nl), len(ol))
    for i, (a, b) in enumerate(zip(ol, nl)):
        if a == b:
            continue
        if a.endswith(b"}") and b.startswith(a[:-1]) and b[len(a) - 1:len(a)] == b",":
            continue
        if same_line(a, b, fields):
            continue
        return "line %d:\n  ref %r\n  new %r" % (i + 1, a[:400], b[:400])
    return None


def main():
    sample = 1
    if len(sys.argv) == 6 and sys.argv[4] == "--sample":
        sample = int(sys.argv[5])
    elif len(sys.argv) != 4:
        print(__doc__)
        return 2
    new_exe, srcdir, workdir = sys.argv[1:4]
    ins = inputs(srcdir, sample)
    if not ins:
        skip("no shared URL files and no corpora")
    os.makedirs(workdir, exist_ok=True)
    ref_exe = build_ref(srcdir, workdir)

    modes = [
        (["check"], False), (["check", "--json"], True),
        (["check", "--profile", "ssrf"], False), (["check", "--json", "--profile", "proxy"], True),
        (["check", "--base", BASE], False), (["check", "--json", "--base", BASE], True),
        (["normalize"], False), (["normalize", "--json"], True),
        (["resolve", BASE], False), (["resolve", "--json", BASE], True),
        (["resolve", "--json", "--non-strict", "--above-root=keep", BASE], True),
        (["extract", "-"], False), (["extract", "--json", "-"], True),
        (["squid-acl"], False),
    ]
    fails = 0
    runs = 0
    work = list(ins)
    while work:
        name, data, *parts = work.pop(0)
        failed_before = fails
        for args, json_mode in modes:
            ro, old = run(ref_exe, args, data)
            rn, new = run(new_exe, args, data)
            runs += 1
            what = "%s < %s" % (" ".join(args), name)
            if ro != rn:
                print("FAIL %s: exit %d, reference %d" % (what, rn, ro))
                fails += 1
                continue
            diff = same_json(old, new) if json_mode else (
                None if old == new else "text differs (%d vs %d bytes)" % (len(new), len(old)))
            if diff is not None:
                print("FAIL %s: %s" % (what, diff))
                fails += 1
        # The old keys exactly (those of the reference's lines, in order:
        # the first line's, then keys only some lines carry, such as
        # nested and nested_capped on lines with nested_url), through
        # --fields.
        for args in (["check", "--json"], ["check", "--json", "--base", BASE]):
            ro, old = run(ref_exe, args, data)
            if not old:
                continue
            seen = []
            for line in old.split(b"\n"):
                if line:
                    for k, _ in json.loads(line, object_pairs_hook=lambda kv: kv):
                        if k not in seen:
                            seen.append(k)
            keys = ",".join(seen)
            rn, new = run(new_exe, args + ["--fields", keys], data)
            runs += 1
            if ro != rn or same_json(old, new, fields=True) is not None:
                print("FAIL %s --fields <old keys> < %s: output differs" % (" ".join(args), name))
                fails += 1
        if parts and fails > failed_before:
            print("  (%s: each directory alone follows)" % name)
            work = parts[0] + work
    # extract --mail, message by message (when the binary has --mail).
    for name, data in mail_inputs(srcdir):
        for args, json_mode in ((["extract", "--mail", "-"], False),
                                (["extract", "--mail", "--json", "-"], True)):
            ro, old = run(ref_exe, args, data)
            rn, new = run(new_exe, args, data)
            runs += 1
            diff = ("exit %d, reference %d" % (rn, ro)) if ro != rn else (
                same_json(old, new) if json_mode else
                (None if old == new else "text differs"))
            if diff is not None:
                print("FAIL %s < %s: %s" % (" ".join(args), name, diff))
                fails += 1
    print("%d runs over %d inputs (%d bytes), %d differ" %
          (runs, len(ins), sum(len(x[1]) for x in ins), fails))
    for k, n in sorted(CORRECTED.items()):
        print("  corrected on purpose: %s on %d lines" % (k, n))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
