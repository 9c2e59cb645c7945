#!/usr/bin/env bash
# tools/deb-check.sh - build the Debian packages (debian/), lintian them
# (errors = 0), install them and smoke-test: `urisan check`, the Squid
# helper under /usr/lib/squid, every installed header compiled alone and
# together, a program a pkg-config name (urisan, urisan-host, urisan-mail)
# built and run, `python3 -c 'import urisan'`, the Lua module. CI runs it (.ci/run).
#
# The build runs in a copy of the tree (git ls-files) with
# DEB_BUILD_OPTIONS=nocheck (the test suites run elsewhere in CI).
# Installing: with DEB_CHECK_INSTALL=system (CI, as root) the .debs are
# installed with dpkg -i and purged afterwards; otherwise (default) they
# are unpacked into a scratch root (dpkg -x) and used from there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/urisan-deb.XXXXXX")
installed=""
cleanup() {
    if [ -n "$installed" ]; then dpkg --purge $installed >/dev/null 2>&1 || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/src"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$tmp/src" 2>/dev/null || true)
cd "$tmp/src"
echo "deb-check: dpkg-buildpackage -us -uc -b (nocheck)"
if ! DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1; then
    tail -40 "$tmp/build.log"; echo "deb-check: FAIL: dpkg-buildpackage"; exit 1
fi
cd "$tmp"
ls -1 ./*.deb
status=0
lrc=0
lintian --no-tag-display-limit ./*.changes >"$tmp/lintian.log" 2>&1 || lrc=$?
errors=$(grep -c '^E: ' "$tmp/lintian.log" || true)
warnings=$(grep -c '^W: ' "$tmp/lintian.log" || true)
echo "deb-check: lintian (exit $lrc): $errors errors, $warnings warnings"
grep -E '^(E|W|I): |^[a-z]' "$tmp/lintian.log" | sed 's/^/  /' | head -40 || true
# lintian exits 2 when it could not run at all
[ "$lrc" -le 1 ] || { echo "FAIL: lintian did not run"; status=1; }
[ "$errors" = 0 ] || status=1

# What each package holds that matters.
has() { dpkg -c "$1" >"$tmp/contents"; grep -q "$2" "$tmp/contents" || { echo "FAIL: $1 lacks $2"; status=1; }; }
has urisan_*.deb './usr/lib/squid/urisan$'
has urisan_*.deb './usr/bin/urisan$'
has urisan_*.deb './usr/share/doc/urisan/logs.md'
has urisan_*.deb './usr/share/doc/urisan/examples/policy.txt'
has urisan_*.deb './lib/systemd/system/urisan-milter.service$'
has urisan_*.deb './lib/systemd/system/urisan-serve.service$'
for pol in gateway mail squid site; do has urisan_*.deb "./etc/urisan/$pol.policy\$"; done
dpkg-deb -e urisan_*.deb "$tmp/control"
for pol in gateway mail squid site; do
    grep -qx "/etc/urisan/$pol.policy" "$tmp/control/conffiles" ||
        { echo "FAIL: /etc/urisan/$pol.policy is not a conffile"; status=1; }
done
has liburisan0.2_*.deb 'liburisan.so.0.2'
has liburisan-mail0.2_*.deb './usr/lib/.*/urisan/0.2/urisan-readers$'
has liburisan-dev_*.deb './usr/include/urisan.h$'
has liburisan-dev_*.deb 'pkgconfig/urisan.pc$'
has python3-urisan_*.deb 'dist-packages/urisan.cpython'
has lua-urisan_*.deb 'lua/5.1/urisan.so$'
has lua-urisan_*.deb 'lua/5.3/urisan.so$'
has lua-urisan_*.deb './usr/share/urisan/rspamd/urisan.lua$'
has libnginx-mod-http-urisan_*.deb './usr/lib/nginx/modules/ngx_http_urisan_module.so$'
has libnginx-mod-http-urisan_*.deb './usr/share/nginx/modules-available/mod-http-urisan.conf$'
dpkg-deb -f libnginx-mod-http-urisan_*.deb Depends | grep -q 'nginx-abi-' ||
    { echo "FAIL: libnginx-mod-http-urisan does not depend on the nginx ABI it was built for"; status=1; }

