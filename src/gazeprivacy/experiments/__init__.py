# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Experiments: TOML config -> dataclasses, the resumable parallel grid runner, the demo.

The names below are loaded on first use (PEP 562): importing a light submodule such as
:mod:`gazeprivacy.experiments.featurize` or :mod:`gazeprivacy.experiments.streaming` does not
import the runner, the attacks (scikit-learn) or the report (matplotlib).

>>> import gazeprivacy.experiments as ex
>>> ex.run_experiment.__module__
'gazeprivacy.experiments.engine.runner'
>>> ex.config.__name__
'gazeprivacy.experiments.config'
"""

import typing as _typing

_SOURCES: dict[str, str] = {
    **dict.fromkeys(["ConfigError", "ExperimentConfig", "load_config", "parse_config"],
                    "gazeprivacy.experiments.config"),
    "run_demo": "gazeprivacy.experiments.demo",
    **dict.fromkeys(["ExperimentResult", "expand_cells", "run_experiment"],
                    "gazeprivacy.experiments.engine"),
}

__all__ = [
    "ConfigError",
    "ExperimentConfig",
    "ExperimentResult",
    "expand_cells",
    "load_config",
    "parse_config",
    "run_demo",
    "run_experiment",
]


if not _typing.TYPE_CHECKING:  # type checkers read the imports below instead
    from gazeprivacy._lazy import lazy_attributes as _lazy_attributes

    __getattr__, __dir__ = _lazy_attributes(__name__, _SOURCES, globals(), __all__)


if _typing.TYPE_CHECKING:  # the same names, eagerly, for type checkers and IDEs
    from gazeprivacy.experiments.config import (
        ConfigError,
        ExperimentConfig,
        load_config,
        parse_config,
    )
    from gazeprivacy.experiments.demo import run_demo
    from gazeprivacy.experiments.engine import ExperimentResult, expand_cells, run_experiment
