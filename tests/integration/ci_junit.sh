# What opkit gives a CI pipeline (docs/ci.md): `opkit test --junit FILE` and
# `opkit check --junit FILE` write JUnit XML valid against the Jenkins xUnit
# plugin's junit-10.xsd (xmllint), a case per library and version, passing and
# failing, with the diagnosis in the failure; and with GITHUB_ACTIONS=true an
# error naming a file's line (opkit.yaml's, a compiler's) is also a workflow
# command `::error file=F,line=L,col=C::message` on stderr (tests/fixtures/locked_op).
source "$(dirname "$0")/common.sh"

cp -r "$OPKIT_SOURCE_DIR/tests/fixtures/locked_op" locked_op
cd locked_op
run_opkit 0 build --tf 1.12,2.10.1 -j 2

# --- opkit test: everything passes; the report's folder is made
run_opkit 0 test --junit reports/test.xml
expect_contains "$work/out" '^opkit\.lock: written'
expect_junit_xsd reports/test.xml
python3 - reports/test.xml <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "0", root.attrib
suites = root.findall("testsuite")
assert [s.get("name") for s in suites] == ["opkit test tensorflow-1.12.0", "opkit test tensorflow-2.10.1"], suites
for suite, version in zip(suites, ["1.12.0", "2.10.1"]):
    (case,) = suite.findall("testcase")
    assert case.get("classname") == "opkit.test.tensorflow-" + version and case.get("name") == "locked_op", case.attrib
    assert case.find("failure") is None
    assert "loaded into libtensorflow_framework" in case.find("system-out").text, case.find("system-out").text
PY

# --- a changed interface: exit 1, a failure per version saying what changed; --json's stdout is still the report
sed -i 's/clip: float = 100.0/clip: float = 50.5/' src/locked_clip.cc
grep -q 'clip: float = 50.5' src/locked_clip.cc || fail "could not change the default"
run_opkit 1 test --json --junit reports/changed.xml
expect_json_schema opkit.test-1 "$work/out"
expect_junit_xsd reports/changed.xml
python3 - reports/changed.xml <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.get("tests") == "2" and root.get("failures") == "2", root.attrib
for case in root.iter("testcase"):
    failure = case.find("failure")
    assert failure.get("message") == ("interface changed since opkit.lock (`opkit test --update` accepts it): "
                                      "LockedClip: attr clip: default 100 -> 50.5"), failure.get("message")
    assert "CHANGED LockedClip: attr clip: default 100 -> 50.5" in failure.text, failure.text
PY

# --- opkit check: each library against its own build's SDK passes; 1.12's against 2.10.1 fails with the finding
run_opkit 0 check build/tf-1.12.0/liblocked_op.so build/tf-2.10.1/liblocked_op.so --junit reports/check.xml
expect_junit_xsd reports/check.xml
python3 - reports/check.xml <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = list(root.iter("testcase"))
assert [c.get("classname").split(" ")[1] for c in cases] == ["1.12.0", "2.10.1"], [c.attrib for c in cases]
assert all(c.find("failure") is None for c in cases) and root.get("failures") == "0", root.attrib
PY
run_opkit 1 check build/tf-1.12.0/liblocked_op.so --tf 2.10.1 --junit reports/mismatch.xml
expect_contains "$work/out" 'WILL NOT LOAD'
expect_junit_xsd reports/mismatch.xml
python3 - reports/mismatch.xml "$work/out" <<'PY'
import re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
(case,) = root.iter("testcase")
failure = case.find("failure")
assert case.get("name") == "build/tf-1.12.0/liblocked_op.so", case.attrib
assert failure.get("message").startswith("will not load: ["), failure.get("message")
# every fatal finding of the text report is in the message, its why and fix in the text
for kind, summary in re.findall(r"^  error \[([^]]+)\] (.*)$", open(sys.argv[2]).read(), re.M):
    assert "[%s] %s" % (kind, summary) in failure.get("message"), (kind, failure.get("message"))
assert "  why: " in failure.text and "  fix: " in failure.text, failure.text
PY

# --- a report that cannot be written: one error line, nothing printed as if it had been
mkdir -p reports/taken.xml
run_opkit 4 -q check build/tf-2.10.1/liblocked_op.so --junit reports/taken.xml
expect_one_error_line
[ ! -s "$work/out" ] || fail "a report was printed though the JUnit file could not be written"

# --- annotations: an opkit.yaml error in a GitHub workflow, relative to the workspace
cp opkit.yaml "$work/opkit.yaml.good"
sed -i 's/^name: .*/name: 7bad/' opkit.yaml
rc=0
GITHUB_ACTIONS=true GITHUB_WORKSPACE="$work" "$OPKIT" build --tf 2.10.1 >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -eq 2 ] || { cat "$work/err" >&2; fail "a bad opkit.yaml exited $rc, expected 2"; }
expect_contains "$work/err" "^opkit: error: .*/locked_op/opkit\\.yaml:4:7: invalid project name '7bad'"
expect_contains "$work/err" "^::error file=locked_op/opkit\\.yaml,line=4,col=7::invalid project name '7bad': it must start with a letter\$"
[ "$(grep -c '^::' "$work/err")" -eq 1 ] || fail "expected one workflow command"
# ... and not outside one
run_opkit 2 build --tf 2.10.1
expect_one_error_line
cp "$work/opkit.yaml.good" opkit.yaml

# --- a compiler error: annotated at its file and line, once though both versions fail the same way
echo 'this is not C++;' >>src/locked_clip.cc
line=$(wc -l <src/locked_clip.cc)
rc=0
GITHUB_ACTIONS=true GITHUB_WORKSPACE="$work/locked_op" "$OPKIT" build --tf 1.12,2.10.1 >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -eq 1 ] || { cat "$work/err" >&2; fail "a compile error exited $rc, expected 1"; }
expect_contains "$work/err" "^::error file=src/locked_clip\.cc,line=$line,col=[0-9]+::"
[ "$(grep -c "^::error file=src/locked_clip\.cc,line=$line," "$work/err")" -eq 1 ] ||
  fail "the compile error is not annotated exactly once"
rc=0
"$OPKIT" build --tf 2.10.1 >"$work/out" 2>"$work/err" || rc=$?
! grep -q '^::' "$work/err" || fail "workflow commands outside a GitHub workflow"
# --- a command that fails before its report: the JUnit file holds the failure, as CI's test view shows it
run_opkit 1 test --tf 2.10.1 --junit reports/failed.xml
expect_junit_xsd reports/failed.xml
python3 - reports/failed.xml "$work/err" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
(case,) = root.iter("testcase")
error = case.find("error")
assert case.get("name") == "opkit test" and error is not None, ET.tostring(root)
line = [l for l in open(sys.argv[2]).read().splitlines() if l.startswith("opkit: error: ")][-1]
assert error.get("message") == line[len("opkit: error: "):], (error.get("message"), line)
PY
echo "PASS: $test_name"
