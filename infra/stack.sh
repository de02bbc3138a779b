#!/usr/bin/env bash
# Runs a command against a fresh local stack, then stops the stack, whatever happens.
#
# Builds the devstack binary, starts it (moto + the API + the tenant page + pumps + webhook
# receiver) on free loopback ports, waits for its banner, checks that the demo test key
# authenticates, and runs COMMAND with:
#   TIV_BASE_URL        the API's base URL (http://127.0.0.1:<port>; paths begin with /api/v1)
#   TIV_API_KEY         the demo account's test key
#   TIV_RECEIVER_URL    the stack's own webhook receiver (`make dev`'s demo receiver)
#   TIV_HOOK_PORT       a loopback port the stack may also deliver webhooks to (LOCAL_WEBHOOK_ORIGINS),
#                       free for COMMAND's own receiver
#   TIV_WEBHOOK_SECRET  the demo account's `whsec_` secret (COMMAND must not print it)
#   TIV_STACK_LOG       the stack's log (stderr, JSON lines)
# The stack is new on every run (moto starts empty), so a run is safe to repeat.
# Nothing leaves 127.0.0.1: where the kernel allows it (root, `unshare` and `ip` present) the stack
# and COMMAND run in a fresh network namespace that has only a loopback interface. Install what
# COMMAND needs before (the namespace reaches no registry).
#
# Usage: bash infra/stack.sh COMMAND [ARGS...]   (needs `make tools`)
# Env:   STACK_NETNS=off (skip the namespace), STACK_REPORT_DIR (default target/stack: the stack's
#        logs are copied there when COMMAND fails), STACK_NAME (prefix of the messages),
#        DEV_DEMO_PLAN and PLANS (the demo account's plan, see `devstack --help`),
#        STACK_BUILD=off (use the devstack binary the caller just built, e.g. `make test`'s
#        `cargo test --workspace`, instead of checking it again with `cargo build -p devstack`),
#        CARGO_TARGET_DIR, MOTO_PYTHON, VENV.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

VENV="${VENV:-$ROOT/.tools/venv}"
PY="$VENV/bin/python"
NAME="${STACK_NAME:-stack.sh}"
REPORT_DIR="${STACK_REPORT_DIR:-$ROOT/target/stack}"

