# One source of truth for an op's interface: `opkit test` reads it from TF's own
# registry (attr defaults, string enums, minimums, kernels) in 1.12 and 2.10.1,
# records it in opkit.lock (byte for byte the same on a second run), fails on a
# changed default with a readable diff until `--update` accepts it, names a
# default that differs between versions, and compares an `ops:` contract in
# TensorFlow's attr grammar (tests/fixtures/locked_op).
source "$(dirname "$0")/common.sh"

cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/locked_op" locked_op
cd locked_op
[ ! -e opkit.lock ] || fail "the fixture must not carry an opkit.lock"

run_opkit 0 build --tf 1.12,2.10.1 -j 2
expect_contains "$work/out" '^tf-1\.12\.0 +built'
expect_contains "$work/out" '^tf-2\.10\.1 +built'

# The first test writes the lock, and says so.
run_opkit 0 test
expect_contains "$work/out" '^opkit\.lock: written'
[ -f opkit.lock ] || fail "no opkit.lock written"
for v in 1.12.0 2.10.1; do
  python3 - opkit.lock "$v" <<'PY'
import sys
text, version = open(sys.argv[1]).read(), sys.argv[2]
section = text[text.index(f"library locked_op tensorflow-{version}\n"):]
section = section.split("\n\n")[0]
salt = "v2" if version.startswith("2.") else "v1"
expected = f"""library locked_op tensorflow-{version}
op LockedClip
  input x: T
  output y: T
  attr T: {{float, double}} = float
  attr clip: float = 100
  attr data_format: {{"NHWC", "NCHW"}} = "NHWC"
  attr n: int >= 1 = 2
  attr salt: string = "{salt}"
kernel LockedClip CPU T in {{double}}
kernel LockedClip CPU T in {{float}}
"""
assert section.rstrip("\n") == expected.rstrip("\n"), (section, expected)
PY
done
# Nothing of this machine or this run in it.
if grep -Fq -e "$work" -e "$HOME" -e "$OPKIT_HOME" opkit.lock; then fail "opkit.lock holds a path"; fi
# The default that differs between the versions is named (informational: exit 0).
expect_contains "$work/out" '^differs between versions: locked_op: tensorflow-1\.12\.0 -> tensorflow-2\.10\.1: LockedClip: attr salt: default "v1" -> "v2"$'
expect_contains "$work/out" '^  attr   data_format: \{"NHWC", "NCHW"\} = "NHWC"$'

# A second run: passes, and leaves the lock byte for byte as it was.
cp opkit.lock "$work/lock.first"
run_opkit 0 test
[ "$(grep -c '^  matches opkit\.lock$' "$work/out")" -eq 2 ] || fail "not matched with the lock twice"
expect_contains "$work/out" '^opkit\.lock: unchanged$'
cmp opkit.lock "$work/lock.first" || fail "a second opkit test changed opkit.lock"

# --json: the interface (defaults, enums, minimums) and the lock's status, valid against opkit.test/1.
run_opkit 0 test --json
expect_json_schema opkit.test-1 "$work/out"
python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["lock"] == {"file": "opkit.lock", "action": "unchanged"}, report["lock"]
assert report["version_differences"] == [
    'locked_op: tensorflow-1.12.0 -> tensorflow-2.10.1: LockedClip: attr salt: default "v1" -> "v2"'], report
for target in report["targets"]:
    assert target["lock"] == {"state": "same", "changes": []}, target["lock"]
    assert target["compared"] is False, "a library without ops: was compared with opkit.yaml"
    attrs = {a["name"]: a for a in target["probe"]["ops"][0]["attrs"]}
    assert attrs["clip"]["default"] == "100" and attrs["clip"]["spec"] == "clip: float = 100", attrs["clip"]
    assert attrs["data_format"]["allowed"] == ["NHWC", "NCHW"], attrs["data_format"]
    assert attrs["n"]["minimum"] == 1 and attrs["n"]["default"] == "2", attrs["n"]
    assert attrs["T"]["default"] == "float", attrs["T"]
PY

