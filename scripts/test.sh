#!/usr/bin/env bash
# The whole test suite on a fresh machine: dependencies, build, then CTest
# (unit tests, and integration tests against the real TF 1.12.0 and 2.10.1 wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# What the tests download or make once per machine (the wheels, the Debian 11
# root, the venvs of EasyRec and of this machine's TF) waits on the network
# more than on the CPU: on a fresh machine it is made while opkit compiles.
# Each script locks what it makes, so the tests' own calls wait for these and
# then find them made; a failure here is left to those tests, which name the
# step. With warm caches each returns at once.
mkdir -p "${OPKIT_BUILD_DIR:-build}"
prefetch_log="$(cd "${OPKIT_BUILD_DIR:-build}" && pwd)/prefetch.log"
(
  bash scripts/fetch-wheels.sh >/dev/null &&
    { bash scripts/python-tf-env.sh >/dev/null & bash scripts/easyrec-env.sh >/dev/null & wait; }
) >"$prefetch_log.wheels" 2>&1 &
wheels=$!
bash scripts/debian11-root.sh >/dev/null 2>"$prefetch_log.root" &
root=$!
bash scripts/build.sh
for job in "$wheels" "$root"; do
  wait "$job" || echo "test.sh: a prefetch step failed (the tests that need it will say why; logs: $prefetch_log.*)" >&2
done
cd "${OPKIT_BUILD_DIR:-build}"
# The release matrix (ctest -L matrix) is its own tier: left out unless asked for.
if [ $# -eq 0 ]; then
  set -- -LE matrix
fi
ctest --output-on-failure -j "$(nproc)" "$@"
