# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The report's verdicts: strongest attack per release, and the data-free baseline flags."""

from __future__ import annotations

import polars as pl
import pytest

from gazeprivacy.experiments.baselines import BASELINE_PREFIX
from gazeprivacy.experiments.engine import RESULT_SCHEMA
from gazeprivacy.report import verdict
from gazeprivacy.report.verdict import baseline_comparison, flag_results, strongest_attacks
from script_helpers import load_script


def _rows(mech, kind, evaluation, metric, values, params="{}"):
    return [{"dataset": "d", "mechanism": mech, "mode": "x", "parameters": params,
             "epsilon": None, "seed": s, "kind": kind, "evaluation": evaluation,
             "metric": metric, "value": v, "beats_baselines": None}
            for s, v in enumerate(values)]


def _table(*parts):
    return pl.DataFrame([r for p in parts for r in p], schema=RESULT_SCHEMA)


def test_prefix_matches_the_experiments_layer():
    assert verdict.BASELINE_PREFIX == BASELINE_PREFIX


def test_strongest_attack_is_the_largest_rate_over_chance():
    t = _table(_rows("m", "privacy", "reid:rbfn:seed000", "identification_rate", [0.1, 0.1]),
               _rows("m", "privacy", "reid:rbfn:seed000", "chance", [0.1, 0.1]),
               _rows("m", "privacy", "reid:aware-rf:seed004", "identification_rate",
                     [0.3, 0.5]),
               _rows("m", "privacy", "reid:aware-rf:seed004", "chance", [0.1, 0.1]),
               _rows("m", "privacy", "gender:rf:seed000", "accuracy", [0.9, 0.9]),
               _rows("m", "privacy", "gender:rf:seed000", "chance", [0.5, 0.5]))
    s = strongest_attacks(t)
    assert s.height == 1
    row = s.row(0, named=True)
    assert row["evaluation"] == "reid:aware-rf:seed004"
    assert row["value"] == pytest.approx(0.4) and row["ratio"] == pytest.approx(4.0)


def test_beats_baselines_needs_two_standard_errors():
    fid = "fidelity"
    t = _table(
        _rows("baseline-centre", fid, fid, "rmse", [3.6, 3.7, 3.8]),
        _rows("baseline-uniform", fid, fid, "rmse", [7.1, 7.2, 7.3]),
        _rows("good", fid, fid, "rmse", [1.0, 1.1, 1.2]),  # far below the centre's 3.7
        _rows("close", fid, fid, "rmse", [3.4, 3.7, 3.6]),  # within 2 SE of 3.7
        _rows("worse", fid, fid, "rmse", [10.0, 10.5, 11.0]),
        _rows("baseline-centre", "utility", "task:rf:train-original", "accuracy", [0.5] * 3),
        _rows("good", "utility", "task:rf:train-original", "accuracy", [0.8, 0.82, 0.84]),
        _rows("good", "privacy", "reid", "identification_rate", [0.2] * 3))
    comp = baseline_comparison(t)
    got = {(r["mechanism"], r["metric"]): r["beats_baselines"] for r in comp.iter_rows(named=True)}
    assert got == {("good", "rmse"): True, ("close", "rmse"): False, ("worse", "rmse"): False,
                   ("good", "accuracy"): True}
    assert set(comp["best_baseline"]) == {"baseline-centre"}
    flagged = flag_results(t)
    assert flagged.columns == t.columns and flagged.height == t.height
    assert flagged.filter(pl.col("kind") == "privacy")["beats_baselines"].is_null().all()
    assert flagged.filter(pl.col("mechanism") == "worse")["beats_baselines"].to_list() == [
        False] * 3


def test_single_seed_uses_the_split_standard_error():
    u, ev = "utility", "task:rf:train-original"
    t = _table(_rows("baseline-prior", u, ev, "accuracy", [0.50]),
               _rows("baseline-prior", u, ev, "accuracy_se", [0.02]),
               _rows("m", u, ev, "accuracy", [0.55]), _rows("m", u, ev, "accuracy_se", [0.03]))
    r = baseline_comparison(t).row(0, named=True)
    assert r["se_known"] and r["se"] == pytest.approx(0.03)
    assert r["beats_baselines"] is False  # 0.05 < 2 * sqrt(0.03^2 + 0.02^2) = 0.072


