"""What the geometric laws (S2, S3, S5) share: certified sandwiches on explicit instances, fitted slopes, plots.

* :func:`instance_bounds`: on one instance (logits ``scale * N + bias`` with
  multiplicities), the rows and groups of a grouped-column lower bound whose
  margins are > eps, and the least rounded truncated SVD ``B = F G`` within
  eps — floats propose and answer where they are clear of eps by
  ``softmax_enclosures.DOUBT``, arb decides the rest, and the trusted checker
  decides every certificate.
* :func:`fitted_slope`: the least-squares slope of ``log y`` against
  ``log x`` on the points with ``x >= x_min`` — a **display**: it is a
  decimal string, decides nothing, and is refused (None, with the reason)
  on fewer than ``MIN_FIT_POINTS`` points.
* :func:`law_plot`: log-log bounds against the law's variable, lower and
  upper as separate series, and a reference line of the law's exponent.
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt, log

from solvers import softmax_enclosures as E
from solvers.lazy import numpy as np
from theorems.core import ParameterError, Plot
from theorems.softmax_rank import _definitions as D

MIN_FIT_POINTS = 2
FIT_FROM = 64  # slopes are fitted on beta >= 64 (the spec's choice), or the spread's equivalent
SVD_BITS = 30


def betas(beta_min: int, beta_max: int, step: int = 4) -> list[int]:
    """The temperatures step^k with beta_min <= step^k <= beta_max."""
    out, b = [], 1
    while b <= beta_max:
        if b >= beta_min:
            out.append(b)
        b *= step
    return out


def point_betas(point: dict) -> list[int]:
    """The betas of a point: the one ``beta`` when given (nonzero), else the powers of step in range."""
    return [point["beta"]] if point.get("beta") else betas(point["beta_min"], point["beta_max"], point["step"])


def lattice_betas(point: dict, claim_id: str) -> list[int]:
    """The betas of a lattice law's point, each a perfect square (the lattice spacing c/sqrt(beta) is rational)."""
    bs = point_betas(point)
    if not bs:
        raise ParameterError(f"no power of {point['step']} lies in [beta_min, beta_max] = [{point['beta_min']}, {point['beta_max']}] in {claim_id}")
    if any(isqrt(b) ** 2 != b for b in bs):
        raise ParameterError(f"every beta must be a perfect square (the lattice spacing c/sqrt(beta) is rational), got {bs} in {claim_id}")
    return bs


class Factors:
    """``(k, F, G)`` with ``B = F G`` of inner dimension k, the rational F and G built on first use from their
    integer numerators over 2^bits: stating the obligations needs k only, a certificate needs F and G too
    (the same Fractions either way)."""

    def __init__(self, k: int, left, right):
        self.k, self._make, self._built = k, (left, right), None  # left, right: callables giving F, G

    def _factors(self) -> tuple:
        if self._built is None:
            self._built = (self._make[0](), self._make[1]())
        return self._built

    def __len__(self) -> int:
        return 3

    def __getitem__(self, i: int):
        return (self.k, *self._factors())[i] if i else self.k

    def __iter__(self):
        return iter((self.k, *self._factors()))

    @classmethod
    def identity(cls, A: "np.ndarray") -> "Factors":
        """``F = I``, ``G = A`` rounded to 2^-40: rank n, every row error about n 2^-40."""
        n = len(A)
        return cls(n, lambda: [[Fraction(int(i == j)) for j in range(n)] for i in range(n)],
                   lambda: E.fractions(E.integer_factor(A, 40), 40))

    @classmethod
    def dyadic(cls, k: int, F, G, bits: int) -> "Factors":
        """F and G: integer matrices over 2^bits."""
        return cls(k, lambda: E.fractions(F, bits), lambda: E.fractions(G, bits))


