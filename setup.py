"""Build script: compiles every ``jelly/*.pyx`` into an extension module.

Metadata lives in pyproject.toml; this file only declares the Cython extensions.
"""

import glob
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

# JELLY_CYTHON_TRACE=1 builds with line tracing for coverage and profiling runs.
TRACE = os.environ.get("JELLY_CYTHON_TRACE") == "1"
macros = [("CYTHON_TRACE_NOGIL", "1")] if TRACE else []

extensions = [
    Extension(
        path[:-4].replace(os.sep, "."),
        [path],
        define_macros=macros,
        extra_compile_args=["-O3"],
    )
    for path in sorted(glob.glob(os.path.join("jelly", "*.pyx")))
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": "3",
            "linetrace": TRACE,
            "embedsignature": True,
        },
    ),
)