def test_a_tie_is_neither_a_win_nor_a_loss():
    fid = "fidelity"
    t = _table(_rows("baseline-centre", fid, fid, "rmse", [3.6, 3.7, 3.8]),
               _rows("good", fid, fid, "rmse", [1.0, 1.1, 1.2]),
               _rows("close", fid, fid, "rmse", [3.4, 3.7, 3.6]),
               _rows("worse", fid, fid, "rmse", [10.0, 10.5, 11.0]))
    got = {r["mechanism"]: r["outcome"] for r in baseline_comparison(t).iter_rows(named=True)}
    assert got == {"good": "better", "close": "tie", "worse": "worse"}


def _record(mech, eps, units):
    from gazeprivacy.guarantees import Guarantee, Kind, Unit
    g = Guarantee(mechanism=mech, kind=Kind.PURE_DP, unit=Unit.WINDOW, epsilon=eps)
    return {"dataset": "d", "mechanism": mech, "parameters": {},
            "guarantee": g.compose({"p0": units}).to_dict()}


def test_the_verdict_is_the_most_private_release_bounded_and_better_than_every_baseline():
    from gazeprivacy.report.verdict import best_releases, release_verdicts
    fid = "fidelity"
    t = _table(_rows("baseline-centre", fid, fid, "rmse", [3.6, 3.7, 3.8]),
               _rows("baseline-uniform", fid, fid, "rmse", [7.1, 7.2, 7.3]),
               _rows("loose", fid, fid, "rmse", [0.5, 0.5, 0.5]),  # better, vacuous bound
               _rows("tight", fid, fid, "rmse", [3.4, 3.7, 3.6]),  # bounded, only a tie
               _rows("mid", fid, fid, "rmse", [1.0, 1.1, 1.2]),  # bounded and better
               _rows("mid2", fid, fid, "rmse", [1.0, 1.1, 1.2]))  # the same, larger bound
    recs = [_record("loose", 1.0, 50), _record("tight", 0.5, 2), _record("mid", 2.0, 4),
            _record("mid2", 3.0, 3)]
    v = release_verdicts(t, recs)
    rows = {r["mechanism"]: r for r in v.iter_rows(named=True)}
    assert set(rows) == {"loose", "tight", "mid", "mid2"}  # no raw data, no baseline
    assert rows["loose"]["participant_epsilon"] == 50 and not rows["loose"]["bounded"]
    assert rows["tight"]["bounded"] and not rows["tight"]["beats_every_baseline"]
    assert rows["tight"]["n_tie"] == 1 and rows["tight"]["n_worse"] == 0
    assert best_releases(v)["d"]["mechanism"] == "mid"  # 8 per participant beats 9
    assert best_releases(v.filter(pl.col("mechanism").is_in(["loose", "tight"]))) == {
        "d": None}


def _frontier_table(release, baseline, *, eps=3.0, extra=()):
    """A frontier run's rows: density error per seed of one bounded release and baselines."""
    rows = _rows("m", "fidelity", "frontier:density", "density_error", release)
    rows += _rows("m", "privacy", "guarantee", "participant_epsilon", [eps] * len(release))
    rows += _rows("baseline-centre-gaussian", "fidelity", "frontier:density", "density_error",
                  baseline)
    for name, values in extra:
        rows += _rows(name, "fidelity", "frontier:density", "density_error", values)
    return _table(rows)


def test_paired_test_sees_a_win_the_unpaired_means_hide():
    # the split moves both by +-0.1; the release is about 0.02 better on every split
    base = [0.30, 0.50, 0.40, 0.20]
    t = _frontier_table([b - d for b, d in zip(base, [0.018, 0.022, 0.019, 0.021],
                                               strict=True)], base)
    unpaired = baseline_comparison(t).filter(pl.col("mechanism") == "m").row(0, named=True)
    assert unpaired["outcome"] == "tie"
    p = verdict.paired_differences(t).row(0, named=True)
    assert p["n_seeds"] == 4 and p["test"] == "paired" and p["outcome"] == "better"
    assert p["difference"] == pytest.approx(-0.02) and 0 < p["difference_se"] < 0.002
    assert p["release_only_seeds"] == [] and p["baseline_only_seeds"] == []
    row = verdict.frontier(t).row(0, named=True)
    assert row["verdict"] == "m" and row["test"] == "paired" and row["unpaired_seeds"] == ""
    assert row["paired_baseline"] == "baseline-centre-gaussian"
    line = verdict.frontier_line(row)
    assert "against baseline-centre-gaussian 0.35, the baseline it is least ahead of" in line
    assert "paired difference -0.02" in line
    assert "left out" not in line


