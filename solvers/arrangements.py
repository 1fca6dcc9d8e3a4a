"""Rim-aware arrangements of rational points in the closed unit ball: rings (d = 2) or shells (d = 3) from the rim in.

Why the rim.  With the Gaussian multiplicities of the ball law
(``m_j ~ e^{beta (1 - |x_j|^2)/2}``) a row of ``rowsoftmax(beta X X^T + 1 (log m)^T)``
is a Gaussian of width ``1/sqrt(beta)`` around its point.  A point on the rim
has neighbours on one side only, so it keeps its own column with less room
than an interior point: the rim carries points closer together than the
interior does.  At small beta the rim is most of the disk (at beta = 16 the
disk is four kernel widths across), and a lattice, which spaces the rim as the
interior, leaves those rows out.

The arrangement ``concentric(d, root, rim, gap, spacing)`` (all lengths in
kernel widths ``1/root``, ``root = sqrt(beta)`` an integer):

* ring (shell) t = 0, 1, ... at radius ``r_t = 1 - t gap / root`` while
  ``r_t root > spacing / 2``: for d = 2, ``k_t = floor(2 pi r_t root / s_t)``
  points evenly spaced in angle (odd rings turned by half a step, staggered as a
  hexagonal lattice is); for d = 3, ``k_t = floor(4 pi (r_t root)^2 / (s_t^2 sqrt(3)/2))``
  Fibonacci (golden-angle) points of the sphere of radius r_t (each takes the area
  of a hexagonal cell of side s_t); ``s_0 = rim``, ``s_t = spacing`` for t >= 1;
* the centre, when every point placed is at least ``0.8 spacing`` from it.

Every point is **rational with** ``|x|^2 = r_t^2 <= 1`` **exactly**: on the circle
``r ((1 - u^2)/(1 + u^2), 2u/(1 + u^2))`` with u = tan(theta/2) rounded to 2^-20;
on the sphere the inverse stereographic image of a rounded (u, v), scaled by r.
The counts and angles are floats (a proposal): the instance is whatever rational
points come out, and the certificates on them decide.

:func:`search` proposes, in floats, the arrangement with the most points whose
every point keeps its own column with margin ``2 A_ii - 1 > eps`` (then every
point is a row of a grouped-column certificate and ``rank_eps >= #points``): a
grid over (rim, gap) and, for each, a bisection on the interior spacing (sparser
interiors dominate more).  Floats only propose; the caller certifies.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import cos, floor, pi, sin, sqrt, tan
from typing import Callable, NamedTuple

from solvers.lazy import numpy as np

DENOMINATOR = 1 << 20  # tan(theta/2) and the stereographic (u, v) are rounded to this
CENTRE_CLEARANCE = 0.8  # the centre is added when every placed point is >= 0.8 spacing from it
GOLDEN = pi * (3 - sqrt(5))
# the searched grids (kernel widths, exact steps of 1/20 and 1/10): the rim needs less room than the interior
RIM = {2: tuple(Fraction(k, 20) for k in range(28, 35)), 3: tuple(Fraction(k, 10) for k in range(18, 25))}
GAP = {2: tuple(Fraction(k, 10) for k in range(16, 25)), 3: tuple(Fraction(k, 10) for k in range(20, 29))}
SPACING = tuple(Fraction(k, 20) for k in range(30, 61))
FULL_GRID_POINTS = 300


class Arrangement(NamedTuple):
    """The parameters (kernel widths) of one concentric arrangement."""

    rim: Fraction
    gap: Fraction
    spacing: Fraction


@lru_cache(maxsize=4096)
def circle_unit(k: int, turn: float = 0.0) -> tuple[tuple[Fraction, Fraction], ...]:
    """k rational points exactly on the unit circle near the angles ``2 pi (j + turn) / k``.

    ``((1 - s^2)/(1 + s^2), 2s/(1 + s^2))`` is on the circle for every rational s; s is
    tan(theta/2) rounded to 2^-20 (theta in (-pi, pi]; theta = pi gives (-1, 0)).
    """
    out = []
    for j in range(k):
        theta = 2 * pi * (j + turn) / k
        theta -= 2 * pi * round(theta / (2 * pi))  # into (-pi, pi]: tan(theta/2) finite
        if abs(abs(theta) - pi) < 1e-12:
            out.append((Fraction(-1), Fraction(0)))
            continue
        a, d2 = round(tan(theta / 2) * DENOMINATOR), DENOMINATOR * DENOMINATOR
        out.append((Fraction(d2 - a * a, d2 + a * a), Fraction(2 * a * DENOMINATOR, d2 + a * a)))
    return tuple(out)


@lru_cache(maxsize=4096)
def sphere_unit(k: int) -> tuple[tuple[Fraction, Fraction, Fraction], ...]:
    """k rational points exactly on the unit sphere S^2 near the Fibonacci (golden-angle) points.

    Inverse stereographic projection from the north pole,
    ``(u, v) -> (2u, 2v, u^2 + v^2 - 1) / (1 + u^2 + v^2)``, maps every rational (u, v)
    to a rational point of S^2; (u, v) is the projection of the j-th Fibonacci point
    (height ``1 - (2j + 1)/k``, never the pole) rounded to 2^-20 — the points of the spherical law on S^2.
    """
    out = []
    for j in range(k):
        z = 1 - (2 * j + 1) / k
        r = sqrt(max(0.0, 1 - z * z))
        u = Fraction(round(r * cos(GOLDEN * j) / (1 - z) * DENOMINATOR), DENOMINATOR)
        v = Fraction(round(r * sin(GOLDEN * j) / (1 - z) * DENOMINATOR), DENOMINATOR)
        s = u * u + v * v
        out.append((2 * u / (1 + s), 2 * v / (1 + s), (s - 1) / (1 + s)))
    return tuple(out)


def rings(d: int, root: int, arrangement: Arrangement) -> list[tuple[Fraction, tuple]]:
    """The rings (shells) of the arrangement: [(radius r_t, the unit points of ring t)], centre last as (0, [0])."""
    rim, gap, spacing = arrangement
    out, t = [], 0
    while True:
        r = 1 - t * gap / root
        if r * root <= spacing / 2:
            break
        s = float(rim if t == 0 else spacing)
        if d == 2:
            k = floor(2 * pi * float(r * root) / s)
            unit = circle_unit(k, 0.5 * (t % 2)) if k else ()
        else:
            k = floor(4 * pi * float(r * root) ** 2 / (s * s * sqrt(3) / 2))
            unit = sphere_unit(k) if k else ()
        if not unit:
            break
        out.append((r, unit))
        t += 1
    if all(r * root >= CENTRE_CLEARANCE * spacing for r, _ in out):
        out.append((Fraction(0), (tuple(Fraction(0) for _ in range(d)),)))
    return out


def concentric(d: int, root: int, arrangement: Arrangement) -> list[tuple]:
    """The rational points of the arrangement (``|x| = r_t`` exactly on ring t), rim first."""
    return [tuple(r * c for c in x) for r, unit in rings(d, root, arrangement) for x in unit]


def floats(points) -> "np.ndarray":
    """The points as a float array (searches only)."""
    return np.array([[float(c) for c in x] for x in points], dtype=float)


@lru_cache(maxsize=4096)
def _unit_floats(unit: tuple) -> "np.ndarray":
    return floats(unit)


def concentric_floats(d: int, root: int, arrangement: Arrangement) -> "np.ndarray":
    """The floats of :func:`concentric` (each ring's unit points converted once and scaled: a search's view)."""
    parts = [float(r) * _unit_floats(unit) for r, unit in rings(d, root, arrangement)]
    return np.concatenate(parts) if parts else np.zeros((0, d))


def all_rows_margin(X: "np.ndarray", log_weights: "np.ndarray", beta: float) -> float:
    """The least ``2 A_ii - 1`` of ``A = rowsoftmax(beta X X^T + 1 w^T)`` in floats (a proposal)."""
    L = beta * X @ X.T + log_weights[None, :]
    L -= L.max(axis=1, keepdims=True)
    A = np.exp(L)
    A /= A.sum(axis=1, keepdims=True)
    return float((2 * np.diag(A) - 1).min())


def search(d: int, root: int, eps: Fraction, log_weight: Callable[["np.ndarray"], "np.ndarray"], full: bool | None = None) -> tuple[Arrangement, int] | None:
    """The arrangement of the grids with the most points all of whose rows keep their own column with float margin
    ``> eps`` (and its size), or None.  ``log_weight(|x|^2)`` gives the log multiplicities (floats).

    For each (rim, gap) of the grids (``full``; else the rims at the middle gap, then every gap at the best
    rim; by default full while the grids' middle arrangement has at most ``FULL_GRID_POINTS`` points) the least interior spacing that passes is found by bisection (a sparser interior dominates more; the
    test is re-run on the result, so a non-monotone step only costs a point).  Floats only: the caller
    certifies the chosen instance.
    """
    beta, threshold = float(root * root), float(eps) + 1e-9
    cache: dict = {}

    def passes(a: Arrangement) -> int:
        if a not in cache:
            X = concentric_floats(d, root, a)
            cache[a] = len(X) if len(X) and all_rows_margin(X, log_weight((X * X).sum(axis=1)), beta) > threshold else 0
        return cache[a]

    def best_spacing(rim: Fraction, gap: Fraction) -> tuple[Arrangement, int] | None:
        low, high = 0, len(SPACING) - 1
        if not passes(Arrangement(rim, gap, SPACING[high])):
            return None
        while low < high:
            mid = (low + high) // 2
            low, high = (low, mid) if passes(Arrangement(rim, gap, SPACING[mid])) else (mid + 1, high)
        a = Arrangement(rim, gap, SPACING[low])
        return (a, passes(a)) if passes(a) else None

    def most(candidates) -> tuple[Arrangement, int] | None:
        found = [f for f in candidates if f is not None]
        return max(found, key=lambda f: f[1]) if found else None  # ties: the first (max keeps it)

    if full is None:  # the full grid costs ~4 times the coordinates: worth it on small instances only
        full = len(concentric_floats(d, root, Arrangement(RIM[d][len(RIM[d]) // 2], GAP[d][len(GAP[d]) // 2], SPACING[len(SPACING) // 2]))) <= FULL_GRID_POINTS
    if not full:  # coordinates: the rims at the middle gap, then the gaps at the best rim (16 pairs instead of 63)
        middle = GAP[d][len(GAP[d]) // 2]
        first = most(best_spacing(rim, middle) for rim in RIM[d])
        rims = (first[0].rim,) if first else RIM[d]
        return most([first, *(best_spacing(rim, gap) for rim in rims for gap in GAP[d])])
    return most(best_spacing(rim, gap) for rim in RIM[d] for gap in GAP[d])
