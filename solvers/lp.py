"""Exact linear feasibility: a rational point, or a Motzkin certificate.

A system is a finite set of rows  a_i·x (sense_i) b_i  over x ∈ Q^n, with a_i ∈ Q^n,
b_i ∈ Q and sense_i ∈ {">", ">=", "=", "<=", "<"}.  A row with "<" or "<=" is read in its
*normalised* form  (−a_i)·x > −b_i  (resp. ≥), so every row is  a'_i·x ⋈ b'_i  with
⋈ ∈ {>, ≥, =}; S, W, E are the strict, weak and equality rows.

Motzkin's transposition theorem.  Exactly one of the following holds:
  (P) there is x ∈ Q^n with  a'_i·x > b'_i (i ∈ S),  a'_i·x ≥ b'_i (i ∈ W),
      a'_i·x = b'_i (i ∈ E);
  (D) there is y ∈ Q^m with y_i ≥ 0 for all i ∈ S ∪ W (y_i free for i ∈ E) such that
          Σ_i y_i a'_i = 0   and   either  Σ_i y_i b'_i > 0,
                                   or      Σ_i y_i b'_i ≥ 0 and y_i > 0 for some i ∈ S.
(D) ⇒ not (P): for a solution x of (P),  0 = Σ_i y_i a'_i·x ≥ Σ_i y_i b'_i,  strictly so
if y_i > 0 for some strict row; both alternatives of (D) contradict this.  The converse is
the theorem; Gordan's theorem (all rows strict and homogeneous, A x > 0 infeasible iff
yᵀA = 0 for some y ≥ 0, y ≠ 0) is the special case S = all rows, b = 0.

Sign convention of a certificate: y_i multiplies row i *in its normalised form*.  For a
row written  a·x < b  the multiplier y_i ≥ 0 multiplies  −a·x > −b;  for a row written
a·x >= b  it multiplies the row as written; for "=" rows it may have either sign.
Multipliers are keyed by the original row index.

`decide` searches with floating point and decides only with exact rationals: a `Feasible`
point has passed `holds`, an `Infeasible` certificate has passed `refutes`, and when no
exact witness is found the answer is `Unknown`, never a guess.  The search: homogenise
and equilibrate; HiGHS maximises the margin t of the strict rows; a positive margin is
rounded (exactly re-solving the rows tight at the optimum) into a point; otherwise the
LP's dual, or an explicit LP for (D), gives multipliers whose support is re-solved
exactly.  If both fail, e.g. for regions thinner than double precision resolves, z3's
exact simplex decides (P) and then (D) — exact, but far slower on large systems, so it
runs in the time left (and without a budget in EXACT_FALLBACK_SECONDS), and a system
whose statement to z3 would not fit that time is refused up front: Unknown, never a
verdict and never a hang.
"""
from __future__ import annotations

import math
import operator
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Hashable, Iterator, NamedTuple

import flint

from solvers import lazy, smt
from solvers.lazy import numpy as np, z3

# scipy is imported on first use: `attnproof list` and `verify` import this module and solve nothing.
sp = lazy.submodule("scipy.sparse")
_optimize = lazy.submodule("scipy.optimize")

SENSES = (">", ">=", "=", "<=", "<")
_COMPARE = {">": operator.gt, ">=": operator.ge, "=": operator.eq,
            "<=": operator.le, "<": operator.lt}
_STRICT, _WEAK, _EQ = 2, 1, 0
# Denominator caps for rounding float coordinates; None keeps the exact binary value.
_DENOMINATORS = (10**3, 10**6, 10**9, 10**12, None)


class Row(NamedTuple):
    coefs: dict[int, int | Fraction]  # exact: an int where the coefficient is one
    sense: str
    rhs: int | Fraction
    label: Hashable = None


def _exact(value) -> int | Fraction:
    """An exact rational: ints stay ints (a Fraction per integer coefficient cost more than the
    LP), everything else becomes a Fraction.  Floats are refused so that no rounded number can
    enter a verdict unnoticed."""
    if type(value) is int or type(value) is Fraction:
        return value
    if isinstance(value, (float, complex)) or type(value).__module__ == "numpy" and isinstance(value, np.floating):
        raise TypeError(f"exact rational expected, got float {value!r}")
    if isinstance(value, flint.fmpq):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, int):  # bool and other int subclasses
        return int(value)
    return Fraction(value)


