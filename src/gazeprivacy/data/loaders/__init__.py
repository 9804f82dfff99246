# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Loaders for the real datasets, one module per dataset, and the :data:`LOADERS` registry.

Every loader reads from a *data directory* that contains the dataset folders (``doves/``,
``mpiidpeye/``, ...): the ``data_dir=`` argument or, when omitted, ``$GAZEPRIVACY_DATA``
(:func:`resolve_data_dir`). A missing folder raises
:class:`~gazeprivacy.exceptions.InvalidDataError` naming the expected path. Each module's
docstring documents units, labels and the policies (NaN, timestamps, dropped rows) it applies;
counts of affected rows go to the returned object's ``info``.

=================================  =========  ==========================================
name                               kind       loader
=================================  =========  ==========================================
doves                              samples    :func:`load_doves`
doves_fixations                    fixations  :func:`load_doves_fixations`
mpiidpeye                          samples    :func:`load_mpiidpeye`
vr_selfcalib_office_supermarket    samples    :func:`load_vr_selfcalib`
gazegraph_desktop_activity         samples    :func:`load_gazegraph`
osie_fixations                     fixations  :func:`load_osie_fixations`
figrim_fixations                   fixations  :func:`load_figrim_fixations`
sbsat_features                     features   :func:`load_sbsat_features`
gazebasevr_vergence_features       features   :func:`load_gazebasevr_vergence`
=================================  =========  ==========================================

