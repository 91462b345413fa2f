from setuptools import setup, Extension
setup(ext_modules=[Extension("pkg._x_ops", sources=["a.cc"] + ["b/c.cc"])])
