"""The spherical law: certified sandwiches of rank_eps against beta on the circle (and S^2).

The law (stated, not checked): for fixed d and eps, the worst case over n
points of the sphere ``S^{d-1}`` of ``rank_eps(rowsoftmax(beta X X^T))`` is
``Theta_{d,eps}(min{n, (1 + beta)^{(d-1)/2}})``.  What is finite and checked
here, for d = 2 (the circle; d = 3, the sphere S^2, by a parameter), eps in
(0, 1) and each beta = step^k in a range:

* **largest certified lower bound** (the worst-case side).  Near
  ``c_d beta^{(d-1)/2}`` points, n rational points exactly on the sphere (the
  largest n at which every point is its own row, found by bisection in
  floats, and the sizes just above it); a float search proposes rows and
  Voronoi column groups, arb decides
  every margin ``A_i(G_i) - sum_{k != i} A_i(G_k) > eps`` (uncertain rows are
  dropped), and the instance with the largest ``|R|`` is certified
  (``approx-rank-lower-points``) together with an explicit ``B = F G`` on the
  same instance (``approx-rank-upper-points``).  So
  ``sup_{|X| = n} rank_eps >= lower`` — a certified lower bound on the
  quantity the law is about.  With ``inverse = 1`` the rows may instead pass
  ``eps ||C^{-1}||_inf < 1`` for the grouped matrix C (more rows: 19 against 18
  at beta = 16; ``approx-rank-lower-inverse``), wherever that certifies more.
* **sandwich on a dense instance**: ``n = density * ceil(sqrt beta)^{d-1}``
  distinct points (or a fixed n), each repeated ``copies`` times, i.e. the
  weighted matrix ``W = rowsoftmax(L + 1 (log m)^T)`` with all
  ``m_j = copies``; by the multiplicity lemma
  (``softmax_rank.certified_rank_bounds``) ``rank_eps`` of the full instance
  of ``n * copies`` points equals that of W.  Lower: grouped columns (arb);
  upper: the rounded truncated SVD of W, every row error enclosed in arb.
  ``lower <= rank_eps <= upper`` on that instance.
* **for every n and every X on the circle** (d = 2), with any multiplicities:
  ``rank_eps <= ceil(pi sqrt(beta)/eps)`` (anchor rows),
  ``<= floor(pi sqrt(2 beta/eps)) + 1`` (interpolated anchors),
  ``<= floor(pi sqrt(beta/log(1 + eps))) + 1`` (tilted chords) and
  ``<= floor(2 pi sqrt(beta (1 + eps) c/eps)) + 1`` with ``c = 17/100`` (Jeffreys chords, the sharpest;
  for ``beta >= 4 eps/((1 + eps) c)``, ``floor(2 pi + pi beta (1 + eps) c/(2 eps)) + 1`` below), proved in
  docs/softmax_rank.spherical_law.md; the checker confirms each bound's
  inequality in arb (``circle-anchors``).  With the largest certified lower
  bound this is the worst-case sandwich of ``R_2(n, beta)``.

Logits and row errors are enclosed from integer-scaled matrices
(:mod:`solvers.softmax_enclosures`), not entry by entry from Fractions.

The local slopes of ``log(lower)`` against ``log(1 + beta)`` between
consecutive betas are reported as decimal strings for display, labelled
unchecked — they decide nothing — beside the law's exponent ``(d - 1)/2``.

The verdict rests on :meth:`SphericalLaw.obligations`: every instance bound
above as an ``approx-rank-at-least`` / ``-at-most`` judgment naming its instance by
digest (points, beta, multiplicities), at the point's epsilon, with
``sphere: d`` (the checker confirms ``|x|^2 = 1`` for every point), and the
all-instance bounds as ``approx-rank-at-most-every`` judgments.  The
numbers come from :func:`plan` (searches: floats propose, arb decides),
cached per beta and shared by ``run`` and ``obligations``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import ceil, floor, isqrt, log, pi, sqrt
from typing import NamedTuple

from solvers.lazy import numpy as np
from solvers.lazy import sympy as sp

from solvers import arrangements
from solvers import softmax_enclosures as E
from theorems.core import Claim, Obligations, Parameter, ParameterError, Plot, Statement, obligation
from theorems.softmax_rank import SUPPORT_GEOMETRY
from theorems.softmax_rank import _definitions as D
from theorems.softmax_rank import _laws
from theorems.softmax_rank._laws import betas, point_betas

# where the largest certified lower bound sits, rows ~ c_d beta^{(d-1)/2} (search window centre, not a verdict)
ROWS_PER_UNIT = {2: 4.5, 3: 3.4}
# the same with the inverse-norm criterion (all-rows corners 19, 39, 78, 156 on the circle at beta = 16 .. 1024;
# 75, 299 on S^2 at beta = 16, 64)
ROWS_PER_UNIT_INVERSE = {2: 4.9, 3: 4.7}


def law_exponent(d: int) -> Fraction:
    return Fraction(d - 1, 2)


def rational_sphere_points(n: int) -> list[tuple[Fraction, Fraction, Fraction]]:
    """n points exactly on the unit sphere S^2 near the Fibonacci (golden-angle) points
    (:func:`solvers.arrangements.sphere_unit`: inverse stereographic images of rounded rational (u, v))."""
    return list(arrangements.sphere_unit(n))


def sphere_points(n: int, d: int) -> list:
    return D.rational_circle_points(n) if d == 2 else rational_sphere_points(n)


def growth(beta: int, d: int) -> float:
    """beta^{(d-1)/2} as a float (for sizing searches only)."""
    return beta ** ((d - 1) / 2)


def root_ceil(beta: int) -> int:
    """ceil(sqrt(beta)), exactly."""
    r = isqrt(beta)
    return r if r * r == beta else r + 1


def window(beta: int, d: int = 2, inverse: bool = False) -> range:
    """The n searched for the largest certified lower bound: about (2/3 .. 4/3) c_d beta^{(d-1)/2}."""
    c = (ROWS_PER_UNIT_INVERSE if inverse else ROWS_PER_UNIT)[d] * growth(beta, d)
    return range(max(2, int(2 * c / 3) - 2), int(4 * c / 3) + 5)


def float_sphere_points(n: int, d: int) -> np.ndarray:
    """The floats of :func:`sphere_points` (the same rounding of the same angles), for searches only."""
    den = float(1 << 20)
    j = np.arange(n)
    if d == 2:
        theta = 2 * pi * j / n
        theta = np.where(2 * j > n, theta - 2 * pi, theta)
        s = np.round(np.tan(np.where(2 * j == n, 0.0, theta) / 2) * den) / den
        X = np.stack([(1 - s * s) / (1 + s * s), 2 * s / (1 + s * s)], axis=1)
        X[2 * j == n] = (-1.0, 0.0)
        return X
    golden = pi * (3 - sqrt(5))
    z = 1 - (2 * j + 1) / n
    r = np.sqrt(np.maximum(0.0, 1 - z * z))
    u = np.round(r * np.cos(golden * j) / (1 - z) * den) / den
    v = np.round(r * np.sin(golden * j) / (1 - z) * den) / den
    q = u * u + v * v
    return np.stack([2 * u / (1 + q), 2 * v / (1 + q), (q - 1) / (1 + q)], axis=1)


def float_attention(X: np.ndarray, beta, multiplicities=None) -> np.ndarray:
    return E.attention_floats(float(beta) * X @ X.T, multiplicities)


def all_rows_margin(A: np.ndarray) -> float:
    """The least single-column margin ``2 A_ii - 1`` (every point a row, its own column its group)."""
    return float((2 * np.diag(A) - 1).min())


def fourier_proposal(points, multiplicities, beta: Fraction, K: int):
    """Float factors (F, G) of the truncated Fourier (Bessel) series on the circle, rank 2K + 1 (a proposal).

    ``e^{beta (cos(t_i - t_j) - 1)} = a_0 + 2 sum_{k >= 1} a_k cos(k (t_i - t_j))`` with
    ``a_k = e^{-beta} I_k(beta)``, and ``cos k(t_i - t_j) = cos kt_i cos kt_j + sin kt_i sin kt_j``:
    truncating at K gives ``B_ij = m_j (a_0 + 2 sum_{k <= K} a_k cos k(t_i - t_j)) / Z_i``,
    ``Z_i = sum_j m_j e^{beta (cos(t_i - t_j) - 1)}`` — B = F G with inner dimension 2K + 1.
    """
    X = np.array([[float(v) for v in p] for p in points])
    t = np.arctan2(X[:, 1], X[:, 0])
    b, m = float(beta), np.array([float(v) for v in multiplicities])
    Z = (np.exp(b * (np.cos(t[:, None] - t[None, :]) - 1)) * m).sum(axis=1)
    from scipy.special import ive  # exponentially scaled Bessel I_k (a float proposal only)

    a = ive(np.arange(K + 1), b)
    left, right = [np.full(len(t), a[0])], [np.ones(len(t))]
    for k in range(1, K + 1):
        left += [2 * a[k] * np.cos(k * t), 2 * a[k] * np.sin(k * t)]
        right += [np.cos(k * t), np.sin(k * t)]
    return np.array(left).T / Z[:, None], np.array(right) * m


FOURIER_BITS = (56, 20)  # F ~ a_k / Z_i is small: rounded finely; G ~ m_j cos(k t_j)


def search_fourier(points, multiplicities, beta: Fraction, eps: Fraction):
    """The least K whose rounded Fourier factors are *certified* within eps: (2K + 1, F, G), or None.

    Floats propose K (the first whose float error is below eps); the row errors of the rational
    B = F G are decided by :func:`solvers.softmax_enclosures.within` (floats clear of eps, arb in
    doubt), and K grows until one is within eps; the trusted checker decides the certificate.
    """
    A = float_attention(np.array([[float(v) for v in p] for p in points]), beta, multiplicities)
    L = E.ScaledLogits.self_attention(points, beta)
    fb, gb = FOURIER_BITS
    for K in range((len(points) - 1) // 2 + 1):
        F, G = fourier_proposal(points, multiplicities, beta, K)
        if np.abs(A - F @ G).sum(axis=1).max() > float(eps) * (1 - 1e-6):
            continue
        Fi, Gi = E.integer_factor(F, fb), E.integer_factor(G, gb)
        if E.within(L, multiplicities, A, Fi, Gi, fb + gb, eps):
            return 2 * K + 1, E.fractions(Fi, fb), E.fractions(Gi, gb)
    return None


def dense_n(beta: int, point: dict) -> int:
    return point["n"] or max(16, point["density"] * root_ceil(beta) ** (point["d"] - 1))


def slope(x0: int, y0: int, x1: int, y1: int) -> str:
    """``log(y1/y0) / log((1+x1)/(1+x0))`` as a 3-decimal string (display only)."""
    return f"{log(y1 / y0) / log((1 + x1) / (1 + x0)):.3f}"


class Instance(NamedTuple):
    """Points (with multiplicities, None = all 1) and the bounds found on them."""

    points: list
    multiplicities: list[int] | None
    rows: list[int]  # rows whose grouped margins arb decided > eps (criterion margins), or proposed by the inverse norm
    groups: list[list[int]]
    upper: "_laws.Factors | None"  # (k, F, G) with B = F G certified within eps in arb, or None
    criterion: str = "margins"  # what proves rank_eps >= |rows|: the diagonal margins or the grouped inverse norm

    @property
    def lower_kind(self) -> str:
        return LOWER_KINDS[self.criterion]

    @property
    def upper_bound(self) -> int:
        """k, or the trivial n when no B was found (then the run fails and this is never discharged)."""
        return self.upper[0] if self.upper else len(self.points)


SVD_BITS = 30  # the rounded SVD factors: F = U s and G = V^T over 2^30 each

# the trusted kind of each lower-bound criterion: margins A_i(G_i) - sum_{k != i} A_i(G_k) > eps for every row, or
# eps ||C^{-1}||_inf < 1 for the grouped matrix C (the margins are its special case; it certifies more rows)
LOWER_KINDS = {"margins": "approx-rank-lower-points", "inverse": "approx-rank-lower-inverse"}


# gap ratios for the farthest-point proposal: wider gaps than D.GAP_RATIOS (up to 4: a column is kept only when its
# owner outweighs the runner-up four times) — on S^2 a row has ~6 neighbours, whose shared columns are better left out
SPREAD_RATIOS = (*D.GAP_RATIOS, 1.75, 2.0, 2.5, 3.0, 4.0)


def proposed_rows(X: np.ndarray, A: np.ndarray, eps: Fraction, inverse: bool = False) -> tuple[list[int], list[list[int]]]:
    """(rows, groups) the float searches propose on the attention A of the points X: evenly spaced in the points'
    numbering, and on S^2 also prefixes of the farthest-point order with gaps up to ``SPREAD_RATIOS``; the more rows.
    Judged by the diagonal margins, or with ``inverse`` by the grouped matrix's inverse norm
    (:func:`theorems.softmax_rank._laws.search_inverse`)."""
    search = _laws.search_inverse if inverse else D.search_grouped
    rows, groups = search(A, eps)
    if X.shape[1] > 2:
        spread = search(A, eps, D.farthest_point_order(X), nested=True, ratios=SPREAD_RATIOS)
        rows, groups = spread if len(spread[0]) > len(rows) else (rows, groups)
    return rows, groups


def all_rows_pass(A: np.ndarray, eps: Fraction, inverse: bool) -> bool:
    """Every point a row with its own column passes the criterion, in floats (a proposal)."""
    if inverse:
        n = len(A)
        return _laws.passes_inverse(A, range(n), [[i] for i in range(n)], eps)
    return all_rows_margin(A) > float(eps) + 1e-9


def inverse_rows(points, X: np.ndarray, A: np.ndarray, eps: Fraction) -> tuple[list[int], list[list[int]]]:
    """(rows, groups) passing the inverse-norm criterion in floats: every point when they all pass, else the
    grouped proposals (:func:`proposed_rows`); the trusted checker decides the certificate in arb."""
    if A.shape[0] == A.shape[1] and all_rows_pass(A, eps, True):
        return list(range(len(points))), [[i] for i in range(len(points))]
    return proposed_rows(X, A, eps, inverse=True)


def certified_grouped(points, X: np.ndarray, beta: Fraction, m, eps: Fraction, A: np.ndarray | None = None):
    """(rows, groups): the float search's rows and Voronoi groups whose margins are decided > eps (floats
    when clear of eps, arb in doubt: :func:`solvers.softmax_enclosures.grouped_margins`; uncertain rows
    dropped); only the logits of the proposed rows are built, as integers.

    On S^2 the rows are also proposed as prefixes of the farthest-point order (Fibonacci points are numbered
    along a spiral: rows evenly spaced in that numbering bunch up; 9 rows against 30 at beta = 16 on the
    dense instance of 128 points, with the wider gaps of ``SPREAD_RATIOS``); the proposal with more rows is kept.  On the circle the numbering is
    the angular order, already evenly spread."""
    A = float_attention(X, beta, m) if A is None else A
    rows, groups = proposed_rows(X, A, eps)
    L = E.ScaledLogits.self_attention(points, beta, rows)
    keep = set(E.grouped_margins(L, m, eps, rows, groups, local=range(len(rows)), floats=D.grouped_margins(A, rows, groups))["certain"])
    return [i for i in rows if i in keep], [g for i, g in zip(rows, groups) if i in keep]


def _instance(points, multiplicities, beta: Fraction, eps: Fraction, with_upper: bool, inverse: bool = False) -> Instance:
    """The bounds on one instance: the margins' rows (floats, arb in doubt), and with ``inverse`` the inverse-norm
    criterion's rows when they are more (floats clear of 1 by ``DOUBT``; the checker decides); the upper bound
    B = A rounded when every point is a row, else the least certified truncated SVD."""
    X = np.array([[float(v) for v in x] for x in points])
    A = float_attention(X, beta, multiplicities)
    if all_rows_margin(A) > float(eps) + 1e-9:  # every point a row with its own column: rank_eps <= n is then exact
        rows, groups = list(range(len(points))), [[i] for i in range(len(points))]
        L = E.ScaledLogits.self_attention(points, beta)
        keep = set(E.grouped_margins(L, multiplicities, eps, rows, groups, floats=D.grouped_margins(A, rows, groups))["certain"])
        rows, groups = [i for i in rows if i in keep], [g for i, g in zip(rows, groups) if i in keep]
    else:
        rows, groups = certified_grouped(points, X, beta, multiplicities, eps, A)
    criterion = "margins"
    if inverse:
        more = inverse_rows(points, X, A, eps)
        if len(more[0]) > len(rows):
            (rows, groups), criterion = more, "inverse"
    upper = None
    if with_upper and len(rows) == len(points) and multiplicities is None:
        # B = A rounded (F = I, G = A to 2^-40): rank n, every row error ~n 2^-40
        upper = _laws.Factors.identity(A)
    elif with_upper:
        found = E.search_svd_upper(E.ScaledLogits.self_attention(points, beta), multiplicities, eps, SVD_BITS, SVD_BITS, A)
        if found:
            k, F, G = found
            upper = _laws.Factors.dyadic(k, F, G, SVD_BITS)
    return Instance(points, multiplicities, rows, groups, upper, criterion)


def largest_window_n(beta: Fraction, eps: Fraction, d: int, inverse: bool = False) -> int:
    """The n near the corner of the law with the most proposed rows (the first such n).

    The largest certified lower bounds sit where every point is a row (single-column
    groups, margin ``2 A_ii - 1 > eps``, or with ``inverse`` ``eps ||A^{-1}||_inf < 1``):
    the largest such n in the window is found by bisection (the diagonal shrinks as points
    are added), then the few sizes above it (3 on the circle, 6 on S^2) are searched with
    grouped columns (:func:`proposed_rows`; floats propose, arb decides later).
    """
    w = window(int(beta), d, inverse)
    fits = lambda n: all_rows_pass(float_attention(float_sphere_points(n, d), beta), eps, inverse)
    low, high = w.start, w.stop
    if not fits(low):
        high = low
    while low + 1 < high:
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    best = (low, low) if fits(low) else None  # every point a row: no n' <= low does better
    # on S^2 grouped columns on up to 6 more points can beat the all-rows instance (220 rows on 222 points at beta = 64)
    for n in range(low + 1, low + (4 if d == 2 else 7)):
        X = float_sphere_points(n, d)
        rows, _ = proposed_rows(X, float_attention(X, beta), eps, inverse)
        if best is None or len(rows) > best[0]:
            best = (len(rows), n)
    return best[1]


def worst_case_bounds(beta: int, eps: Fraction) -> dict:
    """The all-instance upper bounds on the circle at beta: the least integers passing each lemma's inequality
    (found from a float guess, each candidate decided by the trusted checker's arb test)."""
    from solvers.trusted import geometry

    def least(construction: str, guess: float) -> int:
        return _laws.least_accepted(lambda bound: geometry.circle_bound_holds(construction, Fraction(beta), Fraction(eps), bound), guess)

    return {"anchor-rows": least("anchor-rows", ceil(pi * sqrt(beta) / float(eps))),
            "interpolated-anchors": least("interpolated-anchors", floor(pi * sqrt(2 * beta / float(eps))) + 1),
            "tilted-chords": least("tilted-chords", floor(pi * sqrt(beta / log(1 + float(eps)))) + 1),
            "jeffreys-chords": least("jeffreys-chords", floor(2 * pi * sqrt(beta * (1 + float(eps)) * float(geometry.CHORD_CIRCLE) / float(eps))) + 1)}


@lru_cache(maxsize=32)
def _plan(b: int, d: int, eps: Fraction, dense: int, copies: int, upper: int, fourier: int, inverse: int = 0) -> dict:
    beta = Fraction(b)
    points = sphere_points(dense, d)
    m = [copies] * dense
    found = {
        "largest": _instance(sphere_points(largest_window_n(beta, eps, d, bool(inverse)), d), None, beta, eps, True, bool(inverse)),
        "dense": _instance(points, m, beta, eps, bool(upper), bool(inverse)),
        "fourier": search_fourier(points, m, beta, eps) if fourier else None,
        "every": worst_case_bounds(b, eps) if d == 2 else None,
    }
    return found


def plan(b: int, point: dict) -> dict:
    """At beta = b: the largest-lower instance and the dense one with the bounds the searches found
    (floats propose, arb decides), the certified Fourier B, and the all-instance bounds (d = 2);
    cached, shared by run and obligations."""
    return _plan(b, point["d"], Fraction(point["epsilon"]), dense_n(b, point), point["copies"], point["upper"], point["fourier"],
                 point["inverse"])


def every_obligation(b: int, eps: Fraction, construction: str, bound: int):
    """``rank_eps <= bound`` for every n, every X on the circle and every multiplicities, at beta = b."""
    return obligation(f"beta = {b}, every n and X on S^1, any multiplicities ({construction}; eps = {eps}): rank_eps <= {bound}",
                      "approx-rank-at-most-every", family="circle", beta_up_to=Fraction(b), epsilon=Fraction(eps), bound=bound)


class SphericalLaw(Claim):
    id = "softmax_rank.spherical_law"
    paper = "2608.28150"
    sentence = SUPPORT_GEOMETRY
    title = "Spherical law on the circle (S^2 with d=3): certified rank_eps sandwiches against beta, slopes beside (d-1)/2"
    relation = "a finite step of an asymptotic"
    expected = "verified"
    established = "verified"
    uses = ("softmax_rank.certified_rank_bounds", "softmax_rank.duality")
    formal = ("grouped_lower_bound",)
    parameters = (
        Parameter("d", 2, 2, 3, "dimension: the circle S^1 (2) or the sphere S^2 (3, Fibonacci points)"),
        Parameter("beta_min", 1, 1, 4**7, "smallest temperature; the betas are the powers of step in [beta_min, beta_max]"),
        Parameter("beta_max", 256, 1, 4**7, "largest temperature"),
        Parameter("step", 4, 2, 16, "the betas are the powers of step"),
        Parameter("beta", 0, 0, 4**7, "one temperature instead of the range (0 = use beta_min, beta_max, step)"),
        Parameter("epsilon", Fraction(1, 10), Fraction(1, 10**6), Fraction(1), "epsilon, in (0, 1)", kind=Fraction, high_open=True),
        Parameter("density", 8, 4, 256, "dense instance: n = max(16, density * ceil(sqrt(beta))^{d-1}) distinct points"),
        Parameter("n", 0, 0, 8192, "dense instance: a fixed number of distinct points instead (0 = use density)"),
        Parameter("copies", 1000, 1, 10**9, "each distinct point of the dense instance repeated this many times"),
        Parameter("upper", 1, 0, 1, "certify the dense instance's upper bound too (1) or only its lower bound (0)"),
        Parameter("fourier", 0, 0, 1, "also certify the truncated Fourier (Bessel) construction on the dense instance (d = 2)"),
        Parameter("inverse", 0, 0, 1, "also search lower bounds by the grouped matrix's inverse norm (eps ||C^-1||_inf < 1, kind "
                  "approx-rank-lower-inverse) and keep them where they certify more rows (0: the diagonal margins only)"),
    )

    def statement(self) -> Statement:
        beta, eps = sp.Symbol("beta", positive=True), sp.Symbol("varepsilon", positive=True)
        d, k = sp.Symbol("d", integer=True, positive=True), sp.Symbol("k", integer=True)
        step, beta_min, beta_max = sp.symbols("step beta_min beta_max", positive=True)
        rank = sp.Function(r"\operatorname{rank}_\varepsilon", integer=True)
        softmax = sp.Function(r"\operatorname{rowsoftmax}")
        lower, upper = sp.Function("lower", integer=True), sp.Function("upper", integer=True)
        from solvers.trusted.geometry import CHORD_CIRCLE
        c = sp.Rational(CHORD_CIRCLE.numerator, CHORD_CIRCLE.denominator)  # the Jeffreys chords' constant
        beta_0 = sp.Mul(4 * c.denominator, eps, sp.Pow(sp.Mul(c.numerator, 1 + eps, evaluate=False), -1, evaluate=False),
                        evaluate=False)  # 4 x* = 4 eps/((1 + eps) c), shown as 400 eps/(17 (eps + 1))

        def rank_eps(name: str):  # rank_eps(rowsoftmax(beta Z Z^T)) of the points Z
            points = sp.Symbol(name, commutative=False)
            return points, rank(softmax(beta * points * sp.Symbol(name + r"^\top", commutative=False)))

        X, at_X = rank_eps("X")
        Y, at_Y = rank_eps("Y")
        betas = sp.Intersection(sp.ImageSet(sp.Lambda(k, step**k), sp.Integers), sp.Interval(beta_min, beta_max), evaluate=False)
        anchors = sp.Min(sp.ceiling(sp.pi * sp.sqrt(beta) / eps), sp.floor(sp.pi * sp.sqrt(sp.UnevaluatedExpr(2 * beta / eps))) + 1,
                         sp.floor(sp.pi * sp.sqrt(sp.UnevaluatedExpr(beta / sp.log(1 + eps)))) + 1,
                         # Jeffreys chords: below 4 x* the count is 2 pi + pi beta/(2 x*) < 4 pi, so beta -> max(beta, 4 x*) is valid
                         sp.floor(2 * sp.pi * sp.sqrt(sp.UnevaluatedExpr(sp.Max(beta, beta_0, evaluate=False) * (1 + eps) * c / eps))) + 1,
                         evaluate=False)  # the anchor rows', the interpolated anchors', the tilted and the Jeffreys chords' bounds
        return Statement(
            hypotheses=(
                (sp.Contains(beta, betas, evaluate=False), "for each temperature beta = step^k (k an integer) in [beta_min, beta_max]"),
                (sp.Contains(eps, sp.Interval.open(0, 1), evaluate=False), "for the given epsilon in (0, 1)"),
                (sp.Contains(d, sp.FiniteSet(2, 3), evaluate=False), "on the circle S^1 (d = 2) or the sphere S^2 (d = 3)"),
            ),
            conclusion=(
                sp.And(sp.Contains(at_X, sp.Interval(lower(X), upper(X)), evaluate=False),
                       sp.Implies(sp.Eq(d, 2), sp.Le(at_Y, anchors))),
                "on every instance X certified at beta (n rational points exactly on S^{d-1}, each with its "
                "multiplicity: the largest certified lower bound's window instance and the dense instance), "
                "lower(X) <= rank_eps <= upper(X), the bounds its certificates state; for d = 2 also on every finite "
                "set Y of points of the circle, with any multiplicities (anchor rows, interpolated anchors, tilted and Jeffreys chords). The law "
                "Theta(min{n, (1+beta)^{(d-1)/2}}) on the worst case sup_{n,X} rank_eps is not checked",
            ),
        )

    def validate(self, point: dict) -> None:
        D.check_epsilon(point["epsilon"], f"epsilon of {self.id}")
        if point["beta_min"] > point["beta_max"]:
            raise ParameterError(f"beta_min ({point['beta_min']}) must be <= beta_max ({point['beta_max']}) in {self.id}")
        if point["fourier"] and point["d"] != 2:
            raise ParameterError(f"fourier = 1 needs d = 2 (the construction is the Fourier series on the circle), got d = {point['d']} in {self.id}")
        if not point_betas(point):
            raise ParameterError(f"no power of {point['step']} lies in [beta_min, beta_max] = [{point['beta_min']}, {point['beta_max']}] in {self.id}")

    def cost(self, point: dict) -> float:
        # seconds on one core, calibrated by bench/geometric_laws.py: an arb softmax entry ~3e-6 s, built
        # twice (the search's decision and the trusted re-check); a certificate number parsed ~5e-6 s; the
        # float SVD and its bisection on k ~1e-8 n^3; float Voronoi searches ~1e-8 n r per attempt, ~60 attempts
        total = 0.2
        d = point["d"]
        for b in point_betas(point):
            n, r = dense_n(b, point), ROWS_PER_UNIT[d] * growth(b, d) + 2
            total += 2 * (2 * 3e-6 * r * r + 5e-6 * r * r) + 60e-8 * r * r * 3  # the largest-lower instance
            total += 2 * 3e-6 * r * n + 60e-8 * n * r  # the dense instance's lower bound
            total += (point["upper"] + point["fourier"]) * (2 * 2 * 3e-6 * n * n + 2 * 5e-6 * n * r + 1e-8 * n**3)
            if point["inverse"]:
                # the inverse-norm criterion: a larger all-rows instance (q ~ c'_d beta^{(d-1)/2} points, its
                # certificates as above), float inverses in the searches (~60 attempts, ~1e-10 q^3 each, window and
                # dense instance), the checker's arb entries and arb_mat.inv (~1e-8 q^3 at 64 bits); measured at
                # beta = 16384 (upper = 0): 7.8 s of CPU more than the margins alone, estimated 9.9 s more
                q = ROWS_PER_UNIT_INVERSE[d] * growth(b, d) + 2
                total += 2 * (2 * 3e-6 + 5e-6) * max(0.0, q * q - r * r) + 3e-6 * q * (q + n) + 2 * 60 * 1e-10 * q**3 + 1e-8 * q**3
        return total

    def witness(self, point: dict):
        """The dense instances: {beta: (points, multiplicities)}."""
        out = {}
        for b in point_betas(point):
            n = dense_n(b, point)
            out[b] = (sphere_points(n, point["d"]), [point["copies"]] * n)
        return out

    # ----------------------------------------------------------- obligations

    def obligations(self, point: dict) -> Obligations:
        """For each beta = step^k in range, on points exactly on S^{d-1}, at the point's epsilon:

        * the largest certified lower bound: ``lower <= rank_eps <= upper`` on the
          ``n`` points of the window instance :func:`plan` chose;
        * the dense instance (its points, each ``copies`` times): ``lower <= rank_eps``,
          and ``<= upper`` when asked, and ``<= 2K + 1`` for the Fourier B when asked and found;
        * d = 2: for every n, every X on the circle and every multiplicities, ``rank_eps <=`` each
          lemma's bound at beta (``approx-rank-at-most-every``, family "circle").

        Each names its instance by digest; the numbers are the ones :func:`plan` found
        (an upper bound not found is stated as n, which fails the run).
        """
        eps, d, verify = point["epsilon"], point["d"], []
        for b in point_betas(point):
            p = plan(b, point)
            big, dense = p["largest"], p["dense"]
            verify += D.sandwich_obligations(f"beta = {b}, largest lower", big.points, b, None, eps, len(big.rows), big.upper_bound, d)
            verify += D.sandwich_obligations(f"beta = {b}, dense instance", dense.points, b, dense.multiplicities, eps, len(dense.rows),
                                             dense.upper_bound if point["upper"] else None, d)
            if p["fourier"] is not None:
                verify += D.sandwich_obligations(f"beta = {b}, dense instance, Fourier B", dense.points, b, dense.multiplicities, eps,
                                                 len(dense.rows), p["fourier"][0], d)[1:]
            for construction, bound in (p["every"] or {}).items():
                verify.append(every_obligation(b, eps, construction, bound))
        bs = ", ".join(map(str, point_betas(point)))
        every = "; for every n and every X on S^1 (any multiplicities) rank_eps <= the anchor bounds" if d == 2 else ""
        return Obligations(verify=tuple(verify), reach=f"beta in {{{bs}}} on S^{d - 1} at eps = {eps} (finite sandwiches{every}; the Theta law is not checked)")

    # ------------------------------------------------------------------ run

    def run(self, point: dict, ev) -> None:
        eps = point["epsilon"]
        largest, sandwich, fourier, every = {}, {}, {}, {}
        for b in point_betas(point):
            p = plan(b, point)
            ev.poll()
            for name, inst in (("largest", p["largest"]), ("dense", p["dense"])):
                with_upper = name == "largest" or point["upper"]
                if not self._certify(inst, Fraction(b), eps, with_upper, ev):
                    return
            largest[b] = {"n": len(p["largest"].points), "lower": len(p["largest"].rows), "upper": p["largest"].upper_bound}
            sandwich[b] = {"n": len(p["dense"].points), "lower": len(p["dense"].rows),
                           "upper": p["dense"].upper_bound if point["upper"] else None}
            if point["fourier"]:
                fourier[b] = self._fourier(p["dense"], p["fourier"], Fraction(b), eps, ev)
            for construction, bound in (p["every"] or {}).items():
                ev.certify("circle-anchors", {"construction": construction, "beta": Fraction(b), "epsilon": eps, "bound": bound})
            if p["every"]:
                every[b] = dict(p["every"])
            ev.poll()
        ev.fact("largest_certified_lower", largest)
        ev.fact("sandwich", {b: {"lower": s["lower"], "upper": s["upper"]} for b, s in sandwich.items()})
        if point["fourier"]:
            ev.fact("fourier_upper (dense instance, rank 2K+1 of the truncated Bessel series; None: not below n)", fourier)
        if every:
            ev.fact("worst_case_sandwich (R_2(n, beta) = sup over n points of S^1: certified lower .. all-instance upper min(n, best))", {
                b: {"lower": largest[b]["lower"], "upper": min(every[b].values()), "anchor rows": every[b]["anchor-rows"],
                    "interpolated anchors": every[b]["interpolated-anchors"], "tilted chords": every[b]["tilted-chords"],
                    "jeffreys chords": every[b]["jeffreys-chords"],
                    "ratio": f"{min(every[b].values()) / largest[b]['lower']:.2f}"}
                for b in every})
        ev.fact("instance_sandwiches", {b: {"largest-lower instance": [largest[b]["lower"], largest[b]["upper"]],
                                            "dense instance": [sandwich[b]["lower"], sandwich[b]["upper"]]} for b in largest})
        ev.fact("dense_instances", {b: {"n distinct": s["n"], "copies": point["copies"], "points": s["n"] * point["copies"]} for b, s in sandwich.items()})
        bs = sorted(largest)
        ev.fact("local_slopes_unchecked (display only: decimal strings of log(lower) against log(1+beta); they decide nothing)", {
            "largest lower": {f"{a}-{c}": slope(a, largest[a]["lower"], c, largest[c]["lower"]) for a, c in zip(bs, bs[1:])},
            "dense lower": {f"{a}-{c}": slope(a, sandwich[a]["lower"], c, sandwich[c]["lower"]) for a, c in zip(bs, bs[1:])},
            "dense upper": {f"{a}-{c}": slope(a, sandwich[a]["upper"], c, sandwich[c]["upper"])
                            for a, c in zip(bs, bs[1:]) if point["upper"]},
            "law exponent (d-1)/2": law_exponent(point["d"]),
        })
        fits = {"largest lower": _laws.fitted_slope([1 + b for b in bs], [largest[b]["lower"] for b in bs], 1 + _laws.FIT_FROM, "1 + beta")}
        if point["upper"]:
            fits["dense upper"] = _laws.fitted_slope([1 + b for b in bs], [sandwich[b]["upper"] for b in bs], 1 + _laws.FIT_FROM, "1 + beta")
        fits["law exponent (d-1)/2"] = law_exponent(point["d"])
        ev.fact("fitted_slopes_unchecked (display only: least squares of log(bound) on log(1+beta), beta >= 64; they decide nothing)", fits)
        ev.cover("betas", bs)
        ev.cover("epsilon", eps)
        ev.note(
            f"certified on S^{point['d'] - 1} at beta = " + ", ".join(
                f"{b}: lower {largest[b]['lower']} (n = {largest[b]['n']}), dense {sandwich[b]['lower']}.."
                f"{sandwich[b]['upper'] if sandwich[b]['upper'] is not None else '(upper not asked)'}" for b in bs)
            + f" (eps = {eps}); the Theta law itself is stated, not checked"
        )

    def _certify(self, inst: "Instance", beta: Fraction, eps: Fraction, with_upper: bool, ev) -> bool:
        """Hand the instance's lower (and upper) certificate to the checker; False if the run cannot go on."""
        ev.certify(inst.lower_kind, D.lower_certificate_points(inst.points, beta, inst.multiplicities, eps, inst.rows, inst.groups))
        if not with_upper:
            return True
        if inst.upper is None:
            ev.fail("no upper certificate found (B = A itself should always be found)", {"beta": beta, "n": len(inst.points)})
            return False
        k, F, G = inst.upper
        ev.certify("approx-rank-upper-points", D.upper_certificate_points(inst.points, beta, inst.multiplicities, eps, F, G))
        if len(inst.rows) > k:
            ev.fail("the certified lower bound exceeds the certified upper bound", {"beta": beta, "n": len(inst.points), "lower": len(inst.rows), "upper": k})
            return False
        return True

    def _fourier(self, dense: "Instance", found, beta: Fraction, eps: Fraction, ev):
        """The truncated Fourier construction on the dense instance, certified; its rank (None if not below n)."""
        if found is None:
            return None
        k, F, G = found
        ev.certify("approx-rank-upper-points", D.upper_certificate_points(dense.points, beta, dense.multiplicities, eps, F, G))
        if len(dense.rows) > k:
            ev.fail("the certified lower bound exceeds the certified Fourier upper bound", {"beta": beta, "lower": len(dense.rows), "upper": k})
        return k

    # ---------------------------------------------------------------- plots

    def plots(self, record: dict) -> list[Plot]:
        """log-log: certified lower and upper against 1 + beta, with a reference line of slope (d-1)/2."""
        facts = record.get("facts", {})
        largest, sandwich = facts.get("largest_certified_lower", {}), facts.get("sandwich", {})
        if not largest:
            return []
        bs = sorted(int(b) for b in largest)
        xs = tuple(float(1 + b) for b in bs)

        def get(table, b, key):
            row = table.get(str(b), table.get(b))  # JSON records key by strings, live facts by ints
            return None if row is None or row.get(key) is None else float(row[key])

        # drawn order = the order here: the upper bounds first, the largest certified lower (the headline, which the
        # dense instance's upper nearly meets) last, on top; each data series has its own marker
        series = []
        every = next((v for k, v in facts.items() if k.startswith("worst_case_sandwich")), {})
        for key, label in (("anchor rows", "every n and X: anchor rows (upper)"), ("interpolated anchors", "every n and X: interpolated anchors (upper)"),
                           ("tilted chords", "every n and X: tilted chords (upper)"),
                           ("jeffreys chords", "every n and X: Jeffreys chords (upper)")):
            ys = [get(every, b, key) for b in bs]
            if every and all(y is not None for y in ys):
                series.append((label, xs, tuple(ys)))
        for key, label in (("upper", "dense instance: certified upper"), ("lower", "dense instance: certified lower")):
            ys = [get(sandwich, b, key) for b in bs]
            if all(y is not None for y in ys):
                series.append((label, xs, tuple(ys)))
        lowest = tuple(get(largest, b, "lower") for b in bs)
        series.append(("largest certified lower (over n)", xs, lowest))
        d = int(record.get("parameters", {}).get("d", 2))
        e = (d - 1) / 2
        # the reference line: the law's slope, at half the height of the last largest lower bound (out of the data's way)
        anchor = lowest[-1] / xs[-1] ** e / 2
        series.append((f"slope {law_exponent(d)} reference (shifted down)", xs, tuple(anchor * x**e for x in xs)))
        return [Plot(
            name="spherical_law", title=f"S^{d - 1} (d = {d}): certified rank_eps against 1 + beta, law exponent (d-1)/2 = {law_exponent(d)}",
            xlabel="1 + beta", ylabel="rank_eps bounds", series=tuple(series), logx=True, logy=True, kind="line",
            note=f"eps = {record.get('parameters', {}).get('epsilon', '1/10')}; floats for display only",
        )]


CLAIM = SphericalLaw()
