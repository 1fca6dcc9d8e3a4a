"""Family: exact ranks of rational matrices, and exact facts about logits.

Judgments (fields exactly as listed; matrices named by ``core.digest`` of the
parsed rows, a list of rows of Fractions):

* ``rank-at-least {matrix, rows, cols, bound}``: the rows x cols rational
  matrix has ``rank >= bound`` over Q (and over R).
* ``rank-at-most {matrix, rows, cols, bound}``: its ``rank <= bound``.
* ``singular-values-above {logits, tau, count}``: exactly ``count`` singular
  values of ``L (I - 11^T/N)`` (with multiplicity) exceed ``tau >= 0``; at
  ``tau = 0`` count is the visible interaction dimension ``rank(L P)``.
* ``same-attention {logits, other}``: ``rowsoftmax(L) = rowsoftmax(L')``
  entry by entry, because ``L' = L + c 1^T``.
* ``duality {matrix}``: ``max_i ||M_i||_1 = max_{v in [-1,1]^N} ||M v||_inf``
  for this M.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import flint

from solvers.trusted.core import digest, integer, kind, listof, rational, require
from solvers.trusted.matrices import fmpq_matrix, lcm_denominator, matrix
from solvers.trusted.limits import digits_of, lcm_digits, length_of, width_of  # sizes for work estimates

PRIME_BOUND = 2**62  # primality is decided (deterministically, BPSW below 2^64) only below this
DUALITY_COLUMNS = 14  # the duality check enumerates all 2^N vertices





def _size(value) -> int:
    return length_of(value) * width_of(value)



def _op(digits: int) -> int:
    """Work units (about a microsecond each) of one exact operation on numbers of this many digits."""
    return 1 + (digits // 100) ** 2


def _common_digits(rows, cap: int = 10**5) -> int:
    """Decimal digits of the common denominator of the entries (computed; at most ``cap``)."""
    common = 1
    for row in rows if isinstance(rows, list) else ():
        for v in row if isinstance(row, list) else ():
            common = math.lcm(common, rational(v, "entry").denominator)
            if common.bit_length() > cap * 10 // 3:
                return cap
    return common.bit_length() * 3 // 10 + 1


def _named(A: list[list[Fraction]]) -> dict:
    return {"matrix": digest(A), "rows": len(A), "cols": len(A[0])}


def _integer_rows(rows: list[list[Fraction]]) -> list[list[int]]:
    """Each row times the lcm of its denominators: integers, each row scaled by a positive number."""
    out = []
    for row in rows:
        scale = lcm_denominator(row)
        out.append([v.numerator * (scale // v.denominator) for v in row])
    return out


# ----------------------------------------------------------------- ranks


def _lower_work(data: dict) -> int:
    k, d = length_of(data["rows"]), digits_of(data["matrix"])
    return _size(data["matrix"]) + k * k * _op((k + 1) * d) + k**3


@kind("rank-lower", "matrix", "rows", "cols", "prime", work=_lower_work, digits=False)
def _rank_lower(data: dict):
    """``rank A >= k``: the k x k minor on ``rows`` x ``cols`` is nonsingular modulo a prime p < 2^62.

    Each row of the minor is scaled by the lcm of its denominators (a
    positive factor: nonsingularity unchanged); an integer matrix whose
    determinant is nonzero mod p has a nonzero determinant, so those k rows
    of A are linearly independent.  Primality is decided by BPSW, which is
    exact below 2^64.
    """
    A = matrix(data["matrix"], "matrix")
    rows = [integer(i, "row", 0, len(A) - 1) for i in listof(data["rows"], "rows", 1)]
    cols = [integer(j, "column", 0, len(A[0]) - 1) for j in listof(data["cols"], "cols", len(rows), len(rows))]
    require(len(set(rows)) == len(rows) and len(set(cols)) == len(cols), "rows and cols must be distinct")
    prime = integer(data["prime"], "prime", 2, PRIME_BOUND - 1)
    require(flint.fmpz(prime).is_prime(), f"{prime} is not prime")
    k = len(rows)
    minor = _integer_rows([[A[i][j] for j in cols] for i in rows])
    require(flint.nmod_mat(k, k, [v % prime for r in minor for v in r], prime).rank() == k, f"the {k} x {k} minor is singular modulo {prime}")
    judgment = {"judgment": "rank-at-least", **_named(A), "bound": k}
    return judgment, f"rank >= {k} ({len(A)} x {len(A[0])} matrix {judgment['matrix'][:15]}; nonsingular minor mod {prime})"


def _upper_work(data: dict) -> int:
    """Reading ``A`` (n x N), ``F`` (n x k) and ``G`` (k x N) entry by entry (a ``Fraction`` each, and A's
    digest: 2.5 to 3.5 us an entry of a few digits, measured, so 4 units times :func:`_op` of the longest),
    and the product ``F G``: n N k multiply-adds, one unit each (0.005 to 0.02 us measured on numbers of a
    machine word) times ``_op(D)``.  D bounds the digits of the integers the product multiplies: a row of F over
    its common denominator times a column of G over theirs (python-flint clears denominators that way; added
    fraction by fraction, the partial sums have a denominator dividing the same product), so the longest entry
    of each plus the digits of those common denominators (``limits.lcm_digits``).  Dyadic factors keep D near the
    entries' own digits; distinct primes as denominators make it up to k times as long.  Each entry of G is read
    once and multiplied n times, one unit each: from n = 3 rows on the product's charge covers its reading,
    and for each row fewer 2 units an entry are added (5 an entry at n = 1; the estimate grows in proportion
    to the rows of A and F from n = 3 on)."""
    A, F, G = data["matrix"], data["left"], data["right"]
    n, N, k = length_of(A), width_of(A), length_of(G)
    columns = zip(*(row for row in G if isinstance(row, list))) if length_of(G) else ()
    D = digits_of(F) + lcm_digits(F) + digits_of(G) + lcm_digits(columns)
    read = 4 * (_size(A) * _op(digits_of(A)) + _size(F) * _op(digits_of(F))) + 2 * max(0, 3 - n) * _size(G) * _op(digits_of(G))
    return read + n * N * k * _op(D)


@kind("rank-upper", "matrix", "left", "right", work=_upper_work, digits=False)
def _rank_upper(data: dict):
    """``rank A <= k``: an exact factorisation ``A = F G``, F: rows x k, G: k x cols."""
    A = matrix(data["matrix"], "matrix")
    F = matrix(data["left"], "left", len(A))
    G = matrix(data["right"], "right", len(F[0]), len(A[0]))
    require(fmpq_matrix(F) * fmpq_matrix(G) == fmpq_matrix(A), "F G differs from A")
    judgment = {"judgment": "rank-at-most", **_named(A), "bound": len(G)}
    return judgment, f"rank <= {len(G)} (exact factorisation of a {len(A)} x {len(A[0])} matrix {judgment['matrix'][:15]})"


# ---------------------------------------------------------------- logits


def _spectrum_work(data: dict) -> int:
    """Scaling to integers, then the characteristic polynomial of the Gram matrix (entries of ~2e digits)."""
    n, N = length_of(data["logits"]), width_of(data["logits"])
    e = _common_digits(data["logits"]) + digits_of(data["logits"]) + len(str(N))
    small = min(n, N)
    return n * N * _op(e) + small**3 * (small + e) * (1 + e // 200) // 16


@kind("visible-dimension", "logits", "tau", "count", work=lambda d: 2 * _spectrum_work(d), digits=False)
def _visible_dimension(data: dict):
    """``#{i : sigma_i(L P) > tau} = count`` exactly, ``P = I - 11^T/N`` (tau = 0: rank of L P).

    With s = N times the common denominator of L, ``K = s L P`` is an
    integer matrix (row i: ``N s' L_ij - sum_k s' L_ik``, s' = s/N).  The
    smaller Gram matrix of K (``K K^T`` or ``K^T K``) has the squares of the
    singular values of K = s * those of L P as its nonzero eigenvalues; the
    checker counts the roots of its characteristic polynomial above
    ``(s tau)^2`` by Descartes' rule of signs on the shifted polynomial:
    exact, because a symmetric matrix's characteristic polynomial has only
    real roots (a root at the shift itself is not counted).
    """
    L = matrix(data["logits"], "logits")
    tau = rational(data["tau"], "tau")
    require(tau >= 0, "tau must be >= 0")
    count = integer(data["count"], "count", 0)
    common = lcm_denominator([v for r in L for v in r])
    N = len(L[0])
    scaled = [[v.numerator * (common // v.denominator) for v in r] for r in L]
    K = flint.fmpz_mat([[N * v - sum(r) for v in r] for r in scaled])
    G = K * K.transpose() if len(L) <= N else K.transpose() * K
    shift = (N * common * tau) ** 2
    poly = flint.fmpq_poly(G.charpoly())(flint.fmpq_poly([flint.fmpq(shift.numerator, shift.denominator), 1]))
    signs = [c > 0 for c in poly.coeffs() if c != 0]
    above = sum(1 for a, b in zip(signs, signs[1:]) if a != b)
    require(above == count, f"{above} singular values of L P exceed tau, not {count}")
    judgment = {"judgment": "singular-values-above", "logits": digest(L), "tau": tau, "count": count}
    return judgment, f"#{{sigma_i(L P) > tau}} = {count} ({len(L)} x {N} logits {judgment['logits'][:15]})"


@kind("row-shift", "logits", "shifted", work=lambda d: 16 * _size(d["logits"]) * _op(2 * digits_of(d["logits"]) + 2 * digits_of(d["shifted"])))
def _row_shift(data: dict):
    """``rowsoftmax(L') = rowsoftmax(L)`` because every row of ``L' - L`` is constant.

    ``e^{L_ij + c_i} / sum_k e^{L_ik + c_i} = e^{L_ij} / sum_k e^{L_ik}``.
    """
    L, S = matrix(data["logits"], "logits"), matrix(data["shifted"], "shifted")
    require(len(L) == len(S) and len(L[0]) == len(S[0]), "logits and shifted have different shapes")
    for i, (a, b) in enumerate(zip(L, S)):
        require(len({y - x for x, y in zip(a, b)}) == 1, f"row {i} of L' - L is not constant")
    judgment = {"judgment": "same-attention", "logits": digest(L), "other": digest(S)}
    return judgment, f"L' = L + c 1^T on a {len(L)} x {len(L[0])} matrix: the same attention"


def _duality_work(data: dict) -> int:
    N = min(width_of(data["matrix"]), 64)
    return 2**N * _size(data["matrix"]) * _op((N + 1) * digits_of(data["matrix"]))


@kind("duality", "matrix", work=_duality_work, digits=False)
def _duality(data: dict):
    """``max_i ||M_i||_1 = max_{v in [-1,1]^N} max_i |(M v)_i|`` for the given rational M, N <= 14.

    ``v -> |(Mv)_i|`` is convex, so its maximum over the cube is at a vertex:
    the checker enumerates all 2^N sign vectors and confirms, row by row,
    that the largest ``|M_i v|`` equals ``||M_i||_1`` (each row scaled to
    integers by a positive factor, which scales both sides alike); the
    maximum over rows of equal numbers is equal.
    """
    M = matrix(data["matrix"], "matrix")
    require(len(M[0]) <= DUALITY_COLUMNS, f"M has {len(M[0])} columns; this check enumerates 2^N vertices, N <= {DUALITY_COLUMNS}")
    for i, r in enumerate(_integer_rows(M)):
        best = max(abs(sum(a if s else -a for a, s in zip(r, signs))) for signs in product((True, False), repeat=len(r)))
        require(best == sum(abs(a) for a in r), f"row {i}: the cube maximum of |M_i v| differs from ||M_i||_1")
    judgment = {"judgment": "duality", "matrix": digest(M)}
    return judgment, f"max row l1 norm = max over the 2^{len(M[0])} cube vertices ({len(M)} x {len(M[0])} matrix {judgment['matrix'][:15]})"
