"""Build the compiled hot loops, each package's in that package; everything else is in
pyproject.toml.

``denoise._compiled`` reads lxml's tree through lxml's public C API; ``denoise._isotonic``
is the dynamic program of ``denoise.smooth`` and needs numpy only, as do ``kwx._kernels``
(kwx's steps) and ``mining._kernels`` (the word hashes of ``mining.shingles``);
``engine._kernels`` (the JSON strings of ``engine.jsonstr``) needs neither. All are
optional: where one cannot be built, its module falls back to the same steps in Python.
"""

import lxml
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

NUMPY_MACROS = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
walk = Extension(
    "denoise._compiled",
    ["denoise/_compiled.pyx"],
    include_dirs=[*lxml.get_include(), numpy.get_include()],
    define_macros=NUMPY_MACROS,
    optional=True,
)
isotonic = Extension(
    "denoise._isotonic",
    ["denoise/_isotonic.pyx"],
    include_dirs=[numpy.get_include()],
    define_macros=NUMPY_MACROS,
    optional=True,
)
kwx_kernels = Extension(
    "kwx._kernels",
    ["kwx/_kernels.pyx"],
    include_dirs=[numpy.get_include()],
    define_macros=NUMPY_MACROS,
    optional=True,
)
mining_kernels = Extension(
    "mining._kernels",
    ["mining/_kernels.pyx"],
    include_dirs=[numpy.get_include()],
    define_macros=NUMPY_MACROS,
    optional=True,
)
engine_kernels = Extension("engine._kernels", ["engine/_kernels.pyx"], optional=True)
setup(ext_modules=cythonize([walk, isotonic, kwx_kernels, mining_kernels, engine_kernels],
                            language_level=3, quiet=True))
