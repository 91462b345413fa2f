#!/usr/bin/env bash
# Configures and builds opkit (and its tests) into ${OPKIT_BUILD_DIR:-build}.
# With ccache installed, compiles go through it, keyed by paths relative to the
# checkout, so a second clone (a CI run, a worktree) reuses the first's objects.
# OPKIT_BUILD_TARGETS (e.g. "opkit") builds only those targets: the demo needs
# the binary, not the sanitized twin, the unit tests or the fuzz replays.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${OPKIT_BUILD_DIR:-build}
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "$@" >&2
targets=()
for target in ${OPKIT_BUILD_TARGETS:-}; do
  targets+=(--target "$target")
done
cmake --build "$build_dir" "${targets[@]}" >&2
