# opkit check looks the framework's symbols up in the index `opkit sdk add`
# wrote (this machine's libraries in $OPKIT_HOME/cache), remakes an index that
# is missing or corrupt, and judges exactly as from the libraries themselves.
source "$(dirname "$0")/common.sh"
# Made at import, for every SDK.
for v in 1.12.0 2.10.1 1.15.5; do
  ls "$OPKIT_HOME/sdks/tensorflow-$v/symbols/"*.idx >/dev/null || fail "$v: no symbol index after sdk add"
done

# This test deletes and corrupts an index in place: it does so in a home of its
# own, never in the shared one whose indexes other tests map at the same time.
# The SDK's files are hard links; its symbols folder is a copy of its own.
shared_sdk="$OPKIT_HOME/sdks/tensorflow-1.12.0"
export OPKIT_HOME="$work/home"
sdk="$OPKIT_HOME/sdks/tensorflow-1.12.0"
mkdir -p "$OPKIT_HOME/sdks"
cp -al "$shared_sdk" "$sdk"
rm -r "$sdk/symbols"
cp -r "$shared_sdk/symbols" "$sdk/symbols"
index="$sdk/symbols/libtensorflow_framework.so.idx"

run_opkit 0 new indexed_op
run_opkit 0 -C indexed_op build --tf 1.12 --no-check
run_opkit 0 -C indexed_op build --tf 1.12 --abi 1 --no-check --build-dir build-abi
good=indexed_op/build/tf-1.12.0/libindexed_op.so
bad=indexed_op/build-abi/tf-1.12.0/libindexed_op.so

# check_json <name> <expected exit> <args...>: the JSON report in $work/<name>.json.
check_json() {
  local name=$1 expected=$2
  shift 2
  run_opkit "$expected" -v check "$@" --json
  cp "$work/out" "$work/$name.json"
}

# The check maps the SDK's index and the cached host libraries' indexes.
check_json good 0 "$good" --tf 1.12 --runtime host
expect_contains "$work/err" "^opkit: symbol index: mapped $index for $sdk/lib/libtensorflow_framework\.so \([0-9]+ symbols\)$"
expect_contains "$work/err" "^opkit: symbol index: (mapped|wrote) $OPKIT_HOME/cache/symbols/.*/libc\.so\.6\.idx for "
run_opkit 0 -v check "$good" --tf 1.12 --runtime host
expect_contains "$work/err" "^opkit: symbol index: mapped $OPKIT_HOME/cache/symbols/.*/libc\.so\.6\.idx for "
check_json bad 1 "$bad" --tf 1.12 --runtime host
expect_contains "$work/err" "symbol index: mapped $index "

# Deleted: the next check remakes it (then maps it); the verdicts stay.
rm "$index"
check_json good-remade 0 "$good" --tf 1.12 --runtime host
expect_contains "$work/err" "^opkit: symbol index: wrote $index for .* \(it was missing\)$"
[ -f "$index" ] || fail "the deleted index was not remade"
check_json bad-remade 1 "$bad" --tf 1.12 --runtime host
expect_contains "$work/err" "symbol index: mapped $index "

# Corrupt (cut short, then foreign): refused and remade, never a crash.
head -c 1000 "$index" >"$work/cut" && cat "$work/cut" >"$index"
check_json bad-cut 1 "$bad" --tf 1.12 --runtime host
expect_contains "$work/err" "symbol index: wrote $index for .* \(it was corrupt: "
echo "not an index" >"$index"
check_json good-foreign 0 "$good" --tf 1.12 --runtime host
expect_contains "$work/err" "symbol index: wrote $index for .* \(it was not an opkit symbol index\)$"

# The same libraries read from their ELF files instead (a captured profile
# keeps its symbols in memory): the same verdicts and findings.
run_opkit 0 profile capture -o sys.json
run_opkit 0 profile capture --lib "$sdk/lib/libtensorflow_framework.so" -o fw.json
python3 - <<'PY'
import json
system, framework = json.load(open("sys.json")), json.load(open("fw.json"))
# --lib records the framework first, then the system libraries.
assert [l["soname"] for l in framework["libraries"][1:]] == [l["soname"] for l in system["libraries"]], framework["libraries"]
system["libraries"] = framework["libraries"]
system["search_paths"] = []
json.dump(system, open("both.json", "w"))
PY
check_json good-elf 0 "$good" --tf 1.12 --profile both.json
check_json bad-elf 1 "$bad" --tf 1.12 --profile both.json
if grep -q "symbol index: mapped $index" "$work/err"; then fail "a profile with its own framework used the SDK's index"; fi
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def report(name):
    r = json.load(open(f"{work}/{name}.json"))
    return r["verdict"], r["findings"], r["stats"]
for kind in ("good", "bad"):
    first = report(kind)
    for other in (f"{kind}-remade", f"{kind}-elf"):
        assert report(other) == first, (other, report(other), first)
assert report("bad-cut") == report("bad") and report("good-foreign") == report("good")
verdict, findings, _ = report("bad")
assert verdict == "fails" and [f["kind"] for f in findings] == ["dual-abi-mismatch"], findings
assert report("good")[0] == "loads"
PY
