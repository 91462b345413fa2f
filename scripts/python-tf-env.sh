#!/usr/bin/env bash
# A virtual environment holding a real TensorFlow that this machine's python3
# can import, for the tests that install opkit's wheels and run ops from Python.
# Made once and reused: ${OPKIT_PY_ENV_ROOT:-~/.cache/opkit-test}/venv-tf-<version>.
# Prints two lines: the TF version, then the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."

py_minor=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
case "$py_minor" in
  3.9|3.10|3.11) tf=2.15.1 ;;   # the last TF with Keras 2 and cp39-cp311 wheels
  3.12) tf=2.18.1 ;;
  *) echo "python-tf-env: no TensorFlow wheel is known for Python $py_minor" >&2; exit 1 ;;
esac

root=${OPKIT_PY_ENV_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test}
venv="$root/venv-tf-$tf"
wheel=$(bash scripts/fetch-wheels.sh "tensorflow-cpu==$tf" | tail -n 1)
# A venv records its own path, so it is built where it lives; the stamp file,
# written last, tells a finished one from an interrupted one.
# One maker at a time (flock): a second waits, then finds it made.
mkdir -p "$root"
exec 9>"$venv.lock"
flock 9
if [ ! -f "$venv/.opkit-complete" ]; then
  echo "python-tf-env: creating $venv with $(basename "$wheel") (once) ..." >&2
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet "$wheel" >&2
  "$venv/bin/python" -c "import tensorflow" >&2
  touch "$venv/.opkit-complete"
fi
echo "$tf"
echo "$venv/bin/python"
