"""Family: exact ranks of rational matrices."""

from __future__ import annotations

import math
from itertools import combinations_with_replacement, product
from fractions import Fraction

import flint

from solvers.trusted.core import (
    CertificateError, fmpq_matrix, integer, kind as _register, lcm_denominator, matrix, rational, require, token,
)

# --- transitional aliases from the single-file checker (to be removed as this family is reworked)
_require, _int, _matrix, _token, _lcm_den, _fmpq_mat = require, integer, matrix, token, lcm_denominator, fmpq_matrix
TARGETS = ("min-ip",)


def kind(name, *fields):
    def register(function):
        def returning_a_judgment(data):
            return {"judgment": "unported:" + name}, function(data)
        _register(name, *fields, work=lambda data: 0)(returning_a_judgment)
        return function
    return register


def _bound(tolerance: Fraction) -> str:
    return "error exactly 0" if tolerance == 0 else f"error < {tolerance}"


def _within(error: Fraction, tolerance: Fraction) -> bool:
    return error == 0 if tolerance == 0 else abs(error) < tolerance


# ---------------------------------------------------------------- ranks


def _integer_rows(matrix: list[list[Fraction]]) -> list[list[int]]:
    return [[int(v * _lcm_den(row)) for v in row] for row in matrix]


@kind("rank-lower", "matrix", "rows", "cols", "prime")
def _rank_lower(data: dict) -> str:
    """``rank A >= k``: the k x k minor on ``rows`` x ``cols`` is nonsingular modulo the prime."""
    A = _integer_rows(_matrix(data["matrix"], "matrix"))
    rows, cols = data["rows"], data["cols"]
    _require(len(rows) == len(cols) and len(set(rows)) == len(rows) and len(set(cols)) == len(cols), "rows and cols must be distinct and equally many")
    _require(all(0 <= i < len(A) for i in rows) and all(0 <= j < len(A[0]) for j in cols), "minor index out of range")
    prime = _int(data["prime"], "prime", 2)
    _require(flint.fmpz(prime).is_prime(), f"{prime} is not prime")
    k = len(rows)
    minor = flint.nmod_mat(k, k, [A[i][j] % prime for i in rows for j in cols], prime) if k else None
    _require(k == 0 or minor.rank() == k, f"the {k} x {k} minor is singular modulo {prime}")
    return f"rank >= {k} ({len(A)} x {len(A[0])} matrix; nonsingular minor mod {prime})"


@kind("rank-upper", "matrix", "left", "right")
def _rank_upper(data: dict) -> str:
    """``rank A <= k``: an exact factorisation ``A = F G`` with inner dimension k."""
    A = _matrix(data["matrix"], "matrix")
    F, G = _matrix(data["left"], "left", len(A)), _matrix(data["right"], "right")
    k = len(G)
    _require(all(len(row) == k for row in F), "left must have as many columns as right has rows")
    product_ = flint.fmpq_mat(len(F), k, [flint.fmpq(v.numerator, v.denominator) for row in F for v in row]) * flint.fmpq_mat(
        k, len(G[0]), [flint.fmpq(v.numerator, v.denominator) for row in G for v in row]
    )
    for i, row in enumerate(A):
        for j, v in enumerate(row):
            _require(Fraction(int(product_[i, j].p), int(product_[i, j].q)) == v, f"F G differs from A at ({i}, {j})")
    return f"rank <= {k} (exact factorisation of a {len(A)} x {len(A[0])} matrix)"


