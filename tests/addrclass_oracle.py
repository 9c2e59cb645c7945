#!/usr/bin/env python3
"""Address classes against Python's ipaddress (an oracle for the registry
part; doc/policy.md "Address classes"). Debian 12 has Python 3.11, whose
is_global predates the newest registry rows, so the blocks where 3.11 is
known to differ are left out (listed in SKIP); tests/test_addrclass.c
checks those against the registry table itself.

usage: addrclass_oracle.py URISAN
"""
import ipaddress
import json
import random
import subprocess
import sys

URISAN = sys.argv[1]
CLASSES = {"ip_loopback", "ip_private", "ip_link_local", "ip_reserved",
           "ip_multicast", "ip_broadcast"}
SKIP = [ipaddress.ip_network(n) for n in (
    "192.0.0.0/24",          # 3.11: only /29 and .170/31 are private
    "224.0.0.0/4",           # multicast: is_global does not judge it
    "2001::/23",             # 3.11: no globally reachable exceptions
    "2002::/16", "::/96", "::ffff:0:0/96", "64:ff9b::/96",  # embedded IPv4
    "64:ff9b:1::/48", "3fff::/20", "5f00::/16", "fec0::/10",  # newer rows
    "ff00::/8",
)]


def main():
    rnd = random.Random(13)
    addrs = []
    for _ in range(20000):
        addrs.append(ipaddress.IPv4Address(rnd.getrandbits(32)))
        # IPv6 inside 2000::/3 (outside it, 3.11 calls unallocated space global)
        addrs.append(ipaddress.IPv6Address((1 << 125) | rnd.getrandbits(125)))
        addrs.append(ipaddress.IPv6Address(rnd.getrandbits(128)))
    addrs = [a for a in addrs if not any(a in n for n in SKIP)]
    addrs = [a for a in addrs if a.version == 4 or (int(a) >> 125) == 1 or a.is_private]
    uris = ["http://%s/" % (a if a.version == 4 else "[%s]" % a) for a in addrs]
    r = subprocess.run([URISAN, "check", "--json"], input="\n".join(uris).encode() + b"\n",
                       capture_output=True, check=False)
    bad = 0
    for a, line in zip(addrs, r.stdout.splitlines()):
        flags = set(json.loads(line)["flags"])
        ours = bool(flags & CLASSES)
        if ours == a.is_global:
            bad += 1
            if bad < 20:
                print("DIFF %s: urisan %s, python is_global %s" % (a, sorted(flags & CLASSES), a.is_global))
    print("python %s: %d addresses compared, %d differences" % (sys.version.split()[0], len(addrs), bad))
    return 1 if bad or len(addrs) < 20000 else 0


if __name__ == "__main__":
    sys.exit(main())
