from fractions import Fraction

import pytest

from solvers import trusted
from solvers.certificates import CertificateError
from theorems.kernel_rank import feature_rank_table as frt


@pytest.fixture(scope="module")
def outcome():
    claim = frt.FeatureRankTable()
    return claim.check(claim.point({"m_max": 5}))


def test_the_table(outcome):
    assert outcome.status == "verified", outcome.message
    table = outcome.facts["r_star"]
    assert [table[m]["upper"] for m in (1, 2, 3)] == [1, 1, 1]
    assert table[4]["lower"] == 2 and table[5]["lower"] == 2
    assert table[4]["upper"] == 2 and table[4]["exact"]
    assert table[5]["upper"] <= 6
    assert all(table[m]["worst_error"] < Fraction(1, 2) for m in table if "worst_error" in table[m])
    assert outcome.facts["family_works"] == {4: True, 5: True}


def test_the_family_fails_at_m6_with_a_certificate():
    problem, decision = frt.affine_family_row(6, 0b111111)
    assert type(decision).__name__ == "Infeasible"
    rows, nonneg, _ = frt.lin.certificate_rows(problem, decision.multipliers, 6)
    _, check = trusted.KINDS["kernel-row-infeasible"]
    case = {"m": 6, "query": "111111", "rows": rows, "nonnegative": nonneg, "order": []}
    from solvers.certificates import encode
    assert "refuted" in check(encode({"family": "affine-complement", "cases": [case]}))
    with pytest.raises(CertificateError):  # the free family has more freedom: the rows no longer refute it
        check(encode({"family": "free", "cases": [case | {"nonnegative": []}]}))


def test_rationalised_features_are_rechecked_exactly():
    floats = frt.search_rank(4, 2, seeds=range(3))
    assert floats is not None
    head = frt.exact_head(frt.rationalise(floats[0], 10**6), frt.rationalise(floats[1], 10**6), 4)
    assert head is not None and head[2] < Fraction(1, 2)
    # a rank-one head (second feature dropped) cannot work at m = 4
    assert frt.exact_head([row[:1] for row in frt.rationalise(floats[0], 10**6)],
                          [row[:1] for row in frt.rationalise(floats[1], 10**6)], 4) is None


def test_a_tampered_rank_two_witness_is_rejected(outcome):
    statement = frt.FeatureRankTable().statement_hash()
    cert = next(c for c in outcome.certificates if c["kind"] == "exhaustive" and c["data"]["m"] == 4 and len(c["data"]["psi"][0]) == 2)
    trusted.check(cert, statement)
    psi = [row[:] for row in cert["data"]["psi"]]
    psi[3] = ["1000", "1000"]
    with pytest.raises(CertificateError, match="error"):
        trusted.check({**cert, "data": {**cert["data"], "psi": psi}}, statement)


def test_an_exhausted_budget_is_unknown():
    claim = frt.FeatureRankTable()
    result = claim.check(claim.point(), budget=0.05)
    assert result.status == "unknown" and result.certificates == []


def test_family_features_agree_with_the_checker():
    for m, d in [(4, 1), (5, 2), (6, 2)]:
        assert frt.lin.complement_subsets(m, d) == trusted._complement_subsets(m, d)
        assert frt.family_rank(m, d) == len(frt.family_features(m, d)[0])
    # degree 1 is the affine family: (1, 1 - x_1, ..., 1 - x_m)
    assert frt.family_features(3, 1)[0b101] == [1, 0, 1, 0]
    _, check = trusted.KINDS["kernel-row-infeasible"]
    with pytest.raises(CertificateError, match="unknown family"):
        check({"family": "complement-9", "cases": [{}]})
