#!/usr/bin/env bash
# Runs clang-tidy (the checks in .clang-tidy) over opkit's sources, using the
# compile commands of ${OPKIT_BUILD_DIR:-build} (run scripts/build.sh first).
# Usage: scripts/tidy.sh [FILE...]   (default: every src/**/*.cpp)
# Exits 1 when any check reports. It costs about 25 CPU-seconds per file
# (clang parses CLI11, fmt and nlohmann-json for each), so it is not part of
# scripts/test.sh; run it before sending a change, with -j from $OPKIT_TIDY_JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${OPKIT_BUILD_DIR:-build}
command -v clang-tidy >/dev/null || { echo "tidy: clang-tidy is missing; scripts/setup.sh installs it" >&2; exit 3; }
[ -f "$build_dir/compile_commands.json" ] || { echo "tidy: no $build_dir/compile_commands.json; run scripts/build.sh" >&2; exit 3; }
if [ $# -eq 0 ]; then
  mapfile -t files < <(git ls-files 'src/*.cpp')
else
  files=("$@")
fi
printf '%s\n' "${files[@]}" |
  xargs -P "${OPKIT_TIDY_JOBS:-$(nproc)}" -n 1 clang-tidy -p "$build_dir" --quiet 2>/dev/null
