"""Test claims whose code raises, and one that says when it has started (issue 21, item 7).

* ``conjectures.raises_open``: a conjecture (it expects ``unknown``) whose ``run`` divides by zero
  at the line marked ``# raises here``;
* ``cli_test.raises_deep``: a claim expecting ``verified`` whose ``run`` calls the standard
  library with a zero denominator: the exception is raised inside ``fractions``, and the
  claim's own line is the one marked ``# calls here``;
* ``cli_test.raises_cost``: its cost estimate divides by zero (``# cost raises here``), so
  ``check`` meets the error while planning, before any point runs;
* ``cli_test.waiter``: certifies nothing; when its check starts it creates the file named by
  ``$ATTNPROOF_TEST_STARTED``, then waits ``seconds`` polling its budget (an interrupt test
  sends Ctrl-C before any point has finished, at a known moment, whatever the machine's speed).
"""

from __future__ import annotations

import os
import time
from fractions import Fraction

from theorems.api import Conjecture
from theorems.core import Parameter

from .cli_sleeper import IdentityRank

STARTED = "ATTNPROOF_TEST_STARTED"


class RaisesOpen(IdentityRank, Conjecture):
    id = "conjectures.raises_open"
    title = "The 2 x 2 identity has rank 2, checked by code that divides by zero (a test conjecture)"
    parameters = (Parameter("m", 1, 1, 3, "unused"),)

    def cost(self, point: dict) -> float:
        return 0.0

    def then(self, point: dict, ev) -> None:
        ev.fact("before", 1)
        ev.fact("ratio", point["m"] / (point["m"] - 1))  # raises here


class RaisesDeep(IdentityRank):
    id = "cli_test.raises_deep"
    title = "The 2 x 2 identity has rank 2, checked by code whose library call raises (a test claim)"

    def cost(self, point: dict) -> float:
        return 0.0

    def then(self, point: dict, ev) -> None:
        ev.fact("half", Fraction(1, len(ev.facts)))  # calls here


class RaisesCost(IdentityRank):
    id = "cli_test.raises_cost"
    title = "The 2 x 2 identity has rank 2, with a cost estimate that divides by zero (a test claim)"

    def cost(self, point: dict) -> float:
        return 1 / len(point)  # cost raises here


class Waiter(IdentityRank):
    id = "cli_test.waiter"
    title = "Waits before certifying anything (a test claim)"
    parameters = (Parameter("seconds", 30, 0, 60, "how long the check waits"),)

    def cost(self, point: dict) -> float:
        return float(point["seconds"])

    def run(self, point: dict, ev) -> None:
        with open(os.environ[STARTED], "w"):
            pass
        end = time.monotonic() + point["seconds"]
        while time.monotonic() < end:
            time.sleep(0.05)
            ev.poll()


CLAIMS = [RaisesOpen(), RaisesDeep(), RaisesCost(), Waiter()]
