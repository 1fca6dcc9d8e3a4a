"""Family: softmax attention decided in arb (ball arithmetic): approximation ranks and residuals.

The attention of rational logits L (n x N) with positive integer column
multiplicities m is ``A_ij = m_j e^{L_ij} / sum_k m_k e^{L_ik}``, i.e.
``rowsoftmax(L + 1 (log m)^T)``.  For ``eps in (0, 1)``,
``rank_eps(A) = min { rank B : B real, max_i ||A_i - B_i||_1 <= eps }``.

An **instance** names A exactly, as a digest (``core.digest``) of

* ``{"logits": L, "multiplicities": m}`` (kinds ``approx-rank-lower`` and
  ``-upper``): A as above, ``n`` = the number of rows of L; or
* ``{"points": X, "beta": beta, "multiplicities": m}`` (the ``-points``
  kinds): self-attention ``L = beta X X^T`` on the rational points X, the
  weighted matrix W on the listed points; ``n = sum_j m_j``, the size of the
  full instance in which point j appears m_j times.  By the multiplicity
  lemma (docs/softmax_rank.certificates.md) ``rank_eps`` of the full instance
  equals ``rank_eps(W)``, so every bound below holds for both.  These
  judgments carry one more field, ``sphere``: the dimension d when every
  point has ``|x|^2 = 1`` exactly (X lies on the unit sphere ``S^{d-1}``),
  else ``false``; or
* ``{"scale": s, "integers": N, "multiplicities": m}`` (the ``-scaled``
  kinds): logits ``L = s N`` (N an integer matrix), ``n`` = the rows of N; its
  exponentials are ``e^{s d}`` for the few distinct integer gaps d in a row.

The ``-ball`` kinds name points instances as the ``-points`` kinds do, with
``ball: d`` (every point has ``|x|^2 <= 1`` exactly) or ``false`` in place of
``sphere``.

Judgments (fields exactly as listed):

* ``approx-rank-at-least {instance, n, epsilon, bound[, sphere | ball]}``:
  ``rank_eps(A) >= bound`` for the named instance.
* ``approx-rank-at-most {instance, n, epsilon, bound[, sphere | ball]}``:
  ``rank_eps(A) <= bound``.
* ``residual-within {logits, approximation}``: for every row i,
  ``||rowsoftmax(L)_i - rowsoftmax(L')_i||_1 <= 2 tanh(osc_i / 4)``, where
  ``osc_i`` is the range of row i of ``L - L'`` (digests of L and L').
* ``residual-two-point {t, bound, relation}``: for ``delta = ln t`` there is a
  probability row p and logits E with row range ``<= 2 delta`` whose
  perturbed softmax q has ``||p - q||_1 > bound(delta)`` ("exceeds": the
  bound is false at this delta) or ``= bound(delta)`` ("attains").
* ``attention-differs {logits, other}``: ``rowsoftmax(L) != rowsoftmax(L')``.

A decision is "certain" only when arb proves it (retried at 64 .. 1024
bits); an undecided comparison rejects the certificate.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import chain

import flint

from solvers.trusted.core import CertificateError, digest, integer, kind, listof, rational, require
from solvers.trusted.matrices import fmpq_matrix, matrix
from solvers.trusted.limits import digits_of, length_of, width_of  # sizes for work estimates

PRECISIONS = (64, 128, 256, 512, 1024)


# ----------------------------------------------------------------- sizes





def _shape(data: dict) -> tuple[int, int, int]:
    """(rows, columns, point dimension) the data claims, from list lengths only (0 when malformed)."""
    if "logits" in data:
        return length_of(data["logits"]), width_of(data["logits"]), 0
    return length_of(data["points"]), length_of(data["points"]), width_of(data["points"])



def _sphere_work(data: dict) -> int:
    """The exact test |x|^2 = 1 of every point: dim products of numbers of up to dim * digits digits each."""
    if "logits" in data:
        return 0
    rows, _, dim = _shape(data)
    return rows * dim * (1 + dim * digits_of(data["points"]) // 19) ** 2


# --------------------------------------------------------------- instance


def _epsilon(value) -> Fraction:
    eps = rational(value, "epsilon")
    require(0 < eps < 1, f"epsilon={_short(eps)} must lie in (0, 1) (for epsilon >= 1 the zero matrix is within epsilon: rank 0)")
    return eps


def _short(q) -> str:
    """A number for a message: in full when short, else its size (never a huge int -> str conversion)."""
    q = Fraction(q)
    if max(q.numerator.bit_length(), q.denominator.bit_length()) <= 200:
        return str(q)
    return f"(a number of about {max(q.numerator.bit_length(), q.denominator.bit_length()) * 3 // 10} digits)"


def _instance(data: dict):
    """(rows, exps_of, m, fields) for the attention a certificate names.

    ``exps_of(indices)`` gives, for each row i with those indices, arb
    enclosures of ``e^{L_ij - c_i}`` at the current precision, for one
    exact shift c_i per row (the softmax of row i is
    ``m_j e_ij / sum_k m_k e_ik`` whatever c_i is; for points the logits are
    ``beta X_R X^T`` in arb); m are the column multiplicities; ``fields``
    the judgment fields naming the instance (``instance``, ``n`` and, for
    points, ``sphere``).
    """
    if "logits" in data:
        L = matrix(data["logits"], "logits")
        rows, width, Lq = len(L), len(L[0]), fmpq_matrix([_shifted(r) for r in L])
        named = {"logits": L}

        def exps_of(indices):
            return [_shifted_exps([flint.arb(Lq[i, j]) for j in range(width)]) for i in indices]
    else:
        X = matrix(data["points"], "points")
        beta = rational(data["beta"], "beta")
        require(beta >= 0, "beta must be >= 0")
        rows = width = len(X)
        Xq = fmpq_matrix(X)
        named = {"points": X, "beta": beta}

        def exps_of(indices):
            XR = flint.arb_mat(fmpq_matrix([X[i] for i in indices]))
            S = XR * flint.arb_mat(Xq).transpose() * _arb(beta)
            return [_shifted_exps(row) for row in S.tolist()]
    m = [integer(v, "multiplicity", 1) for v in listof(data["multiplicities"], "multiplicities", width, width)]
    named["multiplicities"] = m
    fields = {"instance": digest(named), "n": rows}
    if "points" in data:
        fields["n"] = sum(m)
        on_sphere = all((r * r.transpose())[0, 0] == 1 for r in (fmpq_matrix([x]) for x in X))
        fields["sphere"] = len(X[0]) if on_sphere else False
    return rows, exps_of, m, fields


def _shifted(row: list[Fraction]) -> list[Fraction]:
    """The row minus its largest entry, exactly (the same softmax; arb then never meets huge logits)."""
    top = max(row)
    return [v - top for v in row]


def _arb(q: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def _softmax(row: list, weights: list) -> list:
    """arb enclosures of ``w_j e^{l_j} / sum_k w_k e^{l_k}`` for an arb row l and exact arb weights w."""
    return _normalised(_shifted_exps(row), weights)


def _shifted_exps(row: list) -> list:
    """``e^{l_j - c}`` for an arb row l, c its largest midpoint (an exact number): no exponential overflows."""
    c = max(map(flint.arb.mid, row))
    return [(v - c).exp() for v in row]


def _normalised(exps: list, weights: list) -> list:
    """``w_j e_j / sum_k w_k e_k``: the softmax from the shifted exponentials of a row (any one shift).
    The weights are exact arbs (:func:`_weights`: converted once, not per row)."""
    terms = list(map(flint.arb.__mul__, exps, weights))
    inverse = 1 / sum(terms[1:], terms[0])
    return [t * inverse for t in terms]


def _weights(m: list[int]) -> list:
    """Integer weights as exact arbs (an arb holds any integer exactly)."""
    return [flint.arb(w) for w in m]


def _all_below(indices: list[int], values, bound: Fraction, claim) -> None:
    """Require ``values(pending)[t] < bound`` proved in arb for every index, refining the precision.

    ``values`` computes the enclosures for the still undecided indices at
    the current precision; ``claim(i)`` says in words what index i asserts.
    One certainly false comparison rejects at once.
    """
    pending = list(indices)
    for bits in PRECISIONS:
        with flint.ctx.workprec(bits):
            limit = _arb(bound)
            got = values(pending)
            for i, v in zip(pending, got):
                require(not v >= limit, f"{claim(i)}: certainly false")
            pending = [i for i, v in zip(pending, got) if not v < limit]
        if not pending:
            return
    raise CertificateError(f"{claim(pending[0])}: not certain even at {PRECISIONS[-1]} bits")


def _total(terms) -> flint.arb:
    return sum(terms, _arb(Fraction(0)))


# ------------------------------------------------------- lower: groups


def _lower_work(data: dict) -> int:
    rows, width, dim = _shape(data)
    return _sphere_work(data) + rows * max(width, dim) + len(PRECISIONS) * length_of(data["rows"]) * width * (dim + 2)


@kind("approx-rank-lower", "logits", "multiplicities", "epsilon", "rows", "groups", work=lambda d: 8 * _lower_work(d), digits=False)
def _approx_rank_lower(data: dict):
    """``rank_eps(A) >= |R|``: rows R with disjoint column groups, each margin > eps (arb).

    Data: logits L (n x N), multiplicities m (N positive integers), eps in
    (0, 1), distinct rows R and one nonempty group G_i per row, pairwise
    disjoint.  Checked: for every i in R, ``A_i(G_i) - sum_{k != i} A_i(G_k) >
    eps`` certainly.  Why it proves the bound: for any B with
    ``max_i ||A_i - B_i||_1 <= eps``, summing B's columns inside the groups on
    the rows R gives an |R| x |R| matrix C, ``rank C <= rank B``, with
    ``C_ii - sum_{k != i} |C_ik| >= margin_i - eps > 0`` (summing never
    increases an l1 error): C is strictly diagonally dominant, so nonsingular.
    """
    return _grouped_lower(data)


@kind("approx-rank-lower-points", "points", "beta", "multiplicities", "epsilon", "rows", "groups", work=_lower_work, digits=False)
def _approx_rank_lower_points(data: dict):
    """As ``approx-rank-lower`` for ``L = beta X X^T`` (the rows of R enclosed in arb from X, beta)."""
    return _grouped_lower(data)


def _grouped_lower(data: dict, instance=None):
    """The grouped-column check on the attention ``instance(data)`` names (default: :func:`_instance`)."""
    rows_n, exps_of, m, fields = (instance or _instance)(data)
    eps = _epsilon(data["epsilon"])
    rows, groups = _rows_and_groups(data, rows_n, len(m))
    flat = [j for g in groups for j in g]
    group_of, weights = dict(zip(rows, groups)), _weights(m)

    def slacks(pending):  # margin_i > eps  <=>  A_i(other groups) - A_i(G_i) < -eps
        out = []
        for i, exps in zip(pending, exps_of(pending)):
            # A_i(G) = sum_G m_j e_ij / sum_k m_k e_ik: the groups' masses over the row's total, divided once
            mass, own = list(map(flint.arb.__mul__, exps, weights)), group_of[i]
            out.append((_total(mass[j] for j in flat) - 2 * _total(mass[j] for j in own)) / _total(mass))
        return out

    _all_below(rows, slacks, -eps, lambda i: f"row {i}: margin A_i(G_i) - sum_k A_i(G_k) > {_short(eps)}")
    judgment = {"judgment": "approx-rank-at-least", **fields, "epsilon": eps, "bound": len(rows)}
    return judgment, f"rank_eps >= {len(rows)} at eps = {_short(eps)} on instance {fields['instance'][:15]} (n = {fields['n']}{_sphere(fields)}; {len(rows)} grouped rows decided in arb)"


def _rows_and_groups(data: dict, rows_n: int, width: int) -> tuple[list[int], list[list[int]]]:
    """The distinct rows R (indices below rows_n) and one nonempty column group per row, pairwise disjoint."""
    rows = [integer(i, "row", 0, rows_n - 1) for i in listof(data["rows"], "rows", 1)]
    groups = listof(data["groups"], "groups", len(rows), len(rows))
    require(len(set(rows)) == len(rows), "rows must be distinct")
    groups = [[integer(j, "column", 0, width - 1) for j in listof(g, "group", 1)] for g in groups]
    flat = [j for g in groups for j in g]
    require(len(set(flat)) == len(flat), "column groups must be pairwise disjoint")
    return rows, groups


# ------------------------------------------- lower: the grouped matrix's inverse


def _inverse_work(data: dict) -> int:
    # the rows' masses as for the margins, and one r x r inverse in arb per precision tried: about 0.3 us per r^3
    # over all five precisions (arb_mat.inv, measured at r = 300), so r^3 / 2 units bound it
    return _lower_work(data) + length_of(data["rows"]) ** 3 // 2


@kind("approx-rank-lower-inverse", "points", "beta", "multiplicities", "epsilon", "rows", "groups", work=_inverse_work, digits=False)
def _approx_rank_lower_inverse(data: dict):
    """``rank_eps(A) >= |R|`` on the points instance ``L = beta X X^T`` (named as ``approx-rank-lower-points``
    names it): rows R, disjoint column groups G_k (k in R), and ``eps ||C^{-1}||_inf < 1`` certainly, for the
    grouped matrix ``C = (A_i(G_k))_{i, k in R}`` and ``||M||_inf = max_i sum_k |M_ik|``.

    Why it proves the bound: let B be any matrix with ``max_i ||A_i - B_i||_1 <= eps`` and C_B the same sums of
    B's columns on the rows R.  ``E = C_B - C`` has ``||E||_inf <= eps`` (summing inside disjoint groups never
    increases a row's l1 error).  ``C_B = C (I + C^{-1} E)`` with ``||C^{-1} E||_inf <= eps ||C^{-1}||_inf < 1``,
    so ``I + C^{-1} E`` is nonsingular (its kernel would hold a v with ``||v|| = ||C^{-1} E v|| < ||v||``) and so
    is C_B: ``rank B >= rank C_B = |R|``.  Margins > eps (``approx-rank-lower``) are the special case: a
    strictly diagonally dominant C has ``||C^{-1}||_inf <= 1 / min margin`` (Varah).

    Decided in arb: C enclosed from X and beta, ``arb_mat.inv`` encloses ``C^{-1}`` (or gives NaN when it cannot
    prove C invertible at that precision: nothing is decided then), and the upper end of
    ``eps sum_k |C^{-1}_ik|`` must lie below 1 for every row i, at 64 .. 1024 bits.
    """
    rows_n, exps_of, m, fields = _instance(data)
    eps = _epsilon(data["epsilon"])
    rows, groups = _rows_and_groups(data, rows_n, len(m))
    weights = _weights(m)

    def scaled_norms(pending):  # C is rebuilt and inverted whole at each precision; positions t index its rows
        C = []
        for exps in exps_of(rows):
            mass = list(map(flint.arb.__mul__, exps, weights))
            inverse_total = 1 / _total(mass)
            C.append([_total(mass[j] for j in g) * inverse_total for g in groups])
        inverse = flint.arb_mat(C).inv(nonstop=True)  # a rigorous enclosure, or NaN entries (undecided)
        return [_arb(eps) * _total(abs(inverse[t, k]) for k in range(len(rows))) for t in pending]

    _all_below(list(range(len(rows))), scaled_norms, Fraction(1),
               lambda t: f"row {rows[t]}: eps sum_k |C^-1_ik| < 1 (the grouped matrix's inverse norm below 1/eps)")
    judgment = {"judgment": "approx-rank-at-least", **fields, "epsilon": eps, "bound": len(rows)}
    return judgment, (f"rank_eps >= {len(rows)} at eps = {_short(eps)} on instance {fields['instance'][:15]} (n = {fields['n']}"
                      f"{_sphere(fields)}; eps ||C^-1||_inf < 1 for the {len(rows)} x {len(rows)} grouped matrix, decided in arb)")


def _sphere(fields: dict) -> str:
    if "sphere" not in fields:
        return ""
    return f", points on S^{fields['sphere'] - 1}" if fields["sphere"] else ", points NOT all on the unit sphere"


# ------------------------------------------------------ upper: explicit B


def _upper_work(data: dict) -> int:
    rows, width, dim = _shape(data)
    k = length_of(data["right"])
    return _sphere_work(data) + len(PRECISIONS) * rows * width * (k + dim + 2)


@kind("approx-rank-upper", "logits", "multiplicities", "epsilon", "left", "right", work=_upper_work, digits=False)
def _approx_rank_upper(data: dict):
    """``rank_eps(A) <= k``: an explicit ``B = F G`` (F: n x k, G: k x N, rational) with every
    row error ``||A_i - B_i||_1 < eps`` certainly (B and A enclosed in arb)."""
    return _explicit_upper(data)


@kind("approx-rank-upper-points", "points", "beta", "multiplicities", "epsilon", "left", "right", work=_upper_work, digits=False)
def _approx_rank_upper_points(data: dict):
    """As ``approx-rank-upper`` for ``L = beta X X^T`` (logits enclosed in arb from X and beta)."""
    return _explicit_upper(data)


def _explicit_upper(data: dict, instance=None):
    """The explicit-B check on the attention ``instance(data)`` names (default: :func:`_instance`)."""
    rows_n, exps_of, m, fields = (instance or _instance)(data)
    eps = _epsilon(data["epsilon"])
    F = matrix(data["left"], "left", rows_n)
    G = matrix(data["right"], "right", len(F[0]), len(m))
    Fq, Gq, weights = fmpq_matrix(F), fmpq_matrix(G), _weights(m)

    def errors(pending):
        B = (flint.arb_mat(Fq) * flint.arb_mat(Gq)).tolist()
        return [_total(map(abs, map(flint.arb.__sub__, _normalised(exps, weights), B[i])))
                for i, exps in zip(pending, exps_of(pending))]

    _all_below(list(range(rows_n)), errors, eps, lambda i: f"row {i}: ||A_i - B_i||_1 < {_short(eps)}")
    k = len(G)
    judgment = {"judgment": "approx-rank-at-most", **fields, "epsilon": eps, "bound": k}
    return judgment, f"rank_eps <= {k} at eps = {_short(eps)} on instance {fields['instance'][:15]} (n = {fields['n']}{_sphere(fields)}; B = F G, every row within eps in arb)"


# ------------------------------------------- instances: integer-scaled logits, points in the ball


def _scaled_instance(data: dict):
    """Logits ``L = scale * N`` (N an integer matrix, scale rational) with column multiplicities m, named
    ``digest({"scale": scale, "integers": N, "multiplicities": m})``; the shifted exponentials of its
    rows (the contract of :func:`_instance`) are ``e^{scale d}`` for integers d, one arb exp per distinct d."""
    scale = rational(data["scale"], "scale")
    N = listof(data["integers"], "integers", 1)
    require(all(isinstance(r, list) for r in N), "integers must be a list of rows")
    width = len(N[0])
    require(width >= 1 and all(len(r) == width for r in N), f"integers rows must all have {width} >= 1 entries")
    # every entry an int (never a boolean) of at most 1000 bits: builtins over the flat entries, no per-entry call
    flat = list(chain.from_iterable(N))
    require(set(map(type, flat)) == {int}, "integers entries must be integers")
    require(max(max(flat), -min(flat)).bit_length() <= 1000, "an integers entry has more than 1000 bits")
    m = [integer(v, "multiplicity", 1) for v in listof(data["multiplicities"], "multiplicities", width, width)]

    def exps_of(indices):
        # row i shifted by c_i = scale * (its largest N_ij when scale >= 0, else its smallest): the
        # exponents scale * d, d = N_ij - that entry, are few distinct integers: one exp each
        pick = max if scale >= 0 else min
        gaps = [[v - top for v in N[i]] for i, top in zip(indices, [pick(N[i]) for i in indices])]
        s = _arb(scale)
        exp_of = {d: (s * d).exp() for d in set().union(*gaps)}
        return [list(map(exp_of.__getitem__, row)) for row in gaps]

    fields = {"instance": digest({"scale": scale, "integers": N, "multiplicities": m}), "n": len(N)}
    return len(N), exps_of, m, fields


def _scaled_work(data: dict, per_row: int) -> int:
    rows, width = length_of(data["integers"]), width_of(data["integers"])
    return rows * width + 5 * per_row * width * 8


@kind("approx-rank-lower-scaled", "scale", "integers", "multiplicities", "epsilon", "rows", "groups",
      work=lambda d: _scaled_work(d, length_of(d["rows"])), digits=False)
def _lower_scaled(data: dict):
    """As ``approx-rank-lower`` for the logits ``scale * N`` (N integer): ``rank_eps >= |R|`` on the named instance."""
    return _grouped_lower(data, _scaled_instance)


@kind("approx-rank-upper-scaled", "scale", "integers", "multiplicities", "epsilon", "left", "right",
      work=lambda d: _scaled_work(d, length_of(d["integers"]) * max(1, length_of(d["right"]))), digits=False)
def _upper_scaled(data: dict):
    """As ``approx-rank-upper`` for the logits ``scale * N`` (N integer): ``rank_eps <= k`` on the named instance."""
    return _explicit_upper(data, _scaled_instance)


def _ball_instance(data: dict):
    """``_instance`` for points, with ``ball: d`` when every point has ``|x|^2 <= 1`` exactly
    (the closed unit ball), else ``ball: false``, in place of the sphere field."""
    rows, exps_of, m, fields = _instance(data)
    X = matrix(data["points"], "points")
    inside = all(sum((v * v for v in x), Fraction(0)) <= 1 for x in X)
    fields = {k: v for k, v in fields.items() if k != "sphere"}
    fields["ball"] = len(X[0]) if inside else False
    return rows, exps_of, m, fields


@kind("approx-rank-lower-ball", "points", "beta", "multiplicities", "epsilon", "rows", "groups", work=_lower_work, digits=False)
def _lower_ball(data: dict):
    """As ``approx-rank-lower-points``, the judgment saying ``ball: d`` when every point lies in the closed unit ball."""
    return _grouped_lower(data, _ball_instance)


@kind("approx-rank-upper-ball", "points", "beta", "multiplicities", "epsilon", "left", "right", work=_upper_work, digits=False)
def _upper_ball(data: dict):
    """As ``approx-rank-upper-points``, the judgment saying ``ball: d`` when every point lies in the closed unit ball."""
    return _explicit_upper(data, _ball_instance)


# ------------------------------------------------------------- residuals


def _pair(data: dict, other: str):
    L, S = matrix(data["logits"], "logits"), matrix(data[other], other)
    require(len(L) == len(S) and len(L[0]) == len(S[0]), f"logits and {other} have different shapes")
    return L, S


def _arb_row(row: list[Fraction]) -> list:
    return [_arb(v) for v in _shifted(row)]


@kind("residual-bound", "logits", "approximation", work=lambda d: 8 * len(PRECISIONS) * length_of(d["logits"]) * width_of(d["logits"]))
def _residual_bound(data: dict):
    """For every row i: ``||rowsoftmax(L)_i - rowsoftmax(L')_i||_1 <= 2 tanh(osc_i / 4)``.

    ``osc_i = max_j E_ij - min_j E_ij`` with ``E = L - L'`` (exact).  A row
    with ``osc_i = 0`` is a constant shift of the other (identical softmax
    rows); every other row is decided in arb (distance minus bound certainly < 0).
    """
    L, S = _pair(data, "approximation")
    ones = _weights([1] * len(L[0]))
    osc = {}
    for i, (a, b) in enumerate(zip(L, S)):
        diff = [x - y for x, y in zip(a, b)]
        osc[i] = max(diff) - min(diff)

    def gaps(pending):
        return [_total(abs(x - y) for x, y in zip(_softmax(_arb_row(L[i]), ones), _softmax(_arb_row(S[i]), ones)))
                - 2 * (_arb(osc[i]) / 4).tanh() for i in pending]

    _all_below([i for i in osc if osc[i] != 0], gaps, Fraction(0), lambda i: f"row {i}: distance <= 2 tanh(osc_i/4)")
    judgment = {"judgment": "residual-within", "logits": digest(L), "approximation": digest(S)}
    return judgment, f"every row of a {len(L)} x {len(L[0])} softmax within 2 tanh(osc_i/4) of the approximation's (max osc {_short(max(osc.values()))})"


RESIDUAL_BOUNDS = {
    # t = e^delta: 2 tanh(delta/2) = 2 (t - 1)/(t + 1), tanh(delta) = (t^2 - 1)/(t^2 + 1)
    "2tanh(delta/2)": lambda t: 2 * (t - 1) / (t + 1),
    "tanh(delta)": lambda t: (t * t - 1) / (t * t + 1),
}
TWO_POINT_LENGTH = 16  # entries of the probability row (the counterexamples need two)


@kind("residual-two-point", "t", "row", "weights", "bound", "relation", work=lambda d: 32 * length_of(d["row"]) ** 2)
def _residual_two_point(data: dict):
    """One perturbation whose l1 effect exceeds or attains a candidate residual bound, exactly.

    ``t = e^delta > 1`` rational; p a positive rational probability row (at
    most 16 entries); weights ``w_j = e^{E_j}`` with ``1 <= w_j <= t^2`` (E
    has row range ``<= 2 delta``, i.e. ``||E - c||_max <= delta`` for the mid
    shift c); ``q_j = p_j w_j / sum_k p_k w_k`` is the softmax of the perturbed
    logits.  "exceeds": ``||p - q||_1 > bound(t)``; "attains": ``= bound(t)``.
    """
    t = rational(data["t"], "t")
    require(t > 1, "t = e^delta must be > 1")
    p = [rational(v, "row") for v in listof(data["row"], "row", 2, TWO_POINT_LENGTH)]
    w = [rational(v, "weight") for v in listof(data["weights"], "weights", len(p), len(p))]
    require(all(v > 0 for v in p) and sum(p) == 1, "row must be a positive probability vector")
    require(all(1 <= v <= t * t for v in w), "weights must lie in [1, t^2]")
    name, relation = data["bound"], data["relation"]
    require(isinstance(name, str) and name in RESIDUAL_BOUNDS, f"unknown bound {str(name)[:40]!r}; known: {sorted(RESIDUAL_BOUNDS)}")
    require(isinstance(relation, str) and relation in ("exceeds", "attains"), f"unknown relation {str(relation)[:40]!r}")
    bound = RESIDUAL_BOUNDS[name](t)
    total = sum((a * b for a, b in zip(p, w)), Fraction(0))
    dist = sum((abs(a * b / total - a) for a, b in zip(p, w)), Fraction(0))
    words = f"||p - q||_1 = {_short(dist)}, {name} = {_short(bound)} at e^delta = {_short(t)}"
    require(dist > bound if relation == "exceeds" else dist == bound, f"not {relation}: {words}")
    judgment = {"judgment": "residual-two-point", "t": t, "bound": name, "relation": relation}
    return judgment, f"{relation}: {words}"


@kind("attention-differs", "logits", "other", "row", "column",
      work=lambda d: 12 * len(PRECISIONS) * width_of(d["logits"]) + 6 * length_of(d["logits"]) * width_of(d["logits"]))
def _attention_differs(data: dict):
    """``rowsoftmax(L) != rowsoftmax(L')``: at entry (i, j) the two arb balls are certainly apart."""
    L, S = _pair(data, "other")
    i, j = integer(data["row"], "row", 0, len(L) - 1), integer(data["column"], "column", 0, len(L[0]) - 1)
    ones = _weights([1] * len(L[0]))

    def apart(pending):  # -|a - b| < 0 certainly  iff  the balls a, b are disjoint
        return [-abs(_softmax(_arb_row(L[i]), ones)[j] - _softmax(_arb_row(S[i]), ones)[j]) for _ in pending]

    _all_below([i], apart, Fraction(0), lambda i: f"entry ({i}, {j}) differs")
    judgment = {"judgment": "attention-differs", "logits": digest(L), "other": digest(S)}
    return judgment, f"the two attentions ({len(L)} x {len(L[0])}) differ at ({i}, {j})"
