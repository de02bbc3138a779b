#!/usr/bin/env bash
# Makes the committed sets of generated documents from two outside producers: Chromium's print to
# PDF and Ghostscript's pdfwrite, 32 pay stubs, 32 bank statements and 32 benefit letters from
# each, in shared/test-support/fixtures/documents/layouts/. The layouts come from
# test_support::layouts (seeds 10000-10031 stubs, 20000-20031 statements, 30000-30031 letters);
# `make test` reads the PDFs and checks every field against the layout's figures. It also writes
# the first stub with an owner password only, and with a password to open it. Run it again after
# changing the generator.
# Needs Chromium (infra/install_chromium.sh) and Ghostscript (Debian's ghostscript).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v gs >/dev/null || { echo "make_layout_fixtures: install Debian's ghostscript" >&2; exit 1; }
cargo test --locked -p adapters --test it -- --ignored --exact documents::layouts::write_the_committed_layouts
