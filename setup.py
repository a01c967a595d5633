"""Build the compiled hot loops (``denoise._compiled``, ``denoise._isotonic``); everything
else is in pyproject.toml.

``denoise._compiled`` reads lxml's tree through lxml's public C API; ``denoise._isotonic``
is the dynamic program of ``denoise.smooth`` and needs numpy only. Both are optional:
where one cannot be built, its module falls back to the same steps in Python.
"""

import lxml
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

walk = Extension(
    "denoise._compiled",
    ["denoise/_compiled.pyx"],
    include_dirs=[*lxml.get_include(), numpy.get_include()],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    optional=True,
)
isotonic = Extension(
    "denoise._isotonic",
    ["denoise/_isotonic.pyx"],
    include_dirs=[numpy.get_include()],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    optional=True,
)
setup(ext_modules=cythonize([walk, isotonic], language_level=3, quiet=True))
