# opkit build --static and opkit package tf-serving: a static archive whose
# registrations survive a whole-archive link (proved in the real framework),
# the Bazel package, and SUPPORTED_TENSORFLOW_OPS edited idempotently.
source "$(dirname "$0")/common.sh"
sdk="$OPKIT_HOME/sdks/tensorflow-2.10.1"

run_opkit 0 new serve_op
cd serve_op
run_opkit 0 build --tf 2.10.1 --static
archive=build/tf-2.10.1/libserve_op.a
[ -f "$archive" ] || fail "no static archive"
ar t "$archive" | sort >"$work/members"
printf '%s\n' serve_op_kernels.cc.o serve_op_op.cc.o >"$work/want"
diff "$work/want" "$work/members" || fail "archive members differ (the compat shim must stay out)"

# Linked with --whole-archive, the registrations survive: the real framework sees the op.
probe="$OPKIT_HOME/probes/tensorflow-2.10.1/load_probe"
run_opkit 0 test --tf 2.10.1   # builds the probe if needed
g++ -shared -o "$work/whole.so" -Wl,--whole-archive "$archive" -Wl,--no-whole-archive -L"$sdk/lib" -l:libtensorflow_framework.so.2
"$probe" "$work/whole.so" >"$work/whole.json"
python3 -c "import json; r=json.load(open('$work/whole.json')); assert [o['name'] for o in r['ops']]==['ServeOp'] and len(r['kernels'])==2, r"
# A plain link drops them: nothing references the static initializers.
echo 'int unrelated() { return 0; }' >"$work/unrelated.cc"
g++ -shared -fPIC -o "$work/plain.so" "$work/unrelated.cc" "$archive" -L"$sdk/lib" -l:libtensorflow_framework.so.2
"$probe" "$work/plain.so" >"$work/plain.json"
python3 -c "import json; r=json.load(open('$work/plain.json')); assert r['ops']==[] and r['kernels']==[], r"

# --- a tensorflow/serving checkout, its model_servers/BUILD shaped like the real one
serving="$work/serving"
mkdir -p "$serving/tensorflow_serving/model_servers"
cat >"$serving/tensorflow_serving/model_servers/BUILD" <<'BUILD'
# Description: Model Server

load("//tensorflow_serving:serving.bzl", "serving_tensorflow_proto_dep")
load("@org_tensorflow//tensorflow:tensorflow.bzl", "if_not_v2", "if_v2")

package(
    default_visibility = ["//tensorflow_serving:internal"],
    features = ["-layering_check"],
)

SUPPORTED_TENSORFLOW_OPS = if_v2([]) + if_not_v2([
    "@org_tensorflow//tensorflow/contrib:contrib_kernels",
    "@org_tensorflow//tensorflow/contrib:contrib_ops_op_lib",
]) + [
    "@org_tensorflow_text//tensorflow_text:ops_lib",
    # Support for TensorFlow Decision Forests inference ops.
    "@org_tensorflow_decision_forests//tensorflow_decision_forests/tensorflow/ops/inference:kernel_and_op",
]

cc_library(
    name = "server_lib",
    deps = [
        ":server_core",
    ] + SUPPORTED_TENSORFLOW_OPS,
)
BUILD
cp "$serving/tensorflow_serving/model_servers/BUILD" "$work/BUILD.orig"

