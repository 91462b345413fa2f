#!/usr/bin/env bash
# Fetches the operator's model into data/ once. The Dockerfile runs it at build
# time, so the container starts without network. Idempotent: exit 0 when the
# model is there, 1 when it could not be fetched.
set -euo pipefail
cd "$(dirname "$0")"

# The default model (a colour histogram) has no weights: both are empty. For a
# real one, e.g. VGG19 without its top layers:
#   file=models/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5
#   url=https://github.com/fchollet/deep-learning-models/releases/download/v0.1/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5
file=""
url=""

if [[ -n "$file" && ! -f "$file" ]]; then
  mkdir -p "$(dirname "$file")"
  echo "[INFO] Model does not exist, begin to download..."
  # Into a temporary name first, so an interrupted download is not taken for the model.
  if ! wget -q "$url" -O "$file.part"; then
    rm -f "$file.part"
    echo "[ERROR] Model download failed: $url" >&2
    exit 1
  fi
  mv "$file.part" "$file"
fi

echo "[INFO] Model has been prepared successfully!"
