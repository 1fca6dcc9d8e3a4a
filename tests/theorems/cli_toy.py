"""A test claim for the command line: two obligations, the second reached only after a budget poll.

``cli_test.two_diagonals``: diag(1, 1) and diag(1, 1, 1) have full rank.  Its
check certifies the first, polls the budget, then certifies the second, so a
budget that has run out by the poll leaves exactly one obligation discharged
(with its certificate) and one not: the partial ``unknown`` of a budget.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from solvers.trusted.core import digest
from theorems.core import Claim, Obligations, Parameter, Statement, obligation


def identity(n: int) -> list[list[Fraction]]:
    return [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]


class TwoDiagonals(Claim):
    id = "cli_test.two_diagonals"
    paper = "2608.28150"
    title = "Two identity matrices have full rank (a test claim)"
    sentence = "The identity matrices of sizes 2 and 3 have full rank."
    parameters = (Parameter("seed", 0, 0, 9, "unused: a parameter that is not a size"),)

    def statement(self) -> Statement:
        rank = sympy.Function("rank")(sympy.Symbol("I_n"))
        n = sympy.Symbol("n", integer=True)
        return Statement(((sympy.Ge(n, 2, evaluate=False), "for n = 2 and n = 3"),),
                         (sympy.Eq(rank, n, evaluate=False), "the n x n identity has rank n"))

    def cost(self, point: dict) -> float:
        return 0.0  # within any budget, however small: the budget runs out while checking, not before

    def witness(self, point: dict):
        return [identity(2), identity(3)]

    def obligations(self, point: dict) -> Obligations:
        return Obligations(
            verify=tuple(obligation(f"the {n} x {n} identity has rank at least {n}", "rank-at-least",
                                    matrix=digest(identity(n)), rows=n, cols=n, bound=n) for n in (2, 3)),
            reach="n = 2, 3",
        )

    def run(self, point: dict, ev) -> None:
        for n in (2, 3):
            ev.certify("rank-lower", {"matrix": identity(n), "rows": list(range(n)), "cols": list(range(n)), "prime": 7})
            ev.poll()


CLAIM = TwoDiagonals()
