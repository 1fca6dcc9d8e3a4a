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

The loop (floats only search): find x with ``a_r · x >= 1`` on the current rows (the
strict homogeneous rows, scaled; :func:`_search`); ask the float separation for rows of R
below 1; add them; repeat until none is below (x then holds R, in floats) or the current
rows have no such x.  Then decide exactly (:func:`_exact`), starting from the rows the
float dual weighs: an exact certificate ends the matter; an exact point is checked on all
of R, and the rows it fails join — new ones go back to the float search, ones already
generated join the exact subset.  Nothing the floats say enters a verdict.

**Slack rows set aside.**  A generated row that the search's point holds with room
(``a_r · x >= SLACK``) in ``SLACK_ROUNDS`` rounds in a row leaves the search LP — not R: the
float and the exact separations still see it, and a point that fails it brings it back
for good.  The last rounds' LPs are the cost of row generation and most of their rows are
slack (n = 4 with positions, m = 32: 21.8 → 8.8 s of CPU).  The verdict is untouched: a
certificate is exact on rows of R, a point is checked on all of R.

**No box on the scale.**  A homogeneous system has its solutions on rays, and near the
end of a refutation the current rows are typically feasible only in a thin cone: the
point with ``a_r · x >= 1`` is then large.  A box ``|x_c| <= 10^4`` cut such points off,
the float dual leaned on the box (no certificate), and the exact step had to decide
thousands of rows only to find them feasible — n = 3, m = 48 of the rank-one LP did not
finish in 120 s, against 0.9 s now.  So the search bounds only what the system says:
the signs of ``normal`` and the *pinned* columns (``lower == upper``: lines along which
every row is constant, which the caller proves; HiGHS stalled on such lines).  When
HiGHS gives up (it did once, on the huge values of a thin cone), the search falls back
to a compact LP: the scale fixed by ``sum_{c in normal} x_c = |normal|``, the margin
maximised, the other columns in a box that every so normalised solution of R meets; a
bound that holds the search back names, through ``bounding``, the rows of R that imply
it, which join.

**A simplex with a cap, then an interior point.**  On a thin cone HiGHS's presolved LP is
solved quickly but its postsolved point can fail many rows, and the simplex that repairs it
thrashed for minutes (n = 4 with positions, m = 48).  So the search's simplex gets one
iteration per row of its LP (a count, not a time: the path does not depend on the load),
and an LP that passes it goes to the interior point without crossover — a point only; a
float certificate still comes from a vertex (:func:`_search`).  The round after one where
the simplex gave up and the interior point found the point starts with the interior point:
the last rounds' LPs grow by a few rows a round, and a simplex that gave up on one usually
gives up on the next, late (n = 4 with positions: at m = 48 a solve error at round 5, then
88 s of capped simplex at round 6 before the interior point found the point in 1.4 s; at
m = 64 401 s of capped simplex, then 4.3 s of interior point).  Only that round: a simplex
that succeeds is the search's path (its vertices make the float certificates), so the one
after goes back to it.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Hashable

import numpy as np
import scipy.sparse as sps
from scipy.optimize import OptimizeWarning, linprog

from solvers import lp


# Rows set aside (cut dropping): a generated row with a_r · x >= SLACK at the search's point
# in SLACK_ROUNDS rounds in a row leaves the search LP until a point fails it again.  Why:
# the last rounds' LPs are the cost of row generation (n = 4 with positions, m = 24: 8.3 of
# 10.5 s), and about two thirds of the generated rows are slack there; HiGHS's presolve does
# not drop them for free.  3 and 3 measured best of (1.5, 1), (2, 2), (3, 3) (docs/performance.md).
SLACK, SLACK_ROUNDS = 3.0, 3

# The search's simplex stops after this many iterations per row of its LP (plus the spare), and the
# same LP goes to an interior point (:func:`_search`).  Every search LP of the recorded points
# (bench/scale_figures.json) took at most 0.65 iterations a row; the one that ran for 15
# minutes (a postsolved point repaired by simplex, n = 4 with positions, m = 48) more than 1.
SIMPLEX_ITERATIONS_PER_ROW, SIMPLEX_ITERATIONS_SPARE = 1.0, 1000


