"""K7 — a degree-D polynomial readout does not let rank one solve exact length D + 2.

Claim: for every ``D >= 1`` and every ``m >= 2^{D+1}``, no head of feature rank
one with a query-dependent readout ``y = P_q(h)`` of degree ``<= D`` in h has
error ``< 1/2`` on every sequence of exact length ``D + 2``.

Argument (two tokens, extrapolation).  Take disjoint q, z with
``|q| = |z| = 2^D``.  A rank-one head weighs a token x by ``psi(x) > 0``
(``phi(q)`` cancels), so on ``(z^k, q^{D+2-k})`` the output h puts mass
``pi_k = k rho / (k rho + D + 2 - k)`` on z, ``rho = psi(z)/psi(q)``, and the
rest on q: y is ``g(pi_k)`` for one polynomial g of degree ``<= D``.  The targets
are ``2^D`` at k = 0 and 0 for k >= 1.  Lagrange on the D + 1 nodes
``pi_1 < ... < pi_{D+1}``: ``g(0) = sum_k l_k(0) g(pi_k)``, so
``2^D - 1/2 < g(0) < Lambda(rho)/2`` with ``Lambda = sum_k |l_k(0)|``.
``Lambda`` is increasing with ``Lambda(1) = 2^{D+1} - 1``, which forces
``rho > 1``; the swapped query z forces ``1/rho > 1``.  Contradiction.

Checks: Lambda symbolically for D = 1..D_max (sympy), its sign pattern,
monotonicity and ``Lambda(1)``; a ``two-token-extrapolation`` certificate at
``m = 2^{D+1}``, which the trusted checker rebuilds from the two tokens; and at
D = 1 the six-row Gordan combination of the linearised affine problem, which
must be the one of the three-token lower bound at m = 4 (query 0011, context
1100 and the swap, weights 1, 2, 1 per query).  Below the construction,
weights ``psi(x) = 2^{-|x|}`` with a degree-D readout do solve exact length
D + 2 (exact LP witnesses, ``polynomial-readout-table``: D = 2 at m = 4 by
default, m = 5 on request; D = 3 at m = 3), so the smallest failing m lies in
[m + 1, 2^{D+1}]; where exactly is open.

The verdict rests on the certificates: per D <= D_max, "no such head at any
m >= 2^(D+1)" (the checker rebuilds Lambda and pads with zeros), and the
witnesses below the construction.  Lambda's sympy derivation and the D = 1
Gordan cross-check are reported beside it, as symbolic and unchecked facts.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from itertools import combinations_with_replacement

from solvers.lazy import sympy as sp

from solvers import lp, orbits, symbolic
from theorems import attention as att
from theorems.core import Claim, Obligations, Parameter, Plot, Statement, obligation
from theorems.kernel_rank import POLYNOMIAL


@functools.cache
def _symbols() -> tuple:
    """This module's sympy symbols, made on first use (importing sympy is slow; `attnproof list` needs none)."""
    _rho = sp.Symbol("rho", positive=True)
    _D = sp.Symbol("D", integer=True, positive=True)
    _m = sp.Symbol("m", integer=True, positive=True)
    _X, _q, _h = sp.symbols("X q h")
    return _rho, _D, _m, _X, _q, _h


def nodes(D: int, rho=None) -> list:
    """``pi_k = k rho / (k rho + D + 2 - k)``, k = 1..D+1: the mass on z of ``(z^k, q^{D+2-k})`` (rho symbolic by default)."""
    rho = _symbols()[0] if rho is None else rho
    n = D + 2
    return [k * rho / (k * rho + n - k) for k in range(1, n)]


def lagrange_at_zero(points: list) -> list:
    """``l_k(0) = prod_{j != k} (0 - x_j) / (x_k - x_j)`` for the given nodes: sympy expressions
    (each value simplified) or elements of a sympy rational-function field (kept in lowest terms)."""
    out = []
    for k, xk in enumerate(points):
        value = 1
        for j, xj in enumerate(points):
            if j != k:
                value *= -xj / (xk - xj)
        out.append(sp.factor(sp.cancel(value)) if isinstance(value, sp.Expr) else value)
    return out


