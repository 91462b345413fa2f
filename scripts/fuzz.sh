#!/usr/bin/env bash
# Fuzzes every libFuzzer target of opkit (tests/fuzz/targets.cmake) for a
# given time each, and prints one Markdown table row per target: executions,
# coverage (libFuzzer's edges "cov" and features "ft"), corpus size, peak
# memory and the result. docs/reliability.md quotes its output.
#
#   scripts/fuzz.sh [--seconds N | --cpu-seconds N [--resume]] [--jobs J] [NAME...]
#
# --seconds      per target, one round of N seconds wall clock (default 60)
# --cpu-seconds  per target, rounds on the same growing corpus until the
#                fuzzer has had N CPU-seconds (user + system): the acceptance
#                run is --cpu-seconds 3600, one CPU-hour each, whatever else
#                the machine does meanwhile
# --resume       go on from the corpus and rounds an earlier run left in
#                <build>/runs/<name>/ (its CPU time counts)
# --jobs         targets fuzzed at once (default: nproc)
# OPKIT_FUZZ_NICE  niceness of the fuzzers (default 0), to fuzz beside other work
# OPKIT_FUZZ_TMPDIR  where the fuzzers write their files (default /dev/shm when
#                it is a writable folder, else $TMPDIR): package_verify and
#                wheel_import write each input to a file and rename it over
#                the last; on ext4 that flushes it, and package_verify spent
#                44% of its CPU in the kernel and a third of its time waiting
# NAME           only these targets (default: all)
#
# Builds ${OPKIT_FUZZ_BUILD_DIR:-build-fuzz} with clang++ (OPKIT_FUZZ=ON:
# the whole core instrumented, tests/fuzz/libfuzzer.cmake), fuzzes a copy of
# each seed corpus in <build>/runs/<name>/, and exits 1 when any target found
# a crash, leak, timeout (-timeout=10 s per input) or out-of-memory
# (-rss_limit_mb=2048); the reproducers are in <build>/runs/<name>/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60 cpu_goal=0 resume=0 jobs=$(nproc) names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --cpu-seconds) cpu_goal=$2; shift 2 ;;
    --resume) resume=1; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
build_dir=${OPKIT_FUZZ_BUILD_DIR:-build-fuzz}
if [ -n "${OPKIT_FUZZ_TMPDIR:-}" ]; then
  export TMPDIR=$OPKIT_FUZZ_TMPDIR
elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
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

# One target: fuzz a fresh copy of its corpus (or, with --resume, the corpus
# an earlier run grew) in rounds until it has had its CPU time, then print its
# table row. runs/<name>/rounds keeps one line per round: CPU seconds,
# executions, exit status.
fuzz_one() {
  local name=$1 binary=$2 corpus=$3 seconds=$4 cpu_goal=$5 resume=$6 run=$7/runs/$1
  if [ "$resume" != 1 ] || [ ! -f "$run/rounds" ]; then
    rm -rf "$run" && mkdir -p "$run/corpus" "$run/artifacts"
    cp -R "$corpus"/. "$run/corpus"/
    : >"$run/rounds"
  fi
  local status=0 used=0 limit
  used=$(awk '{ s += $1 } END { printf "%.0f", s }' "$run/rounds")
  while :; do
    limit=$seconds
    if [ "$cpu_goal" -gt 0 ]; then
      [ "$used" -lt "$cpu_goal" ] || break
      limit=$((cpu_goal - used)); [ "$limit" -ge 60 ] || limit=60
    fi
    status=0
    /usr/bin/time -f '%U %S' -o "$run/cpu" nice -n "${OPKIT_FUZZ_NICE:-0}" "$binary" -max_total_time="$limit" \
      -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$run/artifacts/" "$run/corpus" \
      >"$run/log" 2>&1 || status=$?
    printf '%s %s %s\n' "$(awk 'END { printf "%.0f", $1 + $2 }' "$run/cpu")" \
      "$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log" | tail -1)" "$status" >>"$run/rounds"
    used=$(awk '{ s += $1 } END { printf "%.0f", s }' "$run/rounds")
    [ "$cpu_goal" -gt 0 ] && [ "$status" -eq 0 ] && [ -z "$(ls -A "$run/artifacts")" ] || break
  done
  local execs cov ft rss result cpu rounds
  cpu=$used
  rounds=$(wc -l <"$run/rounds")
  execs=$(awk '{ s += $2 } END { printf "%.0f", s }' "$run/rounds")
  cov=$(grep -o 'cov: [0-9]*' "$run/log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$run/log" | tail -1 | cut -d' ' -f2)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$run/log" | tail -1)
  if awk '$3 != 0 { bad = 1 } END { exit bad }' "$run/rounds" && [ -z "$(ls -A "$run/artifacts")" ]; then
    result="0 findings"
  else
    result="FOUND (exit $status): $(ls "$run/artifacts" | tr '\n' ' ')"
  fi
  printf '| %s | %s | %s | %s | %s | %s | %s | %s MB | %s |\n' "$name" "$rounds" "${cpu:-?}" "${execs:-?}" "${cov:-?}" \
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

if [ "$cpu_goal" -gt 0 ]; then
  echo "fuzz.sh: ${#selected[@]} targets, ${cpu_goal} CPU-seconds each, $jobs at once; logs in $build_dir/runs/" >&2
else
  echo "fuzz.sh: ${#selected[@]} targets, ${seconds} s each, $jobs at once; logs in $build_dir/runs/" >&2
fi
echo "Fuzzed on $(date -u +%Y-%m-%d) with $("$clangxx" --version | head -1):"
echo
echo '| target | rounds | CPU seconds | executions | cov (edges) | ft (features) | corpus | peak RSS | result |'
echo '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |'
rows=$(printf '%s\n' "${selected[@]}" |
  xargs -P "$jobs" -L 1 bash -c 'fuzz_one "$0" "$1" "$2" '"$seconds $cpu_goal $resume"' '"$(realpath "$build_dir")")
echo "$rows" | sort
if grep -q FOUND <<<"$rows"; then
  exit 1
fi