def self_attention_floats(points, beta) -> "np.ndarray | None":
    """``ScaledLogits.self_attention(points, beta).floats()``, the same float64 values, from the integer Gram
    matrix in int64 (exact when no entry can pass 2^62; else None): the per-entry walk over the exact
    matrix dominates large instances.  The exact matrix has the same integers, converted once each."""
    U, w = E.integer_scaled(points)
    big = max((abs(v) for row in U for v in row), default=0)
    if not U or 2 * big.bit_length() + len(U[0]).bit_length() > 62:
        return None
    U = np.array(U, dtype=np.int64)
    N = (U @ U.T).astype(float)  # integers below 2^62, exact; float() of each as Python's int -> float
    return float(Fraction(beta)) * N / np.outer([float(v) for v in w], [float(v) for v in w])


def instance_bounds(L: "E.ScaledLogits", m, eps: Fraction, upper: bool = True, floats: "np.ndarray | None" = None):
    """(rows, groups, upper) on one instance: the grouped rows whose margins exceed eps (all rows with their own
    column when every diagonal margin ``2 A_ii - 1`` exceeds eps in floats, else the Voronoi search's; floats
    answer where clear of eps, arb in doubt), and ``(k, F, G)`` (Fractions) of the least truncated SVD within
    eps (the same rule; a :class:`Factors`), or None.  ``floats``: ``L.floats()`` when already at hand.  The certificates built from them are decided by the trusted checker."""
    A = E.attention_floats(L.floats() if floats is None else floats, m)
    n = A.shape[0]
    if A.shape[0] == A.shape[1] and float((2 * np.diag(A) - 1).min()) > float(eps) + 1e-9:
        rows, groups = list(range(n)), [[i] for i in range(n)]
    else:
        rows, groups = D.search_grouped(A, eps)
    keep = set(E.grouped_margins(L, m, eps, rows, groups, floats=D.grouped_margins(A, rows, groups))["certain"])
    rows, groups = [i for i in rows if i in keep], [g for i, g in zip(rows, groups) if i in keep]
    if upper and len(rows) == n == A.shape[1]:  # rank_eps = n: B = A rounded to 2^-40 (F = I) is certified at once
        return rows, groups, Factors.identity(A)
    found = E.search_svd_upper(L, m, eps, SVD_BITS, SVD_BITS, A) if upper else None
    if found:
        k, F, G = found
        found = Factors.dyadic(k, F, G, SVD_BITS)
    return rows, groups, found


def fitted_slope(xs, ys, x_min: float, variable: str) -> tuple[str | None, str]:
    """(slope as a 3-decimal string or None, the points it is fitted on / why not): display only.

    ``variable`` names what xs are (``"beta"``, ``"1 + beta"``, ``"1 + S"``): the explanation says
    "fitted on beta = 64, 256", not a bare x."""
    pts = [(float(x), float(y)) for x, y in zip(xs, ys) if y is not None and float(x) >= x_min and float(y) > 0]
    if len(pts) < MIN_FIT_POINTS:
        return None, f"not fitted: {len(pts)} point(s) with {variable} >= {x_min:g}, at least {MIN_FIT_POINTS} needed"
    lx, ly = [log(x) for x, _ in pts], [log(y) for _, y in pts]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    den = sum((a - mx) ** 2 for a in lx)
    if den == 0:
        return None, f"not fitted: every point has the same {variable}"
    slope = sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / den
    return f"{slope:.3f}", f"fitted on {variable} = " + ", ".join(f"{x:g}" for x, _ in pts)