def extrapolation_constant(D: int) -> dict:
    """``Lambda(rho) = sum_k |l_k(0)|`` with its proof obligations, for one D.

    Signs: ``pi_j - pi_k = (D+2)(j-k) rho / ((j rho + D+2-j)(k rho + D+2-k))``
    (checked), so the nodes increase with k on rho > 0 and ``l_k(0)`` has the
    sign ``(-1)^{k-1}`` (0 lies left of every node).

    Computed in sympy's field of rational functions of rho over QQ (``sympy.field``:
    exact, every element in lowest terms, no expression trees to simplify), so a
    rational function vanishes identically exactly when it is the field's zero;
    Lambda is then written as an expression for the facts and the certificate.
    """
    _rho, _D, _m, _X, _q, _h = _symbols()
    _, rho = sp.field([_rho], sp.QQ)
    pts = nodes(D, rho)
    n = D + 2
    # pi_j - pi_k with each node N / E in lowest terms, cross-multiplied: an identity of polynomials
    N, E, r = [p.numer for p in pts], [p.denom for p in pts], rho.numer
    difference_ok = all(
        (N[j - 1] * E[k - 1] - N[k - 1] * E[j - 1]) * (j * r + n - j) * (k * r + n - k) == n * (j - k) * r * E[j - 1] * E[k - 1]
        for j in range(1, n) for k in range(1, j)
    )
    ells = lagrange_at_zero(pts)
    field_lam = sum(((-1) ** k) * ell for k, ell in enumerate(ells))
    lam = sp.factor(field_lam.as_expr())
    num, den = sp.fraction(sp.cancel(lam))
    top, bottom = field_lam.numer, field_lam.denom
    x = top.ring.gens[0]
    slope = (top.diff(x) * bottom - top * bottom.diff(x)).as_expr()
    increasing = symbolic.positive_from(slope, _rho, 0) and symbolic.positive_from(bottom.as_expr(), _rho, 0)
    at_one = lam.subs(_rho, 1)
    # the Lagrange exactness g(0) = sum l_k(0) g(pi_k) for g = 1, pi, ..., pi^D (checked, not assumed)
    exact = all(sum(ell * p**d for ell, p in zip(ells, pts)) == (1 if d == 0 else 0) for d in range(D + 1))
    return {
        "lambda": lam,
        "numerator": num,
        "denominator": den,
        "at_one": at_one,
        "node_differences": difference_ok,
        "increasing": increasing,
        "lagrange_exact": exact,
    }


def tokens(D: int) -> tuple[int, int, int]:
    """``m = 2^{D+1}``, q = the last 2^D coordinates, z = the first 2^D (disjoint)."""
    half = 1 << D
    m = 2 * half
    z = (1 << half) - 1
    q = z << half
    return m, q, z


def affine_gordan(q: int, z: int) -> tuple[list, list, dict]:
    """D = 1: the six rows of the linearised affine problem on ``(z^k, q^{3-k})`` and the swap.

    Unknowns ``psi(x)`` and ``P[q', x] = psi(x) U[q', x]``; a row "lo" reads
    ``sum_j (P[q', x_j] - (T - 1/2) psi(x_j)) > 0`` and "hi"
    ``sum_j ((T + 1/2) psi(x_j) - P[q', x_j]) > 0``.  Weights and sides come from
    Lagrange at rho = 1: the k = 0 row "lo" with weight 1, row k >= 1 with
    weight ``|l_k(0)|`` on the side of the sign of ``l_k(0)``.  Returns the rows,
    weights and the combined linear form (zero for a Gordan certificate).
    """
    _rho, _D, _m, _X, _q, _h = _symbols()
    ells = [sp.Rational(v) for v in (ell.subs(_rho, 1) for ell in lagrange_at_zero(nodes(1)))]
    rows, weights, total = [], [], {}
    for a, b in ((q, z), (z, q)):
        for k, (side, weight) in enumerate([("lo", Fraction(1))] + [("hi" if e > 0 else "lo", Fraction(abs(e))) for e in ells]):
            seq = (b,) * k + (a,) * (3 - k)
            T = att.min_ip_target(seq)
            form: dict = {}
            for x in seq:
                sgn = 1 if side == "lo" else -1
                form[("P", a, x)] = form.get(("P", a, x), 0) + sgn
                form[("psi", x)] = form.get(("psi", x), 0) - sgn * (T - sgn * Fraction(1, 2))
            rows.append({"query": a, "sequence": seq, "side": side})
            weights.append(weight)
            for key, c in form.items():
                total[key] = total.get(key, 0) + weight * c
    return rows, weights, {k: v for k, v in total.items() if v != 0}


