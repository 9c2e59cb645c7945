#!/usr/bin/env bash
# Sets up everything and runs the tests: unit (Check), command, fuzz
# corpus replay, benchmark smoke and the end-to-end suites. By default the
# quick size (meson's default test setup 'quick': every suite but 'slow',
# each slow test on a sample of its cases drawn from every case class);
# TEST_ARGS="--setup thorough" runs every suite, the full sizes of suite
# 'slow' too (what .ci/run runs; `meson test -C build --suite slow` runs
# those alone).
#   BUILDDIR=build  MESON_ARGS="..."  TEST_ARGS="..."  CC=clang  (all optional)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
builddir=${BUILDDIR:-build}
if [ -d "$builddir/meson-private" ]; then
  meson setup --reconfigure "$builddir" --werror ${MESON_ARGS:-} >/dev/null
else
  meson setup "$builddir" --werror ${MESON_ARGS:-} >/dev/null
fi
meson compile -C "$builddir"
status=0
meson test -C "$builddir" --print-errorlogs --num-processes 2 ${TEST_ARGS:-} || status=$?
# meson names the log after a setup given with --setup (testlog-thorough.json)
log=$(ls -t "$builddir"/meson-logs/testlog*.json 2>/dev/null | head -n 1)
[ -n "$log" ] && python3 tools/test-summary.py "$log" || true
exit $status
