import copy
from fractions import Fraction

from hypothesis import given, strategies as st

from solvers import trusted
from solvers.trusted.core import discharges
from theorems import attention as att
from theorems.core import first_discharging
from theorems.kernel_rank import rank_one_short
from theorems.kernel_rank.rank_one_short import RankOneShort

SMALL = {"m": 4, "m_statistic": 40}


def test_verified_with_error_exactly_zero_and_every_obligation_discharged():
    claim = RankOneShort()
    point = claim.point(SMALL)
    outcome = claim.check(point)
    assert outcome.status == "verified", outcome.message
    assert outcome.facts["max_error_length_2_m4"] == 0
    assert outcome.covered["tables"]["length_2"]["sequences"] == 4**4
    assert {c["kind"] for c in outcome.certificates} == {"exhaustive", "score-statistic"}
    judgments = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    needed = claim.obligations(point)
    assert all(first_discharging(judgments, o) for o in needed.verify)
    assert needed.reach == "m <= 40, lengths 1 and 2"  # the all-m identity is symbolic, not a rung
    assert outcome.facts["symbolic_identity_length_2"].startswith("symbolic (sympy)")


@given(st.fractions(min_value=-50, max_value=50, max_denominator=7))
def test_any_constant_c_works(c):
    claim = RankOneShort()
    assert claim.check(claim.point({"m": 2, "m_statistic": 6, "c": str(c)})).status == "verified"


def test_certificates_of_another_head_or_size_do_not_discharge():
    claim = RankOneShort()
    outcome = claim.check(claim.point(SMALL))
    needed = claim.obligations(claim.point(SMALL)).verify
    tables = next(c for c in outcome.certificates if c["kind"] == "exhaustive")
    # the head shifted by 1/4 on the diagonal still has error < 1/2, but it is another head at another tolerance
    shifted = copy.deepcopy(tables)
    shifted["data"]["readout"] = [[str(Fraction(u) + (Fraction(1, 4) if q == x else 0)) for x, u in enumerate(row)]
                                  for q, row in enumerate(tables["data"]["readout"])]
    shifted["data"]["tolerance"] = "1/2"
    forged = trusted.check(shifted).judgment
    assert not any(discharges(forged, o.judgment) for o in needed)
    # the same head at a smaller m covers nothing needed at m = 4
    smaller = trusted.check(next(c for c in claim.check(claim.point({"m": 3, "m_statistic": 40})).certificates if c["kind"] == "exhaustive")).judgment
    assert not any(discharges(smaller, o.judgment) for o in needed)
    # a score certificate up to m' = 30 does not reach m_statistic = 40
    short = trusted.check(next(c for c in claim.check(claim.point({"m": 4, "m_statistic": 30})).certificates if c["kind"] == "score-statistic")).judgment
    assert not any(discharges(short, o.judgment) for o in needed)


class _PerturbedReadout(RankOneShort):
    """b(q) shifted by 1/4 on queries of weight 2: the head errs on them."""

    def witness(self, point):
        honest = super().witness(point)
        return att.TokenwiseHead(
            m=honest.m, phi=honest.phi, psi=honest.psi, value=honest.value, a=honest.a,
            b=lambda q: honest.b(q) + (Fraction(1, 4) if att.weight(q) == 2 else 0),
        )


def test_a_perturbed_readout_is_not_verified():
    claim = _PerturbedReadout()
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "unknown"  # a broken witness refutes nothing: the claim is existential
    assert "not established" in outcome.message and "error" in outcome.message
    assert len(outcome.counterexample["sequence"]) in (1, 2)


def test_a_wrong_identity_is_not_verified(monkeypatch):
    monkeypatch.setattr(rank_one_short, "readout_value", lambda w, s, c=0: 2 * s - w + (s - w) ** 2)
    claim = RankOneShort()
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "unknown"  # the exact evaluations find the failing sequence
    assert outcome.counterexample["sequence"]
    assert outcome.facts["symbolic_identity_length_2"] != "symbolic (sympy): (U(w, s) + U(w, w))/2 - s = 0"


@given(st.integers(0, 30), st.fractions(min_value=-50, max_value=50, max_denominator=7))
def test_readout_rows_are_the_readout_values(m, c):
    """The score tables' rows (slices of one list) are readout_value's numbers, for every constant c."""
    assert rank_one_short.readout_rows(m) == [[rank_one_short.readout_value(w, s, c) for s in range(w + 1)] for w in range(m + 1)]
