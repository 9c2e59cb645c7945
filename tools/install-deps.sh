#!/usr/bin/env bash
# Installs the Debian 12 packages urisan's build, tests, fuzzers,
# benchmark, Python binding and Debian packaging use (or only the packages
# named as arguments: `tools/install-deps.sh squid`; `--minimal`: only
# those of the command and `extract --mail`). Does nothing when
# they are all present; needs root (as CI and a fresh machine have) only
# when something is missing.
#
# Installing never starts, stops or restarts a system service: for the
# duration of apt-get a /usr/sbin/policy-rc.d that exits 101 ("action
# forbidden", Debian policy 9.3.3.1, honoured by invoke-rc.d and
# deb-systemd-invoke) is in place, and whatever was there before (a file,
# a symlink, or nothing) is put back exactly afterwards, also on failure.
# A service that was running keeps running; the tests that need Squid
# start a private one (tests/e2e/squid_e2e.py).
set -euo pipefail

pkgs=(
  meson ninja-build gcc clang pkg-config python3    # build
  check                                             # unit tests (Check)
  libclang-rt-14-dev llvm                           # sanitizers, libFuzzer, llvm-cov
  liburiparser-dev libcurl4-openssl-dev libjson-c-dev  # differential oracles
  libglib2.0-dev                                    # benchmark peer (GUri)
  libgmime-3.0-dev libpsl-dev libidn2-dev           # extract --mail
  # extract --mail's readers of binary attachments (src/mail/readers.h):
  # PDF (qpdf), Office Open XML (libzip, libxml2), QR codes (zbar) in
  # PNG/JPEG/GIF/WebP images, their sandbox (libseccomp); the tests make
  # real files with qpdf, reportlab, python3-docx, python3-qrcode, PIL
  libqpdf-dev libzip-dev libxml2-dev libzbar-dev libpng-dev libjpeg-dev
  libgif-dev libwebp-dev libseccomp-dev
  qpdf python3-reportlab python3-docx python3-qrcode python3-pil
  publicsuffix                                      # the Public Suffix List as text
  libicu-dev                                        # homograph (TR39 spoof checker)
  libmilter-dev postfix                             # urisan milter, its e2e
  squid                                             # e2e: the proxy helper
  libmicrohttpd-dev nginx haproxy                   # urisan serve + its e2e gateways
  nginx-dev                                         # the nginx module (nginx/): headers, configure, dh_nginx
  valgrind                                          # callgrind figures
  zlib1g-dev                                        # check --format: .gz logs
  python3-dev python3-pytest python3-cffi           # Python binding, FFI header test
  python3-distributed                               # doc/logs.md Dask example
  parallel jq                                       # doc/logs.md recipes (tests/logs_doc_test.py)
  python3-jsonschema                                # doc/urisan-output.schema.json test
  debhelper dh-python dpkg-dev lintian fakeroot     # tools/deb-check.sh (debian/control Build-Depends)
  zip                                               # fuzz/oss-fuzz/build.sh seed corpora
  afl++                                             # fuzz/README.md AFL++ recipe; CI builds it
  # The Lua module (lua/, doc/lua.md) and its e2e servers. OpenResty's
  # LuaJIT (luajit2, libluajit2-5.1-*): libnginx-mod-http-lua and rspamd
  # accept it, and Debian's libluajit-5.1-2 conflicts with it (asking for
  # libluajit-5.1-dev with libnginx-mod-http-lua makes apt give up).
  luajit2 libluajit2-5.1-dev lua5.1 liblua5.1-0-dev # Lua 5.1 ABI (nginx, rspamd)
  lua5.3 liblua5.3-dev lua5.4 liblua5.4-dev         # HAProxy 2.6 (5.3), 5.4
  libnginx-mod-http-lua rspamd wrk                  # lua_e2e, rspamd_e2e, gateway-bench
  nodejs                                            # tests/nested_diff_test.py (a real URL client)
  # word lists with diacritics: tests/impersonation_letters_test.py judges
  # their words as IDN labels (ordinary words get no homograph)
  wngerman wfrench wspanish wportuguese witalian wpolish wswedish
  libc-ares-dev                                     # liburisan-net: check --resolve (c-ares)
  python3-requests python3-httpx                    # urisan.guard transports and their dns_ tests
  systemd                                           # systemd-analyze verify: tests/units_test.py, deb-check
  man-db                                            # man -l: the man page at 80 columns (tests/manpage_test.py)
)
# `--minimal`: the command, its host layer and `extract --mail` alone
# (tools/quickstart.sh, README "Quick start"); no test, server or fuzzer.
minimal=(meson ninja-build gcc pkg-config python3 zlib1g-dev
         libgmime-3.0-dev libpsl-dev libidn2-dev publicsuffix libicu-dev)
if [ "${1:-}" = --minimal ]; then
  pkgs=("${minimal[@]}")
elif [ $# -gt 0 ]; then
  pkgs=("$@")
fi

# one dpkg-query for all (one per package took ~20 s on a loaded machine,
# on every tools/test.sh run)
installed=" $({ dpkg-query -W -f='${Package}=${Status}\n' "${pkgs[@]}" 2>/dev/null || true; } |
              sed -n 's/=install ok installed$//p' | tr '\n' ' ')"
missing=()
for p in "${pkgs[@]}"; do
  case $installed in *" $p "*) ;; *) missing+=("$p") ;; esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages: ${missing[*]} (run as root, or apt-get install them)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"

prc=/usr/sbin/policy-rc.d
saved=""
restore_prc() {
  if [ -n "$saved" ]; then
    mv -f "$saved" "$prc"        # the previous file, mode and all
  else
    rm -f "$prc"
  fi
}
if [ -e "$prc" ] || [ -L "$prc" ]; then
  saved=$(mktemp /usr/sbin/.policy-rc.d.urisan-saved.XXXXXX)
  cp -a "$prc" "$saved"           # -a: a symlink stays a symlink
fi
trap restore_prc EXIT
tmp=$(mktemp /usr/sbin/.policy-rc.d.urisan.XXXXXX)
printf '#!/bin/sh\n# tools/install-deps.sh: no service actions while it installs\nexit 101\n' >"$tmp"
chmod 755 "$tmp"
mv -f "$tmp" "$prc"

export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
exit 0
