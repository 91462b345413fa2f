#!/usr/bin/env bash
# The main job end to end on a fresh machine, the EasyRec user's journey:
# install dependencies, build the opkit binary (with its man page and completions), fetch the official
# TF 1.12.0 and 2.10.1 wheels and import both SDKs, make the venvs (EasyRec's
# PyPI release with TF 1.12 on Python 3.6; TF 1.12 and 2.10.1 for opkit test
# --python), then scaffold an EasyRec component on raw text, build it for both
# versions, test it in both real frameworks, pack the EasyRec resource, train,
# evaluate and export from the unpacked resource in TF 1.12, and serve the
# export in TF 2.10.1, printing the served predictions and each phase's time.
# Everything downloaded or made once is cached (~/.cache/opkit-test, ~/.cache/opkit).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build_dir=${OPKIT_BUILD_DIR:-build}
opkit="$root/$build_dir/opkit"
demo_dir="$root/$build_dir/demo"
export OPKIT_VENVS="${OPKIT_VENVS:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/venvs}"
mkdir -p "$demo_dir"
times="$demo_dir/phases.txt"
: >"$times"
demo_start=$(date +%s%N)

# phase <name> <command...>: runs it, records its wall time.
phase() {
  local name=$1 start ms
  shift
  start=$(date +%s%N)
  echo "demo: $name ..." >&2
  "$@"
  ms=$((($(date +%s%N) - start) / 1000000))
  printf '  %-30s %5d.%d s\n' "$name" $((ms / 1000)) $((ms % 1000 / 100)) >>"$times"
}

phase "setup (Debian packages)" bash scripts/setup.sh

# EasyRec's venv needs only Python and PyPI: it is made while opkit compiles.
venv_log="$demo_dir/easyrec-env.log"
bash scripts/easyrec-env.sh >"$venv_log" 2>&1 &
venv_pid=$!

phase "build the opkit binary" env OPKIT_BUILD_TARGETS="opkit opkit_docs" bash scripts/build.sh

import_sdks() {
  local wheel
  mapfile -t wheels < <(bash scripts/fetch-wheels.sh --demo)
  for wheel in "${wheels[@]}"; do
    "$opkit" sdk add "$wheel" >/dev/null
  done
  "$opkit" sdk list
}
phase "wheels and SDKs (1.12, 2.10.1)" import_sdks

wait_venv() {
  wait "$venv_pid" || { tail -n 20 "$venv_log" >&2; echo "demo: making EasyRec's venv failed (log: $venv_log)" >&2; return 1; }
}
phase "EasyRec 0.7.1 venv (waited for)" wait_venv

phase "the journey" env OPKIT="$opkit" bash scripts/easyrec-journey.sh "$demo_dir/journey"

ms=$((($(date +%s%N) - demo_start) / 1000000))
echo
echo "phase times:"
cat "$times"
echo "  journey steps:"
sed 's/^/    /' "$demo_dir/journey/times.txt"
printf '  %-30s %5d.%d s\n' "total" $((ms / 1000)) $((ms % 1000 / 100))