def test_the_verdict_line_names_the_binding_baseline_not_the_best_by_mean():
    # baseline-centre-gaussian is the best by mean (0.03 worse than the release, on every seed
    # to 0.001: far ahead in standard errors); baseline-uniform is worse by mean (0.10) but
    # varies from seed to seed, so the paired test is hardest against it: the binding one
    rel = [0.20, 0.40, 0.30, 0.25]
    t = _frontier_table(rel, [r + d for r, d in zip(rel, [0.030, 0.031, 0.030, 0.031],
                                                      strict=True)],
                        extra=[("baseline-uniform", [r + d for r, d in zip(
                            rel, [0.05, 0.15, 0.06, 0.14], strict=True)])])
    row = verdict.frontier(t).row(0, named=True)
    assert row["verdict"] == "m" and row["best_baseline"] == "baseline-centre-gaussian"
    assert row["paired_baseline"] == "baseline-uniform"
    assert row["paired_baseline_density_error"] == pytest.approx(0.2875 + 0.1)
    line = verdict.frontier_line(row)
    assert "against baseline-uniform 0.388, the baseline it is least ahead of" in line
    assert "paired difference -0.1 +- 0.026" in line
    assert "baseline-centre-gaussian" not in line  # one baseline named, not two


def test_a_difference_with_standard_error_zero_is_a_tie_not_a_win():
    # the same difference on every seed: no spread of differences to test against
    base = [0.30, 0.50, 0.40]
    t = _frontier_table([b - 0.02 for b in base], base)
    p = verdict.paired_differences(t).row(0, named=True)
    assert p["n_seeds"] == 3 and p["difference_se"] == pytest.approx(0.0, abs=1e-12)
    assert p["outcome"] == "tie"
    assert verdict.frontier(t).row(0, named=True)["verdict"] == "none"
    # two identical values on each side: difference 0, SE 0
    assert verdict.paired_differences(_frontier_table([0.3, 0.3], [0.3, 0.3]))[
        "outcome"].to_list() == ["tie"]


def test_paired_test_refuses_a_win_that_changes_sign_between_splits():
    base = [0.30, 0.30, 0.30, 0.30]
    t = _frontier_table([0.20, 0.40, 0.21, 0.39], base)  # mean 0.30: no better, no worse
    assert verdict.paired_differences(t)["outcome"].to_list() == ["tie"]
    assert verdict.frontier(t).row(0, named=True)["verdict"] == "none"


def test_the_release_must_beat_every_baseline_and_the_record_lists_each():
    base = [0.30, 0.50, 0.40]
    t = _frontier_table([b - 0.05 for b in base], [b + d for b, d in zip(
        base, [0.001, -0.001, 0.002], strict=True)],
                        extra=[("baseline-uniform", [b - 0.1 for b in base])])
    p = verdict.paired_differences(t)
    # baseline-uniform is 0.05 closer on every seed: standard error 0 (to rounding), a tie
    assert dict(zip(p["baseline"], p["outcome"], strict=True)) == {
        "baseline-centre-gaussian": "better", "baseline-uniform": "tie"}
    assert verdict.frontier(t).row(0, named=True)["verdict"] == "none"
    [rec] = verdict.frontier_record(t)
    [rel] = rec["releases"]
    assert rel["mechanism"] == "m" and rel["beats_every_baseline"] is False
    assert {v["baseline"] for v in rel["versus"]} == {"baseline-centre-gaussian",
                                                      "baseline-uniform"}
    # a release over the epsilon cap is not a candidate and not in the record
    assert verdict.frontier_record(t, max_participant_epsilon=1.0)[0]["releases"] == []


