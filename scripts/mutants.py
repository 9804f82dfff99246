# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
# ruff: noqa: E501  (the mutant list is data: one mutant per line, so a re-target is one edit)
"""Mutation gate (issue 14): privacy-relevant one-line mutants must each be killed by a test.

Every mutant is a small source edit written as data (:data:`MUTANTS`): the file, a snippet that
must match exactly once (plain text, or a regular expression with ``regex=True``), its
replacement, a one-line description and the tests that should kill it (pytest node ids, or
``cmd:`` followed by a shell command run from the copy's root, such as an audit call; a non-zero
exit kills). For each mutant the script copies the tree (``src``, ``tests``, ``pyproject.toml``
and a few small files) to a temporary directory, applies the edit there, and runs the mapped
tests with ``PYTHONPATH`` on that copy: the working tree is never edited. The unmutated
baseline of the union of all mapped tests runs first and must pass.

Outcomes: ``killed`` (first failing test named), ``survived``, ``not-applicable`` (the snippet
matched 0 or several times: the mutant must be re-targeted), ``invalid`` (the edit does not
compile), ``timeout``, and ``pending`` (target code not on this branch yet; listed, not run,
not a failure). Exit 0 only when every non-pending mutant is killed.

Usage::

    python scripts/mutants.py                 # run all, print the Markdown table
    python scripts/mutants.py --only kaleido  # mutants whose id contains "kaleido"
    python scripts/mutants.py --check         # only check that every snippet applies
    python scripts/mutants.py --write-doc     # also write the table into docs/audit.md
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("src", "tests", "scripts", "pyproject.toml", "README.md", "configs", "setup.py")
DOC = ROOT / "docs" / "audit.md"
DOC_BEGIN = "<!-- mutation-gate:begin (written by scripts/mutants.py --write-doc) -->"
DOC_END = "<!-- mutation-gate:end -->"
TIMEOUT_S = 300

M = "src/gazeprivacy/mechanisms/"
DPG = M + "samples/dpgazesynth/"  # a package: each mutant names its module
KAL = M + "samples/kaleido/stream.py"
KALP = M + "samples/kaleido/params.py"
KALC = M + "samples/_kaleido_loop.c"
DPGC = M + "samples/_dpgazesynth_kernel.c"
RLC = "src/gazeprivacy/events/_remodnav_loop.c"  # REMoDNaV's compiled classification
RFC = "src/gazeprivacy/events/_remodnav_filters.c"  # and filters
REQ = "tests/events/test_remodnav_compiled.py::"
# Kaleido's threshold loop and DPGazeSynth's per-window passes exist twice: compiled (KALC,
# DPGC, used when built) and in Python (the fallback): mutants of the Python code the compiled
# code replaces run their tests with the Python path forced
PY_LOOP = (("GAZEPRIVACY_PURE_PYTHON", "1"),)
OUE = M + "noise/oue.py"
KS = "tests/mutants_kill/"
T = "tests/mechanisms/samples/"
KEQ = T + "test_kaleido_compiled.py::test_compiled_equals_python_in_one_push_and_in_random_chunks"
DEQ = T + "test_dpgazesynth_compiled.py::"
AUD = "tests/audit/test_audit_mechanisms.py::test_audit_verdict_matches_what_the_mechanism_claims"
IDA = "tests/audit/test_identification.py"
PS = M + "samples/participant_synth.py"
PSM = M + "samples/_participant_synth_model.py"
PSE = M + "samples/_participant_synth_estimate.py"
PST = T + "test_participant_synth.py::"
PSL = M + "samples/_participant_synth_labels.py"
PSLT = T + "test_participant_synth_labels.py::"
PSQ = M + "samples/_participant_synth_quality.py"
PSTR = M + "samples/_participant_synth_track.py"
PSQT = T + "test_participant_synth_quality.py::"
PSTT = T + "test_participant_synth_track.py::"
PSP = M + "samples/_participant_synth_params.py"
PSDT = T + "test_participant_synth_declared_tracker.py::"
KT = KS + "test_kill_release_trust.py::"


@dataclass(frozen=True)
class Mutant:
    """One mutant. ``snippet`` must match exactly once in ``file``."""

    id: str
    file: str
    snippet: str | tuple[str, ...]      # a tuple: one snippet per code version, first match wins
    replacement: str | tuple[str, ...]
    description: str
    tests: tuple[str, ...]
    regex: bool = False
    # pending: the target code or its killing tests may not be on this branch yet (the text says
    # whose work brings them). Such a mutant runs when its snippet applies and every mapped test
    # file exists, and is otherwise listed as pending (not a failure).
    pending: str = ""
    # extra environment of the mapped tests (PY_LOOP: the Python loop of a compiled kernel)
    env: tuple[tuple[str, str], ...] = ()


@dataclass
class Outcome:
    mutant: Mutant
    status: str
    killed_by: str = ""
    seconds: float = 0.0
    detail: str = ""
    log: str = field(default="", repr=False)


# One mutant per line of this list (id, file, snippet, replacement, description, tests).
MUTANTS: tuple[Mutant, ...] = (
    Mutant("dpg-start-eps-x2", DPG + "client.py", r"(radius\[\w+\]|windows\.radius) / params\.epsilon_start", r"\1 / (2.0 * params.epsilon_start)", "DPGazeSynth start-point planar Laplace at half the scale (eps1 doubled)", (KS + "test_kill_dpgazesynth.py::test_start_point_noise_has_the_scale_r_over_eps1",), regex=True),
    Mutant("dpg-times-eps-x2", DPG + "client.py", r"(return \(2\.0 \* windows\.n_valid - 2\.0\)) / params\.epsilon_times", r"\1 / (2.0 * params.epsilon_times)", "DPGazeSynth run-length Laplace noise halved (eps2 doubled)", (KS + "test_kill_dpgazesynth.py::test_run_length_noise_has_the_scale_2w_minus_2_over_eps2",), regex=True),
    Mutant("dpg-times-eps-x4", DPG + "client.py", r"(return \(2\.0 \* windows\.n_valid - 2\.0\)) / params\.epsilon_times", r"\1 / (4.0 * params.epsilon_times)", "DPGazeSynth run-length Laplace noise cut 4x (true epsilon up to 1.6 against 1)", (KS + "test_kill_dpgazesynth.py::test_run_length_noise_has_the_scale_2w_minus_2_over_eps2",), regex=True),
    Mutant("dpg-split-times-0.4", DPG + "params.py", ("return self.epsilon_window * self.split.times", "return self.epsilon * self.split.times"), ("return self.epsilon_window * 2.0 * self.split.times", "return self.epsilon * 2.0 * self.split.times"), "DPGazeSynth spends times share 0.4 while the split and the record say 0.2", (KS + "test_kill_dpgazesynth.py::test_run_length_noise_has_the_scale_2w_minus_2_over_eps2", "tests/mechanisms/samples/test_dpgazesynth.py::test_budget_split_default_and_validation")),
    Mutant("dpg-split-start-0.8", DPG + "params.py", ("return self.epsilon_window * self.split.start", "return self.epsilon * self.split.start"), ("return self.epsilon_window * (self.split.start + 0.2)", "return self.epsilon * (self.split.start + 0.2)"), "DPGazeSynth spends start share 0.8 while the split and the record say 0.6", (KS + "test_kill_dpgazesynth.py::test_start_point_noise_has_the_scale_r_over_eps1",)),
    Mutant("dpg-split-total-drops-transitions", DPG + "params.py", "return round(self.start + self.times + self.transitions, 12)", "return round(self.start + self.times, 12)", "DPGazeSynth record's epsilon leaves out the transitions share (composition within a window removed)", ("tests/mechanisms/samples/test_dpgazesynth.py::test_record_per_window_and_per_participant_composition", DPG + "params.py::gazeprivacy.mechanisms.samples.dpgazesynth.params.BudgetSplit")),
    Mutant("dpg-oue-full-eps3-per-report", DPG + "params.py", "return self.epsilon_transitions / (w - 1)", "return self.epsilon_transitions", "DPGazeSynth: every one of the W - 1 OUE reports at the full eps3 (composition over reports removed)", ("tests/mechanisms/samples/test_dpgazesynth.py::test_one_transition_variant_has_its_own_record",)),
    Mutant("dpg-cells-not-clamped", DPG + "grid.py", "col = np.clip(np.floor((x - x0) / cw), 0, g - 1).astype(np.int64)", "col = np.floor((x - x0) / cw).astype(np.int64)", "DPGazeSynth: off-screen points (and noisy start points) not clamped to the grid", ("tests/mechanisms/samples/test_dpgazesynth.py::test_off_screen_points_go_to_the_nearest_cell", "tests/mechanisms/samples/test_dpgazesynth.py::test_keeps_rows_order_labels_and_nan_rows"), env=PY_LOOP),
    Mutant("dpg-fill-across-windows", DPG + "grid.py", "np.where(prev >= win_start, prev,", "np.where(prev >= 0, prev,", "DPGazeSynth missing='fill' takes the previous valid sample across a window boundary", (T + "test_dpgazesynth_components.py::test_fill_stays_within_each_window", T + "test_dpgazesynth_components.py::test_changing_window_j_cannot_change_the_release_of_window_j_plus_1"), env=PY_LOOP),
    Mutant("dpg-participant-budget-not-divided", DPG + "params.py", "return self.epsilon / self.windows_per_participant", "return self.epsilon", "DPGazeSynth unit='participant': every drawn window at the full per-participant budget instead of epsilon / m (m x the claim)", (T + "test_dpgazesynth_participant.py::test_each_share_runs_at_budget_over_m", T + "test_dpgazesynth_participant.py::test_released_start_points_carry_the_start_noise_at_budget_over_m")),
    Mutant("dpg-participant-all-windows", DPG + "client.py", "windows = _subset_windows(windows, participant_windows(recs, params, rng_select))", "windows = windows", "DPGazeSynth unit='participant': every window reports at epsilon / m instead of m drawn ones (T / m x the claim)", (T + "test_dpgazesynth_participant.py::test_the_clients_send_reports_of_m_windows_per_participant_only",)),
    Mutant("dpg-participant-one-extra-window", DPG + "participant.py", "for p in sorted(by_part)]", "for p in sorted(by_part)] + [rng.choice(np.flatnonzero(owner == p), size=1, replace=False) for p in sorted(by_part)]", "DPGazeSynth unit='participant': one window more than m per participant reports (over the budget)", (T + "test_dpgazesynth_participant.py::test_exactly_m_windows_per_participant_are_drawn_across_all_its_recordings", T + "test_dpgazesynth_participant.py::test_the_clients_send_reports_of_m_windows_per_participant_only")),
    Mutant("dpg-participant-plan-not-checked", "src/gazeprivacy/deploy/protocol_plan.py", "        planned[plan.selection(m.recordings, m.n_samples)] = True", "        planned = declared", "DPGazeSynth device protocol, unit='participant': the curator takes the windows a device says it reports instead of its public plan (a device choosing its windows by its gaze, or reporting more of them)", ("tests/cli/test_client_curator_participant.py::test_a_device_reporting_a_window_not_in_the_plan_is_refused",)),
    Mutant("dpg-participant-m-per-recording", DPG + "participant.py", "    recs = tuple(recordings)\n    n_win = np.array([-(-r.n_samples // window_samples(params, r.sampling_rate_hz))", "    recs = tuple(replace(r, participant=r.recording) for r in recordings)\n    n_win = np.array([-(-r.n_samples // window_samples(params, r.sampling_rate_hz))", "DPGazeSynth unit='participant': m windows drawn per recording instead of per participant (R recordings report R m windows: R x the claim)", (IDA + "::test_two_point_game_stays_below_the_replace_one_bound[1]",)),
    Mutant("dpg-participant-model-raw-counts", DPG + "curator.py", "            out[eps] = (oue_curator_view(counts, epsilon=eps, rng=rng), int(values.size))", "            out[eps] = ((counts * (0.5 - 1.0 / (np.exp(eps) + 1.0)) + values.size / (np.exp(eps) + 1.0)) if params.unit == \"participant\" else oue_curator_view(counts, epsilon=eps, rng=rng), int(values.size))", "DPGazeSynth unit='participant': the curator's transition model built from the raw transition counts (no OUE noise)", (KT + "test_participant_level_transition_reports_carry_the_oue_noise",)),
    Mutant("dpg-participant-windows-in-order", DPG + "participant.py", "    pick = pool[rng.integers(pool.size, size=out_win.size)]", "    pick = pool[np.arange(out_win.size) % pool.size]", "DPGazeSynth unit='participant': released windows take the reporting windows in a fixed order, not drawn at random", (KT + "test_released_windows_take_reporting_windows_at_random_not_in_order",)),
    Mutant("pupil-not-clipped-before-mean", M + "release/pupil.py", "    padded[:n] = np.clip(pupil, lo, hi)", "    padded[:n] = pupil", "protected pupil: the block mean of unclipped values (sensitivity unbounded; loss far above the claim)", (KT + "test_pupil_is_clipped_to_the_range_before_the_block_mean",)),
    Mutant("seal-raw-id-order", M + "release/sealing.py", "    recs.sort(key=lambda r: (r.participant, r.recording))", "    recs = [s for _, s in sorted(zip(((r.participant, r.recording) for r in out), recs, strict=True), key=lambda z: z[0])]", "the sealed release writes recordings in raw-id order (positions reveal raw ids)", (KT + "test_recordings_are_written_in_pseudonym_order_never_in_raw_order",)),
    Mutant("baseline-keeps-pupil-channels", "src/gazeprivacy/experiments/baselines.py", "pupil=None, channels={},\n                                extras={}))", "))", "a data-free baseline keeps the input's pupil, channels and per-sample extras", (KT + "test_baselines_keep_no_pupil_channels_or_extras", "tests/experiments/test_baselines.py::test_baselines_read_no_participant_data")),
    Mutant("dpg-participant-output-length-ignored", DPG + "synthesis.py", "                else tuple(_at_output_length(r, params) for r in recs))", "                else recs)", "DPGazeSynth unit='participant' output_length_s ignored: the input's recording lengths are written while the record says one public length", (T + "test_dpgazesynth_output_length.py::test_every_released_recording_has_the_public_length_and_the_record_says_so", T + "test_dpgazesynth_output_length.py::test_cli_output_length_writes_one_length_and_the_record_says_so")),
    Mutant("seal-output-length-unchecked", M + "release/structure.py", "        if wrong:\n            rec, n, want = wrong[0]", "        if False:\n            rec, n, want = wrong[0]", "The writer accepts a release whose record claims one public length while its recordings keep other lengths", (T + "test_dpgazesynth_output_length.py::test_the_writer_refuses_a_record_whose_public_length_does_not_hold",)),
    Mutant("seal-input-rows-beside-public-length", M + "release/structure.py", "        clash = sorted(rows & {str(p) for p in public})", "        clash = []", "The writer lets the raw clock or pupil (the input's lengths) be declared public beside a public length", (T + "test_dpgazesynth_output_length.py::test_the_writer_refuses_a_record_whose_public_length_does_not_hold",)),
    Mutant("dpg-participant-plan-first-recording-only", DPG + "participant_plan.py", "k = rng.choice(int(ends[-1]), size=m, replace=False)", "k = rng.choice(int(n_win[js[0]]), size=m, replace=False)", "DPGazeSynth unit='participant' partition-wise: a participant's m windows drawn from its first recording only (not uniform over its windows in every partition)", ("tests/engines/test_participant_plan.py::test_windows_drawn_from_public_counts_are_those_of_one_process",)),
    Mutant("dpg-participant-plan-streams-not-positioned", DPG + "participant_plan.py", "offsets = np.concatenate([[0], np.cumsum(runs)])", "offsets = np.zeros(len(runs) + 1, dtype=np.int64)", "DPGazeSynth unit='participant' partition-wise: every partition synthesises from the same random numbers (partitions correlated; not the one-process release)", ("tests/engines/test_participant_plan.py::test_release_is_bit_equal_to_one_process_at_a_seed",)),
    Mutant("dpg-participant-plan-m-per-partition-record", DPG + "participant_plan.py", "units = {str(q): int(np.count_nonzero(here == q)) for q in dict.fromkeys(owner)}", "units = {str(q): int(self.params.windows_per_participant) for q in dict.fromkeys(owner)}", "DPGazeSynth unit='participant' partition-wise: each partition records m windows per participant (a spanning participant's record says 2 m windows)", ("tests/engines/test_participant_plan.py::test_release_is_bit_equal_to_one_process_at_a_seed",)),
    Mutant("record-misses-release-only-column", M + "release/sealing.py", "for name in dict.fromkeys([*_input_columns(source), *_input_columns(sealed)]):", "for name in _input_columns(source):", "A column only the release carries is written when declared public but left out of the record", ("tests/mechanisms/test_release.py::test_a_column_only_the_release_carries_is_in_the_record_when_written",)),
    Mutant("callers-table-adopted", "src/gazeprivacy/data/io.py", "with adopt(*cols.values()) if not copy else contextlib.nullcontext():", "with adopt(*cols.values()):", "Recordings share a caller's table, so a later write to the caller's array changes a checked recording", ("tests/data/test_io.py::test_a_callers_table_is_copied_so_later_writes_do_not_reach_the_recordings",)),
    Mutant("oue-q-halved", OUE, "return e / (1.0 + e)", "return e / (1.0 + e) / 2.0", "OUE q = 1 / (e^eps + 1) replaced by half of it (each report leaks more)", (KS + "test_kill_noise.py::test_oue_bits_are_one_half_and_one_over_e_eps_plus_one", OUE + "::gazeprivacy.mechanisms.noise.oue.oue_q", AUD + "[oue-sound]")),
    Mutant("oue-p-0.75", OUE, "bits[rows, v] = u[rows, v] < 0.5", "bits[rows, v] = u[rows, v] < 0.75", "OUE client keeps its true bit with p = 3/4 instead of 1/2", ("tests/mechanisms/noise/test_oue.py::test_client_bits_have_the_oue_probabilities",)),
    Mutant("oue-curator-view-p-0.75", OUE, "rng.binomial(c, 0.5)", "rng.binomial(c, 0.75)", "OUE curator-view path (DPGazeSynth's default) samples true bits with p = 3/4", ("tests/mechanisms/noise/test_oue.py::test_client_reports_and_curator_view_agree_in_distribution",)),
    Mutant("kaleido-no-test-noise", KAL, r"laplace\(0\.0, 1\.0, m\) \* self\._scale", "laplace(0.0, 1.0, m) * 0.0", "Kaleido threshold test without Laplace noise", (KS + "test_kill_kaleido.py::test_threshold_test_noise_has_the_recorded_scale", AUD + "[kaleido-sound]"), regex=True),
    Mutant("kaleido-test-scale-1-over-eps", KALP, r"else self\.radius_deg\) / self\.epsilon_test\(w\)", "else 1.0) / self.epsilon_test(w)", "Kaleido sound mode tests at scale 1 / eps_test instead of r / eps_test", (KS + "test_kill_kaleido.py::test_threshold_test_noise_has_the_recorded_scale", "tests/mechanisms/samples/test_kaleido.py::test_test_noise_scale_sound_and_paper", AUD + "[kaleido-sound]"), regex=True),
    Mutant("kaleido-publish-noise-halved", KAL, r"ox = xi \+ rcos\[t\] / eps_pub\n(\s*)oy = yi \+ rsin\[t\] / eps_pub", r"ox = xi + rcos[t] / (2.0 * eps_pub)\n\1oy = yi + rsin[t] / (2.0 * eps_pub)", "Kaleido published points with half the planar Laplace noise", (KS + "test_kill_kaleido.py::test_published_noise_has_the_planar_laplace_scale",), regex=True, env=PY_LOOP),
    Mutant("kaleido-no-composition", KAL, "eps_pub = (cap - fsum(pub_e)) / 2.0", "eps_pub = cap / 2.0", "Kaleido publishes at eps_rem / 2 without subtracting the window's previous spends", ("tests/mechanisms/samples/test_kaleido.py::test_no_w_consecutive_samples_spend_more_than_epsilon",), env=PY_LOOP),
    Mutant("kaleido-split-no-test-share", KAL, "self._eps_cap = params.epsilon - params.epsilon / params.h", "self._eps_cap = params.epsilon", "Kaleido publishing budget ignores the eps / h reserved for testing", ("tests/mechanisms/samples/test_kaleido.py::test_no_w_consecutive_samples_spend_more_than_epsilon",)),
    Mutant("kaleido-no-clamp", KAL, "if clamp:  # nearest valid point", "if False:  # nearest valid point", "Kaleido published points not clamped to the screen", ("tests/mechanisms/samples/test_kaleido.py::test_outputs_are_clamped_to_the_geometry_and_nan_policy",), env=PY_LOOP),
    Mutant("kaleido-c-publish-noise-halved", KALC, r"double ox = xi \+ rc\[t\] / eps_pub;\n(\s*)double oy = yi \+ rs\[t\] / eps_pub;", r"double ox = xi + rc[t] / (2.0 * eps_pub);\n\1double oy = yi + rs[t] / (2.0 * eps_pub);", "Kaleido's compiled loop publishes with half the planar Laplace noise", (KS + "test_kill_kaleido.py::test_published_noise_has_the_planar_laplace_scale", KEQ), regex=True),
    Mutant("kaleido-c-no-composition", KALC, "*eps_pub = (cap - spent) / 2.0;", "*eps_pub = cap / 2.0;", "Kaleido's compiled loop publishes at eps_rem / 2 without subtracting the window's previous spends", ("tests/mechanisms/samples/test_kaleido.py::test_no_w_consecutive_samples_spend_more_than_epsilon", KEQ)),
    Mutant("kaleido-c-window-short", KALC, "while (h->n && h->idx[h->head] <= gi - w) {", "while (h->n && h->idx[h->head] <= gi - w + 1) {", "Kaleido's compiled loop forgets the oldest publication of the window (w - 2 samples of history)", ("tests/mechanisms/samples/test_kaleido.py::test_no_w_consecutive_samples_spend_more_than_epsilon", KEQ)),
    Mutant("kaleido-c-no-clamp", KALC, "if (p.clamp) {  /* nearest valid point", "if (0) {  /* nearest valid point", "Kaleido's compiled loop does not clamp published points to the screen", ("tests/mechanisms/samples/test_kaleido.py::test_outputs_are_clamped_to_the_geometry_and_nan_policy", KEQ)),
    Mutant("dpg-c-ties-to-the-later-entry", DPGC, "return a->rem > b->rem || (a->rem == b->rem && a->i < b->i);", "return a->rem > b->rem || (a->rem == b->rem && a->i > b->i);", "DPGazeSynth's compiled rounding gives equal remainders' units to the later entry (not numpy's stable order: another release)", (DEQ + "test_the_rounding_gives_ties_to_the_earlier_entry", DEQ + "test_rounding_with_ties_and_empty_groups_is_the_numpy_one")),
    Mutant("dpg-c-cells-not-clamped", DPGC, "k = k < 0.0 ? 0.0 : (k > hi ? hi : k);", "(void)hi;", "DPGazeSynth's compiled client windows do not clamp off-screen points to the grid", ("tests/mechanisms/samples/test_dpgazesynth.py::test_off_screen_points_go_to_the_nearest_cell", DEQ + "test_client_windows_are_the_numpy_ones")),
    Mutant("dpg-c-fill-with-centre", DPGC, "else if (first >= 0) {  /* before the first valid one", "else if (0) {  /* before the first valid one", "DPGazeSynth's compiled missing='fill' fills a window's leading gap with the screen centre, not its first valid sample", (DEQ + "test_client_windows_are_the_numpy_ones",)),
    Mutant("dpg-c-times-noise-halved", DPGC, "noise[t + i] * scale[w];", "noise[t + i] * scale[w] / 2.0;", "DPGazeSynth's compiled run lengths carry half the Laplace noise (eps2 doubled)", (DEQ + "test_released_run_lengths_are_the_numpy_ones",)),
    Mutant("dpg-c-moves-transposed", DPGC, "cell = cell + DROW[d] * g + DCOL[d];", "cell = cell + DCOL[d] * g + DROW[d];", "DPGazeSynth's compiled synthesis moves along the transposed direction", (DEQ + "test_the_whole_release_is_the_numpy_one",)),
    Mutant("planar-laplace-halved", M + "noise/planar_laplace.py", "rng.gamma(2.0, 1.0 / epsilon_per_unit, n)", "rng.gamma(2.0, 0.5 / epsilon_per_unit, n)", "planar Laplace primitive with half the radius (epsilon doubled)", ("tests/mechanisms/noise/test_planar_laplace.py::test_radius_is_gamma_2_and_angle_uniform",)),
    Mutant("planar-laplace-no-clamp", M + "noise/planar_laplace.py", "ox = np.clip(ox, bounds[0], bounds[1])", "ox = ox", "planar Laplace primitive: outputs outside the bounds not clamped", ("tests/mechanisms/noise/test_planar_laplace.py::test_outputs_outside_bounds_are_clamped_not_resampled",)),
    Mutant("laplace-halved", M + "noise/laplace.py", "return rng.laplace(0.0, scale, size)", "return rng.laplace(0.0, scale / 2.0, size)", "Laplace primitive draws at half its scale", (AUD + "[laplace-sound]",)),
    Mutant("gaussian-halved", M + "noise/gaussian.py", "rng.normal(0.0, sigma, values.shape)", "rng.normal(0.0, sigma / 2.0, values.shape)", "Gaussian primitive draws at half its sigma", (KS + "test_kill_noise.py::test_gaussian_mechanism_draws_at_the_calibrated_sigma", AUD + "[gaussian-sound]")),
    Mutant("heatmap-laplace-halved", M + "heatmaps/laplacian.py", "rng.laplace(0.0, b, size=maps.grid.shape)", "rng.laplace(0.0, b / 2.0, size=maps.grid.shape)", "heatmap Laplace noise at half the recorded scale", ("tests/mechanisms/heatmaps/test_heatmap_mechanisms.py::test_noise_has_the_stated_std",)),
    Mutant("heatmap-gaussian-halved", M + "heatmaps/_base.py", "rng.normal(0.0, sigma, size=maps.grid.shape)", "rng.normal(0.0, sigma / 2.0, size=maps.grid.shape)", "heatmap Gaussian noise at half the recorded sigma", ("tests/mechanisms/heatmaps/test_heatmap_mechanisms.py::test_noise_has_the_stated_std",)),
    Mutant("series-lpa-halved", M + "series/lpa.py", "_core.laplace(rng, lam, v.shape[::-1])", "_core.laplace(rng, lam / 2.0, v.shape[::-1])", "series LPA noise at half the Delta_1 / epsilon scale", ("tests/mechanisms/series/test_series_mechanisms.py::test_lpa_noise_has_the_laplace_variance",)),
    Mutant("series-transform-noise-halved", M + "series/_core.py", "return rng.laplace(0.0, 1.0, size=shape) * scale.reshape(", "return rng.laplace(0.0, 0.5, size=shape) * scale.reshape(", "series FPA / DCT / CFPA / DCFPA / LPA noise halved in the shared Laplace draw", ("tests/mechanisms/series/test_series_mechanisms.py::test_fpa_and_dct_noise_energy_matches_the_scale",)),
    Mutant("series-no-clip", M + "series/_core.py", "return np.clip(values, lo, hi)", "return values", "series sound mode does not clip values into the declared range (sensitivity unbounded)", ("tests/mechanisms/series/test_series_mechanisms.py::test_sound_mode_clips_into_declared_ranges",)),
    Mutant("ksame-k-ignored", M + "samples/k_same_synth.py", ("for members in _group_members(dataset, params, group_rng):", "out[i] = None if mean is None else mean[:seqs[i].shape[0]]"), ("for members in [[i] for i in range(len(dataset))]:", "out[i] = seqs[i]"), "k-same-synth: every participant keeps its own parameters (k ignored)", (T + "test_k_same_synth.py::test_groups_release_identical_fixation_centres",)),
    Mutant("ksame-group-of-one-for-missing-type", M + "samples/k_same_synth.py", "if len(voters) >= k:", "if True:", "k-same-synth: a type fewer than k group members have is averaged over those few (k falls to 1)", (T + "test_k_same_synth.py::test_a_type_few_members_have_comes_from_the_population_never_from_one_member", T + "test_k_same_synth.py::test_the_record_k_is_what_every_sequence_averages")),
    Mutant("espd-raw-landing", M + "samples/_event_synthesis.py", r"(?s)target = np\.tile\(public_centre\(recording\), \(se\.size, 1\)\)(.*?)if \(~has_next\)\.any\(\):", r"target = fitted.saccade_landing[si].astype(np.float64)\1if False:", "event-synth-PD / k-same-synth aim a saccade without a following fixation at its raw landing sample", (T + "test_no_raw_positions.py::test_k_same_synth_releases_no_raw_sample_or_landing_point", T + "test_no_raw_positions.py::test_event_synth_pd_releases_no_raw_sample_or_landing_point", T + "test_no_raw_positions.py::test_a_trailing_saccade_direction_does_not_point_at_the_raw_landing"), regex=True),
    Mutant("pupil-copied", M + "release/sealing.py", 'pupil=r.pupil if "pupil" in pub else None', "pupil=r.pupil", "the sealed release carries the raw pupil column without a declaration", ("tests/mechanisms/test_release.py::test_default_release_writes_only_gaze_grid_and_pseudonyms", "tests/cli/test_sealed_release.py::test_no_raw_column_id_or_label_is_written_without_options")),
    Mutant("extra-column-copied", M + "release/sealing.py", "channels = {k: v for k, v in r.channels.items() if k in pub}", "channels = dict(r.channels)", "the sealed release writes undeclared channels (x_px, head pose) unchanged", ("tests/mechanisms/test_release.py::test_default_release_writes_only_gaze_grid_and_pseudonyms", "tests/cli/test_sealed_release.py::test_no_raw_column_id_or_label_is_written_without_options")),
    Mutant("labels-copied", M + "release/sealing.py", "labels={k: v for k, v in r.labels.items() if k in pub}", "labels=dict(r.labels)", "the sealed release writes undeclared labels (gender)", ("tests/mechanisms/test_release.py::test_default_release_writes_only_gaze_grid_and_pseudonyms", "tests/cli/test_sealed_release.py::test_no_raw_column_id_or_label_is_written_without_options")),
    Mutant("mask-revealed-without-declaration", M + "release/sealing.py", 'if g.parameters.get("missing_mask") == "public" and input_gaps != 0:', "if False:", "Kaleido hold mode's release reveals the missing-sample mask while the record lists it as not written", ("tests/mechanisms/test_release.py::test_kaleido_hold_mode_needs_the_mask_declared_public",)),
    Mutant("series-labels-copied", M + "release/sealing.py", "*features, *[c for c in labels if c in pub])", "*features, *labels)", "a sealed feature table writes undeclared labels (gender)", ("tests/mechanisms/test_release.py::test_a_sealed_feature_table_lists_every_written_column_and_drops_labels",)),
    Mutant("raw-clock-written", M + "release/sealing.py", 't = r.t if "t" in pub else', "t = r.t if True else", "the sealed release writes the raw clock (jitter) instead of the public grid", ("tests/mechanisms/test_release.py::test_time_is_the_public_grid_unless_declared",)),
    Mutant("pupil-noise-halved", M + "release/pupil.py", "rng.laplace(0.0, (hi - lo) / epsilon_per_block, n_blocks)", "rng.laplace(0.0, (hi - lo) / epsilon_per_block / 2.0, n_blocks)", "protected pupil: block-mean Laplace at half the scale", ("tests/mechanisms/test_release.py::test_protected_pupil_has_the_laplace_scale_per_block",)),
    Mutant("ids-not-pseudonymised", M + "release/sealing.py", 'participant=ids["participant"][r.participant]', "participant=r.participant", "raw participant ids in the sealed release", ("tests/mechanisms/test_release.py::test_default_release_writes_only_gaze_grid_and_pseudonyms", "tests/cli/test_sealed_release.py::test_no_raw_column_id_or_label_is_written_without_options")),
    Mutant("series-steil-sound-halved", M + "series/steil_exponential.py", "scale = s.n_windows * (hi - lo) / params.epsilon", "scale = s.n_windows * (hi - lo) / (2.0 * params.epsilon)", "series Steil exponential, sound mode: Laplace scale halved", ("tests/mechanisms/series/test_series_mechanisms.py::test_steil_sound_mode_is_laplace_with_the_subsampled_sensitivity",)),
    Mutant("espd-own-participant-counts", M + "samples/_event_synth_pd_privacy.py", "              & (owners != seed_owner[group]))", "              )", "event-synth-PD paper mode (vectorised test): records of the seed's own participant count towards the k - 1 other participants", (T + "test_vectorised.py::test_batch_privacy_test_equals_the_scalar_test",)),
    Mutant("espd-threshold-noise-halved", M + "samples/_event_synth_pd_privacy.py", "rng.laplace(0.0, 1.0 / params.epsilon0, c)", "rng.laplace(0.0, 0.5 / params.epsilon0, c)", "event-synth-PD sound mode: the randomised threshold k + Lap(1 / epsilon0) at half the scale", (KS + "test_kill_event_synth_pd.py::test_threshold_noise_is_laplace_one_over_epsilon0",)),
    Mutant("espd-claim-without-proof-gap", M + "samples/event_synth_pd.py", r'Flag\(FlagCode\.PROOF_GAP,(\s+"\(k, gamma\)-plausible)', r"Flag(FlagCode.PARTIAL_COVERAGE,\1", "event-synth-PD's PD-only claim loses its proof-gap flag (the record says formally private)", (T + "test_event_synth_pd.py::test_guarantee_claims_plausible_deniability_only",), regex=True),
    Mutant("event-gate-always-accepts", "src/gazeprivacy/events/plausibility.py", "    if accept:\n", "    if True:\n", "event mechanisms release on implausible events without --accept-implausible-events", (T + "test_event_synth_gate.py::test_k_same_synth_refuses_implausible_events_and_accepts_with_the_flag",)),
    Mutant("ksame-paper-preset-remodnav", M + "samples/k_same_synth.py", 'group_by="stimulus", event_detector="ivt")', 'group_by="stimulus")', "k-same-synth's paper preset detects events with REMoDNaV instead of seed 001's I-VT", (T + "test_event_synth_gate.py::test_detector_per_mode",)),
    Mutant("heatmap-cap-removed", "src/gazeprivacy/features/gaze_maps.py", "c = self.counts if cap is None else self.capped(cap)", "c = self.counts", "heatmaps: observer maps not capped at m before aggregation (sensitivity unbounded)", ("tests/features/test_heatmap_gaze_maps.py::test_counts_cap_and_aggregate",)),
    Mutant("kaleido-n-test-1", KALP, "return -(-w // self.t_skip_samples)", "return 1", "Kaleido: eps_test = eps / h for every test instead of eps / (h ceil(w / t_skip))", ("tests/mechanisms/samples/test_kaleido.py::test_no_w_consecutive_samples_spend_more_than_epsilon", "tests/mechanisms/samples/test_kaleido.py::test_test_noise_scale_sound_and_paper")),
    Mutant("flags-never-break", "src/gazeprivacy/guarantees.py", "and not any(f.breaks_guarantee for f in self.flags)", "and True", "a record with a proof-gap flag still says formally_private", ("tests/test_guarantees.py::test_flags_break_the_guarantee_but_a_fixed_seed_does_not",)),
    Mutant("compose-removed", "src/gazeprivacy/guarantees.py", "else self.epsilon * n", "else self.epsilon", "per-participant epsilon = per-unit epsilon (composition over units removed)", ("tests/test_guarantees.py::test_sequential_composition_per_participant",)),
    # participant-synth: the bounded contribution, the noise, the noisy-only estimate, the public structure, the declared labels, the conversion
    Mutant("psynth-normalisation-removed", PSM, "return h / total if total > 0 else np.zeros_like(h)", "return h", "participant-synth: a participant's histograms are counts, not normalised (weight grows with their samples and events)", (PST + "test_each_participant_adds_weight_one_per_marginal_whatever_its_recordings",)),
    Mutant("psynth-clipping-removed", PSM, "fx = np.clip((np.asarray(x) - g.x_min_deg) / g.width_deg, 0.0, 1.0 - 1e-12)", "fx = (np.asarray(x) - g.x_min_deg) / g.width_deg", "participant-synth: off-screen points are not clipped into the public grid's border cells", (PST + "test_off_screen_points_are_clipped_into_border_cells",)),
    Mutant("psynth-noise-halved", PS, "noisy[m] = stacked + rng.normal(0.0, sigma, size=stacked.shape)", "noisy[m] = stacked + rng.normal(0.0, sigma / 2, size=stacked.shape)", "participant-synth: the Gaussian noise on every marginal at half the stated sd (rho x4)", (PST + "test_noise_scale_is_sqrt2_over_sqrt_2_rho_share_per_marginal", PST + "test_the_noise_drawn_has_the_stated_spread")),
    Mutant("psynth-prior-weight-raw", PS, "pooled, pooled_f = fit_marginals(params, bins, noisy, prior, 0, float(setup.n_input), POOLED)", "pooled, pooled_f = fit_marginals(params, bins, {m: sum(np.ravel(sums[k][m]) for k in keys)[None, :] for m in noisy if m in POOLED}, prior, 0, float(setup.n_input), POOLED)", "participant-synth: the pooled (spatial) marginals' prior weights and estimates fitted on the raw sums, not the noisy ones", (PST + "test_the_model_depends_on_the_data_only_through_the_noisy_measurement",)),
    Mutant("psynth-weighted-by-recordings", PSM, "stats = {name: share * v for name, v in stats.items()}", "stats = {name: share * len(mine) * v for name, v in stats.items()}", "participant-synth: a participant weighted by their number of recordings", (PST + "test_each_participant_adds_weight_one_per_marginal_whatever_its_recordings",)),
    Mutant("psynth-structure-copied", PS, "output_length_s=float(p.output_length_s),", "output_length_s=float(part.recordings[0].duration_s),", "participant-synth: the released length copied from the input's first recording", (PST + "test_structure_does_not_follow_the_input_rows_recordings_or_order", "tests/test_common.py::test_contract[participant-synth-public_structure]")),
    Mutant("psynth-pooled-scaled-by-keys", PS, "for k in keys)[None, :]", "for k in keys)[None, :] * len(keys)", "participant-synth: the pooled (spatial) row scaled by the number of keys (a participant's contribution above L1 norm 1)", (PST + "test_pooled_marginals_are_measured_once_over_all_keys",)),
    Mutant("psynth-undeclared-label", PS, "keys = [tuple(r.labels[lb] for lb in p.public_labels) for r in recs]", "keys = [tuple(r.labels.values()) for r in recs]", "participant-synth: measures per every label value, declared public or not", (PST + "test_only_declared_labels_are_measured_and_written",)),
    Mutant("psynth-step-weighted-by-steps", PSQ, 'out.update({m: _one_hot(m, v) for m, v in tracker_values(raw).items()})', 'out.update({m: _one_hot(m, v) * (raw["step_counts"].sum() if m == "tracker_step" else 1.0) for m, v in tracker_values(raw).items()})', "participant-synth: the tracker's step histogram weighted by the participant's number of steps (unbounded contribution)", (PST + "test_each_participant_adds_weight_one_per_marginal_whatever_its_recordings", PSQT + "test_extreme_trackers_land_in_the_end_bins_with_weight_one")),
    Mutant("psynth-shrink-saccades", PSTR, 'i = np.flatnonzero(code != EVENT_CODES["saccade"])', "i = np.arange(code.size)", "participant-synth: the fixational shrink also pulls saccade samples toward a chord (saccades and landing points no longer as simulated)", (PSTT + "test_track_shrinks_the_fixational_motion_to_a_released_step_far_below_the_simulators",)),
    Mutant("psynth-noise-ends-nearest", PSTR, 'gaussian_filter1d(a, w, axis=0, mode="wrap")', 'gaussian_filter1d(a, w, axis=0, mode="nearest")', "participant-synth: the tracker's smoothed noise swings wider at each recording's ends", (PSTT + "test_smoothed_track_noise_has_no_wider_ends",)),
    Mutant("psynth-step-unclipped", PSQ, "out[int(np.clip(np.searchsorted(edges, value, side=\"right\") - 1, 0, out.size - 1))] = 1.0", "out[int(np.searchsorted(edges, value, side=\"right\") - 1)] = 1.0", "participant-synth: a tracker value outside the public range not clipped into the end bins", (PSQT + "test_extreme_trackers_land_in_the_end_bins_with_weight_one",)),
    Mutant("psynth-tail-weighted-by-steps", PSQ, 'out.update({m: _one_hot(m, v) for m, v in tracker_values(raw).items()})', 'out.update({m: _one_hot(m, v) * (raw["step_counts"].sum() if m == "tracker_tail" else 1.0) for m, v in tracker_values(raw).items()})', "participant-synth: the tracker's shoulder histogram weighted by the participant's number of steps (unbounded contribution)", (PST + "test_each_participant_adds_weight_one_per_marginal_whatever_its_recordings", PSQT + "test_extreme_trackers_land_in_the_end_bins_with_weight_one", PSQT + "test_the_steps_shoulder_reads_rayleigh_for_white_noise_and_more_for_a_scale_mixture")),
    Mutant("psynth-tail-not-rendered", PSTR, 'unit, a = _heavy(de, white, w, unit, a, target, vals["tracker_tail"], rng, m0)', "pass", "participant-synth: the released shoulder of the steps ignored (plain Gaussian tracker noise)", (PSTT + "test_track_renders_the_released_shoulder_and_keeps_the_median_step",)),
    Mutant("psynth-audit-no-tracker-neighbour", "src/gazeprivacy/audit/participant_synth.py", '_WHERE = {False: ("corner", "centre", "tracker"),', '_WHERE = {False: ("corner", "centre"),', "participant-synth's auditor without the neighbour whose tracker differs: tracker_step, tracker_smooth and tracker_tail unchanged in every audited pair (their audits pass whatever the noise)", ("tests/audit/test_participant_synth_audit.py::test_every_measured_marginal_differs_in_some_audited_pair",)),
    Mutant("psynth-median-even-tie-by-count", PSTR, "if c + settled < self.n or (self.n % 2 == 0 and c == k):", "if c + settled < self.n:", "participant-synth: the tracker's bisections read an even count's median from the count alone when its two middle steps straddle the target (not NumPy's median: releases no longer bit-equal)", (PSTT + "test_the_counted_median_comparison_is_numpys_bit_for_bit",)),
    Mutant("psynth-median-no-band", PSTR, "_BAND = 1e-9", "_BAND = 0.0", "participant-synth: the tracker's bisections trust a rounded squared step length right at the target (not NumPy's median: releases no longer bit-equal)", (PSTT + "test_the_counted_median_comparison_is_numpys_bit_for_bit",)),
    Mutant("psynth-median-even-mean-high", PSTR, "pair = (s[~beyond].max(), s[beyond].min()) if above else (s[beyond].max(), s[~beyond].min())", "pair = (s[~beyond].min(), s[beyond].min()) if above else (s[beyond].max(), s[~beyond].max())", "participant-synth: an even count's median taken from the wrong pair of steps (not NumPy's median)", (PSTT + "test_the_counted_median_comparison_is_numpys_bit_for_bit",)),
    Mutant("psynth-missing-by-samples", PSQ, 'out.update({m: _one_hot(m, v) for m, v in tracker_values(raw).items()})', 'out.update({m: _one_hot(m, v) * (raw["missing_counts"][1] / 100 if m == "tracker_missing" else 1.0) for m, v in tracker_values(raw).items()})', "participant-synth: the missing-share histogram weighted by the participant's sample count", (PST + "test_each_participant_adds_weight_one_per_marginal_whatever_its_recordings", PSQT + "test_extreme_trackers_land_in_the_end_bins_with_weight_one")),
    Mutant("psynth-declared-tracker-ignored", PS, "prior.update(params.declared_trackers[0].centres())", "pass", "participant-synth: a declared tracker not used (the release's tracker is the data-free prior's, its budget spent elsewhere)", (PSDT + "test_the_released_tracker_is_the_declared_one_whatever_the_input",)),
    Mutant("output-sidecar-unprotected", "src/gazeprivacy/_atomic.py", "             if _sidecar(p).exists()]", "             if False]", "the output policy lets an output replace an input's metadata sidecar (INPUT.meta.json): the input no longer reads as it did", ("tests/cli/test_output_policy.py::test_every_writer_refuses_before_any_work[protect-output is the input's sidecar]",)),
    Mutant("psynth-tracker-participant-unchecked", M + "samples/participant_synth.py", "        _check_tracker_is_no_participant(p, part)\n", "", "participant-synth accepts an input that holds the participant a declared tracker was read from: that participant's tracker is written without noise under a DP record", (T + "test_participant_synth_declared_tracker.py::test_a_tracker_read_from_a_participant_of_the_input_is_refused_on_every_path",)),
    Mutant("psynth-declared-tracker-measured", PSP, "object.__setattr__(self, \"split\", self.split.without_tracker())", "pass", "participant-synth: with a declared tracker the input's tracker still measured and its noisy estimate released instead of the declared values (its budget not freed for the other marginals)", (PSDT + "test_a_declared_tracker_frees_its_shares_for_the_other_marginals",)),
    Mutant("psynth-tracker-population-first-only", M + "samples/_participant_synth_render.py", "        if len(trackers) > 1:  # a declared population", "        if False:  # a declared population", "participant-synth: of a declared population of trackers (pilots on several people) only the first is rendered, every synthetic participant the same tracker while the record lists them all", (PSDT + "test_each_synthetic_participant_takes_one_declared_tracker",)),
    Mutant("psynth-tracker-population-per-recording", M + "samples/_participant_synth_render.py", "            x, y = track(sim.x, sim.y, tracker, sampling_rate_hz, rng_j,", "            x, y = track(sim.x, sim.y, dict(trackers[int(rng_j.integers(len(trackers)))]) if len(trackers) > 1 else tracker, sampling_rate_hz, rng_j,", "participant-synth: a synthetic participant's recordings do not keep one tracker of a declared population (each recording draws its own)", (PSDT + "test_each_synthetic_participant_takes_one_declared_tracker",)),
    Mutant("psynth-missing-prior-narrow", PSQ, "(float(logit(0.01)), 2.5)),", "(float(logit(0.01)), 1.5)),", "participant-synth: the missing share's public prior narrower (sd 1.5 on the logit scale): a few participants missing a quarter of their samples are released near the prior's 1 %", (PSQT + "test_a_few_participants_missing_a_quarter_are_not_pulled_to_the_prior",)),
    Mutant("psynth-gap-floor-lost", PSTR, "if share >= _GAP_FLOOR:", "if share > 0.001:", "participant-synth: gaps written for any drawn missing share above 0.1 % (a tracker losing next to nothing gets gaps in half its recordings)", (PSTT + "test_a_share_below_the_floor_writes_no_gap",)),
    Mutant("psynth-gaps-at-random", PSTR, "xy[_gaps(share, xy.shape[0], sampling_rate_hz, rng, code)]", "xy[_gaps(share, xy.shape[0], sampling_rate_hz, rng)]", "participant-synth: gaps placed at random, not at the simulated saccade onsets (the gaze jump across a gap far below real trackers')", (PSTT + "test_gaps_start_at_saccade_onsets_and_keep_the_drawn_share",)),
    Mutant("psynth-split-participant-partial", PSM, "mine[name] = np.concatenate([mine[name], v])", "mine[name] = np.asarray(v, dtype=np.float64)", "participant-synth: a participant split across partitions keeps only its last partition's moment sums (normalised on part of its recordings)", (PST + "test_raw_parts_of_a_split_participant_merge_to_its_whole_statistics", PST + "test_partition_wise_release_is_bit_equal_to_one_process")),
    Mutant("psynth-contrast-not-clipped", PSL, "z = np.clip((feats - mean) / CONTRAST_CLIP, -1.0, 1.0)", "z = (feats - mean) / CONTRAST_CLIP", "participant-synth: a participant's label contrasts are not clipped (its contribution above L2 norm 1/sqrt(2))", (PSLT + "test_a_participants_contrast_has_l2_norm_at_most_one_over_sqrt2",)),
    Mutant("psynth-contrast-noise-halved", PSL, "return {CONTRAST: stacked + rng.normal(0.0, sigma, size=stacked.shape)}", "return {CONTRAST: stacked + rng.normal(0.0, sigma / 2, size=stacked.shape)}", "participant-synth: the label contrast's noise at half the stated sd (its rho x4)", (PSLT + "test_the_contrast_noise_has_the_stated_spread",)),
    Mutant("psynth-contrast-share-not-taken", PSL, "scaled = {m: v * (1.0 - s) for m, v in split.shares().items() if m != CONTRAST}", "scaled = {m: v for m, v in split.shares().items() if m != CONTRAST}", "participant-synth: the label contrast's share spent on top of the other shares (total rho above the stated)", (PSLT + "test_resolved_split_scales_the_other_shares_and_keeps_a_user_share", PSLT + "test_the_record_states_the_resolved_split_and_the_contrast_noise")),
    Mutant("psynth-event-window-ignored", M + "samples/_participant_synth_events.py", "windows = Dataset(tuple(event_window(r, seconds) for r in part), name=part.name)", "windows = part", "participant-synth: events measured on whole recordings whatever event_seconds_per_recording says", (T + "test_participant_synth_events.py::test_a_long_recording_contributes_the_events_of_its_first_t_seconds",)),
    Mutant("psynth-saccade-start-to-end", M + "samples/_participant_synth_events.py", "dx.append(x[b] - x[a])\n        dy.append(y[b] - y[a])", "dx.append(x[off - 1] - x[on])\n        dy.append(y[off - 1] - y[on])", "participant-synth: a saccade's amplitude and direction from its own first to last sample (0 for a one-sample saccade at 30 Hz)", (T + "test_participant_synth_events.py::test_one_sample_saccades_give_their_true_shift_not_zero",)),
    Mutant("psynth-saccade-neighbour-unchecked", M + "samples/_participant_synth_events.py", "a = np.where((on > 0) & ok[before], before, on)", "a = np.where(on > 0, before, on)", "participant-synth: a saccade after a missing sample measured from it (NaN, dropped)", (T + "test_participant_synth_events.py::test_one_sample_saccades_give_their_true_shift_not_zero",)),
    Mutant("psynth-saccade-next-unchecked", M + "samples/_participant_synth_events.py", "b = np.where((off < n) & ok[after], after, off - 1)", "b = np.where(off < n, after, off - 1)", "participant-synth: a saccade before a missing sample measured to it (NaN, dropped)", (T + "test_participant_synth_events.py::test_a_saccade_before_a_missing_sample_ends_at_its_own_last_sample",)),
    Mutant("psynth-event-rate-whole-recording", PSM, "n = event_sample_count(r, event_seconds)", "n = r.n_samples", "participant-synth: the event rate divides the window's events by the whole recording's valid seconds", (T + "test_participant_synth_events.py::test_a_long_recording_contributes_the_events_of_its_first_t_seconds",)),
    Mutant("psynth-centre-share-not-taken", M + "samples/_participant_synth_centre.py", "{m: v * (1.0 - s) for m, v in split.shares().items()", "{m: v for m, v in split.shares().items()", "participant-synth: the centre share's rho spent on top of the other shares (total rho above the stated)", (T + "test_participant_synth_centre.py::test_the_resolved_split_scales_the_others_and_sums_to_at_most_one",)),
    Mutant("psynth-centre-rule-always", M + "samples/_participant_synth_centre.py", "return SHARE if _weight(n, rho, SHARE) >= MIN_WEIGHT else 0.0", "return SHARE", "participant-synth: the centre share spent whatever n and rho (a noise-dominated measurement takes rho from the others)", (T + "test_participant_synth_centre.py::test_the_share_rule_spends_from_the_stated_participant_count",)),
    Mutant("psynth-tracker-posterior-mean-only", PSQ, "return {m: np.array([float(np.clip(marginals[m][0] + marginals[m][1] * g,", "return {m: np.array([float(np.clip(marginals[m][0] + 0.0 * g,", "participant-synth: every synthetic participant's tracker at the posterior's mean (its sd not drawn: one tracker for all where the release is unsure)", (PSQT + "test_participant_tracker_draws_each_centre_from_the_released_posterior", PST + "test_each_synthetic_participant_keeps_its_own_tracker_drawn_from_the_posterior")),
    Mutant("psynth-kernel-uncapped", PSTR, 'w = min(_width(float(np.clip(vals["tracker_smooth"], -1.0, 0.99))), x.size / 8.0)', 'w = _width(float(np.clip(vals["tracker_smooth"], -1.0, 0.99)))', "participant-synth: the tracker's smoothing kernel wider than a short recording (its noise scaled to the drawn step throws the recording thousands of degrees away)", (PSTT + "test_a_short_recording_stays_near_its_eye_signal_whatever_the_smoothing",)),
    Mutant("psynth-tracker-per-recording", M + "samples/_participant_synth_render.py", "x, y = track(sim.x, sim.y, tracker, sampling_rate_hz, rng_j,", "x, y = track(sim.x, sim.y, participant_tracker(models[key].marginals, rng_j), sampling_rate_hz, rng_j,", "participant-synth: the tracker drawn anew for every recording (a synthetic participant's recordings no longer share one)", (PST + "test_each_synthetic_participant_keeps_its_own_tracker_drawn_from_the_posterior",)),
    Mutant("psynth-off-range-kept", M + "samples/_participant_synth_render.py", "            x, y = _in_range(x, y, bins.geometry)", "            pass", "participant-synth: samples a wide drawn tracker throws hundreds of degrees off the screen are written (not set missing)", (PST + "test_a_wildly_noisy_drawn_tracker_loses_the_eye_instead_of_leaving_the_screen",)),
    Mutant("psynth-centre-applied-unspent", M + "samples/_participant_synth_render.py", "return d if v == disc_mass(mean, sd) else with_centre(d, v)", "return with_centre(d, v)", "participant-synth: the centre share applied although nothing was measured (the density's own central mass replaced by its Gaussian's)", (T + "test_participant_synth_centre.py::test_an_unspent_share_leaves_labelled_releases_with_spent_contrasts_alone",)),
    Mutant("psynth-centre-key-takes-share", M + "samples/_participant_synth_centre.py", "    odds = v / (1.0 - v) * (1.0 - v_pop) / v_pop * v_key / (1.0 - v_key)\n    return odds / (1.0 + odds)", "    return v", "participant-synth: a key moved by its label contrast takes the population's share instead of its central excess", (T + "test_participant_synth_centre.py::test_a_key_moved_by_its_contrast_keeps_the_population_s_central_excess",)),
    Mutant("psynth-spread-log-mean-unclipped", PSE, "clipped = float(post @ np.minimum(_LOG_SD_GRID, 0.5 * math.log(SPREAD_CLIP)))", "clipped = float(post @ _LOG_SD_GRID)", "participant-synth: a spread's release is the posterior log-mean of the unclipped sd (the prior's tail beyond the clip, which the measurement cannot tell apart, pushes a noisy release up)", (PST + "test_the_spread_release_is_the_log_mean_of_the_clipped_sd",)),
    Mutant("remodnav-spike-tie-to-left", "src/gazeprivacy/events/_remodnav_fast.py", "closer = np.where(np.abs(prev - cur) < np.abs(nxt - cur), prev, nxt)", "closer = np.where(np.abs(prev - cur) <= np.abs(nxt - cur), prev, nxt)", "REMoDNaV's spike filter (vectorised) replaces a spike by the left neighbour on a tie (the package: the right one)", ("tests/events/test_remodnav_fast.py::test_spike_filter_equals_remodnavs_loop",)),
    Mutant("remodnav-spike-pieces-skip-doubt", "src/gazeprivacy/events/_remodnav_fast.py", "_spike_loop(out[lo:ends[k]], a[lo:ends[k]], first - lo)", "_spike_loop(out[lo:ends[k]], a[lo:ends[k]], first - lo + 1)", "REMoDNaV's spike filter over a recording's segments at once finishes a long chain from the sample after its first one in doubt (that one keeps a stale value)", ("tests/events/test_remodnav_fast.py::test_spike_filter_of_pieces_equals_remodnavs_loop_on_each",)),
    Mutant("remodnav-batch-filter-shifted", "src/gazeprivacy/events/_remodnav_batch.py", "np.maximum(rows - 1 - pads - i, 0)", "np.maximum(rows - pads - i, 0)", "REMoDNaV's stretches between saccades low-passed all at once read each filtered stretch one sample late", ("tests/events/test_remodnav_fast.py::test_fix_or_pursuit_of_all_stretches_at_once_equals_one_at_a_time",)),
    Mutant("remodnav-threshold-upper-median", "src/gazeprivacy/events/_remodnav_fast.py", "med = s[k] / 1 if j % 2 else (s[k - 1] + s[k]) / 2", "med = s[k] / 1", "REMoDNaV's adaptive threshold takes the upper middle speed as the median of an even count (not the mean of the two)", ("tests/events/test_remodnav_fast.py::test_adaptive_thresholds_equal_remodnavs",)),
    Mutant("remodnav-c-peak-ties-reversed", RLC, "return (a->order > b->order) - (a->order < b->order);", "return (a->order < b->order) - (a->order > b->order);", "REMoDNaV's compiled classification takes velocity peaks of equal speed sums in reverse order (Python's sorted keeps their order)", (REQ + "test_crafted_speeds_give_the_python_paths_saccades",)),
    Mutant("remodnav-c-mad-upper-middle", RLC, "return j % 2 ? dev[k] : (dev[k - 1] + dev[k]) / 2;", "return dev[k];", "REMoDNaV's compiled adaptive threshold takes the upper middle deviation as the MAD's median of an even count", (REQ + "test_thresholds_equal_the_python_ones",)),
    Mutant("remodnav-c-lowpass-shifted", RFC, "out[i] = ext[len - 1 - pad - i];", "out[i] = ext[len - 2 - pad - i];", "REMoDNaV's compiled low-pass filter of a stretch between saccades reads the filtered stretch one sample late", ("tests/events/test_remodnav_fast.py::test_fix_or_pursuit_of_all_stretches_at_once_equals_one_at_a_time",)),
    Mutant("remodnav-c-median-mirror", RFC, "t = t < 0 ? -t - 1 : 2 * n - 1 - t;", "t = t < 0 ? -t : 2 * n - 2 - t;", "REMoDNaV's compiled median filter mirrors the samples at a segment's ends about the end sample (SciPy's mode reflect repeats it)", (REQ + "test_preproc_equals_the_python_one",)),
    Mutant("remodnav-c-inner-saccade-margin", RLC, "if (ss - start < c->min_intersac || end - se < c->min_intersac)", "if (ss - start < c->min_intersac - 1 || end - se < c->min_intersac)", "REMoDNaV's compiled classification keeps an inner saccade that starts one sample closer to the stretch's start than the minimum interval between saccades", (REQ + "test_crafted_speeds_give_the_python_paths_saccades",)),
    Mutant("zcdp-conversion-halved", "src/gazeprivacy/accounting/zcdp.py", "best = min(float(res.fun), bun_steinke_epsilon(rho, delta))", "best = min(float(res.fun), bun_steinke_epsilon(rho, delta)) / 2", "rho -> (epsilon, delta) reports half the epsilon (a rho twice the stated budget)", ("tests/accounting/test_zcdp.py::test_matches_opendp_when_installed", "tests/accounting/test_zcdp.py::test_the_infimum_is_found")),
    Mutant("rate-clock-drift", "src/gazeprivacy/data/rates.py", 'return best, "standard"', 'return clock_hz, "standard"', "readers: the release's public rate is the raw clock's (its drift identifies the device) instead of the nominal rate", ("tests/data/test_readers.py::test_a_120_hz_tobii_export_with_a_millisecond_clock_reads_as_120_hz", "tests/data/test_readers.py::test_clock_rates_snap_to_standard_rates_and_odd_ones_are_named")),
    Mutant("tobii-raw-eye-kept", "src/gazeprivacy/data/readers.py", "for c in {pname, rname, tcol, stim, *gaze_cols} if c is not None", "for c in {pname, rname, tcol, stim} if c is not None", "Tobii reader keeps the raw gaze of the eye not read (writable with --public)", ("tests/data/test_readers.py::test_tobii_eyes_and_no_raw_eye_is_kept", "tests/cli/test_protect_inputs.py::test_a_raw_second_eye_is_never_writable")),
    Mutant("forecast-never-loses", "src/gazeprivacy/mechanisms/forecast.py", "    if noise <= base:\n", "    if noise <= 100 * base:\n", "protect stops forecasting that a noise larger than the screen loses to data-free points", ("tests/cli/test_protect_warnings.py::test_a_release_that_loses_to_data_free_points_is_warned_about_twice",)),
    Mutant("membership-no-calibration", "src/gazeprivacy/attacks/membership.py", "score_rec = np.log((d_ref + eps) / (d_rel + eps))", "score_rec = np.log(d_ref + eps)", "the membership attacker's profile view ignores the release (its score is the candidate's typicality only)", ("tests/attacks/test_membership.py::test_each_view_alone_catches_a_copy",)),
    Mutant("membership-signature-ignored", "src/gazeprivacy/attacks/membership.py", '    if "signature" in views:\n', '    if False:\n', "the membership attacker drops its signature view (how people move): a copy of free viewing on shared images is no longer caught", ("tests/experiments/test_frontier_membership.py::test_the_signature_view_catches_a_copy_where_the_profile_view_does_not",)),
    Mutant("membership-signature-no-release", "src/gazeprivacy/attacks/membership_signature.py", "return np.log((d_all.min(axis=1) + eps) / (d_rel + eps))", "return np.log(d_all.min(axis=1) + eps)", "the membership attacker's signature view ignores the release (the candidate's typicality only)", ("tests/attacks/test_membership.py::test_each_view_alone_catches_a_copy",)),
    Mutant("attribute-majority-only", "src/gazeprivacy/attacks/release_attribute.py", "if len(labelled) < len(release) or", "if True or", "the attribute attacker never trains on the labels a release carries", ("tests/attacks/test_membership.py::test_attribute_from_a_copy_is_caught",)),
    Mutant("frontier-fit-holds-everyone", "src/gazeprivacy/experiments/frontier.py", "        else:\n            fit += kept\n", "        fit += kept\n        if p not in held:\n", "the held-out participants' recordings reach the mechanism's input", ("tests/attacks/test_membership.py::test_split_holds_people_out_and_keeps_probes_back",)),
    Mutant("verdict-any-bound", "src/gazeprivacy/report/verdict.py", "eps is not None and eps <= VACUOUS_EPSILON and not g.participant_bound_vacuous", "eps is not None", "the verdict accepts a vacuous per-participant bound", ("tests/report/test_verdict.py::test_the_verdict_is_the_most_private_release_bounded_and_better_than_every_baseline",)),
    Mutant("frontier-verdict-unpaired", "src/gazeprivacy/report/verdict.py", '(pl.col("d").std() / pl.len().sqrt()).alias("difference_se")', '((pl.col("value").std() ** 2 + pl.col("b_value").std() ** 2).sqrt() / pl.len().sqrt()).alias("difference_se")', "the frontier verdict's standard error ignores the pairing by seed (the split's variation counted twice)", ("tests/report/test_verdict.py::test_paired_test_sees_a_win_the_unpaired_means_hide",)),
    Mutant("frontier-verdict-se0", "src/gazeprivacy/report/verdict.py", '.when(pl.col("difference_se") <= _ZERO_SE * (1.0 + pl.col("difference").abs()))', '.when(pl.lit(False))', "the paired verdict calls a difference with standard error 0 (the same on every seed) better", ("tests/report/test_verdict.py::test_a_difference_with_standard_error_zero_is_a_tie_not_a_win", "tests/report/test_verdict.py::test_the_release_must_beat_every_baseline_and_the_record_lists_each")),
    Mutant("frontier-verdict-one-seed", "src/gazeprivacy/report/verdict.py", 'enough = pl.col("n_seeds") >= 2', 'enough = pl.col("n_seeds") >= 1', "the paired verdict judges on a single paired seed", ("tests/report/test_verdict.py::test_fewer_than_two_paired_seeds_give_no_verdict",)),
    Mutant("frontier-verdict-drop-seeds", "src/gazeprivacy/report/verdict.py", 'pl.col("_r_seeds").list.set_difference("_b_seeds")', 'pl.col("_r_seeds").list.set_difference("_r_seeds")', "seeds the baseline lacks are dropped from the pairing without being named", ("tests/report/test_verdict.py::test_seeds_missing_on_one_side_are_named_not_dropped",)),
    Mutant("frontier-line-not-binding", "src/gazeprivacy/report/verdict.py", '.sort("_z").unique(_CELL, keep="first")', '.sort("_z", descending=True).unique(_CELL, keep="first")', "the frontier verdict names the baseline the release is most ahead of, not the binding one the paired test is hardest against", ("tests/report/test_verdict.py::test_the_verdict_line_names_the_binding_baseline_not_the_best_by_mean",)),
    Mutant("evaluate-refusal-catches-data-errors", "src/gazeprivacy/experiments/engine/runner.py", "        return _protect_cell(cell, ctx, data, rng, notes, events=events)\n    except ReleaseRefusedError as exc:", "        return _protect_cell(cell, ctx, data, rng, notes, events=events)\n    except InvalidDataError as exc:", "the runner records any data error of a mechanism as a refusal, a finished cell (a real defect hidden as a documented outcome), not only the documented ReleaseRefusedError", ("tests/experiments/test_failures.py::test_a_failed_cell_is_recorded_and_the_run_goes_on",)),
    Mutant("evaluate-refusal-frontier-stops", "src/gazeprivacy/experiments/engine/runner.py", "    protected = _protect_or_refuse(cell, ctx, split.fit, protect_rng, notes, t0)", "    protected = _protect_cell(cell, ctx, split.fit, protect_rng, notes)", "a frontier cell whose release is refused stops the run instead of being recorded", ("tests/experiments/test_refusal_folds.py::test_a_refused_frontier_release_replaces_the_cells_old_fold_files",)),
    Mutant("evaluate-refusal-population-stops", "src/gazeprivacy/experiments/engine/runner.py", "    protected = _protect_or_refuse(cell, ctx, raw, protect_rng, notes, t0, events=False)", "    protected = _protect_cell(cell, ctx, raw, protect_rng, notes, events=False)", "a synthetic-population cell whose release is refused stops the run instead of being recorded", ("tests/experiments/test_refusal_folds.py::test_a_refused_population_release_and_its_membership_fit_are_recorded",)),
    Mutant("evaluate-refusal-fold-abandons-all", "src/gazeprivacy/experiments/engine/runner.py", "            except ReleaseRefusedError as exc:  # this fold only", "            except ZeroDivisionError as exc:  # this fold only", "a refused membership fold abandons every fold of the cell (computed folds thrown away, the pooled verdicts pool fewer games in silence)", ("tests/experiments/test_refusal_folds.py::test_a_refused_fold_is_recorded_and_the_other_folds_kept",)),
    Mutant("evaluate-stale-folds-kept", "src/gazeprivacy/experiments/engine/runner.py", "            path.unlink()\n", "            pass\n", "a frontier cell computed again keeps an earlier run's fold files, pooled into the verdicts", ("tests/experiments/test_refusal_folds.py::test_a_refused_frontier_release_replaces_the_cells_old_fold_files",)),
    Mutant("frontier-task-gap-without-raw-win", "scripts/frontier_table.py", 'if r["mechanism"] == "none" and r["outcome"] == "better"}', 'if r["mechanism"] == "none"}', "the paired task table gives a share of the raw copy's gap against a baseline the raw copy does not beat (no gap to recover: VR's environment)", ("tests/report/test_verdict.py::test_frontier_table_script_pairs_the_task_on_the_held_out_people",)),
    Mutant("frontier-refused-not-candidates", "src/gazeprivacy/report/verdict.py", "    return joined.filter(keep.fill_null(False)).select(refused.columns)", "    return joined.select(refused.columns)", "the frontier's refused text names releases that are never candidates (no DP claim, above the cap)", ("tests/report/test_verdict.py::test_the_frontier_names_only_refused_candidates",)),
    Mutant("evaluate-refusal-silent", "src/gazeprivacy/experiments/engine/runner.py", 'rows = _rows(cell, "refused", kind, evaluation, {metric: 1.0})', "rows = []", "a refused release leaves no row in the results: the tables drop it in silence", ("tests/experiments/test_refusals.py::test_a_refused_release_is_recorded_and_the_run_goes_on",)),
    Mutant("evaluate-streams-by-position", "src/gazeprivacy/experiments/engine/cells.py", "spawn_key=_release_key(cell)", "spawn_key=(1 + cell.combo,)", "a cell's protection stream is keyed by its position in the config: adding a release before it changes its noise draw", ("tests/experiments/test_cell_streams.py::test_adding_releases_before_a_release_leaves_its_draw_and_results_unchanged",)),
    Mutant("evaluate-stale-scheme-reused", "src/gazeprivacy/experiments/engine/preflight.py", 'if meta.get("streams") != STREAMS:', 'if False:', "a finished cell drawn by another stream scheme (by position) is reused: one run mixes both keyings", ("tests/experiments/test_cell_streams.py::test_a_cell_drawn_by_another_stream_scheme_is_computed_again",)),
    Mutant("evaluate-other-release-reused", "src/gazeprivacy/experiments/engine/preflight.py", 'if meta.get("release") != release_identity(cell):', 'if False:', "a finished cell of another release under the same key (the label's mechanism or preset changed) is reused", ("tests/experiments/test_cell_streams.py::test_a_label_whose_release_changed_is_computed_again",)),
    Mutant("evaluate-failure-stops", "src/gazeprivacy/experiments/engine/failures.py", "    except Exception as exc:  # any error", "    except ZeroDivisionError as exc:  # any error", "a cell that raises stops the whole grid again instead of being written as failed", ("tests/experiments/test_failures.py::test_a_failed_cell_is_recorded_and_the_run_goes_on",)),
    Mutant("evaluate-failure-stale-meta-kept", "src/gazeprivacy/experiments/engine/failures.py", '        (Path(ctx.out_dir) / "cells" / f"{cell.key}.json").unlink(missing_ok=True)', "        pass", "a stale cell computed again that fails keeps its old meta: its old rows stay in the results as if finished", ("tests/experiments/test_failures.py::test_a_stale_cell_that_fails_leaves_no_old_rows",)),
    Mutant("evaluate-failure-folds-pooled", "src/gazeprivacy/experiments/engine/failures.py", '            (Path(ctx.out_dir) / folder / f"{cell.key}.parquet").unlink(missing_ok=True)', "            pass", "a failed cell's fold rows stay and are pooled into the membership and attribute verdicts", ("tests/experiments/test_failures.py::test_a_failed_cell_does_not_pool_its_fold_rows",)),
    Mutant("evaluate-failure-blames-input", "src/gazeprivacy/experiments/engine/failures.py", "_one_line(exc).replace(GAZE_UNIT_HINT, '')}", "_one_line(exc)}", "a failed release's error keeps the data checks' advice, telling the user their gaze is in pixels", ("tests/experiments/test_failures.py::test_the_reason_is_one_line_without_the_unit_advice",)),
    Mutant("demo-failures-ignored", "src/gazeprivacy/experiments/demo.py", "    result.raise_failures()\n", "", "the demo writes its report from a grid with failed cells, as if complete", ("tests/experiments/test_failures.py::test_the_demo_stops_on_a_failed_cell",)),
    Mutant("reproduce-failures-ignored", "src/gazeprivacy/experiments/reproduce/_runs.py", "        res.raise_failures()\n", "", "a reproduction writes its tables from a grid with failed cells, as if complete", ("tests/experiments/test_failures.py::test_a_reproduction_stops_on_a_failed_cell",)),
    Mutant("realism-disc-pooled", "src/gazeprivacy/metrics/realism.py", '    cv = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed_for_sklearn(rng))\n    score = np.full(y.size, np.nan)\n    per_fold, tests = [], []\n    for train, test in cv.split(x, y, groups=groups):\n        if np.unique(y[train]).size < 2 or np.unique(y[test]).size < 2:\n            continue  # a fold without both sides to learn or to score says nothing\n        clf = _boosting(rng, n_iter).fit(x[train], y[train])\n        score[test] = clf.predict_proba(x[test])[:, 1]\n        per_fold.append(_auc(y[test], score[test]))\n        tests.append(test)\n    if not per_fold:\n        raise InvalidDataError("the discriminator found no fold with raw and released windows "\n                               "on both sides of the split")\n    auc = float(np.mean(per_fold))', '    cv = GroupKFold(n_splits=k, shuffle=True, random_state=seed_for_sklearn(rng))\n    score = np.full(y.size, np.nan)\n    per_fold, tests = [], []\n    for train, test in cv.split(x, y, groups=groups):\n        if np.unique(y[train]).size < 2 or np.unique(y[test]).size < 2:\n            continue  # a fold without both sides to learn or to score says nothing\n        clf = _boosting(rng, n_iter).fit(x[train], y[train])\n        score[test] = clf.predict_proba(x[test])[:, 1]\n        per_fold.append(_auc(y[test], score[test]))\n        tests.append(test)\n    if not per_fold:\n        raise InvalidDataError("the discriminator found no fold with raw and released windows "\n                               "on both sides of the split")\n    auc = _auc(y[np.concatenate(tests)], score[np.concatenate(tests)])', "the discriminator as before 2026-11-28: folds not stratified, the out-of-fold scores of different models pooled into one AUC (biased below 0.5 with few people: releases look more real than they are)", ("tests/metrics/test_realism.py::test_discriminator_is_unbiased_when_neither_side_is_a_release",)),
    Mutant("realism-disc-features-ignored", "src/gazeprivacy/metrics/realism.py", "x = np.vstack([_matrix(raw_windows, features), _matrix(release_windows, features)])", "x = np.vstack([_matrix(raw_windows), _matrix(release_windows)])", "the discriminator reads every window feature whatever subset it is given: a group read alone (scripts/realism_features.py --groups) reports all features' AUC", ("tests/metrics/test_realism.py::test_discriminator_reads_only_the_features_it_is_given",)),
    Mutant("psynth-pso-every-rate", "src/gazeprivacy/mechanisms/samples/_participant_synth_render.py", "pso = _PSO_GAIN if sampling_rate_hz >= _PSO_MIN_RATE_HZ else 0.0", "pso = _PSO_GAIN", "participant-synth renders the post-saccadic oscillation below 100 Hz too, where it worsened the detected events and the releases were to stay those of the generator without it", ("tests/mechanisms/samples/test_participant_synth.py::test_saccades_land_with_an_oscillation_from_100_hz_on",)),
    Mutant("sim-pso-drawn-first", "src/gazeprivacy/data/simulate/traits.py", "    u = rng.uniform(size=(n, 8))\n    z = rng.normal(size=(n, 10))\n    # after the others", "    _ = rng.normal(size=n) if pso_gain > 0 else None\n    u = rng.uniform(size=(n, 8))\n    z = rng.normal(size=(n, 10))\n    # after the others", "the oscillation's draw moves ahead of the other traits': asking for it changes every other trait of the simulated people", ("tests/data/test_simulate.py::test_post_saccadic_oscillation_is_opt_in_and_overshoots_each_landing",)),
    Mutant("realism-tstr-sees-test-people", "src/gazeprivacy/metrics/realism.py", "rel_train = (np.isin(g_rel, people) if release_label_of is None", "rel_train = (np.ones(g_rel.size, dtype=bool) if release_label_of is None", "train on release, test on raw trains every fold's model on the release of every participant, the held-out ones included: a release that copies its input reads as useful for any label", ("tests/metrics/test_realism.py::test_tstr_is_at_chance_on_a_label_that_carries_nothing",)),
    Mutant("cli-numpy-bridge-lazy", "src/gazeprivacy/data/recording.py", "\npl.Series([0.0]).to_numpy()\n", "\n", "polars loads NumPy's C API lazily again: a Ctrl-C during the first conversion is a Rust panic, not exit 130", ("tests/cli/test_cli_surface.py::test_importing_the_data_model_loads_numpys_c_api_for_polars",)),
    Mutant("membership-bootstrap-shared", "src/gazeprivacy/report/membership.py", "r = _one_release(rows, copy.deepcopy(rng), n_bootstrap, level)", "r = _one_release(rows, rng, n_bootstrap, level)", "the pooled membership bootstrap draws every release from one stream: a release's interval (and a verdict near its target) moves when another release is added to the run", ("tests/report/test_membership.py::test_a_release_s_interval_does_not_depend_on_the_other_releases_in_the_table",)),
    Mutant("attribute-bootstrap-shared", "src/gazeprivacy/report/attribute.py", "r = _one_release(rows, copy.deepcopy(rng), n_bootstrap, level)", "r = _one_release(rows, rng, n_bootstrap, level)", "the pooled attribute bootstrap draws every release from one stream: a release's interval moves when another release is added to the run", ("tests/experiments/test_frontier_attribute.py::test_a_release_s_interval_does_not_depend_on_the_other_releases_in_the_table",)),
    Mutant("membership-certify-point", "src/gazeprivacy/report/membership.py", "    if high <= target:", "    if (low + high) / 2 <= target:", "the pooled membership verdict certifies on the interval's middle, not its upper end", ("tests/report/test_membership.py::test_few_people_cannot_certify",)),
    Mutant("membership-folds-unbalanced", "src/gazeprivacy/experiments/frontier_membership.py", "groups = np.array_split(rng.permutation(len(people)), n_folds)", "groups = [rng.choice(len(people), size=len(people) // n_folds, replace=False) for _ in range(n_folds)]", "membership folds drawn independently: some participants never a non-member, others twice", ("tests/experiments/test_frontier_membership.py::test_every_participant_is_out_once_per_seed",)),
    Mutant("attribute-folds-one-fold", "src/gazeprivacy/report/attribute.py", 'members = rows.filter(pl.col("member"))', 'members = rows.filter(pl.col("member") & (pl.col("fold") == 0))', "the pooled attribute attack counts the members' answers of one fold per seed only", ("tests/experiments/test_frontier_attribute.py::test_every_fold_and_seed_is_pooled",)),
    Mutant("attribute-folds-score-input", "src/gazeprivacy/experiments/frontier_membership.py", "g = release_attribute_guesses(release, split.member_probes, split.nonmember_probes,", "g = release_attribute_guesses(release, split.fit, split.nonmember_probes,", "the pooled attribute attacker answers the members from the recordings the release was fitted on, not from their probes", ("tests/experiments/test_frontier_attribute.py::test_the_attacker_scores_the_probes_never_the_release_input",)),
    Mutant("attribute-folds-verdict-lax", "src/gazeprivacy/report/attribute.py", "above = excess > max_se * se if se == se else excess > 0", "above = excess > 2 * max_se * se if se == se else excess > 0", "the pooled attribute verdict refutes only at twice the stated number of SE above chance", ("tests/experiments/test_frontier_attribute.py::test_the_verdict_refutes_above_2_se_or_an_interval_above_0_else_not_detected",)),
    Mutant("attribute-folds-interval-ignored", "src/gazeprivacy/report/attribute.py", 'return "refuted" if above or low > 0 else NOT_DETECTED', 'return "refuted" if above else NOT_DETECTED', "the pooled attribute verdict ignores an interval that lies above chance", ("tests/experiments/test_frontier_attribute.py::test_the_verdict_refutes_above_2_se_or_an_interval_above_0_else_not_detected",)),
    Mutant("attribute-independence-ignored", "src/gazeprivacy/report/attribute.py", 'return "refuted" if "refuted" in (over_majority, over_independent) else NOT_DETECTED', "return over_majority", "the pooled attribute verdict reads the excess over the majority share only: an attacker whose answers follow the person but score under that share passes", ("tests/experiments/test_frontier_attribute.py::test_an_attacker_below_the_majority_share_whose_answers_follow_the_person_is_refuted",)),
    Mutant("attribute-main-independent-squared", "src/gazeprivacy/attacks/release_attribute.py", "return float(sum(q[c] * p[c] for c in q) / len(answers) ** 2)", "return float(sum(p[c] * p[c] for c in p) / len(answers) ** 2)", "the main split's independent chance uses the members' value shares twice (sum p_c^2, a forest that learned nothing) instead of the attacker's answer shares: answers that follow the person are measured against the wrong chance", ("tests/attacks/test_membership.py::test_independent_chance_is_the_accuracy_of_answers_that_ignore_the_person",)),
    Mutant("attribute-folds-no-copy-plain", "src/gazeprivacy/report/attribute.py", '.when(pl.col("copy_caught").is_null()).then(pl.lit(NO_COPY))', '.when(pl.col("copy_caught").is_null()).then(pl.col("verdict"))', "a run with no raw copy gets a plain pooled attribute verdict, its attacker unchecked", ("tests/experiments/test_frontier_attribute.py::test_a_run_without_a_raw_copy_is_unchecked_and_several_copy_rows_do_not_duplicate",)),
    Mutant("membership-no-copy-plain", "src/gazeprivacy/report/membership.py", 'pl.when(certified & pl.col("copy_caught").is_null()).then(pl.lit(NO_COPY))', 'pl.when(pl.lit(False)).then(pl.lit(NO_COPY))', "a run with no raw copy gets a plain pooled membership certificate, its attacker unchecked", ("tests/report/test_membership.py::test_no_plain_certificate_without_a_raw_copy_and_copy_rows_do_not_duplicate",)),
)


def _versions(m: Mutant) -> list[tuple[str, str]]:
    snips = (m.snippet,) if isinstance(m.snippet, str) else tuple(m.snippet)
    reps = (m.replacement,) if isinstance(m.replacement, str) else tuple(m.replacement)
    if len(snips) != len(reps):
        raise ValueError(f"mutant {m.id}: {len(snips)} snippets but {len(reps)} replacements")
    return list(zip(snips, reps, strict=True))


def _hits(snippet: str, text: str, regex: bool) -> list[int]:
    if regex:
        return [x.start() for x in re.finditer(snippet, text)]
    return [i for i in range(len(text)) if text.startswith(snippet, i)]


def apply(m: Mutant, text: str) -> tuple[str | None, str]:
    """The mutated text, or None and why the snippet does not apply (0 or several matches).

    A mutant may list one snippet per code version (a tuple, with as many replacements): the
    first that matches exactly once is used.
    """
    why = []
    for snippet, replacement in _versions(m):
        hits = _hits(snippet, text, m.regex)
        if len(hits) == 1:
            if m.regex:
                return re.sub(snippet, replacement, text, count=1), ""
            return text.replace(snippet, replacement, 1), ""
        where = ", ".join(f"line {text.count(chr(10), 0, h) + 1}" for h in hits[:5])
        why.append(f"{'regex' if m.regex else 'snippet'} {snippet!r} matches {len(hits)} times"
                   + (f" ({where})" if hits else closest(snippet, m.regex, text)))
    if not text:
        return None, f"{m.file} does not exist; re-target the mutant"
    return None, f"in {m.file}: " + "; ".join(why) + "; re-target the mutant"


def closest(snippet: str, regex: bool, text: str) -> str:
    """Where the snippet probably went: the most similar line of the file."""
    plain = re.sub(r"\\(.)", r"\1", snippet) if regex else snippet
    lines = [ln.strip() for ln in text.splitlines()]
    best = difflib.get_close_matches(plain.strip().splitlines()[0] if plain.strip() else "",
                                     lines, n=1, cutoff=0.4)
    if not best:
        return " (no similar line)"
    return f" (closest: line {lines.index(best[0]) + 1}: {best[0]!r})"


def copy_tree(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".hypothesis")
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dest / name)


def run_tests(tree: Path, tests: tuple[str, ...], timeout: float,
              extra_env: tuple[tuple[str, str], ...] = ()) -> tuple[int, str, str]:
    """Run ``tests`` in ``tree``: (0 if all pass, name of the first failure, log)."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONDONTWRITEBYTECODE": "1",
           **dict(extra_env)}
    log: list[str] = []
    nodes = [t for t in tests if not t.startswith("cmd:")]
    if nodes:
        cmd = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider",
               "-x", "-q", "-rfE", "--no-header", *nodes]
        p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True,
                           timeout=timeout)
        log.append(p.stdout + p.stderr)
        if p.returncode != 0:
            first = re.search(r"^(?:FAILED|ERROR) (\S+)", p.stdout, re.M)
            return p.returncode, first.group(1) if first else f"pytest exit {p.returncode}", \
                "\n".join(log)
    for t in tests:
        if t.startswith("cmd:"):
            p = subprocess.run(t[4:], shell=True, cwd=tree, env=env, capture_output=True,
                               text=True, timeout=timeout)
            log.append(p.stdout + p.stderr)
            if p.returncode != 0:
                return p.returncode, t, "\n".join(log)
    return 0, "", "\n".join(log)


