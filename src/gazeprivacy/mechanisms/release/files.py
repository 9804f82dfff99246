# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Protect a file: read it, protect it with a mechanism, seal and write the release
(:func:`protect_file`, behind ``gazeprivacy protect``), charging the privacy-budget ledger when
one is given. Part of :mod:`gazeprivacy.mechanisms.release`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from gazeprivacy._atomic import check_outputs
from gazeprivacy.data.geometry import Geometry
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.guarantees import Release
from gazeprivacy.mechanisms.contract import Level
from gazeprivacy.mechanisms.release.plan import planned_guarantee
from gazeprivacy.mechanisms.release.sealing import SealedRelease, seal, seal_series_table
from gazeprivacy.mechanisms.release.write import release_outputs, write_sealed
from gazeprivacy.rng import make_rng

if TYPE_CHECKING:
    from gazeprivacy.accounting.ledger import Ledger, Spend

__all__ = ["participant_ids", "protect_file"]

def protect_file(in_path: str | Path, out_path: str | Path, *, mechanism: str,
                 params: Any = None, public: Iterable[str] = (),
                 pupil_epsilon: float | None = None, pupil_range: Sequence[float] | None = None,
                 id_map_path: str | Path | None = None, report_path: str | Path | None = None,
                 seed: int | None = None, time_unit: str = "s", geometry: Geometry | None = None,
                 progress: bool = False, ledger: Ledger | str | Path | None = None,
                 labels: Iterable[str] = (), xy_unit: str | None = None,
                 px_per_deg: float | None = None, input_format: str | None = None,
                 participant: str | None = None, overwrite: bool = False,
                 pseudonym_key: bytes | None = None,
                 **param_kwargs: Any) -> SealedRelease:
    """Read a long-format file, protect it with ``mechanism``, and write the sealed release.

    The library function behind ``gazeprivacy protect``: every privacy parameter comes from the
    caller (``params`` or keyword arguments); nothing is filled in here. Feature-series
    mechanisms read a feature table instead. One generator (``seed``, else OS entropy) drives the
    mechanism, then (spawned) the pseudonyms and the pupil noise.

    Parameters
    ----------
    in_path, out_path : path
        Input file (the long format, or an eye-tracker export: :mod:`gazeprivacy.data.readers`)
        and output file (``.csv``, ``.csv.gz`` or ``.parquet``); the record goes to
        ``OUT.guarantee.json`` and, for Parquet, into the file's metadata.
    mechanism : str
        A sample-level or feature-series name in ``MECHANISMS``.
    params : parameter object, optional
        The mechanism's ``*Params``; or give its fields as keyword arguments.
    public, pupil_epsilon, pupil_range
        As in :func:`seal`.
    id_map_path, report_path : path, optional
        Write the id map / the data holder's report there (only when given).
    seed : int, optional
        Research run: fixes the noise (never the pseudonym key, which comes from OS entropy).
        The written record is then not formally private (a guarantee-breaking flag, without the
        seed's value), the seed goes to the data holder's report (``report_path``), and a
        ledger refuses the release unless it allows unaccounted ones. None draws OS entropy.
    time_unit : {"s", "ms", "us"}
        Unit of the input's ``t`` column.
    geometry : Geometry, optional
        Overrides the file's metadata.
    labels, xy_unit, px_per_deg, input_format, participant
        How the input is read (:func:`gazeprivacy.data.readers.read_input`): columns that are
        recording labels, the unit of x and y, pixels per degree, the input's format, the
        participant of a device export that names none.
    ledger : Ledger or path, optional
        Charge each participant in this privacy-budget ledger
        (:mod:`gazeprivacy.accounting.ledger`): the spend, from the data-free privacy map plus
        the pupil budget (:func:`~gazeprivacy.mechanisms.release.planned_guarantee`), is
        reserved before any work (refused past the ledger's cap), checked participant by
        participant against the sealed record before anything is written, cancelled when the
        work or the write fails, and committed with the output's SHA-256 after the write.
    pseudonym_key : bytes, optional
        Test-only fixed pseudonym key (bit-equality and hash checks); the record then says the
        release is not formally private.

    overwrite : bool
        Replace existing outputs. Every output (data, record, id map, report) is checked before
        any work (:func:`gazeprivacy._atomic.check_outputs`): none may be the input, the
        ledger, its key or another output.

    Returns
    -------
    SealedRelease
        What was written, with the id map and report (which stay with the caller).

    Raises
    ------
    InvalidParameterError
        Unknown mechanism or parameter, a heatmap mechanism, or a sealing policy refusal.
    InvalidDataError
        The input cannot be read or breaks a data-model rule.
    LedgerError
        The ledger refuses the release (before any work) or cannot be used.
    """
    from gazeprivacy.mechanisms import MECHANISMS, build_params
    from gazeprivacy.mechanisms import protect as protect_dataset

    spec = MECHANISMS[mechanism]
    check_outputs(release_outputs(out_path, id_map_path=id_map_path, report_path=report_path),
                  inputs=[in_path], ledger=getattr(ledger, "path", ledger), overwrite=overwrite)
    public = tuple(public)
    rng = make_rng(seed)
    mech_rng, seal_rng = rng.spawn(2)
    if spec.level is Level.SERIES:
        if pupil_epsilon is not None or pupil_range is not None:
            raise InvalidParameterError("pupil_epsilon applies to sample-level releases")
        return _protect_series_file(Path(in_path), Path(out_path), mechanism,
                                    build_params(mechanism, params, **param_kwargs),
                                    public=public, seed=seed, id_map_path=id_map_path,
                                    rngs=(mech_rng, seal_rng), ledger=ledger,
                                    overwrite=overwrite, pseudonym_key=pseudonym_key,
                                    report_path=report_path)
    if not spec.level.takes_samples:
        raise InvalidParameterError(
            f"{mechanism} is a {spec.level}-level mechanism; protect takes gaze samples or "
            "feature tables (heatmaps: use `gazeprivacy heatmap`)")
    from gazeprivacy.data.readers import read_input

    ds = read_input(in_path, input_format=input_format, time_unit=time_unit, geometry=geometry,
                    labels=tuple(labels), xy_unit=xy_unit, px_per_deg=px_per_deg,
                    participant=participant)
    entry = _ledger_reserve(ledger, mechanism, params, param_kwargs, ds, seed=seed,
                            pupil=(pupil_epsilon, pupil_range, public))
    with entry.guard():
        rel = protect_dataset(ds, mechanism=mechanism, params=params, rng=mech_rng,
                              progress=progress, **param_kwargs)
        rel = Release(rel.output, rel.guarantee.as_seeded_release(seed is not None))
        sealed = _with_seed(seal(rel, public=public, pupil_epsilon=pupil_epsilon,
                                 pupil_range=pupil_range, source=ds, rng=seal_rng,
                                 pseudonym_key=pseudonym_key), seed, entry.merged)
        entry.check(sealed.guarantee, ids=participant_ids(sealed))
        # the input and the mechanism's own release are dropped before the table is built (on
        # first use, in the write): the process never holds both (issue 18: peak memory)
        del ds, rel
        # inside the guard: a failed write (a full disk) cancels the reservation
        write_sealed(sealed, out_path, id_map_path=id_map_path, report_path=report_path,
                     input_path=in_path, overwrite=overwrite)
    entry.commit(out_path)
    return sealed


