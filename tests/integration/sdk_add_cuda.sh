# Fixture and test: the CUDA build of TF 2.10.1 (the `tensorflow` wheel, not
# `tensorflow-cpu`) imported beside the CPU one. A plain version keeps choosing
# the CPU SDK; the id chooses the CUDA one.
source "$(dirname "$0")/common.sh"

run_opkit 0 sdk add "$(wheel_for 2.10.1-cuda)"
run_opkit 0 sdk list --json
python3 - "$work/out" <<'PY'
import json, sys
sdks = {s["id"]: s for s in json.load(open(sys.argv[1]))}
cpu, cuda = sdks["tensorflow-2.10.1"], sdks["tensorflow-2.10.1-cuda"]
assert cpu["cuda"]["is_cuda_build"] is False and cpu["distribution"] == "tensorflow-cpu", cpu
assert cuda["cuda"]["is_cuda_build"] is True and cuda["distribution"] == "tensorflow", cuda
assert cuda["cxx11_abi"] == 1 and cuda["cxx_standard"] == 17 and cuda["soname"] == "libtensorflow_framework.so.2"
PY
for spec in 2.10.1 2.10; do
  run_opkit 0 sdk info "$spec" --json
  expect_contains "$work/out" '"id": "tensorflow-2\.10\.1"'
done
run_opkit 0 sdk info tensorflow-2.10.1-cuda --json
expect_contains "$work/out" '"id": "tensorflow-2\.10\.1-cuda"'
# Which CUDA builds its device code, and from where: TF 2.10.1 says CUDA 11.2
# (build_info.py), so CUDA 11's toolchain, not this machine's CUDA 13.
expect_json_schema opkit.sdk-1 "$work/out"
python3 - "$work/out" <<'PY'
import json, sys
info = json.load(open(sys.argv[1]))
assert info["cuda"]["cuda_version"].startswith("11."), info["cuda"]
t = info["cuda_toolkit"]
assert t["release"] == "11.8" and "configs/cuda/toolchains.yaml" in t["origin"] and "deb.debian.org" in t["origin"], t
PY
run_opkit 0 sdk info tensorflow-2.10.1-cuda
expect_contains "$work/out" "^cuda_toolkit +CUDA 11\.8: opkit's CUDA 11\.8 from "
expect_contains "$work/out" '^cuda +CUDA 11\.[0-9]+, cuDNN [0-9.]+ \(a CUDA build\)$' # in words, not JSON
expect_contains "$work/out" '^size +[0-9.]+ MB on disk$'
OPKIT_CUDA=system run_opkit 0 sdk info tensorflow-2.10.1-cuda --json
python3 -c "import json; t=json.load(open('$work/out'))['cuda_toolkit']; assert t['origin'].startswith(\"the system's\") or 'error' in t, t"
run_opkit 3 sdk info tensorflow-2.10.9-cuda
expect_one_error_line
expect_contains "$work/err" 'tensorflow-2\.10\.9-cuda: no SDK of that id .*tensorflow-2\.10\.1-cuda'
