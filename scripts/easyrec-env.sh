#!/usr/bin/env bash
# A virtual environment where EasyRec's own release runs as its users run it:
# Python 3.6, the real TensorFlow 1.12.0 from PyPI and `pai-easy-rec` 0.7.1
# (EasyRec's PyPI release: the whole easy_rec package, its *_pb2.py generated).
# Made once and reused, beside opkit's TF venvs:
# ${OPKIT_VENVS:-~/.cache/opkit-test/venvs}/easyrec-0.7.1-tf-1.12.0-py3.6.
# Prints the venv's python.
#
# The recipe (checked on this machine kind): pai-easy-rec's own dependencies do
# not install on Python 3.6 (eas-prediction -> python-snappy -> cramjam needs a
# maturin with no 3.6 release), so EasyRec goes in with --no-deps and the
# modules its train/eval/export import come beside it. pip 18.1 (Python 3.6's)
# does not know manylinux2014 wheels: pip 21.3.1 first.
set -euo pipefail

easyrec=0.7.1
root=${OPKIT_VENVS:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/venvs}
venv="$root/easyrec-$easyrec-tf-1.12.0-py3.6"
mkdir -p "$root"

find_python36() { # the first candidate that runs and is 3.6 (a pyenv shim may exist and refuse)
  local candidate
  for candidate in "${OPKIT_PYTHON_3_6:-}" $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.6.*/bin/python 2>/dev/null) \
    python3.6; do
    if [ -n "$candidate" ] && "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 6)' 2>/dev/null; then
      command -v "$candidate"
      return 0
    fi
  done
  echo "easyrec-env: no Python 3.6 found (install it: pyenv install 3.6.15, or set OPKIT_PYTHON_3_6)" >&2
  return 1
}

step() { # <what> <command...>: runs a step; a failure names it
  local what=$1
  shift
  "$@" >&2 || { echo "easyrec-env: step failed: $what" >&2; exit 1; }
}

(
  flock 9
  if [ ! -f "$venv/.opkit-complete" ]; then
    python=$(find_python36)
    echo "easyrec-env: creating $venv (Python 3.6, tensorflow 1.12.0, pai-easy-rec $easyrec; once) ..." >&2
    rm -rf "$venv"
    step "$python -m venv $venv" "$python" -m venv "$venv"
    step "pip install pip==21.3.1" "$venv/bin/pip" install --quiet 'pip==21.3.1'
    step "pip install tensorflow==1.12.0 and EasyRec's imports (from PyPI)" \
      "$venv/bin/pip" install --quiet --prefer-binary tensorflow==1.12.0 'numpy<1.17' 'protobuf<3.20' \
      pandas future scikit-learn psutil
    step "pip install --no-deps pai-easy-rec==$easyrec (from PyPI)" \
      "$venv/bin/pip" install --quiet --no-deps "pai-easy-rec==$easyrec"
    step "import easy_rec" "$venv/bin/python" -c 'import easy_rec.version as v; assert v.__version__ == "'"$easyrec"'", v.__version__'
    touch "$venv/.opkit-complete"
  fi
) 9>"$venv.lock"
echo "$venv/bin/python"
