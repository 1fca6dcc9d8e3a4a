"""K8 — with exact real values, rank one and one decoder solve Min-IP at every length.

Claim: for every m there is one head of feature rank one (uniform weights,
``phi = psi = 1``) with scalar values and a readout ``y = R(q, h)`` -- an
arbitrary function of the query and the head's output -- with ``y(X) = T(X)``
for every sequence X of every length n >= 1 (one model for all lengths).

Witness: ``v(x) = sqrt p_x`` with ``p_x`` the (x+1)-th prime, so
``h(X) = sum_x (c_x / n) sqrt p_x`` (c_x = multiplicity of x).  **Premise
(cited):** square roots of distinct primes are linearly independent over Q
(Besicovitch 1940).  Then h determines the proportions ``c_x / n``, hence the
support of X, hence ``T = min_{x in support} <x, q>``: the decoder reads the
support off the coefficient vector.

Rational variants (no premise): ``v(x) = B^x``.
* exact length n, ``B = n + 1``: ``n h`` has base-B digits ``c_x <= n < B``.
* every length ``<= L`` at once, ``B = 2 L^2 + 1``: if ``h = N/n = N'/n'`` then
  ``n' N = n N'`` and both sides have base-B digits ``n' c_x, n c'_x <= L^2 < B``,
  so the counts are proportional and the supports agree.  The decoder tries
  n = 1..L and takes the first n with ``n h`` an integer whose base-B digits
  sum to n.
(``B = L + 1`` does not serve all lengths <= L: see
``kernel_rank.rational_decoding_collision``.)

Checks: the decoder on the field elements (exact coefficient vectors) for
every sequence of length ``<= L`` at m; premise-free, the ``surd-decoding``
certificate separates all distinct values of h by rigorous balls; the rational
decoders on every sequence, with ``base-decoding`` certificates.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from itertools import combinations_with_replacement

from solvers.lazy import sympy as sp

from solvers import radicals
from theorems import attention as att
from theorems.core import Claim, Obligations, Parameter, Statement, obligation
from theorems.kernel_rank import EXACT_REAL


@functools.cache
def _symbols() -> tuple:
    """This module's sympy symbols, made on first use (importing sympy is slow; `attnproof list` needs none)."""
    _m = sp.Symbol("m", integer=True, positive=True)
    _n = sp.Symbol("n", integer=True, positive=True)
    _X, _q, _h = sp.symbols("X q h")
    return _m, _n, _X, _q, _h

PRIMES = (2, 3, 5, 7, 11, 13, 17, 19)  # p_x = the (x+1)-th prime, for the tokens x of {0,1}^m, m <= 3

PREMISE = ("square roots of distinct primes are linearly independent over Q "
           "(A. S. Besicovitch, On the linear independence of fractional powers of integers, J. London Math. Soc. 15 (1940)); "
           "cited, not checked -- the surd-decoding certificate separates the finitely many values checked without it")


def sequences(m: int, lengths):
    """Every sequence of the given lengths, one per context multiset (h ignores the context order)."""
    for n in lengths:
        for q in range(1 << m):
            for context in combinations_with_replacement(range(1 << m), n - 1):
                yield context + (q,)


def surd_output(field: radicals.Multiquadratic, sequence) -> radicals.Surd:
    """``h(X) = (1/n) sum_j sqrt p_{x_j}``: uniform weights, values ``sqrt p_x``."""
    n = len(sequence)
    counts: dict[int, int] = {}
    for x in sequence:
        counts[x] = counts.get(x, 0) + 1
    return field.combination({x: Fraction(c, n) for x, c in counts.items()})


def surd_decoder(q: int, h: radicals.Surd) -> int:
    """T from (q, h): the support of h's coefficient vector, then ``min <x, q>`` over it."""
    support = [x for x, c in h.linear_coefficients().items() if c]
    return min(att.inner(x, q) for x in support)


def base_output(base: int, sequence) -> Fraction:
    """``h(X) = (1/n) sum_j B^{x_j}``: uniform weights, values ``B^x``."""
    return Fraction(sum(base**x for x in sequence), len(sequence))


def digits(value: int, base: int) -> dict[int, int]:
    out, position = {}, 0
    while value:
        value, d = divmod(value, base)
        if d:
            out[position] = d
        position += 1
    return out


def base_decoder(q: int, h: Fraction, base: int, lengths) -> int | None:
    """T from (q, h): the first n in ``lengths`` with ``n h`` an integer whose base-B digits sum to n."""
    for n in lengths:
        N = h * n
        if N.denominator == 1:
            counts = digits(int(N), base)
            if sum(counts.values()) == n:
                return min(att.inner(x, q) for x in counts)
    return None


