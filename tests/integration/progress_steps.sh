#!/usr/bin/env bash
# Every step that can take more than 2 s shows progress, through one status
# line, on a terminal (a pty made by script(1)): the pip download fallback, the
# SDK import, the PCH, the build, the load probe's build and a venv's creation.
# The build's time includes the PCH it made. Under TERM=dumb and NO_COLOR, and
# into a pipe, the same steps print no escape at all (counted); -q prints none.
# Each pass starts from a fresh OPKIT_HOME, so every step really runs.
source "$(dirname "$0")/common.sh"
command -v script >/dev/null || fail "script(1) is missing: run scripts/setup.sh (bsdutils)"
wheel_for 2.10.1 >/dev/null
unset OPKIT_INDEX_URL PIP_INDEX_URL NO_COLOR

# on_pty NAME DIR TERM COMMAND...: runs opkit COMMAND in DIR on a pty with TERM;
# its output (stdout and stderr, as a terminal shows them) goes to $work/NAME.ts.
on_pty() {
  local name=$1 dir=$2 term=$3
  shift 3
  printf 'cd %q && exec env TERM=%q %q' "$dir" "$term" "$OPKIT" >"$work/$name.sh"
  printf ' %q' "$@" >>"$work/$name.sh"
  printf '\n' >>"$work/$name.sh"
  local rc=0
  script -qfec "bash $work/$name.sh" "$work/$name.ts" >/dev/null || rc=$?
  [ "$rc" -eq 0 ] || { cat "$work/$name.ts" >&2; fail "opkit $* on a pty ($term) exited $rc"; }
}

# shown NAME TEXT: the status line was drawn with TEXT (at a line's start, after "\r\e[K").
shown() {
  python3 - "$work/$1.ts" "$2" <<'PY' || { cat -v "$work/$1.ts" >&2; fail "$1: no status line starting '$2'"; }
import sys
data = open(sys.argv[1], "rb").read()
sys.exit(0 if (b"\r\x1b[K" + sys.argv[2].encode()) in data else 1)
PY
}

# escapes FILE: how many ESC bytes FILE holds.
escapes() { python3 -c 'import sys; print(open(sys.argv[1], "rb").read().count(b"\x1b"))' "$1"; }

# The wheel's folder served over HTTP: pip downloads into its temporary folder,
# then copies into opkit's (a local find-links folder is copied straight).
server=
trap '[ -z "$server" ] || kill "$server" 2>/dev/null || true' EXIT
python3 "$OPKIT_SOURCE_DIR/tests/integration/index_server.py" --root "$(wheel_cache)/tf-2.10.1" \
  --port-file "$work/port" 2>"$work/server.err" &
server=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { cat "$work/server.err" >&2; fail "index server did not start"; }
links="http://127.0.0.1:$(cat "$work/port")/simple/tensorflow-cpu/"

# run_steps PASS TERM LINKS: every step, in a fresh home; the typescripts are $work/PASS-*.ts.
run_steps() {
  local pass=$1 term=$2 links=$3
  export OPKIT_HOME="$work/$pass/home"
  mkdir -p "$work/$pass"
  ( # no index: pip download, from LINKS (find-links); then the import
    export PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 PIP_FIND_LINKS="$links"
    on_pty "$pass-fetch" "$work/$pass" "$term" sdk fetch tensorflow==2.10.1
  )
  (cd "$work/$pass" && "$OPKIT" new demo --tf 2.10.1 >/dev/null && "$OPKIT" new flow --template oneflow-py-op >/dev/null) ||
    fail "$pass: opkit new failed"
  on_pty "$pass-build" "$work/$pass/demo" "$term" build # the PCH, then ninja
  on_pty "$pass-test" "$work/$pass/demo" "$term" test   # the load probe's build
  on_pty "$pass-venv" "$work/$pass/flow" "$term" test   # a venv with numpy
}

