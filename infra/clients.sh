#!/usr/bin/env bash
# The integrators' clients (clients/python, clients/typescript), generated from infra/openapi.yaml.
#
#   bash infra/clients.sh generate   regenerate both; fails on any generator warning (a warning is a
#                                    response or schema the generator dropped or could not type)
#   bash infra/clients.sh check      regenerate, then fail on any difference under clients/ (CI)
#   bash infra/clients.sh test       both clients' tests against a fresh local stack (infra/stack.sh)
#
# Needs `make tools clients-tools`: .tools/venv (the stack), .tools/clients-venv
# (infra/requirements-clients.txt) and .tools/node (clients/typescript/package-lock.json).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

CLIENTS_VENV="${CLIENTS_VENV:-$ROOT/.tools/clients-venv}"
NODE_MODULES="$ROOT/.tools/node/node_modules"
SPEC="infra/openapi.yaml"
PY_CLIENT="clients/python"
TS_CLIENT="clients/typescript"

need_tools() {
    if [[ ! -x "$CLIENTS_VENV/bin/openapi-python-client" || ! -d "$NODE_MODULES" ]]; then
        echo "clients.sh: the clients' tools are missing: run \`make clients-tools\`" >&2
        exit 2
    fi
    # TypeScript and node resolve packages from the client's folder: point it at the pinned install.
    ln -sfn ../../.tools/node/node_modules "$TS_CLIENT/node_modules"
}

# Runs a generator, prints what it said, and fails if it said anything that is a warning.
run_generator() {
    local name="$1" pattern="$2"
    shift 2
    local out
    out="$("$@" 2>&1)" || {
        echo "$out" >&2
        echo "clients.sh: $name failed" >&2
        exit 1
    }
    echo "$out"
    local warnings
    warnings="$(grep -ciE "$pattern" <<<"$out" || true)"
    if [[ "$warnings" -ne 0 ]]; then
        echo "clients.sh: $name printed $warnings warning line(s) for $SPEC" >&2
        exit 1
    fi
}

generate() {
    need_tools
    # openapi-python-client runs ruff (its post-generation hooks) from PATH.
    PATH="$CLIENTS_VENV/bin:$PATH" run_generator openapi-python-client \
        'warning|unable to|cannot parse|skipping|not supported|will be omitted|removal of' \
        "$CLIENTS_VENV/bin/openapi-python-client" generate --path "$SPEC" \
        --config "$PY_CLIENT/openapi-python-client.yaml" \
        --output-path "$PY_CLIENT/tiv_client" --meta none --overwrite
    run_generator openapi-typescript 'warn|⚠|error' \
        node "$NODE_MODULES/openapi-typescript/bin/cli.js" "$SPEC" -o "$TS_CLIENT/src/schema.d.ts"
}

check() {
    generate
    if ! git diff --exit-code --stat -- clients/ || [[ -n "$(git status --porcelain --untracked-files=all -- clients/)" ]]; then
        git status --short -- clients/ >&2
        echo "clients.sh: the committed clients differ from what $SPEC generates: run \`make clients\` and commit" >&2
        exit 1
    fi
    echo "clients.sh: the committed clients are what $SPEC generates"
}

# Inside infra/stack.sh (TIV_BASE_URL and the rest are set): both clients' tests, both run whatever
# the first one did.
against_stack() {
    local status=0
    (cd "$PY_CLIENT" && PYTHONDONTWRITEBYTECODE=1 "$CLIENTS_VENV/bin/python" -m pytest -q -p no:cacheprovider tests) \
        || status=1
    (cd "$TS_CLIENT" && node node_modules/typescript/bin/tsc -p . && node --test dist/test/) || status=1
    return "$status"
}

case "${1:-}" in
    generate) generate ;;
    check) check ;;
    test)
        need_tools
        # The clients' suites walk every endpoint with the demo key as fast as they can: its
        # plan, `clients`, is business's with a key burst they never reach (the burst has its own
        # tests: devstack's `dynamo_store::key_burst`).
        export DEV_DEMO_PLAN=clients
        export PLANS='[{"name":"starter","verifications_per_month":10,"api_requests_per_day":0,"api_access":false,"sms_per_month":40},
{"name":"pro","verifications_per_month":50,"api_requests_per_day":100,"api_access":true,"sms_per_month":200},
{"name":"business","verifications_per_month":200,"api_requests_per_day":500,"api_access":true,"sms_per_month":1000},
{"name":"clients","verifications_per_month":200,"api_requests_per_day":500,"api_access":true,"sms_per_month":1000,
 "key_burst":{"requests":100000,"per_second":10000}}]'
        STACK_NAME=clients.sh STACK_REPORT_DIR="$ROOT/target/clients" \
            exec bash "$ROOT/infra/stack.sh" bash "$ROOT/infra/clients.sh" against-stack
        ;;
    against-stack) against_stack ;;
    *)
        echo "usage: bash infra/clients.sh generate|check|test" >&2
        exit 2
        ;;
esac
