# opkit build as cargo does it: --dry-run writes nothing; -j is one cap over
# every target; --json (opkit.build/1) for a success and a failure; a root
# compile_commands.json; a compiler error shown whole and once across targets
# (coloured on a terminal, never when piped), the full log in build.log; and a
# colour change rebuilds nothing. Into a log, a line per finished compile; the
# portable: line only with -v and never under a FAILED target; -C as make -C.
source "$(dirname "$0")/common.sh"
command -v script >/dev/null || fail "script (bsdutils) is missing: apt-get install bsdutils"
unset NO_COLOR

run_opkit 0 new zero_out
cd zero_out
tree_state() { find . -printf '%p %y %s %T@\n' | sort; find . -type f -exec sha256sum {} + | sort; }

# --dry-run: the compiles and links, and nothing written (no build folder either).
before=$(tree_state)
run_opkit 0 build --dry-run
[ "$before" = "$(tree_state)" ] || fail "--dry-run changed the project"
[ ! -e build ] || fail "--dry-run made the build folder"
expect_contains "$work/out" '^tf-1\.12\.0 +would run 3 compiles and 1 link from build/'
expect_contains "$work/out" '^tf-2\.10\.1 +would run 3 compiles and 1 link from build/'
expect_contains "$work/out" "g\+\+ .*-std=c\+\+11 .* -c $PWD/src/zero_out_kernels\.cc -o tf-1\.12\.0/obj/zero_out/src/zero_out_kernels\.cc\.o"
expect_contains "$work/out" '-o tf-2\.10\.1/libzero_out\.so\.\$\$\.tmp -shared .* && mv -f tf-2\.10\.1/libzero_out\.so\.\$\$\.tmp tf-2\.10\.1/libzero_out\.so$'
run_opkit 0 build --dry-run --json
expect_json_schema opkit.build-1 "$work/out"
[ "$before" = "$(tree_state)" ] || fail "--dry-run --json changed the project"

# -j 1 over two targets: never two compilers at once. A CXX that counts the
# compiles running (under flock), keeping the most; no cache, so each one runs.
cat >"$work/cxx" <<SH
#!/bin/sh
case " \$* " in *" -c "*) ;; *) exec g++ "\$@" ;; esac
count() { ( flock 9; n=\$((\$(cat "$work/running") + \$1)); echo \$n >"$work/running"
  [ \$n -le \$(cat "$work/most") ] || echo \$n >"$work/most"; [ \$1 -lt 0 ] || echo x >>"$work/compiles" ) 9>"$work/lock"; }
count 1; sleep 0.5; rc=0; g++ "\$@" || rc=\$?; count -1; exit \$rc
SH
chmod +x "$work/cxx"
echo 0 >"$work/running"; echo 0 >"$work/most"; : >"$work/compiles"
# Every build from here compiles with it (another compiler would be a reason to rebuild).
export CXX="$work/cxx" OPKIT_CACHE=off
run_opkit 0 build -j 1 --json
expect_json_schema opkit.build-1 "$work/out"
python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["ok"] and not report["dry_run"], report
assert [t["status"] for t in report["targets"]] == ["built", "built"], report
for t in report["targets"]:
    assert t["compiled"] == 3 and t["seconds"] > 0 and t["log"].endswith("/build/tf-%s/build.log" % t["version"]), t
    (lib,) = t["libraries"]
    assert lib["path"].endswith("/libzero_out.so") and lib["check"]["loads"], lib
PY
# Into a log (no terminal): a line per finished compile, none per link.
expect_contains "$work/err" '^\[[0-9]+/[0-9]+\] CXX src/zero_out_kernels\.cc \(tf-1\.12\.0\)$'
[ "$(grep -c '^\[[0-9]*/[0-9]*\] CXX ' "$work/err")" -ge 6 ] || { cat "$work/err" >&2; fail "not a line per compile"; }
if grep -q '^\[[0-9]*/[0-9]*\] LINK' "$work/err"; then fail "a link's line without -v"; fi
[ "$(wc -l <"$work/compiles")" -ge 6 ] || fail "the CXX wrapper saw $(wc -l <"$work/compiles") compiles, expected 6"
[ "$(cat "$work/most")" -eq 1 ] || fail "-j 1 ran $(cat "$work/most") compilers at once"
[ -f build/tf-1.12.0/build.log ] && [ -f build/tf-2.10.1/build.log ] || fail "no build.log per target"

# The build root's compile_commands.json: one entry per source, the newest TF's.
python3 - "$PWD" <<'PY'
import json, sys
root = sys.argv[1]
entries = json.load(open(root + "/build/compile_commands.json"))
files = [e["file"] for e in entries]
assert len(files) == len(set(files)), files
for source in ("src/zero_out_op.cc", "src/zero_out_kernels.cc"):
    (entry,) = [e for e in entries if e["file"] == root + "/" + source]
    assert entry["directory"] == root + "/build", entry
    assert "-std=c++17" in entry["arguments"], "not the newest target's entry: %s" % entry
    assert entry["output"].startswith("tf-2.10.1/"), entry
PY

# Nothing changed: up to date, piped or on a terminal (colours are no reason to rebuild).
run_opkit 0 build
expect_contains "$work/out" '^tf-1\.12\.0 +up to date '
expect_contains "$work/out" '^tf-2\.10\.1 +up to date '
# What the link did to fit the runtime (portable:) only with -v.
if grep -q 'portable:' "$work/out" "$work/err"; then fail "a portable line without -v"; fi
run_opkit 0 build -v
expect_contains "$work/out" '^ +portable: libstdc\+\+ above '
script -qec "'$OPKIT' build" "$work/tty-noop" >/dev/null </dev/null
expect_contains "$work/tty-noop" '^tf-1\.12\.0 +up to date '
expect_contains "$work/tty-noop" '^tf-2\.10\.1 +up to date '

