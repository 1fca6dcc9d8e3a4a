"""Two small claims for the report's tests: quick, exact, and independent of the papers' claims.

``report_test.diagonal_rank``: the n x n matrix diag(1, ..., 1, d) has rank n
(verified at each n for d = 1, "verified up to n = ..."; refuted by an exact
rank-n-1 factorisation for d = 0).  ``report_test.unipotent_rank``: the
2 x 2 matrix [[1, 1], [0, 1]] has rank 2 — one matrix, so one certificate
covers the whole statement (reach "all"); it also reports a sympy step,
``symbolic_determinant``, which the report must show as its own rung.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from solvers.trusted.core import digest
from theorems.core import Claim, Obligations, Parameter, Plot, Statement, obligation


def diagonal(n: int, d: int) -> list[list[Fraction]]:
    return [[Fraction(1 if i == j < n - 1 else (d if i == j else 0)) for j in range(n)] for i in range(n)]


def rank_lower(matrix: list[list[Fraction]]) -> dict:
    k = len(matrix)
    return {"matrix": matrix, "rows": list(range(k)), "cols": list(range(k)), "prime": 7}


class DiagonalRank(Claim):
    id = "report_test.diagonal_rank"
    paper = "2608.28150"
    title = "A diagonal matrix has full rank (a test claim)"
    sentence = "The $n \\times n$ matrix $\\mathrm{diag}(1, \\dots, 1, d)$ has rank $n$."
    parameters = (
        Parameter("n", 2, 1, 8, "the size of the matrix"),
        Parameter("d", 1, 0, 1, "the last diagonal entry"),
    )

    def statement(self) -> Statement:
        n = sympy.Symbol("n", integer=True)
        rank = sympy.Function("rank")(sympy.Symbol("D_n"))
        return Statement(((sympy.Ge(n, 1, evaluate=False), "for every size n >= 1"),),
                         (sympy.Eq(rank, n, evaluate=False), "the matrix D_n = diag(1, ..., 1, d) has rank n"))

    def cost(self, point: dict) -> float:
        return 0.01

    def witness(self, point: dict):
        return diagonal(point["n"], point["d"])

    def validate(self, point: dict) -> None:
        if point["d"] == 0 and point["n"] < 2:
            from theorems.core import ParameterError

            raise ParameterError("d = 0 needs n >= 2")

    def obligations(self, point: dict) -> Obligations:
        n, d = point["n"], point["d"]
        named = dict(matrix=digest(diagonal(n, d)), rows=n, cols=n)
        return Obligations(
            verify=(obligation(f"the {n} x {n} matrix diag(1, ..., 1, {d}) has rank at least {n}", "rank-at-least", **named, bound=n),),
            refute=(obligation(f"the {n} x {n} matrix diag(1, ..., 1, {d}) has rank at most {n - 1}", "rank-at-most", **named, bound=n - 1),),
            reach=f"n = {n}, d = {d}",
        )

    def run(self, point: dict, ev) -> None:
        n, d = point["n"], point["d"]
        matrix = diagonal(n, d)
        if d == 1:
            ev.certify("rank-lower", rank_lower(matrix))
        else:
            left = [[Fraction(int(i == j)) for j in range(n - 1)] for i in range(n)]
            right = [[Fraction(int(i == j)) for j in range(n)] for i in range(n - 1)]
            ev.certify("rank-upper", {"matrix": matrix, "left": left, "right": right})
            ev.fail(f"rank {n - 1} < {n}", {"matrix": [[str(v) for v in row] for row in matrix]})
        ev.fact("ranks_by_size", {str(k): k for k in range(1, max(n, 3) + 1)})
        ev.fact("half", "1/2")
        ev.cover("sizes", [n])


class UnipotentRank(Claim):
    id = "report_test.unipotent_rank"
    paper = "2608.28150"
    title = "A unipotent 2 x 2 matrix has rank 2 (a test claim)"
    sentence = "The matrix $U$ with rows $(1, 1)$ and $(0, 1)$ has rank $2$."
    uses = ("report_test.diagonal_rank",)

    MATRIX = [[Fraction(1), Fraction(1)], [Fraction(0), Fraction(1)]]

    def statement(self) -> Statement:
        rank = sympy.Function("rank")(sympy.Symbol("U"))
        return Statement((), (sympy.Eq(rank, 2, evaluate=False), "the matrix U = [[1, 1], [0, 1]] has rank 2"))

    def cost(self, point: dict) -> float:
        return 0.01

    def witness(self, point: dict):
        return self.MATRIX

    def obligations(self, point: dict) -> Obligations:
        named = dict(matrix=digest(self.MATRIX), rows=2, cols=2)
        return Obligations(verify=(obligation("U = [[1, 1], [0, 1]] has rank at least 2", "rank-at-least", **named, bound=2),),
                           reach="all")

    def run(self, point: dict, ev) -> None:
        ev.certify("rank-lower", rank_lower(self.MATRIX))
        ev.fact("symbolic_determinant", "det U = 1, by sympy: symbolic (sympy)")
        ev.fact("worst_case", "none")

    def plots(self, record: dict) -> list[Plot]:
        return [Plot(name="rows", title="row sums of U", xlabel="row", ylabel="sum", series=(("", (1, 2), (2.0, 1.0)),))]


CLAIMS = [DiagonalRank(), UnipotentRank()]
