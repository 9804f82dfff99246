# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The one compiled part: Kaleido's threshold loop (mechanisms/samples/_kaleido_loop.c says why).
Optional: without a C compiler the package installs and runs the same loop in pure Python.

``pip install -e .`` builds it into ``src/``; ``python setup.py inplace`` rebuilds it there
after an edit of the C file with whatever setuptools the environment has (it does not read
pyproject.toml, which needs setuptools >= 77; used by ``make`` and ``scripts/mutants.py``).
"""

import sys

from setuptools import Distribution, Extension, setup

# no fused multiply-add: the compiled loop must round exactly as the Python loop does
FLAGS = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off"]
EXT = Extension("gazeprivacy.mechanisms.samples._kaleido_loop",
                ["src/gazeprivacy/mechanisms/samples/_kaleido_loop.c"],
                extra_compile_args=FLAGS, optional=True)

if __name__ == "__main__" and sys.argv[1:] == ["inplace"]:
    dist = Distribution({"ext_modules": [EXT], "package_dir": {"": "src"},
                         "script_args": ["-q", "build_ext", "--inplace"]})
    dist.parse_command_line()
    dist.run_commands()
else:
    setup(ext_modules=[EXT])
