#!/bin/sh
# callgrind.sh - instructions per URL of each benchmark loop, by callgrind.
#
#   bench/callgrind.sh BUILD_DIR [ENTRY...]
#
# For every data set in ../shared/data/urls and every ENTRY (default: the
# urisan entries and the peers' parse loops) runs
#   valgrind --tool=callgrind --collect-atstart=no urisan-bench --callgrind --only ENTRY FILE
# where only the measured loop is collected (CALLGRIND_TOGGLE_COLLECT around
# it), and prints Ir / URL. Callgrind output files are kept in
# BUILD_DIR/callgrind/ for callgrind_annotate.
set -eu

build=${1:?usage: bench/callgrind.sh BUILD_DIR [ENTRY...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
data="$here/../../shared/data/urls"
bench="$build/bench/urisan-bench"

if ! command -v valgrind >/dev/null 2>&1; then
    echo "callgrind.sh: valgrind not installed (apt-get install -y valgrind); skipping"
    exit 0
fi
if [ ! -x "$bench" ]; then
    echo "callgrind.sh: $bench not built" >&2
    exit 2
fi
if [ ! -d "$data" ]; then
    echo "callgrind.sh: no data sets in $data; skipping"
    exit 0
fi
if [ $# -eq 0 ]; then
    set -- $("$bench" --help | sed -n 's/^entries://p')
fi

out="$build/callgrind"
mkdir -p "$out"
printf '%-18s %-14s %8s %14s %10s\n' entry dataset urls Ir Ir/URL
for f in kasztp userbait node_files isaacs_files; do
    [ -f "$data/$f.txt" ] || continue
    for e in "$@"; do
        cg="$out/$e.$f.out"
        line=$(valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$cg" \
               "$bench" --callgrind --only "$e" "$data/$f.txt" 2>/dev/null | grep '^callgrind ')
        urls=$(echo "$line" | awk '{print $5}')
        ir=$(sed -n 's/^summary: *//p' "$cg")
        [ -n "$ir" ] || ir=$(sed -n 's/^totals: *//p' "$cg")
        printf '%-18s %-14s %8s %14s %10.0f\n' "$e" "$f" "$urls" "$ir" \
               "$(echo "$ir $urls" | awk '{print $1 / $2}')"
    done
done
