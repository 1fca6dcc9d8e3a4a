"""The base ``B = L + 1`` does not let one decoder serve every length ``<= L``.

Statement checked (and expected to fail): with uniform weights (rank one) and
values ``v(x) = B^x``, ``B = L + 1``, some function of ``(q, h)`` returns T on
every sequence of every length ``1..L``.  A collision -- two sequences with the
same query and the same ``h = sum_j B^{x_j} / n`` but different targets --
refutes it for that L and every larger m (a sequence over ``{0,1}^m`` is one
over ``{0,1}^{m'}``, m' >= m, by padding tokens with zeros: the integers x, the
values B^x and the targets stay the same).

The check searches L = 1, 2, ... and, per L, m = 1..m_max, every sequence up
to the order of its context, and returns the smallest collision: least L,
then least m, then least total length, then the lexicographically first
pair.  Each (L, m) searched without a collision is certified
(``base-decoding``), the collision too (``decoding-collision``).  For L <= 3
no m can collide (a case analysis of base-4 digits, in the docs page), which
the search confirms for m <= m_max.  The sound
reading that does serve all lengths <= L is ``B = 2L^2 + 1`` (``kernel_rank.exact_real_decoding``).
"""

from __future__ import annotations

import functools
from solvers.lazy import sympy as sp

from theorems import attention as att
from theorems.core import Claim, Obligations, Parameter, Statement, obligation
from theorems.kernel_rank.exact_real_decoding import base_output, sequences
from theorems.kernel_rank import EXACT_REAL


@functools.cache
def _symbols() -> tuple:
    """This module's sympy symbols, made on first use (importing sympy is slow; `attnproof list` needs none)."""
    _L = sp.Symbol("L", integer=True, positive=True)
    _m = sp.Symbol("m", integer=True, positive=True)
    return _L, _m


def collisions(m: int, L: int, base: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every pair of sequences of lengths <= L with the same (q, h) and different targets, smallest first."""
    groups: dict = {}
    for seq in sequences(m, range(1, L + 1)):
        groups.setdefault((seq[-1], base_output(base, seq)), []).append(seq)
    found = []
    for members in groups.values():
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                if att.min_ip_target(a) != att.min_ip_target(b):
                    found.append(tuple(sorted((a, b), key=lambda s: (len(s), s))))
    return sorted(found, key=lambda pair: (len(pair[0]) + len(pair[1]), pair))


class RationalDecodingCollision(Claim):
    id = "kernel_rank.rational_decoding_collision"
    paper = "2608.11427"
    sentence = EXACT_REAL
    title = "Values (L+1)^x serve every length <= L (refuted: they collide)"
    relation = "a tempting variant, refuted"
    expected = "refuted"
    established = "refuted"
    uses = ()
    parameters = (
        Parameter("L_max", 6, 1, 8, "largest L searched"),
        Parameter("m_max", 3, 1, 3, "largest number of token bits searched per L"),
    )

    def statement(self) -> Statement:
        _L, _m = _symbols()
        R, T = sp.Function("R"), sp.Function("T")
        X, q, h = sp.symbols("X q h")
        return Statement(
            hypotheses=(
                (sp.Contains(_L, sp.Naturals, evaluate=False), "for every longest length L >= 1 and every m"),
                (sp.Eq(sp.Symbol("B"), _L + 1), "uniform weights (rank one), scalar values v(x) = B^x with B = L + 1"),
            ),
            conclusion=(sp.Eq(R(q, sp.Function("h")(X)), T(X)), "some decoder R(q, h) returns T(X) on every sequence of every length 1..L"),
        )

    def cost(self, point: dict) -> float:
        from math import comb

        # coefficients measured by bench/estimates.py
        return sum((1 << m) * comb(L - 1 + (1 << m), 1 << m) * 2e-6 for L in range(1, point["L_max"] + 1) for m in range(1, point["m_max"] + 1)) + 0.03

    def obligations(self, point: dict) -> Obligations:
        """For each L <= L_max and m <= m_max, values (L+1)^x: a decoder of (q, h) for lengths 1..L (verify),
        or two sequences of lengths <= L sharing q and h but not T (refute; one such pair refutes the statement)."""
        pairs = [(L, m) for L in range(1, point["L_max"] + 1) for m in range(1, point["m_max"] + 1)]
        verify = tuple(obligation(f"values {L + 1}^x: one function of (q, h) returns T on every sequence over {{0,1}}^{m} "
                                  f"of every length 1..{L}", "decodes", target="min-ip", values={"power": L + 1}, m=m,
                                  lengths=list(range(1, L + 1))) for L, m in pairs)
        refute = tuple(obligation(f"values {L + 1}^x: two sequences over {{0,1}}^{m} of length <= {L} share q and h "
                                  "but not T", "no-decoder", target="min-ip", values={"power": L + 1}, m=m, max_length=L)
                       for L, m in pairs)
        return Obligations(verify=verify, refute=refute, reach=f"L <= {point['L_max']}, m <= {point['m_max']}")

    def witness(self, point: dict) -> None:
        return None

    def run(self, point: dict, ev) -> None:
        searched = []
        for L in range(1, point["L_max"] + 1):
            base = L + 1
            for m in range(1, point["m_max"] + 1):
                ev.poll()
                found = collisions(m, L, base)
                if not found:
                    searched.append({"L": L, "m": m})
                    ev.certify("base-decoding", {"m": m, "base": base, "lengths": list(range(1, L + 1))})
                    continue
                a, b = found[0]
                ev.cover("searched_without_collision", searched)
                ev.fact("smallest_collision", {
                    "L": L, "m": m, "base": base,
                    "sequences": [[att.bits(x, m) for x in a], [att.bits(x, m) for x in b]],
                    "as_integers": [list(a), list(b)],
                    "h": base_output(base, a), "targets": [att.min_ip_target(a), att.min_ip_target(b)],
                })
                ev.fact("collisions_at_smallest_unchecked", len(found))
                ev.certify("decoding-collision", {"m": m, "base": base, "max_length": L, "sequences": [list(a), list(b)]})
                ev.fail(
                    f"B = L + 1 = {base} collides at L = {L}, m = {m}: {list(a)} and {list(b)} share q and h = {base_output(base, a)}",
                    {"L": L, "m": m, "base": base, "sequences": [[att.bits(x, m) for x in a], [att.bits(x, m) for x in b]]},
                )
                return
        ev.cover("searched_without_collision", searched)
        ev.note(f"no collision for L <= {point['L_max']}, m <= {point['m_max']}")


CLAIM = RationalDecodingCollision()
