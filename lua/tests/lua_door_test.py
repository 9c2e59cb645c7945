#!/usr/bin/env python3
"""The Lua door against `urisan check --json`: the same table.

usage: lua_door_test.py URISAN SRCDIR [--sample N] LUA=CPATH_DIR [LUA=CPATH_DIR ...]

Inputs: a sample of each shared URL set (every 100th line of
../shared/data/urls/*.txt; skipped with a message when the folder is
absent), every line of every corpus/ file, the hosts of
tests/homograph/eval.tsv as https:// URLs, and generated nested URLs.
Lines longer than 8,192 bytes are left out (the command's reader keeps
the first 8,193 bytes of a line, a Lua string is judged whole; the
length key would differ by construction) and counted, as are lines
that end in CR (the reader takes one CR off a line).

For each profile (default, proxy, ssrf, mail) and for the mail profile
plus a policy file denying homograph, invisible_char and host_uts46,
each input is judged by `urisan check --json --profile P [--policy F]`
(standard input, one line each) and by urisan.check(input, {policy =
urisan.policy{profile = P, file = F}}) in each Lua interpreter given;
every key of every line must be equal, strictly (door_dump.lua's
encoding: the Lua null is urisan.null, true is not 1, an integer is no
float; door_lua.py's lua_form says how check's JSON maps to Lua).
Prints the counts; exit 1 on any difference.

--sample N keeps every Nth line of each bulk source (each URL set's
sample, each corpus directory's lines), starting at a different line in
each, and every homograph host and nested URL: every source and every
profile is still there (the quick size; without it, every input: suite
'slow').
"""
import concurrent.futures
import json
import os
import subprocess

# A sanitizer build preloads its runtime for the Lua interpreter only
# (lua/tests/meson.build: san_env); the command has it linked in and
# refuses a second one.
SANITIZER_PRELOAD = os.environ.pop("LD_PRELOAD", None)
import sys
import tempfile

from door_lua import load_dump, lua_form

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_LINE = 8192


def strict(v, ref):
    """v as text that tells true from 1 and null from a missing key; check's
    value (ref) in the Lua form doc/lua.md promises (door_lua.lua_form)."""
    return json.dumps(lua_form(v) if ref else v, sort_keys=True)


def record_text(ref):
    """check's record ref whole in strict's terms: two records are equal,
    every key strictly, when their texts are (record_text(check's record)
    == json.dumps(Lua's record, sort_keys=True))."""
    return json.dumps({k: lua_form(x) for k, x in ref.items()}, sort_keys=True)


def lines_of(data):
    out = []
    for ln in data.split(b"\n"):
        if ln.endswith(b"\r"):
            ln = ln[:-1]
        out.append(ln)
    return out


def inputs(srcdir, sample=1):
    got = []

    def take(lines):
        # every sample-th line, from an offset that moves with each source
        nonlocal sources
        sources += 1
        if sample == 1 or not lines:
            return lines
        # a source shorter than its offset gives a line too
        return lines[sources % sample % len(lines)::sample]
    sources = 0
    data = os.environ.get("URISAN_DATA", os.path.join(srcdir, "..", "shared", "data"))
    urls = os.path.join(data, "urls")
    if os.path.isdir(urls):
        for name in sorted(os.listdir(urls)):
            if name.endswith(".txt"):
                with open(os.path.join(urls, name), "rb") as f:
                    got += take(lines_of(f.read())[::100])
    else:
        print("lua_door: %s absent: the URL set sample is skipped" % urls)
    corpus = os.path.join(srcdir, "corpus")
    for d in sorted(os.listdir(corpus)):
        lines = []
        for fn in sorted(os.listdir(os.path.join(corpus, d))):
            with open(os.path.join(corpus, d, fn), "rb") as f:
                lines += lines_of(f.read())
        got += take(lines)
    with open(os.path.join(srcdir, "tests", "homograph", "eval.tsv"), "rb") as f:
        for ln in f:
            parts = ln.rstrip(b"\n").split(b"\t")
            if len(parts) >= 2 and not ln.startswith(b"#"):
                got.append(b"https://" + parts[1] + b"/login")
    for inner in [b"http://169.254.169.254/latest/meta-data/", b"http://127.0.0.1:6379/",
                  b"//10.0.0.1/x", b"http://%31%32%37.0.0.1/", b"gopher://localhost:25/"]:
        enc = inner.replace(b":", b"%3A").replace(b"/", b"%2F")
        got += [b"https://example.com/?next=" + inner, b"https://example.com/r?u=" + enc,
                b"https://example.com/r?u=" + enc.replace(b"%", b"%25"),
                b"https://a.example/?x=https%3A%2F%2Fb.example%2F%3Fy%3D" + enc]
    # a line that still ends in CR after its reader took one off would lose
    # one more on the way to the command: not the same input
    keep = [x for x in got if len(x) <= MAX_LINE and not x.endswith(b"\r")]
    return keep, len(got) - len(keep)


