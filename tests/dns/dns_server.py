#!/usr/bin/env python3
"""A small authoritative DNS responder on 127.0.0.1 for the dns_ tests:
answers A, AAAA and CNAME from a zone given as JSON, and the cases no
ordinary server is made to give on purpose - a name that answers one
address first and another after (DNS rebinding, TTL 0), SERVFAIL, and a
name it never answers (a time-out). Standard library only (RFC 1035
4.1 message format); every query is logged to --log, one line each
("QNAME QTYPE"), so that a test can count lookups.

zone JSON: {"name.": {"A": [...], "AAAA": [...], "CNAME": "target.",
                      "ttl": N, "rcode": "SERVFAIL"|"NXDOMAIN"|"REFUSED",
                      "drop": true, "rebind": {"A": [[first], [after]]}}}
Names not in the zone are NXDOMAIN.

usage: dns_server.py ZONE.json --port-file FILE [--log FILE]
"""
import argparse
import ipaddress
import json
import signal
import socket
import struct
import sys

RCODES = {"NOERROR": 0, "SERVFAIL": 2, "NXDOMAIN": 3, "REFUSED": 5}
QTYPES = {1: "A", 28: "AAAA", 5: "CNAME"}


def read_name(msg, off):
    labels = []
    jumps = 0
    end = None
    while True:
        if off >= len(msg):
            raise ValueError("name runs past the message")
        n = msg[off]
        if n == 0:
            off += 1
            break
        if n & 0xC0 == 0xC0:
            if jumps > 16:
                raise ValueError("compression loop")
            ptr = struct.unpack_from("!H", msg, off)[0] & 0x3FFF
            if end is None:
                end = off + 2
            off = ptr
            jumps += 1
            continue
        labels.append(msg[off + 1: off + 1 + n].decode("ascii", "replace").lower())
        off += 1 + n
    return ".".join(labels) + ".", (end if end is not None else off)


def encode_name(name):
    out = b""
    for label in name.rstrip(".").split("."):
        if label:
            out += bytes([len(label)]) + label.encode("ascii")
    return out + b"\0"


def rr(name, rtype, ttl, rdata):
    return encode_name(name) + struct.pack("!HHIH", rtype, 1, ttl, len(rdata)) + rdata


class Zone:
    def __init__(self, zone):
        self.zone = {k.lower(): v for k, v in zone.items()}
        self.seen = {}

    def answer(self, qname, qtype):
        """(rcode, [records], drop)"""
        records = []
        name = qname
        for _ in range(8):  # a CNAME chain, bounded
            entry = self.zone.get(name)
            if entry is None:
                return (3 if not records else 0), records, False
            if entry.get("drop"):
                return 0, [], True
            if "rcode" in entry:
                return RCODES[entry["rcode"]], records, False
            ttl = int(entry.get("ttl", 300))
            if "CNAME" in entry:
                target = entry["CNAME"].lower()
                records.append(rr(name, 5, ttl, encode_name(target)))
                name = target
                continue
            want = QTYPES.get(qtype)
            addrs = entry.get(want, []) if want in ("A", "AAAA") else []
            if "rebind" in entry and want in entry["rebind"]:
                key = (name, want)
                n = self.seen.get(key, 0)
                self.seen[key] = n + 1
                phases = entry["rebind"][want]
                addrs = phases[min(n, len(phases) - 1)]
            for a in addrs:
                packed = ipaddress.ip_address(a).packed
                records.append(rr(name, qtype, ttl, packed))
            return 0, records, False
        return 2, [], False


def serve(sock, zone, log):
    while True:
        try:
            msg, peer = sock.recvfrom(4096)
        except OSError:
            return
        try:
            qid, flags, qd = struct.unpack_from("!HHH", msg, 0)
            qname, off = read_name(msg, 12)
            qtype, qclass = struct.unpack_from("!HH", msg, off)
        except (ValueError, struct.error):
            continue
        if log:
            log.write(f"{qname} {QTYPES.get(qtype, qtype)}\n")
            log.flush()
        rcode, records, drop = zone.answer(qname, qtype)
        if drop:
            continue
        question = msg[12: off + 4]
        hdr = struct.pack("!HHHHHH", qid, 0x8400 | (flags & 0x0100) | rcode, 1,
                          len(records), 0, 0)
        sock.sendto(hdr + question + b"".join(records), peer)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("zone")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    a = ap.parse_args()
    with open(a.zone) as f:
        zone = Zone(json.load(f))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    log = open(a.log, "a") if a.log else None
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(sock.getsockname()[1]))
    import os
    os.rename(a.port_file + ".tmp", a.port_file)
    serve(sock, zone, log)


if __name__ == "__main__":
    main()
