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


def kernels(name: str, *, lxml_api: bool = False, numpy_api: bool = True) -> Extension:
    """The optional extension ``name`` (``package._module``), built from its .pyx."""
    include = [*(lxml.get_include() if lxml_api else []),
               *([numpy.get_include()] if numpy_api else [])]
    macros = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")] if numpy_api else []
    return Extension(name, [name.replace(".", "/") + ".pyx"], include_dirs=include,
                     define_macros=macros, optional=True)


setup(ext_modules=cythonize([kernels("denoise._compiled", lxml_api=True),
                             kernels("denoise._isotonic"), kernels("kwx._kernels"),
                             kernels("mining._kernels"),
                             kernels("engine._kernels", numpy_api=False)],
                            language_level=3, quiet=True))
