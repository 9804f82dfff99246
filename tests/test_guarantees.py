# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Guarantee records: composition, flags, JSON."""

from __future__ import annotations

import json

import pytest

from gazeprivacy.guarantees import Flag, FlagCode, Guarantee, Kind, Unit


def window_record() -> Guarantee:
    return Guarantee(mechanism="dpgazesynth", kind=Kind.LOCAL_DP, unit=Unit.WINDOW, epsilon=2.0,
                     parameters={"grid": 30})


def test_sequential_composition_per_participant():
    g = window_record().compose({"p1": 10, "p2": 3})
    assert g.per_participant["p1"].epsilon == pytest.approx(20.0)
    assert g.per_participant["p2"].units == 3
    assert g.max_participant_epsilon == pytest.approx(20.0)


def test_delta_composes_and_caps_at_one():
    g = Guarantee(mechanism="gauss", kind=Kind.APPROX_DP, unit=Unit.CHUNK, epsilon=1.0,
                  delta=0.4).compose({"p": 3})
    assert g.per_participant["p"].delta == 1.0


def test_k_anonymity_does_not_compose_into_an_epsilon():
    g = Guarantee(mechanism="ks", kind=Kind.K_ANONYMITY, unit=Unit.EVENT, k=4).compose({"p": 9})
    assert g.per_participant["p"].epsilon is None
    assert "no composition theorem" in g.per_participant["p"].rule


def test_flags_break_the_guarantee_but_a_fixed_seed_does_not():
    g = window_record().with_seed(7)
    assert g.formally_private and g.seed == 7
    g2 = g.with_flags(Flag(FlagCode.DATA_DEPENDENT_SENSITIVITY, "sensitivity read from data"))
    assert not g2.formally_private
    assert "NOT FORMALLY PRIVATE (data-dependent-sensitivity)" in g2.summary()


def test_not_private_kind_says_so():
    g = Guarantee(mechanism="noise-free", kind=Kind.NONE, unit=Unit.PARTICIPANT, mode="baseline")
    assert not g.formally_private and "NOT PRIVATE" in g.summary()


def test_json_round_trip_with_everything():
    g = (window_record().with_seed(3)
         .with_flags(Flag(FlagCode.PROOF_GAP, "m released"))
         .compose({"p1": 2}))
    d = json.loads(g.to_json())
    assert d["kind"] == "epsilon-LDP" and d["formally_private"] is False
    assert d["per_participant"]["p1"]["epsilon"] == 4.0
    assert Guarantee.from_json(g.to_json()) == g


def test_columns_round_trip_through_json():
    from gazeprivacy.guarantees import ColumnStatus, Status

    cols = (ColumnStatus(name="x", status=Status.PROTECTED, by="dpgazesynth", epsilon_share=2.0),
            ColumnStatus(name="participant", status=Status.PSEUDONYMISED, by="hash"))
    g = window_record().compose({"p1": 2})
    g = Guarantee(**{**g.__dict__, "columns": cols})
    d = json.loads(g.to_json())
    assert d["columns"][0] == {"name": "x", "status": "protected", "by": "dpgazesynth",
                               "epsilon_share": 2.0, "note": ""}
    back = Guarantee.from_json(g.to_json())
    assert back == g and back.column("participant").status is Status.PSEUDONYMISED
    assert Guarantee.from_dict({k: v for k, v in d.items() if k != "columns"}).columns == ()


def test_summary_shows_delta_per_unit_and_participant():
    pure = window_record().compose({"p1": 3}).summary()
    assert "epsilon=2, delta=0 per window" in pure
    assert "per participant epsilon <= 6, delta = 0" in pure and "vacuous" not in pure
    approx = Guarantee(mechanism="g", kind=Kind.APPROX_DP, unit=Unit.EVENT, epsilon=0.5,
                       delta=1e-6).compose({"p": 4}).summary()
    assert "epsilon=0.5, delta=1e-06 per event" in approx
    assert "per participant epsilon <= 2, delta <= 4e-06" in approx


