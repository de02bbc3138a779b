#!/usr/bin/env bash
# Installs Debian's Chromium and ChromeDriver for the browser test (infra/devstack/tests/it/browser.rs)
# when they are missing. Safe to run twice: does nothing when both are already installed.
# Needs root (or sudo) and Debian's package mirror; `make test` calls it before the tests.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
CHROMEDRIVER=/usr/bin/chromedriver

if [[ -x $CHROMIUM && -x $CHROMEDRIVER ]]; then
  echo "install_chromium: already installed: $("$CHROMIUM" --version 2>/dev/null | head -n1); $("$CHROMEDRIVER" --version 2>/dev/null | head -n1)"
  exit 0
fi

missing=()
[[ -x $CHROMIUM ]] || missing+=("$CHROMIUM")
[[ -x $CHROMEDRIVER ]] || missing+=("$CHROMEDRIVER")
echo "install_chromium: missing ${missing[*]}; installing Debian packages chromium and chromium-driver"

if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install_chromium: need root (or sudo) to run apt-get; install chromium and chromium-driver by hand," >&2
  echo "install_chromium: or set SKIP_BROWSER_TESTS=1 to skip the browser test" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive

# Installs Debian packages, with `apt-get update` only when needed: skipped when the package lists
# already know every package (a recent update, e.g. the other install script's in the same
# `make test`), and run then retried once if the install fails on stale lists.
apt_install() {
  local known=1 p
  for p in "$@"; do
    apt-cache show "$p" >/dev/null 2>&1 || known=0
  done
  if [[ $known -eq 1 ]] && "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "$@"; then
    return
  fi
  echo "$(basename "$0"): apt-get update"
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "$@"
}
echo "install_chromium: apt-get install -y chromium chromium-driver"
apt_install chromium chromium-driver

for bin in "$CHROMIUM" "$CHROMEDRIVER"; do
  if [[ ! -x $bin ]]; then
    echo "install_chromium: $bin still missing after the install" >&2
    exit 1
  fi
done
echo "install_chromium: installed $("$CHROMIUM" --version 2>/dev/null | head -n1); $("$CHROMEDRIVER" --version 2>/dev/null | head -n1)"
