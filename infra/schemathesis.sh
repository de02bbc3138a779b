#!/usr/bin/env bash
# Fuzzes the local stack with schemathesis against infra/openapi.yaml.
#
# Builds and starts the devstack binary (moto + the API + the tenant page + pumps + webhook
# receiver) on free loopback ports, waits for it, runs schemathesis with the demo test key, and
# stops the stack on exit, whatever happens. Nothing leaves 127.0.0.1:
#   - where the kernel allows it (root, `unshare` and `ip` present), the stack and schemathesis
#     run in a fresh network namespace that has only a loopback interface;
#   - in any case a schemathesis hook points every generated `webhook_url` at the stack's own
#     loopback receiver, so no webhook is ever sent to a generated host name;
#   - schemathesis 4 has no telemetry or upload (Schemathesis.io was discontinued); the spec has
#     no remote $ref.
# Checks: not_a_server_error, status_code_conformance, content_type_conformance,
# response_schema_conformance, response_headers_conformance (HTML pages are checked as documents).
# Bounds: a fixed seed and --max-examples per operation keep the inputs reproducible and the run
# within the demo account's 500 API requests per UTC day (plan `business`; the stack is new on every
# run, so each run starts with the whole allowance; the defaults use about 270-330); `timeout` caps
# the wall time. On failure the stack's logs are kept in the report directory.
#
# Usage: bash infra/schemathesis.sh            (needs `make tools`, incl. infra/requirements-openapi.txt)
# Env:   ST_MAX_EXAMPLES (default 12), ST_SEED (default 20261122), ST_TIMEOUT seconds (default 1800),
#        ST_WORKERS (default 1: moto applies one request at a time, so 2 measured no faster, 119.6 s
#        against 118.3 s; and with the allowance used up mid-run, which cases meet a 429 would depend
#        on how the workers interleave),
#        ST_REPORT_DIR (default target/schemathesis; JUnit report, and the stack's logs on failure),
#        ST_NETNS=off (skip the network namespace), CARGO_TARGET_DIR, MOTO_PYTHON, VENV.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

VENV="${VENV:-$ROOT/.tools/venv}"
PY="$VENV/bin/python"
ST="$VENV/bin/schemathesis"
SPEC="$ROOT/infra/openapi.yaml"
MAX_EXAMPLES="${ST_MAX_EXAMPLES:-12}"
SEED="${ST_SEED:-20261122}"
WORKERS="${ST_WORKERS:-1}"
TIMEOUT="${ST_TIMEOUT:-1800}"
REPORT_DIR="${ST_REPORT_DIR:-$ROOT/target/schemathesis}"

# Loopback only, for every process started from here (the Makefile exports the same).
export AWS_REGION="${AWS_REGION:-us-east-1}"
export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-us-east-1}"
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-testing}"
export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-testing}"
export AWS_EC2_METADATA_DISABLED=true
export AWS_ENDPOINT_URL="${AWS_ENDPOINT_URL:-http://127.0.0.1:1}"
export MOTO_PYTHON="${MOTO_PYTHON:-$PY}"
export NO_PROXY="127.0.0.1,localhost" no_proxy="127.0.0.1,localhost"
unset HTTP_PROXY HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy
# Schemathesis 3 honoured this; 4 has no telemetry at all. Kept so an accidental downgrade stays quiet.
export SCHEMATHESIS_TELEMETRY=false
export PYTHONDONTWRITEBYTECODE=1

if [[ -z "${TIV_ST_INNER:-}" ]]; then
    for tool in "$PY" "$ST"; do
        if [[ ! -x "$tool" ]]; then
            echo "schemathesis.sh: $tool not found: run \`make tools\` (installs infra/requirements-openapi.txt)" >&2
            exit 2
        fi
    done
    # Build outside the namespace (cargo may need its registry).
    cargo build --quiet -p devstack --bin devstack
    export TIV_ST_INNER=1
    if [[ "${ST_NETNS:-auto}" != "off" ]] && command -v unshare >/dev/null && command -v ip >/dev/null \
        && unshare -n true 2>/dev/null; then
        echo "schemathesis.sh: running in a private network namespace (loopback only)"
        exec unshare -n -- bash -c 'ip link set lo up && exec bash "$0"' "$ROOT/infra/schemathesis.sh"
    fi
    echo "schemathesis.sh: no private network namespace here; relying on loopback URLs and the webhook_url hook"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tiv-schemathesis.XXXXXX")"
