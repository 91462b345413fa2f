# Bad input, third round (issue "Reliability, third round"): each case is one
# error line with its exit code (docs/commands.md, "Exit codes"), nothing partial left
# behind; and the cases that must simply work do.
source "$(dirname "$0")/common.sh"

run_opkit 0 new round3 --tf 1.12
cd round3
cp opkit.yaml good.yaml
# yaml_refused <regex>: opkit.yaml as it is now is one line, exit 2, before anything is built.
yaml_refused() {
  run_opkit 2 build --tf 1.12
  expect_one_error_line
  expect_contains "$work/err" "$1"
  [ ! -e build ] || fail "build/ was made from a refused opkit.yaml"
}

# --- 4. a newline in a build value would end its line of build.ninja: refused where it is written
sed 's/^targets:$/build:\n  defines: ["NL=a\\nb"]\n&/' good.yaml >opkit.yaml
grep -q 'NL=a' opkit.yaml || fail "the test's edit of opkit.yaml did not apply"
yaml_refused "opkit\.yaml:[0-9]+:[0-9]+: define 'NL=a\\\\nb': a build value must be one line without control characters$"
cp good.yaml opkit.yaml

# --- 11. a source that is a folder, or a loop of symbolic links: said so, not "does not exist"
mkdir src/folder.cc
sed 's/^  - src\/round3_op\.cc$/&\n  - src\/folder.cc/' good.yaml >opkit.yaml
run_opkit 2 build --tf 1.12
expect_one_error_line
expect_contains "$work/err" "source 'src/folder\.cc' of library round3: a folder, not a file$"
[ ! -e build/tf-1.12.0/libround3.so ] || fail "a library was built with a folder for a source"
rmdir src/folder.cc
ln -s loop-b.cc src/loop-a.cc && ln -s loop-a.cc src/loop-b.cc
sed 's/^  - src\/round3_op\.cc$/&\n  - src\/loop-a.cc/' good.yaml >opkit.yaml
run_opkit 2 build --tf 1.12
expect_one_error_line
expect_contains "$work/err" "source 'src/loop-a\.cc' of library round3: a loop of symbolic links$"
cp good.yaml opkit.yaml
for args in "check src/loop-a.cc" "publish src/loop-a.cc http://127.0.0.1:9/x"; do
  # shellcheck disable=SC2086
  run_opkit 2 $args
  expect_one_error_line
  expect_contains "$work/err" "loop-a\.cc: a loop of symbolic links$"
done
rm src/loop-a.cc src/loop-b.cc
run_opkit 2 check src
expect_one_error_line
expect_contains "$work/err" "src: a folder, not a library$"

# --- 11. OPKIT_CACHE_REMOTE is checked before ccache sees it
OPKIT_CACHE_REMOTE=nonsense run_opkit 2 build --tf 1.12
expect_one_error_line
expect_contains "$work/err" "cache_remote 'nonsense' \(from environment \(OPKIT_CACHE_REMOTE\)\): not a ccache remote storage URL"
[ ! -e build ] || fail "build/ was made with a bad OPKIT_CACHE_REMOTE"

# --- 11. -q: only results and errors; the warning before the error is not printed
run_opkit 3 -q build --std 14 --tf 9.9
expect_one_error_line
run_opkit 3 build --std 14 --tf 9.9
expect_contains "$work/err" '^opkit: warning: building with -std=c\+\+14'

# --- 11. `sdk info` of a name that is neither an id nor a version
run_opkit 2 sdk info nonexistent-sdk
expect_one_error_line
expect_contains "$work/err" "'nonexistent-sdk': neither an SDK id \(tensorflow-2\.10\.1\) nor a TensorFlow version \(2\.10\); the store has: .*tensorflow-1\.12\.0"

# --- 11. OPKIT_HOME a symbolic link that leads nowhere: said so, not "File exists"
ln -s "$work/no-such-home" "$work/dangling-home"
for args in "sdk list" "sdk gc" "build --tf 1.12"; do
  # shellcheck disable=SC2086
  OPKIT_HOME="$work/dangling-home" run_opkit 2 $args
  expect_one_error_line
  expect_contains "$work/err" "dangling-home: the opkit home .* is a symbolic link that leads nowhere \(its target is missing\)"
  [ ! -e "$work/no-such-home" ] || fail "opkit $args made the dangling home's target"
done

