"""Lemma 4 (Jeffreys chords, docs/softmax_rank.spherical_law.md): its proof's computed step, checked exactly, and the
lemma's construction in floats.

The proof bounds a levelled chord's error on an arc J (length l <= 1) by ``1 - mu <= c l Delta_J phi'`` through
two per-coordinate inequalities, with ``w = (t - a)/l``, ``y = q_j/p_j`` the ratio of the arc's end rows:

* (i) the exponential part, ``1 - y^w + w (y - 1) <= (y - 1) log(y)/8`` — proved in the docs from
  ``coth x - 1/x <= x/3`` and ``log(sinh x / x) <= x^2/6``; checked here on a grid (floats) as a guard;
* (ii) the curvature part, ``y^w gamma <= c (y A + B)`` for every y, where ``gamma = int G_w kappa``,
  ``A = int v kappa``, ``B = int (1 - v) kappa`` on [0, 1] and kappa is the coordinate's curvature
  ``beta (1 - cos)`` on the arc.  Linear in kappa, so it holds for kappa as soon as it holds for the extreme rays
  of the cones kappa lies in: on a window of length <= 1, ``1 - cos`` is a nonnegative concave plus a nonnegative
  convex function, whose rays are the **tents** ``tau_p`` and the **hinges** ``(v - p)_+``, ``(p - v)_+``.  By
  minimising over y and weighted AM-GM, (ii) for a ray follows from ``gamma (w^2/A + (1 - w)^2/B) <= c``, a
  polynomial inequality in (p, w) once denominators are cleared — **proved here with c = 17/100 by Bernstein
  coefficients in exact rationals** (the tents reach 1/6 at p = w = 1/2; a constant below that is refused).
"""

from fractions import Fraction
from math import comb, floor, pi, sqrt

import numpy as np
import pytest
import sympy as sp

from solvers.trusted.geometry import ARC_CAP, CHORD_CIRCLE, CHORD_LINE

v, p, w, z, s = sp.symbols("v p w z s")


# ------------------------------------------------------------------ (ii): the rays' polynomials, from their definitions

def _moments(kappa_pieces, w_split):
    """gamma = int_0^1 G_w kappa, A = int v kappa, B = int (1 - v) kappa for a piecewise kappa given as
    [(expression, lo, hi)], with ``G_w(v) = min((1 - w) v, w (1 - v))`` (the chord's Green's function on [0, 1]);
    ``w_split`` says where w falls among the pieces' ends (the caller's case)."""
    gamma = 0
    for expr, lo, hi in kappa_pieces:
        for g, glo, ghi in (((1 - w) * v, 0, w), (w * (1 - v), w, 1)):
            a, b = w_split(lo, hi, glo, ghi)
            if a is not None:
                gamma += sp.integrate(g * expr, (v, a, b))
    A = sum(sp.integrate(v * e, (v, lo, hi)) for e, lo, hi in kappa_pieces)
    B = sum(sp.integrate((1 - v) * e, (v, lo, hi)) for e, lo, hi in kappa_pieces)
    return sp.simplify(gamma), sp.factor(A), sp.factor(B)


def _overlap(order):
    """Intersect [lo, hi] with [glo, ghi] when the symbols' order is known: ``order`` lists the ends ascending."""
    rank = {repr(e): i for i, e in enumerate(order)}

    def split(lo, hi, glo, ghi):
        a = max(lo, glo, key=lambda e: rank[repr(e)])
        b = min(hi, ghi, key=lambda e: rank[repr(e)])
        return (a, b) if rank[repr(a)] < rank[repr(b)] else (None, None)
    return split


