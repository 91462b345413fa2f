# Issue 17: a diagnosis names what the library's spelling shows. A library
# built for TF 2.10.1, checked against 2.15.1 with both SDKs imported: the
# symbols 2.15.1's framework lacks are all exported by 2.10.1's, so the
# finding says it was built for 2.10.1 instead of listing every possible cause.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$work/home"
run_opkit 0 -q sdk add "$(wheel_for 2.10.1)"
run_opkit 0 -q sdk add "$(wheel_for 2.15.1-cp311)"
run_opkit 0 new skew_op --tf 2.10.1
cd skew_op
run_opkit 0 build
run_opkit 1 check build/tf-2.10.1/libskew_op.so --tf 2.15.1
expect_contains "$work/out" 'error \[framework-version-skew\] [0-9]+ TensorFlow symbols? (is|are) not in TF 2\.15\.1.s framework library, but in TF 2\.10\.1.s$'
expect_contains "$work/out" 'why: the library was built against TF 2\.10\.1 '
run_opkit 1 check build/tf-2.10.1/libskew_op.so --tf 2.15.1 --json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); k=[f['kind'] for f in r['findings']]; assert 'framework-version-skew' in k and 'framework-symbol-missing' not in k, k" "$work/out"
# Without the 2.10.1 SDK there is no version to name: the finding says so no more.
run_opkit 0 -q sdk remove tensorflow-2.10.1
run_opkit 1 check build/tf-2.10.1/libskew_op.so --tf 2.15.1
grep -q 'but in TF 2\.10\.1' "$work/out" && fail "a version was named with its SDK removed"
echo "check_diagnoses: ok"
