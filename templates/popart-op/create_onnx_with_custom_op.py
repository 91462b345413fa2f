"""Writes model.onnx: a graph of one {{op_name}} node (x -> y) for PopRT to run.

    python3 create_onnx_with_custom_op.py [--output_dir DIR]

The node's op_type, domain and version are the OperatorIdentifier in
{{name}}_custom_op.cpp. The domain must also be imported by the model (opset_import)
at that version: the ONNX checker refuses a node of an undeclared domain, and PopART
looks its op creators up by (domain, op_type, version).
"""
import argparse
import os

import onnx
from onnx import TensorProto, helper

OP_TYPE = "{{op_name}}"
DOMAIN = "custom.ops"
VERSION = 1
MODEL = "model.onnx"
# An ONNX opset PopRT supports for the rest of a model; this one only needs the import.
ONNX_OPSET = 11


def create_model(alpha=0.01, dtype=TensorProto.FLOAT, shape=(8, 8)):
    # float(): a Python int would make alpha an INT attribute, which the op does not read.
    node = helper.make_node(OP_TYPE, ["x"], ["y"], domain=DOMAIN, alpha=float(alpha))
    graph = helper.make_graph(
        [node],
        "{{name}}",
        [helper.make_tensor_value_info("x", dtype, shape)],
        [helper.make_tensor_value_info("y", dtype, shape)],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", ONNX_OPSET), helper.make_opsetid(DOMAIN, VERSION)],
    )
    # PopRT bundles an older onnx than the one writing this file; IR version 8 is read by onnx >= 1.10.
    model.ir_version = 8
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output_dir", default=".", help="an existing folder for " + MODEL)
    args = parser.parse_args()
    if not os.path.isdir(args.output_dir):
        parser.error("--output_dir must be an existing folder: " + args.output_dir)
    path = os.path.join(args.output_dir, MODEL)
    onnx.save(create_model(), path)
    print(path)


if __name__ == "__main__":
    main()