class ExactRealDecoding(Claim):
    id = "kernel_rank.exact_real_decoding"
    paper = "2608.11427"
    sentence = EXACT_REAL
    title = "Exact real values: rank one with one decoder solves every length"
    relation = "reads it"
    expected = "verified"
    established = "verified"  # every length rests on a cited premise; the check is exact up to L
    parameters = (
        Parameter("m", 2, 1, 3, "token bits for the square-root decoder"),
        Parameter("L", 7, 1, 9, "longest length for the square-root decoder (every length 1..L, one decoder)"),
        Parameter("m_rational", 2, 1, 3, "token bits for the rational variants"),
        Parameter("n_max", 6, 1, 8, "exact lengths n = 1..n_max with B = n + 1"),
        Parameter("L_rational", 6, 1, 8, "all lengths <= L_rational at once with B = 2 L^2 + 1"),
        Parameter("precision", 256, 53, 4096, "bits of the balls that separate the values of h", size=False),
    )

    def statement(self) -> Statement:
        _m, _n, _X, _q, _h = _symbols()
        y, T, R = sp.Function("y"), sp.Function("T"), sp.Function("R")
        p = sp.Function("p")
        return Statement(
            hypotheses=(
                (sp.Contains(_m, sp.Naturals, evaluate=False), "for every number of bits m >= 1"),
                (sp.Eq(sp.Function("v")(sp.Symbol("x")), sp.sqrt(p(sp.Symbol("x")))),
                 "one head of feature rank one, uniform weights, scalar values sqrt(p_x), p_x distinct primes"),
                (sp.Symbol("premise"), "premise (cited): square roots of distinct primes are linearly independent over Q"),
            ),
            conclusion=(sp.Eq(R(_q, sp.Function("h")(_X)), T(_X)), "one decoder R(q, h) returns T(X) for every sequence X of every length n >= 1"),
        )

    def cost(self, point: dict) -> float:
        from math import comb

        surd = (1 << point["m"]) * comb(point["L"] - 1 + (1 << point["m"]), 1 << point["m"]) * 4e-5
        size = 1 << point["m_rational"]
        rational = sum((size * comb(n - 1 + size, size)) * 5e-5 for n in (point["n_max"], point["L_rational"]))
        return 2 * surd + 2 * rational + 0.05  # constant measured by bench/estimates.py

    def obligations(self, point: dict) -> Obligations:
        """One decoder of (q, h), checked exactly on every sequence up to the stated lengths.

        Values sqrt(p_x) at m for every length 1..L (premise-free, by separated balls);
        values (n+1)^x at m_rational for each exact length n <= n_max; values
        (2 L^2 + 1)^x at m_rational for every length 1..L_rational at once.  Every
        longer length rests on the cited premise (Besicovitch), which is no obligation.
        """
        m, L, mr, Lr = point["m"], point["L"], point["m_rational"], point["L_rational"]
        primes, base = list(PRIMES[: 1 << m]), 2 * Lr * Lr + 1

        def decodes(words: str, values: dict, m: int, lengths: list[int]):
            return obligation(f"{words}: one function of (q, h) returns T on every sequence over {{0,1}}^{m} "
                              f"of length in {lengths}", "decodes", target="min-ip", values=values, m=m, lengths=lengths)

        verify = [decodes(f"values sqrt(p_x), p = {primes}", {"sqrt": primes}, m, list(range(1, L + 1)))]
        verify += [decodes(f"values {n + 1}^x", {"power": n + 1}, mr, [n]) for n in range(1, point["n_max"] + 1)]
        verify.append(decodes(f"values {base}^x (B = 2L^2 + 1)", {"power": base}, mr, list(range(1, Lr + 1))))
        reach = (f"m = {m}, lengths 1..{L} (values sqrt p_x); m = {mr}: each length n <= {point['n_max']} (B = n + 1) "
                 f"and lengths 1..{Lr} at once (B = {base}); longer lengths only under the cited premise, not checked")
        return Obligations(verify=tuple(verify), reach=reach)

    def witness(self, point: dict) -> radicals.Multiquadratic:
        return radicals.Multiquadratic(radicals.first_primes(1 << point["m"]))

    def run(self, point: dict, ev) -> None:
        ev.fact("premise_cited_unchecked", PREMISE)
        m, L = point["m"], point["L"]
        field = self.witness(point)
        ev.fact("values", {att.bits(x, m): f"sqrt({p})" for x, p in enumerate(field.primes)})
        count = 0
        for seq in sequences(m, range(1, L + 1)):
            ev.poll()
            count += 1
            decoded = surd_decoder(seq[-1], surd_output(field, seq))
            if decoded != att.min_ip_target(seq):
                ev.fail("the square-root decoder misreads T", {"m": m, "sequence": [att.bits(x, m) for x in seq], "decoded": decoded})
                return
        ev.cover("square_roots", {"m": m, "lengths": [1, L], "sequences_up_to_context_order": count})
        ev.certify("surd-decoding", {"m": m, "primes": list(field.primes), "max_length": L, "precision": point["precision"]})

        mr = point["m_rational"]
        for n in range(1, point["n_max"] + 1):
            self._rational(ev, mr, n + 1, [n])
        Lr = point["L_rational"]
        self._rational(ev, mr, 2 * Lr * Lr + 1, list(range(1, Lr + 1)))
        ev.fact("rational_bases", {"exact_length_n": "B = n + 1", "all_lengths_up_to_L": f"B = 2L^2 + 1 = {2 * Lr * Lr + 1} at L = {Lr}"})
        ev.note(f"one decoder for every length 1..{L} at m = {m} (all values of h separated without the premise); "
                "every length under the cited premise; rational bases n + 1 (exact length) and 2L^2 + 1 (lengths <= L)")

    def _rational(self, ev, m: int, base: int, lengths: list[int]) -> None:
        count = 0
        for seq in sequences(m, lengths):
            ev.poll()
            count += 1
            decoded = base_decoder(seq[-1], base_output(base, seq), base, lengths)
            if decoded != att.min_ip_target(seq):
                ev.fail(f"the base-{base} decoder misreads T", {"m": m, "base": base, "sequence": [att.bits(x, m) for x in seq], "decoded": decoded})
                return
        ev.cover(f"base_{base}", {"m": m, "lengths": lengths, "sequences_up_to_context_order": count})
        ev.certify("base-decoding", {"m": m, "base": base, "lengths": lengths})


CLAIM = ExactRealDecoding()
