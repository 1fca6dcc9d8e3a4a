"""Float search for a nonnegative factorised weight table and a readout table whose weighted averages meet targets.

The problem.  Given indices ``0..size-1``, sequences ``s = (q_s; x_s1, ..., x_sn)`` (a row index and n column
indices) and targets ``t_s``, find ``Phi, Psi >= 0`` of shape ``size x r`` and a real table ``U`` (``size x size``)
such that, with ``K = Phi Psi^T``, for every s

    y_s = sum_j K[q_s, x_sj] U[q_s, x_sj] / sum_j K[q_s, x_sj]      has      |y_s - t_s| < tol.

The method.  Adam on ``(log Phi, log Psi, U)`` (the logarithms keep the factors positive, so every denominator
is too) minimising ``sum_s max(0, |y_s - t_s| - tau)^2``; whenever every error is below ``tau`` the level
``tau`` is lowered (never below ``floor``), so the search keeps widening its margin.  The gradient is exact
(by hand): ``dy/dK[q, x] = (U[q, x] - y) / D`` and ``dy/dU[q, x] = K[q, x] / D`` per occurrence, ``D`` the
denominator, then ``dL/dPhi = G Psi``, ``dL/dPsi = G^T Phi`` with ``G = dL/dK``.

Why not the alternating LPs.  For fixed Psi each row of Phi is one LP and for fixed Phi the pair (Psi, U) is
one LP; at size 64 with 2080 sequences per row the second LP has 266,240 rows and did not finish in 10
minutes (docs/kernel_rank.feature_rank_table.md), while one step here costs about 15 ms of CPU.

Floats only search: a caller rationalises what is found and decides it exactly.  This module knows nothing of
attention (the caller builds the sequences and targets).
"""

from __future__ import annotations

from dataclasses import dataclass

from solvers.lazy import numpy as np


@dataclass
class Fit:
    """What one search found: the best factors and readout seen, and their largest error (floats)."""

    phi: "np.ndarray"
    psi: "np.ndarray"
    readout: "np.ndarray"
    worst: float
    steps: int


def _errors(log_phi, log_psi, U, sequences, targets):
    """``|y_s - t_s|`` for every sequence."""
    rows, columns = sequences
    K = np.exp(log_phi) @ np.exp(log_psi).T
    weights = [K[rows, x] for x in columns]
    return np.abs(sum(w * U[rows, x] for w, x in zip(weights, columns)) / sum(weights) - targets)


def _loss_and_gradient(log_phi, log_psi, U, sequences, targets, tau):
    rows, columns = sequences
    size = U.shape[0]
    phi, psi = np.exp(log_phi), np.exp(log_psi)
    K = phi @ psi.T
    weights = [K[rows, x] for x in columns]
    values = [U[rows, x] for x in columns]
    D = sum(weights)
    y = sum(w * u for w, u in zip(weights, values)) / D
    e = y - targets
    excess = np.maximum(np.abs(e) - tau, 0.0)
    g_y = 2 * excess * np.sign(e) / D  # dL/dy / D
    G_K, G_U = np.zeros(size * size), np.zeros(size * size)
    for x, w, u in zip(columns, weights, values):
        index = rows * size + x
        G_K += np.bincount(index, g_y * (u - y), size * size)
        G_U += np.bincount(index, g_y * w, size * size)
    G_K, G_U = G_K.reshape(size, size), G_U.reshape(size, size)
    return float(np.max(np.abs(e))), ((G_K @ psi) * phi, (G_K.T @ phi) * psi, G_U)


def fit(sequences, targets, size: int, rank: int, *, seed: int = 0, start=None, readout=None, steps: int = 4000,
        rate: float = 0.05, tau: float = 0.45, floor: float = 0.3, refresh: int = 0, band: float = 0.05,
        poll=lambda: None, say=lambda text: None) -> Fit:
    """Search ``Phi, Psi > 0`` (``size x rank``) and ``U`` with every ``|y_s - t_s|`` small (floats).

    ``sequences = (rows, [columns_1, ..., columns_n])``: integer arrays of one entry per sequence; ``targets`` a
    float array.  ``start = (Phi, Psi)`` (positive floats) replaces the random start drawn from ``seed``;
    ``readout`` the start of U (default zero).  Returns the best point seen (smallest largest error, over every
    sequence).

    ``refresh = k > 0``: an active set.  Only sequences with error above ``tau - band`` have a gradient (the
    others are below the level), so every k steps all sequences are evaluated and the steps in between use those
    above ``tau - band`` alone (a sequence that crosses the level in between waits for the next refresh); the
    best point is judged at the refreshes only.  At m = 7 (1,056,768 sequences) this is what makes a step cheap.
    """
    rng = np.random.default_rng(seed)
    if start is None:
        params = [rng.normal(0.0, 1.0, (size, rank)), rng.normal(0.0, 1.0, (size, rank))]
    else:
        params = [np.log(np.maximum(np.asarray(f, float), 1e-9)) for f in start]
    params.append(np.zeros((size, size)) if readout is None else np.asarray(readout, float).copy())
    first, second = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    best, best_at = np.inf, None
    active = (sequences, targets)
    for t in range(1, steps + 1):
        if t % 50 == 0:
            poll()
        fresh = not refresh or (t - 1) % refresh == 0
        if refresh and fresh:
            errors = _errors(*params, sequences, targets)
            keep = np.flatnonzero(errors > tau - band)
            keep = keep if len(keep) else np.array([int(np.argmax(errors))])
            active = ((sequences[0][keep], [x[keep] for x in sequences[1]]), targets[keep])
            worst = float(errors.max())
            if worst < best:
                best, best_at = worst, [p.copy() for p in params]
        active_worst, gradients = _loss_and_gradient(*params, *active, tau)
        if not refresh:
            worst = active_worst
            if worst < best:
                best, best_at = worst, [p.copy() for p in params]
        if fresh and worst < tau:  # every error below the level: ask for more margin
            tau = max(tau - 0.02, floor)
        if t % 500 == 0:
            say(f"step {t}: largest error {worst:.5f}, best {best:.5f}")
        for i, g in enumerate(gradients):  # Adam
            first[i] = 0.9 * first[i] + 0.1 * g
            second[i] = 0.999 * second[i] + 0.001 * g * g
            params[i] = params[i] - rate * (first[i] / (1 - 0.9**t)) / (np.sqrt(second[i] / (1 - 0.999**t)) + 1e-8)
    return Fit(np.exp(best_at[0]), np.exp(best_at[1]), best_at[2], best, steps)
