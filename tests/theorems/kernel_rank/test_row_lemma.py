import pytest

from solvers import trusted
from solvers.certificates import CertificateError
from solvers.trusted.core import discharges
from theorems.core import first_discharging
from theorems.kernel_rank import row_lemma
from theorems.kernel_rank.row_lemma import RowLemma


def test_verified_with_the_symbolic_combination():
    claim = RowLemma()
    point = claim.point({"w_max": 6})
    outcome = claim.check(point)
    assert outcome.status == "verified", outcome.message
    assert outcome.facts["symbolic_combination"]["residual"] == "0"
    assert outcome.facts["cases"] == sum(w - 1 for w in range(2, 7))
    needed = claim.obligations(point)
    assert needed.reach == "|q| <= 6, every m" and len(needed.verify) == 1
    accepted = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    assert first_discharging(accepted, needed.verify[0]) == "kernel-row-infeasible"
    example = outcome.facts["example_case"]
    assert [r[1] for r in example["rows"]] == [1, 2, 1] and example["order"][0][1] == 2


def test_the_lp_finds_the_proof_weights_and_the_case_uses_them():
    for w, s in [(2, 0), (5, 1), (7, 5)]:
        problem, decision = row_lemma.case(w, s, combination=False)
        rows, nonneg, order = row_lemma.lin.certificate_rows(problem, decision.multipliers, w)
        assert [y for _, y, _ in rows] == [1, 2, 1]
        assert order[0][1] == 2 and sum(y for _, y in nonneg) == 3 * (w - s) - 6
        same, combined = row_lemma.case(w, s)  # the proof's combination, checked exactly: the same certificate
        assert row_lemma.lin.certificate_rows(same, combined.multipliers, w) == (rows, nonneg, order)


def test_the_lemma_fails_when_the_gap_is_one():
    # <z,q> = |q| - 1: no contradiction, the row may weight z below q
    problem, decision = row_lemma.case(3, 2)
    assert type(decision).__name__ == "Feasible"


def test_a_tampered_case_is_rejected():
    claim = RowLemma()
    outcome = claim.check(claim.point({"w_max": 3}))
    cert = outcome.certificates[0]
    trusted.check(cert)
    case = dict(cert["data"]["cases"][0])
    case["order"] = []  # without the negated conclusion there is no contradiction
    with pytest.raises(CertificateError):
        trusted.check({**cert, "data": {**cert["data"], "cases": [case]}})


def test_fewer_cases_or_another_family_do_not_discharge():
    claim = RowLemma()
    outcome = claim.check(claim.point({"w_max": 3}))
    judgment = trusted.check(outcome.certificates[0]).judgment
    wanted = claim.obligations(claim.point({"w_max": 4})).verify[0].judgment
    assert not discharges(judgment, wanted)  # a certificate up to |q| = 3 does not cover |q| = 4
    assert discharges(judgment, claim.obligations(claim.point({"w_max": 3})).verify[0].judgment)
    assert not discharges(judgment | {"family": "affine-complement"}, claim.obligations(claim.point({"w_max": 3})).verify[0].judgment)


def test_a_wrong_symbolic_combination_is_not_verified(monkeypatch):
    good = row_lemma.symbolic_combination

    def wrong():
        residual, weights = good()
        _w, _s, _Kq, _Kz, *_ = row_lemma._symbols()
        return residual + _Kz, weights

    monkeypatch.setattr(row_lemma, "symbolic_combination", wrong)
    claim = RowLemma()
    assert claim.check(claim.point({"w_max": 3})).status == "unknown"
