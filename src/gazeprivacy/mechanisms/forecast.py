# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What a release will be worth, said before and after it is made: the warnings of ``protect``.

A release can be formally private and useless. Three checks say so in one line each:

* **Vacuous per-participant bound** (:func:`vacuous_warning`): the record's bound over all of
  a participant's units is above :data:`~gazeprivacy.guarantees.VACUOUS_EPSILON` (or its delta
  is at least 1), so it promises nothing about a participant as a whole.
* **Expected to lose to a data-free baseline** (:func:`noise_forecast`), from public parameters
  only (the mechanism's parameters, the sampling rate and the screen): the smallest noise the
  mechanism can add is compared with the typical error of ``baseline-centre-gaussian``
  (:mod:`gazeprivacy.experiments.baselines`), points drawn around the screen centre without
  reading any gaze. Its root-mean-square distance to a gaze point spread uniformly over a
  W x H screen is ``sqrt(W^2 + H^2) / 3`` (per axis: variance (W/6)^2 of the draw plus W^2 / 12
  of the point, clipping ignored). When even the smallest noise moves points further on
  average, the release is expected to lose to it on position and density metrics. Kaleido is
  the one mechanism with a public-parameter forecast: its published points carry planar
  Laplace noise at ``r / eps_pub`` with ``eps_pub`` at most half the window's publishing budget
  ``eps (1 - 1 / h)`` (:class:`~gazeprivacy.mechanisms.samples.kaleido.KaleidoStream`), so the
  root-mean-square displacement is at least ``sqrt(6) r / eps_pub``. This is a forecast (gaze
  is not uniform, clamping caps the error), not a measurement: ``gazeprivacy evaluate`` gives
  the measurement.
* **Clamped to the border** (:func:`border_share`), after the release: the share of released
  samples that lie on the screen's edge, where points the noise put off screen are clamped.

:func:`plan_release` gives the guarantee and the forecasts from the public shape alone and
:func:`plan_file` reads that shape from a file (``protect --dry-run``);
:func:`release_warnings` gives all three after a release (``protect``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import VACUOUS_EPSILON, Guarantee

if TYPE_CHECKING:
    from gazeprivacy.data.geometry import Geometry
    from gazeprivacy.data.recording import Dataset
    from gazeprivacy.mechanisms.contract import SampleShape

__all__ = ["BORDER_WARNING_SHARE", "PUBLIC_SHAPE_READ", "Plan", "border_share",
           "centre_gaussian_rms_deg", "noise_forecast", "plan_file", "plan_release",
           "release_warnings", "vacuous_warning"]

#: a release with at least this share of its valid samples on the screen border is warned about
BORDER_WARNING_SHARE = 0.05


@dataclass(frozen=True, slots=True)
class Plan:
    """What ``protect --dry-run`` says: the guarantee and the forecasts, from public
    parameters and the input's public shape only."""

    guarantee: Guarantee
    warnings: tuple[str, ...]


def centre_gaussian_rms_deg(geometry: Geometry) -> float:
    """Root-mean-square distance (deg) between a ``baseline-centre-gaussian`` point and a gaze
    point uniform on the screen: ``sqrt(W^2 + H^2) / 3`` (see the module docstring).

    >>> from gazeprivacy.data.geometry import Geometry
    >>> round(centre_gaussian_rms_deg(Geometry(x_min_deg=0, x_max_deg=30, y_min_deg=0,
    ...                                        y_max_deg=40)), 3)
    16.667
    """
    return math.hypot(geometry.width_deg, geometry.height_deg) / 3.0


def _kaleido_min_noise_rms_deg(params: Any) -> tuple[float, float]:
    """(smallest root-mean-square displacement of a published point, largest eps_pub)."""
    eps_pub = params.epsilon * (1.0 - 1.0 / params.h) / 2.0
    # planar Laplace at eps_pub / r: the radius is Gamma(2, r / eps_pub), E[radius^2] = 6 (r/e)^2
    return math.sqrt(6.0) * params.radius_deg / eps_pub, eps_pub


def noise_forecast(mechanism: str, params: Any, geometry: Geometry | None) -> str | None:
    """One warning when public parameters alone say the release will lose to
    ``baseline-centre-gaussian``, else None (also for mechanisms with no such forecast).

    >>> from gazeprivacy.data.geometry import Geometry
    >>> from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams
    >>> screen = Geometry(x_min_deg=0, x_max_deg=17, y_min_deg=0, y_max_deg=13)
    >>> p = KaleidoParams(epsilon=1.0, radius_deg=2.0, window_s=0.5)
    >>> "baseline-centre-gaussian" in noise_forecast("kaleido", p, screen)
    True
    >>> noise_forecast("kaleido", KaleidoParams(epsilon=1.0, radius_deg=0.1, window_s=0.5),
    ...                screen) is None
    True
    """
    if mechanism != "kaleido" or geometry is None:
        return None
    noise, eps_pub = _kaleido_min_noise_rms_deg(params)
    base = centre_gaussian_rms_deg(geometry)
    if noise <= base:
        return None
    return (f"expected to be less useful than data-free points: Kaleido's noise moves each "
            f"published point by at least {noise:.3g} deg (root mean square; planar Laplace at "
            f"r / eps_pub with r = {params.radius_deg:g} deg and eps_pub <= {eps_pub:.3g}), "
            f"more than points drawn around the centre of this {geometry.width_deg:.3g} x "
            f"{geometry.height_deg:.3g} deg screen without any gaze ({base:.3g} deg; "
            "baseline-centre-gaussian); most points will be clamped to the screen border. "
            "A smaller --radius-deg or a larger --epsilon helps; `gazeprivacy evaluate` "
            "measures it")


def vacuous_warning(guarantee: Guarantee) -> str | None:
    """One warning when the per-participant bound promises nothing, else None.

    >>> from gazeprivacy.guarantees import Kind, Unit
    >>> g = Guarantee(mechanism="m", kind=Kind.PURE_DP, unit=Unit.WINDOW, epsilon=50.0)
    >>> vacuous_warning(g.compose({"p1": 1})).startswith("the bound per participant is vacuous")
    True
    """
    if not guarantee.participant_bound_vacuous:
        return None
    eps, delta = guarantee.max_participant_epsilon, guarantee.max_participant_delta
    bound = (f"epsilon up to {eps:g}" if eps is not None and eps > VACUOUS_EPSILON
             else f"delta up to {delta:g}")
    return (f"the bound per participant is vacuous ({bound} over a participant's "
            f"{guarantee.unit.value}s; above {VACUOUS_EPSILON:g} it promises nothing about a "
            "participant as a whole): only the per-unit guarantee holds")


def _shape_geometry(shape: SampleShape | Any, params: Any) -> Geometry | None:
    """The parameters' geometry, else the first recording's of a sample-level shape."""
    geo = getattr(params, "geometry", None)
    if geo is None:
        geo = next((g for r in getattr(shape, "recordings", ())
                    if (g := getattr(r, "geometry", None)) is not None), None)
    return geo


def plan_release(mechanism: str, params: Any, shape: Any) -> Plan:
    """The guarantee and the public-parameter forecasts of a release (never reads data).

    ``shape`` is the input's public shape (``MECHANISMS[mechanism].shape_of(data)``).
    """
    from gazeprivacy.mechanisms import MECHANISMS

    g = MECHANISMS[mechanism].guarantee(params, shape)
    notes = [vacuous_warning(g), noise_forecast(mechanism, params, _shape_geometry(shape, params))]
    return Plan(guarantee=g, warnings=tuple(n for n in notes if n))


def border_share(dataset: Dataset) -> float:
    """Share of the valid released samples that lie on their recording's screen border (within
    1e-6 of the screen's size); recordings without a geometry are left out.

    >>> from gazeprivacy.data import Dataset, Geometry, Recording
    >>> geo = Geometry(x_min_deg=0, x_max_deg=10, y_min_deg=0, y_max_deg=10)
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=np.array([0, 5, 10, 5.]),
    ...                             y=np.array([5, 5, 5, 5.]), sampling_rate_hz=10, geometry=geo)
    >>> border_share(Dataset((rec,)))
    0.5
    """
    on, valid = 0, 0
    for r in dataset.recordings:
        g = r.geometry
        if g is None:
            continue
        x, y = np.asarray(r.x, dtype=np.float64), np.asarray(r.y, dtype=np.float64)
        ok = ~(np.isnan(x) | np.isnan(y))
        tol = 1e-6 * max(g.width_deg, g.height_deg, 1.0)
        edge = ((np.abs(x - g.x_min_deg) < tol) | (np.abs(x - g.x_max_deg) < tol)
                | (np.abs(y - g.y_min_deg) < tol) | (np.abs(y - g.y_max_deg) < tol))
        on += int((edge & ok).sum())
        valid += int(ok.sum())
    return on / valid if valid else 0.0


def release_warnings(guarantee: Guarantee, dataset: Dataset | None, *, mechanism: str,
                     params: Any = None) -> list[str]:
    """The warnings of a finished release: vacuous bound, the noise forecast (when ``params``
    is given) and the share of samples clamped to the border (when ``dataset``, the released
    data with its geometry, is given)."""
    out: list[str] = [w for w in (vacuous_warning(guarantee),) if w]
    if params is not None and dataset is not None and len(dataset):
        geo = getattr(params, "geometry", None) or dataset.recordings[0].geometry
        if (fc := noise_forecast(mechanism, params, geo)) is not None:
            out.append(fc)
    if dataset is not None and (share := border_share(dataset)) >= BORDER_WARNING_SHARE:
        out.append(f"{100 * share:.0f} % of the released samples lie on the screen border: "
                   "points the noise put off screen were clamped to its edge, so their "
                   "positions say little about the gaze")
    return out


#: what :func:`plan_file` reads of the input, in the words ``protect --dry-run`` prints
PUBLIC_SHAPE_READ = ("participant and recording ids, row counts, sampling rates, the screen "
                     "geometry and recording labels (the reader parses the file; no gaze value "
                     "is used)")


def plan_file(in_path: str | os.PathLike[str], *, mechanism: str, params: Any,
              reading: Mapping[str, Any] | None = None) -> Plan:
    """:func:`plan_release` for a file: its public shape is read as ``protect`` would read it
    (``reading``: the options of :func:`gazeprivacy.data.readers.read_input`; a feature table
    for series mechanisms), the mechanism is not run and nothing is written."""
    from gazeprivacy.mechanisms import MECHANISMS
    from gazeprivacy.mechanisms.contract import Level

    spec = MECHANISMS[mechanism]
    path = Path(in_path)  # a path-like input keeps its reader options for read_input below
    if spec.level is Level.SERIES:
        import polars as pl

        try:
            data: Any = (pl.read_parquet(path) if path.suffix in (".parquet", ".pq")
                         else pl.read_csv(path))
        except (OSError, pl.exceptions.PolarsError) as exc:
            raise InvalidDataError(f"cannot read feature table {str(path)!r}: {exc}") from None
    elif spec.level.takes_samples:
        from gazeprivacy.data.readers import read_input

        data = read_input(in_path, **dict(reading or {}))
    else:
        raise InvalidParameterError(
            f"{mechanism} is a {spec.level}-level mechanism; protect takes gaze samples or "
            "feature tables (heatmaps: use `gazeprivacy heatmap`)")
    return plan_release(mechanism, params, spec.shape_of(data))