# --dry-run: the bundle's files and what the checkout would get; nothing written.
trees_state() { (find "$work/serve_op" "$serving" -printf '%p %s %T@\n' 2>/dev/null | grep -v "^$work/serve_op/build/" | sort); }
state_before=$(trees_state)
run_opkit 0 package tf-serving --serving-dir "$serving" --dry-run
expect_contains "$work/out" '^would write .*dist/tf-serving/serve_op \([0-9]+ files, [0-9]+ bytes\); nothing written \(--dry-run\)$'
expect_contains "$work/out" '^ +[0-9]+  BUILD$'
expect_contains "$work/out" '^ +[0-9]+  src/serve_op_kernels\.cc$'
expect_contains "$work/out" 'custom_ops/serve_op: would be written$'
expect_contains "$work/out" '^model_servers/BUILD: would get the label in SUPPORTED_TENSORFLOW_OPS$'
run_opkit 0 package tf-serving --serving-dir "$serving" --dry-run --json
expect_json_schema opkit.package-tf-serving-1 "$work/out"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['written'] is False and r['build_changed'] and r['bundle_changed'] and any(f['path'] == 'BUILD' for f in r['files']), r" "$work/out" ||
  fail "package tf-serving --dry-run --json"
[ "$(trees_state)" = "$state_before" ] || fail "package tf-serving --dry-run wrote something"

run_opkit 0 package tf-serving --serving-dir "$serving"
expect_contains "$work/out" '^label:   //tensorflow_serving/custom_ops/serve_op:serve_op_ops$'
expect_contains "$work/out" 'model_servers/BUILD: label added to SUPPORTED_TENSORFLOW_OPS'
bundle="$serving/tensorflow_serving/custom_ops/serve_op"
for f in BUILD src/serve_op_op.cc src/serve_op_kernels.cc opkit-manifest.json; do
  [ -f "$bundle/$f" ] || fail "bundle lacks $f"
done
expect_contains "$bundle/BUILD" '^    name = "serve_op_ops",$'
expect_contains "$bundle/BUILD" '^    alwayslink = 1,$'
expect_contains "$bundle/BUILD" '"@org_tensorflow//tensorflow/core:framework",'
expect_contains "$bundle/BUILD" '"src/serve_op_kernels\.cc",'
run_opkit 0 package verify "$bundle"
# The label went into the last list, indented like its neighbours, the previous item kept.
diff "$work/BUILD.orig" "$serving/tensorflow_serving/model_servers/BUILD" >"$work/diff" || true
printf '%s\n' '17a18' '>     "//tensorflow_serving/custom_ops/serve_op:serve_op_ops",' >"$work/want"
diff "$work/want" "$work/diff" || fail "BUILD edit differs"
# The patch written beside the bundle applies to the original file.
cp "$work/BUILD.orig" "$work/BUILD.patched"
patch -s "$work/BUILD.patched" <dist/tf-serving/model_servers_BUILD.patch
cmp "$work/BUILD.patched" "$serving/tensorflow_serving/model_servers/BUILD" || fail "patch and in-place edit differ"

# A second run changes nothing.
before=$(cd "$serving" && find . -type f -exec sha256sum {} + | sort; find . -newer "$work/BUILD.orig" | sort)
sleep 1
run_opkit 0 package tf-serving --serving-dir "$serving"
expect_contains "$work/out" 'model_servers/BUILD: unchanged \(label already listed\)'
expect_contains "$work/out" "custom_ops/serve_op: unchanged"
after=$(cd "$serving" && find . -type f -exec sha256sum {} + | sort; find . -newer "$work/BUILD.orig" | sort)
[ "$before" = "$after" ] || fail "the second run changed the checkout"
[ ! -s dist/tf-serving/model_servers_BUILD.patch ] || fail "the second run's patch is not empty"

# --patch writes the patch and leaves the checkout alone.
cp "$work/BUILD.orig" "$serving/tensorflow_serving/model_servers/BUILD"
run_opkit 0 package tf-serving --serving-dir "$serving" --patch
cmp "$work/BUILD.orig" "$serving/tensorflow_serving/model_servers/BUILD" || fail "--patch edited BUILD"
expect_contains dist/tf-serving/model_servers_BUILD.patch '^\+    "//tensorflow_serving/custom_ops/serve_op:serve_op_ops",$'

# Not a serving checkout: one line, exit 2.
run_opkit 2 package tf-serving --serving-dir "$work"
expect_one_error_line
expect_contains "$work/err" 'not a tensorflow/serving checkout'
