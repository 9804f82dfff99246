# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``protect``: the one entry point that runs any registered mechanism on a dataset.

It is an entry point in the sense of the randomness policy: without ``rng`` it creates the
generator, from OS entropy (a release) or from ``seed`` (a research run, which the record notes).
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

import numpy as np

from gazeprivacy.data.recording import Dataset
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.guarantees import Release
from gazeprivacy.rng import make_rng

__all__ = ["build_params", "protect"]


def _coerce_input(data: Any, level: Any) -> Any:
    """A long-format table as a Dataset (sample and event levels), a pandas or pyarrow feature
    table as polars (series level); anything else is left for ``Level.check_input``."""
    from gazeprivacy.data.io import as_polars, dataset_from_table
    from gazeprivacy.mechanisms.contract import Level

    module = type(data).__module__.split(".")[0]
    if module not in ("polars", "pandas", "pyarrow") or not hasattr(data, "columns"):
        return data
    if level.takes_samples:
        return dataset_from_table(data, source=f"the {type(data).__name__} given to protect")
    if level is Level.SERIES:
        return as_polars(data, "the feature table")
    return data


def build_params(mechanism: str, params: Any = None, /, **kwargs: Any) -> Any:
    """The mechanism's parameter object from an instance or from keyword arguments.

    Unknown keyword names raise an error that lists the valid ones.
    """
    from gazeprivacy.mechanisms import MECHANISMS

    spec = MECHANISMS[mechanism]
    if params is not None:
        if kwargs:
            raise InvalidParameterError("give params or keyword parameters, not both")
        spec.check_params(params)
        return params
    names = {f.name for f in fields(spec.params_type)}
    unknown = sorted(set(kwargs) - names)
    if unknown:
        raise InvalidParameterError(
            f"{mechanism} has no parameter(s) {', '.join(unknown)}; valid: "
            f"{', '.join(sorted(names))}")
    required = sorted(f.name for f in fields(spec.params_type)
                      if f.default is MISSING and f.default_factory is MISSING
                      and f.name not in kwargs)
    if required:
        raise InvalidParameterError(
            f"{mechanism} needs {', '.join(required)} (privacy parameters have no defaults; "
            f"use {spec.params_type.__name__}.paper(...) for a paper's values)")
    return spec.params_type(**kwargs)


def protect(dataset: Dataset | Any, *, mechanism: str, params: Any = None,
            rng: np.random.Generator | None = None, seed: int | None = None,
            progress: bool = False, **param_kwargs: Any) -> Release[Any]:
    """Protect ``dataset`` (or a series / heatmap mechanism's input) with a registered mechanism.

    Parameters
    ----------
    dataset : Dataset, table, feature series or GazeMaps
        The input of the mechanism's level (:class:`~gazeprivacy.mechanisms.contract.Level`):
        a Dataset for sample and event mechanisms, a list of ``FeatureSeries`` or a feature
        table for series mechanisms, the ``GazeMaps`` of one stimulus for heatmap mechanisms.
        A long-format table (polars, pandas or pyarrow; seconds and degrees) is read with
        :func:`~gazeprivacy.data.io.dataset_from_table` for sample and event mechanisms; a
        pandas or pyarrow feature table is converted to polars. Other units, labels and
        readers: build the Dataset first (``dataset_from_table(table, xy_unit=..., labels=...)``).
    mechanism : str
        A name in :data:`gazeprivacy.mechanisms.MECHANISMS` (e.g. ``"dpgazesynth"``,
        ``"kaleido"``).
    params : parameter object, optional
        The mechanism's frozen ``*Params``; or give its fields as keyword arguments.
    rng : numpy.random.Generator, optional
        Randomness; when None, a generator is created from ``seed`` or, without a seed, from OS
        entropy.
    seed : int, optional
        Fix the generator (research run); the record then carries the seed and a flag.
    progress : bool
        Show a progress bar.

    Returns
    -------
    Release
        The protected data (for datasets: same recordings, order and row counts) and its
        guarantee.

    Raises
    ------
    InvalidParameterError
        Unknown mechanism or parameter, wrong parameter type, or both ``rng`` and ``seed``.
    InvalidDataError
        ``dataset`` is not the input of the mechanism's level.

    Examples
    --------
    >>> from gazeprivacy.data import Dataset, Geometry, Recording
    >>> geo = Geometry(x_min_deg=-10, x_max_deg=10, y_min_deg=-10, y_max_deg=10)
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=np.zeros(100),
    ...                             y=np.zeros(100), sampling_rate_hz=100, geometry=geo)
    >>> rel = protect(Dataset((rec,)), mechanism="kaleido", epsilon=1.0, radius_deg=2.0,
    ...               window_samples=50, seed=1)
    >>> rel.guarantee.seed, rel.guarantee.per_participant["p"].epsilon
    (1, 2.0)
    """
    from gazeprivacy.mechanisms import MECHANISMS

    spec = MECHANISMS[mechanism]
    p = build_params(mechanism, params, **param_kwargs)
    if rng is not None and seed is not None:
        raise InvalidParameterError("give rng or seed, not both")
    gen = rng if rng is not None else make_rng(seed)
    dataset = _coerce_input(dataset, spec.level)
    spec.level.check_input(dataset, mechanism)
    rel = spec.protect(dataset, p, rng=gen, progress=progress)
    return Release(rel.output, rel.guarantee.with_seed(seed))
