"""K3 — three tokens: rank one solves exact length 3 exactly when m <= 3.

Paper K's headline: at exact length 3 the least feature rank ``r*(m)`` of one
nonnegative kernel head solving Min-IP is ``2^{Theta(m)}``.  An asymptotic cannot be
checked; this claim checks its finite first step, for every m:

* for m = 1, 2, 3 one rank-one head (``kappa(q, x) = psi(x)``, any real readout table U)
  solves every sequence of exact length 3 with error < 1/2 — an exact witness found by
  the linearised LP (:mod:`theorems.kernel_rank._linearised`), re-evaluated on every
  sequence;
* for m = 4 none does — an exact Gordan certificate of the linearised problem (six rows:
  two tokens ``a, b`` with ``|a| = |b| = 2``, ``<a, b> = 0``, each as query with the
  contexts ``aa``, ``ab``, ``bb``); it forces ``psi(b) > psi(a)`` from query a and the
  reverse from query b;
* for every m >= 4 none does: the restriction lemma (tokens with trailing zeros keep
  their inner products, so the same rows exist at every m' >= 4) — part of the trusted
  ``rank-one-infeasible`` judgment, which states ``m >= 4``.

What the verdict rests on (:meth:`ThreeTokenLowerBound.obligations`): a rank-one head
solves length 3 at m = 1, 2, 3 (``exhaustive``, head any) and none solves exact length 3
at any m >= 4 (``rank-one-infeasible``).  Together they cover every m: reach "all".

The rest of the table of ``r*(m)`` is :mod:`theorems.kernel_rank.feature_rank_table`.
"""

from __future__ import annotations

import functools
import sys
from fractions import Fraction

from solvers.lazy import sympy as sp

from solvers import lp
from theorems.core import Claim, Obligations, Parameter, Statement, obligation
from theorems.kernel_rank import _linearised as lin
from theorems.kernel_rank import THREE_TOKENS


@functools.cache
def _symbols() -> tuple:
    """This module's sympy symbols, made on first use (importing sympy is slow; `attnproof list` needs none)."""
    _m, _n = sp.symbols("m n", integer=True, positive=True)
    _X, _q, _x = sp.symbols("X q x")
    return _m, _n, _X, _q, _x


def decide_rank_one(m: int, n: int = 3, tokens=None, budget=None, poll=lambda: None):
    """(problem, decision) of the linearised rank-one problem at exact length n."""
    problem = lin.rank_one(m, n, tokens=tokens, poll=poll)
    return problem, problem.decide(budget)


def readable(rows) -> list[str]:
    """Certificate rows as text: ``lo 1 x q=0011 context 1100 1100``."""
    out = []
    for side, y, seq in rows:
        out.append(f"{side} {y} x q={seq[-1]} context {' '.join(seq[:-1])}")
    return out


