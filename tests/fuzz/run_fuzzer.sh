#!/usr/bin/env bash
# Runs one of opkit's fuzzers for a bounded time; the CTest tests fuzz.*.run.
#
#   run_fuzzer.sh --name TEST --build CMAKE BUILD_DIR TARGET --fuzzer PATH
#                 --corpus DIR --work DIR --seconds N --hint TEXT
#   run_fuzzer.sh --name TEST --missing WHY --hint TEXT   (fails at once, printing both)
#
# Builds TARGET, copies the seed corpus into WORK/corpus (the source tree is
# never written), and fuzzes it for N seconds. Exits non-zero when the build
# fails (the libFuzzer runtime may be missing: TEXT says what to install) or
# the fuzzer reports a crash, leak, timeout or out-of-memory; the reproducer
# is then WORK/artifacts/crash-* (or leak-*, timeout-*, oom-*).
set -euo pipefail

name=fuzz.elf_file.run cmake_bin="" build_dir="" target="" fuzzer="" corpus="" work="" seconds=20 hint="" missing=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) cmake_bin=$2 build_dir=$3 target=$4; shift 4 ;;
    --name) name=$2; shift 2 ;;
    --fuzzer) fuzzer=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --hint) hint=$2; shift 2 ;;
    --missing) missing=$2; shift 2 ;;
    *) echo "run_fuzzer.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

if [ -n "$missing" ]; then
  echo "$name: FAILED: $missing" >&2
  echo "$name: to fix: $hint" >&2
  exit 1
fi

for var in cmake_bin build_dir target fuzzer corpus work; do
  if [ -z "${!var}" ]; then
    echo "run_fuzzer.sh: missing argument for $var" >&2
    exit 2
  fi
done

echo "$name: building $target"
if ! "$cmake_bin" --build "$build_dir" --target "$target"; then
  echo "$name: FAILED: cannot build $target with clang++" >&2
  echo "$name: if the error is about libclang_rt.fuzzer or the sanitizer runtimes: $hint" >&2
  exit 1
fi

if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus")" ]; then
  echo "$name: FAILED: seed corpus $corpus is missing or empty" >&2
  exit 1
fi

# A fresh copy each run: libFuzzer adds the inputs it finds to its corpus folder.
rm -rf "$work/corpus" "$work/artifacts"
mkdir -p "$work/corpus" "$work/artifacts"
cp -R "$corpus"/. "$work/corpus"/

echo "$name: fuzzing for ${seconds}s on a copy of $corpus in $work/corpus"
status=0
"$fuzzer" \
  -max_total_time="$seconds" \
  -rss_limit_mb=2048 \
  -timeout=10 \
  -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" \
  "$work/corpus" || status=$?

if [ "$status" -ne 0 ]; then
  echo "$name: FAILED: the fuzzer exited with status $status; reproducers:" >&2
  ls -l "$work/artifacts" >&2 || true
  echo "$name: replay one with: $fuzzer $work/artifacts/<file>" >&2
  exit 1
fi
echo "$name: no crash in ${seconds}s ($(ls "$work/corpus" | wc -l) inputs in the corpus copy)"
