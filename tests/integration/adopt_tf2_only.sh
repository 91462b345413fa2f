# An adopted tree whose every library needs TF >= 2.0 (namespaced op names),
# with dtypes spelled float32/float64 in REGISTER_OP (tests/fixtures/scaled_ops).
# `opkit init --tf 1.12,2.10.1`, then build, test and package with no edits:
# 1.12 has nothing to build and is skipped with its reason, never a failure;
# the Python spellings are TensorFlow's float and double, as its registry says.
source "$(dirname "$0")/common.sh"

cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/scaled_ops" scaled_ops
cd scaled_ops

run_opkit 0 init --tf 1.12,2.10.1 --ops   # ops: too, to show the spellings normalised
python3 - opkit.yaml <<'PY'
import sys
text = open(sys.argv[1]).read()
assert 'tensorflow: ">=2.0"' in text, text          # what init itself writes for namespaced names
assert "float32" not in text and "float64" not in text, text  # normalised as TF's registry prints them
assert '- "T: {float, double}"' in text, text     # the attr as TF's grammar states it, dtypes normalised
assert "type: float" in text, text
PY

# build: 1.12 skipped with the reason, 2.10.1 built, exit 0; no build.ninja for 1.12.
run_opkit 0 build
expect_contains "$work/out" '^tf-1\.12\.0 +skipped +nothing to build: no library is for TensorFlow 1\.12\.0$'
expect_contains "$work/out" '^ +skipped [a-z_]+ \(tensorflow >=2\.0\)$'
expect_contains "$work/out" '^tf-2\.10\.1 +built'
[ ! -e build/tf-1.12.0/build.ninja ] || fail "a build.ninja for a version with nothing to build"
ls build/tf-2.10.1/*.so >/dev/null || fail "nothing built for 2.10.1"
run_opkit 0 build --json
python3 - "$work/out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
status = {t["version"]: t["status"] for t in report["targets"]}
assert status == {"1.12.0": "skipped", "2.10.1": "up_to_date"}, status
assert report["ok"], report
PY
# Only the version with nothing: still a skip, exit 0.
run_opkit 0 build --tf 1.12
expect_contains "$work/out" '^tf-1\.12\.0 +skipped'

# test: the same skip line, 2.10.1 probed in the real framework: the registry
# says float and double for what the source spells float32 and float64.
run_opkit 0 test
expect_contains "$work/out" '^tensorflow-1\.12\.0: nothing to test: no library is for TensorFlow 1\.12\.0 \([a-z_]+: tensorflow >=2\.0\)$'
expect_contains "$work/out" '^  op     Scaled>RowNorm\(rows: float\) -> \(norms: float, nonzero: int64\)$'
expect_contains "$work/out" '^  attr   T: \{float, double\}$'
expect_contains "$work/out" '^  matches opkit\.yaml$'
if grep -q 'building tensorflow-1.12.0 first' "$work/err"; then fail "test rebuilt a version with nothing to build"; fi

# A hand-written opkit.yaml may use the Python spellings too, in either form of an attr.
sed -i 's/- "T: {float, double}"/- {name: T, type: type, allowed: [float32, float64]}/' opkit.yaml
grep -q 'allowed: \[float32, float64\]' opkit.yaml || fail "the fixture's opkit.yaml changed shape"
run_opkit 0 test --tf 2.10.1 --no-build
expect_contains "$work/out" '^  matches opkit\.yaml$'
sed -i 's/- {name: T, type: type, allowed: \[float32, float64\]}/- "T: {float32, float64}"/' opkit.yaml
grep -q '"T: {float32, float64}"' opkit.yaml || fail "the fixture's opkit.yaml changed shape"
run_opkit 0 test --tf 2.10.1 --no-build
expect_contains "$work/out" '^  matches opkit\.yaml$'

# package: the skip line, and a wheel with the 2.10.1 library alone (the
# wheel carries the project's own Python wrapper, which the fixture leaves out).
mkdir -p python
echo '"""Ops of scaled_ops, loaded for the installed TensorFlow."""' >python/scaled_ops_ops.py
run_opkit 0 package wheel --output-dir "$work/dist"
expect_contains "$work/err" 'tensorflow-1\.12\.0: nothing to package: no library is for TensorFlow 1\.12\.0'
python3 - "$work/dist" <<'PY'
import glob, sys, zipfile
wheels = glob.glob(sys.argv[1] + "/*.whl")
assert len(wheels) == 1, wheels
names = zipfile.ZipFile(wheels[0]).namelist()
libraries = [n for n in names if n.endswith(".so")]
assert libraries and all("tf-2.10.1/" in n for n in libraries), names
PY
echo "PASS: $test_name"