def read(file: str) -> str:
    path = ROOT / file
    return path.read_text() if path.is_file() else ""


def missing_tests(m: Mutant) -> list[str]:
    """Mapped pytest nodes whose file, or whose test function, is not in the tree."""
    out = []
    for t in m.tests:
        if t.startswith("cmd:"):
            continue
        file, _, node = t.partition("::")
        text = read(file)
        name = node.split("[")[0].split("::")[-1]
        if not text or (name.startswith("test") and f"def {name}(" not in text):
            out.append(t)
    return out


def run_mutant(m: Mutant, timeout: float) -> Outcome:
    mutated, why = apply(m, read(m.file))
    if m.pending and (mutated is None or missing_tests(m) or not m.tests):
        return Outcome(m, "pending", detail=m.pending)
    if mutated is None:
        return Outcome(m, "not-applicable", detail=why)
    try:
        if m.file.endswith(".py"):
            compile(mutated, m.file, "exec")
    except SyntaxError as e:
        return Outcome(m, "invalid", detail=f"the edit does not compile: {e}")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"mutant-{m.id}-") as tmp:
        tree = Path(tmp)
        copy_tree(tree)
        (tree / m.file).write_text(mutated)
        if m.file.endswith(".c") and (why := rebuild(tree, m.file, timeout)):
            return Outcome(m, "invalid", detail=why)
        try:
            rc, first, log = run_tests(tree, m.tests, timeout, m.env)
        except subprocess.TimeoutExpired:
            return Outcome(m, "timeout", seconds=time.perf_counter() - t0,
                           detail=f"mapped tests ran over {timeout:g} s")
    dt = time.perf_counter() - t0
    if rc == 0:
        return Outcome(m, "survived", seconds=dt, log=log)
    return Outcome(m, "killed", killed_by=first, seconds=dt, log=log)


