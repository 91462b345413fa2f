#!/usr/bin/env bash
# Downloads the official TensorFlow wheels opkit's demo and tests use, once,
# into a cache shared by every run: ${OPKIT_WHEEL_CACHE:-~/.cache/opkit-test/wheels}.
# Nothing is installed: `pip download` with an explicit target platform.
# Prints the wheel paths: 1.12.0, 2.10.1, then 1.15.5 (the tensorflow_core/ layout
# and the libtensorflow_framework.so.1 row of the config table), then the CUDA
# build of 2.10.1 (`tensorflow`, not `tensorflow-cpu`: GPU kernels register in it), then
# 2.15.1 for CPython 3.11 (the last Keras 2 release: version skew and the
# newest layout in the tests), then torch 2.5.1 and 2.8.0, each followed by its
# CUDA runtime's two wheels (fetch_torch), then tensorflow-addons 0.18.0 for
# CPython 3.10 (eight third-party op libraries built for TF 2.10). With
# --demo, only 1.12.0 and 2.10.1; with --torch, only the torch wheels. With a requirement argument
# (tensorflow-cpu==2.15.1) it fetches that one wheel for this machine's python3.
set -euo pipefail
cache=${OPKIT_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opkit-test/wheels}
mkdir -p "$cache"
# One fetcher at a time (scripts/test.sh starts one while opkit compiles, and the
# fetch_wheels test runs another): a second waits, then finds the wheels there.
exec 9>"$cache/.lock"
flock 9

fetch() { # <subdir> <requirements, space-separated> <python-version> <platform> <abi>
  local dir="$cache/$1"
  if ! ls "$dir"/*.whl >/dev/null 2>&1; then
    echo "fetch-wheels: downloading $2 (once) ..." >&2
    # Into a temporary folder first, so an interrupted download is never mistaken for a wheel.
    rm -rf "$dir.partial"
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
      --python-version "$3" --platform "$4" --implementation cp --abi "$5" \
      -d "$dir.partial" $2 >&2
    mv "$dir.partial" "$dir"
  fi
  ls "$dir"/*.whl
}

# PyPI's torch wheels for the PyTorch tests (about 900 MB each): 2.5.1 for
# CPython 3.10 (the old C++ ABI) and 2.8.0 for 3.11 (the new one). Beside each,
# the two NVIDIA wheels its METADATA pins whose libraries libtorch_cpu.so
# needs even on a machine without a GPU (libcudart.so.12, libcupti.so.12;
# 15 MB together): the real loader loads libtorch_cpu with them in the tests.
# And the newest, 2.15.0 (CUDA 13, 540 MB), for the CUDA kernel built by this
# machine's CUDA 13 (its probe fetches CUDA 13's runtime through pip).
fetch_torch() {
  fetch torch-2.5.1 torch==2.5.1 3.10 manylinux1_x86_64 cp310
  fetch torch-2.5.1-cuda-runtime "nvidia-cuda-runtime-cu12==12.4.127 nvidia-cuda-cupti-cu12==12.4.127" \
    3.10 manylinux2014_x86_64 cp310
  fetch torch-2.8.0 torch==2.8.0 3.11 manylinux_2_28_x86_64 cp311
  fetch torch-2.8.0-cuda-runtime "nvidia-cuda-runtime-cu12==12.8.90 nvidia-cuda-cupti-cu12==12.8.90" \
    3.11 manylinux2014_x86_64 cp311
  fetch torch-2.15.0 torch==2.15.0 3.11 manylinux_2_28_x86_64 cp311
}

if [ "${1:-}" = --demo ]; then   # the demo's two: 1.12.0 and 2.10.1
  fetch tf-1.12.0 tensorflow==1.12.0 3.6 manylinux1_x86_64 cp36m
  fetch tf-2.10.1 tensorflow-cpu==2.10.1 3.10 manylinux2014_x86_64 cp310
  exit 0
fi
if [ $# -eq 0 ]; then
  fetch tf-1.12.0 tensorflow==1.12.0 3.6 manylinux1_x86_64 cp36m
  fetch tf-2.10.1 tensorflow-cpu==2.10.1 3.10 manylinux2014_x86_64 cp310
  fetch tf-1.15.5 tensorflow==1.15.5 3.7 manylinux2010_x86_64 cp37m
  fetch tf-2.10.1-cuda tensorflow==2.10.1 3.10 manylinux2014_x86_64 cp310
  fetch tf-2.15.1-cp311 tensorflow-cpu==2.15.1 3.11 manylinux2014_x86_64 cp311
  fetch_torch
  fetch tfa-0.18.0 tensorflow-addons==0.18.0 3.10 manylinux2014_x86_64 cp310
  exit 0
fi
if [ "${1:-}" = --torch ]; then
  fetch_torch
  exit 0
fi
# With a requirement (tensorflow-cpu==2.15.1): the wheel for this machine's python3.
py=$(python3 -c 'import sys; print("%d%d" % sys.version_info[:2])')
fetch "tf-${1##*==}-cp$py" "$1" "${py:0:1}.${py:1}" manylinux2014_x86_64 "cp$py"
