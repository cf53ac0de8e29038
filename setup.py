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

# JELLY_SANITIZE=address (AddressSanitizer) and/or coverage (native coverage for the fuzzer,
# fuzz/sancov.c), comma-separated: build such extensions into a directory of their own
# (docs/robustness.md), never in place.
SANITIZE = {s for s in os.environ.get("JELLY_SANITIZE", "").split(",") if s}
if SANITIZE - {"address", "coverage"}:
    raise SystemExit(f"JELLY_SANITIZE: unknown {', '.join(sorted(SANITIZE))} "
                     f"(address, coverage)")
compile_args = ["-O3"]
link_args = []
if "address" in SANITIZE:
    compile_args = ["-O1", "-g", "-fsanitize=address", "-fno-omit-frame-pointer"]
    link_args = ["-fsanitize=address"]

extensions = [
    Extension(
        path[:-4].replace(os.sep, "."),
        [path],
        define_macros=macros,
        extra_compile_args=compile_args + (["-fsanitize-coverage=trace-pc,trace-cmp"]
                                           if "coverage" in SANITIZE else []),
        extra_link_args=link_args,
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
    ) + ([Extension("_jelly_sancov", ["fuzz/sancov.c"], extra_compile_args=["-O2"])]
         if "coverage" in SANITIZE else []),
)
