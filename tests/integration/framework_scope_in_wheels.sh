# Issue 17: configs/frameworks/tensorflow.yaml says no range's Python loads
# the framework with RTLD_GLOBAL (no `framework_global: true`), so opkit
# check and the probe give the framework a local scope. This checks that fact
# in every official wheel the tests have, 1.12.0 to 2.15.1 and the CUDA
# build: TF's pywrap_tensorflow.py asks for RTLD_GLOBAL only through the
# module pywrap_dlopen_global_flags, which none of them ships (the framework
# is an explicit DT_NEEDED of _pywrap_tensorflow_internal.so instead).
# check_framework_scope shows the consequence with tf.load_op_library in the
# real 1.12.0 and 2.10.1.
source "$(dirname "$0")/common.sh"
grep -n '^ *framework_global: *true' "$OPKIT_SOURCE_DIR/configs/frameworks/tensorflow.yaml" \
  && fail "a range says framework_global: true; this test checks the wheels for the opposite"
for version in 1.12.0 1.15.5 2.10.1 2.10.1-cuda 2.15.1-cp311; do
  wheel=$(wheel_for "$version")
  python3 - "$wheel" <<'PY' || fail "TF $version: its wheel does not show a local-scope framework"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
wrappers = [n for n in names if n.endswith("/python/pywrap_tensorflow.py")]
assert len(wrappers) == 1, wrappers
text = zipfile.ZipFile(sys.argv[1]).read(wrappers[0]).decode()
# The wrapper's only way to RTLD_GLOBAL, and the module it needs for it:
assert "from tensorflow.python import pywrap_dlopen_global_flags" in text, "the wrapper changed: read it again"
assert "pywrap_dlopen_global_flags.set_dlopen_flags()" in text
shipped = [n for n in names if "pywrap_dlopen_global_flags" in n]
assert not shipped, "ships %s: its Python loads the framework with RTLD_GLOBAL" % shipped
internal = [n for n in names if n.endswith("/python/_pywrap_tensorflow_internal.so")]
assert len(internal) == 1, internal
print("%s: local scope (%s has no pywrap_dlopen_global_flags)" % (sys.argv[1].rsplit("/", 1)[-1], wrappers[0]))
PY
done
echo "framework_scope_in_wheels: ok"
