# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""participant-synth's centre share: bounded contribution, the public share rule, the split's
resolution, the renderer's use, and that an unspent share changes nothing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gazeprivacy.accounting.zcdp import epsilon_to_rho
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms.base import example_dataset
from gazeprivacy.mechanisms.contract import sample_shape
from gazeprivacy.mechanisms.samples import _participant_synth_centre as cen
from gazeprivacy.mechanisms.samples import _participant_synth_labels as lab
from gazeprivacy.mechanisms.samples._participant_synth_model import (
    gaussian_cells,
    normalise_parts,
    participant_parts,
    spatial_priors,
)
from gazeprivacy.mechanisms.samples.participant_synth import (
    ParticipantSynthParams,
    ParticipantSynthSplit,
    guarantee,
    participant_synth,
    public_setup,
)

__all__: list[str] = []


@pytest.mark.parametrize(("epsilon", "first"), [(1.0, 51), (3.0, 19), (10.0, 7)])
def test_the_share_rule_spends_from_the_stated_participant_count(epsilon: float, first: int
                                                                ) -> None:
    rho = epsilon_to_rho(epsilon, 1e-6)
    assert cen.centre_share(first, rho) == cen.SHARE
    assert cen.centre_share(first - 1, rho) == 0.0


def test_the_resolved_split_scales_the_others_and_sums_to_at_most_one() -> None:
    rho = epsilon_to_rho(10.0, 1e-6)
    res = lab.resolve_split(cen.resolve_centre(ParticipantSynthSplit(), 14, rho), 14, rho, 3)
    base = ParticipantSynthSplit().shares()
    assert res.centre_share == pytest.approx(cen.SHARE * (1 - lab.SHARE))  # then the contrast
    assert res.label_contrast == pytest.approx(lab.SHARE)
    assert res.spread_x == pytest.approx(base["spread_x"] * (1 - cen.SHARE) * (1 - lab.SHARE))
    assert math.fsum(res.shares().values()) <= 1.0 + 1e-12
    assert cen.resolve_centre(res, 14, rho) is res  # a number is kept as it is
    small = cen.resolve_centre(ParticipantSynthSplit(), 4, rho)
    assert small.centre_share == 0.0 and small.shares() == base | {"centre_share": 0.0}
    with pytest.raises(InvalidParameterError, match="centre_share"):
        ParticipantSynthSplit(centre_share=1.5)


def test_a_participant_contributes_one_two_bin_histogram_of_l1_norm_one() -> None:
    ds = example_dataset(2, 1.0)
    p = ParticipantSynthParams(epsilon_per_participant=10.0, delta=1e-6, output_length_s=1.0,
                               public_labels=("task",))
    bins = public_setup(p, sample_shape(ds)).bins(p)
    g = ds.recordings[0].geometry
    cx, cy = (g.x_min_deg + g.x_max_deg) / 2, (g.y_min_deg + g.y_max_deg) / 2
    mine = [r for r in ds if r.participant == ds.participants[0]]
    stared = [Recording(recording=r.recording, participant=r.participant, t=r.t,
                        x=np.full(r.n_samples, cx), y=np.full(r.n_samples, cy),
                        sampling_rate_hz=r.sampling_rate_hz, labels=r.labels, geometry=g)
              for r in mine]
    import polars as pl

    no_events = pl.DataFrame(schema={"recording": pl.String, "name": pl.String,
                                     "onset": pl.Int64, "offset": pl.Int64,
                                     "duration_s": pl.Float64, "centroid_x": pl.Float64,
                                     "centroid_y": pl.Float64, "start_x": pl.Float64,
                                     "start_y": pl.Float64, "end_x": pl.Float64,
                                     "end_y": pl.Float64})
    keys = [(r.labels["task"],) for r in stared]
    stats = normalise_parts(participant_parts(stared, no_events, keys, bins))
    total = sum(v[cen.CENTRE] for v in stats.values())
    assert total.tolist() == [1.0, 0.0]  # all on the disc: weight 1 in its first bin
    assert all(np.all(v[cen.CENTRE] >= 0) for v in stats.values())


