# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Cross-check of participant-synth's estimator against private-pgm (``mbi``, the reference of
select-measure-generate; the optional ``[synth]`` extra). Skips without it.

With one noisy measurement of a whole (2-way) marginal and its total known, private-pgm's
L2 estimate is the Euclidean projection of the measurement onto the scaled simplex: the same
as participant-synth's estimate with no shrinkage (the prior's weight 0).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gazeprivacy.mechanisms.samples._participant_synth_model import shrink_to_prior


@pytest.fixture(scope="module")
def mbi():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # jax's float32 / cache notices at import
        jax = pytest.importorskip("jax")
        jax.config.update("jax_enable_x64", True)
        return pytest.importorskip("mbi")


def test_unshrunk_estimate_equals_private_pgm_on_a_transition_marginal(mbi):
    from mbi.estimation import MirrorDescent
    from mbi.marginal_loss import from_linear_measurements

    rng = np.random.default_rng(3)
    nc, n = 12, 25.0
    truth = n * rng.dirichlet(np.full(nc * nc, 0.5))
    noisy = truth + rng.normal(0.0, 2.0, truth.size)
    domain = mbi.Domain(["cell", "next_cell"], [nc, nc])
    loss = from_linear_measurements(
        [mbi.LinearMeasurement(noisy, ("cell", "next_cell"), stddev=2.0)], domain=domain)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MirrorDescent().estimate(domain, loss, known_total=n, iters=3000)
    theirs = np.asarray(model.project(("cell", "next_cell")).datavector()).ravel() / n
    ours, factor = shrink_to_prior(noisy, n, 0.0, np.full(nc * nc, 1.0 / (nc * nc)))
    assert factor == 1.0
    np.testing.assert_allclose(ours, theirs, atol=2e-3)
