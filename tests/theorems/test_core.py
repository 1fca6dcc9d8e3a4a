from fractions import Fraction

import pytest

from theorems import core


def test_parameters_parse_and_name_their_range():
    p = core.Parameter("m", 4, 1, 10, "bits")
    assert p.parse("7") == 7
    for bad in ("0", "11", "2.5", "x", "", True):
        with pytest.raises(core.ParameterError, match=r"integer in \[1, 10\]"):
            p.parse(bad, "some.claim")
    r = core.Parameter("base", Fraction(4), Fraction(1), Fraction(100), "b", kind=Fraction)
    assert r.parse("5/2") == Fraction(5, 2)
    with pytest.raises(core.ParameterError, match="rational"):
        r.parse("1/0")


def test_registry_holds_the_builtin_claims_with_statements():
    claims = core.registry()
    assert {"kernel_rank.rank_one_short", "kernel_rank.softmax_three_tokens"} <= set(claims)
    for claim in claims.values():
        assert claim.paper in core.PAPERS
        assert claim.expected in core.STATUSES
        assert len(claim.statement_hash()) == 64
        assert claim.point() == claim.defaults()
        for used in claim.uses:
            assert used in claims


def test_short_names_and_unknown_claims():
    assert core.get("softmax_three_tokens").id == "kernel_rank.softmax_three_tokens"
    with pytest.raises(core.ParameterError, match="unknown claim"):
        core.get("no_such_claim")


class _Slow(core.Claim):
    id = "test.slow"
    paper = "2608.11427"
    parameters = ()

    def statement(self):
        import sympy

        return core.Statement(hypotheses=(), conclusion=(sympy.Symbol("P"), "nothing in particular"))

    def obligations(self, point):
        return core.Obligations()

    def run(self, point, ev):
        ev.certify  # the budget runs out before anything is certified
        while True:
            ev.poll()


class _Rank(core.Claim):
    """A toy claim: rank [[1, 2], [3, 4]] >= 2, with a witness that can be broken."""

    id = "test.rank"
    paper = "2608.28150"
    parameters = ()
    MATRIX = [[1, 2], [3, 4]]

    def statement(self):
        import sympy

        return core.Statement(hypotheses=(), conclusion=(sympy.Symbol("R"), "the matrix has rank 2"))

    def obligations(self, point):
        from solvers.trusted.core import digest

        return core.Obligations(verify=(core.obligation("rank >= 2", "rank-at-least", matrix=digest(self.MATRIX),
                                                        rows=2, cols=2, bound=2),), reach="all")

    def run(self, point, ev, matrix=None, prime=101):
        ev.certify("rank-lower", {"matrix": matrix or self.MATRIX, "rows": [0, 1], "cols": [0, 1], "prime": prime})


def test_the_status_is_the_strongest_the_discharges_earn():
    """Every verify obligation discharged: verified, even if a step stayed undecided or the budget ran out
    after -- as ``attnproof verify`` requires, which sees only the discharges; but a failure without a
    certified refutation leaves it unknown ("not established"), which verify lets stand (it understates)."""
    for after in (lambda ev: ev.unknown("z3 gave up"),
                  lambda ev: (_ for _ in ()).throw(core.OutOfBudget)):
        class Then(_Rank):
            def run(self, point, ev):
                super().run(point, ev)
                after(ev)

        outcome = Then().check({})
        assert outcome.status == "verified" and outcome.unknown is None, outcome.message
        assert [d["certificate"] for d in outcome.discharged] == ["00-rank-lower.cert.json"]
    class FailsAfter(_Rank):
        def run(self, point, ev):
            super().run(point, ev)
            ev.fail("a search found something the checker did not confirm", {"x": 1})

    outcome = FailsAfter().check({})
    assert outcome.status == "unknown" and outcome.unknown == {"why": "not established", "partial": True}
    failed = Then()
    failed.run = lambda point, ev: ev.fail("broken witness", {"x": 1})  # nothing discharged: unknown, not established
    assert failed.check({}).unknown == {"why": "not established", "partial": False}


def test_an_exhausted_budget_is_unknown_never_verified():
    outcome = _Slow().check({}, budget=0.05)
    assert outcome.status == "unknown"
    assert outcome.certificates == []


def test_entry_point_claims_are_discovered(monkeypatch):
    """A package exposing a Claim through the ``attnproof.claims`` group is registered."""
    import importlib.metadata as md
    import types

    module = types.ModuleType("fake_claims")
    module.CLAIM = _Slow()

    class Entry:
        name = "fake"

        def load(self):
            return module

    real = md.entry_points
    monkeypatch.setattr(md, "entry_points", lambda group=None, **kw: [Entry()] if group == core.ENTRY_POINT_GROUP else real(group=group, **kw))
    monkeypatch.setattr(core, "_REGISTRY", {})
    try:
        assert "test.slow" in core.registry()
        assert "kernel_rank.rank_one_short" in core.registry()
    finally:
        core._REGISTRY.clear()


