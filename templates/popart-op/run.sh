#!/usr/bin/env bash
# Runs model.onnx, with the {{op_name}} custom op, on an IPU through PopRT, with random
# inputs. Needs an IPU, the Poplar SDK enabled (source <poplar_sdk>/enable) and PopRT
# installed: none of these can be had from PyPI or Debian.
set -euo pipefail
cd "$(dirname "$0")"

[ -f build/lib{{name}}.so ] || { echo "build/lib{{name}}.so is missing: run opkit build --popart-sdk DIR" >&2; exit 1; }
python3 create_onnx_with_custom_op.py --output_dir . >/dev/null

poprt \
  --input_model model.onnx \
  --custom_library_so_paths build/lib{{name}}.so \
  --custom_shape_inference custom_shape_inference.py \
  --run
