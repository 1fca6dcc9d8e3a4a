"""S1 duality: verified on seeded matrices, every obligation discharged; forgeries discharge nothing."""

import pytest

from solvers import certificates, trusted
from solvers.trusted.core import digest, discharges
from theorems.core import first_discharging, rung
from theorems.softmax_rank import duality

SMALL = {"n_vertices": 5, "n_large": 12, "samples": 3}


def judgments(outcome):
    """The judgments of the outcome's certificates, each re-checked by the trusted checker now."""
    return [(cert["kind"], trusted.check(cert).judgment) for cert in outcome.certificates]


@pytest.fixture(scope="module")
def checked():
    claim = duality.Duality()
    point = claim.point(SMALL)
    return claim, point, claim.check(point)


def test_verified_with_every_obligation_discharged(checked):
    claim, point, outcome = checked
    assert outcome.status == "verified", outcome.message
    needed = claim.obligations(point)
    assert len(needed.verify) == 5 * 3 and not needed.refute  # one per seeded matrix
    accepted = judgments(outcome)
    assert all(first_discharging(accepted, o) for o in needed.verify)
    assert outcome.obligations == needed.to_json()
    # the identity for every M rests on sympy: never "proved"
    assert needed.reach == "3 x N matrices, N <= 5"
    assert rung(outcome.status, needed.reach) == "verified up to 3 x N matrices, N <= 5"
    assert outcome.facts["symbolic_proof"]["rests on"] == "symbolic (sympy)"
    assert outcome.facts["symbolic_proof"]["x*sign(x) == |x|"] is True
    assert "maximiser_unchecked" in outcome.covered


def test_another_seeds_matrices_discharge_nothing(checked):
    claim, point, outcome = checked
    other = claim.check(claim.point({**SMALL, "seed": 1}))
    forged = judgments(other)  # accepted duality judgments, about other matrices
    assert forged and all(j["judgment"] == "duality" for _, j in forged)
    assert not any(first_discharging(forged, o) for o in claim.obligations(point).verify)


def test_a_judgment_of_another_kind_or_matrix_discharges_nothing(checked):
    claim, point, _ = checked
    needed = claim.obligations(point).verify[-1].judgment
    M = duality.seeded_matrices(point)[0][-1]
    assert discharges({"judgment": "duality", "matrix": digest(M)}, needed)
    wrong_kind = {"judgment": "rank-at-least", "matrix": digest(M), "rows": 3, "cols": len(M[0]), "bound": 1}
    assert not discharges(wrong_kind, needed)
    M[0][0] += 1  # a certificate about a neighbouring matrix
    assert not discharges(trusted.check(claim.certificate("duality", point, {"matrix": M})).judgment, needed)


def test_a_wrong_maximiser_is_not_verified(monkeypatch):
    claim = duality.Duality()
    monkeypatch.setattr(duality.Duality, "witness", lambda self, point: (lambda M: [1] * len(M[0])))
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "unknown" and "sign(M_i*)" in outcome.message  # a failure, no certified refutation


def test_a_tampered_certificate_is_rejected(checked):
    _, _, outcome = checked
    cert = dict(outcome.certificates[-1])
    trusted.check(cert)
    cert["data"] = {"matrix": "not a matrix"}
    with pytest.raises(certificates.CertificateError):
        trusted.check(cert)
