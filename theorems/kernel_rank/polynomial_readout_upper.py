"""K6 — a degree-D polynomial readout lets rank one solve exact length D + 1.

Claim: for every ``D >= 1`` and every ``m >= 1`` one head of feature rank one
(``phi = psi = 1``, one-hot values, so ``h(X)`` is the empirical distribution
of the tokens of X) with a query-dependent readout ``y = P_q(h)`` of degree
``<= D`` in h has ``y(X) = T(X)`` for every sequence X of exact length ``D + 1``.

Witness: ``P_q(h) = sum_{t=1}^{|q|} g_D(h(S_t))`` with ``S_t = {x : <x,q> < t}``
and ``g_D(u) = prod_{i=1}^{D} (1 - (D+1) u / i)``.  At length ``D + 1``,
``(D+1) h(S_t) = k_t`` counts the positions j with ``<x_j, q> < t`` (the
query itself never counts: ``<q,q> = |q| >= t``), so ``k_t`` is in ``{0..D}``;
and ``prod_{i=1}^{D} (1 - k/i) = [k = 0]`` there.  Hence
``P_q = #{t <= |q| : every score >= t} = T``.

Checks: the product identity for symbolic D (sympy: a symbolic fact, beside
the verdict); the coefficients of ``g_D`` as exact data; the head evaluated
exactly on one sequence per orbit of coordinate permutations x context
permutations at length D + 1, for D = 1..3, and on every score statistic up to
``m_statistic``.  The verdict rests on the last two (``threshold-polynomial``
certificates naming g_D by digest): it reaches D = 1..3, m <= m_statistic.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

from solvers.lazy import sympy as sp

from solvers import orbits
from solvers.trusted.core import digest
from theorems import attention as att
from theorems.core import Claim, Obligations, Parameter, Statement, obligation
from theorems.kernel_rank import POLYNOMIAL


@functools.cache
def _symbols() -> tuple:
    """This module's sympy symbols, made on first use (importing sympy is slow; `attnproof list` needs none)."""
    _D = sp.Symbol("D", integer=True, positive=True)
    _k = sp.Symbol("k", integer=True, nonnegative=True)
    _i = sp.Symbol("i", integer=True, positive=True)
    _m = sp.Symbol("m", integer=True, positive=True)
    _X, _q, _h = sp.symbols("X q h")
    return _D, _k, _i, _m, _X, _q, _h


def product_factor(D, k, i):
    """The factor ``1 - k/i`` of ``prod_{i=1}^{D} (1 - k/i)``."""
    return 1 - k / i


def selector_coefficients(D: int) -> list[Fraction]:
    """Coefficients of ``g_D(u) = prod_{i=1}^{D} (1 - (D+1) u / i)``, constant term first.

    ``D! g_D(u) = prod_{i=1}^{D} (i - (D+1) u)`` has integer coefficients: the product is
    expanded in integers, then each coefficient is divided by ``D!`` once.
    """
    poly = [1]
    for i in range(1, D + 1):  # times (i - (D+1) u): the coefficient of u^d becomes i c_d - (D+1) c_(d-1)
        poly = [i * c - (D + 1) * b for c, b in zip(poly + [0], [0] + poly)]
    return [Fraction(c, math.factorial(D)) for c in poly]


def evaluate(coefficients, u: Fraction) -> Fraction:
    value = Fraction(0)
    for c in reversed(coefficients):
        value = value * u + c
    return value


