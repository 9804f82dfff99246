# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The device protocol at the participant level: the curator's public plan (m windows per
participant drawn from public row counts), devices reporting the planned windows only, the
curator's validation against the plan and its population synthesis (``client_file`` /
``curator_files``)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording, read_dataset, write_dataset
from gazeprivacy.deploy.protocol import (
    client_file,
    curator_files,
    decode_client_message,
    encode_client_message,
    read_plan,
    write_plan,
)
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases import (
    Announcement,
    client_message,
)
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_plan import ParticipantPlan

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
PARAMS = DPGazeSynthParams(epsilon=3.0, grid_size=12, unit="participant",
                           windows_per_participant=2, geometry=GEO)
ROWS = {0: (160, 190), 1: (210, 100), 2: (130, 170)}


def _recordings(i: int) -> tuple[Recording, ...]:
    g = np.random.default_rng(i)
    out = []
    for k, n in enumerate(ROWS[i]):
        x = np.clip(8 + np.cumsum(g.normal(0, 0.3, n)), 0, 16)
        y = np.clip(6 + np.cumsum(g.normal(0, 0.3, n)), 0, 12)
        out.append(Recording.from_arrays(recording=f"dev{i}-rec{k}", participant=f"person{i}",
                                         x=x, y=y, sampling_rate_hz=100, geometry=GEO))
    return tuple(out)


@pytest.fixture
def plan(tmp_path):
    a = Announcement.of(PARAMS, sampling_rate_hz=100.0)
    counts = [(f"dev{i}-rec{k}", f"person{i}", n) for i, rows in ROWS.items()
              for k, n in enumerate(rows)]
    p = ParticipantPlan.draw(a, counts, rng=np.random.default_rng(3))
    write_plan(p, tmp_path / "plan.json")
    return p


def _devices(tmp_path, plan):
    out = []
    for i in ROWS:
        f = write_dataset(Dataset(_recordings(i), name=f"dev{i}"), tmp_path / f"dev{i}.parquet")
        out.append(tmp_path / f"dev{i}.reports")
        client_file(f, out[-1], PARAMS, seed=10 + i, plan=tmp_path / "plan.json")
    return out


def test_the_plan_draws_m_windows_per_participant_from_public_counts(plan, tmp_path):
    per: dict[str, int] = {}
    for r, q, _ in plan.recordings:
        per[q] = per.get(q, 0) + len(plan.windows.get(r, ()))
    assert per == {"person0": 2, "person1": 2, "person2": 2}
    assert read_plan(tmp_path / "plan.json") == plan  # public: a JSON file for the devices
    assert json.loads((tmp_path / "plan.json").read_text())["announcement"][
        "windows_per_participant"] == 2


def test_devices_report_planned_windows_only_and_the_curator_releases(plan, tmp_path):
    msgs = _devices(tmp_path, plan)
    for i, m in enumerate(msgs):
        msg = decode_client_message(m.read_bytes(), plan=plan)
        reported = np.flatnonzero(msg.runs_per_window > 0)
        np.testing.assert_array_equal(reported, plan.selection(msg.recordings, msg.n_samples))
        n_valid = msg.window_layout()[1]
        assert reported.size == 2  # sound: W_v - 1 reports per reported window, none elsewhere
        assert msg.oue_n == int((n_valid[reported] - 1).sum()) < int((n_valid - 1).sum())
        assert set(msg.participants) == {f"person{i}"}
    sealed = curator_files(msgs, tmp_path / "out.parquet", seed=4, plan=plan)
    record = sealed.guarantee
    assert record.unit.value == "participant" and record.epsilon == pytest.approx(3.0)
    assert len(record.per_participant) == 3
    assert all(b.epsilon == pytest.approx(3.0) for b in record.per_participant.values())
    assert any("curator's public plan" in n for n in record.notes)
    out = read_dataset(tmp_path / "out.parquet")
    assert sorted(r.n_samples for r in out) == sorted(n for rows in ROWS.values() for n in rows)
    assert all(np.isfinite(r.x).all() for r in out)


def test_a_device_reporting_a_window_not_in_the_plan_is_refused(plan, tmp_path):
    recs = _recordings(0)
    honest = client_message(recs, plan.announcement, rng=np.random.default_rng(0), plan=plan)
    # the device draws its own windows instead of the plan's: another window reports
    sel = plan.selection([r.recording for r in recs], [r.n_samples for r in recs])
    other = [k for k in range(honest.n_windows) if k not in sel][:1] + list(sel[1:])
    rogue_plan = replace(plan, windows={**plan.windows, **_as_windows(recs, other, plan)})
    rogue = client_message(recs, plan.announcement, rng=np.random.default_rng(0),
                           plan=rogue_plan)
    decode_client_message(encode_client_message(honest), plan=plan)
    with pytest.raises(InvalidDataError, match="not in the curator's plan"):
        decode_client_message(encode_client_message(rogue), plan=plan)
    f = tmp_path / "rogue.reports"
    f.write_bytes(encode_client_message(rogue))
    with pytest.raises(InvalidDataError, match="rogue.reports.*not in the curator's plan"):
        curator_files([f], tmp_path / "out.parquet", seed=1, plan=plan)


def _as_windows(recs, indices, plan):
    w = plan.announcement.window_samples
    ends = np.cumsum([-(-r.n_samples // w) for r in recs])
    out: dict[str, list[int]] = {r.recording: [] for r in recs}
    for k in sorted(indices):
        j = int(np.searchsorted(ends, k, side="right"))
        out[recs[j].recording].append(int(k - (ends[j] - -(-recs[j].n_samples // w))))
    return {r: tuple(v) for r, v in out.items()}


def test_the_curator_needs_the_plan_and_devices_need_it_too(plan, tmp_path):
    msgs = _devices(tmp_path, plan)
    with pytest.raises(InvalidParameterError, match="checked against the curator's plan"):
        curator_files(msgs, tmp_path / "out.parquet", seed=1)
    with pytest.raises(InvalidParameterError, match="pass plan="):
        client_message(_recordings(0), plan.announcement, rng=np.random.default_rng(0))
    r0, r1 = _recordings(0)
    short = Recording.from_arrays(recording=r0.recording, participant=r0.participant,
                                  x=r0.x[:150], y=r0.y[:150], sampling_rate_hz=100, geometry=GEO)
    with pytest.raises(InvalidDataError, match="has 150 rows, the plan was drawn from 160"):
        client_message((short, r1), plan.announcement, rng=np.random.default_rng(0), plan=plan)


def test_a_window_level_announcement_keeps_its_keys():
    a = Announcement.of(replace(PARAMS, unit="window", windows_per_participant=None),
                        sampling_rate_hz=100.0)
    assert "unit" not in a.to_dict() and Announcement.from_dict(a.to_dict()) == a
    b = Announcement.of(PARAMS, sampling_rate_hz=100.0)
    assert Announcement.from_dict(b.to_dict()) == b
    assert b.params().epsilon_window == pytest.approx(1.5)  # epsilon / m per reported window
