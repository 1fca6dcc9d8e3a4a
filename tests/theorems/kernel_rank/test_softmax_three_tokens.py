"""K2: the oracles are the values found while planning (see docs/kernel_rank/softmax_three_tokens.md)."""

from fractions import Fraction

from hypothesis import given, strategies as st

from solvers import certificates, trusted
from theorems.kernel_rank.softmax_three_tokens import SoftmaxThreeTokens, critical_beta

SMALL = {"m": 30, "m_tables": 3, "m_rank": 4, "n_max": 8}


def check(**overrides):
    claim = SoftmaxThreeTokens()
    return claim.check(claim.point({**SMALL, **overrides}))


def test_ln4_is_verified_with_the_found_values():
    outcome = check()
    assert outcome.status == "verified", outcome.message
    facts = outcome.facts
    assert facts["critical_beta"] == {"m>=1": "log(2)", "m>=2": "log(6)/2"}
    assert facts["worst_error"] == Fraction(1, 3)
    assert facts["worst_error_every_m"] == Fraction(1, 3)
    assert facts["error_at_critical_beta"] == {"gaps": [2, 2], "error": Fraction(1, 2)}
    assert facts["softmax_kernel_rank"] == {"m": 4, "rank": 16, "size": 16}
    assert facts["critical_beta_by_length"][5] == "log(4)"  # ln(n - 1): grows like log n
    assert facts["longest_length_solved"] == 4
    assert facts["solves_every_m"] is True


def test_ln2_is_refuted_with_the_smallest_counterexample():
    outcome = check(base="2")
    assert outcome.status == "refuted"
    assert outcome.counterexample["sequence"] == ["0", "1", "1"]
    assert outcome.counterexample["error"] == Fraction(1, 2)
    [cert] = outcome.certificates
    assert cert["kind"] == "score-counterexample"
    assert "has error 1/2" in trusted.check(cert, SoftmaxThreeTokens().statement_hash())


def test_just_below_half_ln6_fails_first_at_m2():
    # 12/5 < sqrt(6): m = 1 is solved (12/5 > 2) but gaps (2, 2) break m = 2
    outcome = check(base="12/5")
    assert outcome.status == "refuted"
    assert outcome.counterexample["sequence"] == ["00", "11", "11"]


def solves_by_formula(base, m):
    """Independent oracle: 2 max_{1<=d<=m} (2d - 1) base^-d < 1."""
    return 2 * max((2 * d - 1) / base**d for d in range(1, m + 1)) < 1


@given(st.fractions(min_value=Fraction(11, 10), max_value=6, max_denominator=20), st.integers(1, 12))
def test_verdict_matches_the_gap_criterion(base, m):
    outcome = check(base=str(base), m=str(m), m_tables="1", m_rank="1", n_max="3")
    assert (outcome.status == "verified") == solves_by_formula(Fraction(base), m)


def test_critical_beta_formula():
    assert str(critical_beta(1, 2)) == "log(2)"
    assert str(critical_beta(50, 2)) == "log(6)/2"
    assert str(critical_beta(50, 9)) == "log(9)"


def test_tampered_certificate_is_rejected():
    outcome = check()
    cert = next(c for c in outcome.certificates if c["kind"] == "score-statistic")
    cert["data"]["kappa"][1] = "1/2"  # weights of ln 2 at gap 1
    import pytest

    with pytest.raises(certificates.CertificateError):
        trusted.check(cert, SoftmaxThreeTokens().statement_hash())


def test_any_readout_needs_beta_growing_like_half_log_n():
    outcome = check()
    bounds = outcome.facts["any_readout_critical_beta_by_length"]
    assert bounds[4] == "log(7/3)/2" and bounds[8] == "log(47/7)/2"  # ½ ln(n - 1 - 2/(n - 1))
    assert all(outcome.facts["any_readout_bound_tight_on_its_sequences"].values())
    cert = next(c for c in outcome.certificates if c["kind"] == "readout-infeasible")
    hash_ = SoftmaxThreeTokens().statement_hash()
    assert "no readout solves 3 sequences" in trusted.check(cert, hash_)
    # a lighter query weight (a larger beta) is not refuted by the same multipliers
    import copy

    import pytest

    lighter = copy.deepcopy(cert)
    t = Fraction(lighter["data"]["weights"]["11"])
    lighter["data"]["weights"]["11"] = certificates.encode(t * Fraction(999, 1000))
    with pytest.raises(certificates.CertificateError, match="no contradiction|must vanish"):
        trusted.check(lighter, hash_)