def test_an_undecided_solver_answer_is_unknown_not_refuted():
    from solvers import lp

    ev = core.Evidence(_Slow(), {}, core.Budget(None))
    assert not ev.settle(lp.Unknown("gave up"), lp.Infeasible, "not refuted")
    assert ev.outcome(0.0).status == "unknown"
    ev = core.Evidence(_Slow(), {}, core.Budget(None))
    assert not ev.settle(lp.Feasible([]), lp.Infeasible, "not refuted")
    assert ev.outcome(0.0).status == "unknown"  # a failure without a certified refutation proves nothing
    assert core.Evidence(_Slow(), {}, core.Budget(None)).settle(lp.Infeasible({}), lp.Infeasible, "x")


def test_a_statement_that_collapsed_to_true_is_refused():
    import sympy

    m = sympy.Symbol("m", integer=True, positive=True)
    with pytest.raises(ValueError, match="evaluate=False"):
        core.Statement(hypotheses=((sympy.Contains(m, sympy.Naturals), "m >= 1"),), conclusion=(sympy.Symbol("P"), "P"))
    core.Statement(hypotheses=((sympy.Contains(m, sympy.Naturals, evaluate=False), "m >= 1"),), conclusion=(sympy.Symbol("P"), "P"))


def test_the_verdict_follows_the_discharged_obligations():
    claim = _Rank()
    ev = core.Evidence(claim, {}, core.Budget(None))
    claim.run({}, ev)
    out = ev.outcome(0.0)
    assert out.status == "verified" and out.to_json()["rung"] == "proved for every parameter"
    assert out.obligations["verify"][0]["judgment"]["bound"] == 2
    # a certificate about another matrix is accepted but discharges nothing
    ev = core.Evidence(claim, {}, core.Budget(None))
    claim.run({}, ev, matrix=[[1, 0], [0, 1]])
    assert len(ev.certificates) == 1 and ev.outcome(0.0).status == "unknown"
    assert "not discharged" in ev.outcome(0.0).message
    # a certificate the checker rejects is a failure, never a verdict
    ev = core.Evidence(claim, {}, core.Budget(None))
    claim.run({}, ev, prime=100)
    assert ev.outcome(0.0).status == "unknown" and "not established" in ev.outcome(0.0).message


def test_the_statement_hash_covers_the_obligations_function():
    class Other(_Rank):
        def obligations(self, point):
            return core.Obligations(reach="all")

    assert Other().statement_hash() != _Rank().statement_hash()
    assert Other().statement().render() == _Rank().statement().render()


def test_the_rung_of_a_partial_unknown_counts_the_verify_obligations_discharged():
    """The count is pinned, not only the word "partial": refute-side discharges are not counted, nor is an
    undischarged verify obligation; an open conjecture says "cases checked"; no count without ``partial``."""
    discharged = [{"side": "verify", "obligation": "a", "certificate": "00-x.cert.json"},
                  {"side": "verify", "obligation": "b", "certificate": None},
                  {"side": "verify", "obligation": "c", "certificate": "02-y.cert.json"},
                  {"side": "refute", "obligation": "d", "certificate": "03-z.cert.json"}]
    budget = {"why": "budget", "partial": True}
    assert core.rung("unknown", "m <= 4", budget, discharged) == \
        "not established: the budget ran out (partial: 2 of 3 verify obligations discharged)"
    assert core.rung("unknown", "m <= 4", budget, discharged[1:2]) == \
        "not established: the budget ran out (partial: 0 of 1 verify obligations discharged)"
    assert core.rung("unknown", "m <= 4", {"why": "undecided", "partial": True}, discharged[:1] + discharged[3:]) == \
        "not established: a solver gave up (partial: 1 of 1 verify obligations discharged)"
    assert core.rung("unknown", "", {"why": "open", "partial": True}, discharged) == \
        "open conjecture: not established (2 of 3 cases checked discharged)"
    assert core.rung("unknown", "", {"why": "budget", "partial": False}, discharged) == "not established: the budget ran out"
    assert core.rung("unknown", "", budget, None) == "not established: the budget ran out"
    assert core.rung("unknown", "", {"why": "???", "partial": False}) == "not established"
    assert core.rung("unknown", "") == "not established"
    assert core.rung("verified", "all") == "proved for every parameter"
    assert core.rung("verified", "m <= 4") == "verified up to m <= 4"
    assert core.rung("refuted", "all") == "refuted with a certified counterexample"
    assert core.rung("stale", "all") == "stale"  # a status it has no words for is said as it is
