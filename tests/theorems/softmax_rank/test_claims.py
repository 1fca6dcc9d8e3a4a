"""S1, S4, S6 and the certified rank bounds: statuses, found values, broken witnesses, tampering."""

from fractions import Fraction

import pytest

from solvers import certificates, smt, trusted
from theorems.core import ParameterError
from theorems.softmax_rank import duality, residual_error, row_scalar_quotient
from theorems.softmax_rank.certified_rank_bounds import CertifiedRankBounds
from theorems.softmax_rank.residual_error import ResidualError, ResidualErrorTanh


def test_duality_is_verified_and_a_wrong_maximiser_is_caught(monkeypatch):
    claim = duality.Duality()
    outcome = claim.check(claim.point({"n_vertices": 5, "n_large": 12, "samples": 3}))
    assert outcome.status == "verified", outcome.message
    assert outcome.facts["symbolic"]["x*sign(x) == |x|"] is True
    monkeypatch.setattr(duality.Duality, "witness", lambda self, point: (lambda M: [1] * len(M[0])))
    assert claim.check(claim.point({"n_vertices": 5, "n_large": 12, "samples": 3})).status == "refuted"


def test_duality_certificate_rejects_a_tampered_matrix():
    claim = duality.Duality()
    cert = claim.check(claim.point({"n_vertices": 3, "n_large": 5, "samples": 1})).certificates[-1]
    trusted.check(cert, claim.statement_hash())
    cert["data"]["matrix"] = "not a matrix"
    with pytest.raises(certificates.CertificateError):
        trusted.check(cert, claim.statement_hash())


def test_row_scalar_quotient_found_values():
    claim = row_scalar_quotient.RowScalarQuotient()
    outcome = claim.check()
    assert outcome.status == "verified", outcome.message
    found = outcome.facts["constant_coordinate"]
    assert found["rank L"] == 3 and found["visible r"] == 2  # (found): rank 3, visible 2, same attention
    assert found["same attention as the rank-2 logits"] is True
    for dims in outcome.facts["visible_dimensions"]:
        assert dims["key bias"] == dims["no bias"]


def test_row_scalar_quotient_refuses_bad_dimensions():
    with pytest.raises(ParameterError, match="min"):
        row_scalar_quotient.RowScalarQuotient().point({"n": 3, "N": 3, "d": 3})


def test_residual_error_verified_with_the_critical_point():
    claim = ResidualError()
    outcome = claim.check()
    assert outcome.status == "verified", outcome.message
    proof = outcome.facts["two_block_reduction"]
    assert proof["critical_point_is_1/(sqrt(a)+1)"] and proof["equals_2tanh(osc/4)"] and proof["maximum"]
    assert outcome.facts["z3_N2"]["status"] == "unsat"
    assert outcome.facts["r_tau"]["r_tau"] == 2  # the planted dimension
    assert outcome.facts["residual"]["below tau"] is True
    kinds = {c["kind"] for c in outcome.certificates}
    assert {"residual-two-point", "visible-dimension", "residual-bound", "approx-rank-upper"} <= kinds


def test_residual_error_refuses_epsilon_one():
    with pytest.raises(ParameterError, match="rank is 0"):
        ResidualError().point({"epsilon": 1})


def test_z3_decides_both_constants():
    assert smt.solve(residual_error.two_point_problem("2tanh(delta/2)"), 20).status == "unsat"
    found = smt.solve(residual_error.two_point_problem("tanh(delta)"), 20)
    assert found.status == "sat"  # its model re-checked exactly by smt.solve


def test_a_wrong_residual_constant_is_refuted():
    claim = ResidualErrorTanh()
    outcome = claim.check()
    assert outcome.status == "refuted" == claim.expected
    ce = outcome.counterexample
    assert ce["distance"] > ce["tanh(delta)"]
    [cert] = outcome.certificates
    trusted.check(cert, claim.statement_hash())
    cert["data"]["bound"] = "2tanh(delta/2)"  # the true constant is not exceeded
    with pytest.raises(certificates.CertificateError):
        trusted.check(cert, claim.statement_hash())


def test_certified_rank_bounds_sandwich_and_lemma():
    claim = CertifiedRankBounds()
    outcome = claim.check(claim.point({"n": 24}))
    assert outcome.status == "verified", outcome.message
    bounds = outcome.facts["rank_eps"]
    assert 1 <= bounds["lower"] <= bounds["upper"] <= 24
    assert outcome.facts["multiplicity_lemma"]["same lower"] == bounds["lower"]
    lower = next(c for c in outcome.certificates if c["kind"] == "approx-rank-lower-points")
    lower["data"]["epsilon"] = "99/100"  # no margin exceeds 0.99 at this temperature
    with pytest.raises(certificates.CertificateError):
        trusted.check(lower, claim.statement_hash())


def test_certified_rank_bounds_refuses_epsilon_one():
    with pytest.raises(ParameterError, match="approximation rank is 0"):
        CertifiedRankBounds().point({"epsilon": "3/2"})


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=6)
@given(st.integers(1, 3), st.fractions(min_value=0, max_value=1, max_denominator=20), st.integers(0, 1000))
def test_residual_error_is_verified_across_instances(d, noise, seed):
    claim = ResidualError()
    outcome = claim.check(claim.point({"n": 6, "N": 5, "d": d, "noise": str(noise), "seed": seed}))
    assert outcome.status == "verified", outcome.message
    assert outcome.facts["r_tau"]["r_tau"] <= 5


def test_rank_one_projections_show_the_biases_in_the_ranks():
    outcome = row_scalar_quotient.RowScalarQuotient().check()
    found = outcome.facts["rank_one_projections"]
    assert found["rank L, key bias"] == 2 and found["r, key bias"] == found["r"] == 1  # rank L grows, r does not
    assert found["r, query bias"] == 2 == found["rank-one W_Q: r"] + 1


@settings(max_examples=8)
@given(st.integers(0, 10**6))
def test_row_scalar_quotient_is_verified_for_every_seed(seed):
    claim = row_scalar_quotient.RowScalarQuotient()
    outcome = claim.check(claim.point({"seed": seed, "heads": 1}))
    assert outcome.status == "verified", outcome.message


def test_multiplicity_identity_is_proved_symbolically():
    claim = CertifiedRankBounds()
    outcome = claim.check(claim.point({"n": 8, "full": 0}))
    assert outcome.facts["multiplicity_identity"] == {"sum of m_j copies = softmax(L + 1 log m^T)": True}
