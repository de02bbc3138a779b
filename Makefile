# Two commands matter: `make dev` (the whole service locally) and `make test` (every test).
# Each installs what it needs, pinned, into .tools/ (git-ignored) and is safe to run twice.

SHELL := /bin/bash
TOOLS := $(CURDIR)/.tools
VENV := $(TOOLS)/venv
PY := $(VENV)/bin/python

# Every process started from here talks to loopback only: dummy credentials, no metadata probe,
# and an endpoint that fails fast unless a tool points it at the local emulator.
export AWS_REGION := us-east-1
export AWS_DEFAULT_REGION := us-east-1
export AWS_ACCESS_KEY_ID := testing
export AWS_SECRET_ACCESS_KEY := testing
export AWS_EC2_METADATA_DISABLED := true
export AWS_ENDPOINT_URL := http://127.0.0.1:1
export SAM_CLI_TELEMETRY := 0
export MOTO_PYTHON := $(PY)
# The integration tests spend most of their time waiting for moto and the local functions: six
# test threads keep both cores of a small machine busy where the default (one per core) left them
# idle half the time.
export RUST_TEST_THREADS ?= 6
export PATH := $(VENV)/bin:$(PATH)

.PHONY: deny python-locks dev dev-plaid dev-live dev-reminders test test-tools checkov-tools system-packages tools bench-tools clients-tools clients clients-check lint fmt clean bench build deploy validate schemathesis checkov

# Every Python tool installs from a lock with hashes (infra/requirements*.lock, made from the
# pins in infra/requirements*.txt by `make python-locks`): a changed file on the index fails.
PIP_INSTALL := -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps

$(VENV)/.installed: infra/requirements.lock
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) $(PIP_INSTALL) -r infra/requirements.lock
	touch $@

# What the tests need of it (infra/requirements-test.lock, a subset of infra/requirements.lock): moto,
# standardwebhooks and the OpenAPI validator, without cfn-lint, cargo-lambda/zig or schemathesis.
$(VENV)/.test-installed: infra/requirements-test.lock
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) $(PIP_INSTALL) -r infra/requirements-test.lock
	touch $@

## tools: install the pinned Python tools (moto, cfn-lint, cargo-lambda, standardwebhooks, schemathesis)
tools: $(VENV)/.installed

## clients-tools: the clients' generators and test tools, pinned: .tools/clients-venv
## (infra/requirements-clients.txt) and .tools/node (clients/typescript/package-lock.json)
CLIENTS_VENV := $(TOOLS)/clients-venv
NODE_TOOLS := $(TOOLS)/node

$(CLIENTS_VENV)/.installed: infra/requirements-clients.lock
	test -x $(CLIENTS_VENV)/bin/python || python3 -m venv $(CLIENTS_VENV)
	$(CLIENTS_VENV)/bin/python $(PIP_INSTALL) -r infra/requirements-clients.lock
	touch $@

$(NODE_TOOLS)/.installed: clients/typescript/package.json clients/typescript/package-lock.json
	mkdir -p $(NODE_TOOLS)
	cp clients/typescript/package.json clients/typescript/package-lock.json $(NODE_TOOLS)/
	cd $(NODE_TOOLS) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

clients-tools: $(CLIENTS_VENV)/.installed $(NODE_TOOLS)/.installed

## clients: regenerate clients/python and clients/typescript from infra/openapi.yaml (fails on a
## generator warning); clients-check: the same, then fails on any difference under clients/ (CI)
clients: clients-tools
	bash infra/clients.sh generate

clients-check: clients-tools
	bash infra/clients.sh check

## dev: run the whole service locally against moto; prints the URL, a demo key and a curl example
dev: tools
	cargo run --locked --quiet -p devstack --bin devstack

## dev-plaid: the same, with live keys served by Plaid Check at the local Plaid emulator
dev-plaid: tools
	DEV_LIVE_PROVIDER=plaid cargo run --locked --quiet -p devstack --bin devstack

## dev-live: the same, with live keys routed bank then payroll: Plaid Check, then Argyle, at their emulators
dev-live: tools
	DEV_LIVE_PROVIDER=plaid,argyle cargo run --locked --quiet -p devstack --bin devstack

## dev-reminders: the same, with 10-minute links whose two reminders fire 7 and 3 minutes before expiry
dev-reminders: tools
	DEV_LINK_LIFETIME_SECONDS=600 DEV_REMINDER_OFFSETS_SECONDS=420,180 cargo run --locked --quiet -p devstack --bin devstack

