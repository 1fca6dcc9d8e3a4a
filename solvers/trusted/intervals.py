"""Family: interval (arb) enclosures for softmax attention."""

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


# ------------------------------------------- paper S: approximation rank


def _epsilon(value) -> Fraction:
    eps = rational(value)
    _require(0 < eps < 1, f"epsilon={eps} must lie in (0, 1) (for epsilon >= 1 the rank is 0)")
    return eps


def _attention_rows(data: dict):
    """(n, N, row, m): the logits of row i as ``row(i)`` and the column multiplicities m.

    From ``logits`` (an explicit rational matrix) or from ``points`` X and a
    rational ``beta`` (self-attention ``L_ij = beta <x_i, x_j>``, computed here
    exactly, only for the rows a certificate uses).
    """
    if "logits" in data:
        L = _matrix(data["logits"], "logits")
        _require(bool(L) and bool(L[0]), "logits must be a nonempty matrix")
        n, N, row = len(L), len(L[0]), (lambda i: L[i])
    else:
        X = _matrix(data["points"], "points")
        _require(bool(X) and bool(X[0]), "points must be a nonempty list of vectors")
        beta = rational(data["beta"])
        _require(beta >= 0, "beta must be >= 0")
        n = N = len(X)

        def row(i):
            return [beta * sum((a * b for a, b in zip(X[i], y)), Fraction(0)) for y in X]

    _require(isinstance(data["multiplicities"], list), "multiplicities must be a list")
    m = [_int(v, "multiplicity", 1) for v in data["multiplicities"]]
    _require(len(m) == N, f"multiplicities must have one entry per column ({N})")
    return n, N, row, m


