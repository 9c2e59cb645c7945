#!/usr/bin/env python3
"""A second external ACL helper for the end-to-end test: it records the
exact bytes Squid sends (one repr() per line, after the channel-ID) to
the file named by argv[1] and always answers OK. The test uses it to see
what a helper is really handed for each request."""
import sys


def main():
    log = open(sys.argv[1], "ab", buffering=0)
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    for line in inp:
        line = line.rstrip(b"\n")
        ch, sep, rest = line.partition(b" ")
        if not (sep and ch.isdigit()):
            ch, rest = b"", line
        log.write(repr(rest).encode("ascii") + b"\n")
        out.write((ch + b" " if ch else b"") + b"OK\n")
        out.flush()


if __name__ == "__main__":
    main()
