"""examples/dask/check_logs.py on a distributed.LocalCluster with 2 worker
processes over a directory of Squid logs (plain and gzip): every line got
exactly one result, and the verdict counts equal `urisan check --format
squid` over the same files."""
import gzip
import json
import os
import subprocess
import sys

import pytest

import conftest


def make_logs(srcdir, d):
    data = os.path.join(srcdir, "..", "shared", "data", "urls", "kasztp.txt")
    urls = []
    if os.path.exists(data):
        with open(data, "rb") as f:
            urls = [l.rstrip(b"\r\n") for l in f][:6000]
    urls += [b"http://u:p@169.254.169.254/x", b"javascript:alert(1)", b"http://a/%0d%0a"]
    urls = [u for u in urls if u and not any(c in u for c in b" \t\n\r")]
    lines = [b"%d.%03d %6d 10.0.0.%d TCP_MISS/200 %d GET %s - HIER_DIRECT/1.2.3.4 text/html"
             % (1700000000 + i, i % 1000, i % 99999, i % 250, i, u) for i, u in enumerate(urls)]
    lines.insert(3, b"not a squid line")
    lines.insert(7, b"1 2 3 TCP_TUNNEL/200 0 CONNECT 127.0.0.1:22 - HIER_NONE/- -")
    parts = 4
    for k in range(parts):
        chunk = b"\n".join(lines[k::parts]) + b"\n"
        name = os.path.join(d, "access.log.%d" % k)
        if k % 2:
            with gzip.open(name + ".gz", "wb") as f:
                f.write(chunk)
        else:
            with open(name, "wb") as f:
                f.write(chunk)
    return len(lines)


def test_dask_local_cluster_two_workers(srcdir, exe, tmp_path):
    pytest.importorskip("distributed", reason="python3-distributed is not installed")
    if conftest.SANITIZER_PRELOAD:
        pytest.skip("sanitizer build: Dask's worker processes cannot load the instrumented module")
    n = make_logs(srcdir, str(tmp_path))
    script = os.path.join(srcdir, "examples", "dask", "check_logs.py")
    # the interpreter doc/logs.md names, whatever python3 is first on PATH
    with open(os.path.join(srcdir, "doc", "logs.md"), encoding="utf-8") as f:
        cmd = next(l for l in f if "examples/dask/check_logs.py /var/log/squid --workers" in l)
    interp = cmd.split()[0]
    assert os.path.isabs(interp) and interp.endswith("python3"), cmd
    if os.path.realpath(interp) != os.path.realpath(sys.executable):
        pytest.skip(f"the module is built for {sys.executable}, the docs name {interp}")
    r = subprocess.run([interp, script, str(tmp_path), "--workers", "2"],
                       capture_output=True, timeout=600)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    out = json.loads(r.stdout)
    assert out["workers"] == 2 and out["files"] == 4 and out["problems"] == []
    assert out["lines"] == n
    files = sorted(os.path.join(str(tmp_path), f) for f in os.listdir(str(tmp_path)))
    cli = subprocess.run([exe, "check", "--format", "squid", "--tsv"] + files, capture_output=True)
    verdicts = [l.split(b"\t", 1)[0].decode() for l in cli.stdout.splitlines()]
    assert len(verdicts) == n
    assert out["counts"] == {v: verdicts.count(v) for v in ("allow", "flag", "deny")}
