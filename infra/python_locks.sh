#!/usr/bin/env bash
# Regenerates the hashed Python locks beside the human-edited pins: infra/requirements*.lock from
# infra/requirements*.txt (`make python-locks`). Every install reads a lock with
# `pip install --require-hashes`, so a changed or substituted file on the index fails the install.
# pip-tools runs from a throw-away venv; the venv's lock covers .tools/venv's two inputs together,
# and the tests' lock (a subset of that venv) must pin the same versions.
# Run it with the oldest Python 3 the project supports first on PATH (Debian's 3.11.2 here):
# pip-compile resolves for its own interpreter, and a lock made on a newer one can pin a release
# an older one cannot install (soupsieve 4.1.3 needs 3.11.5).
set -euo pipefail
cd "$(dirname "$0")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check pip-tools==7.6.2

compile() {
    local out="$1"
    shift
    "$work/venv/bin/pip-compile" --quiet --generate-hashes --allow-unsafe --strip-extras \
        --no-emit-index-url --no-emit-find-links --output-file "$out" "$@"
}

compile requirements.lock requirements.txt requirements-openapi.txt &
compile requirements-test.lock requirements-test.txt &
for name in clients sam checkov bench; do
    compile "requirements-$name.lock" "requirements-$name.txt" &
done
wait

# The tests' packages are installed into the same venv as the tools': one version of each.
python3 - <<'PY'
import re, sys
def pins(path):
    return dict(re.findall(r"^([A-Za-z0-9_.-]+)==([^ \\\n]+)", open(path).read(), re.M))
tools, tests = pins("requirements.lock"), pins("requirements-test.lock")
apart = {name: (v, tools.get(name)) for name, v in tests.items() if tools.get(name) != v}
if apart:
    sys.exit("requirements-test.lock and requirements.lock disagree: %s" % apart)
PY
