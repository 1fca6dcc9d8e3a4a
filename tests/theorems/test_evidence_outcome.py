"""``Evidence.outcome``: the status, message and record of a check follow its discharged obligations.

A toy claim whose obligations are "rank >= 2" of named 2 x 2 matrices (verify side and refute side as
the test chooses); a matrix is "certified" by a real rank-lower certificate the trusted checker accepts
(in this process), so each obligation is discharged exactly when the test certifies its matrix.  Every
branch of the decision is asserted with its whole message, the ``unknown`` record and the ``discharged``
list, so a branch taken in the wrong order, a count off by one or a word changed fails here.
"""

from __future__ import annotations

import pytest

from solvers.trusted.core import digest
from theorems import core

MATRICES = {"A": [[1, 2], [3, 4]], "B": [[2, 1], [1, 1]], "C": [[1, 1], [0, 1]], "D": [[5, 0], [0, 7]]}


class _Toy(core.Claim):
    """rank >= 2 of each matrix in ``verify`` (and, on the refute side, of each in ``refute``)."""

    id = "test.toy_outcome"
    paper = "2608.28150"
    parameters = ()
    verify: tuple = ()
    refute: tuple = ()

    def statement(self):
        import sympy

        return core.Statement(hypotheses=(), conclusion=(sympy.Symbol("T"), "toy"))

    def obligations(self, point):
        bound = point.get("bound", 2)  # the point's own bound: obligations are stated at the point

        def rank(name):
            return core.obligation(f"rank {name} >= {bound}", "rank-at-least", matrix=digest(MATRICES[name]), rows=2, cols=2, bound=bound)

        return core.Obligations(verify=tuple(rank(n) for n in self.verify), refute=tuple(rank(n) for n in self.refute), reach="all")


def evidence(verify=(), refute=(), certified=(), point=None) -> core.Evidence:
    claim = type("Toy", (_Toy,), {"verify": tuple(verify), "refute": tuple(refute)})()
    ev = core.Evidence(claim, dict(point or {}), core.Budget(None))
    for name in certified:
        ev.certify("rank-lower", {"matrix": MATRICES[name], "rows": [0, 1], "cols": [0, 1], "prime": 101})
    assert len(ev.judgments) == len(certified) and not ev.failures  # every certificate accepted
    return ev


def named(*pairs):
    return [{"side": side, "obligation": f"rank {name} >= 2", "certificate": cert} for side, name, cert in pairs]


def test_every_verify_obligation_discharged_is_verified_naming_the_first_certificate_of_each():
    ev = evidence(verify="AB", certified="CABA")
    ev.fact("f", 3)
    ev.note("a remark")
    out = ev.outcome(1.5)
    assert (out.status, out.message, out.unknown, out.counterexample) == ("verified", "a remark", None, None)
    assert out.discharged == named(("verify", "A", "01-rank-lower.cert.json"), ("verify", "B", "02-rank-lower.cert.json"))
    assert out.claim == ev.claim.id and out.expected == ev.claim.expected and out.seconds == 1.5
    assert out.facts == {"f": 3} and out.certificates == ev.certificates and len(out.certificates) == 4
    assert out.statement == ev.claim.statement_hash()
    assert out.obligations == ev.claim.obligations({}).to_json()
    assert out.covered is ev.covered and len(out.covered["certificates"]) == 4  # one summary per certificate


def test_a_budget_or_a_step_undecided_after_every_discharge_is_said_beside_verified():
    ev = evidence(verify="A", certified="A")
    ev.note("n")
    ev.unknown("z3 gave up")
    out = ev.outcome(0.0, out_of_budget=True)
    assert (out.status, out.unknown) == ("verified", None)
    assert out.message == "n; z3 gave up; the budget ran out after every obligation was discharged"
    assert evidence(verify="A", certified="A").outcome(0.0).message == ""


def test_a_discharged_refute_obligation_refutes_even_when_every_verify_one_is_discharged_too():
    out = evidence(verify="A", refute="CB", certified="AB").outcome(0.0)
    assert (out.status, out.message, out.counterexample, out.unknown) == ("refuted", "certified: rank B >= 2", None, None)
    assert out.discharged == named(("verify", "A", "00-rank-lower.cert.json"), ("refute", "C", None),
                                   ("refute", "B", "01-rank-lower.cert.json"))
    ev = evidence(refute="B", certified="B")
    ev.fail("the counterexample found", {"x": [1, 2]})
    ev.fail("a second one", {"x": 3})
    out = ev.outcome(0.0)
    assert (out.status, out.message, out.counterexample) == ("refuted", "the counterexample found", {"x": [1, 2]})