# --- a terminal: each step is drawn on the status line.
run_steps tty xterm "$links"
shown tty-fetch 'downloading tensorflow-cpu==2.10.1 for cp310 with pip ('
shown tty-fetch 'importing tensorflow_cpu-2.10.1 ('
shown tty-build "precompiling TensorFlow's headers for tensorflow-2.10.1 ("
shown tty-build 'building ('
shown tty-test 'building the load probe for tensorflow-2.10.1 ('
shown tty-venv 'creating a Python environment for numpy ('
# The target's time includes its PCH: at least the PCH's time last shown.
python3 - "$work/tty-build.ts" <<'PY' || fail "the build's time leaves out the PCH"
import re, sys
data = open(sys.argv[1], "rb").read().decode(errors="replace")
shown = [int(m) * 60 + int(s) for m, s in re.findall(r"precompiling TensorFlow's headers for tensorflow-2\.10\.1 \((\d+):(\d\d)\)", data)]
built = re.search(r"tf-2\.10\.1 +built \(\d+ compiled\) in ([0-9.]+) s", data)
assert shown and built, data[-2000:]
print(f"PCH shown up to {max(shown)} s, target built in {built.group(1)} s")
sys.exit(0 if float(built.group(1)) >= max(shown) - 1 else 1)
PY
# pip's progress counts the wheel's bytes once, not its temporary file and the copy too.
python3 - "$work/tty-fetch.ts" "$(stat -L -c %s "$(wheel_for 2.10.1)")" <<'PY' || fail "pip's download counted more than the wheel"
import re, sys
data = open(sys.argv[1], "rb").read().decode(errors="replace")
shown = [float(m) for m in re.findall(r"with pip \(\d+:\d\d\): ([0-9.]+) MB", data)]
assert shown, data[-2000:]
print(f"pip's download shown up to {max(shown)} MB of a {int(sys.argv[2]) / 1e6:.1f} MB wheel")
sys.exit(0 if max(shown) <= int(sys.argv[2]) / 1e6 * 1.02 + 0.1 else 1)
PY
# One unit: megabytes, never MiB.
! grep -aq 'MiB\|KiB' "$work"/tty-*.ts || fail "a progress line uses binary units"

# -q on a terminal: no progress at all (a source changed, so the build runs).
echo "// changed" >>"$work/tty/demo/src/demo_kernels.cc"
on_pty tty-quiet "$work/tty/demo" xterm -q build
[ "$(escapes "$work/tty-quiet.ts")" -eq 0 ] || { cat -v "$work/tty-quiet.ts" >&2; fail "-q drew progress"; }

# --- TERM=dumb and NO_COLOR on a pty: the same steps, no escape at all; then a
# failing build's diagnostics, without colour either.
export NO_COLOR=1
run_steps dumb dumb "$(wheel_cache)/tf-2.10.1"
sed -i 's/^}/  this does not compile;\n}/' "$work/dumb/demo/src/demo_kernels.cc"
printf 'cd %q && exec env TERM=dumb %q build\n' "$work/dumb/demo" "$OPKIT" >"$work/dumb-broken.sh"
script -qfec "bash $work/dumb-broken.sh" "$work/dumb-broken.ts" >/dev/null && fail "a broken kernel built"
grep -aq 'error' "$work/dumb-broken.ts" || { cat "$work/dumb-broken.ts" >&2; fail "the broken build showed no compiler error"; }
for ts in "$work"/dumb-*.ts; do
  [ "$(escapes "$ts")" -eq 0 ] || { cat -v "$ts" >&2; fail "$(basename "$ts"): escapes under TERM=dumb and NO_COLOR"; }
done
grep -aq "precompiling TensorFlow's headers for tensorflow-2.10.1" "$work/dumb-build.ts" ||
  fail "TERM=dumb: the PCH step was not named"

# --- into a pipe (a CI log): no escapes, even with a TERM that could draw.
unset NO_COLOR
echo "// changed again" >>"$work/tty/demo/src/demo_kernels.cc"
(cd "$work/tty/demo" && OPKIT_HOME="$work/tty/home" TERM=xterm "$OPKIT" build) >"$work/pipe.out" 2>"$work/pipe.err" ||
  fail "the build into a pipe failed"
[ "$(escapes "$work/pipe.err")" -eq 0 ] || { cat -v "$work/pipe.err" >&2; fail "escapes into a pipe"; }
echo "progress_steps: ok"
