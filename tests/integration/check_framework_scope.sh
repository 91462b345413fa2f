# Issue 17: opkit check and opkit test judge as TensorFlow's Python loads an op.
# TF's Python imports the framework without RTLD_GLOBAL, so an op library
# linked without -ltensorflow_framework (no DT_NEEDED on it) is refused by
# tf.load_op_library with "undefined symbol". Control libraries: the objects
# opkit build compiled, linked once properly (opkit build) and once without the
# framework. For each, opkit check (every runtime), the probe and the real
# tf.load_op_library of TF 1.12.0 and 2.10.1 (the venvs of `opkit test
# --python`) must agree.
source "$(dirname "$0")/common.sh"
run_opkit 0 new scope_op --tf 1.12,2.10.1
cd scope_op
run_opkit 0 build
run_opkit 0 test                     # builds the probes; the proper libraries load
run_opkit 0 test --python            # makes the venvs when the cache has none
python_of() { case $1 in 1.12.0) echo "$OPKIT_VENVS/tf-1.12.0-py3.6/bin/python" ;; *) echo "$OPKIT_VENVS/tf-2.10.1-py3.10/bin/python" ;; esac; }
real_load() { # <version> <library>: exit 0 loaded, 3 refused (message in $work/real.out)
  local rc=0
  TF_CPP_MIN_LOG_LEVEL=3 "$(python_of "$1")" -c '
import sys, tensorflow as tf
try:
    tf.load_op_library(sys.argv[1])
except tf.errors.NotFoundError as e:
    print("NotFoundError:", e)
    sys.exit(3)
print("loaded")' "$2" >"$work/real.out" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { cat "$work/real.out" >&2; fail "TF $1 crashed ($rc) loading $2"; }
  return "$rc"
}
check_json() { # <expected verdict> <json file> [finding kind]
  python3 - "$@" <<'PY'
import json, sys
verdict, path, kinds = sys.argv[1], sys.argv[2], sys.argv[3:]
report = json.load(open(path))
assert report["verdict"] == verdict, (verdict, report)
for kind in kinds:
    found = [f for f in report["findings"] if f["kind"] == kind]
    assert found, (kind, [f["kind"] for f in report["findings"]])
    f = found[0]
    names = [s["mangled"] for s in f["symbols"]]
    assert "_ZTIN10tensorflow8OpKernelE" in names, names
    assert "libtensorflow_framework" in f["summary"] and "DT_NEEDED" in f["summary"], f["summary"]
    assert "RTLD_GLOBAL" in f["diagnosis"], f["diagnosis"]
PY
}
for v in 1.12.0 2.10.1; do
  good=$work/scope_op/build/tf-$v/libscope_op.so
  bad_dir=$work/no-framework-$v && mkdir -p "$bad_dir"
  bad=$bad_dir/libscope_op.so
  mapfile -t objects < <(find "build/tf-$v/obj" -name '*.o' | sort)
  [ ${#objects[@]} -ge 2 ] || fail "no objects of the build for $v"
  g++ -shared -o "$bad" "${objects[@]}"
  grep -q 'NEEDED.*libtensorflow_framework' <(readelf -d "$bad") && fail "the control library needs the framework"
  grep -q 'NEEDED.*libtensorflow_framework' <(readelf -d "$good") || fail "opkit build did not link the framework"
  nm -D --undefined-only "$bad" >"$work/undefined"
  grep -q '_ZTIN10tensorflow8OpKernelE' "$work/undefined" || fail "the control library does not use OpKernel's typeinfo"

  # opkit check: the default runtime, this machine, and the policies.
  for runtime in "" host manylinux2014 manylinux_2_28; do
    args=(check "$bad" --tf "$v" --json)
    [ -z "$runtime" ] || args+=(--runtime "$runtime")
    run_opkit 1 "${args[@]}"
    check_json fails "$work/out" framework-not-needed
    args[1]=$good
    run_opkit 0 "${args[@]}"
    check_json loads "$work/out"
  done
  run_opkit 1 check "$bad" --tf "$v" --runtime host
  expect_contains "$work/out" 'error \[framework-not-needed\] uses [0-9]+ symbols of libtensorflow_framework\.so(\.[0-9])? \(first: .*\) but has no DT_NEEDED on it'

  # The probe loads the framework RTLD_LOCAL, as TF's Python does.
  rc=0
  "$OPKIT_HOME/probes/tensorflow-$v/load_probe" "$bad" >"$work/probe.out" 2>&1 || rc=$?
  [ "$rc" -eq 3 ] || { cat "$work/probe.out" >&2; fail "the probe loaded $bad (exit $rc)"; }
  expect_contains "$work/probe.out" '"loaded":false,"error":".*undefined symbol: _ZTIN10tensorflow8OpKernelE'
  "$OPKIT_HOME/probes/tensorflow-$v/load_probe" "$good" >"$work/probe.out" 2>&1 || fail "the probe refused $good: $(cat "$work/probe.out")"
  expect_contains "$work/probe.out" '"loaded":true'
  grep -q 'NEEDED.*\(libtensorflow_framework\|libstdc++\)' <(readelf -d "$OPKIT_HOME/probes/tensorflow-$v/load_probe") \
    && fail "the probe executable links the framework or libstdc++: they would be global"

  # The same through `opkit test LIBRARY --tf V`, with no project (from a folder without opkit.yaml).
  (
    cd "$bad_dir"
    run_opkit 0 test "$good" --tf "$v"
    expect_contains "$work/out" "^tensorflow-$v: loaded .*/libscope_op\.so into the real libtensorflow_framework"
    expect_contains "$work/out" '^  op     ScopeOp\(to_zero: T\) -> \(zeroed: T\)$'
    expect_contains "$work/out" '^  kernel ScopeOp on CPU: T in \{int32\}$'
    grep -q 'opkit.yaml' "$work/out" && fail "a prebuilt library was compared with an opkit.yaml"
    run_opkit 0 test "$good" --tf "$v" --json
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=d['targets'][0]; assert d['ok'] and not t['compared'] and [o['name'] for o in t['probe']['ops']]==['ScopeOp'], d" "$work/out"
    run_opkit 1 test "$bad" --tf "$v"
    expect_contains "$work/out" "^tensorflow-$v: LOAD FAILED .*libscope_op\.so"
    expect_contains "$work/out" 'undefined symbol: _ZTIN10tensorflow8OpKernelE'
  )

  # The real TensorFlow agrees.
  rc=0; real_load "$v" "$bad" || rc=$?
  [ "$rc" -eq 3 ] || { cat "$work/real.out" >&2; fail "real TF $v loaded the library without the framework"; }
  expect_contains "$work/real.out" 'undefined symbol: _ZTIN10tensorflow8OpKernelE'
  real_load "$v" "$good" || { cat "$work/real.out" >&2; fail "real TF $v refused $good"; }
  echo "TF $v: check, probe and tf.load_op_library agree (without the framework: refused; linked: loads)" >&2
done
echo "check_framework_scope: ok"
