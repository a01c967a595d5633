"""Build the compiled hot loops (``denoise._compiled``); everything else is in pyproject.toml.

The extension reads lxml's tree through lxml's public C API. It is optional: where
it cannot be built, ``denoise.blocks`` falls back to the same walk in Python.
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
setup(ext_modules=cythonize([walk], language_level=3, quiet=True))
