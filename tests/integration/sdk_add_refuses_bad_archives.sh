# Untrusted archives: an entry that would escape the store is refused, as are
# files that are not TensorFlow wheels; none leaves anything in the store.
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

# Nothing half-written: the store holds no SDK and no staging folder.
[ -z "$(ls -A "$OPKIT_HOME/sdks" 2>/dev/null)" ] || { ls -la "$OPKIT_HOME/sdks"; fail "store not empty"; }