if [[ $# -eq 0 ]]; then
    echo "usage: bash infra/stack.sh COMMAND [ARGS...]" >&2
    exit 2
fi

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
export PYTHONDONTWRITEBYTECODE=1

if [[ -z "${TIV_STACK_INNER:-}" ]]; then
    if [[ ! -x "$PY" ]]; then
        echo "$NAME: $PY not found: run \`make tools\`" >&2
        exit 2
    fi
    # Build outside the namespace (cargo may need its registry).
    if [[ "${STACK_BUILD:-on}" != "off" || ! -x "${CARGO_TARGET_DIR:-$ROOT/target}/debug/devstack" ]]; then
        cargo build --locked --quiet -p devstack --bin devstack
    fi
    export TIV_STACK_INNER=1
    if [[ "${STACK_NETNS:-auto}" != "off" ]] && command -v unshare >/dev/null && command -v ip >/dev/null \
        && unshare -n true 2>/dev/null; then
        echo "$NAME: running in a private network namespace (loopback only)"
        exec unshare -n -- bash -c 'ip link set lo up && exec bash "$0" "$@"' "$ROOT/infra/stack.sh" "$@"
    fi
    echo "$NAME: no private network namespace here; every URL is a loopback one"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tiv-stack.XXXXXX")"
STACK_PID=""
DRAIN_PID=""
cleanup() {
    local rc=$?
    if [[ -n "$STACK_PID" ]] && kill -0 "$STACK_PID" 2>/dev/null; then
        # Ctrl-C is the stack's own way to stop (it drops moto); wait for it to exit, and insist
        # (SIGKILL) only if it has not within 10 s.
        kill -INT "$STACK_PID" 2>/dev/null || true
        (sleep 10 && kill -KILL "$STACK_PID" 2>/dev/null) &
        local insist=$!
        wait "$STACK_PID" 2>/dev/null || true
        kill "$insist" 2>/dev/null || true
        wait "$insist" 2>/dev/null || true
    fi
    if [[ -n "$DRAIN_PID" ]]; then
        wait "$DRAIN_PID" 2>/dev/null || true
    fi
    if [[ $rc -ne 0 && -f "$WORK/stack.err" ]]; then
        mkdir -p "$REPORT_DIR"
        cp "$WORK/stack.err" "$REPORT_DIR/" 2>/dev/null || true
        echo "--- last lines of the stack's log (all of it in $REPORT_DIR/stack.err) ---" >&2
        tail -n 5 "$WORK/stack.err" >&2 || true
    fi
    rm -rf "$WORK"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Free loopback ports: the API on P (its webhook receiver takes P+1), moto on M, and H for
# COMMAND's own webhook receiver.
read -r PORT MOTO_PORT HOOK_PORT < <("$PY" - <<'EOF'
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
taken = {api, api + 1}
others = []
while len(others) < 2:
    p = free()
    if p not in taken:
        taken.add(p); others.append(p)
print(api, *others)
EOF
)

# The stack's stdout goes through a FIFO: its banner is read line by line as it is printed (no
# polling of a file), then the rest is drained into stack.out so the stack never blocks on it.
mkfifo "$WORK/stack.fifo"
LOCAL_WEBHOOK_ORIGINS="http://127.0.0.1:$HOOK_PORT" \
    "${CARGO_TARGET_DIR:-$ROOT/target}/debug/devstack" --port "$PORT" --moto-port "$MOTO_PORT" \
    >"$WORK/stack.fifo" 2>"$WORK/stack.err" </dev/null &
STACK_PID=$!
exec 3<"$WORK/stack.fifo"

# Ready when it prints its banner (after moto, the tables, the demo account and the server): the
# key's line, then the receiver's; within 120 s. End of file first means the stack exited.
KEY="" RECEIVER="" SECRET=""
DEADLINE=$((SECONDS + 120))
while [[ -z "$RECEIVER" ]]; do
    left=$((DEADLINE - SECONDS))
    if ((left <= 0)); then
        echo "$NAME: the local stack did not start within 120 s" >&2
        exit 1
    fi
    if ! IFS= read -r -t "$left" line <&3; then
        if ((SECONDS >= DEADLINE)); then
            echo "$NAME: the local stack did not start within 120 s" >&2
        else
            echo "$NAME: the local stack exited early" >&2
            tail -n 20 "$WORK/stack.err" >&2 || true
        fi
        exit 1
    fi
    printf '%s\n' "$line" >>"$WORK/stack.out"
    if [[ -z "$KEY" && "$line" =~ ^\ *demo\ API\ key\ *:\ *(tiv_test_[A-Za-z0-9_]*) ]]; then
        KEY="${BASH_REMATCH[1]}"
    elif [[ "$line" =~ ^\ *webhook\ receiver\ *:\ *(http:[^ ]*)\ .*\(secret\ (whsec_[A-Za-z0-9+/=]*)\) ]]; then
        RECEIVER="${BASH_REMATCH[1]}" SECRET="${BASH_REMATCH[2]}"
    fi
done
cat <&3 >>"$WORK/stack.out" &
DRAIN_PID=$!
exec 3<&-
if [[ -z "$KEY" || -z "$RECEIVER" || -z "$SECRET" ]]; then
    echo "$NAME: the stack's banner names no demo key, webhook receiver or secret" >&2
    exit 1
fi
BASE="http://127.0.0.1:$PORT"
echo "$NAME: local stack at $BASE (moto on $MOTO_PORT)"

# Nothing run against the stack means anything if every call is a 401.
"$PY" - "$BASE" "$KEY" <<'EOF'
import sys, urllib.request
base, key = sys.argv[1], sys.argv[2]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
req = urllib.request.Request(base + "/api/v1/usage", headers={"Authorization": "Bearer " + key})
try:
    with opener.open(req, timeout=10) as r:
        assert r.status == 200
except Exception as e:
    sys.exit(f"the demo key read from the stack's banner does not authenticate ({e})")
EOF

status=0
TIV_BASE_URL="$BASE" TIV_API_KEY="$KEY" TIV_RECEIVER_URL="$RECEIVER" TIV_HOOK_PORT="$HOOK_PORT" \
    TIV_WEBHOOK_SECRET="$SECRET" TIV_STACK_LOG="$WORK/stack.err" "$@" || status=$?
exit "$status"
