# Wheels pip installs beside the user's own TensorFlow: in the real TF 2.10.1
# (tensorflow-cpu) and TF 1.12.0 (tensorflow) venvs pip installs the wheel and
# nothing else, and the op runs; the platform tag is manylinux and auditwheel's
# reading of the libraries' symbol versions agrees; on a TensorFlow the wheel
# carries no library for, importing it names the versions it carries.
source "$(dirname "$0")/common.sh"
export TF_CPP_MIN_LOG_LEVEL=3

run_opkit 0 new deploy_op --tf 1.12,2.10.1
cd deploy_op
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init
run_opkit 0 build
# The real venvs: opkit makes them once, in the shared cache, and runs the op's test vectors there.
run_opkit 0 test --python
py112="$OPKIT_VENVS/tf-1.12.0-py3.6/bin/python"
py210="$OPKIT_VENVS/tf-2.10.1-py3.10/bin/python"
[ -x "$py112" ] && [ -x "$py210" ] || fail "step venvs: no TF 1.12.0 / 2.10.1 venv under $OPKIT_VENVS after opkit test --python"

# auditwheel from PyPI, in a venv of the shared cache: made once (lock, then the completion stamp).
auditwheel_venv="${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/venv-auditwheel"
(
  flock 9
  if [ ! -f "$auditwheel_venv/.opkit-complete" ]; then
    rm -rf "$auditwheel_venv"
    python3 -m venv "$auditwheel_venv" || fail "step auditwheel: python3 -m venv $auditwheel_venv failed"
    "$auditwheel_venv/bin/pip" install --quiet auditwheel ||
      fail "step auditwheel: pip install auditwheel (from PyPI) into $auditwheel_venv failed"
    touch "$auditwheel_venv/.opkit-complete"
  fi
) 9>"$auditwheel_venv.lock"

# Leave the shared venvs as they were.
cleanup() {
  for py in "$py112" "$py210"; do
    "$py" -m pip uninstall --quiet --yes deploy_op >/dev/null 2>&1 || true
  done
}
trap cleanup EXIT
cleanup

# installs_only_the_wheel <python> <wheel>: pip installs the wheel and changes nothing else
# (pip >= 22.2 also shows it beforehand: `--dry-run --report` lists the wheel alone).
installs_only_the_wheel() {
  local py=$1 whl=$2
  "$py" -m pip install --help >"$work/pip-help"
  if grep -q -- '--report' "$work/pip-help"; then
    "$py" -m pip install --quiet --dry-run --report "$work/report.json" "$whl" ||
      fail "step dry-run: pip install --dry-run refused $(basename "$whl") in $py"
    python3 - "$work/report.json" <<'PY' || fail "step dry-run: pip would install more than the wheel in $py"
import json, sys
names = [item["metadata"]["name"] for item in json.load(open(sys.argv[1]))["install"]]
assert names == ["deploy_op"], names
PY
  fi
  "$py" -m pip freeze --all | sort >"$work/before"
  "$py" -m pip install --quiet "$whl" || fail "step install: pip install $(basename "$whl") failed in $py"
  "$py" -m pip freeze --all | sort >"$work/after"
  local added
  added=$(comm -13 "$work/before" "$work/after" | grep -v '^deploy[-_]op' || true)
  [ -z "$added$(comm -23 "$work/before" "$work/after")" ] ||
    fail "step install: installing the wheel in $py changed other packages: $added"
}

# op_runs <python> <tf version>: the installed wheel's op, with the library for that version.
op_runs() {
  (cd "$work" && "$1" - "$2" <<'PY') || fail "step run: the op did not run in TF $2"
import sys
import numpy as np, tensorflow as tf, deploy_op
assert tf.__version__ == sys.argv[1], tf.__version__
out = deploy_op.deploy_op(np.array([3, 4], dtype=np.int32))
if hasattr(out, "numpy"):
    value = out.numpy()
else:
    with tf.Session() as session:
        value = session.run(out)
assert list(value) == [3, 0], value
assert deploy_op.deploy_op_ops._library_path().endswith("/deploy_op/tf-%s/libdeploy_op.so" % tf.__version__)
print("deploy_op ran in TensorFlow", tf.__version__)
PY
}