def rebuild(tree: Path, file: str, timeout: float) -> str:
    """Compile the mutated C extension in place in ``tree`` (``setup.py inplace``): "" or why
    not. The copied extension is deleted first, so a failed build cannot test the original."""
    stem = Path(file).with_suffix("")
    for old in (tree / stem.parent).glob(stem.name + ".*.so"):
        old.unlink()
    p = subprocess.run([sys.executable, "setup.py", "inplace"], cwd=tree,
                       capture_output=True, text=True, timeout=timeout)
    if not list((tree / stem.parent).glob(stem.name + ".*.so")):
        return f"the mutated C extension does not build: {(p.stdout + p.stderr)[-500:]}"
    return ""


def runnable(m: Mutant) -> bool:
    """Not pending, or pending but its target and its tests are on this branch."""
    return not m.pending or (apply(m, read(m.file))[0] is not None and not missing_tests(m)
                             and bool(m.tests))


def baseline(mutants: list[Mutant], timeout: float) -> tuple[bool, float, str]:
    """The union of the mapped tests on the unmutated copy, per environment: must pass."""
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mutant-baseline-") as tmp:
        copy_tree(Path(tmp))
        for env in dict.fromkeys(m.env for m in mutants):
            tests = tuple(dict.fromkeys(t for m in mutants if runnable(m) and m.env == env
                                        for t in m.tests))
            rc, first, log = run_tests(Path(tmp), tests, timeout, env)
            if rc:
                return False, time.perf_counter() - t0, first + "\n" + log
    return True, time.perf_counter() - t0, ""


