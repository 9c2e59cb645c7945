#!/usr/bin/env bash
# Sets up (the packages of the command and `extract --mail` alone:
# `tools/install-deps.sh --minimal`; a build) and checks the bundled
# example URIs: one JSON line per URI with its parts, flags and verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh --minimal
builddir=${BUILDDIR:-build}
[ -d "$builddir/meson-private" ] || meson setup "$builddir" >/dev/null
meson compile -C "$builddir" >/dev/null
status=0
"$builddir/src/cli/urisan" check --json < "${1:-examples/urls.txt}" || status=$?
# exit 1 only means "something was denied", which the example file has on purpose
[ "$status" -le 1 ] || exit "$status"
