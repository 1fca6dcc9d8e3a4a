"""Rigorous real arithmetic on python-flint ``arb`` balls.

An ``arb`` is a ball ``[m ± r]`` that is guaranteed to contain the real number
it stands for; every operation returns a ball containing the exact result.  So
a comparison is *decided* only when the balls are disjoint, and otherwise the
answer is ``"unknown"`` — never a guess.  Floats never enter: inputs are exact
rationals (``fractions.Fraction``, ints, or strings ``"p/q"``).

What is here, as pure mathematics:

* enclosures of ``exp q`` and ``log q`` for rational q;
* the **row-softmax** of a real matrix given by rational entries ``L_ij`` and
  positive rational column weights ``w_j``:
  ``p_ij = w_j e^{L_ij} / sum_k w_k e^{L_ik}`` (w = 1 is the plain softmax);
* three-way comparisons of enclosures, with a refinement loop that retries at
  higher precision and gives up honestly;
* exact counts of the eigenvalues of a symmetric rational matrix above a
  rational threshold (Descartes' rule of signs, exact for real-rooted
  polynomials such as characteristic polynomials of symmetric matrices), and
  from it the number of singular values ``sigma_i(M) > tau``; enclosures of
  the singular values themselves for display.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Iterable, Sequence

import flint
from flint import arb, fmpq, fmpq_mat, fmpq_poly

DEFAULT_BITS = 96
REFINEMENT = (64, 128, 256, 512, 1024)  # precisions tried by `compare_refining`


def _fraction(value) -> Fraction:
    if isinstance(value, float):
        raise TypeError(f"refusing the float {value!r}: give exact rationals")
    if isinstance(value, (Fraction, int)):
        return Fraction(value)
    return Fraction(str(value))  # strings "p/q", python-flint fmpq/fmpz, sympy Rationals


def _fmpq(value) -> fmpq:
    q = _fraction(value)
    return fmpq(q.numerator, q.denominator)


def precision(bits: int):
    """Context manager: arb operations inside run at ``bits`` bits of working precision."""
    return flint.ctx.workprec(bits)


def enclose(value) -> arb:
    """The ball around an exact rational (exact when the binary expansion is finite)."""
    return arb(_fmpq(value))


def exp(value) -> arb:
    """An enclosure of ``e^q`` for rational q (at the current precision)."""
    return enclose(value).exp()


def log(value) -> arb:
    """An enclosure of ``log q`` for rational q > 0."""
    q = _fraction(value)
    if q <= 0:
        raise ValueError(f"log of a non-positive number {q}")
    return enclose(q).log()


def softmax_row(logits: Sequence, weights: Sequence | None = None) -> list[arb]:
    """Enclosures of ``p_j = w_j e^{l_j} / sum_k w_k e^{l_k}`` for rational l and w > 0.

    The largest logit is subtracted first (exactly, in rationals), so every
    exponential lies in (0, 1] and no enclosure overflows.
    """
    row = [_fraction(v) for v in logits]
    w = [Fraction(1)] * len(row) if weights is None else [_fraction(v) for v in weights]
    if len(w) != len(row) or not row:
        raise ValueError("a softmax row needs as many positive weights as logits, and at least one")
    if any(v <= 0 for v in w):
        raise ValueError("softmax weights must be positive")
    top = max(row)
    terms = [enclose(wj) * exp(lj - top) for lj, wj in zip(row, w)]
    total = sum(terms[1:], terms[0])
    return [t / total for t in terms]


def softmax_rows(matrix: Sequence[Sequence], weights: Sequence | None = None, bits: int = DEFAULT_BITS) -> list[list[arb]]:
    """Row-softmax of a rational matrix with column weights, every row enclosed at ``bits``."""
    with precision(bits):
        return [softmax_row(row, weights) for row in matrix]


def compare(x: arb, y) -> str:
    """``"<"``, ``">"`` or ``"="`` when certain, else ``"unknown"``.

    ``"="`` only when both sides are exact balls (radius 0) with the same
    midpoint; overlapping balls are never declared equal.
    """
    y = y if isinstance(y, arb) else enclose(y)
    if x < y:
        return "<"
    if x > y:
        return ">"
    if x.is_exact() and y.is_exact() and x.mid() == y.mid():
        return "="
    return "unknown"


def compare_refining(make: Callable[[], arb], target, precisions: Iterable[int] = REFINEMENT) -> str:
    """Compare ``make()`` with ``target``, recomputing at each precision until certain.

    Returns ``"<"``, ``">"`` or ``"="``, or ``"unknown"`` if no precision in
    the list decides (e.g. when the two numbers are equal but irrational).
    """
    for bits in precisions:
        with precision(bits):
            answer = compare(make(), target)
        if answer != "unknown":
            return answer
    return "unknown"


def upper(x: arb) -> Fraction:
    """An exact rational upper bound of the ball (its right end)."""
    m, e = x.upper().mid().man_exp()
    return Fraction(int(m)) * _two_power(int(e))


def lower(x: arb) -> Fraction:
    """An exact rational lower bound of the ball (its left end)."""
    m, e = x.lower().mid().man_exp()
    return Fraction(int(m)) * _two_power(int(e))


def _two_power(e) -> Fraction:
    e = int(e)
    return Fraction(2) ** e


# --------------------------------------------------------- spectra, exactly


def _fmpq_matrix(matrix) -> fmpq_mat:
    if isinstance(matrix, fmpq_mat):
        return matrix
    rows = [[_fmpq(v) for v in row] for row in matrix]
    return fmpq_mat(len(rows), len(rows[0]) if rows else 0, [v for row in rows for v in row])


def sign_changes(coefficients: Iterable) -> int:
    """Sign changes in a coefficient sequence, zeros skipped (Descartes' count)."""
    signs = [1 if c > 0 else -1 for c in coefficients if c != 0]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def eigenvalues_above(symmetric: Sequence[Sequence], threshold) -> int:
    """``#{i : lambda_i(S) > t}`` exactly, counted with multiplicity, for a symmetric rational S.

    The characteristic polynomial ``chi(x)`` of a symmetric real matrix has
    only real roots, so by Descartes' rule the number of its roots ``> t`` —
    the positive roots of ``chi(x + t)`` — equals the number of sign changes
    of the coefficients of ``chi(x + t)`` (exact for real-rooted polynomials).
    """
    S = _fmpq_matrix(symmetric)
    if S.nrows() != S.ncols() or S != S.transpose():
        raise ValueError("eigenvalues_above needs a symmetric matrix")
    shifted = S.charpoly()(fmpq_poly([_fmpq(threshold), 1]))
    return sign_changes(shifted.coeffs())


def gram(matrix: Sequence[Sequence]) -> fmpq_mat:
    """``M^T M`` exactly."""
    M = _fmpq_matrix(matrix)
    return M.transpose() * M


def singular_values_above(matrix: Sequence[Sequence], tau) -> int:
    """``#{i : sigma_i(M) > tau}`` exactly for a rational M and a rational tau >= 0.

    ``sigma_i(M)^2`` are the eigenvalues of ``M^T M``, so ``sigma_i > tau``
    iff ``lambda_i(M^T M) > tau^2``; zero singular values beyond min(n, N)
    are zero eigenvalues and are never counted for tau >= 0.
    """
    tau = _fraction(tau)
    if tau < 0:
        raise ValueError("tau must be >= 0")
    G = gram(matrix)
    return eigenvalues_above(G, tau * tau)


def singular_value_enclosures(matrix: Sequence[Sequence], bits: int = DEFAULT_BITS) -> list[arb]:
    """Enclosures of the singular values of a rational matrix, largest first (for display).

    Roots of the characteristic polynomial of ``M^T M`` isolated by flint,
    square roots of their real parts (negative enclosures of a zero root are
    clipped to 0).
    """
    G = gram(matrix)
    with precision(bits):
        roots = []
        for root, multiplicity in G.charpoly().complex_roots():
            value = root.real
            value = value.nonnegative_part() if not value > 0 else value
            roots += [value.sqrt()] * multiplicity
        return sorted(roots, key=lambda r: float(r.mid()), reverse=True)
