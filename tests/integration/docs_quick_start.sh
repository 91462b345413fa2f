# The README's quick start, run as written: the console block between
# <!-- quick-start --> and <!-- /quick-start --> in README.md. Its `$ ` lines
# are the commands (`> ` lines continue one, as bash's PS2 shows them); the
# other lines are what they print. The commands run in one bash (`set -e`,
# pipefail), in a fresh folder, on a fresh OPKIT_HOME, with `opkit` on PATH;
# `sdk fetch` reads a local index holding the real wheels (OPKIT_INDEX_URL), as
# sdk_fetch does; `opkit test --python` uses the shared venvs (OPKIT_VENVS).
# Any command failing fails the test. Each output line shown, `…` standing for
# anything, must be a line the run printed, except lines naming the reader's
# own paths (`/home/me`) and the `…`-only lines.
# docs_quick_start_torch.sh sets QUICK_START=quick-start-torch and sources this
# file: the README's PyTorch block, with the torch wheels in the index.
source "$(dirname "$0")/common.sh"
QUICK_START=${QUICK_START:-quick-start}
export OPKIT_HOME="$work/home"   # a fresh store: no SDK, no PCH, no probes
unset PIP_INDEX_URL
export TF_CPP_MIN_LOG_LEVEL=3

python3 - "$OPKIT_SOURCE_DIR/README.md" "$work/quick-start.sh" "$work/expected.txt" "$QUICK_START" <<'PY' || fail "no $QUICK_START block in README.md"
import re, sys
text, marker = open(sys.argv[1], encoding="utf-8").read(), sys.argv[4]
match = re.search(r"<!-- %s -->\n```console\n(.*?)\n```\n<!-- /%s -->" % (marker, marker), text, re.S)
if not match:
    sys.exit("README.md has no <!-- %s --> console block" % marker)
commands, expected = [], []
for line in match.group(1).split("\n"):
    if line.startswith("$ "):
        commands.append(line[2:])
    elif line.startswith("> ") or line == ">":
        commands.append(line[2:])
    else:
        expected.append(line)
if len(commands) < 8:
    sys.exit("the quick start has %d command lines" % len(commands))
open(sys.argv[2], "w").write("set -euo pipefail -x\n" + "\n".join(commands) + "\n")
open(sys.argv[3], "w").write("\n".join(expected) + "\n")
PY

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
if [ "$rc" -ne 0 ]; then
  echo "--- stdout" >&2; tail -n 40 "$work/run.out" >&2
  echo "--- stderr (the last command is the one that failed)" >&2; tail -n 40 "$work/run.err" >&2
  fail "the README's quick start failed (exit $rc)"
fi

# The output it shows is output it prints.
python3 - "$work/expected.txt" "$work/run.out" "$work/run.err" <<'PY' || fail "the quick start shows output the run did not print"
import re, sys
shown = open(sys.argv[1], encoding="utf-8").read().split("\n")
printed = set(open(sys.argv[2], encoding="utf-8").read().split("\n") + open(sys.argv[3], encoding="utf-8").read().split("\n"))
missing, compared = [], 0
for line in shown:
    if not line.strip() or not line.replace("…", "").strip() or "/home/me" in line:
        continue
    pattern = re.compile(".*".join(re.escape(part) for part in line.split("…")))
    compared += 1
    if not any(pattern.fullmatch(p) for p in printed):
        missing.append(line)
for line in missing:
    print("NOT PRINTED: " + line, file=sys.stderr)
print("%d shown output lines compared, %d not printed" % (compared, len(missing)))
sys.exit(1 if missing or compared < 10 else 0)
PY
echo "PASS: $test_name"
