"""Worked example (d): softmax at beta = ln n at length n -- open, with every searched length certified."""

from __future__ import annotations

from fractions import Fraction

import pytest

from solvers import trusted
from theorems.api import ScoreHead, check_score_head
from theorems.conjectures.softmax_temperature_length import SoftmaxTemperatureLength
from theorems.core import Budget, Evidence, first_discharging


@pytest.fixture(scope="module")
def outcome():
    return SoftmaxTemperatureLength().check()


def test_open_with_each_length_certified_and_nothing_refuted(outcome):
    claim = SoftmaxTemperatureLength()
    assert outcome.status == "unknown" == claim.expected and "open" in outcome.message
    needed = claim.obligations(claim.point())
    accepted = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    assert all(first_discharging(accepted, o) for o in needed.verify)
    assert not any(first_discharging(accepted, o) for o in needed.refute)
    worst = outcome.facts["worst_error_by_length_unchecked"]
    assert all(e < Fraction(1, 2) for e in worst.values())
    assert all(worst[n] == Fraction(n - 1, 2 * n - 1) for n in (3, 4, 5))  # at |q| = 1, as the docstring derives
    assert {f"statistic_n{n}" for n in range(2, 6)} <= set(outcome.covered)


def test_one_step_colder_fails_at_the_smallest_query(tmp_path, monkeypatch):
    """beta = ln(n-1) fails: the search finds |q| = 1 with one orthogonal context token, as derived."""
    monkeypatch.chdir(tmp_path)
    claim = SoftmaxTemperatureLength()
    ev = Evidence(claim, claim.point(), Budget(None))
    n = 4
    colder = ScoreHead(kappa=lambda w, s: Fraction(1, (n - 1) ** s), value=lambda w, s: Fraction(s))
    found = check_score_head(ev, colder, 8, n, examples=50, key="colder")
    assert found is not None and found["query_weight"] == 1 and found["context_scores"] == [0, 1, 1]
    assert found["error"] == Fraction(1, 2)
    assert [c["kind"] for c in ev.certificates] == ["score-counterexample"]


def test_z3_covers_every_length_at_the_smallest_query_and_finds_the_colder_failure(outcome):
    from theorems.api import smt_search
    from theorems.conjectures.softmax_temperature_length import failure_at_weight

    assert outcome.covered["z3_q1"]["z3"] == "unsat" and outcome.covered["z3_q1"]["every_n"]
    assert "not a certificate" in outcome.facts["z3_q1_unchecked"]  # a fact beside, never an obligation
    colder = smt_search(failure_at_weight(1, offset=1), 10.0)  # base n - 1: the encoding must be satisfiable
    assert colder.refuted
    n, zeros, ones = (int(colder.found[k]) for k in ("n", "c0", "c1"))
    assert zeros + ones == n - 1
    head = ScoreHead(kappa=lambda w, s: Fraction(1, (n - 1) ** s), value=lambda w, s: Fraction(s))
    assert head.error(1, [0] * zeros + [1] * ones) >= Fraction(1, 2)  # z3's model is a real failure, exactly


def test_the_outcome_is_written_as_exact_json(outcome):
    record = outcome.to_json()  # refuses a float anywhere (coverage, facts, counterexample)
    assert record["claim"] == outcome.claim and record["status"] == outcome.status


def test_editing_the_head_changes_the_statement_and_marks_the_sentence_stale(monkeypatch):
    """The statement names the heads' digest: a head edited without the sentence changes the statement's hash
    (outcomes made before are stale) and the report says the sentence was written for another head."""
    from fractions import Fraction

    from theorems.api import ScoreHead
    from theorems.conjectures import softmax_temperature_length as module
    from theorems.core import get
    from theorems.report.model import sentence_written_for_another

    claim = get("conjectures.softmax_temperature_length")
    assert claim.head_digest() == module.SENTENCE_HEAD and sentence_written_for_another(claim) == ""
    before = claim.statement_hash()
    monkeypatch.setattr(module, "head", lambda n: ScoreHead(kappa=lambda w, s: Fraction(1, (n + 1) ** s),
                                                            value=lambda w, s: Fraction(s)))
    monkeypatch.delitem(claim.__dict__, "_statement_hash")  # the hash is cached per claim: computed afresh
    after = claim.statement_hash()
    monkeypatch.delitem(claim.__dict__, "_statement_hash")  # and not left cached for the tests after this one
    assert after != before
    assert "written for the head" in sentence_written_for_another(claim)
