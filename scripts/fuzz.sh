#!/usr/bin/env bash
# Fuzzes every libFuzzer target of opkit (tests/fuzz/targets.cmake) for a
# given time each, and prints one Markdown table row per target: executions,
# coverage (libFuzzer's edges "cov" and features "ft"), corpus size, peak
# memory and the result. The README's reliability section quotes its output.
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [NAME...]
#
# --seconds  per target (default 60; the acceptance run is 3600: one CPU-hour
#            each, as each fuzzer is one process)
# --jobs     targets fuzzed at once (default: nproc)
# NAME       only these targets (default: all)
#
# Builds ${OPKIT_FUZZ_BUILD_DIR:-build-fuzz} with clang++ (OPKIT_FUZZ=ON:
# the whole core instrumented, tests/fuzz/libfuzzer.cmake), fuzzes a copy of
# each seed corpus in <build>/runs/<name>/, and exits 1 when any target found
# a crash, leak, timeout (-timeout=10 s per input) or out-of-memory
# (-rss_limit_mb=2048); the reproducers are in <build>/runs/<name>/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60 jobs=$(nproc) names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
build_dir=${OPKIT_FUZZ_BUILD_DIR:-build-fuzz}
clangxx=$(command -v clang++ || command -v clang++-14 || true)
[ -n "$clangxx" ] || { echo "fuzz.sh: clang++ is missing; scripts/setup.sh installs clang and libclang-rt-14-dev" >&2; exit 3; }

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$clangxx" \
  -DOPKIT_FUZZ=ON -DOPKIT_BUILD_TESTS=OFF "${launcher[@]}" >&2
cmake --build "$build_dir" --target opkit_fuzzers >&2

# One target: fuzz a fresh copy of its corpus, then print its table row.
fuzz_one() {
  local name=$1 binary=$2 corpus=$3 seconds=$4 run=$5/runs/$1
  rm -rf "$run" && mkdir -p "$run/corpus" "$run/artifacts"
  cp -R "$corpus"/. "$run/corpus"/
  local status=0
  "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$run/artifacts/" "$run/corpus" >"$run/log" 2>&1 || status=$?
  local execs cov ft rss result
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$run/log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$run/log" | tail -1 | cut -d' ' -f2)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$run/log" | tail -1)
  if [ "$status" -eq 0 ] && [ -z "$(ls -A "$run/artifacts")" ]; then
    result="0 findings"
  else
    result="FOUND (exit $status): $(ls "$run/artifacts" | tr '\n' ' ')"
  fi
  printf '| %s | %s | %s | %s | %s | %s | %s MB | %s |\n' "$name" "$seconds" "${execs:-?}" "${cov:-?}" \
    "${ft:-?}" "$(ls "$run/corpus" | wc -l)" "${rss:-?}" "$result"
}
export -f fuzz_one

mapfile -t listing <"$build_dir/fuzzers.txt"
selected=()
for line in "${listing[@]}"; do
  read -r name binary corpus <<<"$line"
  if [ ${#names[@]} -eq 0 ] || printf '%s\n' "${names[@]}" | grep -qx "$name"; then
    selected+=("$name $binary $corpus")
  fi
done
[ ${#selected[@]} -gt 0 ] || { echo "fuzz.sh: no such target: ${names[*]} (known: $(cut -d' ' -f1 "$build_dir/fuzzers.txt" | tr '\n' ' '))" >&2; exit 2; }

echo "fuzz.sh: ${#selected[@]} targets, ${seconds} s each, $jobs at once; logs in $build_dir/runs/" >&2
echo "Fuzzed on $(date -u +%Y-%m-%d) with $("$clangxx" --version | head -1):"
echo
echo '| target | seconds | executions | cov (edges) | ft (features) | corpus | peak RSS | result |'
echo '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |'
rows=$(printf '%s\n' "${selected[@]}" |
  xargs -P "$jobs" -L 1 bash -c 'fuzz_one "$0" "$1" "$2" '"$seconds"' '"$(realpath "$build_dir")")
echo "$rows" | sort
if grep -q FOUND <<<"$rows"; then
  exit 1
fi
