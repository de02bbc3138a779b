#!/usr/bin/env bash
# SAM for the Tenant Income Verification Service: build, deploy and validate template.yaml.
#
#   infra/sam.sh build    [--config-env ENV] [sam build args...]    release bootstrap of every function
#   infra/sam.sh deploy   [--config-env ENV] [sam deploy args...]   guided the first time for ENV
#   infra/sam.sh validate                                            sam validate --lint, cfn-lint, transform + cfn-lint
#   infra/sam.sh tools                                               install aws-sam-cli only
#
# Installs what it needs, pinned and only when missing: aws-sam-cli in its own venv
# (.tools/sam-venv, from infra/requirements-sam.lock: it pins an older boto3 than moto wants), and
# cargo-lambda + zig + cfn-lint in .tools/venv (infra/requirements.lock, shared with `make tools`).
# Settings per environment (stage) live in infra/samconfig.toml; see docs/deploy.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TOOLS="$ROOT/.tools"
VENV="$TOOLS/venv"
SAM_VENV="$TOOLS/sam-venv"
SAM="$SAM_VENV/bin/sam"
CONFIG="infra/samconfig.toml"
TEMPLATE="template.yaml"
BUILD_DIR=".aws-sam/build"

export SAM_CLI_TELEMETRY=0
export AWS_EC2_METADATA_DISABLED=true
# `cargo lambda` (and the zig it drives, found through this venv's python) for rust-cargolambda.
export PATH="$VENV/bin:$PATH"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Installs the hashed lock $2 into venv $1 unless it is there already (stamp newer than the lock).
ensure_venv() {
    local venv="$1" lock="$2" stamp="$1/.installed"
    if [[ -x "$venv/bin/python" && -f "$stamp" && "$stamp" -nt "$lock" ]]; then
        return
    fi
    say "installing ${lock#infra/} (hashed) into ${venv#"$ROOT/"}"
    [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
        --no-deps -r "$lock"
    touch "$stamp"
}

ensure_sam() { ensure_venv "$SAM_VENV" infra/requirements-sam.lock; }
ensure_tools() { ensure_venv "$VENV" infra/requirements.lock; }

# Reads `[ENV.deploy.parameters]` of infra/samconfig.toml: prints KEY's value, or nothing.
config_value() {
    local env="$1" key="$2"
    "$SAM_VENV/bin/python" - "$CONFIG" "$env" "$key" <<'PY'
import re, sys, tomllib
path, env, key = sys.argv[1:]
with open(path, "rb") as f:
    conf = tomllib.load(f)
params = conf.get(env, {}).get("deploy", {}).get("parameters", {})
if key == "Architecture":
    overrides = params.get("parameter_overrides", "")
    if isinstance(overrides, list):
        overrides = " ".join(overrides)
    m = re.search(r'Architecture=\\?"?(arm64|x86_64)', overrides)
    print(m.group(1) if m else "")
else:
    print(params.get(key, ""))
PY
}

# Splits `--config-env ENV` off the arguments: sets CONFIG_ENV and ARGS.
parse_env() {
    CONFIG_ENV="default"
    ARGS=()
    while (($#)); do
        case "$1" in
            --config-env) CONFIG_ENV="$2"; shift 2 ;;
            --config-env=*) CONFIG_ENV="${1#*=}"; shift ;;
            *) ARGS+=("$1"); shift ;;
        esac
    done
}