def test_fewer_than_two_paired_seeds_give_no_verdict():
    # one seed: refused, whatever the split-level standard errors say
    t = _frontier_table([0.20], [0.30])
    t = pl.concat([t, _table(_rows("m", "fidelity", "frontier:density", "density_error_se",
                                   [0.001]),
                             _rows("baseline-centre-gaussian", "fidelity", "frontier:density",
                                   "density_error_se", [0.001]))])
    p = verdict.paired_differences(t).row(0, named=True)
    assert p["n_seeds"] == 1 and p["test"] == verdict.NOT_ENOUGH_SEEDS
    assert p["outcome"] == verdict.NOT_ENOUGH_SEEDS and p["difference_se"] is None
    row = verdict.frontier(t).row(0, named=True)
    assert row["verdict"] == "none" and row["test"] == verdict.NOT_ENOUGH_SEEDS
    assert "fewer than 2 paired seeds" in verdict.frontier_line(row)


def test_seeds_missing_on_one_side_are_named_not_dropped():
    # seeds 0-3 of the release, 0, 2 and 4 of the baseline: seeds 0 and 2 paired
    rel = [r for r in _frontier_table([0.10, 0.11, 0.12, 0.13], [0.3] * 4).to_dicts()
           if r["mechanism"] == "m"]
    base = [r for r in _table(_rows("baseline-centre-gaussian", "fidelity", "frontier:density",
                                    "density_error", [0.30, 0.0, 0.31, 0.0, 0.33])).to_dicts()
            if r["seed"] in (0, 2, 4)]
    t = pl.DataFrame(rel + base, schema=RESULT_SCHEMA)
    p = verdict.paired_differences(t).row(0, named=True)
    assert p["n_seeds"] == 2 and p["test"] == "paired"
    assert p["release_only_seeds"] == [1, 3] and p["baseline_only_seeds"] == [4]
    row = verdict.frontier(t).row(0, named=True)
    assert row["unpaired_seeds"] == ("baseline-centre-gaussian lacks seed(s) 1, 3; the release "
                                     "lacks seed(s) 4 of baseline-centre-gaussian")
    assert "seeds left out of the pairing: baseline-centre-gaussian lacks" in (
        verdict.frontier_line(row))
    [rec] = verdict.frontier_record(t)
    assert rec["releases"][0]["versus"][0]["release_only_seeds"] == [1, 3]
    # a baseline sharing no seed with the release is still compared (and refuses a verdict)
    only4 = pl.DataFrame(rel + [r for r in base if r["seed"] == 4], schema=RESULT_SCHEMA)
    p = verdict.paired_differences(only4).row(0, named=True)
    assert p["n_seeds"] == 0 and p["outcome"] == verdict.NOT_ENOUGH_SEEDS
    assert verdict.frontier(only4).row(0, named=True)["verdict"] == "none"


def test_a_refused_release_is_named_in_the_frontier_and_its_table():
    base = [0.30, 0.50, 0.40]
    t = _frontier_table([b + 0.1 for b in base], base)  # m: worse, nothing wins
    kind, evaluation, metric = verdict.REFUSED
    refused = [{**r, "epsilon": 2.0}  # refused everywhere: a candidate by its epsilon
               for r in _rows("pd", kind, evaluation, metric, [1.0, 1.0, 1.0], params='{"k": 2}')]
    t = pl.concat([t, _table([r for r in refused if r["seed"] != 1])])
    row = verdict.frontier(t).row(0, named=True)
    assert row["verdict"] == "none" and row["refused"] == 'pd {"k": 2} (seed(s) 0, 2)'
    assert ('refused by their mechanism (not compared there): pd {"k": 2} (seed(s) 0, 2)'
            in verdict.frontier_line(row))
    [rec] = verdict.frontier_record(t)
    assert rec["refused_releases"] == [{"mechanism": "pd", "parameters": '{"k": 2}',
                                        "epsilon": 2.0, "seeds": [0, 2]}]
    assert verdict.frontier(_frontier_table(base, base)).row(0, named=True)["refused"] == ""
    mod = load_script("frontier_table.py", "frontier_table_refused")
    [line] = [x for x in mod.table(t, "d") if x.startswith("| pd")]
    assert line.startswith("| pd (refused on seed(s) 0, 2) |") and "| refused |" in line


