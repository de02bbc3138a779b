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
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends poppler-utils

for bin in pdftotext pdftoppm; do
  if ! command -v "$bin" >/dev/null 2>&1; then
    echo "install_poppler: $bin still missing after the install" >&2
    exit 1
  fi
done
echo "install_poppler: installed $(pdftotext -v 2>&1 | head -n1)"
