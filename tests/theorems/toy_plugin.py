"""A plugin's own claims, for the tests of the binding's trust boundary (copied into a test's project).

``plugin_toy.diagonal_N`` (N = 2, 3, 4): the N x N identity has rank N, certified by a
``rank-lower`` certificate.  Their ``cost`` (which the binding calls) obeys the
environment variable ``TOY_BINDING_N``: ``exit`` ends the process, ``kill`` sends it
SIGKILL, ``sleep`` sleeps ten minutes, and a path rewrites that file with ``{}`` — so a
test makes one binding die, hang or tamper, while ``attnproof check`` (run without the
variables) makes honest outcomes.
"""

from __future__ import annotations

import os
import signal
import time
from fractions import Fraction

import sympy

from solvers.trusted.core import digest
from theorems.core import Claim, Obligations, Parameter, Statement, obligation


def identity(n: int) -> list[list[Fraction]]:
    return [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]


class _Diagonal(Claim):
    n = 0
    paper = "2608.28150"
    sentence = "The identity matrix has full rank."
    parameters = (Parameter("seed", 0, 0, 9, "unused: a parameter that is not a size"),)

    @property
    def title(self) -> str:
        return f"The {self.n} x {self.n} identity has full rank (a plugin's test claim)"

    def statement(self) -> Statement:
        rank = sympy.Function("rank")(sympy.Symbol(f"I_{self.n}"))
        return Statement((), (sympy.Eq(rank, self.n, evaluate=False), f"the {self.n} x {self.n} identity has rank {self.n}"))

    def cost(self, point: dict) -> float:
        action = os.environ.get(f"TOY_BINDING_{self.n}", "")
        if action == "exit":
            os._exit(7)
        if action == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if action == "sleep":
            time.sleep(600)
        if action.startswith("/"):
            with open(action, "w") as handle:
                handle.write("{}")
        return 0.0

    def obligations(self, point: dict) -> Obligations:
        return Obligations(verify=(obligation(f"the {self.n} x {self.n} identity has rank at least {self.n}", "rank-at-least",
                                              matrix=digest(identity(self.n)), rows=self.n, cols=self.n, bound=self.n),),
                           reach=f"n = {self.n}")

    def run(self, point: dict, ev) -> None:
        n = self.n
        ev.certify("rank-lower", {"matrix": identity(n), "rows": list(range(n)), "cols": list(range(n)), "prime": 7})


class Diagonal2(_Diagonal):
    id, n = "plugin_toy.diagonal_2", 2


class Diagonal3(_Diagonal):
    id, n = "plugin_toy.diagonal_3", 3


class Diagonal4(_Diagonal):
    id, n = "plugin_toy.diagonal_4", 4


CLAIMS = [Diagonal2(), Diagonal3(), Diagonal4()]
