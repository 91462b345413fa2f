# Untrusted archives: an entry that would escape the store is refused, as are
# files that are not TensorFlow wheels, wheels without RECORD and members that
# differ from it; none leaves anything in the store.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$work/home"
python3 - "$work" <<'PY'
import sys, zipfile
work = sys.argv[1]
with zipfile.ZipFile(work + "/evil.whl", "w") as z:
    z.writestr("tensorflow/include/tensorflow/core/framework/op.h", "// op.h\n")
    z.writestr("tensorflow/libtensorflow_framework.so.2", "not really")
    z.writestr("tensorflow/include/../../../../escaped.h", "// escaped\n")
with zipfile.ZipFile(work + "/nothing.whl", "w") as z:
    z.writestr("numpy/__init__.py", "")
open(work + "/garbage.whl", "wb").write(b"\x00garbage" * 100)
# A TensorFlow-shaped wheel without RECORD, and one whose RECORD says op.h holds other bytes.
files = {"tensorflow/include/tensorflow/core/framework/op.h": "// op.h\n",
         "tensorflow/libtensorflow_framework.so.2": "not really"}
with zipfile.ZipFile(work + "/norecord.whl", "w") as z:
    for name, data in files.items():
        z.writestr(name, data)
with zipfile.ZipFile(work + "/badrecord.whl", "w") as z:
    for name, data in files.items():
        z.writestr(name, data)
    z.writestr("tensorflow-2.10.1.dist-info/RECORD",
               "tensorflow/include/tensorflow/core/framework/op.h,sha256=LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ,5\n"
               "tensorflow/libtensorflow_framework.so.2,sha256=LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ,5\n"
               "tensorflow-2.10.1.dist-info/RECORD,,\n")
PY
run_opkit 2 -q sdk add "$work/evil.whl"
expect_one_error_line
expect_contains "$work/err" "archive entry 'tensorflow/include/\.\./\.\./\.\./\.\./escaped\.h' would be written outside the SDK folder"
[ -z "$(find "$work" -name escaped.h)" ] || fail "escaped.h was written"

run_opkit 2 -q sdk add "$work/nothing.whl"
expect_one_error_line
expect_contains "$work/err" 'not a TensorFlow wheel or package'

run_opkit 2 -q sdk add "$work/garbage.whl"
expect_one_error_line
expect_contains "$work/err" 'garbage\.whl: (cannot open archive|damaged archive)'

run_opkit 2 -q sdk add "$work/missing.whl"
expect_one_error_line

# Every kept member is checked against the wheel's RECORD.
run_opkit 2 -q sdk add "$work/norecord.whl"
expect_one_error_line
expect_contains "$work/err" 'norecord\.whl: not a wheel: it has no \*\.dist-info/RECORD'
run_opkit 1 -q sdk add "$work/badrecord.whl"
expect_one_error_line
expect_contains "$work/err" "badrecord\.whl: tensorflow/(include/tensorflow/core/framework/op\.h|libtensorflow_framework\.so\.2): sha256 differs from the wheel's RECORD"

# Nothing half-written: the store holds no SDK and no staging folder.
[ -z "$(ls -A "$OPKIT_HOME/sdks" 2>/dev/null)" ] || { ls -la "$OPKIT_HOME/sdks"; fail "store not empty"; }
