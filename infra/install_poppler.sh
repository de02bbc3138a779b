#!/usr/bin/env bash
# Installs Debian's poppler-utils (pdftotext, pdftoppm) for the PDF report tests when missing.
# Safe to run twice: does nothing when both are already installed. Needs root (or sudo) and
# Debian's package mirror; `make test` calls it before the tests.
set -euo pipefail

if command -v pdftotext >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1; then
  echo "install_poppler: already installed: $(pdftotext -v 2>&1 | head -n1)"
  exit 0
fi

echo "install_poppler: pdftotext or pdftoppm missing; installing Debian package poppler-utils"
if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install_poppler: need root (or sudo) to run apt-get; install poppler-utils by hand" >&2
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
apt_install poppler-utils

for bin in pdftotext pdftoppm; do
  if ! command -v "$bin" >/dev/null 2>&1; then
    echo "install_poppler: $bin still missing after the install" >&2
    exit 1
  fi
done
echo "install_poppler: installed $(pdftotext -v 2>&1 | head -n1)"