if [ "${DEB_CHECK_INSTALL:-extract}" = system ]; then
    dpkg -i ./*.deb >/dev/null
    installed=$(for d in ./*.deb; do dpkg-deb -f "$d" Package; done | tr '\n' ' ')
    prefix=""
    run_env=()
else
    mkdir -p "$tmp/root"
    for d in ./*.deb; do dpkg -x "$d" "$tmp/root"; done
    prefix="$tmp/root"
    multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    run_env=(env LD_LIBRARY_PATH="$prefix/usr/lib/$multi"
             PKG_CONFIG_SYSROOT_DIR="$prefix" PKG_CONFIG_PATH="$prefix/usr/lib/$multi/pkgconfig"
             PYTHONPATH="$prefix/usr/lib/python3/dist-packages")
fi

out=$("${run_env[@]}" "$prefix/usr/bin/urisan" check 'http://127.0.0.1/a/../b' || true)
echo "deb-check: urisan check -> $out"
[[ $out == flag* || $out == deny* ]] || { echo "FAIL: urisan check"; status=1; }
# the package's binary has the milter (libmilter-dev in Build-Depends)
"${run_env[@]}" "$prefix/usr/bin/urisan" milter --help >/dev/null 2>&1 ||
    { echo "FAIL: urisan milter missing from the package"; status=1; }
ver=$("${run_env[@]}" "$prefix/usr/bin/urisan" --version)
echo "deb-check: $ver"
reply=$(printf '0 http://example.com/\n1 javascript:alert(1)\n' | "${run_env[@]}" "$prefix/usr/lib/squid/urisan" squid-acl)
echo "deb-check: /usr/lib/squid/urisan squid-acl -> $(echo "$reply" | tr '\n' '|')"
[[ $reply == "0 OK"*"1 ERR"* ]] || { echo "FAIL: squid helper"; status=1; }
# a PDF attachment's link, read by the package's urisan-readers (where the
# library looks for it: URISAN_READERS in an unpacked tree)
pdf='%PDF-1.4
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /Annots [<< /Type /Annot /Subtype /Link /A << /S /URI /URI (http://pdf-link.evil.example/x) >> >>] >> endobj
trailer << /Root 1 0 R >>
%%EOF'
readers=$(ls "$prefix"/usr/lib/*/urisan/0.2/urisan-readers 2>/dev/null | head -1)
row=$(printf 'From: a@example.org\nSubject: x\nMIME-Version: 1.0\nContent-Type: application/octet-stream; name="a.pdf"\nContent-Transfer-Encoding: base64\n\n%s\n' \
          "$(printf '%s\n' "$pdf" | base64)" |
      "${run_env[@]}" ${prefix:+URISAN_READERS="$readers"} "$prefix/usr/bin/urisan" extract --mail --json - || true)
echo "deb-check: extract --mail on a PDF attachment -> $(echo "$row" | head -c 120)"
[[ $row == *'"context":"pdf-uri"'* && $row == *pdf-link.evil.example* ]] ||
    { echo "FAIL: the PDF reader (urisan-readers) of the package"; status=1; }

# Every installed header on its own and with the others (C99 -pedantic),
# then one program a pkg-config name (tests/installed/*.c, the programs
# tests/install_test.py builds from `meson install`) built with
# `pkg-config --cflags --libs NAME` and run.
inc="$prefix/usr/include"
headers=$(cd "$inc" && ls urisan*.h)
for h in $headers "$(echo $headers)"; do
    src=$(for x in $h; do echo "#include <$x>"; done; echo 'int main(void) { return 0; }')
    if echo "$src" | cc -x c -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$inc" -; then
        echo "deb-check: $h compiles (C99 -pedantic) against the installed headers"
    else
        echo "FAIL: $h does not compile against the installed headers"; status=1
    fi