def polynomial_readout_search(m: int, D: int, n: int, psi: list[Fraction], budget: float | None = None):
    """Search a degree-D readout for the rank-one head with weights ``psi`` at exact length n.

    For fixed weights the readout's coefficients enter linearly: per query q,
    one strict row pair ``|sum_j c_j prod_{a in mono_j} h(a) - T| < 1/2`` per
    context multiset (only monomials over the support of h are nonzero).
    ``psi`` depends on ``|x|`` only, so one query per weight is solved, q = the
    first w coordinates, and moved to every other query of that weight by a
    coordinate permutation (which fixes psi and every target).  Returns
    ``(monomials, rows)`` with exact rational coefficients for every query, or
    ``(monomials, q, answer)`` for the first query without a witness (an Unknown
    or a Motzkin certificate: for these weights only, so it refutes nothing
    about rank one in general).
    """
    size = 1 << m
    if any(psi[x] != psi[(1 << att.weight(x)) - 1] for x in range(size)):
        raise ValueError("psi must depend on the weight |x| only")
    monomials = [mono for d in range(D + 1) for mono in combinations_with_replacement(range(size), d)]
    index = {mono: j for j, mono in enumerate(monomials)}
    # h(x) = p(x) #x / sum_j p(x_j) with p = psi times the lcm of its denominators (the scale cancels),
    # so a monomial of degree d is prod_a (p(a) #a) / P^d: one Fraction each, the same value as with psi;
    # only monomials over the support of h are nonzero
    scale = math.lcm(*(v.denominator for v in psi))
    p = [v.numerator * (scale // v.denominator) for v in psi]
    by_weight = {}
    for w in range(m + 1):
        q = (1 << w) - 1
        system = lp.LinearSystem(len(monomials))
        for context in combinations_with_replacement(range(size), n - 1):
            seq = context + (q,)
            mass: dict[int, int] = {}
            for x in seq:
                mass[x] = mass.get(x, 0) + p[x]
            total, support = sum(mass.values()), sorted(mass)
            coefs, level = {}, [((), 1)]  # the monomials of degree d over the support, in order, with prod_a p(a) #a
            for d in range(D + 1):
                for mono, value in level:
                    coefs[index[mono]] = Fraction(value, total**d)
                if d < D:
                    level = [(mono + (a,), value * mass[a]) for mono, value in level for a in support if not mono or a >= mono[-1]]
            T = att.min_ip_target(seq)
            system.add(coefs, "<", T + Fraction(1, 2))
            system.add(coefs, ">", T - Fraction(1, 2))
        answer = lp.decide(system, budget)
        if not isinstance(answer, lp.Feasible):
            return monomials, q, answer
        by_weight[w] = answer.point
    rows = {}
    for q in range(size):
        ones = [i for i in range(m) if q >> i & 1]
        perm = tuple(ones + [i for i in range(m) if not q >> i & 1])  # coordinate i of the representative -> perm[i]
        row = [Fraction(0)] * len(monomials)
        for j, c in enumerate(by_weight[len(ones)]):
            if c:
                image = tuple(sorted(orbits.permute_bits(a, perm) for a in monomials[j]))
                row[index[image]] = c
        rows[q] = row
    return monomials, rows


class PolynomialReadoutLower(Claim):
    id = "kernel_rank.polynomial_readout_lower"
    paper = "2608.11427"
    sentence = POLYNOMIAL
    title = "Degree-D polynomial readout: rank one fails at exact length D+2 once m >= 2^(D+1)"
    relation = "reads it"
    expected = "verified"
    established = "verified"
    uses = ()
    parameters = (
        Parameter("D_max", 6, 1, 9, "degrees D = 1..D_max: Lambda symbolically and a certificate at m = 2^(D+1)"),
        Parameter("D_small", 2, 1, 3, "degrees 2..D_small: a certified rank-one witness at exact length D + 2 below 2^(D+1) (D = 3 at m = 3: ~0.4 s more)"),
        Parameter("m_small", 4, 3, 5, "bits of the D = 2 witness (m = 5: ~25 s)"),
    )

    def statement(self) -> Statement:
        _rho, _D, _m, _X, _q, _h = _symbols()
        y, T = sp.Function("y"), sp.Function("T")
        return Statement(
            hypotheses=(
                (sp.Contains(_D, sp.Naturals, evaluate=False), "for every degree D >= 1"),
                (sp.Ge(_m, 2 ** (_D + 1)), "for every number of bits m >= 2^(D+1)"),
                (sp.Eq(sp.Symbol("r"), 1), "every head of feature rank one, any values, any readout P_q of degree <= D in h"),
            ),
            conclusion=(
                sp.Ge(sp.Max(sp.Abs(y(_X) - T(_X))), sp.Rational(1, 2)),
                "some sequence X of exact length D + 2 has error >= 1/2",
            ),
        )

    def cost(self, point: dict) -> float:
        # CPU seconds, measured by bench/estimates.py (default 1.3 s, m_small = 5 23 s, D_small = 3 1.7 s,
        # D_max = 9 1.7 s): Lambda per D in sympy's rational-function field; the small-m searches (LP and
        # the checker's walk) run for D = 2 at m_small, and for D = 3 at m = 3 when D_small = 3
        small = {3: 0.15, 4: 1.0, 5: 23.0}[point["m_small"]] if point["D_small"] >= 2 else 0.0
        small += 0.4 if point["D_small"] >= 3 else 0.0
        return sum(0.002 * D * D for D in range(1, point["D_max"] + 1)) + small + 0.1

    def obligations(self, point: dict) -> Obligations:
        """Per D <= D_max: no rank-one head with a degree-D readout solves length D + 2 at any m >= 2^(D+1).
        Below it, for D = 2..D_small: some such head does solve length D + 2 at every m' <= m_small (3 at D = 3)."""
        task = {"rank": 1, "target": "min-ip", "tolerance": Fraction(1, 2)}
        verify = [obligation(f"no rank-one head with a readout of degree <= {D} has error < 1/2 on every sequence of "
                             f"length {D + 2} over {{0,1}}^m, for any m >= {2 ** (D + 1)}", "unsolvable",
                             model=f"polynomial-readout-{D}", m=[2 ** (D + 1), None], length=D + 2, **task)
                  for D in range(1, point["D_max"] + 1)]
        for D in range(2, point["D_small"] + 1):
            m = point["m_small"] if D == 2 else 3
            verify.append(obligation(f"below it: a rank-one head with a readout of degree {D} has error < 1/2 on every "
                                     f"sequence of length {D + 2} over {{0,1}}^m' for every m' <= {m}", "solves",
                                     model=f"polynomial-readout-{D}", head="any", alphabet="all", m=[1, m], lengths=[D + 2], **task))
        return Obligations(verify=tuple(verify), reach=f"D <= {point['D_max']}, every m >= 2^(D+1)")

    def witness(self, point: dict) -> dict:
        """The two tokens per degree: ``{D: (m, q, z)}``."""
        return {D: tokens(D) for D in range(1, point["D_max"] + 1)}

    def run(self, point: dict, ev) -> None:
        _rho, _D, _m, _X, _q, _h = _symbols()
        lambdas = {}
        for D, (m, q, z) in self.witness(point).items():
            ev.poll()
            found = extrapolation_constant(D)
            lambdas[f"D={D}"] = str(found["lambda"])
            target = 2 ** (D + 1) - 1
            problems = [name for name in ("node_differences", "increasing", "lagrange_exact") if not found[name]]
            if found["at_one"] != target:
                problems.append(f"Lambda(1) = {found['at_one']} != {target}")
            if problems:
                ev.fail(f"the extrapolation argument fails at D = {D}: {', '.join(problems)}", {"D": D, "lambda": str(found["lambda"])})
                continue
            num = sp.Poly(found["numerator"], _rho).all_coeffs()[::-1]
            den = sp.Poly(found["denominator"], _rho).all_coeffs()[::-1]
            ev.certify("two-token-extrapolation", {
                "m": m, "degree": D, "query": q, "other": z,
                "lambda": {"numerator": [Fraction(str(c)) for c in num], "denominator": [Fraction(str(c)) for c in den]},
            })
            ev.cover(f"D={D}", {"m": m, "length": D + 2, "query": att.bits(q, m), "other": att.bits(z, m)})
        # sympy's Lambda; the checker rebuilds its own from the nodes and compares
        ev.fact("symbolic_lambda", {"rests_on": "symbolic (sympy)", **lambdas})
        ev.fact("symbolic_lambda_at_one", {"rests_on": "symbolic (sympy)", **{f"D={D}": 2 ** (D + 1) - 1 for D in range(1, point["D_max"] + 1)}})

        # D = 1 is the affine readout: the Gordan combination of the three-token lower bound at m = 4.
        m, q, z = tokens(1)
        try:
            rows, weights, total = affine_gordan(q, z)
        except (TypeError, ZeroDivisionError) as exc:  # coincident nodes: no Lagrange weights
            ev.fail(f"at D = 1 the Lagrange weights at rho = 1 are undefined ({exc})", {"D": 1})
            return
        described = {(att.bits(q, m), seq) for seq in (("1100",) * k + ("0011",) * (3 - k) for k in range(3))}
        described |= {(att.bits(z, m), seq) for seq in (("0011",) * k + ("1100",) * (3 - k) for k in range(3))}
        ours = {(att.bits(r["query"], m), tuple(att.bits(x, m) for x in r["sequence"])) for r in rows}
        ev.fact("affine_gordan_m4_unchecked", {  # a cross-check with the three-token certificate, by the claim
            "rows": [{"query": att.bits(r["query"], m), "sequence": [att.bits(x, m) for x in r["sequence"]], "side": r["side"]} for r in rows],
            "weights": weights,
            "combination_is_zero": not total,
            "same_rows_as_three_token_certificate": ours == described,
        })
        if total or ours != described:
            ev.fail("at D = 1 the combination is not the six-row Gordan certificate of the three-token lower bound",
                    {"residual": {str(k): v for k, v in total.items()}, "rows": sorted(ours)})
        self._small_m(point, ev)
        ev.note(
            f"Lambda increasing with Lambda(1) = 2^(D+1) - 1 for D = 1..{point['D_max']}; certificates at m = 2^(D+1); "
            "D = 1 agrees with the six-row Gordan certificate at m = 4; the smallest failing m for D >= 2 is open"
        )

    def _small_m(self, point: dict, ev) -> None:
        """Below the construction: rank one with a degree-D readout does solve length D + 2 at small m.

        Weights ``psi(x) = 2^{-|x|}``: the exact LP finds the readout (D = 2 at
        ``m_small``, D = 3 at m = 3), so for those D the smallest failing m lies
        in [m + 1, 2^(D+1)] (a witness at m restricts to every m' < m).
        """
        found = {}
        for D in range(2, point["D_small"] + 1):
            ev.poll()
            m = point["m_small"] if D == 2 else 3
            psi = [Fraction(1, 2 ** att.weight(x)) for x in range(1 << m)]
            result = polynomial_readout_search(m, D, D + 2, psi, ev.budget.remaining())
            if len(result) == 3:
                _, q, answer = result
                found[f"D={D}"] = {"m": m, "length": D + 2, "psi_unchecked": "2^-|x|",
                                   "no_witness_for_query": att.bits(q, m), "answer": type(answer).__name__}
                continue
            monomials, rows = result
            ev.certify("polynomial-readout-table", {
                "m": m, "length": D + 2, "psi": psi, "monomials": [list(mono) for mono in monomials],
                "coefficients": [rows[q] for q in range(1 << m)],
            })
            found[f"D={D}"] = {"m": m, "length": D + 2, "psi_unchecked": "2^-|x|", "solved_by_rank_one": True,
                               "smallest_failing_m_between": [m + 1, 2 ** (D + 1)]}
        if found:
            ev.fact("below_the_construction", found)

    # -- figures for the report (floats for display only)

    def plots(self, record: dict) -> list[Plot]:
        """``Lambda_D(rho) / (2^{D+1} - 1)`` for each D: it crosses 1 exactly at rho = 1."""
        _rho, _D, _m, _X, _q, _h = _symbols()
        lambdas = dict((record.get("facts") or {}).get("symbolic_lambda") or {})
        lambdas.pop("rests_on", None)
        rhos = tuple(k / 20 for k in range(1, 61))
        series = []
        for key, text in sorted(lambdas.items(), key=lambda kv: int(kv[0].split("=")[1])):
            D = int(key.split("=")[1])
            f = sp.lambdify(_rho, sp.sympify(text, locals={"rho": _rho}))
            series.append((f"D = {D}", rhos, tuple(float(f(r)) / (2 ** (D + 1) - 1) for r in rhos)))
        if not series:
            return []
        series.append(("needed: > 1", (rhos[0], rhos[-1]), (1.0, 1.0)))
        return [Plot(
            name="extrapolation-constant",
            title="Lambda(rho) / (2^(D+1) - 1): a degree-D readout needs it > 1 for both rho and 1/rho",
            xlabel="rho = psi(z) / psi(q)",
            ylabel="Lambda(rho) / (2^(D+1) - 1)",
            series=tuple(series),
            note="increasing, equal to 1 at rho = 1: query q needs rho > 1, query z needs 1/rho > 1",
        )]

CLAIM = PolynomialReadoutLower()
