# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Conditional VAE of saccade velocity profiles (David-John et al., TVCG 2023, section 4.3.1).

Architecture as in the paper (Fig. 3): the input is a 30-step velocity profile concatenated with
the condition ``c = (amplitude, duration, participant one-hot)``; the encoder is one fully
connected layer of 32 units with ReLU, giving 64 outputs (mean and log-variance of a 32-d latent);
the decoder is one linear fully connected layer of 96 units on ``[z, c]`` followed by the linear
read-out to the 30 steps (two linear maps, i.e. a linear decoder, as printed).

Training settings are in the paper's supplement, which we do not have; ours (documented in
``docs/privacy/event-synth-pd.md``): profiles scaled by 1/1000 deg/s (the PMF range), amplitude
by 1/30 deg and duration by 1/0.1 s; loss = summed squared error + KL divergence; Adam, learning
rate 3e-3, batch 128, ``epochs`` passes (default 60). Optionally (``max_profiles``,
``patience``, ``anneal``) it trains on a random subsample, anneals the learning rate to zero
along a cosine and stops early on the loss of held-out profiles (``validation_size`` of them,
drawn first), keeping the best epoch's weights. Training runs in
a forked torch RNG seeded from the caller's generator, single-threaded, so it is deterministic
for a seed (:func:`gazeprivacy._torch.train_loop`).

PyTorch is an optional extra (``pip install 'gazeprivacy[deep]'``) imported lazily.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gazeprivacy._optional import import_optional
from gazeprivacy._torch import train_loop
from gazeprivacy.events.models import PROFILE_STEPS
from gazeprivacy.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["SaccadeCVAE"]

PROFILE_SCALE = 1000.0
AMPLITUDE_SCALE = 30.0
DURATION_SCALE = 0.1
LATENT = 32
#: Most one-hot condition entries (rows x participants) that :meth:`SaccadeCVAE.sample` builds
#: at once: it decodes in chunks of rows, so thousands of participants' saccades stay small.
_COND_BUDGET = 1 << 22


def _loss(net: Any, xb: Any, cb: Any, eps: Any = None) -> Any:
    """Mean per profile of the summed squared error plus the KL divergence (``eps``: the
    latent's standard normal draw, fresh when not given). ``cb`` holds compact conditions
    (amplitude, duration, participant index), expanded to the one-hot ones here, one minibatch
    at a time: the network sees the same values as with the whole one-hot array, which is
    profiles x participants (GBs for thousands of participants)."""
    torch = import_optional("torch")
    one_hot = torch.nn.functional.one_hot(cb[:, 2].long(), net.n_part).to(cb.dtype)
    recon, mu, logvar = net(xb, torch.cat([cb[:, :2], one_hot], dim=1), eps)
    rec = ((recon - xb) ** 2).sum()
    kl = -0.5 * (1 + logvar - mu**2 - logvar.exp()).sum()
    return (rec + kl) / len(xb)


def _build(n_cond: int) -> Any:
    torch = import_optional("torch")
    nn = torch.nn

    class _Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.n_part = n_cond - 2  # participants (the one-hot part of a condition)
            self.enc = nn.Sequential(nn.Linear(PROFILE_STEPS + n_cond, 32), nn.ReLU(),
                                     nn.Linear(32, 2 * LATENT))
            self.dec = nn.Sequential(nn.Linear(LATENT + n_cond, 96), nn.Linear(96, PROFILE_STEPS))

        def forward(self, x: Any, c: Any, eps: Any = None) -> tuple[Any, Any, Any]:
            h = self.enc(torch.cat([x, c], dim=1))
            mu, logvar = h[:, :LATENT], h[:, LATENT:]
            eps = torch.randn_like(mu) if eps is None else eps
            z = mu + eps * torch.exp(0.5 * logvar)
            return self.dec(torch.cat([z, c], dim=1)), mu, logvar

    return _Net()


