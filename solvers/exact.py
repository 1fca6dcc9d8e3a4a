"""Exact rationals, matrices and ranks (python-flint).

Ranks are decided exactly, never from a floating-point SVD:

* **lower bound** ``rank A >= k``: a k x k minor whose determinant is nonzero
  modulo a prime p (then it is nonzero over Z, hence over Q) — cheap, and
  re-checkable by anyone with the rows, columns and p;
* **upper bound** ``rank A <= k``: an exact factorisation ``A = F G`` with
  inner dimension k.

Rational matrices are first scaled row by row to integer ones (scaling a row
by a nonzero number changes no rank).
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from operator import attrgetter
from typing import Sequence

import flint

Matrix = Sequence[Sequence[Fraction | int]]
_numerator, _denominator = attrgetter("numerator"), attrgetter("denominator")

# A 62-bit prime: a random integer determinant vanishes modulo it with
# probability about 2^-62, so one prime almost always proves full rank.
DEFAULT_PRIME = 4611686018427387847


def as_fraction(value) -> Fraction:
    if isinstance(value, float):
        raise TypeError(f"refusing the float {value!r}: exact numbers only")
    return value if isinstance(value, Fraction) else Fraction(str(value))


_EXACT_TYPES = frozenset((int, Fraction))


def integer_rows(matrix: Matrix) -> list[list[int]]:
    """Scale each row by the lcm of its denominators: same rank, integer entries.

    In integers throughout (``p * (scale // q)``): building a Fraction per entry
    cost more than the rank itself.  A row of ints and Fractions (the usual case) is
    read by C-level maps of ``numerator``/``denominator`` with one type check per row,
    not per entry: this conversion was 70-86 % of :func:`rank`, now about half
    (docs/performance.md).
    """
    out = []
    for row in matrix:
        if not set(map(type, row)) <= _EXACT_TYPES:
            row = [as_fraction(v) for v in row]  # other exact spellings ("p/q", fmpq); floats refused
        dens = list(map(_denominator, row))
        scale = lcm(*dens)
        nums = list(map(_numerator, row))
        out.append(nums if scale == 1 else [p * (scale // q) for p, q in zip(nums, dens)])
    return out


def fmpq_matrix(matrix: Matrix) -> flint.fmpq_mat:
    rows = [[as_fraction(v) for v in row] for row in matrix]
    ncols = len(rows[0]) if rows else 0
    flat = [flint.fmpq(v.numerator, v.denominator) for row in rows for v in row]
    return flint.fmpq_mat(len(rows), ncols, flat)


def rank(matrix: Matrix) -> int:
    """The exact rank over Q: of the row-scaled integer matrix (``fmpz_mat``), the same rank."""
    if not matrix or not matrix[0]:
        return 0
    return flint.fmpz_mat(integer_rows(matrix)).rank()


def rank_mod_p(matrix: Matrix, prime: int = DEFAULT_PRIME) -> int:
    """Rank of the integer-scaled matrix modulo ``prime``: a lower bound for the rank over Q."""
    rows = integer_rows(matrix)
    if not rows or not rows[0]:
        return 0
    return flint.nmod_mat(len(rows), len(rows[0]), [v % prime for row in rows for v in row], prime).rank()


def nonsingular_minor(matrix: Matrix, prime: int = DEFAULT_PRIME) -> tuple[list[int], list[int]]:
    """Rows and columns of a maximal minor that is nonsingular modulo ``prime``.

    Its size is the rank mod p, a certified lower bound for the rank over Q.
    Found by row reduction mod p (pivot columns), then the pivot rows of the
    transpose restricted to those columns.
    """
    rows = integer_rows(matrix)
    if not rows or not rows[0]:
        return [], []
    cols = _pivots([[v % prime for v in row] for row in rows], prime)
    if not cols:
        return [], []
    sub_t = [[rows[i][j] % prime for i in range(len(rows))] for j in cols]
    chosen_rows = _pivots(sub_t, prime)
    return chosen_rows, cols


def _pivots(rows: list[list[int]], prime: int) -> list[int]:
    """Pivot columns of the row echelon form mod ``prime`` (flint rref)."""
    n, ncols = len(rows), len(rows[0])
    reduced, rank_ = flint.nmod_mat(n, ncols, [v for row in rows for v in row], prime).rref()
    pivots, r = [], 0
    for j in range(ncols):
        if r < rank_ and int(reduced[r, j]) != 0:
            pivots.append(j)
            r += 1
    return pivots


def minor_is_nonsingular(matrix: Matrix, rows: list[int], cols: list[int], prime: int) -> bool:
    """Exact test of a claimed nonsingular minor (determinant nonzero mod a prime)."""
    if len(rows) != len(cols) or len(set(rows)) != len(rows) or len(set(cols)) != len(cols):
        return False
    if not flint.fmpz(prime).is_prime():
        return False
    sub = integer_rows([[matrix[i][j] for j in cols] for i in rows])
    k = len(rows)
    if k == 0:
        return True
    return flint.nmod_mat(k, k, [v % prime for row in sub for v in row], prime).rank() == k


def _rref(A: flint.fmpq_mat):
    """Reduced row echelon form, rank and pivot columns of ``A`` over Q."""
    reduced, r = A.rref()
    pivots, i = [], 0
    for j in range(A.ncols()):
        if i < r and reduced[i, j] != 0:
            pivots.append(j)
            i += 1
    return reduced, r, pivots


def factorisation(matrix: Matrix) -> tuple[list[list[Fraction]], list[list[Fraction]]]:
    """An exact ``A = F G`` with inner dimension rank A (G = nonzero rows of rref A).

    F holds the pivot columns of A, so F G = A holds exactly; tests re-multiply.
    """
    A = fmpq_matrix(matrix)
    reduced, r, pivots = _rref(A)
    ncols = A.ncols()
    G = [[Fraction(str(reduced[i, j])) for j in range(ncols)] for i in range(r)]
    F = [[as_fraction(matrix[row][j]) for j in pivots] for row in range(A.nrows())]
    return F, G


def nullspace(matrix: Matrix) -> list[list[Fraction]]:
    """A basis of ``{x : A x = 0}`` over Q, read off the reduced row echelon form."""
    A = fmpq_matrix(matrix)
    reduced, r, pivots = _rref(A)
    ncols = A.ncols()
    basis = []
    for free in (j for j in range(ncols) if j not in pivots):
        x = [Fraction(0)] * ncols
        x[free] = Fraction(1)
        for row, p in enumerate(pivots):
            x[p] = -Fraction(str(reduced[row, free]))
        basis.append(x)
    return basis


def matmul(F: Matrix, G: Matrix) -> list[list[Fraction]]:
    P = fmpq_matrix(F) * fmpq_matrix(G)
    return [[Fraction(int(P[i, j].p), int(P[i, j].q)) for j in range(P.ncols())] for i in range(P.nrows())]


def max_linear_times_geometric(alpha: Fraction, beta: Fraction, t: Fraction) -> tuple[Fraction, int, int]:
    """``max_{d >= 1 integer} (alpha d + beta) t^d`` exactly, for ``alpha > 0``, ``0 < t < 1``.

    The ratio ``h(d+1)/h(d) = t (alpha(d+1) + beta) / (alpha d + beta)`` is
    at most 1 exactly when ``alpha d (1 - t) >= t alpha + (t - 1) beta`` (for
    ``alpha d + beta > 0``), a linear condition in d: from ``d0``, the first
    d where it holds with ``alpha d0 + beta > 0``, the sequence is
    nonincreasing, so the maximum is among ``d = 1..d0``.

    Returns ``(maximum, argmax, d0)``.
    """
    alpha, beta, t = Fraction(alpha), Fraction(beta), Fraction(t)
    if not (alpha > 0 and 0 < t < 1):
        raise ValueError("need alpha > 0 and 0 < t < 1")
    bound = (t * alpha + (t - 1) * beta) / (alpha * (1 - t))
    d0 = max(1, -(-bound.numerator // bound.denominator))  # ceil(bound)
    while alpha * d0 + beta <= 0 or alpha * d0 * (1 - t) < t * alpha + (t - 1) * beta:
        d0 += 1
    best, arg = None, 1
    for d in range(1, d0 + 1):
        value = (alpha * d + beta) * t**d
        if best is None or value > best:
            best, arg = value, d
    return best, arg, d0