@kind("visible-dimension", "logits", "tau", "count")
def _visible_dimension(data: dict) -> str:
    """``#{i : sigma_i(L (I - 11^T/N)) > tau} = count``, exactly (tau = 0: the visible dimension).

    The checker centres each row of L exactly, forms ``G = (LP)^T (LP)`` and
    counts the roots of ``det(xI - G)`` above ``tau^2`` by Descartes' rule on
    the shifted characteristic polynomial — exact, because a symmetric
    matrix's characteristic polynomial has only real roots.
    """
    L = _matrix(data["logits"], "logits")
    _require(bool(L) and bool(L[0]), "logits must be a nonempty matrix")
    tau = rational(data["tau"])
    _require(tau >= 0, "tau must be >= 0")
    count = _int(data["count"], "count")
    centred = [[v - sum(r, Fraction(0)) / len(r) for v in r] for r in L]
    M = _fmpq_mat(centred)
    G = M.transpose() * M
    shifted = G.charpoly()(flint.fmpq_poly([flint.fmpq(tau.numerator**2, tau.denominator**2), 1]))
    signs = [1 if c > 0 else -1 for c in shifted.coeffs() if c != 0]
    above = sum(1 for a, b in zip(signs, signs[1:]) if a != b)
    _require(above == count, f"{above} singular values of L P exceed {tau}, not {count}")
    return f"#{{sigma_i(L P) > {tau}}} = {count} ({len(L)} x {len(L[0])} logits)"


@kind("row-shift", "logits", "shifted")
def _row_shift(data: dict) -> str:
    """``rowsoftmax(L') = rowsoftmax(L)`` because ``L' = L + c 1^T`` (each row shifted by a constant).

    ``e^{L_ij + c_i} / sum_k e^{L_ik + c_i} = e^{L_ij} / sum_k e^{L_ik}``; the
    checker verifies that every row of ``L' - L`` is constant, exactly.
    """
    L, S = _matrix(data["logits"], "logits"), _matrix(data["shifted"], "shifted")
    _require(bool(L) and len(L) == len(S) and all(len(a) == len(b) for a, b in zip(L, S)), "shapes differ")
    for i, (a, b) in enumerate(zip(L, S)):
        _require(len({y - x for x, y in zip(a, b)}) == 1, f"row {i} of L' - L is not constant")
    return f"L' = L + c 1^T on a {len(L)} x {len(L[0])} matrix: the same attention"


@kind("attention-differs", "logits", "other", "row", "column")
def _attention_differs(data: dict) -> str:
    """``rowsoftmax(L)_ij != rowsoftmax(L')_ij`` at the given entry, the two balls certainly apart."""
    L, S = _matrix(data["logits"], "logits"), _matrix(data["other"], "other")
    _require(bool(L) and len(L) == len(S) and all(len(a) == len(b) for a, b in zip(L, S)), "shapes differ")
    i, j = _int(data["row"], "row", 0, len(L) - 1), _int(data["column"], "column", 0, len(L[0]) - 1)
    ones = [1] * len(L[0])
    with flint.ctx.workprec(128):
        a, b = _softmax(L[i], ones)[j], _softmax(S[i], ones)[j]
        _require(a < b or a > b, f"attention entry ({i}, {j}) is not certainly different")
    return f"the two attentions differ at ({i}, {j})"


@kind("duality", "matrix")
def _duality(data: dict) -> str:
    """``max_i ||M_i||_1 = max_{v in [-1,1]^N} max_i |(M v)_i|`` for the given rational M.

    ``max_i |(Mv)_i|`` is convex in v, so its maximum over the cube is at a
    vertex; the checker enumerates all 2^N vertices (N <= 14), and also checks
    that ``v = sign(M_{i*})`` attains the row norm.
    """
    M = _matrix(data["matrix"], "matrix")
    _require(bool(M) and 1 <= len(M[0]) <= 14, "M must have between 1 and 14 columns")
    norm = max(sum(abs(v) for v in r) for r in M)
    best = max(abs(sum((a if s else -a for a, s in zip(r, signs)), Fraction(0)))
               for signs in product((True, False), repeat=len(M[0])) for r in M)
    _require(best == norm, f"the cube maximum {best} differs from the max row l1 norm {norm}")
    star = max(range(len(M)), key=lambda i: sum(abs(v) for v in M[i]))
    sign = [1 if v >= 0 else -1 for v in M[star]]
    _require(sum((a * s for a, s in zip(M[star], sign)), Fraction(0)) == norm, "sign(M_i*) does not attain the norm")