def run_cli(urisan, args, data):
    p = subprocess.run([urisan, "check", "--json"] + args, input=data,
                       capture_output=True, timeout=900)
    if p.returncode not in (0, 1):
        raise SystemExit("urisan check %s: exit %d: %s" % (args, p.returncode, p.stderr[:300]))
    return [json.loads(l) for l in p.stdout.decode("utf-8").split("\n") if l]


def run_lua(lua, cpath, recs, profile, pfile):
    env = dict(os.environ, LUA_CPATH=os.path.join(cpath, "?.so"))
    if SANITIZER_PRELOAD:
        env["LD_PRELOAD"] = SANITIZER_PRELOAD
    argv = [lua, os.path.join(HERE, "door_dump.lua"), recs, profile] + ([pfile] if pfile else [])
    p = subprocess.run(argv, capture_output=True, env=env, timeout=900)
    if p.returncode != 0:
        raise SystemExit("%s door_dump.lua: exit %d: %s" % (lua, p.returncode, p.stderr[:500]))
    return [load_dump(l) for l in p.stdout.split(b"\n") if l]


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    urisan, srcdir = sys.argv[1], sys.argv[2]
    rest, sample = sys.argv[3:], 1
    if rest[:1] == ["--sample"]:
        sample, rest = int(rest[1]), rest[2:]
    luas = [a.split("=", 1) for a in rest]
    ins, long_ = inputs(srcdir, sample)
    print("lua_door: %d inputs%s (%d longer than %d bytes or ending in CR left out)"
          % (len(ins), " (every %dth of each source)" % sample if sample > 1 else "",
             long_, MAX_LINE))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        recs = os.path.join(tmp, "inputs")
        with open(recs, "wb") as f:
            for x in ins:
                f.write(b"%d\n" % len(x) + x)
        hostpol = os.path.join(tmp, "host.policy")
        with open(hostpol, "w") as f:
            f.write("deny homograph invisible_char host_uts46\n")
        runs = [(p, None) for p in ["default", "proxy", "ssrf", "mail"]] + [("mail", hostpol)]
        text = b"\n".join(ins) + b"\n"
        pool = concurrent.futures.ThreadPoolExecutor(2)

        def start(run):
            """The command's and each interpreter's run of one profile,
            started (the next profile's run while this one is compared)."""
            profile, pfile = run
            args = ["--profile", profile] + (["--policy", pfile] if pfile else [])
            return (pool.submit(run_cli, urisan, args, text),
                    [pool.submit(run_lua, lua, cpath, recs, profile, pfile)
                     for lua, cpath in luas])
        started = start(runs[0])
        for at, (profile, pfile) in enumerate(runs):
            ref_run, lua_runs = started
            if at + 1 < len(runs):
                started = start(runs[at + 1])
            ref = ref_run.result()
            if len(ref) != len(ins):
                raise SystemExit("check --json gave %d lines for %d inputs" % (len(ref), len(ins)))
            ref_texts = [record_text(a) for a in ref]
            for (lua, cpath), lua_run in zip(luas, lua_runs):
                got = lua_run.result()
                diff = {}
                for i, (a, b) in enumerate(zip(ref, got)):
                    # the whole record at once; key by key where it differs
                    if ref_texts[i] == json.dumps(b, sort_keys=True):
                        continue
                    for k in set(a) | set(b):
                        if strict(a.get(k, "<absent>"), True) != strict(b.get(k, "<absent>"), False):
                            diff.setdefault(k, []).append(i)
                n = len(set(i for v in diff.values() for i in v)) + abs(len(got) - len(ref))
                what = "%s%s" % (profile, " + host.policy" if pfile else "")
                print("lua_door: %-22s %-8s %d inputs, %d differ" % (what, os.path.basename(lua),
                                                                    len(ref), n))
                for k, idx in sorted(diff.items()):
                    i = idx[0]
                    print("  key %s: %d inputs, first %r\n    check: %r\n    lua:   %r"
                          % (k, len(idx), ins[i][:120], ref[i].get(k, "<absent>"),
                             got[i].get(k, "<absent>")))
                bad += n
        pool.shutdown()
    print("lua_door: %d differences" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
