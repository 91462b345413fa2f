# `opkit sdk add` also takes an installed tensorflow package folder: here the
# real 2.10.1 wheel's files laid out as pip installs them into site-packages.
source "$(dirname "$0")/common.sh"
export OPKIT_HOME="$work/home"   # its own store: this test must not disturb the shared one
site="$work/site-packages"
python3 - "$(wheel_for 2.10.1)" "$site" <<'PY'
import sys, zipfile
wheel, site = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if (name.startswith("tensorflow/include/") or name == "tensorflow/libtensorflow_framework.so.2"
                or ".dist-info/" in name or name.endswith("platform/build_info.py")
                or name.startswith("tensorflow/python/ops/array_ops.py")):
            z.extract(name, site)
PY
# Siblings pip installs beside TF (their names sort after tensorflow_cpu's): not the SDK's distribution.
for sibling in tensorflow_io_gcs_filesystem-0.37.1 tensorflow_estimator-2.10.0; do
  mkdir -p "$site/$sibling.dist-info"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "${sibling%-*}" "${sibling##*-}" >"$site/$sibling.dist-info/METADATA"
  printf '%s/__init__.py,,\n' "${sibling%-*}" >"$site/$sibling.dist-info/RECORD"
  echo "${sibling%-*}" >"$site/$sibling.dist-info/top_level.txt"
done
run_opkit 0 sdk add "$site/tensorflow"
run_opkit 0 sdk list --json
python3 - "$work/out" <<'PY'
import json, sys
(sdk,) = json.load(open(sys.argv[1]))
assert sdk["version"] == "2.10.1" and sdk["cxx11_abi"] == 1 and sdk["cxx_standard"] == 17, sdk
assert sdk["distribution"] == "tensorflow-cpu", sdk
PY
[ -f "$OPKIT_HOME/sdks/tensorflow-2.10.1/lib/libtensorflow_framework.so.2" ] || fail "library not imported"
[ ! -e "$OPKIT_HOME/sdks/tensorflow-2.10.1/python" ] || fail "python sources imported"
