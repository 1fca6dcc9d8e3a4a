"""Row-softmax enclosures from integer-scaled logits: no per-entry ``Fraction`` in the hot loops.

A logit matrix of the form ``L_ij = s * N_ij / (u_i v_j) + b_j`` — N an integer
matrix (``fmpz_mat``), s a rational scale, ``u_i, v_j`` positive integers and
``b_j`` rational column biases — is what self-attention on rational points
gives: with ``x_i = U_i / w_i`` (U integer), ``beta <x_i, x_j> =
beta (U U^T)_ij / (w_i w_j)``, and ``U U^T`` is one exact integer product.
From it, for positive integer column multiplicities m:

* ``softmax_row(i)``: arb enclosures of ``A_ij = m_j e^{L_ij} / sum_k m_k e^{L_ik}``;
* ``grouped_margin``: ``A_i(G_i) - sum_{k != i} A_i(G_k)``;
* ``row_errors``: ``||A_i - B_i||_1`` for ``B = F G / 2^e`` with F, G integer matrices
  (one exact ``fmpz_mat`` product; rounded float factors become integers directly).

Every value is an enclosure: exact integers and rationals enter arb once, all
operations are ball operations.  These are search-side decisions (which rows
to keep, which k to certify); the trusted checker re-decides every
certificate from its own data.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Sequence

from flint import arb, ctx, fmpq, fmpz, fmpz_mat

from solvers import intervals
from solvers.lazy import numpy as np


def _arb(q) -> arb:
    q = Fraction(q)
    return arb(fmpq(q.numerator, q.denominator))


def integer_scaled(points: Sequence[Sequence[Fraction]]) -> tuple[list[list[int]], list[int]]:
    """(U, w) with ``x_i = U_i / w_i``: each point over the lcm of its coordinates' denominators."""
    U, w = [], []
    for x in points:
        x = [v if type(v) is Fraction else Fraction(v) for v in x]
        den = lcm(*[v.denominator for v in x])
        U.append([v.numerator * (den // v.denominator) for v in x])
        w.append(den)
    return U, w


class ScaledLogits:
    """``L_ij = scale * N_ij / (row_den_i * col_den_j) + bias_j`` with N an exact integer matrix."""

    def __init__(self, N: fmpz_mat, scale, row_den: Sequence[int], col_den: Sequence[int], bias: Sequence[Fraction] | None = None):
        self.N, self.scale = N, Fraction(scale)
        self.row_den, self.col_den = list(row_den), list(col_den)
        self.bias = None if bias is None else [Fraction(b) for b in bias]
        self.nrows, self.ncols = N.nrows(), N.ncols()

    @classmethod
    def self_attention(cls, points, beta, rows: Sequence[int] | None = None, bias=None) -> "ScaledLogits":
        """``beta X_R X^T (+ bias)`` for rational points X (all rows, or the rows R given)."""
        U, w = integer_scaled(points)
        R = list(range(len(U))) if rows is None else list(rows)
        left = fmpz_mat([U[i] for i in R]) if R else fmpz_mat(0, len(U[0]))
        return cls(left * fmpz_mat(U).transpose(), beta, [w[i] for i in R], w, bias)

    def row(self, i: int) -> list[arb]:
        """Row i of L as arb balls at the current precision."""
        s = _arb(self.scale) / self.row_den[i]
        inv = [1 / arb(v) for v in self.col_den] if len(set(self.col_den)) > 1 else None
        c = 1 / arb(self.col_den[0]) if inv is None else None
        out = []
        for j in range(self.ncols):
            v = arb(self.N[i, j]) * s * (inv[j] if inv is not None else c)
            out.append(v if self.bias is None else v + _arb(self.bias[j]))
        return out

    def floats(self) -> np.ndarray:
        """L in floats (searches only)."""
        N = np.array([[float(int(self.N[i, j])) for j in range(self.ncols)] for i in range(self.nrows)])
        L = float(self.scale) * N / np.outer([float(v) for v in self.row_den], [float(v) for v in self.col_den])
        return L if self.bias is None else L + np.array([float(b) for b in self.bias])


def softmax_arb(row: Sequence[arb], m: Sequence[int] | None) -> list[arb]:
    """``m_j e^{l_j} / sum_k m_k e^{l_k}``, shifted by the largest midpoint (exact) so nothing overflows."""
    c = row[0].mid()
    for v in row[1:]:
        if v.mid() > c:
            c = v.mid()
    terms = [(v - c).exp() for v in row] if m is None else [w * (v - c).exp() for v, w in zip(row, m)]
    total = sum(terms[1:], terms[0])
    return [t / total for t in terms]


# Floats propose; a float answer within DOUBT of its threshold is referred to arb.  Margins and l1
# row errors lie in [-2, 2] and their float round-off here is below 1e-12, so a float answer farther
# than DOUBT from the threshold is the one arb gives; the trusted checker decides every certificate.
DOUBT = 1e-6


def grouped_margins(L: ScaledLogits, m, eps: Fraction, rows: Sequence[int], groups, local: Sequence[int] | None = None,
                    floats: Sequence[float] | None = None) -> dict:
    """Decide ``A_i(G_i) - sum_k A_i(G_k) > eps`` per row, refining precision: {"certain", "not", "unknown"}.

    ``local[t]`` is the row of L holding row ``rows[t]`` (when L was built on the rows R only).
    ``floats[t]``, when given, is the float margin of row ``rows[t]``: a row whose float margin
    is more than :data:`DOUBT` above eps is "certain", more than DOUBT below "not", without
    arb (the same answer arb gives, see DOUBT); only the others are enclosed.
    """
    eps = Fraction(eps)
    flat = [j for g in groups for j in g]
    out: dict = {"certain": [], "not": [], "unknown": []}
    for t, (i, group) in enumerate(zip(rows, groups)):
        if floats is not None and abs(floats[t] - float(eps)) > DOUBT:
            out["certain" if floats[t] > float(eps) else "not"].append(i)
            continue
        at = i if local is None else local[t]

        def margin(at=at, group=group):
            p = softmax_arb(L.row(at), m)
            return 2 * sum((p[j] for j in group), arb(0)) - sum((p[j] for j in flat), arb(0))
        answer = intervals.compare_refining(margin, eps)
        out["certain" if answer == ">" else "not" if answer in ("<", "=") else "unknown"].append(i)
    return out


def integer_factor(M: np.ndarray, bits: int) -> list[list[int]]:
    """``round(M * 2^bits)`` as Python integers (a rounded float proposal, exact from here on)."""
    R = np.rint(np.asarray(M, dtype=float) * float(1 << bits))
    if R.size and np.all(np.abs(R) < 2.0**62):  # integral floats below 2^62: int64 holds each exactly, tolist makes the ints
        return R.astype(np.int64).tolist()
    return [[int(v) for v in row] for row in R.astype(object)]


def row_errors(L: ScaledLogits, m, F: list[list[int]], G: list[list[int]], shift: int, bits: int = intervals.DEFAULT_BITS) -> list[arb]:
    """Enclosures of ``||A_i - B_i||_1``, ``B = F G / 2^shift`` (F, G integer; one exact fmpz product)."""
    B = fmpz_mat(F) * fmpz_mat(G)
    out = []
    with ctx.workprec(bits):
        unit = arb(fmpq(1, 1 << shift)) if shift >= 0 else arb(fmpz(1) << -shift)
        for i in range(L.nrows):
            p = softmax_arb(L.row(i), m)
            errors = [abs(a - arb(B[i, j]) * unit) for j, a in enumerate(p)]
            out.append(sum(errors[1:], errors[0]))
    return out


def fractions(M: list[list[int]], bits: int) -> list[list[Fraction]]:
    """An integer matrix over 2^bits as Fractions (what a certificate stores)."""
    den = 1 << bits
    return [[Fraction(v, den) for v in row] for row in M]


def attention_floats(L: np.ndarray, m=None) -> np.ndarray:
    """Row-softmax of float logits with multiplicities (searches only)."""
    w = np.ones(L.shape[1]) if m is None else np.asarray([float(v) for v in m])
    E = np.exp(L - L.max(axis=1, keepdims=True)) * w
    return E / E.sum(axis=1, keepdims=True)


def search_svd_upper(L: ScaledLogits, m, eps: Fraction, left_bits: int = 30, right_bits: int = 30, A: np.ndarray | None = None):
    """The least k whose rounded truncated SVD ``B = F G`` is certified within eps: (k, F, G) or None.

    F, G are integer matrices over ``2^left_bits`` and ``2^right_bits``.  Floats
    propose k by bisection on the float row error (close to monotone in k);
    k grows from there until a proposal's rounded B is within eps: decided
    by its float row errors when they are clear of eps by :data:`DOUBT`, in
    arb otherwise (the trusted checker decides the certificate either way).
    """
    A = attention_floats(L.floats(), m) if A is None else A
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    n = len(s)

    def float_error(k):
        return np.abs(A - (U[:, :k] * s[:k]) @ Vt[:k, :]).sum(axis=1).max()

    low, high = 1, n
    while low < high:
        k = (low + high) // 2
        if float_error(k) <= float(eps) * (1 - 1e-6):
            high = k
        else:
            low = k + 1
    for k in range(low, n + 1):
        F, G = integer_factor(U[:, :k] * s[:k], left_bits), integer_factor(Vt[:k, :], right_bits)
        if within(L, m, A, F, G, left_bits + right_bits, eps):
            return k, F, G
    return None


def within(L: ScaledLogits, m, A: np.ndarray, F: list[list[int]], G: list[list[int]], shift: int, eps: Fraction) -> bool:
    """Every row error ``||A_i - B_i||_1 < eps`` for ``B = F G / 2^shift`` (F, G integer): the float row
    errors answer when the largest is clear of eps by :data:`DOUBT`, arb (:func:`row_errors`) otherwise.
    ``A`` is the attention of L in floats."""
    B = np.array(F, dtype=float) @ np.array(G, dtype=float) / float(2**shift)
    worst = float(np.abs(A - B).sum(axis=1).max())
    if abs(worst - float(eps)) > DOUBT:
        return worst < float(eps)
    return all(intervals.compare(e, eps) == "<" for e in row_errors(L, m, F, G, shift))