>>> sorted(LOADERS)[:3]
['doves', 'doves_fixations', 'figrim_fixations']
>>> LOADERS["doves"].kind, LOADERS["doves"].redistributable
('samples', True)
"""

import os
from typing import Any

from gazeprivacy._registry import Registry
from gazeprivacy.data.loaders._paths import ENV_VAR, resolve_data_dir
from gazeprivacy.data.loaders._spec import DatasetDescription, LoaderSpec
from gazeprivacy.data.loaders.doves import (
    describe_doves,
    describe_doves_fixations,
    load_doves,
    load_doves_fixations,
)
from gazeprivacy.data.loaders.figrim import describe_figrim_fixations, load_figrim_fixations
from gazeprivacy.data.loaders.gazebasevr import (
    describe_gazebasevr_vergence,
    load_gazebasevr_vergence,
)
from gazeprivacy.data.loaders.gazegraph import describe_gazegraph, load_gazegraph
from gazeprivacy.data.loaders.mpiidpeye import describe_mpiidpeye, load_mpiidpeye
from gazeprivacy.data.loaders.osie import describe_osie_fixations, load_osie_fixations
from gazeprivacy.data.loaders.sbsat import describe_sbsat_features, load_sbsat_features
from gazeprivacy.data.loaders.vr_selfcalib import describe_vr_selfcalib, load_vr_selfcalib
from gazeprivacy.exceptions import InvalidParameterError

__all__ = [
    "ENV_VAR",
    "LOADERS",
    "DatasetDescription",
    "LoaderSpec",
    "load",
    "load_doves",
    "load_doves_fixations",
    "load_figrim_fixations",
    "load_gazebasevr_vergence",
    "load_gazegraph",
    "load_mpiidpeye",
    "load_osie_fixations",
    "load_sbsat_features",
    "load_vr_selfcalib",
    "resolve_data_dir",
]

_RESEARCH_ONLY = "no licence stated; research use only, cite the paper"

LOADERS: Registry[LoaderSpec] = Registry("dataset", {
    "doves": LoaderSpec(
        name="doves", folder="doves", load=load_doves, kind="samples",
        licence="DOVES terms: free use and redistribution of the eye data with the notice",
        redistributable=True, describe=describe_doves,
        what="raw 200 Hz gaze, free viewing of 101 natural images"),
    "doves_fixations": LoaderSpec(
        name="doves_fixations", folder="doves", load=load_doves_fixations, kind="fixations",
        licence="DOVES terms: free use and redistribution of the eye data with the notice",
        redistributable=True, describe=describe_doves_fixations,
        what="DOVES fixation lists on 1024 x 768 images"),
    "mpiidpeye": LoaderSpec(
        name="mpiidpeye", folder="mpiidpeye", load=load_mpiidpeye, kind="samples",
        licence="non-commercial scientific use only, cite Steil et al. 2019",
        redistributable=False, describe=describe_mpiidpeye,
        what="uncalibrated ~30 Hz pupil positions, reading 3 document types (VR headset)"),
    "vr_selfcalib_office_supermarket": LoaderSpec(
        name="vr_selfcalib_office_supermarket", folder="vr_selfcalib_office_supermarket",
        load=load_vr_selfcalib, kind="samples", licence=_RESEARCH_ONLY,
        redistributable=False, describe=describe_vr_selfcalib,
        what="50 Hz VR gaze direction and head pose, walking in an office / supermarket"),
    "gazegraph_desktop_activity": LoaderSpec(
        name="gazegraph_desktop_activity", folder="gazegraph_desktop_activity",
        load=load_gazegraph, kind="samples", licence=_RESEARCH_ONLY, redistributable=False,
        describe=describe_gazegraph,
        what="30 Hz head-mounted scene-camera gaze, 6 desktop activities"),
    "osie_fixations": LoaderSpec(
        name="osie_fixations", folder="osie_fixations", load=load_osie_fixations,
        kind="fixations", licence="MIT (c) 2014 NUS VIP, cite Xu et al. 2014",
        redistributable=False, describe=describe_osie_fixations,
        what="fixations of 15 subjects on 700 images (800 x 600 px)"),
    "figrim_fixations": LoaderSpec(
        name="figrim_fixations", folder="figrim_fixations", load=load_figrim_fixations,
        kind="fixations", licence=_RESEARCH_ONLY + " (Bylinskii et al. 2015)",
        redistributable=False, describe=describe_figrim_fixations,
        what="fixations of 67 participant slots on 2787 scene images (1000 x 1000 px)"),
    "sbsat_features": LoaderSpec(
        name="sbsat_features", folder="sbsat_features", load=load_sbsat_features,
        kind="features", licence=_RESEARCH_ONLY + " (Ahn et al. 2020)",
        redistributable=False, describe=describe_sbsat_features,
        what="trial-level reading features with comprehension / sex / native labels"),
    "gazebasevr_vergence_features": LoaderSpec(
        name="gazebasevr_vergence_features", folder="gazebasevr_vergence_features",
        load=load_gazebasevr_vergence, kind="features",
        licence="derived from GazeBaseVR (CC BY 4.0); repository code MIT; cite both",
        redistributable=False, describe=describe_gazebasevr_vergence,
        what="per-recording vergence biomarkers, longitudinal rounds and sessions"),
})


def load(name: str, data_dir: str | os.PathLike[str] | None = None, **options: Any) -> Any:
    """Load a registered dataset by name: ``LOADERS[name].load(data_dir, **options)``.

    The return type follows the entry's ``kind``: a :class:`~gazeprivacy.data.Dataset`
    (samples), :class:`~gazeprivacy.data.fixations.Fixations` or a polars DataFrame (features).
    Unknown names raise :class:`~gazeprivacy.exceptions.InvalidParameterError` listing the
    valid ones.

    >>> load("gazebase")
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: unknown dataset 'gazebase'; choose one of: \
doves, doves_fixations, figrim_fixations, gazebasevr_vergence_features, \
gazegraph_desktop_activity, mpiidpeye, osie_fixations, sbsat_features, \
vr_selfcalib_office_supermarket
    >>> load("study.csv")
    Traceback (most recent call last):
    ...
    gazeprivacy.exceptions.InvalidParameterError: load() loads a registered dataset by name; \
read your own file 'study.csv' with read_input(path, columns=..., geometry=...)
    """
    if name not in LOADERS and (os.sep in str(name) or "." in str(name)):
        raise InvalidParameterError(
            f"load() loads a registered dataset by name; read your own file {str(name)!r} with "
            "read_input(path, columns=..., geometry=...)")
    return LOADERS[name].load(data_dir, **options)
