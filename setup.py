# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The compiled parts: Kaleido's threshold loop, DPGazeSynth's per-window kernel (their C files
in mechanisms/samples/ say why) and REMoDNaV's per-segment classification and filters (events/).
Optional:
without a C compiler the package installs and runs the same computations in Python / numpy.

``pip install -e .`` builds it into ``src/``; ``python setup.py inplace`` rebuilds it there
after an edit of the C file with whatever setuptools the environment has (it does not read
pyproject.toml, which needs setuptools >= 77; used by ``make`` and ``scripts/mutants.py``).
"""

import sys

from setuptools import Distribution, Extension, setup

# no fused multiply-add: the compiled code must round exactly as the Python code does
FLAGS = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off"]
# headers a C file includes: a change rebuilds it, and setuptools ships them in the sdist
REMODNAV_H = ["src/gazeprivacy/events/_remodnav_common.h"]
EXTS = [Extension(f"gazeprivacy.{package}.{name}",
                  [f"src/gazeprivacy/{package.replace('.', '/')}/{name}.c"],
                  depends=depends, extra_compile_args=FLAGS, optional=True)
        for package, name, depends in (("mechanisms.samples", "_kaleido_loop", []),
                                       ("mechanisms.samples", "_dpgazesynth_kernel", []),
                                       ("events", "_remodnav_loop", REMODNAV_H),
                                       ("events", "_remodnav_filters", REMODNAV_H))]

if __name__ == "__main__" and sys.argv[1:] == ["inplace"]:
    dist = Distribution({"ext_modules": EXTS, "package_dir": {"": "src"},
                         "script_args": ["-q", "build_ext", "--inplace"]})
    dist.parse_command_line()
    dist.run_commands()
else:
    setup(ext_modules=EXTS)
