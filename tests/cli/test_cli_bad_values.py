# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Bad values on the command line: a negative seed, a file name that is not UTF-8, an audit
that would run for days, and hints that name the CLI's options, never Python (each was an
"internal error", a run until killed, or a Python name before)."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

from gazeprivacy.cli.app import run


def _run(capsys, *args: str) -> tuple[int, str]:
    code = run(list(args))
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("warning")]
    assert "Traceback" not in err and "internal error" not in err, err
    assert len(lines) == 1, err
    return code, lines[0]


def _gaze(tmp_path, gaps: bool = False):
    """Two participants x one 2 s recording at 100 Hz (a gap of 5 samples when asked)."""
    rng = np.random.default_rng(0)
    rows = []
    for p in ("p1", "p2"):
        x, y = rng.normal(0.0, 1.0, (2, 200))
        if gaps:
            x[50:55] = y[50:55] = np.nan
        rows.append(pl.DataFrame({"participant": p, "recording": f"{p}-r", "t": np.arange(200)
                                  / 100.0, "x": x, "y": y}))
    f = tmp_path / "in.csv"
    pl.concat(rows).write_csv(f)
    return f


KALEIDO = ("--mechanism", "kaleido", "--epsilon", "1", "--radius-deg", "1", "--window-s", "0.5",
           "--geometry", "-20,20,-15,15")


def test_a_negative_seed_is_one_line_naming_seed(tmp_path, capsys):
    code, line = _run(capsys, "protect", str(_gaze(tmp_path)), str(tmp_path / "o.parquet"),
                      *KALEIDO, "--seed", "-1")
    assert code == 2 and "--seed" in line and not (tmp_path / "o.parquet").exists()


def test_a_negative_seed_from_the_library_names_seed():
    from gazeprivacy.cli._common import cli_message
    from gazeprivacy.exceptions import InvalidParameterError
    from gazeprivacy.rng import make_rng

    with pytest.raises(InvalidParameterError, match="seed must be an integer >= 0") as e:
        make_rng(-1)
    assert cli_message(str(e.value)).startswith("--seed must be")
    with pytest.raises(InvalidParameterError):
        make_rng(True)


def test_an_output_name_that_is_not_utf8_is_one_line(tmp_path, capsys):
    out = str(tmp_path / "o\udcff.parquet")  # the bytes b"o\xff.parquet", as Python keeps them
    code, line = _run(capsys, "protect", str(_gaze(tmp_path)), out, *KALEIDO)
    assert code == 1 and "is not valid UTF-8" in line and "o\\xff.parquet" in line


def test_audit_trials_have_an_upper_bound(capsys):
    from gazeprivacy.audit.adapters import ADAPTERS

    top = ADAPTERS["laplace"].max_trials
    code, line = _run(capsys, "audit", "--mechanism", "laplace", "--trials", str(10**12))
    assert code == 1 and line.startswith("error: --trials must be at most") and f"{top:,}" in line


def test_audit_trials_bound_in_the_library():
    from gazeprivacy.audit.adapters import ADAPTERS, audit_mechanism
    from gazeprivacy.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="n_trials must be at most"):
        audit_mechanism("laplace", n_trials=ADAPTERS["laplace"].max_trials + 1,
                        rng=np.random.default_rng(0))


def test_a_missing_privacy_parameter_names_the_options(tmp_path, capsys):
    code, line = _run(capsys, "protect", str(_gaze(tmp_path)), str(tmp_path / "o.parquet"),
                      "--mechanism", "kaleido")
    assert code == 1 and "--epsilon, --radius-deg" in line
    assert "Params" not in line and "radius_deg" not in line
    code, line = _run(capsys, "protect", str(_gaze(tmp_path)), str(tmp_path / "o.parquet"),
                      "--mechanism", "event-synth-pd", "--k", "2", "--gamma", "2")
    assert code == 1 and "--param epsilon0=VALUE" in line and "mode=" not in line


def test_the_public_mask_hint_names_the_option_not_an_enum(tmp_path, capsys):
    code, line = _run(capsys, "protect", str(_gaze(tmp_path, gaps=True)),
                      str(tmp_path / "o.parquet"), *KALEIDO)
    assert code == 1 and "--public mask" in line
    assert "<" not in line and "Missing" not in line and "--param missing=keep" in line


