# Finding things from inside a project: `opkit build` and `opkit test` in the
# project's src/ find the opkit.yaml above it (as cargo finds Cargo.toml), a
# path typed on the command line stays relative to where it was typed, and
# `opkit check LIB` without --tf judges against the SDK the library's
# opkit-build.json names. A missing library is an input error (exit 2).
source "$(dirname "$0")/common.sh"

run_opkit 0 new up_op
cd up_op/src
run_opkit 0 build --tf 1.12 -j 2
expect_contains "$work/out" '^tf-1\.12\.0 +built \(3 compiled\)( in [0-9.]+ s)? +/.*/up_op/build/tf-1\.12\.0/libup_op\.so$'
[ -f "$work/up_op/build/tf-1.12.0/libup_op.so" ] || fail "the build did not land in the project's build/"
[ ! -e "$work/up_op/src/build" ] || fail "the build made a build/ inside src/"
run_opkit 0 test --tf 1.12
expect_contains "$work/out" 'tf-1\.12\.0'
# --build-dir as typed here: ../build from src/ is the project's build/ (taken
# from the project root it would be $work/build, which nothing may make).
run_opkit 0 test --tf 1.12 --build-dir ../build
expect_contains "$work/out" 'tf-1\.12\.0'
[ ! -e "$work/build" ] || fail "--build-dir ../build was taken relative to the project root, not to src/"
# Deeper still, and through -C.
mkdir -p deeper/still
(cd deeper/still && "$OPKIT" build --tf 1.12 >"$work/out" 2>"$work/err") || fail "build from src/deeper/still failed: $(cat "$work/err")"
expect_contains "$work/out" '^tf-1\.12\.0 +up to date '
cd "$work"
run_opkit 0 -C up_op/src/deeper build --tf 1.12
expect_contains "$work/out" '^tf-1\.12\.0 +up to date '

# --- check without --tf: the record beside the library names the SDK
library=up_op/build/tf-1.12.0/libup_op.so
[ -f up_op/build/tf-1.12.0/opkit-build.json ] || fail "opkit build wrote no opkit-build.json"
run_opkit 0 check "$library"
expect_contains "$work/out" "^$library: loads against tensorflow 1\.12\.0"
expect_contains "$work/err" "judging against tensorflow-1\.12\.0.*as up_op/build/tf-1\.12\.0/opkit-build\.json records"
run_opkit 0 check "$library" --json
python3 -c "import json; r=json.load(open('$work/out')); assert r['verdict'] == 'loads' and '1.12.0' in r['target'], r" ||
  fail "check --json without --tf did not judge against TF 1.12.0"
# The record names the runtime the build judged against ("" = the TF version's
# own), and check without --tf uses it; a build on another runtime rewrites it.
record_runtime() { python3 -c "import json,sys; print(repr(json.load(open(sys.argv[1]))['runtime']))" up_op/build/tf-1.12.0/opkit-build.json; }
[ "$(record_runtime)" = "''" ] || fail "opkit-build.json: runtime $(record_runtime), expected ''"
run_opkit 0 -C up_op build --tf 1.12 --runtime host
[ "$(record_runtime)" = "'host'" ] || fail "opkit-build.json after --runtime host: runtime $(record_runtime)"
run_opkit 0 check "$library"
expect_contains "$work/err" "judging against tensorflow-1\.12\.0 on host, as up_op/build/tf-1\.12\.0/opkit-build\.json records"
run_opkit 0 -C up_op build --tf 1.12
[ "$(record_runtime)" = "''" ] || fail "opkit-build.json after a build on the default runtime: runtime $(record_runtime)"
# --tf still decides when given.
run_opkit 1 check "$library" --tf 2.10.1
expect_contains "$work/out" 'WILL NOT LOAD against tensorflow 2\.10\.1'
# The same library with no record: this machine, said so.
mkdir -p bare
cp "$library" bare/
run_opkit 1 check bare/libup_op.so
expect_contains "$work/err" "bare/libup_op\.so: no --tf and no opkit-build\.json beside it: judging against this machine"
expect_contains "$work/out" 'WILL NOT LOAD'
# A record that does not list the library speaks not for it.
cp up_op/build/tf-1.12.0/opkit-build.json bare/
cp bare/libup_op.so bare/libother.so
run_opkit 1 check bare/libother.so
expect_contains "$work/err" 'no opkit-build\.json beside it'

# --- a missing library is an input error
run_opkit 2 check missing.so
expect_one_error_line
expect_contains "$work/err" '^opkit: error: missing\.so: no such library$'
run_opkit 2 check up_op
expect_one_error_line
expect_contains "$work/err" 'up_op: a folder, not a library'

# Completion of the imported SDKs: the scripts ask opkit itself (`sdk list --ids`,
# hidden), as git and cargo do; bash and fish run for real against this store.
"$OPKIT" sdk list --json | python3 -c 'import json, sys
sdks = json.load(sys.stdin)
print("\n".join(sorted({s["id"] for s in sdks if s["framework"] == "tensorflow"} | {s["version"] for s in sdks if s["framework"] == "tensorflow"})))' >"$work/tf-ids"
grep -qx 'tensorflow-1\.12\.0' "$work/tf-ids" && grep -qx '1\.12\.0' "$work/tf-ids" || fail "the store has no TF 1.12.0: $(cat "$work/tf-ids")"
run_opkit 0 sdk list --ids tensorflow
[ "$(sort "$work/out")" = "$(cat "$work/tf-ids")" ] || fail "sdk list --ids tensorflow: $(cat "$work/out")"
"$OPKIT" completion bash >"$work/opkit.bash"
complete_bash() { # <words...>: the last is the word being completed
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _opkit
           printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$work/opkit.bash" "$@"
}
[ "$(complete_bash "$OPKIT" build --tf "")" = "$(cat "$work/tf-ids")" ] || fail "bash: build --tf: $(complete_bash "$OPKIT" build --tf "")"
[ "$(complete_bash "$OPKIT" check x.so --tf 1.1)" = "$(grep '^1\.1' "$work/tf-ids")" ] || fail "bash: check --tf 1.1"
[ "$(complete_bash "$OPKIT" sdk info tensorflow-1.12)" = tensorflow-1.12.0 ] || fail "bash: sdk info: $(complete_bash "$OPKIT" sdk info tensorflow-1.12)"
[ "$(complete_bash "$OPKIT" sdk remove tensorflow-1.1)" = "$(grep '^tensorflow-1\.1' "$work/tf-ids")" ] || fail "bash: sdk remove"
"$OPKIT" completion fish >"$work/opkit.fish"
complete_fish() { PATH="$(dirname "$OPKIT"):$PATH" fish -c "source $work/opkit.fish; complete -C '$1'" | cut -f1 | sort; }
[ "$(complete_fish 'opkit build --tf ')" = "$(cat "$work/tf-ids")" ] || fail "fish: build --tf: $(complete_fish 'opkit build --tf ')"
[ "$(complete_fish 'opkit sdk info tensorflow-1.12')" = tensorflow-1.12.0 ] || fail "fish: sdk info: $(complete_fish 'opkit sdk info tensorflow-1.12')"

echo "PASS: $test_name"
