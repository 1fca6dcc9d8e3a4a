"""Small symbolic proofs (sympy): polynomial inequalities on integer rays.

``nonnegative_from(p, d, a)`` proves ``p(d) >= 0`` for every real ``d >= a``
by substituting ``d = a + e`` and finding every coefficient of the expanded
polynomial in ``e`` nonnegative — a sufficient, exactly checked criterion
(it may say False for a true inequality; it never says True for a false one).
"""

from __future__ import annotations

from solvers.lazy import sympy as sp


def shifted_coefficients(p: sp.Expr, var: sp.Symbol, start) -> list:
    """Coefficients (highest degree first) of ``p(start + e)`` as a polynomial in ``e``."""
    e = sp.Dummy("e")
    return sp.Poly(sp.expand(p.subs(var, start + e)), e).all_coeffs()


def nonnegative_from(p: sp.Expr, var: sp.Symbol, start) -> bool:
    """True only if ``p(var) >= 0`` for all real ``var >= start`` (coefficient test)."""
    return all(c >= 0 for c in shifted_coefficients(p, var, start))


def positive_from(p: sp.Expr, var: sp.Symbol, start) -> bool:
    """True only if ``p(var) > 0`` for all real ``var >= start``: coefficients >= 0, constant > 0."""
    coefficients = shifted_coefficients(p, var, start)
    return all(c >= 0 for c in coefficients) and coefficients[-1] > 0
