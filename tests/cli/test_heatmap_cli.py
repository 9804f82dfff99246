# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy heatmap`` and ``gazeprivacy reproduce liu-2019`` (seed 003)."""

from __future__ import annotations

import json

import polars as pl
import pytest
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.guarantees import Guarantee


def _table(tmp_path):
    rows = [{"participant": f"p{i}", "stimulus": "img", "fixation": j,
             "x_px": 10.0 + 3 * i + j, "y_px": 20.0 + j, "duration_ms": 200.0}
            for i in range(6) for j in range(4)]
    p = tmp_path / "fix.csv"
    pl.DataFrame(rows).write_csv(p)
    return p


def _base(tmp_path, *extra):
    return ["heatmap", str(_table(tmp_path)), "--stimulus", "img", "--width-px", "64",
            "--height-px", "48", "--out", str(tmp_path / "h.png"), "--seed", "3", *extra]


def test_heatmap_writes_png_and_record(tmp_path):
    res = CliRunner().invoke(app, _base(tmp_path, "--epsilon", "1", "--delta", "0.01",
                                        "--cap", "1", "--mechanism", "analytic-gaussian"))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "h.png").stat().st_size > 0
    g = Guarantee.from_json((tmp_path / "h.guarantee.json").read_text())
    assert g.mechanism == "heatmap-analytic-gaussian" and g.epsilon == 1.0
    # a written release from a fixed seed: not formally private, the seed's value not kept
    assert g.seed is None and not g.formally_private
    assert [f.code.value for f in g.flags if f.breaks_guarantee] == ["seeded-release"]
    assert '"seed": null' in (tmp_path / "h.guarantee.json").read_text()


def test_heatmap_auto_cap_is_flagged(tmp_path):
    with pytest.warns(Warning):
        res = CliRunner().invoke(app, _base(tmp_path, "--epsilon", "1", "--cap", "auto",
                                            "--mechanism", "laplace"))
    assert res.exit_code == 0, res.output
    rec = json.loads((tmp_path / "h.guarantee.json").read_text())
    assert any(f["code"] == "tuned-on-private-data" for f in rec["flags"])


def test_heatmap_theorem_3_4_out_of_range_names_the_way_out(tmp_path):
    # 64 x 48 px at cell 64 px: r = 1 cell; Theorem 3.4 does not hold (n = 6, delta = 1e-6)
    res = CliRunner().invoke(app, _base(tmp_path, "--epsilon", "1", "--delta", "1e-6",
                                        "--cap", "1", "--cell-px", "64"))
    assert res.exit_code != 0
    assert "analytic-gaussian" in str(res.exception)


@pytest.mark.realdata
def test_reproduce_seed003_cli(tmp_path, data_dir):
    res = CliRunner().invoke(app, ["reproduce", "liu-2019", "--out", str(tmp_path),
                                   "--data-dir", str(data_dir), "--n-draws", "2",
                                   "--n-stimuli", "1", "--dataset", "osie", "--epsilon", "1",
                                   "--cell-px", "20", "--sigma-px", "40"])
    assert res.exit_code == 0, res.output
    assert "analytic-gaussian" in res.output
    # the output format of every reproduction: results.parquet + report.html, no CSV results
    assert (tmp_path / "results.parquet").is_file() and (tmp_path / "report.html").is_file()
    assert not list(tmp_path.glob("*.csv"))


def test_heatmap_over_stimulus_image(tmp_path):
    import matplotlib.image as mpimg
    import numpy as np

    img = tmp_path / "stim.png"
    mpimg.imsave(img, np.random.default_rng(0).random((48, 64, 3)))
    res = CliRunner().invoke(app, _base(tmp_path, "--epsilon", "2", "--cap", "1",
                                        "--mechanism", "laplace", "--cell-px", "4",
                                        "--stimulus-image", str(img)))
    assert res.exit_code == 0, res.output
    out = mpimg.imread(tmp_path / "h.png")
    assert out.shape[0] >= 48 and out.shape[1] >= 64