def test_a_failure_without_a_certified_refutation_establishes_nothing():
    ev = evidence(verify="AB", refute="C", certified="A")
    ev.fail("broken witness", {"q": 1})
    ev.fail("second", {"q": 2})
    ev.unknown("ignored: the failure comes first")
    out = ev.outcome(0.0, out_of_budget=True)
    assert (out.status, out.message, out.counterexample) == ("unknown", "not established: broken witness (no certified refutation)", {"q": 1})
    assert out.unknown == {"why": "not established", "partial": True}
    ev = evidence(verify="A")
    ev.fail("broken", {})
    assert ev.outcome(0.0).unknown == {"why": "not established", "partial": False}
    ev = evidence(verify="A", certified="A")  # every verify obligation discharged: a failure still wins
    ev.fail("broken", {"q": 0})
    assert ev.outcome(0.0).status == "unknown"


def test_an_error_of_the_claims_code_wins_over_everything_else():
    error = {"type": "ZeroDivisionError", "message": "division by zero", "where": "x.py:3"}
    ev = evidence(verify="A", refute="B", certified="AB")
    ev.fail("found", {"q": 1})
    out = ev.outcome(0.0, out_of_budget=True, error=error)
    assert out.status == "unknown" and out.counterexample is None
    assert out.message == f"not established: the check of {ev.claim.id} stopped: ZeroDivisionError: division by zero (at x.py:3)"
    assert out.unknown == {"why": "not established", "partial": True, "error": error}
    out = evidence(verify="A").outcome(0.0, error=error)
    assert out.unknown == {"why": "not established", "partial": False, "error": error}


def test_a_budget_that_ran_out_first_says_what_was_discharged_before_it():
    ev = evidence(verify="ABC", refute="D", certified="CA")
    ev.unknown("lp gave up")
    out = ev.outcome(0.0, out_of_budget=True)
    assert (out.status, out.unknown, out.counterexample) == ("unknown", {"why": "budget", "partial": True}, None)
    assert out.message == ("budget ran out before the check finished; lp gave up "
                           "(partial: 2 of 3 verify obligations discharged, each with its certificate)")
    out = evidence(verify="AB").outcome(0.0, out_of_budget=True)
    assert (out.message, out.unknown) == ("budget ran out before the check finished", {"why": "budget", "partial": False})
    ev = evidence(verify="AB", certified="B")
    ev.unknown("z3 gave up")
    ev.unknown("and again")
    out = ev.outcome(0.0)
    assert (out.status, out.unknown) == ("unknown", {"why": "undecided", "partial": True})
    assert out.message == "z3 gave up; and again (partial: 1 of 2 verify obligations discharged, each with its certificate)"


@pytest.mark.parametrize("verify, certified, message", [
    ("ABC", "B", "obligation not discharged: rank A >= 2"),
    ("BA", "B", "obligation not discharged: rank A >= 2"),
    ("", "A", "the claim states no obligations"),
])
def test_nothing_else_said_an_obligation_not_discharged_is_named(verify, certified, message):
    out = evidence(verify=verify, refute="" if verify else "D", certified=certified).outcome(0.0)
    assert (out.status, out.message, out.unknown, out.counterexample) == (
        "unknown", message, {"why": "not established", "partial": bool(verify)}, None)


def test_the_outcome_keeps_its_own_copy_of_the_point():
    ev = evidence(verify="A", certified="A", point={"m": 3})
    out = ev.outcome(0.0)
    ev.point["m"] = 4
    assert out.parameters == {"m": 3}


def test_the_obligations_are_those_stated_at_the_point():
    out = evidence(verify="A", certified="A", point={"bound": 3}).outcome(0.0)  # rank >= 2 certified, 3 asked
    assert (out.status, out.message) == ("unknown", "obligation not discharged: rank A >= 3")
    assert out.obligations["verify"][0]["judgment"]["bound"] == 3