# The Makefile points every AWS SDK at a dead loopback endpoint with dummy keys so that nothing
# local reaches AWS. A deploy must use the real credential chain (profile, SSO, env keys).
real_aws_env() {
    if [[ "${AWS_ENDPOINT_URL:-}" =~ ^https?://(127\.|localhost|\[::1\]) ]]; then
        unset AWS_ENDPOINT_URL
    fi
    if [[ "${AWS_ACCESS_KEY_ID:-}" == "testing" && "${AWS_SECRET_ACCESS_KEY:-}" == "testing" ]]; then
        unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
    fi
    unset AWS_EC2_METADATA_DISABLED
}

cmd_build() {
    parse_env "$@"
    ensure_sam
    ensure_tools
    command -v cargo >/dev/null || { echo "cargo not found: install Rust (rustup)" >&2; exit 1; }
    # SAM runs `cargo lambda build` without --locked: check here that Cargo.lock needs no change.
    cargo metadata --locked --quiet --format-version 1 >/dev/null
    # Build for the architecture the environment deploys (a mismatch would not start on Lambda).
    local arch overrides=()
    arch="$(config_value "$CONFIG_ENV" Architecture)"
    if [[ -n "$arch" ]]; then
        overrides=(--parameter-overrides "Architecture=$arch")
    fi
    say "sam build ($CONFIG_ENV, ${arch:-x86_64}): every function, release, cargo lambda"
    local start=$SECONDS
    "$SAM" build --template-file "$TEMPLATE" --build-dir "$BUILD_DIR" \
        --config-file "$CONFIG" --config-env "$CONFIG_ENV" "${overrides[@]}" "${ARGS[@]}"
    say "built in $((SECONDS - start)) s"
    # Every function of the template has its bootstrap.
    local missing=0 function
    for function in $(template_functions); do
        if [[ -x "$BUILD_DIR/$function/bootstrap" ]]; then
            ls -l "$BUILD_DIR/$function/bootstrap" >&2
        else
            echo "missing: $BUILD_DIR/$function/bootstrap" >&2
            missing=1
        fi
    done
    return "$missing"
}

# Logical ids of the template's AWS::Serverless::Function resources.
template_functions() {
    "$SAM_VENV/bin/python" - "$TEMPLATE" <<'PY'
import sys
from samtranslator.yaml_helper import yaml_parse
resources = yaml_parse(open(sys.argv[1]).read())["Resources"]
print(" ".join(k for k, v in resources.items() if v.get("Type") == "AWS::Serverless::Function"))
PY
}

cmd_deploy() {
    parse_env "$@"
    ensure_sam
    real_aws_env
    if [[ ! -f "$BUILD_DIR/template.yaml" ]]; then
        echo "no $BUILD_DIR/template.yaml: run 'infra/sam.sh build' (make build) first" >&2
        exit 1
    fi
    local common=(--template-file "$BUILD_DIR/template.yaml" --config-file "$CONFIG" --config-env "$CONFIG_ENV")
    if [[ -z "$(config_value "$CONFIG_ENV" stack_name)" ]]; then
        say "no stack for '$CONFIG_ENV' in $CONFIG yet: guided deploy (answers are saved there)"
        "$SAM" deploy --guided "${common[@]}" "${ARGS[@]}"
    else
        "$SAM" deploy "${common[@]}" "${ARGS[@]}"
    fi
}

# cfn-lint checks SAM resources against its own schema but does not run the SAM transform. This
# runs it offline (no AWS call: managed policy ARNs are stubbed, CodeUri stands in for the S3
# upload) and lints the CloudFormation that AWS would receive.
transform_and_lint() {
    local out
    out="$(mktemp -d)/transformed.json"
    AWS_DEFAULT_REGION="$AWS_REGION" "$SAM_VENV/bin/python" - "$TEMPLATE" "$out" <<'PY'
import json, sys
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

class StubPolicies:
    def load(self):
        names = ["AWSLambdaBasicExecutionRole", "AWSXrayWriteOnlyAccess",
                 "AWSLambdaDynamoDBExecutionRole", "AWSLambdaSQSQueueExecutionRole"]
        return {n: f"arn:aws:iam::aws:policy/service-role/{n}" for n in names}

template = yaml_parse(open(sys.argv[1]).read())
for resource in template["Resources"].values():
    if resource.get("Type") == "AWS::Serverless::Function":
        resource["Properties"]["CodeUri"] = "s3://bucket/key"
out = transform(template, {}, StubPolicies())
with open(sys.argv[2], "w") as f:
    json.dump(out, f, indent=1)
print(f"{len(out['Resources'])} CloudFormation resources")
PY
    "$VENV/bin/cfn-lint" "$out"
}

cmd_validate() {
    ensure_sam
    ensure_tools
    export AWS_REGION="${AWS_REGION:-us-east-1}"
    # Offline: nothing here may reach AWS (a stray call fails fast on a dead loopback port).
    export AWS_ENDPOINT_URL="http://127.0.0.1:1"
    export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-testing}" AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-testing}"
    say "sam validate --lint"
    "$SAM" validate --lint --template-file "$TEMPLATE" --region "$AWS_REGION"
    say "cfn-lint $TEMPLATE"
    "$VENV/bin/cfn-lint" "$TEMPLATE"
    say "cfn-lint infra/edge-waf.yaml (the edge's web ACL outside us-east-1)"
    "$VENV/bin/cfn-lint" infra/edge-waf.yaml
    say "SAM transform (offline), then cfn-lint of its output"
    transform_and_lint
    say "template valid"
}

main() {
    case "${1:-}" in
        build) shift; cmd_build "$@" ;;
        deploy) shift; cmd_deploy "$@" ;;
        validate) shift; cmd_validate "$@" ;;
        tools) ensure_sam ;;
        *)
            sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
            return 2
            ;;
    esac
}

# One line: bash has read all of it before running, so editing this file meanwhile is harmless.
main "$@"; exit $?