def law_plot(name: str, title: str, xlabel: str, xs, lowers: dict, uppers: dict, exponent: Fraction, note: str) -> Plot:
    """Log-log: each lower and upper series (label -> ys, None entries dropped), and the exponent's reference line
    at half the height of the last point of the first lower series (below the data, never through it).

    Drawn order: the uppers first, then the lowers in reverse, so the first lower series (the headline bound)
    is drawn last, on top: a series that coincides with another stays visible (each has its own marker)."""
    series = []
    for label, ys in [*uppers.items(), *reversed(lowers.items())]:
        pts = [(float(x), float(y)) for x, y in zip(xs, ys) if y is not None]
        if pts:
            series.append((label, tuple(p[0] for p in pts), tuple(p[1] for p in pts)))
    if series:
        x_last, y_last = series[-1][1][-1], series[-1][2][-1]
        e = float(exponent)
        anchor = y_last / x_last**e / 2  # at half the height of the data's last point: out of the data's way
        series.append((f"slope {exponent} reference (shifted down)", tuple(float(x) for x in xs),
                       tuple(anchor * float(x) ** e for x in xs)))
    return Plot(name=name, title=title, xlabel=xlabel, ylabel="rank_eps bounds", series=tuple(series),
                logx=True, logy=True, kind="line", note=note)


# ------------------------------------------ lower bounds by the grouped matrix's inverse norm (floats propose)


def inverse_norm(A: "np.ndarray", rows, groups, eps) -> float:
    """``eps ||C^{-1}||_inf`` in floats for the grouped matrix ``C = (A_i(G_k))_{i, k}`` on ``rows`` (inf when C is
    singular in floats): the criterion of the trusted kind ``approx-rank-lower-inverse`` (``rank_eps >= |R|`` when
    it is below 1), a proposal only — the checker decides it in arb."""
    label = np.full(A.shape[1], -1)
    for k, g in enumerate(groups):
        label[list(g)] = k
    inside = np.nonzero(label >= 0)[0]
    onehot = np.zeros((len(inside), len(groups)))
    onehot[np.arange(len(inside)), label[inside]] = 1.0
    C = A[list(rows)].take(inside, axis=1) @ onehot  # C[t, k] = A_{rows[t]}(G_k): one product, no per-group slice
    try:
        return float(eps) * float(np.abs(np.linalg.inv(C)).sum(axis=1).max())
    except np.linalg.LinAlgError:
        return float("inf")


def passes_inverse(A: "np.ndarray", rows, groups, eps) -> bool:
    """:func:`inverse_norm` below 1 by more than ``softmax_enclosures.DOUBT`` (float error is far smaller: C is
    well conditioned wherever this passes), so the arb decision of the checker agrees."""
    return inverse_norm(A, rows, groups, eps) < 1 - E.DOUBT


def search_inverse(A: "np.ndarray", eps: Fraction, order=None, nested: bool = False, ratios=D.GAP_RATIOS):
    """Rows and Voronoi column groups passing the inverse-norm criterion, as many rows as found: (rows, groups).

    The proposals of :func:`theorems.softmax_rank._definitions.search_grouped` — k rows evenly spread along
    ``order`` (with ``nested``, its first k), Voronoi groups at each gap ratio of ``ratios``, a bisection on k —
    judged by :func:`passes_inverse` instead of the diagonal margins.  Every set the margins accept passes here
    too (Varah), so the criterion only adds rows; success is close to monotone in k, as for the margins.  Floats
    only: the trusted checker decides the certificate.
    """
    return D.search_grouped(A, eps, order, nested, ratios, accept=lambda rows, groups: passes_inverse(A, rows, groups, eps))


def least_accepted(holds, guess: int, least: int = 1) -> int:
    """The least integer ``bound >= least`` that ``holds(bound)`` accepts (``holds`` raises to refuse), walked
    from a float ``guess`` down while the one below is accepted, then up until accepted; the lemma bounds
    accepted are monotone in the bound, so this is the least one."""

    from solvers.trusted.core import CertificateError

    def ok(bound: int) -> bool:
        try:
            holds(bound)
            return True
        except CertificateError:  # the checker refused: the bound is below the lemma's (anything else is raised)
            return False

    bound = max(least, guess)
    while bound > least and ok(bound - 1):
        bound -= 1
    while not ok(bound):
        bound += 1
    return bound