# An overload error with 40 candidates: the error line and every note, once.
{
  echo 'namespace bad {'
  echo 'struct Arg {};'
  for i in $(seq 0 39); do echo "struct T$i {}; int pick(T$i, int);"; done
  echo '}'
  echo 'int use_it() { return bad::pick(bad::Arg{}, 1); }'
} >src/bad.cc
sed -i 's|^  - src/zero_out_kernels.cc$|&\n  - src/bad.cc|' opkit.yaml
run_opkit 1 build
expect_contains "$work/out" '^tf-1\.12\.0 +FAILED +full log: build/tf-1\.12\.0/build\.log$'
expect_contains "$work/out" '^tf-2\.10\.1 +FAILED +full log: build/tf-2\.10\.1/build\.log$'
[ "$(grep -c 'error: no matching function for call to .*pick' "$work/err")" -eq 1 ] \
  || { cat "$work/err" >&2; fail "the error line is not shown exactly once"; }
[ "$(grep -c 'note: candidate' "$work/err")" -eq 40 ] || fail "not every candidate note shown, once"
# Whichever target finishes first shows them; the other names it and its own log.
grep -Eq '^tf-2\.10\.1: the same errors as tf-1\.12\.0 \(full log: build/tf-2\.10\.1/build\.log\)$' "$work/err" \
  || expect_contains "$work/err" '^tf-1\.12\.0: the same errors as tf-2\.10\.1 \(full log: build/tf-1\.12\.0/build\.log\)$'
if grep -q $'\x1b\[' "$work/err"; then fail "escape sequences on a pipe"; fi
# The error names its file as it opens from here (the project root), with ccache (which makes the
# compilers' names relative to build/) and without: an IDE, Emacs or vim jumps to it.
opens_from_here() {
  local where
  where=$(grep -Eo '^[^ :]+:[0-9]+:[0-9]+: error: ' "$work/err" | head -1 | cut -d: -f1)
  [ -n "$where" ] || { cat "$work/err" >&2; fail "$1: no file:line:col error line"; }
  [ -f "$where" ] || fail "$1: the error names $where, which does not open from $PWD"
  echo "$1: the error names $where"
}
opens_from_here "without ccache"
# ccache's base_dir makes the compilers' names relative to build/ (../src/bad.cc): shown from here.
OPKIT_CACHE=on run_opkit 1 build
opens_from_here "with ccache and the PCH"
expect_contains "$work/err" '^src/bad\.cc:[0-9]+:[0-9]+: error: no matching function'
expect_contains "$work/err" "^src/bad\.cc: In function .+int use_it\(\).+:$" # gcc's context line too
OPKIT_CACHE=on run_opkit 1 build --no-pch
opens_from_here "with ccache, without the PCH"
expect_contains "$work/err" '^src/bad\.cc:[0-9]+:[0-9]+: error: no matching function'
# -C from the folder above, as make -C: the Entering and Leaving lines around
# everything (the error line too), the diagnostics' files absolute (they open
# from here and from the project), gcc's context line too, no ../src/ left;
# under a FAILED target no portable line, even with -v.
(cd .. && OPKIT_CACHE=on run_opkit 1 -v -C zero_out build)
[ "$(head -1 "$work/err")" = "opkit: Entering directory '$PWD'" ] || { cat "$work/err" >&2; fail "-C: no Entering line first"; }
[ "$(tail -1 "$work/err")" = "opkit: Leaving directory '$PWD'" ] || { cat "$work/err" >&2; fail "-C: no Leaving line last"; }
expect_contains "$work/err" "^$PWD/src/bad\.cc: In function .+int use_it\(\).+:$"
expect_contains "$work/err" "^$PWD/src/bad\.cc:[0-9]+:[0-9]+: error: no matching function"
if grep -q '\.\./src/' "$work/err"; then fail "-C: a diagnostic still names ../src/"; fi
if grep -q 'portable' "$work/out"; then fail "a portable line under a FAILED target"; fi
# An error before anything else is written stays one line: no directory lines around it.
(cd .. && run_opkit 2 -C zero_out build --tf 2.x)
expect_one_error_line
run_opkit 1 build
for v in 1.12.0 2.10.1; do
  expect_contains build/tf-$v/build.log 'error: no matching function for call to .*pick'
  [ "$(grep -c 'note: candidate' build/tf-$v/build.log)" -eq 40 ] || fail "build/tf-$v/build.log is not whole"
done
run_opkit 1 build --json
expect_json_schema opkit.build-1 "$work/out"
python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["ok"] is False and [t["status"] for t in report["targets"]] == ["failed", "failed"], report
PY

# On a terminal: gcc's colours in the diagnostics, the build on the status line redrawn in place.
script -qec "'$OPKIT' build -j 1" "$work/tty" >/dev/null </dev/null || true
grep -aq $'\x1b\[01;31m\x1b\[Kerror: ' "$work/tty" || { cat -v "$work/tty" >&2; fail "no colours in the diagnostics"; }
grep -aqE $'\r\x1b\\[Kbuilding \\([0-9]+:[0-9]{2}\\): \\[1/' "$work/tty" || { cat -v "$work/tty" >&2; fail "no status line"; }
[ "$(grep -ac 'error: .*no matching function' "$work/tty")" -eq 1 ] || fail "the error is not shown once on a terminal"
