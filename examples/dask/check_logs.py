#!/usr/bin/python3
"""examples/dask/check_logs.py - check every URL of a directory of proxy
logs on a Dask cluster with the urisan Python module (doc/logs.md).

    python3 check_logs.py LOGDIR [--workers N] [--scheduler tcp://host:8786]
                          [--format squid|combined|field:N] [--profile NAME]

One task per log file (plain or .gz): each worker opens the file itself,
reads it line by line, takes the URL with the same rules as
`urisan check --format` and asks urisan.verdict(); it returns the counts
per verdict, the number of lines, and the denied lines (file, line
number, reasons). Without --scheduler a distributed.LocalCluster with
--workers worker processes (default 2, one thread each) runs here; with
it, the same code runs on an existing cluster, whose workers must have
the urisan module installed (python3-urisan) and see LOGDIR at the same
path (a shared file system, or paths they can open).

Prints a JSON summary; exits 1 when any line got no result or two.
"""
import argparse
import gzip
import json
import os
import sys
import time


def url_of(line, fmt):
    """The URL of one log line (bytes), or None (a bad line)."""
    if fmt == "combined":
        rb = line.find(b"]")
        q = line.find(b'"', rb + 1 if rb >= 0 else 0)
        if q < 0:
            return None
        parts = line[q + 1:].split(b'"', 1)[0].split(b" ")
        return parts[1] if len(parts) >= 2 and parts[0] and parts[1] else None
    n = 7 if fmt == "squid" else int(fmt.split(":", 1)[1])
    fields = line.split()
    if len(fields) < n:
        return None
    u = fields[n - 1]
    if fmt == "squid" and fields[5] == b"CONNECT" and b"/" not in u:
        u = b"//" + u
    return u


def check_file(path, fmt, profile):
    """Runs on a worker: one result per line of one file."""
    import urisan
    pol = urisan.Policy(profile=profile) if profile else None
    counts = {"allow": 0, "flag": 0, "deny": 0}
    denied = []
    lines = 0
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip(b"\n")
            if line.endswith(b"\r"):
                line = line[:-1]
            lines += 1
            u = url_of(line, fmt)
            if u is None:
                counts["deny"] += 1
                denied.append((path, lineno, "bad_log_line"))
                continue
            v = urisan.verdict(u, policy=pol)
            counts[v] += 1
            if v == "deny":
                denied.append((path, lineno, ",".join(urisan.check(u, policy=pol)["deny_reasons"])))
    return {"file": path, "lines": lines, "counts": counts, "denied": denied}


def count_lines(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        return sum(1 for _ in f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("logdir")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scheduler")
    ap.add_argument("--format", default="squid")
    ap.add_argument("--profile")
    args = ap.parse_args()

    from dask.distributed import Client, LocalCluster
    files = sorted(os.path.join(args.logdir, f) for f in os.listdir(args.logdir)
                   if os.path.isfile(os.path.join(args.logdir, f)))
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, host="127.0.0.1")
        client = Client(cluster)
    try:
        nworkers = len(client.scheduler_info()["workers"])
        start = time.perf_counter()
        futures = client.map(check_file, files, fmt=args.format, profile=args.profile,
                             pure=False)
        results = client.gather(futures)
        elapsed = time.perf_counter() - start
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

    # every line got exactly one result: per file, the verdict counts add
    # up to the line count the worker saw and to an independent count here
    problems = []
    for r in results:
        want = count_lines(r["file"])
        got = sum(r["counts"].values())
        if not (got == r["lines"] == want):
            problems.append({"file": r["file"], "lines": want, "results": got})
    total = sum(r["lines"] for r in results)
    summary = {
        "files": len(files), "workers": nworkers, "lines": total,
        "counts": {k: sum(r["counts"][k] for r in results) for k in ("allow", "flag", "deny")},
        "denied_sample": [d for r in results for d in r["denied"]][:5],
        "seconds": round(elapsed, 3), "lines_per_second": int(total / elapsed) if elapsed else None,
        "problems": problems,
    }
    print(json.dumps(summary, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
