"""The float search of solvers.factor_search: it fits what a factorised head can fit, and says what it reached."""

import numpy as np

from solvers import factor_search


def _planted(size=6, rank=2, n=3, seed=0):
    """Targets made by a hidden positive rank-2 head: every sequence of (row; n columns) over 0..size-1."""
    rng = np.random.default_rng(seed)
    phi, psi, U = rng.random((size, rank)) + 0.1, rng.random((size, rank)) + 0.1, rng.normal(0, 2, (size, size))
    K = phi @ psi.T
    rows = np.repeat(np.arange(size), size**n)
    columns = [np.tile(np.repeat(np.arange(size), size ** (n - 1 - j)), size ** (j + 1)) for j in range(n)]
    targets = sum(K[rows, x] * U[rows, x] for x in columns) / sum(K[rows, x] for x in columns)
    return (rows, columns), targets


def _worst(found, sequences, targets):
    rows, columns = sequences
    K = found.phi @ found.psi.T
    y = sum(K[rows, x] * found.readout[rows, x] for x in columns) / sum(K[rows, x] for x in columns)
    return np.max(np.abs(y - targets))


def test_a_planted_head_is_fitted_and_the_reported_error_is_the_points():
    sequences, targets = _planted()
    found = factor_search.fit(sequences, targets, 6, 2, seed=1, steps=1500, tau=0.1, floor=0.01)
    assert found.phi.shape == found.psi.shape == (6, 2) and found.readout.shape == (6, 6)
    assert (found.phi > 0).all() and (found.psi > 0).all()
    assert abs(_worst(found, sequences, targets) - found.worst) < 1e-9  # the best point seen, with its own error
    assert found.worst < 0.15  # about the level it was asked for (0.1), far below the targets' spread
    assert np.ptp(targets) > 2


def test_a_start_is_used_and_a_search_that_cannot_fit_says_so():
    sequences, targets = _planted()
    # rank one from a constant start, no steps worth the name: the error stays that of the start
    start = (np.ones((6, 1)), np.ones((6, 1)))
    found = factor_search.fit(sequences, targets, 6, 1, start=start, steps=1, tau=0.2)
    assert np.allclose(found.phi, 1) and np.allclose(found.psi, 1)
    assert found.worst == np.max(np.abs(targets))  # y = 0 with a zero readout


def test_the_active_set_reaches_the_same_level_and_judges_the_best_point_on_every_sequence():
    sequences, targets = _planted()
    found = factor_search.fit(sequences, targets, 6, 2, seed=1, steps=1500, tau=0.1, floor=0.01, refresh=10)
    assert abs(_worst(found, sequences, targets) - found.worst) < 1e-9  # judged on all sequences, not the active ones
    assert found.worst < 0.15
