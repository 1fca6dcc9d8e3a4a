"""The certified rank bounds: statuses, found values, obligations, forgeries, tampering (S1, S4, S6: test_duality.py, test_row_scalar_quotient.py, test_residual_error.py)."""

import copy
from fractions import Fraction

import pytest

from solvers import certificates, trusted
from solvers.trusted.core import discharges
from theorems.core import ParameterError
from theorems.softmax_rank import _definitions as D
from theorems.softmax_rank import certified_rank_bounds
from theorems.softmax_rank.certified_rank_bounds import CertifiedRankBounds


@pytest.fixture(scope="module")
def outcome():
    claim = CertifiedRankBounds()
    return claim, claim.check(claim.point({"n": 24}))


def accepted(out):
    return [trusted.check(c).judgment for c in out.certificates]


def test_certified_rank_bounds_sandwich_and_lemma(outcome):
    claim, outcome = outcome
    assert outcome.status == "verified", outcome.message
    bounds = outcome.facts["rank_eps"]
    assert 1 <= bounds["lower"] <= bounds["upper"] <= 24
    assert outcome.facts["multiplicity_lemma"]["same lower"] == bounds["lower"]
    lower = copy.deepcopy(next(c for c in outcome.certificates if c["kind"] == "approx-rank-lower-points"))
    lower["data"]["epsilon"] = "99/100"  # no margin exceeds 0.99 at this temperature
    with pytest.raises(certificates.CertificateError):
        trusted.check(lower)


def test_every_obligation_is_discharged_and_names_the_instance(outcome):
    claim, out = outcome
    verify = out.obligations["verify"]
    assert len(verify) == 4  # lower and upper, on W and on the full instance
    js = accepted(out)
    assert all(any(discharges(j, o["judgment"]) for j in js) for o in verify)
    points, m = claim.witness(claim.point({"n": 24}))
    assert verify[0]["judgment"]["instance"] == D.points_instance(points, 16, m)
    assert verify[2]["judgment"]["instance"] == D.points_instance(D.expand(points, m), 16)
    assert {o["judgment"]["n"] for o in verify} == {sum(m)}
    assert {o["judgment"]["bound"] for o in verify} == {out.facts["rank_eps"]["lower"], out.facts["rank_eps"]["upper"]}
    assert out.obligations["reach"].startswith("one instance: 24 distinct points")


def test_certificates_of_another_point_discharge_nothing(outcome):
    claim, out = outcome
    other = claim.check(claim.point({"n": 24, "beta": 17, "full": 0}))  # another temperature
    assert other.status == "verified"
    assert not any(discharges(j, o["judgment"]) for j in accepted(other) for o in out.obligations["verify"])
    smaller = claim.check(claim.point({"n": 24, "epsilon": Fraction(1, 20), "full": 0}))  # lower bounds at a smaller eps
    lowers = [j for j in accepted(smaller) if j["judgment"] == "approx-rank-at-least"]
    assert lowers and not any(discharges(j, o["judgment"]) for j in lowers for o in out.obligations["verify"])


def test_a_broken_upper_bound_leaves_the_claim_unestablished(monkeypatch):
    real = D.upper_certificate_points

    def dropped(points, beta, m, eps, F, G):  # the last rank-one term of B left out
        return real(points, beta, m, eps, [r[:-1] for r in F], G[:-1])

    monkeypatch.setattr(certified_rank_bounds.D, "upper_certificate_points", dropped)
    claim = CertifiedRankBounds()
    out = claim.check(claim.point({"n": 24}))
    assert out.status == "unknown" and "rejected" in out.message


def test_certified_rank_bounds_refuses_epsilon_one():
    # at epsilon >= 1 the zero matrix is within epsilon (rank 0): the advertised range is open at 1
    for eps in ("3/2", 1):
        with pytest.raises(ParameterError, match=r"in \[1/1000000, 1\)"):
            CertifiedRankBounds().point({"epsilon": eps})


def test_multiplicity_identity_is_symbolic_and_beside_the_verdict():
    claim = CertifiedRankBounds()
    outcome = claim.check(claim.point({"n": 8, "full": 0}))
    assert outcome.facts["symbolic_multiplicity_identity"] == {
        "rests on": "symbolic (sympy)", "sum of m_j copies = softmax(L + 1 log m^T)": True}
    assert len(outcome.obligations["verify"]) == 2  # no full instance asked