@dataclass
class Implicit:
    """A homogeneous strict system ``a_r · x > 0`` (r in R, by key) over ``nvars`` unknowns.

    ``row(key)`` gives the integer coefficients ``{column: c}``; ``violated(x, below)`` the
    keys of rows with ``a_r · x < below`` (float search, at most a few per group);
    ``violated_exact(point)`` the keys of rows with ``a_r · point <= 0`` (exact; empty iff
    every row of R holds).  ``fixed``: explicit rows ``(key, coefs, sense)`` always present
    (e.g. ``psi > 0``).  The float search only: ``normal``, columns that are ``>= 0`` with
    a positive sum in every solution of R (the search holds their sum at ``len(normal)``);
    ``lower``/``upper``, bounds that every solution of R so normalised meets (a bound of
    zero width pins a column that a symmetry of every row lets one choose); ``bounding(c,
    upper)``, the keys of rows of R that imply the upper (or lower) bound of column c, or
    ``[]``.  Without ``normal`` the search is the margin LP in the box alone.
    """

    nvars: int
    row: Callable[[Hashable], dict]
    violated: Callable[[np.ndarray, float], list]
    violated_exact: Callable[[list], list]
    lower: np.ndarray
    upper: np.ndarray
    fixed: list = field(default_factory=list)
    normal: list = field(default_factory=list)
    bounding: Callable[[int, bool], list] = lambda column, upper: []


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
    keys = list(dict.fromkeys(initial))  # every row generated, in order
    seen = set(keys)
    active = list(keys)  # the rows of the search LP: generated and not set aside
    idle = {}  # rows of `active` slack at the last rounds' points: key -> rounds in a row
    aside, returned = set(), set()  # rows set aside; rows that came back (never set aside again)
    rounds = 0
    coefs_of = {}
    interior_first = False  # the last round's simplex gave up and its interior point answered (:func:`_search`)

    def coefs(key):
        if key not in coefs_of:
            coefs_of[key] = system.row(key)
        return coefs_of[key]

    def add(new) -> int:
        """The rows ``new`` into the search: fresh ones generated, set-aside ones back; how many."""
        fresh, back = [], []
        for k in dict.fromkeys(new):
            if k not in seen:
                fresh.append(k)
            elif k in aside:
                back.append(k)
        seen.update(fresh)
        keys.extend(fresh)
        aside.difference_update(back)
        returned.update(back)
        active.extend(fresh + back)
        return len(fresh) + len(back)

    def set_aside(rows, x, values=None) -> None:
        """Rows with ``a_r · x >= SLACK`` at SLACK_ROUNDS points in a row leave the search LP
        (why: :data:`SLACK`); a row that comes back stays."""
        if values is None:  # the rows of the round, before `add` appended any
            values = _matrix(rows, system.nvars) @ x
        keep = []
        for k, v in zip(active, values):
            idle[k] = idle.get(k, 0) + 1 if v >= SLACK and k not in returned else 0
            if idle[k] >= SLACK_ROUNDS:
                aside.add(k)
                del idle[k]
            else:
                keep.append(k)
        active[:] = keep + active[len(rows):]

    while rounds < max_rounds:
        rounds += 1
        poll()
        if deadline is not None and remaining() <= 0:
            return Result(lp.Unknown(f"budget of {budget}s exhausted in row generation"), keys, rounds, len(keys), keys)
        rows = [coefs(k) for k in active]
        found = _search(system, rows, remaining(), interior_first)
        interior_first = found.interior_instead
        if found.x is not None and add(system.violated(found.x, 1 - tolerance)):
            set_aside(rows, found.x, found.values)
            continue
        if found.bounded and add(k for column, upper in found.bounded for k in system.bounding(column, upper)):
            continue  # the box held the search back: the rows that imply it join, and the search repeats
        if found.x is not None:  # x holds every row of R in floats, with margin 1: try it rounded, exactly
            point = _rounded(system, found.x)
            if point is None:  # x does not round to a point (a psi at or near 0): ask for one with psi >= 1 too
                scaled = _phase_one(system, rows, remaining(), True)  # positional, as stand-ins in tests take it
                if scaled is not None and scaled.x is not None:
                    point = _rounded(system, scaled.x)
            if point is not None:
                return Result(lp.Feasible(point), [k for k, _, _ in system.fixed] + keys, rounds, len(keys), keys)
        # x holds every row of R in floats, or the generated rows look infeasible in floats:
        # decide exactly, from the support of the float certificate (else every row of the search)
        subset = [active[i] for i in found.support] if found.support is not None else list(active)
        outcome = _exact(system, subset, coefs, add, remaining)
        if outcome is not None:
            decision, order = outcome
            return Result(decision, order, rounds, len(keys), keys)
    return Result(lp.Unknown(f"row generation did not settle in {max_rounds} rounds"), keys, rounds, len(keys), keys)