def ray_polynomials(c):
    """The three polynomial inequalities P >= 0 on [0, 1]^2 that prove (ii) for every ray, with the triangle of each
    case mapped onto the square (so no denominator vanishes): name -> (P, x, y).

    * tent ``tau_p`` (p <= w; p >= w is its mirror v -> 1 - v): w = p + (1 - p) z (gamma's 1/(1 - p) cancels);
    * hinge ``(v - p)_+`` with s = 1 - p: far (p >= w, w = (1 - s) z) and near (p <= w, w = 1 - s z), divided by s^5/36;
      ``(p - v)_+`` is the mirror of ``(v - (1 - p))_+``.
    """
    tent = [(v / p, 0, p), ((1 - v) / (1 - p), p, 1)]
    g_t, A_t, B_t = _moments(tent, _overlap([0, p, w, 1]))
    hinge = [(v - p, p, 1)]
    g_far, A_h, B_h = _moments(hinge, _overlap([0, w, p, 1]))
    g_near, _, _ = _moments(hinge, _overlap([0, p, w, 1]))
    found = {}
    for name, g, A, B, x, y, sub, divide in (
            ("tent", g_t, A_t, B_t, p, z, {w: p + (1 - p) * z}, 1),
            ("hinge far", g_far, A_h, B_h, s, z, {p: 1 - s, w: (1 - s) * z}, s**5 / 36),
            ("hinge near", g_near, A_h, B_h, s, z, {p: 1 - s, w: 1 - s * z}, s**5 / 36)):
        # gamma (w^2/A + (1 - w)^2/B) <= c  <=>  c A B - gamma (w^2 B + (1 - w)^2 A) >= 0  (A, B > 0)
        P = sp.together((c * A * B - g * (w**2 * B + (1 - w) ** 2 * A)).subs(sub, simultaneous=True) / divide)
        num, den = sp.fraction(sp.factor(P))
        found[name] = (sp.expand(num), sp.expand(den), x, y)
    return found


def bernstein(P, x, y):
    """The Bernstein coefficients of P on [0, 1]^2 (exact rationals): ``min <= P <= max`` there."""
    poly = sp.Poly(P, x, y)
    m, n = poly.degree(x), poly.degree(y)
    a = [[Fraction(0)] * (n + 1) for _ in range(m + 1)]
    for (i, j), co in poly.terms():
        a[i][j] = Fraction(int(sp.numer(co)), int(sp.denom(co)))
    return [[sum(Fraction(comb(i, k) * comb(j, l), comb(m, k) * comb(n, l)) * a[k][l] for k in range(i + 1) for l in range(j + 1))
             for j in range(n + 1)] for i in range(m + 1)]


def _halves(b, axis):
    """de Casteljau at 1/2 along x (axis 0) or y (axis 1): the coefficients on the two halves, exactly."""
    if axis == 1:
        lo, hi = _halves([list(r) for r in zip(*b)], 0)
        return [list(r) for r in zip(*lo)], [list(r) for r in zip(*hi)]
    m, n = len(b) - 1, len(b[0]) - 1
    lo = [[None] * (n + 1) for _ in range(m + 1)]
    hi = [[None] * (n + 1) for _ in range(m + 1)]
    for j in range(n + 1):
        col = [b[i][j] for i in range(m + 1)]
        for i in range(m + 1):
            lo[i][j], hi[m - i][j] = col[0], col[-1]
            col = [(col[k] + col[k + 1]) / 2 for k in range(len(col) - 1)]
    return lo, hi


def positive_boxes(b, depth=0, max_depth=24):
    """Prove P > 0 on the square: every Bernstein coefficient > 0 on every box of a subdivision.  Returns the number
    of boxes; raises AssertionError if a box's corner (a value of P) is <= 0 or the depth runs out."""
    if min(min(r) for r in b) > 0:
        return 1
    corners = (b[0][0], b[-1][0], b[0][-1], b[-1][-1])
    assert min(corners) > 0 and depth < max_depth, f"not proved positive: corner value {min(corners)} at depth {depth}"
    return sum(positive_boxes(half, depth + 1, max_depth) for half in _halves(b, depth % 2))


@pytest.fixture(scope="module")
def rays():
    return ray_polynomials(sp.Rational(CHORD_CIRCLE.numerator, CHORD_CIRCLE.denominator))


@pytest.mark.parametrize("name", ["tent", "hinge far", "hinge near"])
def test_the_curvature_part_holds_on_every_ray_by_bernstein_coefficients(rays, name):
    """Step (ii)'s computed part: c A B - gamma (w^2 B + (1 - w)^2 A) > 0 on the whole case, with c = 17/100, every
    Bernstein coefficient positive on a handful of boxes (exact rationals; the denominators are positive constants)."""
    num, den, x, y = rays[name]
    assert sp.Poly(den, x, y).is_ground and den > 0
    assert positive_boxes(bernstein(num, x, y)) <= 16


