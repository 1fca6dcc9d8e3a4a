"""S6 residual bound (verified) and the tempting tanh(delta) (refuted): obligations discharged, forgeries refused."""

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from solvers import certificates, smt, trusted
from solvers.trusted.core import digest, discharges
from theorems.core import ParameterError, first_discharging, rung
from theorems.softmax_rank import residual_error as S6
from theorems.softmax_rank.residual_error import ResidualError, ResidualErrorTanh


def judgments(outcome):
    """The judgments of the outcome's certificates, each re-checked by the trusted checker now."""
    return [(cert["kind"], trusted.check(cert).judgment) for cert in outcome.certificates]


def needed(claim, point, name, **fields):
    return next(o.judgment for o in claim.obligations(point).verify + claim.obligations(point).refute
                if o.judgment["judgment"] == name and all(o.judgment[k] == v for k, v in fields.items()))


@pytest.fixture(scope="module")
def checked():
    claim = ResidualError()
    point = claim.point()
    return claim, point, claim.check(point)


def test_verified_with_every_obligation_discharged(checked):
    claim, point, outcome = checked
    assert outcome.status == "verified", outcome.message
    obligations = claim.obligations(point)
    assert [o.judgment["judgment"] for o in obligations.verify] == [
        "residual-two-point", "rank-at-most", "singular-values-above", "singular-values-above", "residual-within",
        "approx-rank-at-most", "approx-rank-at-most"]
    accepted = judgments(outcome)
    assert all(first_discharging(accepted, o) for o in obligations.verify)
    assert rung(outcome.status, obligations.reach) == "verified up to one 10 x 10 instance; sharpness at e^delta = 3"


def test_found_values(checked):
    _, _, outcome = checked
    proof = outcome.facts["symbolic_two_block_reduction"]
    assert proof["rests on"] == "symbolic (sympy)"
    assert proof["critical_point_is_1/(sqrt(a)+1)"] and proof["equals_2tanh(osc/4)"] and proof["maximum"]
    assert outcome.facts["z3_N2_unchecked"]["status"] == "unsat"
    instance = outcome.facts["instance"]
    assert instance["r_tau"] == 2 and instance["tau"] == Fraction(1, 2)  # the planted dimension, tau = noise * 10
    assert instance["delta = ||E||_max"] == Fraction(23, 400)
    inequality = outcome.facts["rank_inequality"]
    assert inequality["rank_eps(softmax(L_k)) <="] == 6 and inequality["eps + 2tanh(delta/2) <="] < Fraction(26, 100)


def test_forgeries_do_not_discharge(checked):
    claim, point, outcome = checked
    accepted = dict(judgments(outcome))
    # another seed's instance: its residual and rank judgments name other matrices
    other = judgments(claim.check(claim.point({"seed": 1})))
    for name in ("residual-within", "singular-values-above", "approx-rank-at-most", "rank-at-most"):
        for o in claim.obligations(point).verify:
            if o.judgment["judgment"] == name:
                assert not first_discharging(other, o), name
    # a raised tolerance: rank_eps <= 6 at a larger eps says nothing at eps = 1/5
    upper = needed(claim, point, "approx-rank-at-most", epsilon="1/5")
    assert discharges(upper, upper) and not discharges({**upper, "epsilon": "1/4"}, upper)
    assert not discharges({**upper, "bound": upper["bound"] + 1}, upper)
    # sharpness at another e^delta, or a judgment of another kind
    sharp = needed(claim, point, "residual-two-point")
    assert discharges(accepted["residual-two-point"], sharp)
    assert not discharges({**sharp, "t": 2}, sharp)
    assert not discharges({**sharp, "relation": "exceeds", "bound": "tanh(delta)"}, sharp)
    X, Y, L, Lk, R = S6.planted_instance(point)
    within = needed(claim, point, "residual-within")
    assert not discharges({"judgment": "attention-differs", "logits": digest(L), "other": digest(Lk)}, within)
    # r_tau at another tau is another judgment
    r_tau = needed(claim, point, "singular-values-above", count=2)
    assert not discharges({**r_tau, "tau": "1/4"}, r_tau)


