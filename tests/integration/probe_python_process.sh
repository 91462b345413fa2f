# The probe loads a library as its framework's Python does. An op that calls
# the Python C API without linking libpython (a PyInit_* stub, a helper
# returning a PyObject*) loads in a real TF or torch process, whose
# interpreter is global there; so does one that needs a library only the
# framework's import loads (_pywrap_tensorflow_internal.so, libtensorflow_cc.so.2).
# The load probe's own process has neither, so `opkit test` loads such a
# library inside the framework's own Python (the release's venv) and says so.
# For TF 1.12.0 and 2.10.1, torch 2.5.1 and 2.8.0, each library is judged by
# the plain load probe (refused: why the Python process is needed), by opkit
# check (default runtime and --runtime host), by `opkit test`, and by the real
# tf.load_op_library / torch.ops.load_library in the release's venv, which
# must all agree but the plain probe.
source "$(dirname "$0")/common.sh"

# What a user's program does: exit 0 loaded, 3 refused.
real_load() { # <python> <framework> <library>
  local rc=0
  TF_CPP_MIN_LOG_LEVEL=3 "$1" - "$2" "$3" >"$work/real.out" 2>&1 <<'PY' || rc=$?
import sys
framework, library = sys.argv[1:]
if framework == "tensorflow":
    import tensorflow as tf
    try:
        tf.load_op_library(library)
    except tf.errors.OpError as refusal:  # NotFoundError, or InvalidArgumentError for a bad registration
        print("refused:", refusal)
        sys.exit(3)
else:
    import torch
    try:
        torch.ops.load_library(library)
    except OSError as refusal:
        print("refused:", refusal)
        sys.exit(3)
print("loaded")
PY
  [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { cat "$work/real.out" >&2; fail "$2's Python crashed ($rc) loading $3"; }
  return "$rc"
}
# judge <framework flag> <version> <sdk id> <library> <python> <reason regex>
judge() {
  local flag=$1 v=$2 id=$3 lib=$4 python=$5 reason=$6 rc=0 runtime
  # The plain probe has no interpreter nor the framework's Python modules.
  local probe_env=()
  [ -d "$OPKIT_HOME/probes/$id/runtime" ] && probe_env=(env "LD_LIBRARY_PATH=$OPKIT_HOME/probes/$id/runtime")
  "${probe_env[@]}" "$OPKIT_HOME/probes/$id/load_probe" "$lib" >"$work/probe.out" 2>&1 || rc=$?
  [ "$rc" -eq 3 ] || { cat "$work/probe.out" >&2; fail "$id: the plain probe loaded $lib (exit $rc)"; }
  real_load "$python" "$([ "$flag" = --tf ] && echo tensorflow || echo torch)" "$lib" ||
    { cat "$work/real.out" >&2; fail "$id: the real framework refused $lib"; }
  for runtime in "" host; do
    run_opkit 0 check "$lib" "$flag" "$v" ${runtime:+--runtime "$runtime"}
  done
  run_opkit 0 test "$lib" "$flag" "$v"
  expect_contains "$work/out" "^$id: loaded .*$(basename "$lib") into the real "
  expect_contains "$work/out" "^  in $id's own Python \(.*-py3\.[0-9]+\): $reason"
  expect_contains "$work/err" "loading $(basename "$lib") in $id's own Python"
  if grep -q 'differs from check' "$work/out"; then fail "$id: a difference said where check and the probe agree"; fi
  run_opkit 0 test "$lib" "$flag" "$v" --json
  expect_json_schema opkit.test-1 "$work/out"
  python3 - "$work/out" <<'PY'
import json, sys
target = json.load(open(sys.argv[1]))["targets"][0]
assert target["ok"] and target["probe"]["loaded"] and target["probe"]["python_process"], target
PY
  echo "$id: ${lib#"$work/"}: the plain probe refuses, check, opkit test and the real loader load it" >&2
}

# --- TensorFlow: an op with a Python C-API helper, and one linked against what `import tensorflow` loads.
run_opkit 0 new capi_op --tf 1.12,2.10.1
cd capi_op
cat >src/capi_op_python.cc <<'CC'
// A helper returning the op's version as a Python int, as ops that ship their
// own Python glue have it. Declared as Python.h does; libpython is not linked:
// in TF's process the interpreter is already there.
extern "C" {
struct _object;
_object* PyLong_FromLong(long value);
__attribute__((visibility("default"))) _object* capi_op_version() { return PyLong_FromLong(1); }
}
CC
sed -i 's|^  - src/capi_op_kernels.cc$|&\n  - src/capi_op_python.cc|' opkit.yaml
grep -q 'src/capi_op_python.cc' opkit.yaml || fail "the template's sources changed: adapt this test"
run_opkit 0 build
run_opkit 0 test # builds the probes, and compares the registrations with opkit.yaml
expect_contains "$work/out" "^  in tensorflow-1\\.12\\.0's own Python \\(tf-1\\.12\\.0-py3\\.6\\): it calls the Python C API"
expect_contains "$work/out" '^  matches opkit\.yaml$'
run_opkit 0 test --python # the releases' venvs, made once (the shared cache)
expect_contains "$work/out" 'all test vectors match'
for v in 1.12.0 2.10.1; do
  python=$(ls "$OPKIT_VENVS"/tf-$v-py3.*/bin/python | head -n 1)
  lib=$work/capi_op/build/tf-$v/libcapi_op.so
  grep -q ' PyLong_FromLong$' <(nm -D --undefined-only "$lib") || fail "$lib does not call PyLong_FromLong"
  grep -q 'NEEDED.*libpython' <(readelf -d "$lib") && fail "$lib links libpython"
  judge --tf "$v" "tensorflow-$v" "$lib" "$python" 'it calls the Python C API \(PyLong_FromLong\) without linking libpython'

  # linked against the first library of the framework's import the venv has, which no SDK keeps
  tf_dir=$("$python" -c 'import os, tensorflow; print(os.path.dirname(tensorflow.__file__))' 2>/dev/null)
  imported=""
  for candidate in libtensorflow_cc.so.2 python/_pywrap_tensorflow_internal.so; do
    [ -f "$tf_dir/$candidate" ] && { imported=$candidate; break; }
  done
  [ -n "$imported" ] || fail "TF $v's venv has neither libtensorflow_cc.so.2 nor _pywrap_tensorflow_internal.so"
  name=$(basename "$imported")
  [ ! -e "$OPKIT_HOME/sdks/tensorflow-$v/lib/$name" ] || fail "the SDK keeps $name"
  mkdir -p "$work/imported-$v"
  mapfile -t objects < <(find "build/tf-$v/obj" -name '*.o' ! -name '*python*' | sort)
  framework=$(basename "$(ls "$OPKIT_HOME/sdks/tensorflow-$v/lib"/libtensorflow_framework.so*)")
  g++ -shared -o "$work/imported-$v/libcapi_op.so" "${objects[@]}" -Wl,--no-as-needed -L"$(dirname "$tf_dir/$imported")" \
    -l:"$name" -L"$OPKIT_HOME/sdks/tensorflow-$v/lib" -l:"$framework"
  grep -q "NEEDED.*\[$name\]" <(readelf -d "$work/imported-$v/libcapi_op.so") || fail "the control library does not need $name"
  judge --tf "$v" "tensorflow-$v" "$work/imported-$v/libcapi_op.so" "$python" "it needs ${name//./\\.}, which \`import tensorflow\` loads"
done
cd "$work"

# --- Where the probe and check differ, `opkit test` says so: a registration TF
# refuses at load (an attr of an unknown type) passes check, which reads the
# files, and fails the load, which runs it.
run_opkit 0 new bad_reg --tf 2.10.1
sed -i 's/\.Attr("T: {int32, float}")/.Attr("T: {int32, nonsense}")/' bad_reg/src/bad_reg_op.cc
grep -q 'nonsense' bad_reg/src/bad_reg_op.cc || fail "the template's attr changed: adapt this test"
(
  cd bad_reg
  run_opkit 0 build
  run_opkit 1 test
  expect_contains "$work/out" '^tensorflow-2\.10\.1: LOAD FAILED '
  expect_contains "$work/out" '^  differs from check: opkit check --runtime host says it loads: .*what failed happened while the library ran at load'
  run_opkit 1 test --json
  python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['targets'][0]; assert not t['ok'] and 'says it loads' in t['check_differs'], t" "$work/out"
)
real_load "$(ls "$OPKIT_VENVS"/tf-2.10.1-py3.*/bin/python | head -n 1)" tensorflow "$work/bad_reg/build/tf-2.10.1/libbad_reg.so" &&
  fail "the real TF 2.10.1 loaded a library with an attr of an unknown type"

# --- torch: cpp_extension's pattern, a PyInit__C stub beside the TORCH_LIBRARY registration.
export OPKIT_HOME="$OPKIT_HOME-torch"
for v in 2.5.1 2.8.0; do
  [ -f "$OPKIT_HOME/sdks/torch-$v-cuda/sdk.json" ] || fail "no torch $v SDK: the sdks_torch fixture (integration.sdk_add_torch) makes it"
done
run_opkit 0 new capi_t -t torch-op
cd capi_t
cat >src/capi_t_module.cpp <<'CC'
// The module stub torch.utils.cpp_extension's examples carry, so that
// `import capi_t._C` finds a module; Python.h's declarations, by hand.
extern "C" {
struct _object;
struct PyModuleDef;
_object* PyModule_Create2(PyModuleDef* definition, int api_version);
}
static char g_module_definition[128]; // never read at load: PyInit__C runs only on import
extern "C" __attribute__((visibility("default"))) _object*
PyInit__C()
{
  return PyModule_Create2(reinterpret_cast<PyModuleDef*>(g_module_definition), 1013);
}
CC
sed -i 's|^      - src/capi_t_autograd.cpp$|&\n      - src/capi_t_module.cpp|' opkit.yaml
grep -q 'src/capi_t_module.cpp' opkit.yaml || fail "the template's sources changed: adapt this test"
run_opkit 0 build
run_opkit 0 test # builds the probes
for v in 2.5.1:3.10 2.8.0:3.11; do
  version=${v%%:*}
  python="$OPKIT_VENVS/torch-$version-py${v##*:}/bin/python"
  [ -x "$python" ] || fail "no torch $version venv in the shared cache (integration.torch_build makes it)"
  lib=$work/capi_t/build/torch-$version-cuda/libcapi_t.so
  grep -q ' PyModule_Create2$' <(nm -D --undefined-only "$lib") || fail "$lib does not call PyModule_Create2"
  judge --torch "$version" "torch-$version-cuda" "$lib" "$python" 'it calls the Python C API \(PyModule_Create2\) without linking libpython'
  # In the project, too: the registration is compared with opkit.yaml there.
  run_opkit 0 test --torch "$version"
  expect_contains "$work/out" '^  matches opkit\.yaml$'
  expect_contains "$work/out" "^  in torch-$version-cuda's own Python"
done
echo "probe_python_process: ok"
