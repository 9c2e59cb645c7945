#!/usr/bin/env bash
# Installs the Debian 12 packages urisan's build, tests, fuzzers and
# benchmark use. Does nothing when they are all present; needs root
# (as CI and a fresh machine have) only when something is missing.
set -euo pipefail

pkgs=(
  meson ninja-build gcc clang pkg-config python3    # build
  check                                             # unit tests (Check)
  libclang-rt-14-dev llvm                           # sanitizers, libFuzzer, llvm-cov
  liburiparser-dev libcurl4-openssl-dev libjson-c-dev  # differential oracles
  libglib2.0-dev                                    # benchmark peer (GUri)
  libgmime-3.0-dev libpsl-dev libidn2-dev           # extract --mail
  squid                                             # e2e: the proxy helper
  libmicrohttpd-dev nginx haproxy                   # urisan serve + its e2e gateways
  valgrind                                          # callgrind figures
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages: ${missing[*]} (run as root, or apt-get install them)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Installing must not start services (squid, nginx, haproxy): the tests
# start their own. A temporary policy-rc.d (exit 101) tells invoke-rc.d no.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts squid as a service on install: the e2e tests run their own.
if command -v systemctl >/dev/null 2>&1; then systemctl stop squid >/dev/null 2>&1 || true; fi
if [ -x /etc/init.d/squid ]; then /etc/init.d/squid stop >/dev/null 2>&1 || true; fi
exit 0
