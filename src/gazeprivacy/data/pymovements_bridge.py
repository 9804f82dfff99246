# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Convert between gazeprivacy recordings / datasets and pymovements (>= 0.28) ``pm.Gaze``.

:func:`to_pymovements` builds one ``pm.Gaze`` whose samples have the columns ``participant``,
``recording`` (the trial columns), ``time`` (milliseconds, pymovements' unit), ``position``
(``[x, y]`` in degrees, pymovements' "dva" position), then ``pupil``, extra channels and the
label columns. NaN gaze becomes null (pymovements' missing-value convention). When all recordings
share one sampling rate, ``gaze.experiment`` is a ``pm.Experiment(sampling_rate=...)`` so that
pymovements transforms (``gaze.pos2vel(...)``) and detectors (``gaze.detect("ivt")``) run on it.
Everything pymovements has no place for (per-recording sampling rate and geometry, label names,
dataset name and info) travels in ``gaze.metadata["gazeprivacy"]``.

:func:`from_pymovements` reverses this exactly (up to the floating-point round trip of
``t * 1000 / 1000``) when that metadata is present, and otherwise reads any monocular or
binocular ``pm.Gaze`` with a ``position`` column (or a ``pixel`` column and an experiment whose
screen allows ``pix2deg``), one recording per combination of trial columns. The participant is
the ``participant_column`` (found by name when not given: ``participant``, ``subject``,
``subject_id``, ...; a trial column such as ``trial`` is never taken for it), and the geometry
comes from the experiment's screen (its bounds in degrees, as ``pix2deg`` measures them) unless
one is given.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import polars as pl

from gazeprivacy._validation import check_in
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import DataPolicyWarning, InvalidDataError, InvalidParameterError

__all__ = ["PARTICIPANT_COLUMNS", "from_pymovements", "geometry_from_experiment",
           "to_pymovements"]

_META = "gazeprivacy"
#: Column names taken for the participant id when ``participant_column`` is not given (first
#: match, case-insensitive).
PARTICIPANT_COLUMNS = ("participant", "participant_id", "subject", "subject_id", "subj",
                       "subj_id", "sub", "sub_id", "subject_nr", "participant_nr", "pid",
                       "observer", "observer_id", "reader", "reader_id", "wearer", "wearer_id")
_EYES = ("auto", "left", "right", "cyclopean")


def _pm() -> Any:
    import pymovements as pm  # a core dependency; imported lazily because it is slow to import

    return pm


def to_pymovements(data: Recording | Dataset, *, events: pl.DataFrame | None = None) -> Any:
    """A ``pymovements.Gaze`` holding ``data``'s samples and metadata (and events).

    Parameters
    ----------
    data : Recording or Dataset
    events : polars.DataFrame, optional
        An event table of ``data`` (``gazeprivacy.events.EVENT_SCHEMA``: ``recording``,
        ``name``, sample indices ``onset`` and exclusive ``offset``). It becomes ``gaze.events``
        in pymovements' convention: onset and *inclusive* offset as sample timestamps in ms, with
        the trial columns, so that e.g. ``gaze.compute_event_properties("peak_velocity")`` works.

    Returns
    -------
    pymovements.Gaze
        Trial columns ``["participant", "recording"]``, time in ms, ``position`` in degrees.

    Raises
    ------
    InvalidDataError
        ``data`` is an empty dataset, or ``events`` name a recording that is not in ``data`` or
        lie outside it.

    Examples
    --------
    >>> r = Recording.from_arrays(recording="r1", participant="p1", x=[0.0, 1.0, np.nan],
    ...                           y=[0.0, 0.5, np.nan], sampling_rate_hz=100)
    >>> gaze = to_pymovements(r)
    >>> gaze.samples["time"].to_list(), gaze.samples["position"].to_list()[1]
    ([0, 10, 20], [1.0, 0.5])
    >>> back = from_pymovements(gaze)
    >>> back.recording, back.sampling_rate_hz, np.isnan(back.x[2])
    ('r1', 100.0, np.True_)
    """
    pm = _pm()
    single = isinstance(data, Recording)
    ds = Dataset((data,), name=data.recording) if single else data
    if len(ds) == 0:
        raise InvalidDataError(f"dataset {ds.name!r} has no recordings; nothing to convert")
    table = ds.to_table()
    table = table.with_columns((pl.col("t") * 1000.0).alias("time")).drop("t")
    rates = {r.sampling_rate_hz for r in ds}
    experiment = pm.Experiment(sampling_rate=rates.pop()) if len(rates) == 1 else None
    gaze = pm.Gaze(samples=table, experiment=experiment,
                   trial_columns=["participant", "recording"], time_column="time",
                   time_unit="ms", position_columns=["x", "y"])
    meta = {
        "type": "recording" if single else "dataset",
        "name": ds.name,
        "info": json.loads(json.dumps(dict(ds.info), default=str)),
        "recordings": {
            r.recording: {
                "participant": r.participant,
                "sampling_rate_hz": r.sampling_rate_hz,
                "geometry": None if r.geometry is None else r.geometry.to_dict(),
                "labels": dict(r.labels),
                "pupil": r.pupil is not None,
                "channels": list(r.channels),
            } for r in ds
        },
    }
    gaze.metadata = {**(gaze.metadata or {}), _META: meta}
    if events is not None:
        gaze.events = _pm_events(ds, events)
    return gaze


def _pm_events(ds: Dataset, events: pl.DataFrame) -> Any:
    pm = _pm()
    index = {r.recording: r for r in ds}
    onset_ms, offset_ms = [], []
    for rid, on, off in events.select("recording", "onset", "offset").iter_rows():
        r = index.get(rid)
        if r is None or not 0 <= on < off <= r.n_samples:
            raise InvalidDataError(
                f"event ({rid!r}, onset {on}, offset {off}) is not inside a recording of "
                f"dataset {ds.name!r}; pass the events detected on this data")
        onset_ms.append(r.t[on] * 1000.0)
        offset_ms.append(r.t[off - 1] * 1000.0)
    frame = pl.DataFrame({
        "participant": [index[rid].participant for rid in events["recording"]],
        "recording": events["recording"].cast(pl.String),
        "name": events["name"].cast(pl.String),
        "onset": pl.Series(onset_ms, dtype=pl.Float64),
        "offset": pl.Series(offset_ms, dtype=pl.Float64),
    })
    return pm.Events(frame, trial_columns=["participant", "recording"])


def _participant_of(g: pl.DataFrame, pcol: str | None, participant: str | None,
                    rid: str) -> str:
    if pcol is None:
        return participant or rid
    ids = g[pcol].drop_nulls().unique(maintain_order=True)
    if ids.len() != 1:
        raise InvalidDataError(f"recording {rid!r} has {ids.len()} values in participant column "
                               f"{pcol!r}; add it to the trial columns or choose another "
                               "participant_column")
    return str(ids[0])


def _labels_of(g: pl.DataFrame, trials: list[str], pcol: str | None) -> dict[str, str]:
    """Text and trial columns with one value in this recording (nulls ignored)."""
    return {c: str(g[c].drop_nulls()[0]) for c in g.columns
            if (g.schema[c] == pl.String or c in trials)
            and c not in ("participant", "recording", pcol, "_x", "_y", "_t")
            and g[c].drop_nulls().n_unique() == 1}


def _eye_components(n_components: int, eye: str) -> tuple[int, int]:
    check_in(options=_EYES, eye=eye)
    if n_components == 2:
        if eye not in ("auto", "cyclopean"):
            raise InvalidParameterError(f"eye={eye!r} but the gaze is monocular; use eye='auto'")
        return 0, 1
    # pymovements' component order: left x, left y, right x, right y[, cyclopean x, y].
    if eye == "auto":
        eye = "cyclopean" if n_components >= 6 else "right"
    if eye == "cyclopean" and n_components < 6:
        raise InvalidParameterError(
            f"eye='cyclopean' needs 6 position components, the gaze has {n_components}")
    return {"left": (0, 1), "right": (2, 3), "cyclopean": (4, 5)}[eye]


def _participant_column(columns: list[str], trials: list[str], given: str | None, *,
                        warn: bool) -> str | None:
    """The column naming the participant: ``given`` (checked), else the first of
    :data:`PARTICIPANT_COLUMNS` present (so a ``trial`` or ``session`` column never is)."""
    if given is not None:
        if given not in columns:
            raise InvalidParameterError(f"participant_column {given!r} is not a column of "
                                        f"gaze.samples; its columns: {', '.join(columns)}")
        return given
    lower = {c.lower(): c for c in columns}
    for name in PARTICIPANT_COLUMNS:
        c = lower.get(name)
        if c is not None:
            return c
    if trials and warn:
        warnings.warn(f"gaze has trial columns {trials} but no participant column (looked for "
                      f"{', '.join(PARTICIPANT_COLUMNS[:6])}, ...): each recording counts as "
                      "its own participant; pass participant_column=... if a person has "
                      "several recordings", DataPolicyWarning, stacklevel=3)
    return None


def geometry_from_experiment(experiment: Any) -> Geometry | None:
    """The screen of a ``pm.Experiment`` as a :class:`Geometry` in degrees (``pix2deg``'s
    bounds and the pixel grid); None when the screen lacks its size or distance."""
    screen = getattr(experiment, "screen", None)
    if screen is None:
        return None
    try:
        bounds = (screen.x_min_dva, screen.x_max_dva, screen.y_min_dva, screen.y_max_dva)
    except (AttributeError, TypeError, ValueError):
        return None
    if any(b is None or not np.isfinite(b) for b in bounds):
        return None
    return Geometry(x_min_deg=float(bounds[0]), x_max_deg=float(bounds[1]),
                    y_min_deg=float(bounds[2]), y_max_deg=float(bounds[3]),
                    width_px=int(screen.width_px), height_px=int(screen.height_px))


def from_pymovements(gaze: Any, *, participant: str | None = None, recording: str | None = None,
                     sampling_rate_hz: float | None = None, geometry: Geometry | None = None,
                     eye: str = "auto", name: str | None = None,
                     participant_column: str | None = None) -> Recording | Dataset:
    """Recordings from a ``pymovements.Gaze``.

    Parameters
    ----------
    gaze : pymovements.Gaze
    participant, recording : str, optional
        Ids for a gaze without trial columns (one recording); ``participant`` also names the
        participant of every recording when no participant column is found.
    sampling_rate_hz : float, optional
        Overrides the experiment's rate; without either it is inferred from the timestamps.
    geometry : Geometry, optional
        Geometry of every recording (metadata from :func:`to_pymovements` takes precedence);
        default: the experiment's screen (:func:`geometry_from_experiment`).
    participant_column : str, optional
        The samples column that holds the participant id. Default: the first column named as
        in :data:`PARTICIPANT_COLUMNS` (``participant``, ``subject``, ``subject_id``, ...). With
        trial columns but no participant column, each recording counts as its own participant
        and a :class:`DataPolicyWarning` says so (per-participant budgets are then per
        recording, which understates them when a person has several).
    eye : {"auto", "left", "right", "cyclopean"}
        Which eye of binocular data (``auto``: cyclopean if present, else right, as pymovements).
    name : str, optional
        Dataset name.

    Returns
    -------
    Recording or Dataset
        What :func:`to_pymovements` was given when ``gaze`` carries its metadata; otherwise a
        :class:`Dataset` (also for a single trial).

    Raises
    ------
    InvalidDataError
        No time column, no position (and no convertible pixel) column, or a recording breaks a
        data-model rule.
    """
    samples = gaze.samples
    meta = (gaze.metadata or {}).get(_META)
    if "time" not in samples.columns:
        raise InvalidDataError("gaze.samples has no 'time' column; pymovements needs one")
    if "position" not in samples.columns:
        if "pixel" in samples.columns and gaze.experiment is not None:
            gaze = gaze.clone()
            gaze.pix2deg()
            samples = gaze.samples
        else:
            raise InvalidDataError(
                "gaze.samples has no 'position' column (degrees); give the pm.Gaze a "
                "'position' column or a 'pixel' column with an experiment screen for pix2deg")
    n_comp = int(samples["position"].list.len().max() or 0)
    ix, iy = _eye_components(n_comp, eye)
    tab = samples.with_columns(
        pl.col("position").list.get(ix).cast(pl.Float64).fill_null(np.nan).alias("_x"),
        pl.col("position").list.get(iy).cast(pl.Float64).fill_null(np.nan).alias("_y"),
        (pl.col("time").cast(pl.Float64) / 1000.0).alias("_t"),
    )
    rate = sampling_rate_hz
    if gaze.experiment is not None:
        rate = rate or gaze.experiment.sampling_rate
        geometry = geometry or geometry_from_experiment(gaze.experiment)
    trials = list(gaze.trial_columns or [])
    pcol = _participant_column(list(samples.columns), trials, participant_column,
                               warn=meta is None and participant is None)
    groups = (tab.partition_by(trials, maintain_order=True, as_dict=True) if trials
              else {(recording or "recording-0",): tab})
    recs = []
    for key, g in groups.items():
        key = key if isinstance(key, tuple) else (key,)
        if trials:
            rid = str(key[trials.index("recording")]) if "recording" in trials else \
                "/".join(str(k) for k in key)
        else:
            rid = str(key[0])
        m = (meta or {}).get("recordings", {}).get(rid, {})
        pid = m.get("participant") or _participant_of(g, pcol, participant, rid)
        labels = m.get("labels")
        if labels is None:
            labels = _labels_of(g, trials, pcol)
        geo = Geometry.from_dict(m["geometry"]) if m.get("geometry") else geometry
        channels = {c: g[c].cast(pl.Float64).fill_null(np.nan).to_numpy()
                    for c in m.get("channels", [])}
        pupil = None
        if m.get("pupil", "pupil" in g.columns and g.schema["pupil"].is_numeric()):
            pupil = g["pupil"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        recs.append(Recording.from_arrays(
            recording=rid, participant=pid, t=g["_t"].to_numpy(), x=g["_x"].to_numpy(),
            y=g["_y"].to_numpy(), sampling_rate_hz=m.get("sampling_rate_hz", rate),
            labels=labels, geometry=geo, pupil=pupil, channels=channels))
    if meta is not None and meta.get("type") == "recording" and len(recs) == 1:
        return recs[0]
    return Dataset(tuple(recs), name=name or (meta or {}).get("name") or "pymovements",
                   info=(meta or {}).get("info", {}))
