# The README's quick start, run as written: the console block between
# <!-- quick-start --> and <!-- /quick-start --> in README.md, its `$ ` lines
# the commands and the other lines what they print (readme_block.py). The
# commands run in one bash (`set -e`, pipefail), in a fresh folder, on a fresh
# OPKIT_HOME, with `opkit` on PATH; `sdk fetch` reads a local index holding the
# real wheels (OPKIT_INDEX_URL), as sdk_fetch does; `opkit test --python` uses
# the shared venvs (OPKIT_VENVS). Any command failing fails the test. Each
# output line shown, `…` standing for anything, must be a line the run printed,
# except lines naming the reader's own paths (`/home/me`) and `…`-only lines.
# docs_quick_start_torch.sh sets QUICK_START=quick-start-torch and sources this
# file: the README's PyTorch block, with the torch wheels in the index.
source "$(dirname "$0")/common.sh"
QUICK_START=${QUICK_START:-quick-start}
export OPKIT_HOME="$work/home"   # a fresh store: no SDK, no PCH, no probes
unset PIP_INDEX_URL
export TF_CPP_MIN_LOG_LEVEL=3

python3 "$OPKIT_SOURCE_DIR/tests/integration/readme_block.py" extract "$OPKIT_SOURCE_DIR/README.md" "$QUICK_START" \
  "$work/quick-start.sh" "$work/expected.txt" 8 || fail "no $QUICK_START block in README.md"

# The index: the two wheels the quick start fetches.
mkdir -p "$work/index"
if [ "$QUICK_START" = quick-start ]; then
  ln -s "$(wheel_for 1.12.0)" "$(wheel_for 2.10.1)" "$work/index/"
else
  for v in 2.5.1 2.8.0; do
    wheel=$(ls "$(wheel_cache)/torch-$v"/torch-*.whl 2>/dev/null | head -n 1)
    [ -n "$wheel" ] || fail "no torch $v wheel in $(wheel_cache): run scripts/fetch-wheels.sh --torch"
    ln -s "$wheel" "$work/index/"
  done
  # The load probe's CUDA runtime wheels, kept by fetch-wheels.sh, found by pip there first.
  export PIP_FIND_LINKS="$(wheel_cache)/torch-2.5.1-cuda-runtime $(wheel_cache)/torch-2.8.0-cuda-runtime"
fi
serve_index "$work/index"
trap 'kill "$index_server" 2>/dev/null || true' EXIT
export OPKIT_INDEX_URL="$index_url"

mkdir -p "$work/bin" "$work/me"
ln -s "$OPKIT" "$work/bin/opkit"
rc=0
(cd "$work/me" && PATH="$work/bin:$PATH" bash "$work/quick-start.sh") >"$work/run.out" 2>"$work/run.err" || rc=$?
[ "$rc" -eq 0 ] || fail_run "$work/run.out" "$work/run.err" "the README's quick start failed (exit $rc)"

# The output it shows is output it prints.
python3 "$OPKIT_SOURCE_DIR/tests/integration/readme_block.py" compare "$work/expected.txt" "$work/run.out" "$work/run.err" 10 ||
  fail "the quick start shows output the run did not print"
echo "PASS: $test_name"
