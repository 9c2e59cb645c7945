#!/usr/bin/env bash
# Sets up everything and runs every test: unit (Check), command, fuzz
# corpus replay, benchmark smoke and the Squid end-to-end suite.
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
python3 tools/test-summary.py "$builddir/meson-logs/testlog.json" || true
exit $status