@dataclass
class SaccadeCVAE:
    """Train on saccade profiles and decode new ones for a condition (scikit-learn style).

    Parameters
    ----------
    epochs : int
        Passes over the training profiles.
    learning_rate : float
        Adam step size.
    batch_size : int
        Minibatch size.
    max_profiles : int, optional
        Train on a random subsample of at most this many profiles (default: all).
    patience : int, optional
        Early stopping: hold out ``validation_size`` profiles (at most a fifth of them), score
        them after each epoch (summed squared error + KL, one fixed latent draw) and stop after
        ``patience`` epochs without improvement, keeping the best epoch's weights (``epochs``
        is then the most passes). Default: no hold-out, exactly ``epochs`` passes.
    validation_size : int
        Held-out profiles for early stopping.
    anneal : bool
        Anneal the learning rate to zero along a cosine over the ``epochs`` passes.
    """

    epochs: int = 60
    learning_rate: float = 3e-3
    batch_size: int = 128
    max_profiles: int | None = None
    patience: int | None = None
    validation_size: int = 5000
    anneal: bool = False
    participants_: tuple[str, ...] = field(default=(), init=False)
    net_: Any = field(default=None, init=False, repr=False)
    loss_: list[float] = field(default_factory=list, init=False, repr=False)
    val_loss_: list[float] = field(default_factory=list, init=False, repr=False)

    def _cond(self, amplitude_deg: np.ndarray, duration_s: np.ndarray,
              participants: np.ndarray) -> np.ndarray:
        index = {p: i for i, p in enumerate(self.participants_)}
        unknown = sorted({str(p) for p in participants} - set(index))
        if unknown:
            raise InvalidParameterError(
                f"participant(s) {unknown[:5]} were not in the C-VAE's training data")
        # amplitude, duration, one-hot participant, built in place (float32 from the start:
        # rows x participants is the largest array of a many-participant dataset)
        out = np.zeros((len(participants), 2 + len(self.participants_)), dtype=np.float32)
        out[:, 0] = np.asarray(amplitude_deg) / AMPLITUDE_SCALE
        out[:, 1] = np.asarray(duration_s) / DURATION_SCALE
        out[np.arange(len(participants)), [2 + index[str(p)] for p in participants]] = 1.0
        return out

    def _compact(self, amplitude_deg: np.ndarray, duration_s: np.ndarray,
                 participants: np.ndarray) -> np.ndarray:
        """``(n, 3)`` float32: the two scaled conditions of :meth:`_cond` and the participant's
        index (exact in float32 up to 2^24 participants), for :func:`_loss` to expand."""
        index = {p: i for i, p in enumerate(self.participants_)}
        out = np.empty((len(participants), 3), dtype=np.float32)
        out[:, 0] = np.asarray(amplitude_deg) / AMPLITUDE_SCALE
        out[:, 1] = np.asarray(duration_s) / DURATION_SCALE
        out[:, 2] = [index[str(p)] for p in participants]
        return out

    def fit(self, profiles: np.ndarray, amplitude_deg: np.ndarray, duration_s: np.ndarray,
            participants: np.ndarray, *, rng: np.random.Generator) -> SaccadeCVAE:
        """Fit on ``(n, 30)`` profiles (deg/s) with their conditions; returns ``self``."""
        import_optional("torch")  # fail early when the extra is missing
        profiles = np.asarray(profiles, dtype=np.float64)
        if profiles.ndim != 2 or profiles.shape[1] != PROFILE_STEPS or profiles.shape[0] < 2:
            raise InvalidDataError(f"C-VAE training needs an (n >= 2, {PROFILE_STEPS}) profile "
                                   f"array, got {profiles.shape}")
        if not np.all(np.isfinite(profiles)):
            raise InvalidDataError("C-VAE training profiles contain NaN or infinite values")
        self.participants_ = tuple(dict.fromkeys(str(p) for p in participants))
        amplitude_deg, duration_s = np.asarray(amplitude_deg), np.asarray(duration_s)
        participants = np.asarray(participants, dtype=object)
        x = (profiles / PROFILE_SCALE).astype(np.float32)
        n = x.shape[0]
        n_val = min(self.validation_size, n // 5) if self.patience is not None else 0
        validate = None
        self.val_loss_ = []
        # compact conditions (one-hot per minibatch in _loss), only for the rows used
        train = np.arange(n)
        if n_val > 0 or (self.max_profiles is not None and n > self.max_profiles):
            order = rng.permutation(n)
            val, rest = order[:n_val], order[n_val:]
            train = np.sort(rest[:self.max_profiles] if self.max_profiles else rest)
            if n_val > 0:
                validate = self._validator(x[val], self._compact(
                    amplitude_deg[val], duration_s[val], participants[val]), rng)
            x = x[train]
        cond = self._compact(amplitude_deg[train], duration_s[train], participants[train])
        self.net_, self.loss_ = train_loop(
            lambda torch: _build(2 + len(self.participants_)), (x, cond), _loss,
            epochs=self.epochs, batch_size=self.batch_size, learning_rate=self.learning_rate,
            rng=rng, validate=validate, patience=self.patience, anneal=self.anneal)
        return self

    def _validator(self, x: np.ndarray, cond: np.ndarray, rng: np.random.Generator) -> Any:
        """The held-out loss of a network, with one latent draw fixed for every epoch (common
        random numbers, so epochs compare without sampling noise); records it in
        ``val_loss_``."""
        torch = import_optional("torch")
        xv, cv = torch.from_numpy(x), torch.from_numpy(cond)
        eps = torch.from_numpy(rng.standard_normal((x.shape[0], LATENT)).astype(np.float32))

        def validate(net: Any) -> float:
            value = float(_loss(net, xv, cv, eps=eps))
            self.val_loss_.append(value)
            return value
        return validate

    def sample(self, amplitude_deg: np.ndarray, duration_s: np.ndarray,
               participants: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:
        """Decode one profile (deg/s, clipped at 0) per condition row, ``z ~ N(0, I)``."""
        if self.net_ is None:
            raise InvalidParameterError("SaccadeCVAE.sample needs fit() first")
        torch = import_optional("torch")
        amplitude_deg, duration_s = np.asarray(amplitude_deg), np.asarray(duration_s)
        participants = np.asarray(participants, dtype=object)
        n = participants.shape[0]
        z = rng.standard_normal((n, LATENT)).astype(np.float32)
        # decoded in chunks: the one-hot conditions are rows x participants
        step = max(1, _COND_BUDGET // max(1, len(self.participants_)))
        out = np.empty((n, PROFILE_STEPS), dtype=np.float32)
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # tiny matmuls: threads only add contention
        try:
            with torch.no_grad():
                for a in range(0, n, step):
                    cond = self._cond(amplitude_deg[a:a + step], duration_s[a:a + step],
                                      participants[a:a + step])
                    out[a:a + step] = self.net_.dec(torch.from_numpy(
                        np.hstack([z[a:a + step], cond]))).numpy()
        finally:
            torch.set_num_threads(threads)
        return np.clip(out.astype(np.float64) * PROFILE_SCALE, 0.0, None)
