# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Trust in a written release: a seed never weakens it (the pseudonym key from OS entropy, the
record flagged and without the seed's value), pupil blocks follow each recording's own unit
length, and the record's sampling rate is never the first input recording's."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording, write_dataset
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.mechanisms import protect
from gazeprivacy.mechanisms.contract import sample_shape
from gazeprivacy.mechanisms.release import (
    TEST_ONLY_KEY_ENV,
    Pseudonymiser,
    SealPolicy,
    guarantee_path,
    planned_guarantee,
    protect_file,
    seal,
)

GEO = Geometry(x_min_deg=-10, x_max_deg=10, y_min_deg=-10, y_max_deg=10)
KEY = bytes(range(32))


def rec(rid: str, pid: str, n: int, rate: float, seed: int = 0) -> Recording:
    g = np.random.default_rng(seed)
    return Recording.from_arrays(
        recording=rid, participant=pid, x=np.clip(np.cumsum(g.normal(0, 0.3, n)), -9, 9),
        y=np.clip(np.cumsum(g.normal(0, 0.3, n)), -9, 9), sampling_rate_hz=rate,
        geometry=GEO, pupil=3 + g.normal(0, 0.2, n))


def mixed() -> Dataset:
    """A 60 Hz recording first, then a 240 Hz one (8 s each)."""
    return Dataset((rec("slow", "p1", 480, 60.0, 1), rec("fast", "p2", 1920, 240.0, 2)))


KALEIDO = {"mechanism": "kaleido", "epsilon": 1.0, "radius_deg": 1.0, "window_s": 0.5}


# ------------------------------------------------------------------------------- seeds


def test_the_pseudonym_key_never_comes_from_the_seed(tmp_path):
    src = write_dataset(mixed(), tmp_path / "in.parquet")
    a, b = (protect_file(src, tmp_path / f"{k}.parquet", seed=7, **KALEIDO) for k in "ab")
    # same seed, same noise, different pseudonyms: the seed cannot map them back to raw ids
    assert sorted(a.table["x"].to_list()) == sorted(b.table["x"].to_list())
    assert set(a.table["participant"]) != set(b.table["participant"])
    # the test-only key gives equal pseudonyms, and the record says it is not private
    c, d = (protect_file(src, tmp_path / f"{k}.parquet", seed=7, pseudonym_key=KEY, **KALEIDO)
            for k in "cd")
    assert c.table.equals(d.table)
    assert any("pseudonym key was fixed" in f.message for f in c.guarantee.flags)


def test_a_seeded_written_release_is_not_formally_private_and_keeps_no_seed(tmp_path):
    src = write_dataset(mixed(), tmp_path / "in.parquet")
    out, report = tmp_path / "o.parquet", tmp_path / "report.json"
    sealed = protect_file(src, out, seed=424242, report_path=report, **KALEIDO)
    g = sealed.guarantee
    assert not g.formally_private and g.seed is None
    assert [f.code.value for f in g.flags if f.breaks_guarantee] == ["seeded-release"]
    text = guarantee_path(out).read_text()
    assert "424242" not in text and json.loads(text)["formally_private"] is False
    assert "424242" not in out.read_bytes().decode("latin-1")
    assert json.loads(report.read_text())["seed"] == 424242  # the data holder's report
    # without a seed: formally private, nothing about a seed
    plain = protect_file(src, tmp_path / "p.parquet", **KALEIDO)
    assert plain.guarantee.formally_private
    # the in-memory release (evaluations, reproduce) still notes its seed as before
    assert protect(mixed(), seed=3, **KALEIDO).guarantee.seed == 3