## test: unit, adapter (moto), sample-event and end-to-end tests, then the clients' tests against a
## fresh local stack (both run; either failing fails the target). The workspace compiles in the
## background while test-tools installs; the clients' stack reuses the devstack binary it built.
test:
	@cargo test --locked --workspace --no-run --quiet & build=$$!; \
		$(MAKE) --no-print-directory -j3 test-tools; tools=$$?; \
		wait $$build; built=$$?; \
		[ $$tools -eq 0 ] || exit $$tools; \
		[ $$built -eq 0 ] && export STACK_BUILD=off; \
		status=0; cargo test --locked --workspace --no-fail-fast || status=$$?; \
		bash infra/clients.sh test || status=1; exit $$status

## test-tools: what `make test` needs, pinned: the tests' part of .tools/venv, the clients' tools,
## Chromium and ChromeDriver (unless SKIP_BROWSER_TESTS=1) and poppler-utils
test-tools: $(VENV)/.test-installed clients-tools system-packages

system-packages:
	@[ "$$SKIP_BROWSER_TESTS" = 1 ] || infra/install_chromium.sh
	@infra/install_poppler.sh

## lint: formatting, clippy, the CloudFormation linter and the prose check (CONTRIBUTING.md)
lint: tools
	cargo fmt --all -- --check
	cargo clippy --locked --workspace --all-targets -- -D warnings
	$(VENV)/bin/cfn-lint template.yaml
	python3 infra/check_docs.py

## deny: cargo-deny (pinned, .tools/cargo-deny) over Cargo.lock with deny.toml: licenses, bans, sources,
## and advisories when the RustSec database can be fetched (the last line says whether it was)
deny:
	bash infra/deny.sh

## schemathesis: fuzz the local stack against infra/openapi.yaml (bounded, loopback only)
schemathesis: tools
	bash infra/schemathesis.sh

## bench-tools: the document analysis's Python peer, pinned: .tools/bench-venv (infra/requirements-bench.txt)
BENCH_VENV := $(TOOLS)/bench-venv

$(BENCH_VENV)/.installed: infra/requirements-bench.lock
	test -x $(BENCH_VENV)/bin/python || python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python $(PIP_INSTALL) -r infra/requirements-bench.lock
	touch $@

bench-tools: $(BENCH_VENV)/.installed

## bench: release binaries, cold init vs a Python peer, RSS, sizes, DynamoDB round trips, list cost, webhook fan-out,
## a two-page pay stub's analysis vs a Python peer (pdfplumber, pikepdf)
bench: tools bench-tools
	bash infra/bench/run.sh

## build: `sam build` (release bootstrap of every function, x86_64); deploy: `sam deploy` (guided the first time)
ENV ?= default

build:
	bash infra/sam.sh build --config-env $(ENV)

# Deploying uses real AWS credentials (profile/SSO): drop the local-only dummies exported above.
deploy:
	env -u AWS_ENDPOINT_URL -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_REGION -u AWS_DEFAULT_REGION -u AWS_EC2_METADATA_DISABLED bash infra/sam.sh deploy --config-env $(ENV)

## checkov: policy scan of template.yaml (CloudFormation checks, offline); fails on any finding.
## Findings that do not apply are skipped in the template itself (Metadata: checkov: skip) with a reason.
CHECKOV_VENV ?= $(TOOLS)/checkov-venv

$(CHECKOV_VENV)/.installed: infra/requirements-checkov.lock
	test -x $(CHECKOV_VENV)/bin/python || python3 -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python $(PIP_INSTALL) -r infra/requirements-checkov.lock
	touch $@

checkov-tools: $(CHECKOV_VENV)/.installed

# BC_SKIP_MAPPING and --skip-download: no call to the vendor's platform (offline, no telemetry).
checkov: $(CHECKOV_VENV)/.installed
	BC_SKIP_MAPPING=TRUE $(CHECKOV_VENV)/bin/checkov --file template.yaml --file infra/edge-waf.yaml \
		--framework cloudformation --quiet --compact --skip-download
	@# checkov drops a resource whose condition is false under the defaults: the edge's exist
	@# only with EdgeProtection cloudfront, so a copy with that default is checked as well.
	@mkdir -p target
	perl -0pe 's/(  EdgeProtection:\n    Type: String\n    Default: )none/$${1}cloudfront/ or die' \
		template.yaml >target/template-edge.yaml
	BC_SKIP_MAPPING=TRUE $(CHECKOV_VENV)/bin/checkov --file target/template-edge.yaml \
		--framework cloudformation --quiet --compact --skip-download

## validate: sam validate --lint and cfn-lint (offline)
validate:
	bash infra/sam.sh validate

## python-locks: regenerate infra/requirements*.lock (hashes) after changing a pin in infra/requirements*.txt
python-locks:
	bash infra/python_locks.sh

fmt:
	cargo fmt --all

clean:
	rm -rf $(TOOLS) target .aws-sam
