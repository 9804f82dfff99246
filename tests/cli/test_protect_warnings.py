# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy protect`` says when a release is useless or its bound vacuous (one
``warning:`` line each on stderr), and ``--dry-run`` says so before anything is written."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.data import Dataset, Geometry, Recording, write_dataset

GEO = Geometry(x_min_deg=0.0, x_max_deg=16.0, y_min_deg=0.0, y_max_deg=12.0)
runner = CliRunner()
USELESS = ["--mechanism", "kaleido", "--epsilon", "1", "--radius-deg", "2", "--window-s", "0.5"]
# a small radius and few tests per window (t_skip 50): little noise, 3 windows per participant
USEFUL = ["--mechanism", "kaleido", "--epsilon", "2", "--radius-deg", "0.05", "--window-s", "2",
          "--param", "t_skip_samples=50"]


@pytest.fixture
def src(tmp_path):
    g = np.random.default_rng(0)
    recs = []
    for i in range(4):
        n = 150 + 20 * i
        x = np.clip(8 + np.cumsum(g.normal(0, 0.1, n)), 0, 16)
        y = np.clip(6 + np.cumsum(g.normal(0, 0.1, n)), 0, 12)
        recs.append(Recording.from_arrays(recording=f"rec{i}", participant=f"p{i % 2}", x=x,
                                          y=y, sampling_rate_hz=100, geometry=GEO))
    return write_dataset(Dataset(tuple(recs), name="small"), tmp_path / "in.csv")


def warnings_of(res) -> list[str]:
    assert res.exit_code == 0, res.output + repr(res.exception)
    return [ln for ln in res.stderr.splitlines() if ln.startswith("warning:")]


def test_a_release_that_loses_to_data_free_points_is_warned_about_twice(src, tmp_path):
    out = tmp_path / "out.parquet"
    lines = warnings_of(runner.invoke(app, ["protect", str(src), str(out), *USELESS,
                                            "--seed", "1"]))
    assert out.is_file()
    assert any("less useful than data-free points" in ln and "baseline-centre-gaussian" in ln
               for ln in lines), lines
    border = [ln for ln in lines if "lie on the screen border" in ln]
    assert len(border) == 1 and int(border[0].split()[1]) >= 50, border
    assert len(lines) == 2, lines  # 7 windows per participant at epsilon 1: not vacuous


def test_a_useful_bounded_release_gets_no_warning(src, tmp_path):
    res = runner.invoke(app, ["protect", str(src), str(tmp_path / "o.csv"), *USEFUL,
                              "--seed", "1"])
    assert warnings_of(res) == []


def test_a_vacuous_bound_is_a_warning_line_not_only_a_summary_remark(src, tmp_path):
    res = runner.invoke(app, ["protect", str(src), str(tmp_path / "o.csv"), *USEFUL[:2],
                              "--epsilon", "1000", *USEFUL[4:], "--seed", "1"])
    lines = warnings_of(res)
    assert lines == ["warning: the bound per participant is vacuous (epsilon up to 3000 over a "
                     "participant's w-windows; above 10 it promises nothing about a participant "
                     "as a whole): only the per-unit guarantee holds"]


def test_dry_run_prints_the_guarantee_and_forecasts_and_writes_nothing(src, tmp_path):
    out, ledger = tmp_path / "out.parquet", tmp_path / "budget.sqlite"
    res = runner.invoke(app, ["protect", str(src), str(out), *USELESS, "--dry-run",
                              "--ledger", str(ledger)])
    lines = warnings_of(res)
    assert "dry run: no release made, nothing written" in res.stdout
    assert "kaleido [sound]: (epsilon,w,r)-DP per w-window; epsilon=1" in res.stdout
    assert any("less useful than data-free points" in ln for ln in lines), lines
    assert not any("screen border" in ln and "%" in ln.split()[1] for ln in lines)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "in.csv.meta.json"]


def test_dry_run_of_a_useful_setting_forecasts_nothing(src, tmp_path):
    res = runner.invoke(app, ["protect", str(src), str(tmp_path / "o.csv"), *USEFUL,
                              "--dry-run"])
    assert warnings_of(res) == []
    assert "per participant epsilon <= 6, delta = 0\n" in res.stdout
