#!/usr/bin/env python3
"""`--jobs N` never changes what a command says: standard output, standard
error and the exit status of `--jobs 4` (and of other N, with small
batches and windows) are byte for byte those of `--jobs 1`.

- check over the shared URL data (../shared/data/urls, or URISAN_DATA;
  skipped with a message when absent) in text, --json, --base, a profile,
  --fields with the host view and nested keys;
- check and extract over every file of corpus/;
- extract --mail over the mail fixtures and the hostile set (tests/mail),
  as messages, as one mbox and as a Maildir;
- check --format squid, combined, zeek and field:N (plain and gzip, --json,
  --tsv) over logs made from the URL data;
- a property test: 40 random inputs (URL lines, corpus bytes, random
  bytes, long lines, CRLF, NUL), each with a random N, batch size
  (URISAN_JOBS_BATCH) and window (URISAN_STREAM_CHUNK).

Usage: jobs_test.py URISAN [--sample N]

--sample N (the quick size) takes every Nth line of each shared URL file,
from a different offset in each, for the check modes, extract and the
logs, and cuts process starts (most of a small run's time), keeping each
kind of case: every corpus file in one input (1-line batches and 64-byte
windows over it as well; on a difference each directory is run to name
it) and the first file of each directory alone; every 4th of the
messages alone (all of them in the mbox and the Maildir); logs of 3,000
lines (20,000 without it) in every format and mode; each long line
(every size and ending) with one of the three check modes in turn; 20
random inputs. Without it, every line and every case in each mode.
"""
import glob
import gzip
import os
import random
import shutil
import subprocess
import sys
import tempfile

URISAN = sys.argv[1]
SAMPLE = int(sys.argv[3]) if sys.argv[2:3] == ["--sample"] else 1
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.environ.get("URISAN_DATA", os.path.join(ROOT, "..", "shared", "data"))
fails = 0
runs = 0


