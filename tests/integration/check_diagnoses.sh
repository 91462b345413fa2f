# Issue 17: a diagnosis names what the library's spelling shows. A library
# built for TF 2.10.1, checked against 2.15.1 with both SDKs imported: the
# symbols 2.15.1's framework lacks are all exported by 2.10.1's, so the
# finding says it was built for 2.10.1 instead of listing every possible cause.
# A prebuilt copy of it gets a remedy that fits: the release to install.
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
# The project's own library: the remedy is the opkit build line, and the JSON
# has no built_for (it is not prebuilt).
expect_contains "$work/out" '"remedy": "rebuild it against TF 2\.15\.1 \(opkit build --tf 2\.15\.1'
python3 -c "import json,sys; assert 'built_for' not in json.load(open(sys.argv[1]))" "$work/out"

# The same library installed from a wheel (no opkit-build.json beside it): a
# prebuilt library, whose remedy is the release built for 2.15.1, and which
# says what this one was built for, from the symbols, the wheel, the path and
# the framework library it needs.
site="$work/site-packages"
mkdir -p "$site/skew_ops/2.10" "$site/skew_ops-1.0.dist-info"
cp build/tf-2.10.1/libskew_op.so "$site/skew_ops/2.10/"
printf 'skew_ops/__init__.py,,\nskew_ops/2.10/libskew_op.so,,\n' >"$site/skew_ops-1.0.dist-info/RECORD"
printf 'Metadata-Version: 2.1\nName: skew-ops\nVersion: 1.0\nRequires-Dist: tensorflow (==2.10.1)\n\nText.\n' \
  >"$site/skew_ops-1.0.dist-info/METADATA"
run_opkit 1 check "$site/skew_ops/2.10/libskew_op.so" --tf 2.15.1
expect_contains "$work/out" "fix: a prebuilt library: install the release of it built for TF 2\.15\.1 \(this one was built for TF 2\.10\.1: the TensorFlow symbols it misses are in TF 2\.10\.1.s framework library; its wheel skew-ops 1\.0 requires tensorflow==2\.10\.1; its path names TF 2\.10; it needs libtensorflow_framework\.so\.2, the framework library of TF >=2\.0\)"
grep -q 'opkit build' "$work/out" && fail "a prebuilt library's remedy names opkit build"
run_opkit 1 check "$site/skew_ops/2.10/libskew_op.so" --tf 2.15.1 --json
python3 -c "
import json,sys
b=json.load(open(sys.argv[1]))['built_for']
assert b['version']=='2.10.1' and len(b['evidence'])==4, b" "$work/out"

# Without the 2.10.1 SDK there is no version to name from the symbols: the
# finding says so no more, and the prebuilt library's version comes from its wheel.
run_opkit 0 -q sdk remove tensorflow-2.10.1
run_opkit 1 check build/tf-2.10.1/libskew_op.so --tf 2.15.1
grep -q 'but in TF 2\.10\.1' "$work/out" && fail "a version was named with its SDK removed"
run_opkit 1 check "$site/skew_ops/2.10/libskew_op.so" --tf 2.15.1
expect_contains "$work/out" 'fix: a prebuilt library: install the release of it built for TF 2\.15\.1 \(this one was built for TF 2\.10\.1: its wheel skew-ops'
# With no wheel, the path names the version.
rm -r "$site/skew_ops-1.0.dist-info"
run_opkit 1 check "$site/skew_ops/2.10/libskew_op.so" --tf 2.15.1
expect_contains "$work/out" 'fix: a prebuilt library: install the release of it built for TF 2\.15\.1 \(this one was built for TF 2\.10: its path names TF 2\.10;'
echo "check_diagnoses: ok"
