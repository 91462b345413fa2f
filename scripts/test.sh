#!/usr/bin/env bash
# The whole test suite on a fresh machine: dependencies, build, then CTest
# (unit tests, and integration tests against the real TF 1.12.0 and 2.10.1 wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
cd "${OPKIT_BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" "$@"
