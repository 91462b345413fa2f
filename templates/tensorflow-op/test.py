"""Runs {{op_name}} in the TensorFlow this Python imports."""
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python"))
from {{name}}_ops import {{name}}  # noqa: E402


class {{op_name}}Test(tf.test.TestCase):
    def test_keeps_first_element(self):
        for dtype in (np.int32, np.float32):
            result = self.evaluate({{name}}(np.array([[5, 4], [3, 2]], dtype=dtype)))
            self.assertAllEqual(result, np.array([[5, 0], [0, 0]], dtype=dtype))


if __name__ == "__main__":
    tf.test.main()