def test_the_ray_polynomials_are_the_integrals_they_stand_for(rays):
    """Spot values: the tent at p = w = 1/2 has gamma = 1/12, A = B = 1/4, so gamma (w^2/A + (1 - w)^2/B) = 1/6 and
    the polynomial there is (c - 1/6) A B = (17/100 - 1/6) / 16; the far hinge at s -> 0 tends to
    c (3 - s) - w (w^2 s + (1 - w)^2 (3 - s)) (gamma = w s^3/6, A = s^2 (3 - s)/6, B = s^3/6)."""
    num, den, x, y = rays["tent"]
    assert sp.Rational(num.subs({x: sp.Rational(1, 2), y: 0}), den) == (sp.Rational(17, 100) - sp.Rational(1, 6)) / 16
    num, den, x, y = rays["hinge far"]
    zz = sp.Rational(1, 3)
    expect = sp.Rational(17, 100) * 3 - zz * (1 - zz) ** 2 * 3
    assert sp.simplify(num.subs({x: 0, y: zz}) / den - expect) == 0


def test_a_constant_below_the_tents_is_refused():
    """The computed step can fail: at c = 4/25 < 1/6 the tent polynomial is negative at p = w = 1/2, and the
    Bernstein subdivision says so instead of proving it."""
    num, den, x, y = ray_polynomials(sp.Rational(4, 25))["tent"]
    with pytest.raises(AssertionError, match="not proved positive"):
        positive_boxes(bernstein(num, x, y))


# ------------------------------------------------------------------ (i) and the split, in floats (guards of analytic steps)

def test_the_exponential_part_is_at_most_an_eighth_and_an_eighth_is_reached():
    """(i) on a grid: ``1 - y^w + w (y - 1) <= (y - 1) log(y)/8`` (CHORD_LINE), with the two classical bounds it is
    proved from; near y = 1 at w = 1/2 the ratio tends to 1/8, so no smaller constant holds."""
    assert CHORD_LINE == Fraction(1, 8) and CHORD_CIRCLE >= CHORD_LINE
    y = np.exp(np.linspace(-40, 40, 4001))[:, None]
    ww = np.linspace(0, 1, 201)[None, :]
    lhs = 1 - y**ww + ww * (y - 1)
    rhs = (y - 1) * np.log(y) / 8
    assert np.all(lhs <= rhs * (1 + 1e-12) + 1e-15)
    x = np.linspace(1e-3, 50, 20000)
    assert np.all(1 / np.tanh(x) - 1 / x <= x / 3) and np.all(np.log(np.sinh(x) / x) <= x**2 / 6)
    y0 = 1 + 1e-4
    assert abs((1 - sqrt(y0) + (y0 - 1) / 2) / ((y0 - 1) * np.log(y0)) - 1 / 8) < 1e-6


@pytest.mark.parametrize("start", np.linspace(0, 2 * pi, 37)[:-1])
def test_a_window_of_length_one_splits_into_a_concave_and_a_convex_part(start):
    """``1 - cos`` on a window of length ARC_CAP = 1: ``min(k, T)`` (T the tangent at an inflection inside, or no
    split) is concave and >= 0, ``k - min(k, T)`` convex and >= 0 — the decomposition (ii) rests on."""
    x = np.linspace(start, start + ARC_CAP, 2001)
    k = 1 - np.cos(x)
    inflections = [q for q in (pi / 2, 3 * pi / 2, 5 * pi / 2) if start < q < start + ARC_CAP]
    if inflections:
        q = inflections[0]
        T = (1 - np.cos(q)) + np.sin(q) * (x - q)
        concave = np.minimum(k, T)
    else:
        concave = k if np.all(np.diff(k, 2) <= 1e-12) else np.zeros_like(k)
    convex = k - concave
    assert concave.min() >= -1e-12 and convex.min() >= -1e-12
    assert np.diff(concave, 2).max() <= 1e-9 and np.diff(convex, 2).min() >= -1e-9


# ------------------------------------------------------------------ the construction, in floats

def _rows(u, tk, logm, beta):
    L = beta * np.cos(u[:, None] - tk[None, :]) + logm[None, :]
    L -= L.max(axis=1, keepdims=True)
    P = np.exp(L)
    return P / P.sum(axis=1, keepdims=True)


def _phi(u, tk, logm, beta):
    """phi = log sum_j m_j e^{beta cos(u - t_j)} + beta u^2/2 and phi' = E_u[-beta sin(u - t_j)] + beta u."""
    L = beta * np.cos(u[:, None] - tk[None, :]) + logm[None, :]
    top = L.max(axis=1)
    phi = top + np.log(np.exp(L - top[:, None]).sum(axis=1)) + beta * u**2 / 2
    return phi, (_rows(u, tk, logm, beta) * (-beta * np.sin(u[:, None] - tk[None, :]))).sum(axis=1) + beta * u


