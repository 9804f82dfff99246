# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The faster REMoDNaV parts equal the installed ``remodnav`` package's, bit for bit: the
spike filter, the adaptive thresholds, the NaN-free stretches and whole event lists."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.events import _remodnav_fast as fast
from gazeprivacy.events import remodnav as ours

clf_module = pytest.importorskip("remodnav.clf")
UPSTREAM_FILTER = clf_module.filter_spikes


def _bits(a) -> bytes:
    return np.asarray(a, dtype=np.float64).tobytes()


def _upstream_filter(a: np.ndarray) -> np.ndarray:
    data = np.rec.fromarrays([a.copy(), a.copy()], names=["x", "y"])
    return np.asarray(UPSTREAM_FILTER(data)["x"])


def _signals(rng: np.random.Generator) -> list[np.ndarray]:
    zigzag = np.tile([0.0, 1.0], 200) + np.linspace(0, 1e-3, 400)  # one long chain
    ties = np.round(rng.standard_normal(300) * 2) / 2  # equal distances and equal values
    ties[rng.random(300) < 0.1] = -0.0
    holes = rng.standard_normal(300).cumsum()
    holes[rng.random(300) < 0.05] = np.nan
    gaze = simulate_dataset(n_participants=1, tasks=("free-viewing",), duration_s=20.0,
                            sampling_rate_hz=100, rng=np.random.default_rng(1))[0].x
    return [zigzag, ties, holes, gaze[np.isfinite(gaze)], rng.standard_normal(5000),
            *(rng.standard_normal(n) for n in range(7))]


def test_spike_filter_equals_remodnavs_loop():
    rng = np.random.default_rng(0)
    for a in _signals(rng):
        assert _bits(fast.spike_filtered(a)) == _bits(_upstream_filter(a))


def test_spike_filter_of_pieces_equals_remodnavs_loop_on_each():
    """All pieces at once (a recording's segments, x and y): each as REMoDNaV's loop on it
    alone, including a chain longer than the passes (the sequential finish, per piece), empty
    and one- to six-sample pieces, NaN and ties."""
    rng = np.random.default_rng(2)
    pieces = _signals(rng)
    pieces = [*pieces, pieces[0][:50].copy(), np.tile([3.0, -3.0], 40), *pieces[::-1]]
    got = fast.spike_filtered_pieces(pieces)
    assert len(got) == len(pieces)
    for a, g in zip(pieces, got, strict=True):
        assert _bits(g) == _bits(_upstream_filter(a))
    assert fast.spike_filtered_pieces([]) == []


@pytest.mark.parametrize("noise_factor", [5.0, 7.0])
def test_adaptive_thresholds_equal_remodnavs(noise_factor):
    """Against the package's own method and statsmodels' MAD (no replacement at all), on
    speeds with NaN, ties, too few values below the start and none."""
    from remodnav import EyegazeClassifier

    clf = EyegazeClassifier(px2deg=1.0, sampling_rate=100.0, noise_factor=noise_factor)
    rng = np.random.default_rng(1)
    cases = [np.abs(rng.standard_normal(n) * 40) for n in (1, 2, 3, 10, 101, 2000)]
    cases += [np.round(np.abs(rng.standard_normal(200)) * 3), np.full(50, 400.0),
              np.concatenate([[0.0, np.nan], np.abs(rng.standard_normal(80)) * 900]),
              np.zeros(30), np.array([0.0, 0.0, 10.0])]
    with warnings.catch_warnings():  # (an empty median's warnings: REMoDNaV's own)
        warnings.simplefilter("ignore", RuntimeWarning)
        for v in cases:
            want = clf.get_adaptive_saccade_velocity_velthresh(v)
            got = fast.adaptive_thresholds(clf, v)
            assert _bits(got) == _bits(want), v[:5]


def test_nan_free_runs_are_remodnavs_stretches():
    x = np.array([np.nan, 1, 2, np.nan, np.nan, 3, 4, 5, np.nan, 6])
    got = fast.nan_free_runs(x, 0, 10)
    assert got == [(1, 3), (5, 8), (9, 10)]
    assert fast.nan_free_runs(x, 2, 7) == [(2, 3), (5, 7)]
    assert fast.nan_free_runs(x, 4, 4) == [] and fast.nan_free_runs(x, 5, 8) == [(5, 8)]