def _rounded(system: Implicit, x) -> list | None:
    """``x`` rounded to multiples of 2^-20, if it meets every fixed row and (exact
    separation) every row of R exactly; else None.  The margin of the search is 1, so
    rounding keeps it unless a sign column sits at 0."""
    point = [Fraction(round(float(v) * 2**20), 2**20) for v in x]
    if any(sum(c * point[j] for j, c in coefs.items()) <= 0 if sense == ">" else
           sum(c * point[j] for j, c in coefs.items()) < 0 for _, coefs, sense in system.fixed):
        return None
    return None if system.violated_exact(point) else point


def _exact(system: Implicit, subset: list, coefs, add, remaining):
    """Decide the rows ``subset`` exactly, growing it: an exact certificate refutes R; an exact
    point that meets every row of R (exact separation) is a solution of R.  A point that
    fails rows of R that are new sends them back to the float search (``None``); failing
    rows already generated join the subset, and it is decided again.  Returns
    ``(decision, rows in system order)`` or ``None``."""
    fixed_keys = [k for k, _, _ in system.fixed]
    in_subset = set(subset)
    while True:
        order = fixed_keys + subset
        if remaining() is not None and remaining() <= 0:
            return lp.Unknown("budget exhausted in the exact step of row generation"), order
        exact_sys, columns = _exact_system(system, [coefs(k) for k in subset])
        decision = lp.decide(exact_sys, remaining())
        if isinstance(decision, lp.Infeasible):
            return lp.Infeasible({order[i]: y for i, y in decision.multipliers.items()}), order
        if not isinstance(decision, lp.Feasible):
            return decision, order
        point = [Fraction(0)] * system.nvars
        for c, v in zip(columns, decision.point):
            point[c] = v
        failing = system.violated_exact(point)
        if not failing:
            return lp.Feasible(point), order
        if add(failing):
            return None
        grow = [k for k in dict.fromkeys(failing) if k not in in_subset]
        if not grow:  # the point meets every row of the subset, so this cannot happen
            return lp.Unknown("exact separation names rows already decided"), order
        subset = subset + grow
        in_subset.update(grow)


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


@dataclass
class _Found:
    x: np.ndarray | None = None  # a point with a_r · x >= 1 on the generated rows (floats)
    support: list | None = None  # else: the generated rows the float dual weighs (None: all)
    bounded: list = field(default_factory=list)  # else: (column, at its upper bound) the dual leans on
    values: np.ndarray | None = None  # with x, when at hand: a_r · x for the generated rows, in order
    interior_instead: bool = False  # x is the interior point's, where the (capped) simplex gave up


def _search(system: Implicit, rows: list, time_limit, interior_first: bool = False) -> _Found:
    """A point meeting the generated rows, or the support of a float certificate.

    First :func:`_phase_one` by dual simplex (HiGHS's choice, fastest here) with at most
    :data:`SIMPLEX_ITERATIONS_PER_ROW` iterations a row; if it stops there or gives up,
    the same LP by interior point without crossover, whose answer is taken only when it is
    a point; else :func:`_margin` (interior point), whose LP is compact.  Why the cap and
    the interior point: on the thin cones of the last rounds (n = 4 with positions, m = 48,
    26,666 rows) HiGHS's presolved LP is solved in 9,292 iterations, but its postsolved
    point fails 211 rows by a sum of 2.8e6 and the simplex that repairs it ran for 15
    minutes; the interior point found a point of the same LP in 3.4 s of CPU.  A count of
    iterations, not a time limit, so that the search's path does not depend on the load.

    ``interior_first`` (in the last round the simplex gave up and the interior point found the
    point): the interior point first, and the simplex only when it gives no point.  On an LP
    where the simplex gives up, the interior point is the call that answers anyway, so the
    path is the same, without the capped simplex's iterations (n = 4 with positions: 88 s of
    CPU at m = 48, 401 s at m = 64).  Where the interior point gave no point either (n = 4,
    m = 64: HiGHS's postsolve fails both), the next round starts with the simplex as before."""
    start = time.monotonic()
    left = lambda: None if time_limit is None else time_limit - (time.monotonic() - start)  # noqa: E731

    def interior():
        point = _phase_one(system, rows, left(), interior=True)
        return point if point is not None and point.x is not None else None  # an interior dual weighs nearly every row: no support worth deciding

    found = interior() if interior_first else None
    if found is None:
        found = _phase_one(system, rows, left())
        if found is None and not interior_first:  # the simplex gave up: the interior point, once a round
            found = interior()
            if found is not None:
                found.interior_instead = True
    if found is None:
        found = _margin(system, rows, left())
    return found or _Found(support=None)