def selects_zero(coefficients) -> bool:
    """``g(k/n) = [k = 0]`` for every k in 0..D, with ``D = deg g`` and ``n = D + 1``, decided in integers.

    With ``g(u) = sum_i (a_i / L) u^i`` (L the lcm of the denominators):
    ``L n^D g(k/n) = sum_i a_i k^i n^(D - i)``, to be ``L n^D`` at k = 0 and 0 at every other k.
    """
    D = len(coefficients) - 1
    n, L = D + 1, math.lcm(*(Fraction(c).denominator for c in coefficients))
    a = [Fraction(c).numerator * (L // Fraction(c).denominator) for c in coefficients]
    scaled = [a[i] * n ** (D - i) for i in range(D + 1)]  # a_i n^(D-i): then Horner in k

    def value(k: int) -> int:
        total = 0
        for c in reversed(scaled):
            total = total * k + c
        return total

    return value(0) == L * n**D and all(value(k) == 0 for k in range(1, D + 1))


def threshold_mass(h, q: int, t: int) -> Fraction:
    """``h(S_t) = sum_{x : <x,q> < t} h(x)`` for a dense vector or a sparse dict h."""
    items = h.items() if isinstance(h, dict) else enumerate(h)
    return sum((v for x, v in items if v and att.inner(x, q) < t), Fraction(0))


def readout(coefficients, degree: int) -> att.PolynomialReadout:
    """``P_q(h) = sum_{t=1}^{|q|} g(h(S_t))``: degree ``len(coefficients) - 1`` in h.

    For every q and h, ``t -> h(S_t)`` is a step function on ``1..|q|``: it is the
    mass of the tokens scoring ``< t``, so it grows by ``h(x)`` at ``t = <x,q> + 1``
    and is constant in between.  The sum is therefore taken over the steps (at most
    one per token in the support of h), each value of g times the length of its
    step, instead of over every t; the masses are added as integers over the
    common denominator of h's entries.  Exact throughout (ints and Fractions).
    """

    values: dict[tuple[int, int], int | Fraction] = {}  # g(num/den), met so far: g is one fixed polynomial

    def g(num: int, den: int) -> int | Fraction:
        value = values.get((num, den))
        if value is None:
            value = evaluate(coefficients, Fraction(num, den))
            values[num, den] = value = value.numerator if value.denominator == 1 else value
        return value

    def polynomial(q, outputs):
        (h,) = outputs
        items = h.items() if isinstance(h, dict) else enumerate(h)
        steps = sorted([((x & q).bit_count(), v.numerator, v.denominator) for x, v in items if v])  # <x, q>
        den = math.lcm(*[d for _, _, d in steps])
        w, total, mass, t = att.weight(q), 0, 0, 1  # h(S_t) = mass / den for t in [t, next step)
        for s, num, d in steps:
            if s >= w:  # this token counts only from t = s + 1 > |q| on
                break
            if s >= t:
                value = g(mass, den)
                if value:
                    total += value * (s + 1 - t)
                t = s + 1
            mass += num * (den // d)
        value = g(mass, den)
        return total + value * (w + 1 - t) if value else total

    return att.PolynomialReadout(polynomial, degree)


def prove_selector_identity() -> dict:
    """``prod_{i=1}^{D} (1 - k/i) = [k = 0]`` for all integers ``0 <= k <= D``, D symbolic.

    sympy evaluates the product for symbolic D to ``RisingFactorial(1-k, D)/D!``,
    and ``combsimp`` rewrites it as ``binomial(D - k, D)``; at ``k = 0`` this is
    ``binomial(D, D) = 1``; for ``1 <= k <= D`` put ``D = k + e`` with ``e >= 0``:
    ``binomial(e, k + e)`` has lower index above its nonnegative integer upper
    index, which sympy evaluates to 0.
    """
    _D, _k, _i, _m, _X, _q, _h = _symbols()
    e = sp.Symbol("e", integer=True, nonnegative=True)
    kp = sp.Symbol("k", integer=True, positive=True)
    closed = sp.product(product_factor(_D, _k, _i), (_i, 1, _D))
    as_binomial = sp.combsimp(closed)
    target = sp.binomial(_D - _k, _D)
    at_zero = sp.simplify(as_binomial.subs(_k, 0))
    at_positive = sp.simplify(as_binomial.subs(_k, kp).subs(_D, kp + e))
    proved = sp.simplify(as_binomial - target) == 0 and at_zero == 1 and at_positive == 0
    return {
        "closed_form": str(closed),
        "as_binomial": str(as_binomial),
        "at_k_0": str(at_zero),
        "at_1_le_k_le_D": str(at_positive),
        "proved": bool(proved),
    }


class PolynomialReadoutUpper(Claim):
    id = "kernel_rank.polynomial_readout_upper"
    paper = "2608.11427"
    sentence = POLYNOMIAL
    title = "Degree-D polynomial readout: rank one solves exact length D+1"
    relation = "reads it"
    expected = "verified"
    established = "verified"
    uses = ()
    parameters = (
        Parameter("m_D1", 16, 1, 40, "token bits for the orbit-exhaustive check at D = 1 (length 2)"),
        Parameter("m_D2", 9, 1, 16, "token bits for the orbit-exhaustive check at D = 2 (length 3)"),
        Parameter("m_D3", 6, 1, 9, "token bits for the orbit-exhaustive check at D = 3 (length 4)"),
        Parameter("m_statistic", 20, 1, 200, "every (|q|, context scores) statistic up to this m, for D = 1..3 (every input of every m' <= m)"),
        Parameter("D_exact", 30, 1, 200, "the selector identity is also evaluated exactly at every k <= D for D up to this "
                  "(by the claim, no certificate: a setting)", size=False),
    )

    def statement(self) -> Statement:
        _D, _k, _i, _m, _X, _q, _h = _symbols()
        y, T, P = sp.Function("y"), sp.Function("T"), sp.Function("P_q")
        kappa = sp.Function("kappa")
        u = sp.Symbol("u")
        g = sp.Product(1 - (_D + 1) * u / _i, (_i, 1, _D))
        return Statement(
            hypotheses=(
                (sp.Contains(_m, sp.Naturals, evaluate=False), "for every number of bits m >= 1"),
                (sp.Contains(_D, sp.Naturals, evaluate=False), "for every degree D >= 1"),
                (sp.Eq(kappa(_q, sp.Symbol("x")), 1), "one head of feature rank one (phi = psi = 1), one-hot values: h = empirical distribution"),
                (sp.Eq(P(_h), sp.Sum(g.subs(u, sp.Symbol("h(S_t)")), (sp.Symbol("t"), 1, sp.Symbol("|q|")))),
                 "readout P_q of degree D in h, S_t = {x : <x,q> < t}"),
            ),
            conclusion=(sp.Eq(y(_X), T(_X)), "for every sequence X of exact length D + 1: y(X) = min_j <x_j, q>"),
        )

    def cost(self, point: dict) -> float:
        # CPU seconds, fitted with bench/estimates.py (default 1.25 s; m_D3 = 8: 5.6 s; m_statistic = 60: 16.8 s;
        # m_D1 = 40, m_D2 = 14: 3.9 s; D_exact = 200: 1.1 s more).  Per joint type (the claim's enumeration and
        # evaluation of one sequence per orbit, the checker's walk over every type): fewer orbits per type as
        # D grows; per score statistic (sum_{w <= m} C(w + D, D) of them): one evaluation in each of the two.
        total = sum(orbits.type_count(point[f"m_D{D}"], D + 1) * per_type for D, per_type in ((1, 3e-5), (2, 2e-5), (3, 1e-5)))
        total += sum(math.comb(point["m_statistic"] + D + 1, D + 1) for D in (1, 2, 3)) * 2.4e-5
        return total + point["D_exact"] ** 4 * 7e-10 + 0.15

    def witness(self, point: dict) -> dict:
        """The readout polynomials ``g_D`` (coefficients, constant first) for D = 1..3."""
        return {D: selector_coefficients(D) for D in (1, 2, 3)}

    def obligations(self, point: dict) -> Obligations:
        """For D = 1..3, the rank-one head with readout sum_t g_D(h(S_t)) is exact at length D + 1:
        at m = m_D (one sequence per orbit) and for every m' <= m_statistic (every score statistic)."""
        ms, verify, extra = point["m_statistic"], [], []
        for D, g in self.witness(point).items():
            m = point[f"m_D{D}"]
            common = {"model": "threshold-polynomial", "head": digest(g), "rank": 1, "alphabet": "all",
                      "lengths": [D + 1], "target": "min-ip", "tolerance": 0}
            words = f"phi = psi = 1 with the readout sum_(t <= |q|) g_{D}(h(S_t)) has y = T exactly on every sequence of length {D + 1}"
            verify.append(obligation(f"{words} over {{0,1}}^{m}", "solves", m=[m, m], **common))
            verify.append(obligation(f"{words} over {{0,1}}^m' for every m' <= {ms}", "solves", m=[1, ms], **common))
            extra += [f"D = {D} also at m = {m}"] if m > ms else []
        return Obligations(verify=tuple(verify), reach="; ".join([f"D = 1, 2, 3 (length D + 1), m <= {ms}"] + extra))

    def run(self, point: dict, ev) -> None:
        # 1. The selector identity for every D at once: symbolic (sympy), beside the verdict.
        proof = prove_selector_identity()
        ev.fact("symbolic_selector_identity", {"rests_on": "symbolic (sympy)", **proof})
        table_ok = all(selects_zero(selector_coefficients(D)) for D in range(1, point["D_exact"] + 1))
        ev.cover("selector_exact_unchecked", {"D": [1, point["D_exact"]], "k": "0..D"})
        if not table_ok:
            ev.fail("g_D(k/(D+1)) != [k = 0] for some k <= D", {"D_exact": point["D_exact"]})
        ev.poll()

        # 2. The head built as a layer, one sequence per orbit, exact length D + 1.
        witness = self.witness(point)
        ev.fact("readout_coefficients", {f"D={D}": c for D, c in witness.items()})
        for D, m in ((1, point["m_D1"]), (2, point["m_D2"]), (3, point["m_D3"])):
            coefficients = witness[D]
            layer = att.AttentionLayer((att.UniformOneHotHead(),), readout(coefficients, D))
            sweep = att.sweep_orbits(layer, m, D + 1, ev.poll)
            ev.cover(f"D={D}", {"m": m, "length": D + 1, "sequences": sweep.inputs, "orbits": sweep.points})
            ev.fact(f"max_error_D{D}_m{m}", sweep.worst)
            if sweep.worst != 0:
                seq = sweep.worst_input
                ev.fail(f"nonzero error {sweep.worst} at D = {D}, length {D + 1}",
                        {"D": D, "m": m, "sequence": [att.bits(x, m) for x in seq], "error": sweep.worst})
                continue
            ev.certify("threshold-polynomial", {
                "m": m, "length": D + 1, "coefficients": coefficients, "symmetry": "coordinates-and-context",
            })
        # 3. Every score statistic: y and T depend on X only through |q| and the multiset of
        #    context scores (h(S_t) is the share of positions scoring below t), each score
        #    achievable independently in [0, |q|]; evaluate the layer on a realising sequence.
        ms = point["m_statistic"]
        for D in (1, 2, 3):
            layer = att.AttentionLayer((att.UniformOneHotHead(),), readout(witness[D], D))
            points = 0
            for w, scores in att.score_statistics(ms, D + 1):
                ev.poll()
                points += 1
                seq = att.token_sequence(w, scores)
                error = layer.error(seq)
                if error != 0:
                    ev.fail(f"nonzero error {error} at D = {D}, |q| = {w}, context scores {list(scores)}",
                            {"D": D, "m": max(w, 1), "sequence": [att.bits(x, max(w, 1)) for x in seq], "error": error})
                    break
            else:
                ev.certify("threshold-polynomial", {"m": ms, "length": D + 1, "coefficients": witness[D], "symmetry": "scores"})
            ev.cover(f"statistic_D={D}", {"m": ms, "length": D + 1, "points": points})
        ev.note(
            "error exactly 0 at exact length D + 1: identity for every D symbolic (sympy), orbit-exhaustive for "
            + ", ".join(f"D = {D} at m = {point[f'm_D{D}']}" for D in (1, 2, 3))
            + f", statistic-exhaustive for every m <= {ms}"
        )


CLAIM = PolynomialReadoutUpper()
