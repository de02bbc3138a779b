#!/usr/bin/env bash
# `make bench`: builds the functions' release binaries with cargo-lambda (x86_64) and runs the
# benchmark against moto on loopback. Prints a markdown report and writes it to
# docs/benchmark-results.md (committed: the figures the docs link). Extra arguments go to the
# bench binary (see --help),
# e.g. `bash infra/bench/run.sh --starts 50 --large 20000`.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
VENV=$ROOT/.tools/venv

# The pinned tools (moto, cargo-lambda with zig; the document peer's pdfplumber and pikepdf) the
# Makefile installs; a no-op when present.
make --no-print-directory tools bench-tools >/dev/null

# Every process started from here talks to loopback only: dummy credentials, no metadata probe,
# and an endpoint that fails fast unless the bench points it at its moto.
export PATH="$VENV/bin:$PATH"
export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing
export AWS_EC2_METADATA_DISABLED=true
export AWS_ENDPOINT_URL=http://127.0.0.1:1
export MOTO_PYTHON="$VENV/bin/python"

# The functions (what is deployed, <target dir>/lambda/<fn>/bootstrap), then the bench binary apart: it
# turns on `shared`'s test-support (the in-memory store of the handler throughput run), which the
# functions' binaries must not be built with. The admin CLI and the devstack binary are not Lambda
# functions: their (LTO) links are skipped.
BUILD="cargo lambda build --locked --release --workspace --exclude admin --exclude devstack --exclude bench --x86-64"
echo "bench: $BUILD" >&2
start=$(date +%s)
$BUILD
export BENCH_BUILD="$BUILD ($(( $(date +%s) - start )) s in this run)"
cargo lambda build --locked --release -p bench --x86-64

LAMBDA_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/lambda"
exec "$LAMBDA_DIR/bench/bootstrap" --lambda-dir "$LAMBDA_DIR" --out docs/benchmark-results.md "$@"
