#!/bin/sh
# behaviour_check.sh - record, or compare with a recording, everything a
# performance change must leave byte-identical (tools/behaviour_dump.c):
# parse, flags, host_ip, verdicts, normalize, resolve and remove_dots over
# every line of ../shared/data/urls/*.txt and mutations of each.
#
#   tools/behaviour_check.sh baseline REF.txt FILE...  # the working tree with
#                                                      # FILE... as in HEAD
#   tools/behaviour_check.sh record BUILD_DIR REF.txt  # a meson build
#   tools/behaviour_check.sh compare BUILD_DIR REF.txt # exit 1 on any difference
#
# "baseline" compiles src/*.c itself (cc -O2) in a scratch directory, so a
# change can be checked against the same tree without it while others edit
# other files. BUILD_DIR is any meson build (its src/liburisan.a is linked).
set -eu
cmd=${1:?usage: behaviour_check.sh baseline|record|compare ...}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
data="$root/../shared/data/urls"
cc=${CC:-cc}

dump() { # LIB EXE
    $cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$root/include" -I"$root/src" \
        "$here/behaviour_dump.c" "$1" -o "$2"
}

case $cmd in
baseline)
    out=${2:?reference file}
    shift 2
    tmp=$(mktemp -d)
    mkdir -p "$tmp/src"
    cp "$root"/src/*.c "$root"/src/*.h "$tmp/src/"
    for f in "$@"; do
        git -C "$root" show "HEAD:$f" > "$tmp/$f"
    done
    for c in "$tmp"/src/*.c; do
        $cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -DURISAN_BUILDING -I"$root/include" \
            -I"$tmp/src" -c "$c" -o "$c.o"
    done
    ar rcs "$tmp/liburisan.a" "$tmp"/src/*.o
    dump "$tmp/liburisan.a" "$tmp/behaviour_dump"
    "$tmp/behaviour_dump" "$data"/*.txt > "$out"
    rm -rf "$tmp"
    echo "baseline: $(wc -l < "$out") inputs in $out"
    ;;
record|compare)
    build=${2:?build dir}
    file=${3:?recording}
    exe="$build/behaviour_dump"
    dump "$build/src/liburisan.a" "$exe"
    if [ "$cmd" = record ]; then
        "$exe" "$data"/*.txt > "$file"
        echo "recorded $(wc -l < "$file") inputs in $file"
        exit 0
    fi
    now="$file.now"
    "$exe" "$data"/*.txt > "$now"
    if cmp -s "$file" "$now"; then
        echo "identical: $(wc -l < "$now") inputs"
        rm -f "$now"
    else
        echo "DIFFERENT (first differing records below; all of it in $now)"
        diff "$file" "$now" | head -20
        exit 1
    fi
    ;;
*)
    echo "usage: behaviour_check.sh baseline|record|compare ..." >&2
    exit 2
    ;;
esac