def test_the_test_only_environment_key_is_flagged(monkeypatch):
    monkeypatch.setenv(TEST_ONLY_KEY_ENV, KEY.hex())
    a, b = Pseudonymiser(), Pseudonymiser()
    assert a.fixed and a("participant", "x") == b("participant", "x")
    rel = protect(mixed(), seed=1, **KALEIDO)
    g = seal(rel, rng=np.random.default_rng(0)).guarantee
    assert not g.formally_private
    policy = SealPolicy.create(seed=1)
    assert policy.key_fixed and policy.key == KEY
    monkeypatch.setenv(TEST_ONLY_KEY_ENV, "abc")
    with pytest.raises(InvalidParameterError, match="64 hex digits"):
        Pseudonymiser()
    monkeypatch.delenv(TEST_ONLY_KEY_ENV)
    assert not Pseudonymiser().fixed and not SealPolicy.create(seed=1).key_fixed
    assert SealPolicy.create(seed=1).key != SealPolicy.create(seed=1).key


# ------------------------------------------------------------------------- pupil, rates


def test_pupil_blocks_follow_each_recording_s_own_window_at_mixed_rates():
    ds = mixed()
    rel = protect(ds, seed=0, **KALEIDO)
    sealed = seal(rel, source=ds, pupil_epsilon=100.0, pupil_range=(2.0, 4.0),
                  rng=np.random.default_rng(0), pseudonym_key=KEY)
    by_rate = {r.sampling_rate_hz: r for r in sealed.dataset}
    for rate, w in ((60.0, 30), (240.0, 120)):
        pupil = by_rate[rate].pupil
        blocks = pupil.reshape(-1, w)
        # one value per w-window block (of this recording's own w), a new one per block
        assert (blocks == blocks[:, :1]).all()
        assert len(np.unique(blocks[:, 0])) == blocks.shape[0]
    # the record: 16 blocks each (8 s / 0.5 s), at pupil_epsilon / 2 per block
    per = sealed.guarantee.per_participant
    assert sorted(b.epsilon for b in per.values()) == [16 * 1.0 + 16 * 50.0] * 2
    plan, _ = planned_guarantee("kaleido", None, {k: v for k, v in KALEIDO.items()
                                                  if k != "mechanism"}, sample_shape(ds),
                                seed=None, pupil_epsilon=1.0, pupil_range=(2.0, 4.0))
    assert sorted(b.epsilon for b in plan.per_participant.values()) == [24.0, 24.0]


def test_the_record_names_no_single_rate_for_mixed_rates():
    ds = mixed()
    rel = protect(ds, seed=0, **KALEIDO)
    p = rel.guarantee.parameters
    assert "sampling_rate_hz" not in p and "window_samples" not in p
    assert p["window_samples_by_rate"] == {"60": 30, "240": 120} and p["window_s"] == 0.5
    sealed = seal(rel, source=ds, rng=np.random.default_rng(0))
    assert "sampling_rate_hz" not in sealed.guarantee.parameters
    assert sorted(r.sampling_rate_hz for r in sealed.dataset) == [60.0, 240.0]
    # one rate: the record's rate is every recording's (not "the first one's")
    one = Dataset((rec("a", "p1", 200, 100.0), rec("b", "p2", 300, 100.0)))
    g = seal(protect(one, seed=0, **KALEIDO), rng=np.random.default_rng(0)).guarantee
    assert g.parameters["sampling_rate_hz"] == 100.0 and g.parameters["window_samples"] == 50
    # DPGazeSynth's record (first recording's rate before) names none either
    syn = protect(mixed(), mechanism="dpgazesynth", epsilon=2.0, grid_size=10, seed=0)
    assert "sampling_rate_hz" not in syn.guarantee.parameters
    assert "window_samples" not in syn.guarantee.parameters  # W = window_s x rate: a rate
    assert syn.guarantee.parameters["window_samples_by_rate"] == {"60": 30, "240": 120}


def test_release_hashes_sets_the_test_only_key():
    """scripts/release_hashes.py compares seeded runs: it must fix the pseudonym key through
    the test-only variable (a seed no longer does)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "scripts" / "release_hashes.py").read_text()
    assert f'KEY_ENV = "{TEST_ONLY_KEY_ENV}"' in text and "env=env" in text
