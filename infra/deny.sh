#!/usr/bin/env bash
# cargo-deny over the dependency graph (`make deny`, run by .ci/run), with deny.toml's policy:
# licenses, bans (duplicate versions, each skip with its reason) and sources, always; advisories
# whenever the RustSec database (on GitHub) can be fetched, and the last line says which.
# Installs cargo-deny, pinned, into .tools/cargo-deny when that version is not there yet.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

VERSION=0.20.2
DENY="$ROOT/.tools/cargo-deny/bin/cargo-deny"
# The database fetch is bounded: an unreachable GitHub must not hang CI.
FETCH_SECONDS="${DENY_FETCH_SECONDS:-60}"

if [[ "$("$DENY" --version 2>/dev/null)" != "cargo-deny $VERSION" ]]; then
    echo "deny: installing cargo-deny $VERSION into .tools/cargo-deny" >&2
    cargo install --locked --quiet cargo-deny --version "$VERSION" --root "$ROOT/.tools/cargo-deny"
fi

# cargo-deny reads the graph of every platform offline, so their crates must be in the registry
# cache, though a build here fetches only Linux's (wasm-bindgen, android_system_properties, ...).
cargo fetch --locked --quiet

"$DENY" --locked --offline check licenses bans sources

if timeout "$FETCH_SECONDS" "$DENY" --locked fetch db >/dev/null 2>&1; then
    "$DENY" --locked --offline check advisories
    echo "deny: advisories: checked"
else
    echo "deny: advisories: not checked, database unreachable (fetch failed or took over ${FETCH_SECONDS} s)"
fi
