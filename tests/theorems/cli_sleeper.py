"""A test claim that takes as long as it is told: the command line's interrupt test needs points that
are still running when Ctrl-C arrives, whatever the speed of the real claims.

``cli_test.sleeper``: the 2 x 2 identity has rank 2, certified at once; then the check waits
``seconds``, polling its budget every tenth of a second.
"""

from __future__ import annotations

import time
from fractions import Fraction

import sympy

from solvers.trusted.core import digest
from theorems.core import Claim, Obligations, Parameter, Statement, obligation

IDENTITY = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]


class IdentityRank(Claim):
    """The 2 x 2 identity has rank 2, certified at once; what a test claim does after that is its
    :meth:`then` (the test claims differ only there)."""

    paper = "2608.28150"
    sentence = "The identity matrix of size 2 has full rank."

    def statement(self) -> Statement:
        return Statement(((sympy.Eq(sympy.Symbol("n"), 2, evaluate=False), "for n = 2"),),
                         (sympy.Eq(sympy.Function("rank")(sympy.Symbol("I_n")), 2, evaluate=False), "full rank"))

    def witness(self, point: dict):
        return IDENTITY

    def obligations(self, point: dict) -> Obligations:
        return Obligations(verify=(obligation("the 2 x 2 identity has rank at least 2", "rank-at-least",
                                              matrix=digest(IDENTITY), rows=2, cols=2, bound=2),), reach="n = 2")

    def run(self, point: dict, ev) -> None:
        ev.certify("rank-lower", {"matrix": IDENTITY, "rows": [0, 1], "cols": [0, 1], "prime": 7})
        self.then(point, ev)

    def then(self, point: dict, ev) -> None:
        raise NotImplementedError


class Sleeper(IdentityRank):
    id = "cli_test.sleeper"
    title = "The 2 x 2 identity has rank 2, checked slowly (a test claim)"
    parameters = (Parameter("seconds", 0, 0, 60, "how long the check waits after certifying"),)

    def cost(self, point: dict) -> float:
        return float(point["seconds"])

    def then(self, point: dict, ev) -> None:
        end = time.monotonic() + point["seconds"]
        while time.monotonic() < end:
            time.sleep(0.1)
            ev.poll()


CLAIM = Sleeper()