def _arc(a, b, tk, logm, beta, inside=24):
    """On J = [a, b]: the levelled chord's worst row error and the worst ``(1 - mu)/(|J| Delta_J phi')``."""
    t = np.linspace(a, b, inside + 2)[1:-1]
    ends = np.array([a, b])
    pa, pb = _rows(ends, tk, logm, beta)
    phi_ends, dphi_ends = _phi(ends, tk, logm, beta)
    lam = -(phi_ends[1] - phi_ends[0]) / (b - a)
    phi_t, _ = _phi(t, tk, logm, beta)
    mu = np.exp(phi_t + lam * t - phi_ends[0] - lam * a)  # F(t) e^{lam t} / (F(a) e^{lam a}), the levelled scale
    x = ((t - a) / (b - a))[:, None]
    B = ((1 - x) * pa + x * pb) / mu[:, None]
    error = np.abs(_rows(t, tk, logm, beta) - B).sum(axis=1)
    return error.max(), ((1 - mu) / ((b - a) * (dphi_ends[1] - dphi_ends[0]))).max()


WEIGHTS = {"uniform": lambda n, rng: np.zeros(n), "random": lambda n, rng: rng.normal(0, 3, n),
           "heavy few": lambda n, rng: np.where(rng.random(n) < 0.15, 25.0, 0.0), "wild": lambda n, rng: rng.normal(0, 30, n)}


@pytest.mark.parametrize("weights", sorted(WEIGHTS))
def test_on_random_arcs_the_chord_error_is_within_the_lemma(weights):
    """Floats, not a certificate: on random arcs of length <= 1 (keys anywhere, beta from 1 to 256),
    ``1 - mu <= c |J| Delta_J phi'`` — the observed ratio stays near the exponential part's 1/8."""
    rng = np.random.default_rng(sorted(WEIGHTS).index(weights))
    worst = 0.0
    for _ in range(40):
        beta, n = float(rng.choice([1, 4, 16, 64, 256])), int(rng.integers(1, 40))
        tk, logm = rng.uniform(0, 2 * pi, n), WEIGHTS[weights](n, rng)
        length = rng.uniform(1e-3, ARC_CAP)
        a = rng.uniform(0, 2 * pi - length)
        worst = max(worst, _arc(a, a + length, tk, logm, beta)[1])
    assert worst <= float(CHORD_CIRCLE)


@pytest.mark.parametrize("beta", [1, 2, 16, 64])
@pytest.mark.parametrize("weights", ["uniform", "random", "heavy few"])
def test_the_jeffreys_chord_construction_in_floats(beta, weights):
    """The lemma's construction: greedy arcs from 0, cut where ``|J| Delta_J phi'`` reaches x* or the length reaches 1;
    every row is within eps of its arc's levelled chord, and the arcs number at most ``floor(2 pi sqrt(beta/x*)) + 1``
    (beta >= 4 x* = 2.14) or ``floor(2 pi + pi beta/(2 x*)) + 1`` (below, where the length cap is not free)."""
    rng = np.random.default_rng(beta)
    n, eps, grid = 150, 0.1, 20000
    tk, logm = rng.uniform(0, 2 * pi, n), WEIGHTS[weights](n, rng)
    x_star = eps / ((1 + eps) * float(CHORD_CIRCLE))
    u = np.linspace(0, 2 * pi, grid + 1)
    _, dphi = _phi(u, tk, logm, beta)
    cuts = [0]
    for i in range(1, grid + 1):
        a = cuts[-1]
        if (u[i] - u[a]) * (dphi[i] - dphi[a]) >= x_star or u[i] - u[a] >= ARC_CAP:
            cuts.append(i - 1 if i - 1 > a else i)  # the last grid point inside the budget
    ends = [u[i] for i in cuts] + ([2 * pi] if cuts[-1] != grid else [])
    errors = [_arc(a, b, tk, logm, beta, 12)[0] for a, b in zip(ends, ends[1:])]
    assert max(errors) <= eps
    count = 2 * pi * sqrt(beta / x_star) if beta >= 4 * x_star else 2 * pi + pi * beta / (2 * x_star)
    assert len(ends) - 1 <= floor(count) + 1
