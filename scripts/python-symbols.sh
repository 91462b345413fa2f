#!/usr/bin/env bash
# Writes configs/python/cpython-X.Y.symbols: the names the CPython X.Y
# interpreter exports (its libpython's dynamic symbols), one per line. opkit
# check counts them as defined in TF's Python process, where the interpreter is
# in the global scope: an op calling the Python C API without linking libpython
# loads there. Made from pyenv's builds (--enable-shared; pyenv install X.Y).
# usage: scripts/python-symbols.sh X.Y...
set -euo pipefail
cd "$(dirname "$0")/.."
root=${PYENV_ROOT:-$HOME/.pyenv}
for minor in "$@"; do
  prefix=$(ls -d "$root/versions/$minor".* 2>/dev/null | sort -V | tail -1)
  [ -n "$prefix" ] || { echo "python-symbols: no pyenv Python $minor (pyenv install $minor)" >&2; exit 3; }
  lib=$(ls "$prefix"/lib/libpython"$minor"*.so.1.0 2>/dev/null | head -1)
  [ -n "$lib" ] || lib="$prefix/bin/python$minor" # a static build exports them from the executable
  out=configs/python/cpython-$minor.symbols
  {
    echo "# The dynamic symbols CPython $(basename "$prefix") exports, from $(basename "$lib") (scripts/python-symbols.sh)."
    nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}' | sed 's/@.*//' | sort -u
  } >"$out.tmp"
  mv "$out.tmp" "$out"
  echo "python-symbols: $out: $(grep -vc '^#' "$out") symbols" >&2
done
