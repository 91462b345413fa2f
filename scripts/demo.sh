#!/usr/bin/env bash
# The main job end to end on a fresh machine: install dependencies, build opkit,
# fetch the TF 1.12.0 and 2.10.1 wheels, import both SDKs, scaffold an op,
# build it for both versions and load it into both real frameworks.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bash scripts/setup.sh
bash scripts/build.sh
opkit="$root/${OPKIT_BUILD_DIR:-build}/opkit"

mapfile -t wheels < <(bash scripts/fetch-wheels.sh)
for wheel in "${wheels[@]}"; do
  "$opkit" sdk add "$wheel"
done
"$opkit" sdk list

demo_dir="$root/${OPKIT_BUILD_DIR:-build}/demo"
rm -rf "$demo_dir" && mkdir -p "$demo_dir"
cd "$demo_dir"
"$opkit" new zero_out
cd zero_out
"$opkit" build --tf 1.12,2.10.1
"$opkit" test --tf 1.12,2.10.1
for lib in build/tf-*/libzero_out.so; do
  echo "$lib needs: $(readelf -d "$lib" | sed -n 's/.*NEEDED.*\[\(libtensorflow_framework[^]]*\)\].*/\1/p')"
done
