#!/bin/sh
# no_getenv.sh NM SWITCHES LIB.so... - the shipped libraries read no
# environment variable: none of LIB.so references getenv or secure_getenv
# (doc/library.md). A build with -Dbench_switches=true (SWITCHES "switches":
# a measurement build, never shipped) reads URISAN_BENCH_CACHES_OFF, so the
# check is skipped there (77).
set -eu
nm=$1 switches=$2
shift 2
if [ "$switches" = switches ]; then
    echo "skip: -Dbench_switches=true reads URISAN_BENCH_CACHES_OFF (a measurement build)"
    exit 77
fi
status=0
for lib in "$@"; do
    found=$("$nm" -D --undefined-only "$lib" | awk '{ sub(/@.*/, "", $2); print $2 }' |
        grep -E '^(secure_)?getenv$' || true)
    if [ -n "$found" ]; then
        echo "FAIL $lib: references $found"
        status=1
    else
        echo "ok   $lib: no getenv"
    fi
done
exit $status