def test_a_broken_witness_is_not_verified(monkeypatch):
    claim = ResidualError()
    monkeypatch.setattr(ResidualError, "witness", lambda self, point: S6.sharp_instance(point["t"] + 1))
    outcome = claim.check()
    assert outcome.status == "unknown" and "attains 2 tanh(delta/2)" in outcome.message  # certified, but at e^delta = 4


def test_refuses_epsilon_one():
    with pytest.raises(ParameterError, match=r"in \[1/1000000, 1\)"):  # at epsilon >= 1 the rank is 0
        ResidualError().point({"epsilon": 1})


def test_z3_decides_both_constants():
    assert smt.solve(S6.two_point_problem("2tanh(delta/2)"), 20).status == "unsat"
    assert smt.solve(S6.two_point_problem("tanh(delta)"), 20).status == "sat"  # its model re-checked exactly by smt.solve


@settings(max_examples=5)
@given(st.integers(1, 3), st.fractions(min_value=0, max_value=1, max_denominator=20), st.integers(0, 1000))
def test_verified_across_instances(d, noise, seed):
    claim = ResidualError()
    outcome = claim.check(claim.point({"n": 6, "N": 5, "d": d, "noise": str(noise), "seed": seed}))
    assert outcome.status == "verified", outcome.message
    assert outcome.facts["instance"]["r_tau"] <= d  # ||E||_2 <= tau certified, so Weyl bounds r_tau by rank L_k


# ----------------------------------------------------------- tanh(delta)


def test_tanh_is_refuted_by_its_certified_counterexample():
    claim = ResidualErrorTanh()
    point = claim.point()
    outcome = claim.check(point)
    assert outcome.status == "refuted" == claim.expected
    assert outcome.counterexample["distance"] > outcome.counterexample["tanh(delta)"]
    obligations = claim.obligations(point)
    assert not obligations.verify and len(obligations.refute) == 1
    assert first_discharging(judgments(outcome), obligations.refute[0]) == "residual-two-point"
    [cert] = outcome.certificates
    cert["data"]["bound"] = "2tanh(delta/2)"  # the true constant is not exceeded
    with pytest.raises(certificates.CertificateError):
        trusted.check(cert)


def test_tanh_forgeries_do_not_refute():
    claim = ResidualErrorTanh()
    refute = claim.obligations(claim.point()).refute[0].judgment
    # the same counterexample at another e^delta, and the sharp constant "attained", refute nothing here
    other = ResidualErrorTanh().check(claim.point({"t": 2}))
    assert other.status == "refuted" and not discharges(judgments(other)[0][1], refute)
    attains = trusted.check(claim.certificate("residual-two-point", claim.point(),
                                              {**S6.sharp_instance(Fraction(3)), "bound": "2tanh(delta/2)", "relation": "attains"}))
    assert not discharges(attains.judgment, refute)


def test_tanh_without_z3_uses_the_closed_form(monkeypatch):
    monkeypatch.setattr(S6.smt, "solve", lambda *a, **k: smt.SmtResult("unknown", None, "stubbed", 0.0))
    outcome = ResidualErrorTanh().check()
    assert outcome.status == "refuted"
    assert outcome.counterexample["row"] == [Fraction(1, 4), Fraction(3, 4)] and outcome.counterexample["distance"] == 1


def test_tanh_with_a_broken_witness_is_not_refuted(monkeypatch):
    monkeypatch.setattr(S6.smt, "solve", lambda *a, **k: smt.SmtResult("unknown", None, "stubbed", 0.0))
    monkeypatch.setattr(S6, "sharp_instance", lambda t: {"t": t, "row": [Fraction(1, 2)] * 2, "weights": [Fraction(1)] * 2})
    outcome = ResidualErrorTanh().check()
    assert outcome.status == "unknown"  # the checker rejects a perturbation that moves nothing
