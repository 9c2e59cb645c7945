#!/usr/bin/env bash
# nginx/auto-config.sh SRC OUTDIR - ngx_auto_config.h and
# ngx_auto_headers.h for building a dynamic module against the installed
# nginx: nginx's own configure (from nginx-dev, SRC=/usr/share/nginx/src)
# run with the flags Debian's nginx was built with (SRC/conf_flags), as
# Debian's libnginx-mod-* packages do (debhelper's nginx_mod build
# system). The module's signature, which load_module compares with the
# binary's, comes from these headers. Run in a copy of SRC (configure
# must not write into the package's files); about half a minute.
set -euo pipefail
src=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/urisan-ngx-conf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/." "$tmp/src"
# Its feature tests as Debian's nginx was built: with gcc, without the
# flags of the build around us (a sanitizer or fuzzer flag is no feature
# of the nginx binary the module is loaded into).
unset CFLAGS CPPFLAGS LDFLAGS
export CC=${NGINX_CONFIGURE_CC:-gcc}
cd "$tmp/src"
# shellcheck disable=SC1091
. ./conf_flags
if ! ./configure "${NGX_CONF_FLAGS[@]}" --builddir="$tmp/objs" >"$tmp/configure.log" 2>&1; then
    tail -30 "$tmp/configure.log" >&2
    echo "nginx/auto-config.sh: nginx's configure failed (log above)" >&2
    exit 1
fi
cp "$tmp/objs/ngx_auto_config.h" "$tmp/objs/ngx_auto_headers.h" "$out/"
