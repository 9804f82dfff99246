# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Radial basis function network (RBFN) classifier, as in George & Routray's gaze biometrics.

George, A., Routray, A. A score level fusion method for eye movement biometrics. Pattern
Recognition Letters 82 (2016) 207-215; used as the re-identification attack by Ren, Fan et al.
(DPGazeSynth, section 5.2) and David-John, Butler, Jain (TVCG 2023, section 4.5.1).

The network: per class, k-means centres of that class's training points; each centre's width
``beta = 1 / (2 sigma^2)`` with ``sigma`` the mean distance of the centre's members to it;
Gaussian activations ``exp(-beta ||x - c||^2)``; linear output weights (with a bias unit) found by
least squares through the pseudo-inverse against one-hot targets; class scores are the softmax of
the outputs.

Why hand-written: scikit-learn has no RBF network; the pieces (KMeans, pinv) come from
scikit-learn and numpy.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.cluster import KMeans
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from gazeprivacy._validation import check_int
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["RBFNClassifier"]


class RBFNClassifier(ClassifierMixin, BaseEstimator):
    """RBF network with per-class k-means centres and least-squares output weights.

    Parameters
    ----------
    n_centres : int, default 16
        Centres per class (George & Routray use 8 to 32). A class with fewer distinct training
        points gets one centre per distinct point.
    sigma_floor : float, default 1e-3
        Lower bound on a centre's width ``sigma`` (in the units of the standardised features):
        a centre whose members all coincide with it would otherwise get an infinite ``beta``.
    random_state : int or None
        Seed for k-means (use :func:`gazeprivacy.rng.seed_for_sklearn`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    centres_ : ndarray of shape (n_total_centres, n_features)
    betas_ : ndarray of shape (n_total_centres,)
    weights_ : ndarray of shape (n_total_centres + 1, n_classes)
        Output weights; the last row is the bias.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> clf = RBFNClassifier(n_centres=2, random_state=0).fit(X, ["a", "a", "b", "b"])
    >>> clf.predict([[0.05, 0.0], [5.05, 5.0]]).tolist()
    ['a', 'b']
    """

    def __init__(self, n_centres: int = 16, sigma_floor: float = 1e-3,
                 random_state: int | None = None) -> None:
        self.n_centres = n_centres
        self.sigma_floor = sigma_floor
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: np.ndarray) -> RBFNClassifier:
        """Fit centres, widths and output weights; returns ``self``."""
        check_int(n_centres=self.n_centres, minimum=1)
        if not (self.sigma_floor > 0):
            raise InvalidParameterError(f"sigma_floor must be > 0, got {self.sigma_floor!r}")
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        centres: list[np.ndarray] = []
        betas: list[np.ndarray] = []
        for c in range(self.classes_.shape[0]):
            Xc = X[y_idx == c]
            n_distinct = np.unique(Xc, axis=0).shape[0]
            k = min(self.n_centres, n_distinct)
            if k == Xc.shape[0]:
                cent, labels = Xc.copy(), np.arange(k)
            else:
                km = KMeans(n_clusters=k, n_init=1, random_state=self.random_state).fit(Xc)
                cent, labels = km.cluster_centers_, km.labels_
            dist = np.linalg.norm(Xc - cent[labels], axis=1)
            sigma = np.zeros(k)
            for j in range(k):
                member = dist[labels == j]
                sigma[j] = member.mean() if member.size else 0.0
            # A singleton (or coincident) centre has sigma 0; give it the class's mean width, and
            # never less than sigma_floor, so its activation stays finite and smooth.
            positive = sigma[sigma > 0]
            fallback = positive.mean() if positive.size else 1.0
            sigma = np.where(sigma > 0, sigma, fallback)
            sigma = np.maximum(sigma, self.sigma_floor)
            centres.append(cent)
            betas.append(1.0 / (2.0 * sigma**2))
        self.centres_ = np.vstack(centres)
        self.betas_ = np.concatenate(betas)
        H = self._design(X)
        T = np.zeros((X.shape[0], self.classes_.shape[0]))
        T[np.arange(X.shape[0]), y_idx] = 1.0
        # minimum-norm least squares: the pseudo-inverse solution pinv(H) @ T, computed without
        # forming pinv(H)
        self.weights_ = np.linalg.lstsq(H, T, rcond=None)[0]
        return self

    def _design(self, X: np.ndarray) -> np.ndarray:
        # ||x - c||^2 expanded, so memory stays O(n_samples x n_centres)
        d2 = ((X**2).sum(axis=1)[:, None] - 2.0 * X @ self.centres_.T
              + (self.centres_**2).sum(axis=1)[None, :])
        d2 = np.maximum(d2, 0.0)
        H = np.exp(-self.betas_[None, :] * d2)
        return np.hstack([H, np.ones((X.shape[0], 1))])

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Linear outputs per class, shape ``(n_samples, n_classes)``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._design(X) @ self.weights_

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Softmax of the outputs; rows sum to 1."""
        out = self.decision_function(X)
        out = out - out.max(axis=1, keepdims=True)
        e = np.exp(out)
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The class with the largest score."""
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]