def _matrix(rows: list, n: int):
    """The rows ``{column: c}`` as a CSR matrix, built from its arrays (not through COO: scipy's
    checks of a COO build were a tenth of the default check's row generation)."""
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in rows])
    indices = np.fromiter((c for r in rows for c in r), dtype=np.int64, count=int(indptr[-1]))
    data = np.fromiter((float(v) for r in rows for v in r.values()), dtype=float, count=int(indptr[-1]))
    out = sps.csr_matrix((data, indices, indptr), shape=(len(rows), n))
    out.sort_indices()  # the canonical form a COO build gives: HiGHS's pivots (and the search's path) follow it
    return out


def _options(time_limit) -> dict:
    options = {"primal_feasibility_tolerance": 1e-9, "dual_feasibility_tolerance": 1e-9}
    if time_limit is not None:
        options["time_limit"] = max(time_limit, 1e-3)
    return options


def _linprog(c, A_ub, b_ub, bounds, options, method="highs", A_eq=None, b_eq=None):
    """scipy's ``linprog`` with HiGHS options it does not name itself (``run_crossover``,
    ``simplex_iteration_limit``) passed through, without the warning scipy gives for them."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Unrecognized options detected", category=OptimizeWarning)
        return linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method=method, options=options)


def _phase_one(system: Implicit, rows: list, time_limit, scale_fixed: bool = False,
               interior: bool = False) -> _Found | None:
    """``(x, None)`` with ``a_r · x >= 1`` on the generated rows (the strict homogeneous rows,
    scaled), or the rows the float dual weighs when there is none; ``None`` if HiGHS fails.

    ``min sum_r e_r`` with ``a_r · x + e_r >= 1``, ``e >= 0``: its optimum is 0 iff the rows
    are feasible, and otherwise its dual ``y`` (``0 <= y <= 1``, ``y^T A`` vanishing on the
    free columns, ``<= 0`` on the ``>= 0`` ones) is a float Motzkin certificate.  Only the
    signs of ``normal`` and the pinned columns bound x here — a box would cut off the thin
    cones (``a_r · x >= 1`` fixes the scale).

    ``scale_fixed``: the strict fixed rows (``psi > 0``) scaled too, ``psi >= 1``, so that x
    rounds to a point with its margin — asked for only once x of the plain search holds R
    in floats.  ``interior``: by interior point without crossover (:func:`_search`); else by
    dual simplex with at most :data:`SIMPLEX_ITERATIONS_PER_ROW` iterations a row.  Not in the search itself: there the elastic psi rows change the points
    and the float certificate's support, and at n = 3, m = 64 (cold) the support they
    chose held a near-degenerate face (57 rows, independent, sigma_min ~ 9e-11 against
    441) on which every float certificate of the exact step was spurious (docs/performance.md)."""
    strict = [c for _, c, sense in system.fixed if sense == ">"] if scale_fixed else []
    n, k = system.nvars, len(strict) + len(rows)
    M = _matrix(strict + rows, n)
    A_ub = -sps.hstack([M, sps.identity(k, format="csr")]).tocsr()
    c = np.concatenate([np.zeros(n), np.ones(k)])
    pinned = system.lower == system.upper
    lower = np.where(pinned, system.lower, -np.inf)
    lower[system.normal] = 0.0
    upper = np.where(pinned, system.upper, np.inf)
    bounds = np.column_stack([np.concatenate([lower, np.zeros(k)]), np.concatenate([upper, np.full(k, np.inf)])])
    options = _options(time_limit)
    if interior:
        options["run_crossover"] = "off"
    else:
        options["simplex_iteration_limit"] = int(SIMPLEX_ITERATIONS_PER_ROW * k) + SIMPLEX_ITERATIONS_SPARE
    res = _linprog(c, A_ub, -np.ones(k), bounds, options, "highs-ipm" if interior else "highs")
    if res.status != 0:
        return None
    if res.fun <= 1e-7:
        return _Found(x=res.x[:n], values=(M[len(strict):] if strict else M) @ res.x[:n])
    y = -np.asarray(res.ineqlin.marginals)
    weight = max(y.max(initial=0), 1e-300)
    return _Found(support=[int(i) - len(strict) for i in np.flatnonzero(y > 1e-9 * weight) if i >= len(strict)])


def _margin(system: Implicit, rows: list, time_limit) -> _Found | None:
    """The margin LP on the generated rows ``a_r``, the fixed rows and the normalisation:

        max t   s.t.   a_r · x >= t (generated, fixed strict),  a · x >= 0 (fixed weak),
                       sum_{c in normal} x_c = |normal|,  lower <= x <= upper,  t <= 1.

    Every bound is finite or implied (``normal`` >= 0 with a fixed sum, the rest boxed), so
    the LP is a compact polytope — no rays — and ``x = 1`` on ``normal`` is a point of it.
    ``t > 0``: ``x / t`` meets every generated row with ``a_r · x >= 1``.  ``t <= 0``: by LP
    duality there are ``y_r >= 0`` and a multiplier per bound with ``sum_r y_r a_r`` equal to
    the bounds' weights, ``mu`` on ``normal`` (``mu = t <= 0``) and ``sum y_r = 1``; when no
    box bound is weighed, ``y`` with the nonnegative ``normal`` columns is a float Motzkin
    certificate, whose support the exact step re-solves; when one is, the bounded columns
    are returned instead (their rows of R are missing).

    By interior point, first without crossover: a point (``t > 0``) needs no vertex, and the
    crossover to one is what can run for minutes (n = 4 with positions, m = 64, 67,106 rows:
    more than 10 minutes with it, 17.5 s of CPU without, t = 2.5e-8).  Only when that gives
    no point is the LP solved again with crossover, for a vertex dual whose support is small."""
    n, k = system.nvars, len(rows)
    ri, ci, vals = [], [], []
    senses = []
    strict = [(c, s) for _, c, s in system.fixed] + [(r, ">") for r in rows]
    for i, (r, sense) in enumerate(strict):
        ri.extend([i] * len(r))
        ci.extend(r.keys())
        vals.extend(float(v) for v in r.values())
        senses.append(1.0 if sense == ">" else 0.0)
    total = len(strict)
    A = sps.csr_matrix((vals, (ri, ci)), shape=(total, n))
    A_ub = sps.hstack([-A, sps.csr_matrix(np.array(senses)[:, None])]).tocsr()
    c = np.zeros(n + 1)
    c[n] = -1.0
    bounds = np.column_stack([np.concatenate([system.lower, [-np.inf]]), np.concatenate([system.upper, [1.0]])])
    A_eq = b_eq = None
    if system.normal:
        A_eq = sps.csr_matrix((np.ones(len(system.normal)), ([0] * len(system.normal), system.normal)), shape=(1, n + 1))
        b_eq = [float(len(system.normal))]
    start = time.monotonic()
    for crossover in ("off", "on"):  # a point needs no vertex; a float certificate does (why: the docstring)
        options = _options(None if time_limit is None else time_limit - (time.monotonic() - start))
        options["run_crossover"] = crossover
        res = _linprog(c, A_ub, np.zeros(total), bounds, options, "highs-ipm", A_eq, b_eq)
        if res.status == 0 and -res.fun > 1e-9:
            return _Found(x=res.x[:n] / -res.fun)
    if res.status != 0:
        return None
    offset = len(system.fixed)
    y = -np.asarray(res.ineqlin.marginals)[offset:]
    weight = max(y.max(initial=0), 1e-300)
    support = [int(i) for i in np.flatnonzero(y > 1e-9 * weight)]
    # a bound of the box (not of a pinned column, not a sign of a normal column) with dual weight
    box = system.lower < system.upper
    box[system.normal] = False
    lo = np.flatnonzero(box & np.isfinite(system.lower) & (np.asarray(res.lower.marginals)[:n] > 1e-9 * weight))
    hi = np.flatnonzero(box & np.isfinite(system.upper) & (-np.asarray(res.upper.marginals)[:n] > 1e-9 * weight))
    return _Found(support=support, bounded=[(int(i), False) for i in lo] + [(int(i), True) for i in hi])