done
for pc in "urisan urisan.c" "urisan-host urisan_host.c" "urisan-mail urisan_mail.c" \
          "urisan-net urisan_net.c" "urisan urisan-host urisan-mail urisan-net all.c"; do
    names=${pc% *}; src=$tmp/src/tests/installed/${pc##* }
    cflags=$("${run_env[@]}" pkg-config --cflags $names)
    libs=$("${run_env[@]}" pkg-config --libs $names)
    if cc -std=c99 -Wall -Werror $cflags "$src" -o "$tmp/t" $libs && out=$("${run_env[@]}" "$tmp/t"); then
        echo "deb-check: ${src##*/} built with pkg-config $names ($libs) runs: $out"
    else
        echo "FAIL: ${src##*/} against pkg-config $names"; status=1
    fi
done
if "${run_env[@]}" /usr/bin/python3 -c 'import urisan, sys; print("deb-check: python3 import urisan", urisan.version(), urisan.__file__); sys.exit(urisan.verdict("javascript:x") != "deny")'; then :; else
    echo "FAIL: python3 -c 'import urisan'"; status=1
fi
# The systemd units as installed: systemd-analyze verify (the unit's
# binary from the scratch root when the packages are only unpacked), and
# each policy file they name is in the package and valid.
if command -v systemd-analyze >/dev/null; then
    for unit in urisan-milter urisan-serve; do
        sed "s|/usr/bin/urisan|$prefix/usr/bin/urisan|; s|/etc/urisan/|$prefix/etc/urisan/|g" \
            "$prefix/lib/systemd/system/$unit.service" > "$tmp/$unit.service"
        if out=$("${run_env[@]}" systemd-analyze verify --man=no "$tmp/$unit.service" 2>&1) && [ -z "$out" ]; then
            echo "deb-check: systemd-analyze verify $unit.service: clean"
        else
            echo "FAIL: systemd-analyze verify $unit.service: $out"; status=1
        fi
        for pol in $(grep -o '/etc/urisan/[a-z]*\.policy' "$prefix/lib/systemd/system/$unit.service"); do
            prof=$(grep '^ExecStart=' "$prefix/lib/systemd/system/$unit.service" | grep -o -- '--profile [a-z]*' || true)
            "${run_env[@]}" "$prefix/usr/bin/urisan" policy $prof --strict check "$prefix$pol" >/dev/null ||
                { echo "FAIL: $unit.service names $pol: missing or invalid"; status=1; }
        done
    done
else
    echo "deb-check: no systemd-analyze: the units are not verified"
fi
# The Lua module from the package, in LuaJIT (nginx, rspamd) and Lua 5.3
# (HAProxy), where their default search path finds it once installed.
multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for lua_abi in luajit:5.1 lua5.3:5.3; do
    lua=${lua_abi%%:*}; abi=${lua_abi#*:}
    command -v "$lua" >/dev/null || { echo "deb-check: $lua not installed: its Lua module not run"; continue; }
    if "${run_env[@]}" env LUA_CPATH="$prefix/usr/lib/$multi/lua/$abi/?.so" "$lua" -e \
        'local u = require "urisan"; print("deb-check: " .. _VERSION .. " require \"urisan\"", u.version()); os.exit(u.verdict("javascript:x") == "deny" and 0 or 1)'; then :; else
        echo "FAIL: $lua require 'urisan'"; status=1
    fi
done
# The nginx module from the package, loaded by Debian's nginx (nginx -t:
# the module's signature is the binary's, the directives are known, the
# policy is read) by the line the package's load file holds.
if command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; then
    ngx=$(command -v nginx || echo /usr/sbin/nginx)
    mkdir -p "$tmp/ngx"
    load=$(sed "s|modules/|$prefix/usr/lib/nginx/modules/|" "$prefix/usr/share/nginx/modules-available/mod-http-urisan.conf")
    printf '%s\nerror_log stderr;\npid %s/ngx/nginx.pid;\nevents {}\nhttp { server { listen 127.0.0.1:1; urisan on; urisan_profile ssrf; } }\n' \
        "$load" "$tmp" > "$tmp/ngx/nginx.conf"
    if "${run_env[@]}" "$ngx" -p "$tmp/ngx" -c "$tmp/ngx/nginx.conf" -t >"$tmp/ngx/t.log" 2>&1; then
        echo "deb-check: nginx -t loads the packaged module ($load)"
    else
        cat "$tmp/ngx/t.log"; echo "FAIL: nginx -t with the packaged module"; status=1
    fi
else
    echo "deb-check: nginx not installed: the nginx module not loaded"
fi
exit $status