def table(outcomes: list[Outcome]) -> str:
    rows = ["| mutant | edit (file) | status | killed by (first failing test) | time (s) |",
            "|---|---|---|---|---|"]
    for o in outcomes:
        m = o.mutant
        by = f"`{o.killed_by}`" if o.killed_by else (o.detail or "-")
        t = f"{o.seconds:.1f}" if o.seconds else "-"
        rows.append(f"| `{m.id}` | {m.description} (`{m.file.removeprefix('src/gazeprivacy/')}`)"
                    f" | {o.status} | {by} | {t} |")
    return "\n".join(rows)


def write_doc(text: str) -> None:
    doc = DOC.read_text()
    block = f"{DOC_BEGIN}\n{text}\n{DOC_END}"
    if DOC_BEGIN in doc and DOC_END in doc:
        pre, rest = doc.split(DOC_BEGIN, 1)
        doc = pre + block + rest.split(DOC_END, 1)[1]
    else:
        doc = doc.rstrip("\n") + "\n\n## Mutation gate\n\n" + block + "\n"
    DOC.write_text(doc)


def source(file: str, ref: str | None) -> str:
    """The text of ``file`` in the working tree, or at git revision ``ref`` (read-only)."""
    if ref is None:
        return read(file)
    p = subprocess.run(["git", "show", f"{ref}:{file}"], cwd=ROOT, capture_output=True,
                       text=True)
    return p.stdout if p.returncode == 0 else ""