def test_the_frontier_names_only_refused_candidates():
    base = [0.30, 0.50, 0.40]
    t = _frontier_table([b + 0.1 for b in base], base)
    kind, evaluation, metric = verdict.REFUSED

    def refused_on(mech, seeds, eps):
        return [{**r, "epsilon": eps} for r in _rows(mech, kind, evaluation, metric, [1.0] * 3)
                if r["seed"] in seeds]

    def bound(mech, seeds, eps):
        return [r for r in _rows(mech, "privacy", "guarantee", "participant_epsilon", [eps] * 3)
                if r["seed"] in seeds]

    t = pl.concat([t, _table(
        refused_on("nodp", [0, 1, 2], None),  # no DP claim: never a candidate
        refused_on("everywhere-big", [0, 1, 2], 50.0),  # above the cap by its parameter
        refused_on("big", [0], 50.0), bound("big", [1, 2], 50.0),  # above the cap by its bound
        refused_on("cand", [0], 3.0), bound("cand", [1, 2], 3.0),
        refused_on("cand-everywhere", [0, 1, 2], 5.0))])
    row = verdict.frontier(t, max_participant_epsilon=10.0).row(0, named=True)
    assert row["refused"] == "cand {} (seed(s) 0); cand-everywhere {} (seed(s) 0, 1, 2)"
    # all refused releases stay in frontier.json
    [rec] = verdict.frontier_record(t)
    assert {r["mechanism"] for r in rec["refused_releases"]} == {
        "nodp", "everywhere-big", "big", "cand", "cand-everywhere"}


def test_frontier_line_of_a_winner_without_its_paired_numbers():
    row = {"dataset": "d", "verdict": "m", "max_participant_epsilon": 10.0,
           "participant_epsilon": 3.0, "density_error": 0.1, "paired_baseline": "baseline-b",
           "paired_baseline_density_error": None, "paired_difference": None,
           "paired_difference_se": None, "n_seeds": None}
    line = verdict.frontier_line(row)
    assert line.startswith("d: m at epsilon 3 per participant beats every data-free baseline")
    assert "against baseline-b, the baseline it is least ahead of" in line
    assert "difference" not in line
    full = verdict.frontier_line({**row, "paired_baseline_density_error": 0.2,
                                  "paired_difference": -0.1, "paired_difference_se": 0.01,
                                  "n_seeds": 3, "test": "paired"})
    assert ("0.1 against baseline-b 0.2, the baseline it is least ahead of by the paired test; "
            "paired difference -0.1 +- 0.01 over 3 seed(s)") in full


def test_refused_shows_only_where_the_release_was_refused_on_every_seed():
    from gazeprivacy.report.tables import pivot_tables

    base = [0.30, 0.50, 0.40]
    t = _frontier_table([b + 0.1 for b in base], base)
    kind, evaluation, metric = verdict.REFUSED
    t = pl.concat([t, _table(
        # refused on seed 0; seeds 1, 2 released with a density but no discriminator
        [r for r in _rows("part", kind, evaluation, metric, [1.0] * 3) if r["seed"] == 0],
        [r for r in _rows("part", "fidelity", "frontier:density", "density_error", [0.5] * 3)
         if r["seed"] != 0],
        _rows("all", kind, evaluation, metric, [1.0] * 3),
        _rows("m", "realism", "realism:discriminator", "discriminator_auc", [0.7] * 3))])
    mod = load_script("frontier_table.py", "frontier_table_partial")
    lines = mod.table(t, "d")
    [part] = [x for x in lines if x.startswith("| part")]
    [every] = [x for x in lines if x.startswith("| all")]
    assert "refused" not in part.split("|", 2)[2] and "| n/a |" in part
    cells = [c.strip() for c in every.split("|")[1:-1]]  # release, setting, epsilon, metrics
    assert cells[3:] and set(cells[3:]) == {"refused"}
    html = pivot_tables(t)
    row = html[html.index("<th>part<br>"):].split("</tr>")[0]
    assert "refused on seed(s) 0" in row and ">refused</td>" not in row
    row = html[html.index("<th>all<br>"):].split("</tr>")[0]
    assert ">refused</td>" in row