# A default changed in C++: exit 1, the diff names the attr, old and new default; the lock is kept.
sed -i 's/clip: float = 100.0/clip: float = 50.5/' src/locked_clip.cc
grep -q 'clip: float = 50.5' src/locked_clip.cc || fail "could not change the default"
run_opkit 1 test
[ "$(grep -c '^  CHANGED LockedClip: attr clip: default 100 -> 50\.5$' "$work/out")" -eq 2 ] ||
  fail "the changed default is not named for both versions"
expect_contains "$work/out" '^opkit\.lock: not updated: an interface changed \(`opkit test --update` accepts it\)$'
cmp opkit.lock "$work/lock.first" || fail "a refused change rewrote opkit.lock"
# --update accepts it and rewrites the lock; then the test passes.
run_opkit 0 test --update
expect_contains "$work/out" '^  ACCEPTED LockedClip: attr clip: default 100 -> 50\.5$'
expect_contains "$work/out" '^opkit\.lock: updated$'
[ "$(grep -c '^  attr clip: float = 50\.5$' opkit.lock)" -eq 2 ] || fail "the lock does not hold the new default"
cp opkit.lock "$work/lock.updated"
run_opkit 0 test
expect_contains "$work/out" '^opkit\.lock: unchanged$'
cmp opkit.lock "$work/lock.updated" || fail "opkit test changed the accepted lock"

# An `ops:` contract in TensorFlow's attr grammar: a default that disagrees with the registry fails, naming it.
cat >>opkit.yaml <<'YAML'
    ops:
      - name: LockedClip
        inputs: ["x: T"]
        outputs: ["y: T"]
        attrs:
          - "T: {float, double} = DT_FLOAT"
          - "clip: float = 100.0"
          - "data_format: {'NHWC', 'NCHW'} = 'NHWC'"
          - "n: int >= 1 = 2"
          - {name: salt, type: string}
        kernels:
          - device: CPU
            constraints: {T: [float, double]}
YAML
run_opkit 1 test
[ "$(grep -c '^  MISMATCH LockedClip attr clip: opkit\.yaml declares default 100, the library registered default 50\.5$' "$work/out")" -eq 2 ] ||
  fail "the contract's default is not named as a mismatch in both versions"
expect_contains "$work/out" '^opkit\.lock: unchanged$'
sed -i 's/"clip: float = 100.0"/"clip: float = 50.5"/' opkit.yaml
run_opkit 0 test
[ "$(grep -c '^  matches opkit\.yaml$' "$work/out")" -eq 2 ] || fail "the corrected contract does not match twice"
# An enum or a minimum stated otherwise is named too.
sed -i "s/\"n: int >= 1 = 2\"/\"n: int >= 2 = 2\"/" opkit.yaml
run_opkit 1 test --tf 2.10.1
expect_contains "$work/out" '^  MISMATCH LockedClip attr n: opkit\.yaml declares minimum 2, the library registered minimum 1$'
sed -i "s/\"n: int >= 2 = 2\"/\"n: int >= 1 = 2\"/; s/{'NHWC', 'NCHW'}/{'NHWC', 'NCDHW'}/" opkit.yaml
run_opkit 1 test --tf 2.10.1
expect_contains "$work/out" '^  MISMATCH LockedClip attr data_format: opkit\.yaml declares \{"NHWC", "NCDHW"\}, the library registered \{"NHWC", "NCHW"\}$'

# A bad attr spec: one error line, file:line:col, exit 2.
sed -i "s/{'NHWC', 'NCDHW'}/{'NHWC', 'NCHW'}/; s/\"n: int >= 1 = 2\"/\"n: int >= 1 = two\"/" opkit.yaml
run_opkit 2 test --tf 2.10.1
expect_one_error_line
expect_contains "$work/err" "opkit\.yaml:[0-9]+:[0-9]+: attr 'n: int >= 1 = two': expected an integer, found 'two'"
sed -i 's/"n: int >= 1 = two"/"n: int >= 1 = 2"/' opkit.yaml

# A damaged lock: one error line naming file:line:col, exit 2, and the file left as it was.
sed -i 's/^  attr n: int >= 1 = 2$/  attr n: int >= = 2/' opkit.lock
cp opkit.lock "$work/lock.damaged"
run_opkit 2 test
expect_one_error_line
expect_contains "$work/err" 'opkit\.lock:[0-9]+:[0-9]+: expected an integer'
cmp opkit.lock "$work/lock.damaged" || fail "a damaged lock was rewritten"
