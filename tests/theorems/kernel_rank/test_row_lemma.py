import pytest

from solvers import trusted
from solvers.certificates import CertificateError
from theorems.kernel_rank import row_lemma
from theorems.kernel_rank.row_lemma import RowLemma


def test_verified_with_the_symbolic_combination():
    claim = RowLemma()
    outcome = claim.check(claim.point({"w_max": 6}))
    assert outcome.status == "verified", outcome.message
    assert outcome.facts["residual"] == "0"
    assert outcome.facts["cases"] == sum(w - 1 for w in range(2, 7))
    example = outcome.facts["example_case"]
    assert [r[1] for r in example["rows"]] == [1, 2, 1] and example["order"][0][1] == 2


def test_the_lp_finds_the_proof_weights():
    for w, s in [(2, 0), (5, 1), (7, 5)]:
        problem, decision = row_lemma.case(w, s)
        rows, nonneg, order = row_lemma.lin.certificate_rows(problem, decision.multipliers, w)
        assert [y for _, y, _ in rows] == [1, 2, 1]
        assert order[0][1] == 2 and sum(y for _, y in nonneg) == 3 * (w - s) - 6


def test_the_lemma_fails_when_the_gap_is_one():
    # <z,q> = |q| - 1: no contradiction, the row may weight z below q
    problem, decision = row_lemma.case(3, 2)
    assert type(decision).__name__ == "Feasible"


def test_a_tampered_case_is_rejected():
    claim = RowLemma()
    outcome = claim.check(claim.point({"w_max": 3}))
    cert = outcome.certificates[0]
    trusted.check(cert, claim.statement_hash())
    case = dict(cert["data"]["cases"][0])
    case["order"] = []  # without the negated conclusion there is no contradiction
    with pytest.raises(CertificateError):
        trusted.check({**cert, "data": {**cert["data"], "cases": [case]}}, claim.statement_hash())


def test_a_wrong_combination_is_refuted(monkeypatch):
    good = row_lemma.symbolic_combination

    def wrong():
        residual, weights = good()
        return residual + row_lemma._Kz, weights

    monkeypatch.setattr(row_lemma, "symbolic_combination", wrong)
    claim = RowLemma()
    assert claim.check(claim.point({"w_max": 3})).status == "refuted"