def test_frontier_table_script_keeps_the_seeds_asked_for(tmp_path, capsys):
    """scripts/frontier_table.py --seeds A-B: the paired test on those seeds only (here the
    release is better on seeds 0-1 and worse on 2-3, so each half has its own verdict)."""
    mod = load_script("frontier_table.py")
    base = [0.30, 0.50, 0.40, 0.20]
    run = tmp_path / "run"
    run.mkdir()
    _frontier_table([0.28, 0.479, 0.45, 0.251], base).write_parquet(run / "results.parquet")

    def rows(argv):
        mod.main([*argv, str(run)])
        return [line for line in capsys.readouterr().out.splitlines()
                if line.startswith("| m | ") and "baseline-centre-gaussian" in line]

    def paired(seeds):
        return rows(["--seeds", seeds])

    first, second = paired("0-1"), paired("2-3")
    assert len(first) == len(second) == 1
    assert first[0].endswith("| 2 | none | better |"), first
    assert second[0].endswith("| 2 | none | worse |"), second
    both = rows([])
    assert both[0].endswith("| 4 | none | tie |"), both
    with pytest.raises(SystemExit, match="--seeds takes a range"):
        mod.main(["--seeds", "5", str(run)])


def test_frontier_table_script_pairs_the_task_on_the_held_out_people(tmp_path, capsys):
    """scripts/frontier_table.py's paired task table: a release 0.03 more accurate than the
    baseline on every seed (to 0.004) while the held-out people move both by +-0.1 is a paired
    win that the unpaired means (0.03 apart, SE 0.05 each) cannot show; a release behind by
    as much is worse, and the balanced accuracy is read before the plain one. Each row says
    which share of the raw copy's gap to the baseline it recovers (0.031 of 0.2: 0.16), and
    n/a against a baseline the raw copy does not beat."""
    mod = load_script("frontier_table.py")
    base = [0.40, 0.60, 0.50, 0.30]
    ev = "environment:tstr-frontier"
    t = _table(_rows("m", "utility", ev, "balanced_accuracy",
                     [b + d for b, d in zip(base, [0.028, 0.032, 0.030, 0.034], strict=True)]),
               _rows("m", "utility", ev, "accuracy", [0.1] * 4),  # not the one read
               _rows("w", "utility", ev, "balanced_accuracy",
                     [b - d for b, d in zip(base, [0.028, 0.032, 0.030, 0.034], strict=True)]),
               _rows("none", "utility", ev, "balanced_accuracy",
                     [b + e for b, e in zip(base, [0.21, 0.19, 0.2, 0.2], strict=True)]),
               _rows("baseline-centre-gaussian", "utility", ev, "balanced_accuracy", base),
               _rows("baseline-uniform", "utility", ev, "balanced_accuracy",
                     [b + 0.2 + d for b, d in zip(base, [0.01, -0.01, 0.02, -0.02],
                                                  strict=True)]))
    assert baseline_comparison(t).filter(pl.col("mechanism") == "m").row(
        0, named=True)["outcome"] == "tie"  # unpaired
    lines = mod.paired_task_table(t, "d")
    assert lines and "balanced accuracy" in lines[0]
    m = [x for x in lines if x.startswith("| environment | m |")]
    w = [x for x in lines if x.startswith("| environment | w |")]
    assert len(m) == len(w) == 2
    assert "| baseline-centre-gaussian | +0.031 +- 0.001 | 0.16 | 4 | better |" in m[0], m
    assert w[0].endswith("| -0.16 | 4 | worse |"), w
    # the raw copy ties baseline-uniform: no gap to recover there
    assert "| baseline-uniform |" in m[1] and m[1].endswith("| n/a | 4 | worse |"), m
    raw = [x for x in lines if x.startswith("| environment | raw (copy of the input) |")]
    assert raw[0].endswith("| 1.00 | 4 | better |") and "| n/a | 4 | tie |" in raw[1], raw
    # the raw copy (the gap to recover) first, by its table name
    assert lines[4].startswith("| environment | raw (copy of the input) | `{}` |"), lines
    run = tmp_path / "run"
    run.mkdir()
    t.write_parquet(run / "results.parquet")
    mod.main([str(run)])
    assert m[0] in capsys.readouterr().out.splitlines()
    assert mod.paired_task_table(t.filter(pl.col("evaluation") != ev), "d") == []
