# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A fresh install is the tested install: ``constraints/py311-linux.txt`` pins every package
that ``make`` installs, every install step uses it, and ``make test`` installs no system
package (the browser test skips without Chromium; ``.ci/run`` installs it)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
CONSTRAINTS = REPO / "constraints" / "py311-linux.txt"
MAKEFILE = (REPO / "Makefile").read_text()


def _pins() -> dict[str, str]:
    pins = {}
    for line in CONSTRAINTS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9._-]+)==([A-Za-z0-9.+!_-]+)", line)
        assert m, f"{CONSTRAINTS.name}: not NAME==VERSION: {line!r}"
        pins[canonicalize_name(m.group(1))] = m.group(2)
    return pins


def _recipe(target: str) -> str:
    m = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n|.*\\\n)*)", MAKEFILE, re.M)
    assert m, target
    return m.group(1)


def test_every_dependency_make_installs_is_pinned():
    """Each direct dependency and each extra that ``make`` installs (``EXTRAS``) has an exact
    version; a dependency added to pyproject.toml without ``make constraints`` fails here."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = re.search(r"^EXTRAS := (.+)$", MAKEFILE, re.M).group(1).split(",")
    reqs = list(project["dependencies"])
    for extra in extras:
        reqs += project["optional-dependencies"][extra]
    pins = _pins()
    missing = sorted({canonicalize_name(Requirement(r).name) for r in reqs} - set(pins))
    assert not missing, (f"not pinned in {CONSTRAINTS.relative_to(REPO)}: {missing}; "
                         "run `make constraints` and commit the file")
    assert pins["torch"] == "2.13.0"
    # every pin satisfies pyproject.toml's own bounds
    for r in map(Requirement, reqs):
        assert r.specifier.contains(pins[canonicalize_name(r.name)], prereleases=True), r


def test_make_installs_with_the_constraints_and_test_runs_no_apt_get():
    install = _recipe("$(VENV)/.installed")
    pip_lines = [ln for ln in install.splitlines() if "pip install" in ln and "--upgrade pip"
                 not in ln]
    assert pip_lines and all("-c $(CONSTRAINTS)" in ln for ln in pip_lines)
    assert "constraints/py311-linux.txt" in MAKEFILE
    for target in ("test", "demo", "mutants"):
        assert "$(VENV)/.installed" in re.search(rf"^{target}:(.*)$", MAKEFILE, re.M).group(1)
        assert "apt-get" not in _recipe(target)
    ci = (REPO / ".ci" / "run").read_text()
    assert "rm -rf .venv" in ci and "apt-get install -y -q chromium" in ci
    steps = [ln for ln in ci.splitlines() if ln and not ln.startswith("#")]
    assert steps.index("rm -rf .venv") < steps.index("make test") < steps.index("make mutants")
