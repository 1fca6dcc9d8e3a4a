"""Family: approximation-rank upper bounds valid for every instance of a geometry (anchor rows).

Setting.  Rows ``p_t(j) = w_j e^{<theta(t), k_j>} / Z(t)`` of an exponential family
along a curve ``theta(t)`` of natural parameters, keys ``k_j``, any positive
weights ``w_j`` (multiplicities, or ``e^{b_j}`` for key biases).  Two curves:

* **the circle** ``S^1``: self-attention ``rowsoftmax(beta X X^T + 1 (log m)^T)``
  with X on the unit circle, any n, any queries and keys on the circle and
  any multiplicities: ``theta(t) = beta (cos t, sin t)``, t in ``[0, 2 pi)``;
* **a rank-one interaction** (visible dimension one, any key bias): logits ``L = a 1^T + 1 b^T + q k^T`` (any n x N,
  any biases a, b): row i is ``p_{q_i}`` with ``theta(t) = t``, weights
  ``e^{b_j}`` (the row bias a is invisible); t ranges over an interval of
  length ``D_Q = max q - min q``, keys over one of length
  ``D_K = max k - min k``; the **spread** ``S = D_Q D_K`` is the largest
  double-centred oscillation ``|L_ij - L_ij' - L_i'j + L_i'j'|``.

Two lemmas, proved in docs/softmax_rank.spherical_law.md (section "Worst-case
upper bounds"), each with ``Y = <theta', k>``, ``I(t) = Var_t Y`` (Fisher
information) and ``c(t) = E_t cos(t - t_j)``:

* **anchor rows**: ``||p_a - p_b||_1 <= int_a^b sqrt(I)``; on the circle
  ``int_0^{2 pi} I = beta int c <= 2 pi beta`` (``I = (log Z)'' + beta c``), so the
  Fisher length is ``<= 2 pi sqrt(beta)`` (Cauchy-Schwarz) and rows replaced by
  the nearest of ``k >= pi sqrt(beta)/eps`` anchors are within eps:
  ``rank_eps <= ceil(pi sqrt(beta)/eps)``.  For r = 1,
  ``int Var_t(k) dt <= D_K`` gives length ``<= sqrt(S)``:
  ``rank_eps <= max(1, ceil(sqrt(S)/(2 eps)))``.
* **interpolated anchors**: rows replaced by the chord between consecutive
  anchors (rank = number of anchors), error ``<= (|J|/4) int_J ||p''||_1`` on an
  arc J; ``||p''||_1 <= 2 I + 2 beta (1 - c)`` integrates to ``<= 4 pi beta`` on the
  circle (``<= 2 D_K`` for r = 1); greedy arcs with ``|J| int_J ||p''|| = 4 eps``
  and Cauchy-Schwarz give ``rank_eps <= floor(pi sqrt(2 beta/eps)) + 1`` on the
  circle and ``<= floor(sqrt(S/(2 eps))) + 2`` for r = 1.
* **tilted chords** (the sharpest): the same chords, between anchor rows rescaled by
  ``e^{psi(a)}``, ``e^{psi(b)}`` with ``psi'' = beta`` (r = 1: ``psi'' = 0``), make every coordinate
  of the rescaled curve convex, so a row's l1 error is exactly ``e^{g_J(t)} - 1`` with ``g_J`` the chord
  gap of the convex ``phi = log Z + psi`` (a linear tilt of psi levels the arc's ends); the gap is
  ``<= |J| Delta_J phi' / 4`` and ``phi'`` rises by ``2 pi beta`` around the circle (``<= D_K`` for
  r = 1), so greedy arcs with ``|J| Delta_J phi' = 4 log(1 + eps)`` and Cauchy-Schwarz give
  ``rank_eps <= floor(pi sqrt(beta/log(1 + eps))) + 1`` on the circle and
  ``<= floor(sqrt(S/(4 log(1 + eps)))) + 2`` for r = 1.
* **Jeffreys chords** (the sharpest, for beta >= 4 x*): the same levelled chords, with the error
  ``1/mu - 1`` bounded through the rows' Jeffreys divergence instead of the quarter: on an arc J of
  length ``<= 1``, ``1 - mu <= c |J| Delta_J phi'`` with ``c = 17/100`` on the circle (``1/8`` from the
  exponential part, ``<= 17/100`` from each coordinate's curvature ``beta (1 - cos)``, checked by
  Bernstein polynomials) and ``c = 1/8`` for r = 1 (no curvature part).  Greedy arcs with
  ``|J| Delta_J = x* = eps/((1 + eps) c)``, capped at length 1 on the circle (free when
  ``beta >= 4 x*``), give ``rank_eps <= floor(2 pi sqrt(beta/x*)) + 1`` on the circle for
  ``beta >= 4 x*`` (below, ``floor(2 pi + pi beta/(2 x*)) + 1``) and
  ``<= floor(sqrt(S/x*)) + 2`` for r = 1.

What the checker confirms is the finite step: the claimed bound satisfies the
lemma's inequality (in arb on the circle, where pi enters, and for the tilted chords, where
``log(1 + eps)`` does; exactly otherwise — the Jeffreys chords for r = 1),
and, for an instance given by its logits, that it has that form (the
double-centred logits have rank <= 1) and the spread it is charged with
(both exact).

Judgments (fields exactly as listed):

* ``approx-rank-at-most-every {family: "circle", beta_up_to, epsilon, bound}``:
  for every ``beta' in [0, beta_up_to]``, every n, every finite X on the unit
  circle and every multiplicities, ``rank_eps(rowsoftmax(beta' X X^T + 1 (log m)^T)) <= bound``
  (every lemma's bound grows with beta).
* ``approx-rank-at-most-every {family: "rank-one-interaction", spread_up_to, epsilon, bound}``:
  for every logits ``a 1^T + 1 b^T + q k^T`` of spread ``<= spread_up_to``, any
  n, N and biases, ``rank_eps(rowsoftmax(L)) <= bound``.
* ``approx-rank-at-most {instance, n, epsilon, bound}`` (kind
  ``visible-one-anchors``): the same for one named instance of integer-scaled
  logits ``L = scale N``, ``digest({"scale": scale, "integers": N, "multiplicities": m})``.

The finite-instance checks on such instances (grouped columns, an explicit B, on
integer-scaled logits or points in the ball) are kinds of ``intervals.py``.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import chain

import flint

from solvers.trusted.core import CertificateError, digest, integer, kind, listof, rational, require
from solvers.trusted.matrices import lcm_denominator, matrix
from solvers.trusted.limits import length_of, width_of  # sizes for work estimates

PRECISIONS = (64, 128, 256, 512)
CONSTRUCTIONS = ("anchor-rows", "interpolated-anchors", "tilted-chords", "jeffreys-chords")
# The Jeffreys chords' constants (docs/softmax_rank.spherical_law.md, Lemma 4): on an arc of length <= ARC_CAP,
# 1 - mu <= c |J| Delta_J with c = CHORD_CIRCLE on the circle and CHORD_LINE (exactly 1/8) for r = 1.
CHORD_CIRCLE, CHORD_LINE, ARC_CAP = Fraction(17, 100), Fraction(1, 8), 1  # the count's formulas below are for ARC_CAP = 1


def _epsilon(value) -> Fraction:
    eps = rational(value, "epsilon")
    require(0 < eps < 1, "epsilon must lie in (0, 1) (for epsilon >= 1 the zero matrix is within epsilon: rank 0)")
    return eps


def _construction(value) -> str:
    require(isinstance(value, str) and value in CONSTRUCTIONS, f"construction must be one of {list(CONSTRUCTIONS)}, got {str(value)[:40]!r}")
    return value


def _arb(q: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def _certainly_below(left, right) -> None:
    """Require ``left() < right()`` for two real numbers given as arb-valued functions of the working
    precision, decided in arb (refining the precision).  An equality could never be decided and is refused
    at the last precision: a refusal, never a wrong acceptance."""
    for bits in PRECISIONS:
        with flint.ctx.workprec(bits):
            a, b = left(), right()
            if a < b:
                return
            require(not a >= b, "the bound is below the lemma's: certainly false")
    raise CertificateError(f"the bound is not certainly above the lemma's even at {PRECISIONS[-1]} bits")


def _pi_squared_below(coefficient: Fraction, limit: Fraction) -> None:
    """Require ``pi^2 * coefficient < limit`` (pi^2 is irrational: never equal)."""
    _certainly_below(lambda: flint.arb.pi() ** 2 * _arb(coefficient), lambda: _arb(limit))


def _log_1p(eps: Fraction) -> flint.arb:
    """``log(1 + eps)``, the tilted chords' gap budget: a row's error ``e^g - 1`` is <= eps iff ``g <= log(1 + eps)``."""
    return _arb(eps).log1p()  # log1p, not log(1 + eps): the rounded 1 + eps would lose a tiny eps entirely


def circle_bound_holds(construction: str, beta: Fraction, eps: Fraction, bound: int) -> None:
    """anchor rows: ``bound >= pi sqrt(beta)/eps`` (``pi^2 beta < eps^2 bound^2``);
    interpolated: ``bound >= floor(pi sqrt(2 beta/eps)) + 1`` (``2 pi^2 beta < eps bound^2``);
    tilted chords: ``bound >= floor(pi sqrt(beta/log(1 + eps))) + 1`` (``pi^2 beta < log(1 + eps) bound^2``);
    Jeffreys chords, with ``x* = eps/((1 + eps) c)``: for ``beta >= 4 x*``, ``bound >= floor(2 pi sqrt(beta/x*)) + 1``
    (``4 pi^2 beta (1 + eps) c < eps bound^2``), below it ``bound >= floor(2 pi + pi beta/(2 x*)) + 1``
    (``pi (2 + beta/(2 x*)) < bound``; the two agree at 4 x*, both grow with beta, so the bound covers every beta' <= beta)."""
    if beta == 0:
        return  # every row is m / sum m: rank 1 <= bound
    if construction == "anchor-rows":
        _pi_squared_below(beta, eps * eps * bound * bound)
    elif construction == "interpolated-anchors":
        _pi_squared_below(2 * beta, eps * bound * bound)
    elif construction == "tilted-chords":
        _certainly_below(lambda: flint.arb.pi() ** 2 * _arb(beta), lambda: _log_1p(eps) * bound * bound)
    else:
        x_star = eps / ((1 + eps) * CHORD_CIRCLE)  # the arcs' budget |J| Delta_J; the arcs are also capped at length 1
        if beta >= 4 * x_star:  # the cap costs no arc: the count is at most 2 pi sqrt(beta/x*)
            _pi_squared_below(4 * beta * (1 + eps) * CHORD_CIRCLE, eps * bound * bound)
        else:  # the count is at most max_n n + sqrt(2 pi beta (2 pi - n)/x*) = 2 pi + pi beta/(2 x*)  (< 4 pi)
            _certainly_below(lambda: flint.arb.pi() * _arb(2 + beta / (2 * x_star)), lambda: _arb(Fraction(bound)))


def visible_one_bound_holds(construction: str, spread: Fraction, eps: Fraction, bound: int) -> None:
    """anchor rows: ``bound >= sqrt(S)/(2 eps)`` (``S <= 4 eps^2 bound^2``);
    interpolated: ``bound >= floor(sqrt(S/(2 eps))) + 2`` (``S < 2 eps (bound - 1)^2``, bound >= 2);
    tilted chords: ``bound >= floor(sqrt(S/(4 log(1 + eps)))) + 2`` (``S < 4 log(1 + eps) (bound - 1)^2``,
    bound >= 2; decided in arb, S = 0 exactly);
    Jeffreys chords: ``bound >= floor(sqrt(S (1 + eps)/(8 eps))) + 2`` (``S (1 + eps) < 8 eps (bound - 1)^2``, bound >= 2, exact)."""
    if construction == "anchor-rows":
        require(spread <= 4 * eps * eps * bound * bound, "bound < sqrt(S)/(2 eps): below the anchor-row lemma")
    elif construction == "interpolated-anchors":
        require(bound >= 2 and spread < 2 * eps * (bound - 1) ** 2, "bound < floor(sqrt(S/(2 eps))) + 2: below the interpolated-anchor lemma")
    elif construction == "jeffreys-chords":
        require(bound >= 2 and spread * (1 + eps) * CHORD_LINE < eps * (bound - 1) ** 2,
                "bound < floor(sqrt(S (1 + eps)/(8 eps))) + 2: below the Jeffreys-chord lemma")
    else:
        require(bound >= 2, "bound < 2: below the tilted-chord lemma (floor(sqrt(S/(4 log(1 + eps)))) + 2 >= 2)")
        if spread > 0:
            _certainly_below(lambda: _arb(spread), lambda: 4 * _log_1p(eps) * (bound - 1) ** 2)


@kind("circle-anchors", "construction", "beta", "epsilon", "bound", work=lambda d: 100)
def _circle_anchors(data: dict):
    """For every n, every X on the unit circle and every multiplicities, ``rank_eps <= bound`` at every
    ``beta' <= beta``: the bound is at least the anchor-row (``ceil(pi sqrt(beta)/eps)``), the
    interpolated-anchor (``floor(pi sqrt(2 beta/eps)) + 1``), the tilted-chord
    (``floor(pi sqrt(beta/log(1 + eps))) + 1``) or the Jeffreys-chord (``floor(2 pi sqrt(beta (1 + eps) c/eps)) + 1``
    with c = 17/100 for ``beta >= 4 eps/((1 + eps) c)``, ``floor(2 pi + pi beta (1 + eps) c/(2 eps)) + 1`` below) lemma's,
    decided in arb."""
    construction = _construction(data["construction"])
    beta = rational(data["beta"], "beta")
    require(beta >= 0, "beta must be >= 0")
    eps = _epsilon(data["epsilon"])
    bound = integer(data["bound"], "bound", 1)
    circle_bound_holds(construction, beta, eps, bound)
    judgment = {"judgment": "approx-rank-at-most-every", "family": "circle", "beta_up_to": beta, "epsilon": eps, "bound": bound}
    return judgment, f"rank_eps <= {bound} at eps = {eps} for every n and every X on S^1, any multiplicities, beta <= {beta} ({construction})"


@kind("visible-one-anchors-every", "construction", "spread", "epsilon", "bound", work=lambda d: 100)
def _visible_one_every(data: dict):
    """For every logits ``a 1^T + 1 b^T + q k^T`` of spread <= S (any n, N, biases), ``rank_eps <= bound``:
    the bound is at least the lemma's, exactly."""
    construction = _construction(data["construction"])
    spread = rational(data["spread"], "spread")
    require(spread >= 0, "spread must be >= 0")
    eps = _epsilon(data["epsilon"])
    bound = integer(data["bound"], "bound", 1)
    visible_one_bound_holds(construction, spread, eps, bound)
    judgment = {"judgment": "approx-rank-at-most-every", "family": "rank-one-interaction", "spread_up_to": spread, "epsilon": eps, "bound": bound}
    return judgment, f"rank_eps <= {bound} at eps = {eps} for every head a 1^T + 1 b^T + q k^T of spread <= {spread} ({construction})"


def spread_of_rank_one(L: list[list[Fraction]]) -> Fraction:
    """The spread ``S = max |L_ij - L_ij' - L_i'j + L_i'j'|`` of logits ``L = a 1^T + 1 b^T + q k^T``
    (rejects any other), exactly: L scaled by its common denominator D to integers, ``S(L) = S(D L) / D``."""
    den = lcm_denominator(v for r in L for v in r)
    return spread_of_integers([[int(v * den) for v in r] for r in L]) / den


def spread_of_integers(N: list[list[int]]) -> Fraction:
    """The spread of an integer matrix N of the form ``a 1^T + 1 b^T + q k^T`` (rejects any other), in integers.

    The double-centred ``K`` (row and column means removed) has rank <= 1 iff N has that form, and then
    ``K = q k^T`` (q, k centred); every double difference of N is one of K,
    ``(q_i - q_i')(k_j - k_j')``, so S = range(q) * range(k).  K is carried as the integer matrix
    ``M = n w K`` (n rows, w columns: ``M_ij = n w N_ij - n rowsum_i - w colsum_j + total``), so no entry
    becomes a fraction.  With a nonzero pivot ``M[a][c]``: ``q_i = M[i][c] / M[a][c]`` and
    ``k = M[a] / (n w)``; rank <= 1 is checked as ``M[i][j] M[a][c] = M[i][c] M[a][j]``.
    """
    n, w = len(N), len(N[0])
    row_sums = [sum(r) for r in N]
    col_sums = [sum(col) for col in zip(*N)]
    total = sum(row_sums)
    M = [[n * w * v - n * rs - w * cs + total for v, cs in zip(r, col_sums)] for r, rs in zip(N, row_sums)]
    pivot = next(((a, c) for a, r in enumerate(M) for c, v in enumerate(r) if v != 0), None)
    if pivot is None:
        return Fraction(0)
    a, c = pivot
    p, top = M[a][c], M[a]
    for i, r in enumerate(M):
        ric = r[c]
        for j, v in enumerate(r):
            require(v * p == ric * top[j], f"the double-centred logits have rank >= 2 (entry ({i}, {j})): the interaction q k^T is not of rank one")
    column = [r[c] for r in M]
    return Fraction((max(column) - min(column)) * (max(top) - min(top)), abs(p) * n * w)


def _scaled_name(data: dict) -> dict:
    """The judgment fields naming the instance ``rowsoftmax(scale N + 1 (log m)^T)``: N a rectangular
    integer matrix (entries of at most 1000 bits), m positive integers, one per column;
    ``digest({"scale": scale, "integers": N, "multiplicities": m})`` and n, the rows of N."""
    N = listof(data["integers"], "integers", 1)
    require(all(isinstance(r, list) for r in N), "integers must be a list of rows")
    width = len(N[0])
    require(width >= 1 and all(len(r) == width for r in N), f"integers rows must all have {width} >= 1 entries")
    flat = list(chain.from_iterable(N))  # every entry an int (never a boolean): builtins over the flat entries
    require(set(map(type, flat)) == {int}, "integers entries must be integers")
    require(max(max(flat), -min(flat)).bit_length() <= 1000, "an integers entry has more than 1000 bits")
    m = [integer(v, "multiplicity", 1) for v in listof(data["multiplicities"], "multiplicities", width, width)]
    return {"instance": digest({"scale": rational(data["scale"], "scale"), "integers": N, "multiplicities": m}), "n": len(N)}


@kind("visible-one-anchors", "construction", "scale", "integers", "multiplicities", "epsilon", "bound",
      work=lambda d: 20 * length_of(d["integers"]) * width_of(d["integers"]), digits=False)
def _visible_one_instance(data: dict):
    """``rank_eps(A) <= bound`` for the instance ``A = rowsoftmax(scale N + 1 (log m)^T)`` (named as in
    ``approx-rank-lower-scaled``): ``L = scale N`` is ``a 1^T + 1 b^T + q k^T`` (its double-centred matrix
    has rank <= 1, exactly), its spread S is computed exactly, and the bound is at least the lemma's at S.
    The multiplicities are more key biases ``log m_j``: they change neither the spread nor the lemma
    (it holds for any weights)."""
    construction = _construction(data["construction"])
    scale, fields = rational(data["scale"], "scale"), _scaled_name(data)
    eps = _epsilon(data["epsilon"])
    bound = integer(data["bound"], "bound", 1)
    spread = abs(scale) * spread_of_integers(data["integers"])  # S(scale N) = |scale| S(N): every step in integers
    visible_one_bound_holds(construction, spread, eps, bound)
    judgment = {"judgment": "approx-rank-at-most", **fields, "epsilon": eps, "bound": bound}
    return judgment, f"rank_eps <= {bound} at eps = {eps} on instance {fields['instance'][:15]} (rank-one interaction, spread {spread}; {construction})"