@pytest.mark.parametrize(("epsilon", "delta", "units", "reason"), [
    (0.5, 0.4, 3, "delta 1 >= 1"),
    (2.0, None, 6, "epsilon 12 > 10"),
], ids=["delta_reaches_one", "epsilon_above_threshold"])
def test_summary_says_when_the_per_participant_bound_is_vacuous(epsilon, delta, units, reason):
    kind = Kind.APPROX_DP if delta else Kind.PURE_DP
    g = Guarantee(mechanism="m", kind=kind, unit=Unit.WINDOW, epsilon=epsilon,
                  delta=delta).compose({"p": units})
    assert f"(vacuous: {reason} promises nothing per participant)" in g.summary()


# --- Guarantee.explain: Markdown for a privacy officer and a researcher ---------------------

def _explain_record(**kw):
    from gazeprivacy.guarantees import ColumnStatus, Guarantee, Kind, Status, Unit
    base = dict(mechanism="dp-gaze-synth", kind=Kind.APPROX_DP, unit=Unit.RECORDING,
                epsilon=1.0, delta=1e-5, neighbouring="add or remove one recording",
                columns=(ColumnStatus(name="x", status=Status.PROTECTED, by="dp-gaze-synth",
                                      epsilon_share=1.0),
                         ColumnStatus(name="task", status=Status.PUBLIC_DECLARED),
                         ColumnStatus(name="time", status=Status.PUBLIC_BY_DESIGN),
                         ColumnStatus(name="participant", status=Status.PSEUDONYMISED),
                         ColumnStatus(name="pupil", status=Status.NOT_WRITTEN)))
    base.update(kw)
    return Guarantee(**base)


def test_explain_dp_record_states_odds_delta_columns_and_neighbouring():
    text = _explain_record().compose({"p1": 2}).explain()
    assert "factor e^epsilon = 2.72" in text
    assert "except with probability delta = 1e-05" in text
    assert "`x`: protected by dp-gaze-synth" in text
    assert "declared public by the user (NOT protected)" in text
    assert "public by design" in text and "pseudonymised" in text and "not written" in text
    assert "add or remove one recording" in text
    assert "epsilon <= 2" in text and "vacuous" not in text
    assert "No flag breaks the stated guarantee." in text
    assert "- `task`: declared public, released unprotected" in text


def test_explain_says_vacuous_exactly_when_summary_does():
    from gazeprivacy.guarantees import Kind, Unit
    g = _explain_record(kind=Kind.PURE_DP, unit=Unit.WINDOW, epsilon=0.5, delta=None)
    big, small = g.compose({"p": 40}), g.compose({"p": 4})
    assert "**This bound is vacuous**" in big.explain() and "vacuous" in big.summary()
    assert "vacuous" not in small.explain() and "vacuous" not in small.summary()
    assert big.participant_bound_vacuous and not small.participant_bound_vacuous


def test_explain_k_anonymity_in_words():
    from gazeprivacy.guarantees import Kind, Unit
    g = _explain_record(kind=Kind.K_ANONYMITY, unit=Unit.RECORDING, epsilon=None, delta=None,
                        k=5).compose({"p": 3})
    text = g.explain()
    assert "k-anonymity with k = 5" in text and "at least 5 - 1 others" in text
    assert "not differential privacy" in text
    assert "No per-participant epsilon" in text and "odds" not in text


def test_explain_lists_every_breaking_flag_of_a_paper_mode_record():
    from gazeprivacy.guarantees import Flag, FlagCode
    g = _explain_record(mode="paper").with_flags(
        Flag(FlagCode.DATA_DEPENDENT_SENSITIVITY, "clip bound taken from the data"),
        Flag(FlagCode.PROOF_GAP, "the paper's lemma 2 does not hold")).with_seed(3)
    text = g.explain()
    assert "(paper mode)" in text
    assert "- **data-dependent-sensitivity**: clip bound taken from the data" in text
    assert "- **proof-gap**: the paper's lemma 2 does not hold" in text
    assert "(informational) fixed-seed" in text
    assert "No flag breaks" not in text


def test_explain_of_a_record_without_columns_says_what_it_covers_not_what_it_lacks():
    from gazeprivacy.guarantees import Guarantee, Kind, Unit
    text = Guarantee(mechanism="kaleido", kind=Kind.PURE_DP, unit=Unit.WINDOW,
                     epsilon=1.0).explain()
    assert "does not list" not in text
    assert "The output of `kaleido` as the guarantee below describes it." in text