class ThreeTokenLowerBound(Claim):
    id = "kernel_rank.three_token_lower_bound"
    paper = "2608.11427"
    sentence = THREE_TOKENS
    title = "Rank one solves exact length 3 iff m <= 3"
    relation = "a finite step of an asymptotic"
    formal = ('K3_rank_one_iff',)
    expected = "verified"
    established = "verified"
    uses = ("kernel_rank.restriction_lemma", "kernel_rank.row_lemma")
    parameters = (
        Parameter("m_feasible", 3, 1, 3, "rank one is solved with an exact witness for every m up to this"),
        Parameter("m_refuted", 4, 4, 5, "the full linearised LP is refuted directly for every m from 4 up to this "
                  "(a setting: the m = 4 certificate already covers every m >= 4)", size=False),
    )

    def statement(self) -> Statement:
        _m, _n, _X, _q, _x = _symbols()
        h = sp.Symbol("h")  # a head: its output on X is y_h(X)
        y, T = sp.Function("y_h"), sp.Function("T")
        rank, length = sp.Function("rank"), sp.Function("len")
        solved = sp.And(sp.Eq(rank(h), 1), sp.Implies(sp.Eq(length(_X), 3), sp.Lt(sp.Abs(y(_X) - T(_X)), sp.Rational(1, 2))))
        return Statement(
            hypotheses=((sp.Ge(_m, 1, evaluate=False), "for every number of bits m >= 1"),),
            conclusion=(
                sp.Equivalent(solved, sp.Le(_m, 3)),
                "some head h of feature rank one (kappa(q,x) = psi(x), psi >= 0, kappa(q,q) > 0, any readout table U) "
                "has error < 1/2 on every sequence X of exact length 3 over {0,1}^m iff m <= 3",
            ),
        )

    def obligations(self, point: dict) -> Obligations:
        """Solved at m = 1..m_feasible; unsolvable at every m >= 4 (zero padding, in the checker)."""
        half, top = Fraction(1, 2), point["m_feasible"]
        verify = [obligation(f"a rank-one head solves every sequence of length 3 over {{0,1}}^{m} with error < 1/2",
                             "solves", model="kernel", head="any", rank=1, alphabet="all", m=[m, m], lengths=[3],
                             target="min-ip", tolerance=half) for m in range(1, top + 1)]
        verify.append(obligation("no rank-one head solves exact length 3 with error < 1/2 at any m >= 4",
                                 "unsolvable", model="kernel", rank=1, m=[4, None], length=3, target="min-ip", tolerance=half))
        reach = "all" if top == 3 else f"m <= {top} and every m >= 4 (m = {top + 1}..3 not checked)"
        return Obligations(verify=tuple(verify), reach=reach)

    def cost(self, point: dict) -> float:
        return 0.3 + (4.0 if point["m_refuted"] >= 5 else 0.0)  # measured by bench/estimates.py

    def witness(self, point: dict):
        """The exact rank-one heads ``(psi, U)`` for m = 1..m_feasible, as found by the LP."""
        out = {}
        for m in range(1, point["m_feasible"] + 1):
            problem, decision = decide_rank_one(m)
            if not isinstance(decision, lp.Feasible):
                out[m] = None
                continue
            out[m] = lin.rank_one_witness(problem, decision.point, range(1 << m), 3)
        return out

    def run(self, point: dict, ev) -> None:
        # 1. Feasible side: an exact witness per m, re-evaluated on every sequence.
        witnesses = self.witness(point)
        for m, found in witnesses.items():
            ev.poll()
            if found is None:
                ev.fail(f"no exact rank-one witness was found at m = {m}", {"m": m})
                continue
            psi, U = found
            size = 1 << m
            scale = max(psi.values())
            psi_row = [psi[0, x] / scale for x in range(size)]
            worst = lin.worst_error(psi, U, range(size), 3, poll=ev.poll)
            ev.fact(f"m{m}_psi_unchecked", psi_row)  # the witness's values; the checker re-evaluates its head
            ev.fact(f"m{m}_worst_error_unchecked", worst)
            ev.certify("exhaustive", {
                "m": m, "lengths": [3], "phi": [[1]] * size, "psi": [[v] for v in psi_row],
                "readout": [[U[0, q, x] for x in range(size)] for q in range(size)],
                "target": "min-ip", "tolerance": Fraction(1, 2), "symmetry": "none",
            })
        ev.cover("feasible", {"m": list(witnesses), "length": 3, "sequences": "all"})

        # 2. Refuted side: the full LP at m = 4 (and 5), with its exact certificate.
        for m in range(4, point["m_refuted"] + 1):
            ev.poll()
            print(f"[{self.id}] deciding the linearised LP at m={m}", file=sys.stderr)
            problem, decision = decide_rank_one(m, budget=ev.budget.remaining(), poll=ev.poll)
            ev.poll()
            if not ev.settle(decision, lp.Infeasible, f"rank one is not refuted at m = {m}", {"m": m}):
                continue
            rows, nonneg, _ = lin.certificate_rows(problem, decision.multipliers, m)
            ev.fact(f"m{m}_certificate_rows_unchecked", len(rows) + len(nonneg))
            ev.fact(f"m{m}_certificate_unchecked", readable(rows))
            ev.certify("rank-one-infeasible", {"m": m, "positions": False, "rows": rows, "nonnegative": nonneg})
        ev.cover("refuted", {"m": list(range(4, point["m_refuted"] + 1)), "rows": "every (query, context multiset)"})
        refuted = "m = 4" if point["m_refuted"] == 4 else f"m = 4..{point['m_refuted']}"
        ev.note(f"rank one solves exact length 3 for m <= {point['m_feasible']} (exact witnesses); "
                f"fails at {refuted} (Gordan certificate, zero-padded: every m >= 4)")


CLAIM = ThreeTokenLowerBound()
