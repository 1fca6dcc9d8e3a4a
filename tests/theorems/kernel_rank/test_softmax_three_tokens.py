"""K2: the oracles are the values found while planning (see docs/kernel_rank/softmax_three_tokens.md)."""

import copy
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from solvers import certificates, trusted
from solvers.trusted.core import discharges
from theorems.core import first_discharging
from theorems.kernel_rank.softmax_three_tokens import SoftmaxThreeTokens, critical_beta

SMALL = {"m": 30, "m_tables": 3, "m_rank": 4, "n_max": 8}


def check(**overrides):
    claim = SoftmaxThreeTokens()
    return claim.check(claim.point({**SMALL, **overrides}))


def judgments(outcome):
    return [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]


def test_ln4_is_verified_with_the_found_values():
    outcome = check()
    assert outcome.status == "verified", outcome.message
    facts = outcome.facts
    assert facts["critical_beta_unchecked"] == {"m>=1": "log(2)", "m>=2": "log(6)/2"}
    assert facts["worst_error_unchecked"] == Fraction(1, 3)
    assert facts["worst_error_every_m_unchecked"] == Fraction(1, 3)
    assert facts["error_at_critical_beta_unchecked"] == {"gaps": [2, 2], "error": Fraction(1, 2)}
    assert facts["softmax_kernel_rank"] == {"m": 4, "rank": 16, "size": 16}
    assert facts["critical_beta_by_length_unchecked"][5] == "log(4)"  # ln(n - 1): grows like log n
    assert facts["longest_length_solved_unchecked"] == 4
    assert facts["solves_every_m_unchecked"] is True
    assert facts["symbolic_all_m_threshold_proof"].startswith("symbolic (sympy)")


def test_every_obligation_is_discharged_and_the_reach_is_finite():
    claim = SoftmaxThreeTokens()
    point = claim.point(SMALL)
    needed = claim.obligations(point)
    found = judgments(claim.check(point))
    assert len(needed.verify) == 3 + 5  # statistic, tables, rank, and n = 4..8
    assert all(first_discharging(found, o) for o in needed.verify)
    assert not any(first_discharging(found, o) for o in needed.refute)
    assert needed.reach == "m <= 30 at beta = ln 4, length 3"  # the all-m argument is not a certificate


def test_ln2_is_refuted_with_the_smallest_counterexample():
    outcome = check(base="2")
    assert outcome.status == "refuted"
    assert outcome.counterexample["sequence"] == ["0", "1", "1"]
    assert outcome.counterexample["error"] == Fraction(1, 2)
    [cert] = outcome.certificates
    assert cert["kind"] == "score-counterexample"
    accepted = trusted.check(cert)
    assert "has error 1/2" in accepted.summary and accepted.judgment["m"] == 30


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
    with pytest.raises(certificates.CertificateError):
        trusted.check(cert)


def test_another_base_or_a_shifted_readout_discharges_nothing():
    """A head that really solves (error < 1/2), but not the one the point names."""
    claim = SoftmaxThreeTokens()
    needed = claim.obligations(claim.point(SMALL))
    cert = next(c for c in check().certificates if c["kind"] == "score-statistic")
    base5 = next(c for c in check(base="5").certificates if c["kind"] == "score-statistic")
    shifted = copy.deepcopy(cert)
    shifted["data"]["value"][5][0] = "1/10"  # a shifted readout, still within 1/2
    for forged in (base5, shifted):
        judgment = trusted.check(forged).judgment
        assert not any(discharges(judgment, o.judgment) for o in needed.verify + needed.refute)
    # a certificate only up to m = 20 does not reach m = 30
    short = trusted.check(next(c for c in check(m="20").certificates if c["kind"] == "score-statistic")).judgment
    assert not discharges(short, needed.verify[0].judgment)
    # a counterexample for base 2 does not refute base 4
    ln2 = trusted.check(check(base="2").certificates[0]).judgment
    assert not discharges(ln2, needed.refute[0].judgment)


def test_any_readout_needs_beta_growing_like_half_log_n():
    outcome = check()
    bounds = outcome.facts["any_readout_critical_beta_by_length"]
    assert bounds[4] == "log(7/3)/2" and bounds[8] == "log(47/7)/2"  # ½ ln(n - 1 - 2/(n - 1))
    assert all(outcome.facts["any_readout_bound_tight_on_its_sequences_unchecked"].values())
    cert = next(c for c in outcome.certificates if c["kind"] == "readout-infeasible")
    assert "no readout" in trusted.check(cert).summary
    # a lighter query weight (a larger beta) is not refuted by the same multipliers
    lighter = copy.deepcopy(cert)
    t = Fraction(lighter["data"]["weights"]["11"])
    lighter["data"]["weights"]["11"] = certificates.encode(t * Fraction(999, 1000))
    with pytest.raises(certificates.CertificateError, match="no contradiction"):
        trusted.check(lighter)


@pytest.mark.parametrize("m, base", [(1, Fraction(4)), (3, Fraction(4)), (4, Fraction(3, 2))])
def test_the_tables_built_from_scores_are_the_witness_tables(m, base):
    """softmax_tables (lookups of |q AND x|) equals the generic builder (features, values, readout)
    entry for entry, and so does the digest the obligation names."""
    from theorems import attention as att
    from theorems.kernel_rank.softmax_three_tokens import softmax_tables, tables_digest
    from solvers.trusted.core import digest

    phi, psi, U = att.softmax_witness(m, base).tables()
    assert softmax_tables(m, base) == (phi, psi, U)
    assert tables_digest(m, base) == digest({"phi": phi, "psi": psi, "readout": U})
