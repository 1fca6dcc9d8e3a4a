"""Exact linear feasibility of a system too large to write down: row generation.

The system is homogeneous and strict, ``a_r · x > 0`` for every row r of a finite set R
given implicitly (by keys), plus a few explicit rows (``fixed``) that are always present.
Two facts make a small subset enough:

* a subset R' ⊆ R that is infeasible refutes R (every row of R' is a row of R), so an
  exact Motzkin certificate of R' (from :func:`solvers.lp.decide`) is a certificate of R;
* a point that satisfies every row of R is a solution of R; the caller's *exact
  separation* (``violated_exact``) says which rows of R a rational point fails — the
  empty answer is the statement "every row of R holds", which the caller proves by its
  own argument (for the rank-one LP, a closed-form minimum over the rows).

The loop (floats only search): find x with ``a_r · x ≥ 1`` on the current rows (the strict
homogeneous rows, scaled), ``x`` in a box; ask the float separation for rows of R below 1;
add them; repeat until none is below (x then holds R, in floats) or the current rows have
no such x.  Then decide R' exactly: an exact certificate ends the matter; an exact point is checked
on all of R and, if it fails, the failing rows join R' and the loop goes on.  Nothing
the floats say enters a verdict.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Hashable

import numpy as np
import scipy.sparse as sps
from scipy.optimize import linprog

from solvers import lp


@dataclass
class Implicit:
    """A homogeneous strict system ``a_r · x > 0`` (r in R, by key) over ``nvars`` unknowns.

    ``row(key)`` gives the integer coefficients ``{column: c}``; ``violated(x, below)`` the
    keys of rows with ``a_r · x < below`` (float search, at most a few per group);
    ``violated_exact(point)`` the keys of rows with ``a_r · point <= 0`` (exact; empty iff
    every row of R holds).  ``fixed``: explicit rows ``(key, coefs, sense)`` always present
    (e.g. ``psi > 0``); ``lower``/``upper``: the search box (never a verdict).
    """

    nvars: int
    row: Callable[[Hashable], dict]
    violated: Callable[[np.ndarray, float], list]
    violated_exact: Callable[[list], list]
    lower: np.ndarray
    upper: np.ndarray
    fixed: list = field(default_factory=list)


@dataclass
class Result:
    decision: object  # lp.Feasible (point over all nvars) | lp.Infeasible (multipliers by key) | lp.Unknown
    keys: list  # the rows of the exact step: fixed keys, then generated keys, in system order
    rounds: int
    generated: int
    every: list = field(default_factory=list)  # every row generated (keys), for comparisons


def decide(system: Implicit, initial: list, budget: float | None = None, poll=lambda: None,
           tolerance: float = 1e-9, max_rounds: int = 200) -> Result:
    """Feasible (a point satisfying every row of R), Infeasible (a certificate on used rows), or Unknown."""
    deadline = None if budget is None else time.monotonic() + budget
    remaining = lambda: None if deadline is None else deadline - time.monotonic()  # noqa: E731
    keys = list(dict.fromkeys(initial))
    seen = set(keys)
    rounds = 0
    coefs_of = {}

    def coefs(key):
        if key not in coefs_of:
            coefs_of[key] = system.row(key)
        return coefs_of[key]

    def add(new) -> int:
        fresh = [k for k in dict.fromkeys(new) if k not in seen]
        seen.update(fresh)
        keys.extend(fresh)
        return len(fresh)

    while rounds < max_rounds:
        rounds += 1
        poll()
        if deadline is not None and remaining() <= 0:
            return Result(lp.Unknown(f"budget of {budget}s exhausted in row generation"), keys, rounds, len(keys), keys)
        x, support = _search(system, [coefs(k) for k in keys], remaining())
        if x is not None and add(system.violated(x, 1 - tolerance)):
            continue
        # x holds every row of R in floats, or the generated rows are infeasible in floats:
        # decide exactly — first the support of the float certificate, then every row used
        fixed_keys = [k for k, _, _ in system.fixed]
        for subset in ([keys[i] for i in support], keys) if support is not None else (keys,):
            exact_sys, columns = _exact_system(system, [coefs(k) for k in subset])
            decision = lp.decide(exact_sys, remaining())
            if isinstance(decision, lp.Infeasible) or subset is keys:
                break
        order = fixed_keys + subset
        if isinstance(decision, lp.Infeasible):
            return Result(lp.Infeasible({order[i]: y for i, y in decision.multipliers.items()}), order, rounds, len(keys), keys)
        if isinstance(decision, lp.Feasible):
            point = [Fraction(0)] * system.nvars
            for c, v in zip(columns, decision.point):
                point[c] = v
            failing = system.violated_exact(point)
            if not failing:
                return Result(lp.Feasible(point), order, rounds, len(keys), keys)
            if not add(failing):
                return Result(lp.Unknown("exact separation names rows already used"), order, rounds, len(keys), keys)
            continue
        return Result(decision, order, rounds, len(keys), keys)
    return Result(lp.Unknown(f"row generation did not settle in {max_rounds} rounds"), keys, rounds, len(keys), keys)


def _exact_system(system: Implicit, rows: list):
    """The fixed and generated rows as an exact :class:`lp.LinearSystem` over the columns they use."""
    used = sorted({c for r in rows for c in r} | {c for _, r, _ in system.fixed for c in r})
    where = {c: i for i, c in enumerate(used)}
    out = lp.LinearSystem(len(used))
    for _, r, sense in system.fixed:
        out.add({where[c]: v for c, v in r.items()}, sense, 0)
    for r in rows:
        out.add({where[c]: v for c, v in r.items()}, ">", 0)
    return out, used


def _search(system: Implicit, rows: list, time_limit):
    """``(x, None)`` with ``a_r · x >= 1`` on the generated rows (the strict homogeneous rows,
    scaled), or ``(None, support)`` when there is none: the rows the float dual weighs.

    Phase one, ``min sum_r e_r`` with ``a_r · x + e_r >= 1``, ``e >= 0``: its optimum is 0
    iff the rows are feasible, and otherwise its dual ``y`` (``0 <= y <= 1``, ``y^T A``
    vanishing on the free columns, ``<= 0`` on the ``>= 0`` ones) is a float Motzkin
    certificate, whose support the exact step re-solves.  (A margin LP, max t with
    ``a_r · x >= t``, is massively degenerate at an infeasible system, optimum x = 0.)"""
    n, k = system.nvars, len(rows)
    ri, ci, vals = [], [], []
    for i, r in enumerate(rows):
        ri.extend([i] * len(r))
        ci.extend(r.keys())
        vals.extend(float(v) for v in r.values())
    A = sps.csr_matrix((vals, (ri, ci)), shape=(k, n))
    A_ub = -sps.hstack([A, sps.identity(k, format="csr")]).tocsr()
    c = np.concatenate([np.zeros(n), np.ones(k)])
    bounds = list(zip(system.lower.tolist(), system.upper.tolist())) + [(0, None)] * k
    options = {"primal_feasibility_tolerance": 1e-9, "dual_feasibility_tolerance": 1e-9}
    if time_limit is not None:
        options["time_limit"] = max(time_limit, 1e-3)
    res = linprog(c, A_ub=A_ub, b_ub=-np.ones(k), bounds=bounds, method="highs", options=options)
    if res.status != 0:
        return None, list(range(k))
    if res.fun <= 1e-7:
        return res.x[:n], None
    y = -np.asarray(res.ineqlin.marginals)
    return None, [int(i) for i in np.flatnonzero(y > 1e-9 * max(y.max(initial=0), 1e-300))]
