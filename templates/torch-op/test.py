"""Checks {{name}}::zero_out in the torch this Python imports."""
import os
import sys
import unittest

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python"))
import {{name}}_ops  # noqa: E402


class ZeroOutTest(unittest.TestCase):
    def test_values(self):
        x = torch.tensor([[5, 4], [3, 2]], dtype=torch.int32)
        self.assertTrue(torch.equal({{name}}_ops.zero_out(x), torch.tensor([[5, 0], [0, 0]], dtype=torch.int32)))

    def test_gradient(self):
        x = torch.tensor([1.5, -2.5, 3.5], dtype=torch.float64, requires_grad=True)
        self.assertTrue(torch.autograd.gradcheck({{name}}_ops.zero_out, (x,)))

    def test_empty_input_is_refused(self):
        with self.assertRaises(RuntimeError):
            {{name}}_ops.zero_out(torch.tensor([]))


if __name__ == "__main__":
    unittest.main()
