"""S4 row-scalar quotient: verified, every obligation discharged, found values; forgeries discharge nothing."""

from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from solvers import trusted
from solvers.trusted.core import digest, discharges
from theorems.core import ParameterError, first_discharging, rung
from theorems.softmax_rank import row_scalar_quotient as S4


def judgments(outcome):
    """The judgments of the outcome's certificates, each re-checked by the trusted checker now."""
    return [(cert["kind"], trusted.check(cert).judgment) for cert in outcome.certificates]


@pytest.fixture(scope="module")
def checked():
    claim = S4.RowScalarQuotient()
    point = claim.point()
    return claim, point, claim.check(point)


def test_verified_with_every_obligation_discharged(checked):
    claim, point, outcome = checked
    assert outcome.status == "verified", outcome.message
    needed = claim.obligations(point)
    names = [o.judgment["judgment"] for o in needed.verify]
    assert names.count("same-attention") == 3 + 1 and names.count("attention-differs") == 3
    assert names.count("rank-at-least") == 2 and names.count("rank-at-most") == 3 and names.count("singular-values-above") == 5
    accepted = judgments(outcome)
    assert all(first_discharging(accepted, o) for o in needed.verify)
    assert rung(outcome.status, needed.reach) == "verified up to 6 x 7 logits, 3 heads of dimension 2"
    assert outcome.facts["symbolic_invariance"]["rests on"] == "symbolic (sympy)"


def test_found_values(checked):
    _, _, outcome = checked
    found = outcome.facts["constant_coordinate"]
    assert found["rank L"] == 3 and found["visible r"] == 2  # (found): rank 3, visible 2, same attention
    assert found["same attention as the rank-2 logits"] is True
    projections = outcome.facts["rank_one_projections"]
    assert projections["rank L, key bias"] == 2 and projections["r, key bias"] == projections["r"] == 1  # rank L grows, r does not
    assert projections["r, query bias"] == 2 == projections["rank-one W_Q: r"] + 1
    assert all(h["query bias: attention moves"] is True for h in outcome.facts["heads"])


def test_another_seeds_certificates_discharge_nothing(checked):
    claim, point, _ = checked
    other = claim.check(claim.point({"seed": 1}))
    assert other.status == "verified"
    forged = judgments(other)
    assert not any(first_discharging(forged, o) for o in claim.obligations(point).verify)


def test_forged_judgments_do_not_discharge(checked):
    claim, point, _ = checked
    L0, LK, LQ = S4.seeded_heads(point)[0]
    needed = claim.obligations(point).verify
    same = next(o.judgment for o in needed if o.judgment["judgment"] == "same-attention")
    differs = next(o.judgment for o in needed if o.judgment["judgment"] == "attention-differs")
    assert discharges({"judgment": "same-attention", "logits": digest(L0), "other": digest(LK)}, same)
    # a kind swap: "the attentions differ" is no "same attention", nor the other way round
    assert not discharges({"judgment": "attention-differs", "logits": digest(L0), "other": digest(LK)}, same)
    assert not discharges({"judgment": "same-attention", "logits": digest(L0), "other": digest(LQ)}, differs)
    # the query-biased logits are not a row shift: the row-shift kind rejects them
    with pytest.raises(trusted.CertificateError):
        trusted.check(claim.certificate("row-shift", point, {"logits": L0, "shifted": LQ}))
    # a smaller rank bound does not discharge rank L >= 3
    rank3 = next(o.judgment for o in needed if o.judgment["judgment"] == "rank-at-least" and o.judgment["bound"] == 3)
    assert not discharges({**rank3, "bound": 2}, rank3) and discharges({**rank3, "bound": 4}, rank3)


def test_a_broken_witness_is_not_verified(monkeypatch):
    claim = S4.RowScalarQuotient()
    queries, keys = S4.constant_coordinate(claim.point())
    broken = [k[:2] + [Fraction(j)] for j, k in enumerate(keys)]  # the "constant" coordinate varies
    monkeypatch.setattr(S4.RowScalarQuotient, "witness", lambda self, point: (queries, broken))
    outcome = claim.check()
    assert outcome.status == "unknown" and "constant key coordinate" in outcome.message


def test_refuses_bad_dimensions():
    with pytest.raises(ParameterError, match="min"):
        S4.RowScalarQuotient().point({"n": 3, "N": 3, "d": 3})


@settings(max_examples=6)
@given(st.integers(0, 10**6))
@example(385)  # its first draw of the query bias is zero: drawn again, so the visible bias shows
def test_verified_for_every_seed(seed):
    claim = S4.RowScalarQuotient()
    outcome = claim.check(claim.point({"seed": seed, "heads": 1}))
    assert outcome.status == "verified", outcome.message
