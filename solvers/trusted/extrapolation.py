"""Family: a readout of degree D on two tokens cannot extrapolate (Lagrange interpolation on rational functions).

One kind, ``two-token-extrapolation``: for two tokens q, z the sequences ``(z^k, q^(n-k))`` put a
rank-one head's attention average on one segment, so a polynomial readout of degree D is pinned by
its values on D + 1 of them, and its value at the segment's end is forced too far from the target
(see the kind's docstring).  Exact rational polynomials in rho = psi(z)/psi(q) (python-flint).
"""

from __future__ import annotations

from fractions import Fraction

import flint

from solvers.trusted.core import integer, kind, listof, rational, require

TARGET = "min-ip"


def _int_or(value, default: int, high: int) -> int:  # work estimates read sizes only and survive hostile data
    return min(max(value, 1), high) if type(value) is int else default


def _unsolvable(model: str, low: int, n: int) -> dict:
    return {"judgment": "unsolvable", "model": model, "rank": 1, "m": [low, None], "length": n,
            "target": TARGET, "tolerance": Fraction(1, 2)}


def _poly(coefficients, name: str) -> "flint.fmpq_poly":
    """A polynomial in rho from exact coefficients, constant first."""
    values = [rational(c, name) for c in listof(coefficients, name, 1, 4096)]
    return flint.fmpq_poly([flint.fmpq(v.numerator, v.denominator) for v in values])


def _sign_on_positive_reals(p) -> int:
    """+1 or -1 when all nonzero coefficients of p (p != 0) share that sign: p has it at every rho > 0."""
    coefficients = [c for c in p.coeffs() if c != 0]
    require(bool(coefficients), "a polynomial that should have a sign is zero")
    if all(c > 0 for c in coefficients):
        return 1
    require(all(c < 0 for c in coefficients), f"the sign of {p} on rho > 0 is not evident from its coefficients")
    return -1


def _extrapolation_constant(query: int, other: int, degree: int):
    """``Lambda(rho) = sum_k |l_k(0)|`` (num, den) for the sequences ``(other^k, query^(n-k))``:
    mass ``pi_k = k rho / (k rho + n - k)`` on other, ``l_k`` the Lagrange basis on ``pi_1..pi_{n-1}``."""
    n = degree + 2
    x = flint.fmpq_poly([0, 1])
    N = {k: k * x for k in range(1, n)}  # pi_k = N_k / E_k
    E = {k: k * x + (n - k) for k in range(1, n)}
    num, den = flint.fmpq_poly([0]), flint.fmpq_poly([1])
    for k in range(1, n):
        # l_k(0) = prod_{j != k} (0 - pi_j) / (pi_k - pi_j) = prod_j (-N_j E_k) / (N_k E_j - N_j E_k)
        top, bottom = flint.fmpq_poly([1]), flint.fmpq_poly([1])
        for j in range(1, n):
            if j != k:
                top *= -N[j] * E[k]
                bottom *= N[k] * E[j] - N[j] * E[k]
        sign = _sign_on_positive_reals(top) * _sign_on_positive_reals(bottom)
        num, den = num * bottom + sign * top * den, den * bottom
    return num, den


def _work_extrapolation(data) -> int:
    return 40 * (_int_or(data.get("degree"), 1, 12) + 2) ** 5 + _int_or(data.get("m"), 1, 4096)


@kind("two-token-extrapolation", "m", "degree", "query", "other", "lambda", work=_work_extrapolation)
def _two_token_extrapolation(data: dict):
    """Judgment ``unsolvable{model "polynomial-readout-D", rank 1, m [m, null], length D + 2, min-ip, 1/2}``:
    no rank-one head whose readout is a polynomial of degree <= D in the attention average
    has error < 1/2 on every sequence of length n = D + 2, at any m' >= m.

    Tokens ``query`` q, ``other`` z (integers).  The sequences ``(z^k, q^(n-k))`` put the
    average at ``pi_k`` on a segment, so y = g(pi_k), deg g <= D; Lagrange on pi_1..pi_{D+1}
    gives ``g(0) - T_1 = sum_k l_k(0) (g(pi_k) - T_1)``, so error < 1/2 forces
    ``2 (T_0 - T_1) - 1 < Lambda(rho)``.  The checker builds Lambda (equal to ``lambda``),
    proves it nondecreasing on rho > 0 with ``Lambda(1) <= 2 (T_0 - T_1) - 1``: so
    psi(z)/psi(q) > 1, and with the roles swapped psi(q)/psi(z) > 1 — a contradiction.
    Only |q|, |z|, <q, z> enter: zero padding gives every m' >= m.
    """
    m = integer(data["m"], "m", 1, 4096)
    degree = integer(data["degree"], "degree", 1, 12)
    q, z = integer(data["query"], "query", 1, (1 << m) - 1), integer(data["other"], "other", 1, (1 << m) - 1)
    require(q != z, "the two tokens must differ")
    given = data["lambda"]
    require(isinstance(given, dict) and set(given) == {"numerator", "denominator"}, "lambda must give exactly numerator and denominator")
    given_num, given_den = _poly(given["numerator"], "lambda numerator"), _poly(given["denominator"], "lambda denominator")
    require(not given_den.is_zero(), "lambda's denominator is zero")
    for a, b in ((q, z), (z, q)):
        num, den = _extrapolation_constant(a, b, degree)
        if a == q:
            require(num * given_den == given_num * den, "the given Lambda differs from the one the nodes define")
        _sign_on_positive_reals(den)
        slope = num.derivative() * den - num * den.derivative()
        require(all(c >= 0 for c in slope.coeffs()), "Lambda is not evidently nondecreasing on rho > 0")
        # T_0 = <a, a> (the query alone); every mixed sequence holds both tokens, so T_1 = min(<b, a>, <a, a>) = <b, a>
        at_one, gap = num(1) / den(1), a.bit_count() - (a & b).bit_count()
        require(at_one <= 2 * gap - 1, f"Lambda(1) = {at_one} exceeds 2 (T_0 - T_1) - 1 = {2 * gap - 1}: no contradiction")
    judgment = _unsolvable(f"polynomial-readout-{degree}", m, degree + 2)
    return judgment, f"no rank-one head with a readout of degree {degree} solves length {degree + 2} at any m >= {m} (tokens {q}, {z})"

