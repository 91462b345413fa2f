# The wheel and SavedModel packages, used by a real TensorFlow from Python:
# pip installs the wheel and the op runs; the library and fg.json go into the
# assets of a SavedModel that TensorFlow itself exported, and load from there.
source "$(dirname "$0")/common.sh"
source "$OPKIT_TEST_HOME/python-tf.env"   # TF_VERSION, PYTHON (the python_tf fixture)
export TF_CPP_MIN_LOG_LEVEL=3

run_opkit 0 new py_op
cd py_op
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init
run_opkit 0 build --tf "1.12,2.10.1,$TF_VERSION"

pip="$(dirname "$PYTHON")/pip"
# The venv is shared across runs: start from a venv without this test's package.
"$pip" uninstall --quiet --yes py_op >/dev/null 2>&1 || true
# --- a wheel for the venv's TF alone: it requires no TensorFlow, so pip installs it alone
run_opkit 0 package wheel --tf "$TF_VERSION" -o dist-one
one=$(ls dist-one/py_op-0.1.0-py3-none-manylinux_*.whl)
expect_contains "$work/out" "requires no TensorFlow distribution"
"$pip" install --quiet --dry-run --report "$work/report.json" "$one"
python3 -c "import json; r=json.load(open('$work/report.json')); names=[i['metadata']['name'] for i in r['install']]; assert names==['py_op'], names"
"$pip" install --quiet "$one"
"$PYTHON" -c "import py_op, numpy as np; assert list(py_op.py_op(np.array([3, 4], dtype=np.int32)).numpy()) == [3, 0]"
"$pip" uninstall --quiet --yes py_op

# --- the wheel for all three versions: the wrapper picks the running TF's library
run_opkit 0 package wheel --tf "1.12,2.10.1,$TF_VERSION"
wheel=$(ls dist/py_op-0.1.0-py3-none-manylinux_*.whl)
run_opkit 0 package verify "$wheel"
# 1.12 is `tensorflow`, the others `tensorflow-cpu`: still nothing but the wheel to install.
"$pip" install --quiet --dry-run --report "$work/report.json" "$wheel"
python3 -c "import json; r=json.load(open('$work/report.json')); names=[i['metadata']['name'] for i in r['install']]; assert names==['py_op'], names"
"$pip" install --quiet "$wheel"
(cd "$work" && "$PYTHON" - <<'PY')
import numpy as np, py_op, tensorflow as tf
out = py_op.py_op(np.array([[7, 3], [2, 9]], dtype=np.int32)).numpy()
assert (out == np.array([[7, 0], [0, 0]])).all(), out
out = py_op.py_op(tf.constant([1.5, 2.5, 3.5])).numpy()
assert list(out) == [1.5, 0.0, 0.0], out
assert py_op.py_op_ops._library_path().endswith("/py_op/tf-%s/libpy_op.so" % tf.__version__)
print("wheel: PyOp ran in TensorFlow", tf.__version__)
PY
"$pip" uninstall --quiet --yes py_op

# --- the SavedModel
"$PYTHON" - "$work/export" <<'PY'
import sys, tensorflow as tf
class Plus(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        return x + 1.0
tf.saved_model.save(Plus(), sys.argv[1])
PY
echo '{"features": []}' >"$work/fg.json"
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION" --asset "$work/fg.json"
expect_contains "$work/out" '^  libpy_op\.so$'
expect_contains "$work/out" '^  fg\.json$'
expect_contains "$work/out" '^  opkit-manifest\.json$'
first=$(cd "$work/export" && find assets -type f -exec sha256sum {} + | sort)
run_opkit 0 package saved-model "$work/export" --tf "$TF_VERSION" --asset "$work/fg.json"
second=$(cd "$work/export" && find assets -type f -exec sha256sum {} + | sort)
[ "$first" = "$second" ] || fail "a second saved-model run changed assets/"
[ -z "$(find "$work/export" -maxdepth 1 -name '.opkit-partial.*')" ] || fail "staging left behind"
run_opkit 0 package verify "$work/export/assets"
"$PYTHON" - "$work/export" <<'PY'
import os, sys, numpy as np, tensorflow as tf
export = sys.argv[1]
lib = tf.load_op_library(os.path.join(export, "assets", "libpy_op.so"))
assert (lib.py_op(np.array([4, 5], dtype=np.int32)).numpy() == [4, 0]).all()
model = tf.saved_model.load(export)
assert model(tf.constant([1.0])).numpy()[0] == 2.0
print("saved-model: loaded, op ran from assets/")
PY

# --- failures leave nothing behind
run_opkit 2 package saved-model "$work/no-such-export" --tf "$TF_VERSION"
expect_one_error_line
expect_contains "$work/err" 'no-such-export: no such SavedModel folder'
[ ! -e "$work/no-such-export" ] || fail "a missing export folder was created"
mkdir -p "$work/not-a-model"
run_opkit 2 package saved-model "$work/not-a-model" --tf "$TF_VERSION"
expect_one_error_line
expect_contains "$work/err" 'not a SavedModel \(no saved_model\.pb or saved_model\.pbtxt\)'
[ -z "$(ls -A "$work/not-a-model")" ] || fail "assets were written into a non-SavedModel"
# A library opkit check refuses is refused here too, unless --force.
run_opkit 0 build --tf 1.12 --abi 1 --no-check --build-dir build-bad
# (a model TF 1.12 wrote, in text format: a 2.15 model would be refused for its version first)
mkdir -p "$work/export2"
printf 'saved_model_schema_version: 1\nmeta_graphs {\n  meta_info_def {\n    tags: "serve"\n    tensorflow_version: "1.12.0"\n  }\n}\n' \
  >"$work/export2/saved_model.pbtxt"
before=$(cd "$work/export2" && find . -type f -exec sha256sum {} + | sort)
run_opkit 1 package saved-model "$work/export2" --tf 1.12 --build-dir build-bad
expect_one_error_line
expect_contains "$work/err" 'would not load in tensorflow 1\.12\.0 on tensorflow-1\.12: \[dual-abi-mismatch\]'
after=$(cd "$work/export2" && find . -type f -exec sha256sum {} + | sort)
[ "$before" = "$after" ] || fail "a refused saved-model run changed the export"
