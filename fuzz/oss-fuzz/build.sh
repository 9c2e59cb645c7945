#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build of urisan (the projects/urisan recipe).
#
# The contract (https://google.github.io/oss-fuzz/getting-started/new-project-guide/):
# $SRC/urisan holds the source, $CC/$CFLAGS carry the sanitizer and the
# coverage flags, $LIB_FUZZING_ENGINE links the engine (libFuzzer, AFL++,
# honggfuzz), and every harness goes to $OUT with
# <harness>_seed_corpus.zip, <harness>.dict and <harness>.options.
# tools/oss-fuzz-check.sh runs this with those variables set as OSS-Fuzz
# sets them and checks $OUT (CI).
src=${URISAN_SRC:-$SRC/urisan}
build=${WORK:-/tmp}/urisan-oss-fuzz-build
cd "$src"

# A static library and nothing optional but the differential oracles (when
# their libraries are in the image): harnesses only.
rm -rf "$build"
CFLAGS="$CFLAGS" LDFLAGS="${LDFLAGS:-} $CFLAGS" meson setup "$build" \
    -Ddefault_library=static -Db_lundef=false -Dbuildtype=plain \
    -Dtests=disabled -Dbench=disabled -Dpython=disabled -Dmail=disabled \
    -Dfuzzer_ldflags="$LIB_FUZZING_ENGINE" >/dev/null

# Build only the harnesses (fuzz/<name>.c that meson defined).
targets=$(ninja -C "$build" -t targets all | sed -n 's/^\(fuzz\/[a-z0-9_]*\): .*/\1/p' | sort -u)
[ -n "$targets" ] || { echo "oss-fuzz build.sh: no harness targets" >&2; exit 1; }
# shellcheck disable=SC2086
ninja -C "$build" $targets

cp fuzz/urisan.dict "$OUT/urisan.dict"
for t in $targets; do
    h=${t#fuzz/}
    cp "$build/$t" "$OUT/$h"
    cp fuzz/urisan.dict "$OUT/$h.dict"
    if [ -f "fuzz/$h.options" ]; then
        cp "fuzz/$h.options" "$OUT/$h.options"
    else
        printf '[libfuzzer]\nmax_len = 4096\n' > "$OUT/$h.options"
    fi
    rm -f "$OUT/${h}_seed_corpus.zip"
    if [ -d "corpus/$h" ] && [ -n "$(ls -A "corpus/$h")" ]; then
        (cd "corpus/$h" && zip -q -r -j "$OUT/${h}_seed_corpus.zip" .)
    fi
    echo "oss-fuzz build.sh: $h"
done
