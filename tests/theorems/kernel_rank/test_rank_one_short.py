from fractions import Fraction

from hypothesis import given, strategies as st

from theorems import attention as att
from theorems.kernel_rank import rank_one_short
from theorems.kernel_rank.rank_one_short import RankOneShort

SMALL = {"m": 4, "m_statistic": 40}


def test_verified_with_error_exactly_zero():
    claim = RankOneShort()
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "verified", outcome.message
    assert outcome.facts["max_error_length_2_m4"] == 0
    assert outcome.covered["tables"]["length_2"]["sequences"] == 4**4
    assert {c["kind"] for c in outcome.certificates} == {"exhaustive", "score-statistic"}


@given(st.fractions(min_value=-50, max_value=50, max_denominator=7))
def test_any_constant_c_works(c):
    claim = RankOneShort()
    assert claim.check(claim.point({"m": 2, "m_statistic": 6, "c": str(c)})).status == "verified"


class _PerturbedReadout(RankOneShort):
    """b(q) shifted by 1/4 on queries of weight 2: the head errs on them."""

    def witness(self, point):
        honest = super().witness(point)
        return att.TokenwiseHead(
            m=honest.m, phi=honest.phi, psi=honest.psi, value=honest.value, a=honest.a,
            b=lambda q: honest.b(q) + (Fraction(1, 4) if att.weight(q) == 2 else 0),
        )


def test_a_perturbed_readout_is_refuted():
    claim = _PerturbedReadout()
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "refuted"
    assert "error" in outcome.message
    assert len(outcome.counterexample["sequence"]) in (1, 2)


def test_a_wrong_identity_is_refuted(monkeypatch):
    monkeypatch.setattr(rank_one_short, "readout_value", lambda w, s, c=0: 2 * s - w + (s - w) ** 2)
    claim = RankOneShort()
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "refuted"  # the exact evaluations find the counterexample
    assert outcome.counterexample["sequence"]
    assert outcome.facts["identity_length_2"] != "(U(w, s) + U(w, w))/2 - s = 0"
