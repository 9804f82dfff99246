# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""A deep re-identification attacker in the style of Eye Know You Too (EKYT).

Lohr & Komogortsev, "Eye Know You Too: Toward Viable End-to-End Eye Movement Biometrics for
User Authentication", IEEE TIFS 17, 2022. EKYT embeds windows of horizontal and vertical
angular velocity with a 1-D DenseNet trained with the multi-similarity loss; a person is
enrolled by the mean embedding of their windows and a probe is scored by cosine similarity.
This module follows that design at a size that trains in seconds to minutes on one CPU core;
it is an attacker of the same *kind*, not a reproduction of EKYT's numbers.

**Input** (as EKYT): per recording, velocities from a Savitzky-Golay differentiator (7 samples,
order 2, in deg/s; missing samples are bridged linearly for the filter and reset to missing
afterwards), clipped to +-1000 deg/s, z-scored per channel with the statistics of the split's
training windows, missing samples set to 0 (the mean). Windows of ``window_s`` seconds with a
stride of half a window, inside the attack's units (whole recordings or segments, exactly as
:func:`~gazeprivacy.attacks.aware.aware_reidentification` cuts and splits them); a unit shorter
than one window contributes none.

**Network** (smaller than EKYT's, for CPU time): one dense block of ``_N_LAYERS`` = 6
BatchNorm-ReLU-Conv1d layers (kernel 3, growth ``_GROWTH`` = 16 channels per layer, dilations
1, 2, 4, ..., 32: a receptive field of 127 samples; the first layer sees the raw input, as in
EKYT), BatchNorm-ReLU, global average pooling and a linear layer to a ``_EMBED_DIM`` = 64
dimensional embedding. EKYT uses 8 layers of growth 32, dilations up to 64 and 128 dimensions
on 5 s windows at 1000 Hz.

**Loss** (as EKYT): multi-similarity loss with its miner (Wang et al., CVPR 2019; alpha 2,
beta 50, base 0.5, mining margin 0.1, the defaults of pytorch-metric-learning, which EKYT
uses) plus 0.1 x cross-entropy of a BatchNorm-ReLU-linear classifier on the embedding. The
loss is written out here (twenty lines) rather than adding pytorch-metric-learning as a
dependency. Batches hold ``_BATCH_CLASSES`` = 16 participants x ``_BATCH_SAMPLES`` = 16 windows
(EKYT's 16 x 16; fewer participants when the data have fewer); an epoch is as many batches as
cover the training windows once. Adam with a one-cycle learning rate (peak 0.01, as EKYT).

**Scoring** (same keys as the aware attacker, so the runner and the report treat both alike).
Embeddings are L2-normalised; a unit's embedding is the normalised mean of its windows'. The
gallery is each participant's centroid over the *training side's* units (``train_data``), the
probes are the test units of ``test_data``. ``unit_accuracy``: nearest centroid per test unit;
``recording_accuracy``: cosine similarities averaged per recording; ``identification_rate``:
averaged per participant (as the aware attacker scores it); ``f1_macro`` over units; ``chance``
= 1 / participants. ``DeepResult.eer`` is the equal error rate of verifying a test unit against
each enrolled centroid (EKYT's headline measure, not a results-table metric).

**Budget.** ``epochs`` passes, at most ``max_windows`` training windows per split (a random
subset), and optionally ``time_budget_s`` seconds of training per split. With a fixed ``rng``
and the first two, results are reproducible (torch runs in a forked RNG with one thread); a
time budget that binds makes them depend on the machine (``DeepResult.stopped_by_time``).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from scipy.ndimage import correlate1d
from sklearn.metrics import f1_score, roc_curve

from gazeprivacy._optional import import_optional
from gazeprivacy._validation import check_int, check_positive
from gazeprivacy.attacks.aware import DEFAULT_SEGMENT_S, AwareResult, split_units, units_of
from gazeprivacy.data.recording import Dataset, Recording
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["DEFAULT_WINDOW_S", "DeepResult", "deep_reidentification", "velocity_channels"]

DEFAULT_WINDOW_S = 2.0
CLIP_DEG_S = 1000.0
_SAVGOL_SAMPLES = 7
#: The Savitzky-Golay first-derivative weights (7 samples, order 2; order 1 gives the same), in
#: closed form: ``k / sum(k^2)`` for ``k = -3..3``. Not ``scipy.signal.savgol_coeffs``: it
#: solves a least-squares problem whose last bits depend on the CPU's BLAS kernel, so its middle
#: weight is +-1e-17 instead of 0 on some machines, and a constant signal then has a velocity of
#: +-1e-15 deg/s (and ``-0.0``) instead of 0, which the per-channel z-score blows up to 1e23.
_SAVGOL_D1 = np.arange(-3, 4) / 28.0
_N_LAYERS = 6
_GROWTH = 16
_EMBED_DIM = 64
_BATCH_CLASSES = 16
_BATCH_SAMPLES = 16
_MAX_LR = 0.01
_W_CLASS = 0.1
_MS_ALPHA, _MS_BETA, _MS_BASE, _MS_MARGIN = 2.0, 50.0, 0.5, 0.1


@dataclass(frozen=True)
class DeepResult(AwareResult):
    """Scores of the deep attack (the fields of :class:`AwareResult`) and its training."""

    window_s: float
    epochs_run: float  # mean over splits
    n_train_windows: float  # mean over splits
    stopped_by_time: bool  # the time budget cut some split's training short
    n_probes: int  # test units scored, summed over splits
    eer: float  # equal error rate of unit-vs-centroid verification, mean over splits

    def metrics(self) -> dict[str, float]:
        """As :meth:`AwareResult.metrics`, but ``unit_accuracy_se`` is at least the binomial
        standard error over all probes (the split spread is 0 with one split)."""
        out = super().metrics()
        p = self.unit_accuracy
        out["unit_accuracy_se"] = max(out["unit_accuracy_se"],
                                      float(np.sqrt(p * (1 - p) / max(1, self.n_probes))))
        return out


def velocity_channels(rec: Recording) -> np.ndarray:
    """``(2, n)`` horizontal and vertical velocity (deg/s), clipped to +-1000, NaN where the
    gaze is missing (see the module docstring).

    >>> from gazeprivacy.data import Recording
    >>> rec = Recording.from_arrays(recording="r", participant="p", x=np.arange(100) * 0.1,
    ...                             y=np.zeros(100), sampling_rate_hz=100)
    >>> v = velocity_channels(rec)
    >>> v.shape, round(float(v[0, 50]), 6), round(float(v[1, 50]), 6)
    ((2, 100), 10.0, 0.0)
    """
    n = rec.n_samples
    out = np.full((2, n), np.nan)
    for c, v in enumerate((rec.x, rec.y)):
        ok = np.isfinite(v)
        if ok.sum() < _SAVGOL_SAMPLES:
            continue
        idx = np.arange(n)
        filled = np.interp(idx, idx[ok], v[ok])
        vel = correlate1d(filled, _SAVGOL_D1, mode="nearest")  # savgol_filter(..., deriv=1)
        vel = np.clip(vel * float(rec.sampling_rate_hz), -CLIP_DEG_S, CLIP_DEG_S)
        vel[~ok] = np.nan
        out[c] = vel + 0.0  # no negative zero (a still channel is 0.0 on every machine)
    return out


def _windows(dataset: Dataset, units: pl.DataFrame, window_s: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """Windows ``(m, 2, w)`` of every unit and the unit row each belongs to."""
    recs = {r.recording: r for r in dataset.recordings}
    rates = {float(r.sampling_rate_hz) for r in recs.values()}
    if len(rates) != 1:
        raise InvalidDataError(f"the deep attacker needs one sampling rate, got {sorted(rates)}")
    w = max(8, round(window_s * rates.pop()))
    stride = max(1, w // 2)
    vel: dict[str, np.ndarray] = {}
    wins, owner = [], []
    for i, (rid, a, b) in enumerate(units.select("recording", "start", "stop").iter_rows()):
        if rid not in recs:
            raise InvalidDataError(f"the dataset lacks recording {rid!r} of the attack's units")
        if rid not in vel:
            vel[rid] = velocity_channels(recs[rid])
        for s in range(a, b - w + 1, stride):
            wins.append(vel[rid][:, s:s + w])
            owner.append(i)
    if not wins:
        return np.zeros((0, 2, w), dtype=np.float32), np.zeros(0, dtype=np.int64)
    return np.stack(wins).astype(np.float32), np.asarray(owner, dtype=np.int64)


def _build(torch: Any, n_classes: int) -> Any:
    nn = torch.nn

    class _Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layers, ch = [], 2
            for i in range(_N_LAYERS):
                conv = nn.Conv1d(ch, _GROWTH, 3, padding="same", dilation=2 ** i, bias=False)
                nn.init.kaiming_normal_(conv.weight, nonlinearity="relu")
                layers.append(conv if i == 0 else nn.Sequential(nn.BatchNorm1d(ch), nn.ReLU(),
                                                                conv))
                ch += _GROWTH
            self.block = nn.ModuleList(layers)
            self.head = nn.Sequential(nn.BatchNorm1d(ch), nn.ReLU())
            self.embed = nn.Linear(ch, _EMBED_DIM)
            self.classify = nn.Sequential(nn.BatchNorm1d(_EMBED_DIM), nn.ReLU(),
                                          nn.Linear(_EMBED_DIM, n_classes))

        def forward(self, x: Any) -> Any:
            for layer in self.block:
                x = torch.cat([x, layer(x)], dim=1)
            return self.embed(self.head(x).mean(dim=2))

    return _Net()


def _ms_loss(torch: Any, emb: Any, labels: Any) -> Any:
    """Multi-similarity loss with its pair miner (Wang et al. 2019, eqs. 4 and 7)."""
    e = torch.nn.functional.normalize(emb, dim=1)
    sim = e @ e.T
    same = labels[:, None] == labels[None, :]
    eye = torch.eye(len(labels), dtype=torch.bool)
    pos, neg = same & ~eye, ~same
    inf = torch.tensor(float("inf"))
    min_pos = torch.where(pos, sim, inf).min(dim=1, keepdim=True).values
    max_neg = torch.where(neg, sim, -inf).max(dim=1, keepdim=True).values
    pos = pos & (sim - _MS_MARGIN < max_neg)  # hard positives
    neg = neg & (sim + _MS_MARGIN > min_pos)  # hard negatives
    zero = torch.zeros(len(labels), 1)
    lp = torch.where(pos, -_MS_ALPHA * (sim - _MS_BASE), -inf)
    ln = torch.where(neg, _MS_BETA * (sim - _MS_BASE), -inf)
    loss = (torch.logsumexp(torch.cat([zero, lp], dim=1), dim=1) / _MS_ALPHA
            + torch.logsumexp(torch.cat([zero, ln], dim=1), dim=1) / _MS_BETA)
    return loss.mean()


def _batches(y: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """One epoch of P x K batches (participants x windows each, with replacement when a
    participant has fewer windows)."""
    classes = np.unique(y)
    by_class = {c: np.flatnonzero(y == c) for c in classes}
    p = min(_BATCH_CLASSES, classes.size)
    n_batches = max(1, int(np.ceil(y.size / (p * _BATCH_SAMPLES))))
    out = []
    for _ in range(n_batches):
        chosen = rng.choice(classes, size=p, replace=False)
        out.append(np.concatenate([
            rng.choice(by_class[c], size=_BATCH_SAMPLES,
                       replace=by_class[c].size < _BATCH_SAMPLES) for c in chosen]))
    return out


def _train(x: np.ndarray, y: np.ndarray, *, epochs: int, time_budget_s: float | None,
           rng: np.random.Generator) -> tuple[Any, int, bool]:
    """Train the embedder; returns (net in eval mode, epochs run, stopped by time)."""
    torch = import_optional("torch")
    seed = int(rng.integers(0, 2**31 - 1))
    plan = [_batches(y, rng) for _ in range(epochs)]
    steps = sum(len(b) for b in plan)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    t0 = time.monotonic()
    done, stopped = 0, False
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            net = _build(torch, int(y.max()) + 1)
            opt = torch.optim.Adam(net.parameters(), lr=_MAX_LR / 25)
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=_MAX_LR, total_steps=steps)
            xt, yt = torch.from_numpy(x), torch.from_numpy(y)
            net.train()
            for epoch in plan:
                for idx in epoch:
                    xb, yb = xt[idx], yt[idx]
                    emb = net(xb)
                    loss = (_ms_loss(torch, emb, yb) + _W_CLASS
                            * torch.nn.functional.cross_entropy(net.classify(emb), yb))
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    sched.step()
                done += 1
                if time_budget_s is not None and time.monotonic() - t0 > time_budget_s:
                    stopped = done < epochs
                    break
    finally:
        torch.set_num_threads(threads)
    return net.eval(), done, stopped


def _embed(net: Any, x: np.ndarray, batch: int = 512) -> np.ndarray:
    torch = import_optional("torch")
    out = []
    with torch.no_grad():
        for s in range(0, x.shape[0], batch):
            out.append(net(torch.from_numpy(x[s:s + batch])).numpy())
    e = np.concatenate(out) if out else np.zeros((0, _EMBED_DIM), dtype=np.float32)
    # float64: squaring a float32 embedding overflows from |e| ~ 1e19 (an input far outside
    # the training windows' range); a non-finite one is scaled to its largest entries
    e = np.nan_to_num(e.astype(np.float64), nan=0.0, posinf=1e300, neginf=-1e300)
    e /= np.maximum(np.abs(e).max(axis=1, keepdims=True), 1e-300)
    return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12)


def _mean_rows(e: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Normalised mean of the rows of ``e`` per distinct key."""
    uniq, inv = np.unique(keys, return_inverse=True)
    tot = np.zeros((uniq.size, e.shape[1]))
    np.add.at(tot, inv, e)
    return uniq, tot / np.maximum(np.linalg.norm(tot, axis=1, keepdims=True), 1e-12)


def _channel_stats(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel mean and standard deviation of the finite values (0 and 1 when a channel
    has none or is constant, e.g. a release that is all missing or all at one point, or
    varies by less than 1e-9 deg/s)."""
    with warnings.catch_warnings():  # an all-missing channel: handled below
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(x, axis=(0, 2))
        std = np.nanstd(x, axis=(0, 2))
    std = np.nan_to_num(std, nan=1.0)
    # a spread below 1e-9 deg/s is rounding, not movement: scaling by it would blow the
    # other split's windows up to 1e20 and more
    return np.nan_to_num(mean), np.where(std > 1e-9, std, 1.0)


def _normalise(x: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    z = (x - mean[None, :, None]) / std[None, :, None]
    return np.nan_to_num(z, nan=0.0).astype(np.float32)


def _eer(sim: np.ndarray, truth_col: np.ndarray) -> float:
    """Equal error rate of verification: a probe's similarity to its own centroid (genuine)
    against those to every other centroid (impostors)."""
    genuine = np.zeros_like(sim, dtype=bool)
    genuine[np.arange(sim.shape[0]), truth_col] = True
    if genuine.all():
        return float("nan")
    fpr, tpr, _ = roc_curve(genuine.ravel(), sim.ravel())
    i = int(np.argmin(np.abs(fpr - (1 - tpr))))
    return float((fpr[i] + 1 - tpr[i]) / 2)


def _one_split(tr: tuple[np.ndarray, np.ndarray], te: tuple[np.ndarray, np.ndarray],
               units: pl.DataFrame, is_test: np.ndarray, *, epochs: int,
               max_windows: int | None, time_budget_s: float | None,
               rng: np.random.Generator) -> tuple[list[float], int, int, bool, int]:
    """Scores ``[identification, recording, unit, f1, eer]`` of one split, epochs run, training
    windows, whether the time budget stopped training, and test units scored."""
    part = units["participant"].to_numpy()
    train_w = np.flatnonzero(~is_test[tr[1]])
    if max_windows is not None and train_w.size > max_windows:
        train_w = np.sort(rng.choice(train_w, size=max_windows, replace=False))
    classes, y = np.unique(part[tr[1][train_w]], return_inverse=True)
    test_w = np.flatnonzero(is_test[te[1]])
    missing = sorted(set(part[is_test]) - set(classes))
    if missing or test_w.size == 0:
        raise InvalidDataError(
            f"not enough windows: {len(missing)} participant(s) have no training window "
            f"(e.g. {missing[:3]}) or the probes have none; give a shorter window_s, longer "
            "recordings or a larger max_windows")
    raw = tr[0][train_w]
    mean, std = _channel_stats(raw)
    net, done, stopped = _train(_normalise(raw, mean, std), y.astype(np.int64), epochs=epochs,
                                time_budget_s=time_budget_s, rng=rng)
    _, gallery = _mean_rows(_embed(net, _normalise(raw, mean, std)), y)
    u_keys, u_emb = _mean_rows(_embed(net, _normalise(te[0][test_w], mean, std)),
                               te[1][test_w])
    sim = u_emb @ gallery.T  # test units x classes
    truth = part[u_keys]
    pred = classes[sim.argmax(axis=1)]
    scores = []
    for keys in (truth, units["recording"].to_numpy()[u_keys]):
        _, pooled = _mean_rows(sim, keys)
        _, inv = np.unique(keys, return_index=True)
        scores.append(float(np.mean(classes[pooled.argmax(axis=1)] == truth[inv])))
    scores += [float(np.mean(pred == truth)),
               float(f1_score(truth, pred, labels=np.unique(truth), average="macro",
                              zero_division=0)), _eer(sim, np.searchsorted(classes, truth))]
    return scores, done, int(train_w.size), stopped, int(u_keys.size)


def deep_reidentification(train_data: Dataset, test_data: Dataset, index: pl.DataFrame, *,
                          rng: np.random.Generator, n_splits: int = 5,
                          test_fraction: float = 0.25, segment_s: float | None = None,
                          window_s: float = DEFAULT_WINDOW_S, epochs: int = 30,
                          max_windows: int | None = None,
                          time_budget_s: float | None = None) -> DeepResult:
    """Re-identification by an EKYT-style DenseNet embedding of velocity windows.

    Parameters
    ----------
    train_data, test_data : Dataset
        The attacker's training (and enrolment) side and its probes, with the same recording
        ids: the release twice for the aware attacker, raw then release for a raw-trained one.
    index : polars.DataFrame
        The split universe (:func:`~gazeprivacy.attacks.splits.recording_index`).
    rng : numpy.random.Generator
        Drives the splits, the window subsets, the batches and the network's initialisation.
    n_splits : int >= 1
        Train / test splits; the network is trained afresh in each (default 5: training is the
        cost).
    test_fraction : float in (0, 1)
    segment_s : float > 0, optional
        Units as :func:`~gazeprivacy.attacks.aware.aware_reidentification` cuts them.
    window_s : float > 0
        Window length in seconds (default 2 s; stride half a window).
    epochs : int >= 1
        Passes over the training windows.
    max_windows : int >= 1, optional
        At most this many training windows per split (a random subset).
    time_budget_s : float > 0, optional
        Stop a split's training after the epoch that exceeds this many seconds (results then
        depend on the machine's speed; see :attr:`DeepResult.stopped_by_time`).

    Returns
    -------
    DeepResult

    Raises
    ------
    InvalidDataError
        Some participant has no training window or the probes have none (recordings or
        segments shorter than ``window_s``), or the data mix sampling rates.
    InvalidParameterError
        A non-positive ``window_s`` / ``time_budget_s`` or an ``epochs`` / ``n_splits`` /
        ``max_windows`` below 1.
    MissingDependencyError
        PyTorch is not installed (``pip install 'gazeprivacy[deep]'``).
    """
    check_int(n_splits=n_splits, minimum=1)
    check_int(epochs=epochs, minimum=1)
    check_positive(window_s=window_s)
    if max_windows is not None:
        check_int(max_windows=max_windows, minimum=2)
    if time_budget_s is not None:
        check_positive(time_budget_s=time_budget_s)
    if segment_s is not None:
        check_positive(segment_s=segment_s)
    if not 0 < test_fraction < 1:
        raise InvalidParameterError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    import_optional("torch")  # fail before any work
    single = int(index.group_by("participant").len()["len"].min()) < 2
    seg = segment_s if segment_s is not None else (DEFAULT_SEGMENT_S if single else None)
    units = units_of(test_data, segment_s=seg)
    units = units.filter(pl.col("recording").is_in(index["recording"].to_list()))
    tr, te = _windows(train_data, units, window_s), _windows(test_data, units, window_s)
    out, runs, sizes, stopped, probes = [], [], [], False, 0
    for child in rng.spawn(n_splits):
        is_test = split_units(units, index, test_fraction, child)
        if is_test.all() or not is_test.any():
            raise InvalidDataError("the split left one side without units; give more "
                                   "recordings or a shorter segment_s")
        s, done, n_tr, stop, n_pr = _one_split(tr, te, units, is_test, epochs=epochs,
                                         max_windows=max_windows,
                                         time_budget_s=time_budget_s, rng=child)
        out.append(s)
        runs.append(done)
        sizes.append(n_tr)
        stopped |= stop
        probes += n_pr
    a = np.array(out)
    n_part = index["participant"].n_unique()
    return DeepResult(
        identification_rate=float(a[:, 0].mean()), identification_rate_std=float(a[:, 0].std()),
        recording_accuracy=float(a[:, 1].mean()), unit_accuracy=float(a[:, 2].mean()),
        unit_accuracy_std=float(a[:, 2].std()), f1_macro=float(a[:, 3].mean()),
        chance=1.0 / n_part, n_participants=n_part, n_splits=n_splits,
        unit="segment" if seg is not None else "recording", window_s=float(window_s),
        epochs_run=float(np.mean(runs)), n_train_windows=float(np.mean(sizes)),
        stopped_by_time=stopped, n_probes=probes, eer=float(np.nanmean(a[:, 4])))