def _events(kind, filter_spikes, pp_input, clf_args):
    """REMoDNaV's preprocessing and event list for one segment with ``kind`` as classifier."""
    orig = fast.filter_spikes
    fast.filter_spikes = filter_spikes
    try:
        with ours._quiet():
            clf, s = ours._classifier(*clf_args, kind=kind or fast.fast_classifier_type())
            data = np.rec.fromarrays([pp_input[0].copy(), pp_input[1].copy()], names=["x", "y"])
            pp = clf.preproc(data, min_blink_duration=0.0, dilate_nan=0.0,
                             median_filter_length=(s["median"] + 0.5) / clf.sr,
                             savgol_length=(s["savgol"] + 0.5) / clf.sr if s["savgol"] else 0.0,
                             savgol_polyord=2, max_vel=1000.0)
            pp = pp.view(np.ndarray).view(np.dtype([(f, pp.dtype[f]) for f in pp.dtype.names]))
            return pp.tobytes(), clf(pp, classify_isp=True, sort_events=True)
    finally:
        fast.filter_spikes = orig


def _same_events(a, b):
    assert len(a) == len(b)
    for ea, eb in zip(a, b, strict=True):
        assert ea.keys() == eb.keys()
        for k in ea:
            if isinstance(ea[k], str) or ea[k] is None:
                assert ea[k] == eb[k], k
            else:
                assert _bits(ea[k]) == _bits(eb[k]), (k, ea, eb)