def expect(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


def run(args, data=None, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([URISAN, *args], input=data, capture_output=True, env=e)
    return r.returncode, r.stdout, r.stderr


def same(args, data=None, n=4, env=None, what=None):
    """args with --jobs 1 and --jobs n: the same three results."""
    global runs
    runs += 1
    one = run(args + ["--jobs", "1"], data, env)
    many = run(args + ["--jobs", str(n)], data, env)
    label = what or " ".join(args)
    if one != many:
        diff = "exit %d/%d" % (one[0], many[0]) if one[0] != many[0] else \
               "stderr" if one[1] == many[1] else "stdout"
        expect(False, f"{label}: --jobs {n} differs from --jobs 1 ({diff})")
    return one


def url_data():
    d = os.path.join(DATA, "urls")
    files = sorted(glob.glob(os.path.join(d, "*.txt")))
    if not files:
        print(f"skip: no URL data in {d}")
        return b""
    if SAMPLE == 1:
        return b"".join(open(f, "rb").read() for f in files)
    out = []
    for i, f in enumerate(files):
        lines = open(f, "rb").read().splitlines(keepends=True)
        out += lines[i % SAMPLE::SAMPLE]
    print(f"every {SAMPLE}th line of each URL file: {len(out)} lines")
    return b"".join(out)


def check_modes(urls):
    modes = [[], ["--json"], ["--json", "--base", "http://a.example/b/c?q"],
             ["--profile", "ssrf", "--json"], ["--profile", "mail"],
             ["--fields", "uri,host_unicode,registrable_domain,verdict,nested,valid,error"]]
    for m in modes:
        rc, out, _ = same(["check", *m], urls)
        expect(rc in (0, 1) and out.count(b"\n") == urls.count(b"\n"),
               f"check {m}: one line per URL")


def corpus_quick():
    dirs = sorted(d for d in glob.glob(os.path.join(ROOT, "corpus", "*")) if os.path.isdir(d))
    files = {d: sorted(f for f in glob.glob(os.path.join(d, "*")) if os.path.isfile(f))
             for d in dirs}
    blob = b"".join(open(f, "rb").read() + b"\n" for d in dirs for f in files[d])
    before = fails
    same(["check", "--json"], blob, env={"URISAN_JOBS_BATCH": "7"}, what="check --json corpus/*")
    same(["extract", "--json", "-"], blob, env={"URISAN_STREAM_CHUNK": "4096"},
         what="extract --json corpus/*")
    same(["check"], blob, n=3, env={"URISAN_JOBS_BATCH": "1"}, what="check corpus/*")
    same(["extract", "-"], blob, n=3, env={"URISAN_STREAM_CHUNK": "64"}, what="extract corpus/*")
    for d in dirs:
        for f in files[d][:1]:
            data = open(f, "rb").read()
            same(["check"], data, n=3, env={"URISAN_JOBS_BATCH": "1"}, what=f"check {f}")
            same(["extract", "-"], data, n=3, env={"URISAN_STREAM_CHUNK": "64"},
                 what=f"extract {f}")
    if fails > before:
        print("corpus/* differs: each directory follows")
        corpus()


def corpus():
    dirs = sorted(d for d in glob.glob(os.path.join(ROOT, "corpus", "*")) if os.path.isdir(d))
    for d in dirs:
        files = sorted(f for f in glob.glob(os.path.join(d, "*")) if os.path.isfile(f))
        blob = b"".join(open(f, "rb").read() + b"\n" for f in files)
        same(["check", "--json"], blob, env={"URISAN_JOBS_BATCH": "7"},
             what=f"check --json corpus/{os.path.basename(d)}")
        same(["extract", "--json", "-"], blob, env={"URISAN_STREAM_CHUNK": "4096"},
             what=f"extract --json corpus/{os.path.basename(d)}")
        for f in files[:8]:  # each on its own too: small windows, 1-line batches
            data = open(f, "rb").read()
            same(["check"], data, n=3, env={"URISAN_JOBS_BATCH": "1"}, what=f"check {f}")
            same(["extract", "-"], data, n=3, env={"URISAN_STREAM_CHUNK": "64"},
                 what=f"extract {f}")


def mail():
    r = run(["extract", "--mail", "-"], b"x")
    if b"not available" in r[2]:
        print("skip: --mail (built without it)")
        return
    emls = sorted(glob.glob(os.path.join(HERE, "mail", "*.eml")) +
                  glob.glob(os.path.join(HERE, "mail", "hostile", "*")) +
                  glob.glob(os.path.join(ROOT, "corpus", "mail", "*"))[:200])
    for f in emls[:60:4 if SAMPLE > 1 else 1]:
        same(["extract", "--mail", "--json", f])
    with tempfile.TemporaryDirectory() as d:
        box = os.path.join(d, "all.mbox")
        with open(box, "wb") as o:
            for i, f in enumerate(emls):
                o.write(b"From x@example.org Mon Jan  1 00:00:00 2024\n")
                o.write(open(f, "rb").read().replace(b"\nFrom ", b"\n>From "))
                o.write(b"\n")
        for args in (["--json"], [], ["--profile", "mail", "--json"]):
            same(["extract", "--mail", *args, box], env={"URISAN_JOBS_BATCH": "3"})
        md = os.path.join(d, "Maildir")
        for sub in ("new", "cur", "tmp"):
            os.makedirs(os.path.join(md, sub))
        for i, f in enumerate(emls):
            shutil.copy(f, os.path.join(md, "new" if i % 2 else "cur", "%04d.eml" % i))
        os.symlink("/nonexistent", os.path.join(md, "cur", "9999.dangling"))
        unreadable = os.path.join(md, "new", "0001a.eml")
        os.mkdir(unreadable)  # not a regular file: skipped the same way
        same(["extract", "--mail", "--json", md], env={"URISAN_JOBS_BATCH": "2"})


def logs(urls):
    lines = urls.splitlines()[:20000 if SAMPLE == 1 else 3000]
    squid = b"".join(b"1700000000.%03d    %d 10.0.0.%d TCP_MISS/200 512 GET %s - "
                     b"HIER_DIRECT/1.2.3.4 text/html\n" % (i % 1000, i, i % 250, u)
                     for i, u in enumerate(lines))
    combined = b"".join(b'10.0.0.1 - - [01/Jan/2024:00:00:00 +0000] "GET %s HTTP/1.1" 200 5 '
                        b'"-" "ua"\n' % u for u in lines)
    zeek = (b"#separator \\x09\n#fields\tts\tuid\thost\turi\tstatus_code\n" +
            b"".join(b"1.0\tC%d\th%d.example\t/%s\t200\n" % (i, i % 40, u[-30:]) for i, u in
                     enumerate(lines)))
    field = b"".join(b"a b %s c\n" % u for u in lines)
    sets = [("squid", squid), ("combined", combined), ("zeek", zeek), ("field:3", field)]
    with tempfile.TemporaryDirectory() as d:
        for fmt, data in sets:
            for extra in ([], ["--json"], ["--tsv"]):
                same(["check", "--format", fmt, *extra], data)
            gz = os.path.join(d, fmt.replace(":", "") + ".gz")
            with gzip.open(gz, "wb") as f:
                f.write(data)
            plain = os.path.join(d, fmt.replace(":", "") + ".log")
            open(plain, "wb").write(data[: len(data) // 2])
            same(["check", "--format", fmt, "--json", gz, plain, os.path.join(d, "missing")],
                 env={"URISAN_JOBS_BATCH": "5"})


def long_lines():
    """Lines longer than the block --jobs reads standard input by (64
    KiB: the reading thread cuts them itself), around its size, with LF,
    CRLF, a CR or nothing at the end of input, under the default limit
    and a limit above the block (1 MiB: keep is larger than the block)."""
    block = 64 << 10
    cases = []
    for n in (block - 3, block - 2, block - 1, block, block + 1, 3 * block + 5):
        body = b"http://long.example/" + b"y" * (n - 20)
        for end in (b"\n", b"\r\n", b"\r", b""):
            cases.append((n, end, body + end))
            cases.append((n, end, b"http://a.example/\n" + body + end + b"http://b.example/\r\n"))
    with tempfile.TemporaryDirectory() as d:
        pol = os.path.join(d, "big.policy")
        with open(pol, "w") as f:
            f.write("limit uri 1048576\n")
        for k, (n, end, data) in enumerate(cases):
            for args in (["check"], ["check", "--json"], ["check", "--policy", pol]):
                if k % 3 and args[-1] == pol:
                    continue
                if SAMPLE > 1 and args != (["check"], ["check", "--json"],
                                           ["check", "--policy", pol])[k % 3]:
                    continue
                rc, out, _ = same(args, data, n=2, what=f"check {args[1:]} a line of {n} bytes + {end!r}")
                want = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
                expect(out.count(b"\n") == want, f"{args} a line of {n} + {end!r}: {want} lines")


def unreadable_input():
    """Standard input that cannot be read (a directory): the same message
    and exit status, whichever worker's turn it is to read."""
    for args in (["check"], ["check", "--json"]):
        got = []
        for n in ("1", "2"):
            d = os.open("/", os.O_RDONLY)
            try:
                got.append(subprocess.run([URISAN, *args, "--jobs", n], stdin=d,
                                          capture_output=True))
            finally:
                os.close(d)
        one, two = got
        expect(one.returncode == 2 and b"reading standard input" in one.stderr,
               f"{args} on a directory: exit 2 and the message ({one.returncode})")
        expect((one.returncode, one.stdout, one.stderr) == (two.returncode, two.stdout, two.stderr),
               f"{args} on a directory: --jobs 2 differs from --jobs 1")


def property_test(urls):
    rnd = random.Random(27)
    url_lines = urls.splitlines() or [b"http://a.example/"]
    blobs = [open(f, "rb").read() for f in
             sorted(glob.glob(os.path.join(ROOT, "corpus", "*", "*")))[:500] if os.path.isfile(f)]
    for i in range(40 if SAMPLE == 1 else 20):
        parts = []
        for _ in range(rnd.randint(1, 60)):
            k = rnd.random()
            if k < 0.5:
                parts.append(rnd.choice(url_lines) + rnd.choice([b"\n", b"\r\n", b" ", b"\n\n"]))
            elif k < 0.7 and blobs:
                parts.append(rnd.choice(blobs)[:2000])
            elif k < 0.85:
                parts.append(bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 50))))
            elif k < 0.9:
                parts.append(b"http://long.example/" + b"x" * rnd.choice([8200, 70000]) + b"\n")
            else:
                parts.append(rnd.choice([b"<http://w.example/a\n b>", b"\0", b"\"www.q.example\"",
                                         b"URL: ", b"-\n", b"\n"]))
        data = b"".join(parts)
        n = rnd.randint(2, 8)
        env = {"URISAN_JOBS_BATCH": str(rnd.randint(1, 9)),
               "URISAN_STREAM_CHUNK": str(rnd.choice([1, 3, 17, 256, 4096, 1 << 20]))}
        if i % 4 == 3:   # batches as read (the reading buffer handed over whole)
            del env["URISAN_JOBS_BATCH"]
        args = rnd.choice([["check"], ["check", "--json"], ["extract", "--json", "-"],
                           ["extract", "-"]])
        same(args, data, n=n, env=env, what=f"property {i}: {' '.join(args)} --jobs {n} {env}")


def main():
    rc, out, err = run(["check", "--jobs", "4"], b"http://a.example/\n")
    expect(rc == 0 and out.startswith(b"allow"), f"check --jobs 4 runs ({rc}, {err!r})")
    urls = url_data()
    if urls:
        check_modes(urls)
        same(["extract", "--json", "-"], urls)
    corpus_quick() if SAMPLE > 1 else corpus()
    mail()
    if urls:
        logs(urls)
    long_lines()
    unreadable_input()
    property_test(urls)
    print(f"{runs} comparisons; " + (f"{fails} failed" if fails else "all passed"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
