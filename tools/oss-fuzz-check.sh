#!/usr/bin/env bash
# tools/oss-fuzz-check.sh - run fuzz/oss-fuzz/build.sh the way OSS-Fuzz's
# base-builder does (clang, $CFLAGS with ASan and fuzzer-no-link,
# $LIB_FUZZING_ENGINE=-fsanitize=fuzzer, $SRC/$WORK/$OUT) and check $OUT:
# every harness meson defines is there, runs, and has its seed corpus zip
# (as many files as corpus/<harness>/), .dict and .options. CI runs it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/urisan-oss-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/work" "$tmp/out"
ln -s "$root" "$tmp/src/urisan"
export SRC=$tmp/src WORK=$tmp/work OUT=$tmp/out
export CC=clang CXX=clang++
export SANITIZER_FLAGS="-fsanitize=address -fsanitize-address-use-after-scope"
export COVERAGE_FLAGS="-fsanitize=fuzzer-no-link"
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION $SANITIZER_FLAGS $COVERAGE_FLAGS"
export CXXFLAGS=$CFLAGS
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export FUZZING_ENGINE=libfuzzer SANITIZER=address ARCHITECTURE=x86_64
(cd "$SRC" && bash "$SRC/urisan/fuzz/oss-fuzz/build.sh") > "$tmp/build.log" 2>&1 || {
    tail -40 "$tmp/build.log"; echo "oss-fuzz-check: build.sh failed"; exit 1; }

status=0
harnesses=$(sed -n 's/^oss-fuzz build.sh: //p' "$tmp/build.log")
for need in parse analyze resolve normalize policy extract cli; do
    echo "$harnesses" | grep -qx "$need" || { echo "FAIL: harness $need not built"; status=1; }
done
for h in $harnesses; do
    problems=""
    got=0
    [ -x "$OUT/$h" ] || problems="$problems no-binary"
    [ -s "$OUT/$h.dict" ] || problems="$problems no-dict"
    grep -q '^\[libfuzzer\]' "$OUT/$h.options" 2>/dev/null || problems="$problems no-options"
    if [ -d "$root/corpus/$h" ]; then
        want=$(find "$root/corpus/$h" -maxdepth 1 -type f | wc -l)
        got=$(python3 -c 'import sys, zipfile; print(len(zipfile.ZipFile(sys.argv[1]).namelist()))' \
              "$OUT/${h}_seed_corpus.zip" 2>/dev/null || echo 0)
        [ "$got" = "$want" ] || problems="$problems seed-corpus:$got/$want"
    fi
    # the binary is a libFuzzer target: a short run from its seed corpus
    mkdir -p "$tmp/run-$h"
    if [ -z "$problems" ]; then
        (cd "$tmp/run-$h" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall("seeds")' \
            "$OUT/${h}_seed_corpus.zip" 2>/dev/null; mkdir -p seeds
         ASAN_OPTIONS=detect_leaks=1 "$OUT/$h" -runs=2000 -dict="$OUT/$h.dict" -max_len=4096 \
            seeds > run.log 2>&1) || problems="$problems run-failed"
    fi
    if [ -n "$problems" ]; then
        echo "FAIL $h:$problems"; status=1
        [ -f "$tmp/run-$h/run.log" ] && tail -20 "$tmp/run-$h/run.log"
    else
        echo "ok   $h ($got seeds, 2000 runs)"
    fi
done
exit $status
