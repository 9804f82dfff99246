# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""What the structure of a gaze-free release gives the mechanism-aware forest.

Usage: ``GAZEPRIVACY_DATA=/work/shared/data python scripts/structure_leak.py doves mpiidpeye vr``

For each data set (DOVES as in ``configs/honest-doves.toml``, MPIIDPEye, the VR set), the
screen-centre baseline (no gaze), the centre with the input's missing-sample mask, and
participant-level DPGazeSynth (m = 2, budget 3 per participant) with ``missing="keep"`` (mask
released) and ``missing="fill"`` (every row synthesised) are attacked by
:func:`~gazeprivacy.attacks.aware.aware_reidentification` (5 splits, the runner's I-VT event
features) four ways: the in-memory release as the runner used to attack it; the
same on the histogram features alone (no event aggregates); with the sealed clock
(``t = i / rate``) but the input's recording lengths; and sealed at one public length per
recording (:mod:`gazeprivacy.experiments.release_view`). Prints identification rate, its
multiple of chance and the unit accuracy with its standard error over the splits.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np

DOVES_OBSERVERS = ["ABT2", "ACB2", "AV2", "BSQ2", "BW2", "CE2", "CLM2", "CMG2", "CNG2", "CS2",
                   "FMT2", "GK2", "HRS2", "IVDL2", "JLS2", "JM2"]
#: name -> (loader, options, group label, attack segment length s, public length s)
SETS = {
    "doves": ("doves", {"observers": DOVES_OBSERVERS, "images": list(range(1, 94, 4))},
              "stimulus", None, 5.0),
    "mpiidpeye": ("mpiidpeye", {}, "document", None, 350.0),
    "vr": ("vr_selfcalib_office_supermarket", {}, None, 50.0, 100.0),
}
N_SPLITS = 5


def _releases(ds):
    """(name, in-memory release) of the gaze-free baselines and participant-level DPGazeSynth."""
    from gazeprivacy.experiments.baselines import BASELINES
    from gazeprivacy.mechanisms import MECHANISMS

    for name in ("baseline-centre", "baseline-centre-mask"):
        yield name, BASELINES[name].release(ds, rng=np.random.default_rng(1))
    spec = MECHANISMS["dpgazesynth"]
    for missing in ("keep", "fill"):
        params = spec.params_type(epsilon=3.0, grid_size=60, unit="participant",
                                  windows_per_participant=2, missing=missing)
        rel = spec.protect(ds, params, rng=np.random.default_rng(2), progress=False)
        yield f"dpgazesynth-participant eps 3, missing={missing}", rel.output


def main(keys: list[str]) -> None:
    from gazeprivacy.attacks.aware import aware_reidentification
    from gazeprivacy.attacks.splits import recording_index
    from gazeprivacy.data.loaders import load
    from gazeprivacy.experiments.featurize import event_features_of
    from gazeprivacy.experiments.release_view import ReleaseView, view_release

    data_dir = os.environ.get("GAZEPRIVACY_DATA", "/work/shared/data")
    for key in keys:
        loader, opts, group, seg, length = SETS[key]
        ds = load(loader, data_dir, **opts)
        index = recording_index(ds, group_label=group)
        for name, rel in _releases(ds):
            views = (("in memory (histograms + events)", rel, True),
                     ("in memory, histograms only", rel, False),
                     ("sealed clock, input lengths", view_release(rel, ReleaseView()), True),
                     (f"sealed, public length {length:g} s",
                      view_release(rel, ReleaseView(length_s=length)), True))
            for label, seen, events in views:
                ev = event_features_of(seen) if events else None
                r = aware_reidentification(seen, seen, index, rng=np.random.default_rng(7),
                                           n_splits=N_SPLITS, segment_s=seg,
                                           train_events=ev, test_events=ev)
                se = r.unit_accuracy_std / np.sqrt(N_SPLITS)
                print(f"| {key} | {name} | {label} | {r.identification_rate:.3f} "
                      f"({r.identification_rate / r.chance:.1f}x) | {r.unit_accuracy:.3f} "
                      f"+- {se:.3f} |", flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    main(sys.argv[1:] or list(SETS))
