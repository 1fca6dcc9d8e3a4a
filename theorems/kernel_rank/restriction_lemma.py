"""The restriction lemma: a certificate at m lifts to every m' >= m by trailing zeros.

Lemma: embed ``{0,1}^m`` into ``{0,1}^{m'}`` (m' >= m) by appending ``m' - m`` zero
coordinates.  Weights and inner products are unchanged (the new coordinates contribute
``0 * 0``), so for every sequence X over ``{0,1}^m`` its image has the same target
``T`` and — in the linearised rank-one problem, whose rows involve the tokens only
through ``T`` and the names of the unknowns ``psi(x)``, ``P[q, x]`` — exactly the same
rows.  The rows of the m-problem are therefore a subset of the rows of the m'-problem,
and a Motzkin certificate at m is one at m'.  In particular rank one fails at exact
length 3 for every m >= 4 (K3) and, with positions, at every exact length n >= 3 (K5).

Checks: for each m' = 4..m_max the m = 4 certificate on ``1100, 0011``, its tokens
zero-padded to m' bits, is re-checked by the trusted checker at m' (which rebuilds every
row from the m'-bit strings, inner products computed at m').  (An earlier version also
compared the rows built from the same integers at m and m' — a value with itself; it is
gone.)  What the verdict rests on (:meth:`RestrictionLemma.obligations`): for each such
m', no rank-one head solves exact length 3 at m'.  The general lemma — every certificate,
every m' >= m — is the zero-padding rule of the trusted linear kinds (their judgments
state ``m >= the certificate's m``), argued in their docstrings; it is not an obligation,
so the reach is the padded sizes checked, never "all".
"""

from __future__ import annotations

import functools
from fractions import Fraction

from solvers.lazy import sympy as sp

from solvers import lp
from theorems.core import Claim, Obligations, Parameter, Statement, obligation
from theorems.kernel_rank import _linearised as lin
from theorems.kernel_rank import THREE_TOKENS


@functools.cache
def _symbols() -> tuple:
    """This module's sympy symbols, made on first use (importing sympy is slow; `attnproof list` needs none)."""
    _m, _mp = sp.symbols("m m'", integer=True, positive=True)
    return _m, _mp


def base_certificate(m: int = 4, n: int = 3, positions: bool = False):
    """The certificate at m on the two tokens a = 1100, b = 0011 (|a| = |b| = 2, <a,b> = 0)."""
    a, b = 0b0011, 0b1100
    problem = lin.rank_one(m, n, tokens=[a, b], positions=positions)
    decision = problem.decide()
    if not isinstance(decision, lp.Infeasible):
        return None
    rows, nonneg, _ = lin.certificate_rows(problem, decision.multipliers, m)
    return rows, nonneg


def pad(text: str, m: int) -> str:
    return text + "0" * (m - len(text))


class RestrictionLemma(Claim):
    id = "kernel_rank.restriction_lemma"
    paper = "2608.11427"
    sentence = THREE_TOKENS
    title = "Restriction lemma: certificates lift along trailing zeros"
    relation = "a lemma toward it"
    expected = "verified"
    established = "verified"
    parameters = (Parameter("m_max", 12, 4, 64, "re-check the padded m = 4 certificate at every m' up to this"),)

    def statement(self) -> Statement:
        _m, _mp = _symbols()
        x, y = sp.symbols("x y")
        ip, padded = sp.Function("ip"), sp.Function("pad")
        return Statement(
            hypotheses=(
                (sp.Ge(_mp, _m), "for every m' >= m and tokens x, y in {0,1}^m padded with m' - m zeros"),
                (sp.Symbol("C"), "a Motzkin certificate C of the linearised rank-one problem at m (any length, with or without positions)"),
            ),
            conclusion=(sp.Eq(ip(padded(x), padded(y)), ip(x, y)), "inner products are unchanged, so C (tokens padded) is a certificate at m'"),
        )

    def obligations(self, point: dict) -> Obligations:
        """For each m' = 4..m_max: no rank-one head solves exact length 3 at m' (the padded certificate)."""
        verify = tuple(obligation(f"the m = 4 certificate on 1100, 0011 zero-padded to m' = {mp} bits: no rank-one head "
                                  f"solves exact length 3 at m' = {mp} with error < 1/2", "unsolvable", model="kernel",
                                  rank=1, m=[mp, mp], length=3, target="min-ip", tolerance=Fraction(1, 2))
                       for mp in range(4, point["m_max"] + 1))
        return Obligations(verify=verify, reach=f"the certificate on 1100, 0011 padded to m' = 4..{point['m_max']}")

    def cost(self, point: dict) -> float:
        return 0.03 + 0.003 * point["m_max"]  # measured by bench/estimates.py

    def witness(self, point: dict):
        return base_certificate()

    def run(self, point: dict, ev) -> None:
        found = self.witness(point)
        if found is None:
            ev.fail("no certificate on the tokens 1100, 0011 at m = 4", {"m": 4})
            return
        rows, nonneg = found
        ev.fact("certificate_m4_unchecked", [f"{s} {y} x {' '.join(seq)}" for s, y, seq in rows])
        for mp in range(4, point["m_max"] + 1):
            ev.poll()
            ev.certify("rank-one-infeasible", {
                "m": mp, "positions": False,
                "rows": [[s, y, [pad(t, mp) for t in seq]] for s, y, seq in rows],
                "nonnegative": [[j, pad(t, mp), y] for j, t, y in nonneg],
            })
        ev.cover("lifted", {"m": [4, point["m_max"]]})
        ev.note(f"the m = 4 certificate, zero-padded, is re-checked as a certificate at every m' in 4..{point['m_max']}")


CLAIM = RestrictionLemma()