def test_the_rendered_density_takes_the_released_disc_mass() -> None:
    d = gaussian_cells((cen.FINE, cen.FINE)).reshape(cen.FINE, cen.FINE)
    mask = cen.disc_mask()
    v0 = float(d[mask].sum())
    out = cen.with_centre(d, 0.2)
    assert out.sum() == pytest.approx(1.0) and float(out[mask].sum()) == pytest.approx(0.2)
    # the prior of the estimate is the same Gaussian's disc mass on the sampling grid
    p = ParticipantSynthParams(epsilon_per_participant=3.0, delta=1e-6, output_length_s=1.0)
    bins = public_setup(p, sample_shape(example_dataset(2, 1.0))).bins(p)
    assert spatial_priors(bins)[cen.CENTRE][0] == pytest.approx(v0)


def test_a_central_peak_the_density_already_has_is_not_counted_twice() -> None:
    d = gaussian_cells((cen.FINE, cen.FINE)).reshape(cen.FINE, cen.FINE)
    mask = cen.disc_mask()
    peaked = np.where(mask, d * 3.0, d)
    peaked /= peaked.sum()  # the density's own disc mass about 0.12, the Gaussian's 0.05
    assert float(peaked[mask].sum()) > 0.1
    out = cen.with_centre(peaked, 0.19)
    assert float(out[mask].sum()) == pytest.approx(0.19)  # set to v, not multiplied to 0.38
    # the shape inside and outside the disc is kept (one factor each)
    ratio = out / peaked
    assert np.ptp(ratio[mask]) < 1e-12 and np.ptp(ratio[~mask]) < 1e-12


def test_a_key_moved_by_its_contrast_keeps_the_population_s_central_excess() -> None:
    # nothing measured: exactly the key's own Gaussian disc mass (the renderer then skips)
    assert cen.key_share(0.05, 0.05, 0.031) == 0.031
    # measured: the population's odds ratio on the key's Gaussian
    v = cen.key_share(0.19, 0.05, 0.03)
    odds = lambda p: p / (1.0 - p)  # noqa: E731
    assert odds(v) / odds(0.03) == pytest.approx(odds(0.19) / odds(0.05))
    assert cen.key_share(0.19, 0.05, 0.05) == pytest.approx(0.19)


def test_an_unspent_share_leaves_labelled_releases_with_spent_contrasts_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from gazeprivacy.data.simulate import simulate_dataset
    from gazeprivacy.mechanisms.samples import _participant_synth_render as rend

    ds = simulate_dataset(n_participants=14, tasks=("reading", "free-viewing"), duration_s=3.0,
                          sampling_rate_hz=60, rng=np.random.default_rng(1))
    p = ParticipantSynthParams(epsilon_per_participant=1e4, delta=1e-6, output_length_s=2.0,
                               public_labels=("task",),
                               split=ParticipantSynthSplit(centre_share=0.0, label_contrast=0.3,
                                                           spread_x=0.02, spread_y=0.02))
    a = participant_synth(ds, p, rng=np.random.default_rng(5))
    assert a.guarantee.parameters["noise_sd"]["label_contrast"] is not None  # contrast spent
    monkeypatch.setattr(rend, "with_centre", lambda d, v: d)
    b = participant_synth(ds, p, rng=np.random.default_rng(5))
    assert all(np.array_equal(r.x, s.x, equal_nan=True) for r, s in
               zip(a.output, b.output, strict=True))


def test_an_unspent_share_leaves_the_release_as_a_zero_share_does() -> None:
    ds = example_dataset(3, 1.0)
    kw = {"epsilon_per_participant": 3.0, "delta": 1e-6, "output_length_s": 1.0,
          "public_labels": ("task",)}
    a = participant_synth(ds, ParticipantSynthParams(**kw), rng=np.random.default_rng(5))
    b = participant_synth(ds, ParticipantSynthParams(
        **kw, split=ParticipantSynthSplit(centre_share=0.0)), rng=np.random.default_rng(5))
    assert all(np.array_equal(r.x, s.x, equal_nan=True) for r, s in
               zip(a.output, b.output, strict=True))
    assert a.guarantee.parameters["noise_sd"]["centre_share"] is None


def test_a_spent_share_is_in_the_record_with_its_noise() -> None:
    ds = Dataset(tuple(example_dataset(3, 1.0)), name="x")
    p = ParticipantSynthParams(epsilon_per_participant=10.0, delta=1e-6, output_length_s=1.0,
                               split=ParticipantSynthSplit(centre_share=0.1, spread_x=0.13,
                                                           spread_y=0.13))
    rec = guarantee(p, sample_shape(ds))
    assert rec.parameters["split"]["centre_share"] == 0.1
    sigma = rec.parameters["noise_sd"]["centre_share"]
    assert sigma == pytest.approx(1.0 / math.sqrt(p.rho * 0.1))