def _with_seed(sealed: SealedRelease, seed: int | None,
               merged: Sequence[Sequence[str]] = ()) -> SealedRelease:
    """The seed of a research run, and the raw id spellings the ledger charged as one person,
    go to the data holder's report, never into the release."""
    extra: dict[str, Any] = {}
    if seed is not None:
        extra["seed"] = int(seed)
    if merged:
        extra["ledger_merged_ids"] = [list(g) for g in merged]
    return replace(sealed, report={**dict(sealed.report), **extra}) if extra else sealed


def participant_ids(sealed: SealedRelease) -> dict[str, str]:
    """Raw participant id -> the key of ``sealed.guarantee.per_participant`` (its pseudonym;
    the raw id itself when participants are public)."""
    rows = sealed.id_map.filter(pl.col("kind") == "participant")
    return dict(zip(rows["raw"].to_list(), rows["pseudonym"].to_list(), strict=True))


def _protect_series_file(in_path: Path, out_path: Path, mechanism: str, params: Any, *,
                         public: Iterable[str], seed: int | None,
                         id_map_path: str | Path | None,
                         rngs: tuple[np.random.Generator, np.random.Generator],
                         ledger: Ledger | str | Path | None = None,
                         overwrite: bool = False, pseudonym_key: bytes | None = None,
                         report_path: str | Path | None = None) -> SealedRelease:
    from gazeprivacy.mechanisms.series import protect_series

    try:
        table = (pl.read_parquet(in_path) if in_path.suffix in (".parquet", ".pq")
                 else pl.read_csv(in_path))
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InvalidDataError(f"cannot read feature table {str(in_path)!r}: {exc}") from None
    entry = _ledger_reserve(ledger, mechanism, params, {}, table, seed=seed)
    with entry.guard():
        rel = protect_series(table, mechanism, params, rng=rngs[0])
        sealed = _with_seed(seal_series_table(
            rel.output, rel.guarantee.as_seeded_release(seed is not None), public=public,
            pseudonym_key=pseudonym_key), seed, entry.merged)
        entry.check(sealed.guarantee, ids=participant_ids(sealed))
        write_sealed(sealed, out_path, id_map_path=id_map_path, report_path=report_path,
                     input_path=in_path, overwrite=overwrite)
    entry.commit(out_path)
    return sealed


# ---------------------------------------------------------------------- ledger hook
# The privacy-budget ledger (gazeprivacy.accounting.ledger.Spend) around protect_file: reserve
# the spend from the data-free privacy map before any work, check the sealed record spends no more
# (participant by participant) before anything is written, commit after. A run that fails with an
# error (in the work or in the write) released nothing: its reservation is cancelled. A killed or
# interrupted run keeps it (the ledger cannot tell).


def _ledger_reserve(ledger: Ledger | str | Path | None, mechanism: str, params: Any,
                    param_kwargs: Mapping[str, Any], data: Any, *, seed: int | None,
                    pupil: tuple[Any, Any, Iterable[str]] = (None, None, ())) -> Spend:
    """Reserve the release's per-participant spend (:func:`planned_guarantee`: the privacy map on
    the public shape, plus the pupil budget) in ``ledger`` (nothing without a ledger)."""
    from gazeprivacy.accounting.ledger import Spend

    if ledger is None:
        return Spend(None, None)
    from gazeprivacy.mechanisms import MECHANISMS

    shape = MECHANISMS[mechanism].shape_of(data)
    g, participants = planned_guarantee(mechanism, params, param_kwargs, shape, seed=seed,
                                        pupil_epsilon=pupil[0], pupil_range=pupil[1],
                                        public=pupil[2])
    return Spend(ledger, g, participants=participants)
