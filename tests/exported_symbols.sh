#!/bin/sh
# exported_symbols.sh NM LIBURISAN.so HEADER...
# The shared library exports exactly the functions the headers declare
# with URISAN_API (the installed one, and for liburisan-host the command's
# private urisan_host_private.h): no internal symbol leaks
# (src/liburisan.map), none is missing. Prints the list it found.
set -eu
nm=$1 lib=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$nm" -D --defined-only "$lib" | awk '$2 ~ /^[TDRBVWiu]$/ { sub(/@.*/, "", $3); print $3 }' |
    sort -u >"$tmp/exported"
# URISAN_API declarations, which may wrap after the return type.
cat "$@" | grep -v '^#' | tr '\n' ' ' | grep -o 'URISAN_API[^;(]*(' |
    sed 's/.*[ *]\(urisan_[a-z0-9_]*\)($/\1/' | grep '^urisan_[a-z0-9_]*$' |
    sort -u >"$tmp/declared"
echo "exported by $lib:"
sed 's/^/  /' "$tmp/exported"
status=0
if grep -v '^urisan_' "$tmp/exported" >"$tmp/bad"; then
    echo "FAIL: exported but not urisan_*:"; cat "$tmp/bad"; status=1
fi
if ! diff -u "$tmp/declared" "$tmp/exported" >"$tmp/diff"; then
    echo "FAIL: declared (URISAN_API) vs exported (-: declared only, +: exported only):"
    cat "$tmp/diff"; status=1
fi
[ -s "$tmp/exported" ] || { echo "FAIL: nothing exported"; status=1; }
exit $status