@pytest.mark.parametrize("rate", [60.0, 100.0, 500.0])
@pytest.mark.parametrize("nan", [False, True], ids=["gap_free", "nan_stretch"])
def test_whole_event_lists_equal_remodnavs(rate, nan):
    """Every event (label, bounds, positions, amplitude and speeds) of the fast classifier
    equals that of ``remodnav.EyegazeClassifier`` with its own spike filter (both with the
    module's low-pass filter and peak-finder fixes), on simulated free viewing with pursuit,
    gap-free (as :func:`remodnav_codes` feeds it) or with a NaN stretch inside (REMoDNaV's own
    NaN handling: then it finds no saccade in its first pass)."""
    from remodnav import EyegazeClassifier

    from gazeprivacy.events.synthetic_pursuit import add_pursuit

    r = simulate_dataset(n_participants=1, tasks=("free-viewing",), duration_s=12.0,
                         sampling_rate_hz=rate, rng=np.random.default_rng(4),
                         ground_truth=True)[0]
    r = add_pursuit(r, pursuit_share=0.3, rng=np.random.default_rng(5))
    ok = np.isfinite(r.x)
    x, y = r.x[ok], r.y[ok]
    if nan:
        x[len(x) // 2:len(x) // 2 + int(rate // 10)] = np.nan
        y[np.isnan(x)] = np.nan
    args = (ours.RemodnavParams.for_rate(rate), rate)
    pp_fast, ev_fast = _events(None, fast.filter_spikes, (x, y), args)
    pp_ref, ev_ref = _events(EyegazeClassifier, UPSTREAM_FILTER, (x, y), args)
    assert pp_fast == pp_ref
    labels = {e["label"] for e in ev_ref}
    assert len(ev_ref) > 40 and labels >= {"FIXA", "ISAC", "PURS", *(() if nan else ("SACC",))}
    _same_events(ev_fast, ev_ref)


@pytest.mark.parametrize("rate", [60.0, 100.0, 250.0])
@pytest.mark.parametrize("path", ["compiled", "python"])
def test_remodnav_codes_equal_with_remodnavs_classifier(monkeypatch, rate, path):
    """The lean event records (below 200 Hz: no PSO search, labels and bounds only) and the
    whole ones (250 Hz) give the codes of REMoDNaV's own classifier and spike filter, with
    the compiled classification (when built) and without it (the Python path)."""
    from remodnav import EyegazeClassifier

    from gazeprivacy.events import _remodnav_compiled as compiled

    if path == "python":
        monkeypatch.setattr(compiled, "KERNEL", None)
    ds = simulate_dataset(n_participants=2, tasks=("free-viewing", "reading"), duration_s=8.0,
                          sampling_rate_hz=rate, rng=np.random.default_rng(6))
    params = ours.RemodnavParams.for_rate(rate)
    got = [ours.remodnav_codes(r, params, 0.1) for r in ds]
    monkeypatch.setattr(ours, "_classifier", functools.partial(ours._classifier,
                                                               kind=EyegazeClassifier))
    monkeypatch.setattr(fast, "filter_spikes", UPSTREAM_FILTER)
    want = [ours.remodnav_codes(r, params, 0.1) for r in ds]
    for (c1, s1, i1), (c2, s2, i2) in zip(got, want, strict=True):
        assert np.array_equal(c1, c2) and np.array_equal(s1, s2) and i1 == i2


def _peaks_loop(vels, threshold):
    """The sample-by-sample ``find_peaks`` of REMoDNaV 1.1.2 with the module's fix (a run from
    the first sample to the end is kept): the reference for the run-by-run version."""
    out, on = [], None
    for i in range(len(vels)):
        if on is None and vels[i] > threshold:
            on = i
        elif on is not None and vels[i] < threshold:
            v = vels[on:min(len(vels), i + 1)]
            out.append([on, i, v[~np.isnan(v)]])
            on = None
    if on is not None:
        v = vels[on:]
        out.append([on, len(vels) - 1, v[~np.isnan(v)]])
    return out


def test_find_peaks_equals_the_sample_loop():
    """Including samples equal to the threshold and NaN (they neither start nor end a run),
    runs at the start and at the end, none, and REMoDNaV's own result where its bug does not
    apply (no run starting at sample 0)."""
    rng = np.random.default_rng(8)
    for n in (*range(0, 8), 50, 400):
        for _ in range(60):
            v = np.round(rng.random(n) * 4)  # many values equal to the threshold 2
            v[rng.random(n) < 0.1] = np.nan
            want = _peaks_loop(v, 2.0)
            got = ours._find_peaks(v, 2.0)
            assert [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in want]
            assert all(type(a) is int and type(b) is int for a, b, _ in got)
            assert all(_bits(x) == _bits(y) for (_, _, x), (_, _, y) in zip(got, want,
                                                                             strict=True))
            if n and not v[0] > 2.0:
                up = clf_module.find_peaks(v, 2.0)
                assert [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in up]


def test_detection_does_not_import_statsmodels_and_remodnav_keeps_its_mad():
    """REMoDNaV is imported with a stand-in for statsmodels' scale module (its MAD is replaced
    during our calls); called directly afterwards it still computes statsmodels' MAD."""
    from gaze_helpers import after_detection_in_a_fresh_process

    out = after_detection_in_a_fresh_process(
        "print(sorted(m for m in sys.modules if m.startswith(('statsmodels', 'pandas'))))\n"
        "import remodnav.clf\n"
        "v = np.random.default_rng(1).random(99)\n"
        "from statsmodels.robust.scale import mad\n"
        "print(remodnav.clf.mad(v) == mad(v), 'statsmodels.robust.scale' in sys.modules)\n")
    assert out[:2] == ["[]", "True True"], out


@pytest.mark.parametrize("rate", [60.0, 100.0, 500.0])
@pytest.mark.parametrize("path", ["compiled", "python"])
def test_fix_or_pursuit_of_all_stretches_at_once_equals_one_at_a_time(monkeypatch, rate, path):
    """The lean classifier's batch (every stretch as a row, zeros after it; or each stretch
    in the compiled module when built) gives each stretch's events of ``_fix_or_pursuit`` one
    at a time: stretches of 1 to 3 samples (no filter; a padding shorter than the filter's),
    long ones, and pursuit (some with pursuit from start to end)."""
    from gazeprivacy.events import _remodnav_batch as batch
    from gazeprivacy.events import _remodnav_compiled as compiled

    if path == "python":
        monkeypatch.setattr(compiled, "KERNEL", None)
    from gazeprivacy.events.synthetic_pursuit import add_pursuit

    r = simulate_dataset(n_participants=1, tasks=("free-viewing",), duration_s=10.0,
                         sampling_rate_hz=rate, rng=np.random.default_rng(7),
                         ground_truth=True)[0]
    r = add_pursuit(r, pursuit_share=0.4, rng=np.random.default_rng(8))
    ok = np.isfinite(r.x)
    data = np.rec.fromarrays([r.x[ok], r.y[ok], np.ones(int(ok.sum()))],
                             names=["x", "y", "vel"])
    n = len(data)
    rng = np.random.default_rng(9)
    cuts = np.unique(np.concatenate([[0, 1, 2, 4, 7, n], rng.integers(8, n, 60)]))
    windows = list(zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True))
    with ours._quiet():
        clf, _ = ours._classifier(ours.RemodnavParams.for_rate(rate), rate,
                                  kind=fast.fast_classifier_type())
        want = [(e["label"], e["start_time"], e["end_time"]) for a, b in windows
                for e in clf._fix_or_pursuit(data, a, b)]
        got = batch.fix_or_pursuit_all(clf, data, [w for w in windows
                                                   if w[1] - w[0] >= clf.min_fix_dur])
    assert got == want
    assert {"FIXA", "PURS"} <= {g[0] for g in got}