# --- 11. profile script: a --lib that names nothing is bad input (exit 2), as docs/check.md says
run_opkit 0 profile script
cp "$work/out" "$work/capture.sh"
rc=0
sh "$work/capture.sh" --lib "$work/missing.so" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -eq 2 ] || { cat "$work/err" >&2; fail "capture.sh --lib missing.so exited $rc, expected 2"; }
expect_one_error_line
expect_contains "$work/err" "missing\.so: no such library$"
[ ! -s "$work/out" ] || fail "capture.sh wrote a profile for a missing --lib"

# --- 4. a '|' in the project's path: build.ninja stays parsable and the build works
cd "$work"
mkdir 'pipe|dir'
cp -r round3 'pipe|dir/round3'
rm -rf 'pipe|dir/round3/build'
run_opkit 0 -C 'pipe|dir/round3' build --tf 1.12 --no-check
[ -f 'pipe|dir/round3/build/tf-1.12.0/libround3.so' ] || fail "no library built in a folder with '|' in its path"
expect_contains 'pipe|dir/round3/build/tf-1.12.0/build.ninja' '^opkit_pipe = \|$'

# --- 6. opkit init: a name that is not UTF-8 is skipped with one warning naming
# it escaped; text quoted from sources is printed escaped
mkdir -p "$work/tree/ops" "$work/tree/$(printf 'bad\377dir')"
printf '#include "tensorflow/core/framework/op.h"\n#include "missing_\377.h"\nREGISTER_OP("ZeroOut").Input("to_zero: int32").Output("zeroed: int32");\n' >"$work/tree/ops/zero_op.cc"
cp "$work/tree/ops/zero_op.cc" "$work/tree/ops/$(printf 'bad\377name.cc')"
cp "$work/tree/ops/zero_op.cc" "$work/tree/$(printf 'bad\377dir')/other.cc"
cp "$work/tree/ops/zero_op.cc" "$work/tree/ops/new"$'\n'"line.cc"
run_opkit 0 init "$work/tree"
[ "$(grep -c . "$work/err")" -eq 1 ] || { cat "$work/err" >&2; fail "expected one warning line"; }
expect_contains "$work/err" '^opkit: warning: skipped 3 names that opkit\.yaml cannot hold \(not UTF-8, or with a control character\): '
for name in 'bad\\xffdir' 'ops/bad\\xffname\.cc' 'ops/new\\nline\.cc'; do
  expect_contains "$work/err" "[:,] $name(,|$)"
done
for file in "$work/out" "$work/err" "$work/tree/opkit.yaml"; do
  if LC_ALL=C grep -q "$(printf '\377')" "$file"; then fail "a raw non-UTF-8 byte reached $file"; fi
done
expect_contains "$work/tree/opkit.yaml" 'ops/zero_op\.cc'
expect_contains "$work/out" 'missing_\\xff\.h'

# --- 8. opkit killed while it makes a venv: nothing of what it started runs on
# (`python -m venv` once left its `python -m ensurepip` child running). The
# processes are told by a mark in their environment, which they inherit.
cd "$work"
run_opkit 0 new flowy --template oneflow-py-op
mark="round3-$$-$RANDOM"
marked() {
  local found
  found=$(grep -lzx "OPKIT_ROUND3_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null || true)
  sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p' <<<"$found"
}
for signal in TERM KILL; do
  rm -rf "$work/venv-home"
  OPKIT_ROUND3_MARK=$mark OPKIT_HOME="$work/venv-home" "$OPKIT" -C flowy test >"$work/out" 2>"$work/err" &
  opkit_pid=$!
  ensurepip=""
  for _ in $(seq 400); do
    for pid in $(marked); do
      if grep -qa ensurepip "/proc/$pid/cmdline" 2>/dev/null; then ensurepip=$pid; fi
    done
    [ -z "$ensurepip" ] || break
    sleep 0.05
  done
  [ -n "$ensurepip" ] || { kill -KILL "$opkit_pid"; cat "$work/err" >&2; fail "no ensurepip started within 20 s"; }
  kill -"$signal" "$opkit_pid"
  { wait "$opkit_pid"; } 2>/dev/null || true
  # At once: ensurepip on its own runs for seconds more.
  left=""
  for _ in $(seq 20); do
    left=$(marked)
    [ -n "$left" ] || break
    sleep 0.05
  done
  # shellcheck disable=SC2086
  [ -z "$left" ] || { ps -o pid,pgid,args -p $left >&2 || true; fail "after kill -$signal of opkit, what it started runs on"; }
done

echo "bad_input_round3: ok"