STACK_PID=""
cleanup() {
    local rc=$?
    if [[ -n "$STACK_PID" ]] && kill -0 "$STACK_PID" 2>/dev/null; then
        # Ctrl-C is the stack's own way to stop (it drops moto); then insist.
        kill -INT "$STACK_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$STACK_PID" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL "$STACK_PID" 2>/dev/null || true
        wait "$STACK_PID" 2>/dev/null || true
    fi
    if [[ $rc -ne 0 && -f "$WORK/stack.err" ]]; then
        mkdir -p "$REPORT_DIR"
        cp "$WORK/stack.out" "$WORK/stack.err" "$REPORT_DIR/" 2>/dev/null || true
        echo "--- last lines of the stack's log (all of it in $REPORT_DIR/stack.err) ---" >&2
        tail -n 5 "$WORK/stack.err" >&2 || true
    fi
    rm -rf "$WORK"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Free loopback ports: the API on P (the webhook receiver takes P+1) and moto on M.
read -r PORT MOTO_PORT < <("$PY" - <<'EOF'
import socket
def free():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
def pair():
    for _ in range(100):
        p = free()
        try:
            s = socket.socket(); s.bind(("127.0.0.1", p + 1)); s.close(); return p
        except OSError:
            continue
    raise SystemExit("no free port pair")
api = pair()
moto = free()
while moto in (api, api + 1):
    moto = free()
print(api, moto)
EOF
)
BASE="http://127.0.0.1:$PORT"

"${CARGO_TARGET_DIR:-$ROOT/target}/debug/devstack" --port "$PORT" --moto-port "$MOTO_PORT" \
    >"$WORK/stack.out" 2>"$WORK/stack.err" </dev/null &
STACK_PID=$!

# Ready when it prints its banner (after moto, the tables, the demo account and the server).
KEY=""
for _ in $(seq 1 600); do
    if ! kill -0 "$STACK_PID" 2>/dev/null; then
        echo "schemathesis.sh: the local stack exited early" >&2
        cat "$WORK/stack.out" >&2 || true
        exit 1
    fi
    KEY="$(sed -n 's/^ *demo API key *: *\(tiv_test_[A-Za-z0-9_]*\).*/\1/p' "$WORK/stack.out" | head -n 1)"
    [[ -n "$KEY" ]] && break
    sleep 0.2
done
if [[ -z "$KEY" ]]; then
    echo "schemathesis.sh: the local stack did not start within 120 s" >&2
    exit 1
fi
echo "schemathesis.sh: local stack at $BASE (moto on $MOTO_PORT)"

# The run means nothing if every call is a 401: the demo key must authenticate first.
"$PY" - "$BASE" "$KEY" <<'EOF'
import sys, urllib.request
base, key = sys.argv[1], sys.argv[2]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
req = urllib.request.Request(base + "/api/v1/usage", headers={"Authorization": "Bearer " + key})
try:
    with opener.open(req, timeout=10) as r:
        assert r.status == 200
except Exception as e:
    sys.exit(f"schemathesis.sh: the demo key read from the stack's banner does not authenticate ({e})")
EOF

# Every generated webhook_url is replaced by the stack's loopback receiver before the call.
cat >"$WORK/hooks.py" <<EOF
import schemathesis

SINK = "http://127.0.0.1:$((PORT + 1))/webhooks"


@schemathesis.hook
def before_call(context, case, kwargs):
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("webhook_url"), str):
        body["webhook_url"] = SINK


# The tenant pages answer HTML; the file describes it as a string holding a whole document.
@schemathesis.deserializer("text/html")
def html(ctx, response):
    text = response.content.decode("utf-8")
    if not text.lstrip().lower().startswith("<!doctype html"):
        raise ValueError("not an HTML document")
    return text
EOF
export SCHEMATHESIS_HOOKS="$WORK/hooks.py"

mkdir -p "$REPORT_DIR"
status=0
timeout --signal=INT --kill-after=30 "$TIMEOUT" "$ST" run "$SPEC" \
    --url "$BASE" \
    --header "Authorization: Bearer $KEY" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
    --phases examples,coverage,fuzzing,stateful \
    --max-examples "$MAX_EXAMPLES" \
    --seed "$SEED" \
    --workers "$WORKERS" \
    --generation-database none \
    --request-timeout 60 \
    --max-redirects 0 \
    --no-color \
    --report junit --report-junit-path "$REPORT_DIR/junit.xml" \
    || status=$?

# What the run cost of the demo account's daily allowance (this request included).
"$PY" - "$BASE" "$KEY" <<'EOF' || true
import json, sys, urllib.request
base, key = sys.argv[1], sys.argv[2]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
req = urllib.request.Request(base + "/api/v1/usage", headers={"Authorization": "Bearer " + key})
try:
    with opener.open(req, timeout=10) as r:
        api = json.load(r)["data"]["api"]
        print(f"schemathesis.sh: demo account API requests used {api['requests_limit'] - api['requests_remaining']} of {api['requests_limit']}")
except Exception as e:  # 429 once the allowance is used up
    print(f"schemathesis.sh: usage not readable after the run ({e})")
EOF

if [[ $status -ne 0 ]]; then
    echo "schemathesis.sh: schemathesis reported failures (exit $status)" >&2
    exit "$status"
fi
echo "schemathesis.sh: no failures"