def _arb(q: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def _softmax(row: list[Fraction], weights: list[int]) -> list:
    """arb enclosures of ``w_j e^{l_j} / sum_k w_k e^{l_k}`` (largest logit subtracted exactly)."""
    top = max(row)
    terms = [w * _arb(v - top).exp() for v, w in zip(row, weights)]
    total = sum(terms[1:], terms[0])
    return [t / total for t in terms]


def _certainly_less(make, bound: Fraction) -> bool:
    """``make() < bound`` decided in arb, retried at 64 .. 1024 bits; False unless certain."""
    for bits in (64, 128, 256, 512, 1024):
        with flint.ctx.workprec(bits):
            value = make()
            if value < _arb(bound):
                return True
            if value >= _arb(bound):  # certainly not: no point refining
                return False
    return False


def _fmpq_mat(M: list[list[Fraction]]) -> flint.fmpq_mat:
    return flint.fmpq_mat(len(M), len(M[0]), [flint.fmpq(v.numerator, v.denominator) for r in M for v in r])


@kind("approx-rank-lower", "logits", "multiplicities", "epsilon", "rows", "groups")
def _approx_rank_lower(data: dict) -> str:
    """``rank_eps(A) >= |R|`` for ``A_ij = m_j e^{L_ij} / sum_k m_k e^{L_ik}`` (grouped columns).

    Data: rational logits L (n x N), multiplicities m (positive integers; all 1
    for plain row-softmax), eps in (0, 1), rows R (distinct), one column group
    per row (pairwise disjoint, nonempty).  The checker encloses the softmax of
    every row in R in arb and requires ``A_i(G_i) - sum_{k != i} A_i(G_k) > eps``
    *certainly* on each.  Then any B within eps in max-row-l1, with columns
    summed inside groups on rows R, is strictly diagonally dominant, so
    ``rank B >= |R|``.  With multiplicities this is also the bound for the full
    matrix with m_j copies of point j (multiplicity lemma).
    """
    return _grouped_lower(data)


@kind("approx-rank-lower-points", "points", "beta", "multiplicities", "epsilon", "rows", "groups")
def _approx_rank_lower_points(data: dict) -> str:
    """``rank_eps(A) >= |R|`` for self-attention ``L = beta X X^T``: as ``approx-rank-lower``, with
    the logits of the rows in R computed exactly from the rational points X and beta."""
    return _grouped_lower(data)


def _grouped_lower(data: dict) -> str:
    n, N, row, m = _attention_rows(data)
    eps = _epsilon(data["epsilon"])
    rows, groups = data["rows"], data["groups"]
    _require(isinstance(rows, list) and isinstance(groups, list) and len(rows) == len(groups), "one group per row")
    rows = [_int(i, "row", 0, n - 1) for i in rows]
    _require(len(set(rows)) == len(rows), "rows must be distinct")
    _require(all(isinstance(g, list) for g in groups), "each group must be a list of columns")
    groups = [[_int(j, "column", 0, N - 1) for j in g] for g in groups]
    _require(all(groups), "groups must be nonempty")
    flat = [j for g in groups for j in g]
    _require(len(set(flat)) == len(flat), "column groups must be pairwise disjoint")
    for i, group in zip(rows, groups):
        logits = row(i)
        others = [j for g in groups if g is not group for j in g]

        def slack(logits=logits, group=group, others=others):  # eps - margin < 0  <=>  margin > eps
            p = _softmax(logits, m)
            return sum((p[j] for j in others), _arb(Fraction(0))) - sum((p[j] for j in group), _arb(Fraction(0)))

        _require(_certainly_less(slack, -eps), f"row {i}: the margin A_i(G_i) - sum_k A_i(G_k) is not certainly > {eps}")
    return f"rank_eps >= {len(rows)} at eps = {eps} ({n} x {N} attention; {len(rows)} grouped rows decided in arb)"


@kind("approx-rank-upper", "logits", "multiplicities", "epsilon", "left", "right")
def _approx_rank_upper(data: dict) -> str:
    """``rank_eps(A) <= k``: an explicit ``B = F G`` (inner dimension k) within eps of A on every row.

    A as in ``approx-rank-lower``; F (n x k), G (k x N) rational.  The checker
    multiplies B exactly and requires ``sum_j |A_ij - B_ij| <= eps`` certainly
    (in arb, strictly below eps) for every row i.
    """
    return _explicit_upper(data)


@kind("approx-rank-upper-points", "points", "beta", "multiplicities", "epsilon", "left", "right")
def _approx_rank_upper_points(data: dict) -> str:
    """``rank_eps(A) <= k`` for self-attention ``L = beta X X^T``: as ``approx-rank-upper``, with
    the logits computed exactly from the rational points X and beta."""
    return _explicit_upper(data)


def _explicit_upper(data: dict) -> str:
    n, N, row, m = _attention_rows(data)
    eps = _epsilon(data["epsilon"])
    F, G = _matrix(data["left"], "left", n), _matrix(data["right"], "right", None, N)
    k = len(G)
    _require(k >= 1 and all(len(r) == k for r in F), "left must have as many columns as right has rows (k >= 1)")
    B = _fmpq_mat(F) * _fmpq_mat(G)
    for i in range(n):
        def error(i=i, logits=row(i)):
            p = _softmax(logits, m)
            return sum((abs(p[j] - flint.arb(B[i, j])) for j in range(len(p))), _arb(Fraction(0)))

        _require(_certainly_less(error, eps), f"row {i}: the error ||A_i - B_i||_1 is not certainly < {eps}")
    return f"rank_eps <= {k} at eps = {eps} (explicit B = F G, every row of {n} within eps in arb)"


@kind("residual-bound", "logits", "approximation")
def _residual_bound(data: dict) -> str:
    """``||rowsoftmax(L)_i - rowsoftmax(L')_i||_1 <= 2 tanh(osc_i / 4)`` on every row i.

    osc_i = max_j E_ij - min_j E_ij with E = L - L' (which equals the row
    range of ``L P - L'`` too: P only shifts rows).  Checked in arb (the
    difference of the two sides certainly < 0 when osc_i > 0; equality rows
    with osc_i = 0 are identical).
    """
    L, Lk = _matrix(data["logits"], "logits"), _matrix(data["approximation"], "approximation")
    _require(bool(L) and len(L) == len(Lk) and all(len(a) == len(b) for a, b in zip(L, Lk)), "shapes differ")
    ones = [1] * len(L[0])
    worst = Fraction(0)
    for a, b in zip(L, Lk):
        diff = [x - y for x, y in zip(a, b)]
        osc = max(diff) - min(diff)
        worst = max(worst, osc)
        if osc == 0:
            continue

        def gap(a=a, b=b, osc=osc):
            p, q = _softmax(a, ones), _softmax(b, ones)
            dist = sum((abs(x - y) for x, y in zip(p, q)), _arb(Fraction(0)))
            return dist - 2 * (_arb(osc) / 4).tanh()

        _require(_certainly_less(gap, Fraction(0)), f"a row with oscillation {osc} is not certainly within 2 tanh(osc/4)")
    return f"every row of a {len(L)} x {len(L[0])} softmax within 2 tanh(osc_i/4) of the approximation's (max osc {worst})"


_RESIDUAL_BOUNDS = {
    # t = e^delta: tanh(delta/2) = (t - 1)/(t + 1), tanh(delta) = (t^2 - 1)/(t^2 + 1)
    "2tanh(delta/2)": lambda t: 2 * (t - 1) / (t + 1),
    "tanh(delta)": lambda t: (t * t - 1) / (t * t + 1),
}


@kind("residual-two-point", "t", "row", "weights", "bound", "relation")
def _residual_two_point(data: dict) -> str:
    """One perturbation whose l1 effect exceeds or attains a candidate residual bound, exactly.

    ``t = e^delta > 1`` rational; a probability row p (rational, positive, sum
    1); weights ``w_j = e^{E_j}`` with ``1 <= w_j <= t^2`` (so E has row range
    <= 2 delta, i.e. ``||E - c||_max <= delta`` for the mid shift c);
    ``q_j = p_j w_j / sum_k p_k w_k`` is the softmax of the perturbed logits.
    ``relation`` "exceeds" proves ``||p - q||_1 > bound(t)`` (the bound is
    false); "attains" proves ``||p - q||_1 = bound(t)`` (it cannot be lowered).
    """
    t = rational(data["t"])
    _require(t > 1, "t = e^delta must be > 1")
    _require(isinstance(data["row"], list) and isinstance(data["weights"], list), "row and weights must be lists")
    p = [rational(v) for v in data["row"]]
    w = [rational(v) for v in data["weights"]]
    _require(len(p) == len(w) >= 2 and all(v > 0 for v in p) and sum(p) == 1, "row must be a positive probability vector")
    _require(all(1 <= v <= t * t for v in w), "weights must lie in [1, t^2]")
    _require(data["bound"] in _RESIDUAL_BOUNDS, f"unknown bound {data['bound']!r}")
    bound = _RESIDUAL_BOUNDS[data["bound"]](t)
    total = sum((a * b for a, b in zip(p, w)), Fraction(0))
    dist = sum((abs(a * b / total - a) for a, b in zip(p, w)), Fraction(0))
    relation = data["relation"]
    _require(relation in ("exceeds", "attains"), f"unknown relation {relation!r}")
    if relation == "exceeds":
        _require(dist > bound, f"||p - q||_1 = {dist} does not exceed {data['bound']} = {bound}")
    else:
        _require(dist == bound, f"||p - q||_1 = {dist} is not {data['bound']} = {bound}")
    return f"||p - q||_1 = {dist} {relation} {data['bound']} = {bound} at e^delta = {t}"


