#!/usr/bin/env bash
# tests/setup.sh: install what a fresh Debian 12 machine lacks to build, run and test tracetap.
# Idempotent; uses sudo when not root. TT_SETUP_BROWSER=0 skips Chromium and npm packages.
# --demo: only what the live demo needs (building tracetap, OpenOCD, QEMU and the firmware's
# cross compiler for --qemu); the test tools (clang, valgrind, prometheus, Chromium, a broker,
# the Debian packaging tools) are left out.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

PKGS=(
  build-essential pkg-config meson ninja-build
  libuv1-dev libcjson-dev libelf-dev libdw-dev libssl-dev
  libwebsockets-dev libwebsockets-evlib-uv libmosquitto-dev libsystemd-dev libusb-1.0-0-dev
  openocd gdb-multiarch qemu-system-arm gcc-arm-none-eabi libnewlib-arm-none-eabi
)
if [ "${1:-}" = --demo ]; then
  TT_SETUP_BROWSER=0
else
  PKGS+=(
    gcc-multilib mosquitto mosquitto-clients systemd valgrind jq curl
    socat openssl iproute2 procps mawk xz-utils python3 prometheus
    clang libclang-rt-14-dev
    debhelper dpkg-dev lintian
  )
fi
if [ "${TT_SETUP_BROWSER:-1}" = 1 ]; then
  PKGS+=(chromium)
  # Node.js may come from elsewhere (with its own npm): only ask Debian when it is missing.
  command -v node >/dev/null || PKGS+=(nodejs)
  command -v npm >/dev/null || PKGS+=(npm)
fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${TT_SETUP_BROWSER:-1}" = 1 ] && [ -f tests/browser/package.json ]; then
  # playwright-core only: it never downloads a browser; tests use Debian's /usr/bin/chromium.
  (cd tests/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi
