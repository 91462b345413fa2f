# The tf-serving-op template: the op builds (shared and static) for TF 2.10.1
# and registers in the real framework; its Bazel package and the
# SUPPORTED_TENSORFLOW_OPS edit come from the same code as `opkit package
# tf-serving`; export_model.py makes a SavedModel with the op in a real TF.
source "$(dirname "$0")/common.sh"
source "$OPKIT_TEST_HOME/python-tf.env"   # TF_VERSION, PYTHON
export TF_CPP_MIN_LOG_LEVEL=3

run_opkit 0 new hash_bucket --template tf-serving-op
cd hash_bucket
python3 - <<'PY'
import re, pathlib
root = pathlib.Path(".")
yaml = (root / "opkit.yaml").read_text()
assert re.search(r"^template: tf-serving-op$", yaml, re.M) and 'tensorflow: ["2.10.1"]' in yaml
assert re.findall(r'REGISTER_OP\("(\w+)"\)', (root / "src/hash_bucket_op.cc").read_text()) == ["HashBucket"]
assert "from hash_bucket_ops import hash_bucket" in (root / "export_model.py").read_text()
readme = (root / "README.md").read_text()
assert "//tensorflow_serving/custom_ops/hash_bucket:hash_bucket_ops" in readme and "--model_name=hash_bucket" in readme
print("consistent")
PY
run_opkit 0 build --static --tf "2.10.1,$TF_VERSION"
[ -f build/tf-2.10.1/libhash_bucket.a ] || fail "no static archive"
run_opkit 0 test --tf 2.10.1
expect_contains "$work/out" '^  kernel HashBucket on CPU: T in \{float\}$'
expect_contains "$work/out" '^  matches opkit.yaml$'

serving="$work/serving"
mkdir -p "$serving/tensorflow_serving/model_servers"
printf 'SUPPORTED_TENSORFLOW_OPS = if_v2([]) + if_not_v2([\n    "@org_tensorflow//tensorflow/contrib:contrib_kernels",\n]) + [\n    "@org_tensorflow_text//tensorflow_text:ops_lib",\n]\n' \
  >"$serving/tensorflow_serving/model_servers/BUILD"
run_opkit 0 package tf-serving --serving-dir "$serving"
expect_contains "$serving/tensorflow_serving/model_servers/BUILD" '^    "//tensorflow_serving/custom_ops/hash_bucket:hash_bucket_ops",$'
expect_contains "$serving/tensorflow_serving/custom_ops/hash_bucket/BUILD" '^    alwayslink = 1,$'
run_opkit 0 package tf-serving --serving-dir "$serving"
expect_contains "$work/out" 'unchanged \(label already listed\)'

# export_model.py, with a real TF and the op built for it, writes a servable SavedModel.
"$PYTHON" export_model.py "$work/models/hash_bucket" 7 >"$work/export.out"
[ -f "$work/models/hash_bucket/7/saved_model.pb" ] || fail "no SavedModel"
grep -q HashBucket "$work/models/hash_bucket/7/saved_model.pb" || fail "the SavedModel does not use HashBucket"
"$PYTHON" - "$work/models/hash_bucket/7" <<'PY'
import sys, os, tensorflow as tf
sys.path.insert(0, "python")
import hash_bucket_ops  # registers HashBucket, as the model server's static link does
model = tf.saved_model.load(sys.argv[1])
out = model.signatures["serving_default"](x=tf.constant([5.0, 6.0]))["zeroed"].numpy()
assert list(out) == [5.0, 0.0], out
print("served signature ran:", list(out))
PY