def check_only(mutants: list[Mutant], ref: str | None = None) -> int:
    bad = 0
    for m in mutants:
        mutated, why = apply(m, source(m.file, ref))
        if m.pending:
            state = "pending, applies" if mutated is not None else "pending"
            print(f"{state:17} {m.id}: {m.pending}")
            continue
        print(f"{'applies' if mutated else 'NOT APPLICABLE':17} {m.id}"
              + (f": {why}" if why else ""))
        bad += mutated is None
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=None,
                    help="run the mutants whose id contains this text (repeatable)")
    ap.add_argument("--jobs", type=int, default=2, help="mutants run in parallel (default 2)")
    ap.add_argument("--timeout", type=float, default=TIMEOUT_S, help="seconds per mutant")
    ap.add_argument("--check", action="store_true", help="only check that the snippets apply")
    ap.add_argument("--ref", default=None,
                    help="with --check: read the files at this git revision (e.g. a branch "
                         "about to be merged) instead of the working tree")
    ap.add_argument("--write-doc", action="store_true",
                    help="write the table into docs/audit.md (section 'Mutation gate')")
    ap.add_argument("--verbose", action="store_true", help="print the log of survivors")
    ap.add_argument("--against", action="append", default=None, metavar="TEST",
                    help="run every mutant against these tests instead of its mapped ones "
                         "(to find which tests of a suite kill which mutants)")
    args = ap.parse_args(argv)
    mutants = [m for m in MUTANTS if not args.only or any(s in m.id for s in args.only)]
    if args.against:
        mutants = [replace(m, tests=tuple(args.against)) for m in mutants]
    ids = [m.id for m in MUTANTS]
    if len(set(ids)) != len(ids):
        print("duplicate mutant ids", file=sys.stderr)
        return 2
    if args.check:
        return check_only(mutants, args.ref)
    t0 = time.perf_counter()
    ok, dt, log = baseline(mutants, args.timeout)
    print(f"baseline (unmutated, mapped tests): {'pass' if ok else 'FAIL'} in {dt:.1f} s",
          file=sys.stderr)
    if not ok:
        print(log, file=sys.stderr)
        return 1
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = list(pool.map(lambda m: run_mutant(m, args.timeout), mutants))
    return report(outcomes, time.perf_counter() - t0, args)


def report(outcomes: list[Outcome], total: float, args: argparse.Namespace) -> int:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
        if o.status != "killed" and o.status != "pending":
            print(f"{o.status.upper()}: {o.mutant.id}: {o.detail or o.mutant.description}",
                  file=sys.stderr)
            if args.verbose and o.log:
                print(o.log[-3000:], file=sys.stderr)
    summary = (", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
               + f"; {total:.0f} s in all with {args.jobs} processes (load average "
               f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the end)")
    text = table(outcomes) + f"\n\n{summary}."
    print(text)
    if args.write_doc:
        write_doc(text)
    bad = sum(v for k, v in counts.items() if k not in ("killed", "pending"))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
