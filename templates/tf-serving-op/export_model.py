"""Exports a SavedModel that uses {{op_name}}, laid out for TF Serving:
MODEL_BASE_PATH/<version>/saved_model.pb. Run it with the TF the op was built for.

usage: python export_model.py MODEL_BASE_PATH [VERSION]
"""
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
from {{name}}_ops import {{name}}  # noqa: E402


class {{op_name}}Model(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x")])
    def serve(self, x):
        return {"zeroed": {{name}}(x)}


def main():
    base = sys.argv[1]
    version = sys.argv[2] if len(sys.argv) > 2 else "1"
    model = {{op_name}}Model()
    path = os.path.join(base, version)
    tf.saved_model.save(model, path, signatures={"serving_default": model.serve})
    print(path)


if __name__ == "__main__":
    main()