def _normal(row: Row) -> tuple[int, int]:
    """(sign, kind) of the normalised row sign·a·x ⋈ sign·b."""
    sign = -1 if row.sense in ("<", "<=") else 1
    kind = _EQ if row.sense == "=" else _STRICT if row.sense in (">", "<") else _WEAK
    return sign, kind


class LinearSystem:
    """Rows a·x (sense) b over exact rationals; sense in {">", ">=", "=", "<=", "<"}."""

    def __init__(self, nvars: int):
        if nvars < 0:
            raise ValueError("nvars must be >= 0")
        self.nvars = nvars
        self.rows: list[Row] = []
        self._integral: list[bool] = []  # per row, added through add(): every coefficient and the rhs an int
        self._integer: list = []

    def add(self, coefs: dict, sense: str, rhs=0, label=None) -> int:
        if sense not in SENSES:
            raise ValueError(f"sense must be one of {SENSES}, got {sense!r}")
        exact, n, integral = {}, self.nvars, True
        for j, c in coefs.items():
            if type(j) is not int:
                j = operator.index(j)
            if not 0 <= j < n:
                raise IndexError(f"variable index {j} out of range 0..{n - 1}")
            if type(c) is not int:
                if type(c) is not Fraction:
                    c = _exact(c)
                integral = integral and type(c) is int
            if c:
                exact[j] = c
        rhs = _exact(rhs)
        if len(self._integral) == len(self.rows):
            self._integral.append(integral and type(rhs) is int)
        self.rows.append(Row(exact, sense, rhs, label))
        return len(self.rows) - 1

    def add_integer_rows(self, A, sense: str, rhs=None) -> range:
        """Rows ``A[i]·x (sense) rhs[i]`` from an integer matrix (numpy or scipy.sparse, integer
        dtype), ``rhs`` integers (default 0): the same rows as :meth:`add` of each, in order,
        read from the matrix's nonzero entries at once instead of one coefficient at a time.
        Returns the indices of the new rows."""
        if sense not in SENSES:
            raise ValueError(f"sense must be one of {SENSES}, got {sense!r}")
        S = sp.csr_matrix(A)
        if S.dtype.kind not in "iu":
            raise TypeError(f"integer coefficients expected, got dtype {S.dtype}")
        if S.shape[1] != self.nvars:
            raise ValueError(f"{S.shape[1]} columns for {self.nvars} unknowns")
        S.eliminate_zeros()
        S.sort_indices()
        count = S.shape[0]
        rhs = [0] * count if rhs is None else [operator.index(b) for b in rhs]
        if len(rhs) != count:
            raise ValueError(f"{len(rhs)} right-hand sides for {count} rows")
        start = len(self.rows)
        if len(self._integral) < start:  # keep the per-row flags aligned with the rows
            self._integral.extend([False] * (start - len(self._integral)))
        ptr, cols, vals = S.indptr.tolist(), S.indices.tolist(), S.data.tolist()  # Python ints
        for i in range(count):
            a, b = ptr[i], ptr[i + 1]
            self.rows.append(Row(dict(zip(cols[a:b], vals[a:b])), sense, rhs[i], None))
        self._integral.extend([True] * count)
        return range(start, start + count)

    def integer_rows(self) -> list[tuple[dict[int, int], str, int]]:
        """Each row times the lcm of its denominators: ``(coefficients, sense, rhs)`` in integers (cached).

        Rows known to be integral when added are taken as they are.
        """
        out = self._integer
        if len(out) > len(self.rows):
            del out[:]
        for i in range(len(out), len(self.rows)):
            coefs, sense, rhs, _ = self.rows[i]
            if i < len(self._integral) and self._integral[i]:
                out.append((coefs, sense, rhs))
                continue
            dens = {c.denominator for c in coefs.values() if type(c) is not int}
            if type(rhs) is not int:
                dens.add(rhs.denominator)
            e = math.lcm(*dens) if dens else 1
            out.append(({j: c.numerator * (e // c.denominator) for j, c in coefs.items()}, sense,
                        rhs.numerator * (e // rhs.denominator)))
        return out


@dataclass
class Feasible:
    point: list[Fraction]


@dataclass
class Infeasible:
    multipliers: dict[int, Fraction]


@dataclass
class Unknown:
    reason: str


def holds(system: LinearSystem, point) -> bool:
    """Whether the rational point satisfies every row exactly (floats raise TypeError)."""
    if len(point) != system.nvars:
        return False
    xs = [_exact(v) for v in point]
    d = math.lcm(*(x.denominator for x in xs)) if xs else 1
    X = [x.numerator * (d // x.denominator) for x in xs]
    # Integer arithmetic throughout: row i times its common denominator (cached), x times d.
    for coefs, sense, rhs in system.integer_rows():
        lhs = sum(c * X[j] for j, c in coefs.items())
        if not _COMPARE[sense](lhs, rhs * d):
            return False
    return True


def refutes(system: LinearSystem, multipliers: dict) -> bool:
    """Whether the multipliers are a valid Motzkin certificate (module docstring)."""
    total: dict[int, Fraction] = {}
    bound = Fraction(0)
    strict_used = False
    for i, y in multipliers.items():
        if not (isinstance(i, int) and 0 <= i < len(system.rows)):
            return False
        y = _exact(y)
        if y == 0:
            continue
        sign, kind = _normal(system.rows[i])
        if kind != _EQ and y < 0:
            return False
        strict_used |= kind == _STRICT
        for j, c in system.rows[i].coefs.items():
            total[j] = total.get(j, 0) + y * sign * c
        bound += y * sign * system.rows[i].rhs
    if any(total.values()):
        return False
    return bound > 0 or (bound == 0 and strict_used)


def _primitive(values: list[Fraction]) -> list[Fraction]:
    """The same ray with coprime integer entries (positive scaling keeps either witness)."""
    d = math.lcm(*(v.denominator for v in values))
    ints = [v.numerator * (d // v.denominator) for v in values]
    g = math.gcd(*ints)
    return [Fraction(k // g) for k in ints] if g else values


def _round(v: float, cap: int | None) -> Fraction:
    # A common denominator per attempt keeps the primitive integer form of the result small.
    return Fraction(float(v)) if cap is None else Fraction(round(float(v) * cap), cap)


def _near_kernel(eqs: list[dict[int, Fraction]], nunk: int, guess, deadline=None) -> Iterator[list[Fraction]]:
    """Exact z ∈ Q^nunk with Σ_j c_j z_j = 0 for every equation c, near the float guess.

    The reduced row echelon form fixes the pivot unknowns as exact functions of the free
    ones; the free ones are the guess rounded at increasing precision.  Unknowns are
    ordered by increasing |guess| so that pivots fall on the small ones, which rounding
    would destroy, and the large ones are rounded.  Yields nothing more once ``deadline``
    (``time.monotonic()``) has passed, and nothing at all when the echelon form, which
    cannot be interrupted, is estimated not to fit the time left (:data:`_RREF_SECONDS_PER_OP`).
    """
    if _late(deadline):
        return
    if deadline is not None and eqs and \
            _RREF_SECONDS_PER_OP * len(eqs) * nunk * min(len(eqs), nunk) > deadline - time.monotonic():
        return
    order = sorted(range(nunk), key=lambda j: abs(float(guess[j])))
    where = {j: k for k, j in enumerate(order)}
    pivots: list[int] = []
    reduced: list[list[Fraction]] = []
    if eqs:
        M = flint.fmpq_mat(len(eqs), nunk)
        for r, coefs in enumerate(eqs):
            for j, c in coefs.items():
                M[r, where[j]] = flint.fmpq(c.numerator, c.denominator)
        R, rank = M.rref()
        for row in R.tolist()[:rank]:
            pivots.append(next(k for k, e in enumerate(row) if e != 0))
            reduced.append([Fraction(int(e.p), int(e.q)) for e in row])
    pivot_set = set(pivots)
    free = [k for k in range(nunk) if k not in pivot_set]
    seen = None
    for cap in _DENOMINATORS:
        if _late(deadline):
            return
        z: list[Fraction] = [Fraction(0)] * nunk
        for k in free:
            z[k] = _round(guess[order[k]], cap)
        for p, row in zip(pivots, reduced):
            z[p] = -sum(row[k] * z[k] for k in free if row[k])
        if z != seen and any(z):
            seen = z
            yield [z[where[j]] for j in range(nunk)]


# flint's rational echelon form of an r × c matrix, per r·c·min(r, c): 0.2–1 ns on the
# rank-one LP's rows (4,653 × 2,489: 25–30 s of CPU).  An estimate, for refusing only.
_RREF_SECONDS_PER_OP = 1e-9


def _late(deadline) -> bool:
    return deadline is not None and time.monotonic() > deadline


def _power_of_two(v: np.ndarray) -> np.ndarray:
    return np.ldexp(1.0, np.frexp(np.where(v > 0, v, 1.0))[1])


class _Homogenised:
    """The system made homogeneous, exactly and as equilibrated floats.

    Row i becomes the normalised row  a'_i·x − b'_i·λ ⋈ 0  in n + 1 unknowns (x, λ), and
    the strict row  λ > 0  is appended as row m; the original system is feasible iff this
    one is (x ↦ (x, 1) and (x, λ) ↦ x/λ), and a certificate y of this one restricted to
    rows < m is a certificate of the original (column λ reads y_m = Σ_{i<m} y_i b'_i ≥ 0).
    An already homogeneous system is kept as it is.  Being homogeneous, the search may use
    the box −1 ≤ x ≤ 1, and the right-hand sides are equilibrated as a column.

    The floats are  Ã = diag(1/s) H diag(c)  with powers of two s_i, c_j (exact in both
    arithmetics): multipliers ỹ of the scaled rows are ỹ_i / s_i for H, and the unknowns
    are x = c ⊙ x̃.  HiGHS's tolerances are absolute, so without this a variable whose
    coefficients are 10^-5 next to others of 10^5 would be invisible to the search.
    """

    def __init__(self, system: LinearSystem):
        m, n = len(system.rows), system.nvars
        self.system = system
        self.lifted = any(row.rhs for row in system.rows)
        self.nvars = n + self.lifted
        normal = [_normal(row) for row in system.rows] + [(1, _STRICT)] * self.lifted
        self.sign = np.array([sg for sg, _ in normal], dtype=np.int8)
        self.kind = np.array([kd for _, kd in normal], dtype=np.int8)
        ri, ci, vals = [], [], []
        for i, row in enumerate(system.rows):
            sign = int(self.sign[i])
            ri.extend([i] * len(row.coefs))
            ci.extend(row.coefs)
            vals.extend([sign * (c if type(c) is int else c.numerator / c.denominator) for c in row.coefs.values()])
            if row.rhs:
                ri.append(i), ci.append(n)
                vals.append(-sign * (row.rhs.numerator / row.rhs.denominator))
        if self.lifted:
            ri.append(m), ci.append(n), vals.append(1.0)
        shape = (len(normal), self.nvars)
        # Duplicate (row, column) pairs are summed first, as csr_matrix does; then the scaling
        # runs on the coordinate arrays (entries times powers of two: exactly as diag(1/r) A diag(1/c)).
        A = sp.coo_matrix((np.asarray(vals, dtype=float), (np.asarray(ri, dtype=np.int64), np.asarray(ci, dtype=np.int64))),
                          shape=shape).tocsr()
        A.eliminate_zeros()
        A = A.tocoo()
        rows_of, cols_of, v = A.row, A.col, A.data.copy()
        self.scale, self.col = np.ones(shape[0]), np.ones(shape[1])
        if len(v):
            def row_max(values):
                out = np.zeros(shape[0])
                np.maximum.at(out, rows_of, np.abs(values))
                return out

            def col_max(values):
                out = np.zeros(shape[1])
                np.maximum.at(out, cols_of, np.abs(values))
                return out

            for _ in range(8):  # Ruiz equilibration: halves the log-spread each pass
                r = _power_of_two(np.sqrt(row_max(v)))
                c = _power_of_two(np.sqrt(col_max(v)))
                v = v * (1 / r)[rows_of] * (1 / c)[cols_of]
                self.scale, self.col = self.scale * r, self.col / c
            r = _power_of_two(row_max(v))
            v = v * (1 / r)[rows_of]
            self.scale *= r
        self.A = sp.csr_matrix((v, (rows_of, cols_of)), shape=shape)

    def row(self, i: int) -> dict[int, Fraction]:
        """Row i of the homogenised system, exactly (built on demand: it is costly)."""
        n = self.system.nvars
        if i == len(self.system.rows):
            return {n: Fraction(1)}
        row, sign = self.system.rows[i], int(self.sign[i])
        h = dict(row.coefs) if sign > 0 else {j: -c for j, c in row.coefs.items()}
        if row.rhs:
            h[n] = -sign * row.rhs
        return h


def _linprog(c, A_ub, b_ub, A_eq, b_eq, bounds, time_limit):
    options = {"primal_feasibility_tolerance": 1e-9, "dual_feasibility_tolerance": 1e-9}
    if time_limit is not None:
        options["time_limit"] = max(time_limit, 1e-3)
    return _optimize.linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                   method="highs", options=options)


def _margin_lp(H: _Homogenised, time_limit):
    """max t  s.t.  ã_i·x̃ − t ≥ 0 (S),  ã_i·x̃ ≥ 0 (W),  ã_i·x̃ = 0 (E),
                 −1 ≤ x̃ ≤ 1,  t ≤ 1.

    The optimum is positive iff the homogeneous system is feasible; the box only bounds
    the search (any solution scales into it) and never enters a verdict.
    """
    m, n = H.A.shape
    ineq, eq = H.kind != _EQ, H.kind == _EQ
    t_col = sp.csr_matrix((H.kind[ineq] == _STRICT).astype(float)).T
    A_ub = sp.hstack([-H.A[ineq], t_col]).tocsr() if ineq.any() else None
    A_eq = sp.hstack([H.A[eq], sp.csr_matrix((int(eq.sum()), 1))]).tocsr() if eq.any() else None
    c = np.zeros(n + 1)
    c[n] = -1.0
    return _linprog(c, A_ub, np.zeros(int(ineq.sum())) if ineq.any() else None,
                    A_eq, np.zeros(int(eq.sum())) if eq.any() else None,
                    [(-1.0, 1.0)] * n + [(None, 1.0)], time_limit)


def _certificate_lp(H: _Homogenised, subset: np.ndarray, time_limit):
    """Gordan–Motzkin as an LP over the rows in `subset`:

    max Σ_S ỹ  s.t.  Σ ỹ_i ã_i = 0,  Σ|ỹ_i| = 1,  ỹ ≥ 0 off E
    (E rows split ỹ = u − v).

    The normalisation is an equality so that a certificate whose value is below HiGHS's
    tolerance still comes back nonzero for the exact repair; vertices have at most n + 1
    nonzero entries, so supports stay small.
    """
    m, n = H.A.shape
    A, kind = H.A[subset], H.kind[subset]
    eq = np.flatnonzero(kind == _EQ)
    k = len(subset)
    c = -np.concatenate([(kind == _STRICT).astype(float), np.zeros(len(eq))])
    A_eq = sp.vstack([sp.hstack([A.T, -A[eq].T]), np.ones((1, k + len(eq)))]).tocsr()
    b_eq = np.concatenate([np.zeros(n), [1.0]])
    res = _linprog(c, None, None, A_eq, b_eq, (0, None), time_limit)
    if res.status != 0:
        return res, None
    y = np.zeros(m)
    y[subset] = res.x[:k]
    y[subset[eq]] -= res.x[k:]
    return res, y


def _exact_point(system: LinearSystem, H: _Homogenised, xs, t, deadline=None):
    """An exact point near the margin LP's optimum (x̃, t) that passes `holds`, or None.

    Rounding happens in the scaled unknowns x̃, where all have comparable size.  None too
    once ``deadline`` (``time.monotonic()``) has passed.
    """
    n, strict = H.nvars, H.kind == _STRICT
    col = [Fraction(c) for c in H.col]
    rowmax = abs(H.A).max(axis=1).toarray().ravel() if n else np.zeros(H.A.shape[0])

    def point(zs):
        x = [c * v for c, v in zip(col, zs)]
        if not H.lifted:
            return _primitive(x) if any(x) else x
        return [v / x[-1] for v in x[:-1]] if x[-1] > 0 else None

    def accept(zs):
        p = point(zs)
        return p if p is not None and holds(system, p) else None

    def plausible(zs):  # a float filter that only ever rejects
        s = H.A @ np.array([float(v) for v in zs])
        tol = 1e-9 * rowmax * max(1.0, float(max(map(abs, zs), default=1)))
        return bool(np.all(np.where(H.kind == _EQ, np.abs(s) <= tol, s >= -tol)))

    for cap in _DENOMINATORS:
        if _late(deadline):
            return None
        zs = [_round(v, cap) for v in xs]
        if plausible(zs) and (p := accept(zs)) is not None:
            return p
    # Rows tight at the optimum stay tight:  Σ_j h_ij c_j x̃_j − s_i t = 0  exactly.
    slack = H.A @ xs - t * strict
    active = np.flatnonzero((H.kind == _EQ) | (np.abs(slack) <= 1e-9 * (1 + rowmax)))
    eqs = []
    for k, i in enumerate(active):
        if k % 256 == 255 and _late(deadline):
            return None
        coefs = {j: c * col[j] for j, c in H.row(i).items()}
        if strict[i]:
            coefs[n] = -Fraction(H.scale[i])
        eqs.append(coefs)
    for z in _near_kernel(eqs, n + 1, list(xs) + [t], deadline):
        if (z[n] > 0 or not strict.any()) and (p := accept(z[:n])) is not None:
            return p
    return None


def _exact_certificate(system: LinearSystem, H: _Homogenised, y, deadline=None):
    """Repair float multipliers ỹ of the scaled rows into an exact certificate, or None.

    On a support T the exact conditions Σ_{i∈T} y_i h_i = 0 are solved with the free y_i
    rounded from ỹ_i / s_i; smaller supports (larger cut-offs) are tried after.  None once
    ``deadline`` (``time.monotonic()``) has passed.
    """
    ymax = np.abs(y).max(initial=0)
    if not ymax > 0:
        return None
    m = len(system.rows)
    tried = set()
    for cut in (1e-10, 1e-7, 1e-4):
        if _late(deadline):
            return None
        support = [int(i) for i in np.flatnonzero(np.abs(y) > cut * ymax)]
        if H.lifted and m not in support:
            # y_m = Σ_{i<m} y_i b'_i, the certificate's slack, may be tiny yet essential.
            support.append(m)
        if tuple(support) in tried:
            continue
        tried.add(tuple(support))
        per_var: dict[int, dict[int, Fraction]] = {}
        for k, i in enumerate(support):
            for j, c in H.row(i).items():
                per_var.setdefault(j, {})[k] = c
        for z in _near_kernel(list(per_var.values()), len(support), y[support] / H.scale[support], deadline):
            kept = [(i, v) for i, v in zip(support, z) if v and i < m]
            if kept:
                cert = dict(zip([i for i, _ in kept], _primitive([v for _, v in kept])))
                if refutes(system, cert):
                    return cert
    return None


# The exact simplex (z3) is the last resort and is always bounded: without a caller's
# budget it gets EXACT_FALLBACK_SECONDS.  Stating a system to z3 costs time too (about
# 60 µs a coefficient through z3's Python API, per alternative, on a 2-core machine), so a
# system whose statement alone would not fit the time left is refused before a single
# expression is built.
EXACT_FALLBACK_SECONDS = 60.0
_Z3_SECONDS_PER_TERM = 1.5e-4  # both alternatives stated, with margin: an estimate, for refusing only


def _z3_terms(system: LinearSystem) -> int:
    """The size of the statement (coefficients, right-hand sides, rows, unknowns) of one alternative."""
    return sum(len(row.coefs) + 1 for row in system.rows) + len(system.rows) + system.nvars


def _exact_arithmetic(system: LinearSystem, time_limit) -> Feasible | Infeasible | Unknown:
    """z3's exact simplex on (P), then on (D) normalised by  b'·y + Σ_S y_i = 1.

    Always bounded: by ``time_limit`` seconds, or :data:`EXACT_FALLBACK_SECONDS` without one.
    Returns Unknown when the statement is estimated not to fit the time left (refused
    before it is built), when building it or z3 runs out of time, or when z3's answer does
    not check exactly.
    """
    limit = EXACT_FALLBACK_SECONDS if time_limit is None else time_limit
    deadline = time.monotonic() + limit
    terms = _z3_terms(system)
    estimate = _Z3_SECONDS_PER_TERM * terms
    if estimate > limit:
        return Unknown(f"exact simplex (z3) not tried: stating {len(system.rows)} rows ({terms} terms) would take"
                       f" about {estimate:.3g}s, the budget leaves {max(limit, 0):.3g}s")

    def late():
        return time.monotonic() > deadline

    def spent(stage):
        return Unknown(f"exact simplex (z3): budget of {limit:.3g}s exhausted {stage}")

    xs = [z3.Real(f"x{j}") for j in range(system.nvars)]
    primal = []
    for coefs, sense, rhs, _ in system.rows:
        if late():  # a clock read per row: nothing beside z3's expressions
            return spent("stating the system")
        lhs = z3.Sum([_z3_value(c) * xs[j] for j, c in coefs.items()] + [z3.RealVal(0)])
        primal.append(_COMPARE[sense](lhs, _z3_value(rhs)))
    if late():
        return spent("stating the system")
    result = smt.solve(primal, deadline - time.monotonic(), {f"x{j}": x for j, x in enumerate(xs)})
    if result.status == "sat":
        point = [result.model.get(f"x{j}", Fraction(0)) for j in range(system.nvars)]
        return Feasible(point) if holds(system, point) else Unknown("exact simplex (z3): its point does not hold")
    if result.status != "unsat":
        return Unknown(f"exact simplex (z3) on the system: {result.reason}")
    ys = [z3.Real(f"y{i}") for i in range(len(system.rows))]
    dual, per_var, bound, strict = [], {}, [], []
    for i, row in enumerate(system.rows):
        if late():
            return spent("stating the alternative")
        sign, kind = _normal(row)
        if kind != _EQ:
            dual.append(ys[i] >= 0)
        if kind == _STRICT:
            strict.append(ys[i])
        for j, c in row.coefs.items():
            per_var.setdefault(j, []).append(_z3_value(sign * c) * ys[i])
        if row.rhs:
            bound.append(_z3_value(sign * row.rhs) * ys[i])
    for terms in per_var.values():
        if late():
            return spent("stating the alternative")
        dual.append(z3.Sum(terms) == 0)
    b_y = z3.Sum(bound + [z3.RealVal(0)])
    dual += [b_y >= 0, b_y + z3.Sum(strict + [z3.RealVal(0)]) == 1]
    if late():
        return spent("stating the alternative")
    result = smt.solve(dual, deadline - time.monotonic(), {f"y{i}": y for i, y in enumerate(ys)})
    if result.status != "sat":
        return Unknown(f"exact simplex (z3) on the alternative: {result.reason or result.status}")
    support = [i for i in range(len(system.rows)) if result.model.get(f"y{i}")]
    cert = dict(zip(support, _primitive([result.model[f"y{i}"] for i in support])))
    return Infeasible(cert) if refutes(system, cert) else Unknown("exact simplex (z3): its certificate does not refute")


def _z3_value(q: Fraction):
    return z3.RealVal(f"{q.numerator}/{q.denominator}")


def decide(system: LinearSystem, budget: float | None = None) -> Feasible | Infeasible | Unknown:
    """Feasible(point) or Infeasible(multipliers), both exactly checked; else Unknown.

    Points of homogeneous systems and all certificates are scaled to coprime integers.
    `budget` is a wall-clock limit in seconds for the whole call, checked between stages
    and inside the exact repairs, and passed to HiGHS and z3 as their time limits; running
    out gives Unknown.  Every stage is bounded by it; the z3 fallback is bounded even
    without one (:data:`EXACT_FALLBACK_SECONDS`), and a system too large to state to z3 in
    the time left is refused up front (:func:`_exact_arithmetic`).
    """
    deadline = None if budget is None else time.monotonic() + budget

    def remaining():
        return None if deadline is None else deadline - time.monotonic()

    def out_of_time():
        return deadline is not None and remaining() <= 0

    if not system.rows:
        return Feasible([Fraction(0)] * system.nvars)
    try:
        H = _Homogenised(system)
    except OverflowError:
        # A coefficient beyond the float range cannot enter the search; scale the rows.
        return Unknown("a coefficient exceeds the floating-point range of the search; rescale the rows")
    m, n = H.A.shape
    reasons = []
    if out_of_time():
        return Unknown(f"budget of {budget}s exhausted before the margin LP")
    res = _margin_lp(H, remaining())
    if res.status == 1 or out_of_time():
        return Unknown(f"budget of {budget}s exhausted in the margin LP")
    margin = -res.fun if res.status == 0 else None
    if margin is None:
        reasons.append(f"margin LP: {res.message.strip()}")
    elif margin > 0:
        point = _exact_point(system, H, res.x[:n], res.x[n], deadline)
        if point is not None:
            return Feasible(point)
        if out_of_time():
            return Unknown(f"budget of {budget}s exhausted rounding the margin LP's point")
        reasons.append(f"margin LP optimum t*={margin:.3g} > 0 but no exact point was found")

    candidates = [np.arange(m)]
    if margin is not None:
        # The margin LP's dual: Σ_S y = 1, Σ y_i ã_i = 0 (box duals vanish when t* = 0).
        y = np.zeros(m)
        ineq, eq = H.kind != _EQ, H.kind == _EQ
        if ineq.any():
            y[ineq] = -np.asarray(res.ineqlin.marginals)
        if eq.any():
            y[eq] = np.asarray(res.eqlin.marginals)
        if (cert := _exact_certificate(system, H, y, deadline)) is not None:
            return Infeasible(cert)
        support = np.flatnonzero(np.abs(y) > 1e-10 * np.abs(y).max(initial=0))
        if 0 < len(support) < m:
            candidates.insert(0, support)
    for subset in candidates:
        if out_of_time():
            return Unknown(f"budget of {budget}s exhausted searching for a certificate")
        cres, y = _certificate_lp(H, subset, remaining())
        if cres.status == 1:
            return Unknown(f"budget of {budget}s exhausted in the certificate LP")
        if y is not None and (cert := _exact_certificate(system, H, y, deadline)) is not None:
            return Infeasible(cert)
        reasons.append(f"certificate LP on {len(subset)} rows gave no exact certificate"
                       f" ({cres.message.strip()})")

    if margin is not None and -1e-9 < margin <= 0 and not out_of_time():
        # A margin below HiGHS's tolerance, which the exact solve of the tight rows may
        # still find.  Last, because at x̃ = 0 every row is tight.
        point = _exact_point(system, H, res.x[:n], res.x[n], deadline)
        if point is not None:
            return Feasible(point)
        reasons.append(f"margin LP optimum t*={margin:.3g}: no exact point near it")
    if out_of_time():
        reasons.append(f"budget of {budget}s exhausted before the exact simplex (z3)")
    else:
        verdict = _exact_arithmetic(system, remaining())
        if isinstance(verdict, (Feasible, Infeasible)):
            return verdict
        reasons.append(verdict.reason if isinstance(verdict, Unknown) else "exact simplex (z3) gave no verdict")
    return Unknown("; ".join(reasons))
