#!/usr/bin/env python3
"""`urisan extract` on inputs of any size: read a window at a time.

- A link across every byte offset of a window boundary, in text and in
  HTML source (and in an mbox of HTML messages with --mail), gives the
  output of one window holding the whole input (what `extract` wrote when
  it read the whole file). URISAN_STREAM_CHUNK (a test knob, documented
  in doc/extract.md) sets the read size: 512 puts the boundaries where
  the test wants them, 1 puts one after every byte.
- Inputs larger than the old 64 MiB cap, made by a generator and piped
  into `urisan extract -` (text) and `extract --mail -` (an mbox): every
  link is found, and the process's max RSS stays under the documented
  bound (64 MiB; an mbox: 64 MiB + 4 x its largest message). The size is
  STREAM_TEST_MB (default 160 MiB, so CI stays quick; the 4 GiB figures of
  doc/bench.md are run by hand: STREAM_TEST_MB=4096). In a sanitizer
  build (URISAN_SANITIZE, set by meson) 32 MiB, and the RSS is not held to
  the bound: the sanitizer's shadow memory counts in it.
- One run without a break longer than 64 MiB: cut there, told, exit 2.

Usage: stream_test.py URISAN [--quick]

--quick (the quick size) runs the same cases at a cost of seconds: the
boundary inputs of all links of a kind go through one run per mode and
window (each link's blocks are 1,024 bytes, so every boundary falls where
it does in the link's own input; on a difference each link is run alone
to name it), 1-byte windows over two of each link's blocks (a boundary
after every byte in each: the other offsets repeat them), and the RSS
bound shown as its growth: text and an mbox of 2 MiB and of 8 MiB piped
in (2 and 8 windows), every link found in each, max RSS <= 64 MiB and no
more than 2 MiB larger at 8 MiB than at 2 MiB (a reader that kept its
input would grow by 6 MiB; measured: 0.1 MiB). The long run stays whole.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading

URISAN = sys.argv[1]
QUICK = sys.argv[2:3] == ["--quick"]
fails = 0
MIB = 1 << 20
RSS_BOUND_KIB = 64 * 1024
SANITIZED = os.environ.get("URISAN_SANITIZE", "none") not in ("", "none")


def expect(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


def whole(data):
    """The window that holds data whole: its size, not the knob's maximum
    (1 GiB), which a malloc that fills what it hands out (meson test's
    MALLOC_PERTURB_) would write through: 8 s a run."""
    return len(data) + 1   # + 1: the end of input is met in the same read


def run(args, data=None, path=None, chunk=None):
    env = dict(os.environ)
    env.pop("URISAN_STREAM_CHUNK", None)
    if chunk is not None:
        env["URISAN_STREAM_CHUNK"] = str(chunk)
    r = subprocess.run([URISAN, "extract", *args, path or "-"], input=data,
                       capture_output=True, env=env)
    return r.returncode, r.stdout, r.stderr


TEXT_LINKS = [
    b"http://a.example/p?q=1#f",
    b"<http://wrap.example/a/\n   b/c>",
    b"<URL:ftp://f.example/x>",
    b"\"https://q.example/p\"",
    b"(see www.abbr.example/x).",
    b"URL: news:comp.lang.c",
    b"mailto:someone@example.org,",
    b"<http://www.hyphen-\n host.example/>",
    b"http://x.example/a_(b)).",
    b"javascript:alert(1)",
    b"\xe2\x80\x9chttp://u.example/\xe2\x80\x9d",
]
HTML_LINKS = [
    b"<a href=\"http://h.example/p?a=1&amp;b=2\">http://shown.example/</a>",
    b"<img src='https://img.example/i.png' alt=\"x\">",
    b"<form action=http://f.example/post><input formaction=\"/x\"></form>",
    b"<a\nhref=\"\n  http://nl.example/ \">t</a>",
]


def every_offset(link, block=512):
    """Two blocks per offset k: the link starts k bytes before the end of
    the first, so a boundary falls after each of its bytes."""
    out = []
    for k in range(len(link) + 2):
        k = min(k, len(link))
        pad = block - k
        body = b" " * pad + link
        body += b" " * (2 * block - len(body) - 1) + b"\n"
        out.append(body)
    return b"".join(out)


def boundaries_batched():
    """boundaries() in one run per kind, mode and window (--quick)."""
    for name, links in (("text", TEXT_LINKS), ("html", HTML_LINKS)):
        data = b"".join(every_offset(link) for link in links)
        # two blocks of each link (first and last offset) for 1-byte windows
        few = b"".join(b[:1024] + b[-1024:] for b in map(every_offset, links))
        for args in (["--json"], []):
            want = run(args, data, chunk=whole(data))
            want_few = run(args, few, chunk=whole(few))
            expect(want[0] in (0, 1) and want[1].count(b"\n") >= sum(map(len, links)),
                   f"{name}: the links are found in one window")
            got = [("windows of 512 bytes", run(args, data, chunk=512) == want),
                   ("--jobs 3", run(args + ["--jobs", "3"], data, chunk=512) == want),
                   ("windows of 1 byte", run(args, few, chunk=1) == want_few)]
            for what, ok in got:
                if not ok:   # name the link: each alone, as the full size runs it
                    expect(False, f"{name} {args}: {what} differ from one window")
                    boundaries(only=(name, links))
                    break


def boundaries(only=None):
    for name, links in [only] if only else (("text", TEXT_LINKS), ("html", HTML_LINKS)):
        for link in links:
            data = every_offset(link)
            for args in (["--json"], []):
                want = run(args, data, chunk=whole(data))
                expect(want[0] in (0, 1) and want[1].count(b"\n") >= len(link),
                       f"{name} {link!r}: the links are found in one window")
                for chunk in (512, 1):
                    got = run(args, data, chunk=chunk)
                    expect(got == want, f"{name} {link!r} {args}: windows of {chunk} bytes "
                           "give the output of one window")
                got = run(args + ["--jobs", "3"], data, chunk=512)
                expect(got == want, f"{name} {link!r} {args}: --jobs 3 as one window")


def mbox_message(i, link):
    return (b"From sender@example.org Mon Jan  1 00:00:00 2024\n"
            b"From: a@example.org\nMessage-ID: <m%d@example.org>\n"
            b"Content-Type: text/html\n\n<p>" % i + link + b"</p>\n>From here\n\n")


def mbox_boundaries():
    r = subprocess.run([URISAN, "extract", "--mail", "-"], input=b"x", capture_output=True)
    if b"not available" in r.stderr:
        print("skip: --mail (built without it)")
        return
    data = b"".join(mbox_message(i, HTML_LINKS[i % len(HTML_LINKS)]) for i in range(40))
    want = run(["--mail", "--json"], data, chunk=whole(data))
    rows = [json.loads(l) for l in want[1].splitlines()]
    expect(len({r["message"] for r in rows}) == 40, "mbox: 40 messages in one window")
    for chunk in (1, 2, 3, 5, 64, 512):
        got = run(["--mail", "--json"], data, chunk=chunk)
        expect(got == want, f"mbox: windows of {chunk} bytes give the one window's output")


def generator(kind, size, fd):
    """Write size bytes of generated text (or an mbox) to fd."""
    lines = []
    for i in range(400):
        lines.append(b"see http://host%d.example/p/%d and <http://w.example/\n %d> "
                     b"or www.abbr%d.example. done\n" % (i % 50, i, i, i))
    block = b"".join(lines)
    if kind == "mbox":
        block = b"".join(b"From s@example.org Mon Jan  1 00:00:00 2024\nFrom: a@example.org\n"
                         b"Message-ID: <g%d@example.org>\nSubject: s\n\n" % i +
                         b"".join(lines[i * 8:(i + 1) * 8]) + b"\n" for i in range(50))
    n = 0
    with os.fdopen(fd, "wb") as f:
        while n < size:
            f.write(block)
            n += len(block)


def big(kind, size_mb):
    """RSS and completeness of extract on size_mb MiB from a pipe."""
    args = [URISAN, "extract", "--json", "-"] if kind == "text" else \
           [URISAN, "extract", "--mail", "--json", "-"]
    r, w = os.pipe()
    p = subprocess.Popen(args, stdin=r, stdout=subprocess.PIPE)
    os.close(r)
    t = threading.Thread(target=generator, args=(kind, size_mb * MIB, w))
    t.start()
    rows = 0
    last = b""
    while True:
        buf = p.stdout.read(1 << 20)
        if not buf:
            break
        rows += buf.count(b"\n")
        last = buf[-300:]
    t.join()
    _, status, ru = os.wait4(p.pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    per_block_bytes = len(b"".join(b"see http://host%d.example/p/%d and <http://w.example/\n %d> "
                                   b"or www.abbr%d.example. done\n" % (i % 50, i, i, i)
                                   for i in range(400)))
    print(f"{kind} {size_mb} MiB: rc {rc}, {rows} rows, max RSS {ru.ru_maxrss} KiB")
    expect(rc in (0, 1), f"{kind} {size_mb} MiB: accepted (exit {rc})")
    if kind == "text":
        nblocks = -(-size_mb * MIB // per_block_bytes)
        expect(rows == nblocks * 1200, f"text {size_mb} MiB: every link ({rows} rows, "
               f"want {nblocks * 1200})")
    else:
        expect(b'"message":' in last and rows > 0, f"mbox {size_mb} MiB: messages read")
    expect(SANITIZED or ru.ru_maxrss <= RSS_BOUND_KIB,
           f"{kind} {size_mb} MiB: max RSS {ru.ru_maxrss} KiB <= {RSS_BOUND_KIB} KiB")
    return ru.ru_maxrss


def rss_growth():
    """--quick: the RSS bound as no growth between 2 and 8 MiB piped in."""
    for kind in ("text", "mbox"):
        if kind == "mbox":
            r = subprocess.run([URISAN, "extract", "--mail", "-"], input=b"x", capture_output=True)
            if b"not available" in r.stderr:
                continue
        small, large = big(kind, 2), big(kind, 8)
        expect(SANITIZED or large - small <= 2048,
               f"{kind}: max RSS grows with the input ({small} KiB at 2 MiB, "
               f"{large} KiB at 8 MiB)")


def long_run():
    """More than 64 MiB without a break: the link is cut there and denied,
    the cut is told, exit 2; the text after it is still scanned."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "long.txt")
        with open(path, "wb") as f:
            f.write(b"see http://a.example/" + b"a" * (65 * MIB) + b" and http://b.example/ end\n")
        rc, out, err = run(["--json"], path=path)
        rows = [json.loads(l) for l in out.splitlines()]
        expect(rc == 2 and b"without a break" in err, f"long run: exit 2 and told ({rc}, {err!r})")
        expect(len(rows) == 2 and rows[0]["verdict"] == "deny" and
               rows[1]["uri"] == "http://b.example/", "long run: cut link denied, the next found")


def main():
    if QUICK:
        boundaries_batched()
        mbox_boundaries()
        rss_growth()
        long_run()
        print(f"{fails} failed" if fails else "stream_test --quick: all passed")
        return 1 if fails else 0
    boundaries()
    mbox_boundaries()
    size = int(os.environ.get("STREAM_TEST_MB", "32" if SANITIZED else "160"))
    big("text", size)
    r = subprocess.run([URISAN, "extract", "--mail", "-"], input=b"x", capture_output=True)
    if b"not available" not in r.stderr:
        big("mbox", size)
    long_run()
    print(f"{fails} failed" if fails else "stream_test: all passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