# agrees_with_auditwheel <wheel>: our tag's PEP 600 part is the one auditwheel derives from the
# symbol versions. (It calls the wheel itself linux_: libtensorflow_framework is neither on its
# whitelist nor found; the framework is TF's, loaded before the op, never the wheel's to bring.)
agrees_with_auditwheel() {
  local whl=$1 ours theirs
  ours=$(basename "$whl" .whl | sed -E 's/.*-py3-none-//; s/\..*//')
  (cd "$work" && "$auditwheel_venv/bin/auditwheel" show "$whl") >"$work/auditwheel.out" 2>&1 ||
    { cat "$work/auditwheel.out" >&2; fail "step auditwheel: auditwheel show $(basename "$whl") failed"; }
  theirs=$(tr '\n' ' ' <"$work/auditwheel.out" | grep -oE 'constrains the platform tag to "[^"]+"' | grep -oE '"[^"]+"' | tr -d '"' || true)
  [ -n "$theirs" ] || theirs=$(tr '\n' ' ' <"$work/auditwheel.out" | grep -oE 'following platform tag: "[^"]+"' | grep -oE '"[^"]+"' | tr -d '"' || true)
  [ "$ours" = "$theirs" ] ||
    { cat "$work/auditwheel.out" >&2; fail "step auditwheel: our tag $ours, auditwheel's ${theirs:-none}"; }
}

# --- a wheel for 2.10.1 alone: no TensorFlow requirement, a manylinux tag, installs beside tensorflow-cpu
run_opkit 0 package wheel --tf 2.10.1 -o dist-210
expect_contains "$work/out" 'requires no TensorFlow distribution'
expect_contains "$work/out" '^platform tag: manylinux_[0-9]+_[0-9]+_x86_64'
one=$(ls "$PWD"/dist-210/deploy_op-0.1.0-py3-none-manylinux_*_x86_64.whl) || fail "step tag: no manylinux wheel in dist-210"
unzip -p "$one" deploy_op-0.1.0.dist-info/METADATA >"$work/metadata"
if grep -qi '^Requires-Dist:.*tensorflow' "$work/metadata"; then fail "step metadata: a TensorFlow requirement"; fi
agrees_with_auditwheel "$one"
"$py210" -m pip show tensorflow-cpu >/dev/null || fail "step venvs: the 2.10.1 venv holds no tensorflow-cpu"
installs_only_the_wheel "$py210" "$one"
op_runs "$py210" 2.10.1
"$py210" -m pip uninstall --quiet --yes deploy_op

# --- the same wheel where it carries no library (TF 1.12.0): pip installs it, importing it says why not
installs_only_the_wheel "$py112" "$one"
(cd "$work" && "$py112" -c 'import deploy_op') >"$work/import.out" 2>&1 && fail "step import error: deploy_op imported in TF 1.12.0"
expect_contains "$work/import.out" 'ImportError: deploy_op 0\.1\.0 carries libraries for TensorFlow 2\.10\.1 \(or another patch release of 2\.10\.\*\); this process runs TensorFlow 1\.12\.0'
"$py112" -m pip uninstall --quiet --yes deploy_op

# --- a wheel for 1.12.0 (tensorflow) and 2.10.1 (tensorflow-cpu): installs beside either, the wrapper picks
run_opkit 0 package wheel
expect_contains "$work/out" '^platform tag: manylinux_[0-9]+_[0-9]+_x86_64'
both=$(ls "$PWD"/dist/deploy_op-0.1.0-py3-none-manylinux_*_x86_64.whl) || fail "step tag: no manylinux wheel in dist"
run_opkit 0 package verify "$both"
agrees_with_auditwheel "$both"
installs_only_the_wheel "$py112" "$both"
op_runs "$py112" 1.12.0
installs_only_the_wheel "$py210" "$both"
op_runs "$py210" 2.10.1
cleanup

# --- --requires still writes the requirement asked for
run_opkit 0 package wheel --tf 2.10.1 -o dist-req --requires 'tensorflow-cpu==2.10.*'
expect_contains "$work/out" 'requires tensorflow-cpu==2\.10\.\*'
unzip -p dist-req/deploy_op-0.1.0-py3-none-*.whl deploy_op-0.1.0.dist-info/METADATA >"$work/metadata"
expect_contains "$work/metadata" '^Requires-Dist: tensorflow-cpu==2\.10\.\*$'