def test_off_image_fixations_hint_and_option(tmp_path, capsys):
    fix = tmp_path / "fix.csv"
    pl.DataFrame({"participant": ["a", "a", "b", "b"], "stimulus": ["s"] * 4,
                  "fixation": [0, 1, 0, 1], "x_px": [5.0, 50.0, 6.0, 7.0],
                  "y_px": [5.0, 5.0, 6.0, 7.0], "duration_ms": [200.0] * 4}).write_csv(fix)
    args = ("-q", "heatmap", str(fix), "--stimulus", "s", "--epsilon", "1", "--delta", "1e-3",
            "--width-px", "20", "--height-px", "20", "--cap", "2", "--out")
    code, line = _run(capsys, *args, str(tmp_path / "h.png"))
    assert code == 1 and "--off-image clamp" in line and "--off-image exclude" in line
    assert "off_image" not in line
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # shown as the command line shows them
        assert run([*args, str(tmp_path / "h.png"), "--off-image", "clamp"]) == 0
    assert (tmp_path / "h.png").is_file()
    # the clamped point is said (to the data holder; the record does not count it)
    err = capsys.readouterr().err
    assert "1 point(s) outside the 20 x 20 px image moved to the nearest border cell" in err
    assert "--off-image clamp" in err


@pytest.mark.parametrize("args, expected", [
    (("--mechanism", "event-synth-pd", "--k", "2", "--gamma", "inf", "--param", "epsilon0=1"),
     "--gamma must be in [1.0, inf), got inf"),
    (("--mechanism", "dpgazesynth", "--epsilon", "1", "--grid-size", "10000000000"),
     "--grid-size must be at most 1000"),
    (("--mechanism", "dpgazesynth", "--epsilon", "1", "--grid-size", "100000"),
     "--grid-size must be at most 1000"),
    (("--mechanism", "kaleido", "--epsilon", "1", "--radius-deg", "-1", "--window-s", "0.5"),
     "--radius-deg must be"),
    (("--mechanism", "kaleido", "--epsilon", "1", "--radius-deg", "1", "--window-s", "0.5",
      "--ranges", "nonexistent.json"), "--ranges applies to the feature-series mechanisms"),
])
def test_values_beyond_what_a_mechanism_can_take_are_refused_before_any_work(
        tmp_path, capsys, args, expected):
    """gamma = inf ran for seconds, then failed writing its record (JSON has no inf); a grid of
    1e10 cells per side overflowed NumPy and 1e5 ran out of memory: each was an internal error
    or a misleading "out of memory; try a partitioned folder"."""
    code, line = _run(capsys, "protect", str(_gaze(tmp_path)), str(tmp_path / "o.parquet"),
                      "--geometry", "-20,20,-15,15", *args)
    assert code == 1 and expected in line and not (tmp_path / "o.parquet").exists()


@pytest.mark.parametrize("extra, expected", [
    (("--mechanism", "laplace", "--delta", "1e-5"), "--delta applies to the Gaussian"),
    (("--mechanism", "laplace", "--mode", "paper"), "--mode paper applies to --mechanism "
                                                    "gaussian only"),
    (("--mechanism", "analytic-gaussian", "--delta", "1e-5", "--mode", "paper"),
     "--mode paper applies to --mechanism gaussian only"),
])
def test_a_heatmap_flag_its_mechanism_does_not_read_is_refused(tmp_path, capsys, extra,
                                                               expected):
    """Both were dropped in silence: the release said delta = 0 or sound mode."""
    fix = tmp_path / "fix.csv"
    pl.DataFrame({"participant": ["a", "a", "b", "b"], "stimulus": ["s"] * 4,
                  "fixation": [0, 1, 0, 1], "x_px": [5.0, 9.0, 6.0, 7.0],
                  "y_px": [5.0, 5.0, 6.0, 7.0], "duration_ms": [200.0] * 4}).write_csv(fix)
    code, line = _run(capsys, "heatmap", str(fix), "--stimulus", "s", "--epsilon", "1",
                      "--width-px", "20", "--height-px", "20", "--cap", "2", *extra,
                      "--out", str(tmp_path / "h.png"))
    assert code == 1 and expected in line and not (tmp_path / "h.png").exists()


def test_out_of_memory_is_one_line_that_names_the_sizes_first(tmp_path, capsys, monkeypatch):
    import gazeprivacy.data.readers as readers

    def full(*a, **k):
        raise MemoryError

    monkeypatch.setattr(readers, "read_input", full)
    code, line = _run(capsys, "info", str(_gaze(tmp_path)))
    assert code == 1 and line.startswith("error: out of memory: check the sizes the options")
    assert "partitioned folder" in line
