import os
from glob import glob
from torch.utils import cpp_extension as ce

here = os.path.abspath(os.path.dirname(__file__))
name = "pkg"
if os.environ.get("CUDA"):
    Ext = ce.CUDAExtension
    srcs = glob(os.path.join(here, "b", "*.cu"), recursive=True)
else:
    Ext = ce.CppExtension
    srcs = []
srcs += sorted(glob("*.cc")) + ["%s.cc" % "a"]
kind = Ext if srcs else ce.CppExtension
modules = [kind(f"{name}._x_ops", srcs), Ext(name + "._y", [f"{nope}.cc"])]
