from fractions import Fraction

import pytest

from solvers import certificates as C
from solvers import trusted
from solvers.certificates import CertificateError
from solvers.trusted.core import discharges
from theorems.core import first_discharging
from theorems.kernel_rank import position_and_causal as pc

SMALL = {"n_feasible": 3, "n_paper": 5, "m_reduced": 6, "m_reduced_positions": 5, "m_reduced_4": 4}


@pytest.fixture(scope="module")
def outcome():
    claim = pc.PositionAndCausal()
    return claim.check(claim.point(SMALL))


def check(data):
    return trusted.check(C.make("rank-one-infeasible", "test", "s" * 64, {}, data))


def test_verified_with_the_threshold_at_four(outcome):
    assert outcome.status == "verified", outcome.message
    for m in (1, 2, 3):
        assert outcome.facts[f"positions_m{m}_n3_worst_error_unchecked"] < Fraction(1, 2)
    assert outcome.facts["reduced_n3_feasible_m"] == [1, 2, 3]
    assert outcome.facts["reduced_n3_refuted_m"] == [4, 6]
    assert outcome.facts["reduced_n3_positions_feasible_m"] == [1, 2, 3]
    assert len(outcome.facts["reduced_n3_certificate_m4_unchecked"]) == 3
    assert len(outcome.facts["paper_certificate_n3_unchecked"]) == 8


def test_every_obligation_is_discharged_and_the_reach_is_finite_in_n(outcome):
    claim = pc.PositionAndCausal()
    needed = claim.obligations(claim.point(SMALL))
    accepted = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    assert all(first_discharging(accepted, o) for o in needed.verify)
    assert needed.reach != "all" and "lengths 3..5" in needed.reach
    kinds = {first_discharging(accepted, o) for o in needed.verify}
    assert kinds == {"rank-one-positional-witness", "rank-one-infeasible", "exhaustive", "rank-one-reduced-infeasible"}


def test_the_feasible_side_reaches_only_the_lengths_checked():
    claim = pc.PositionAndCausal()
    at_3 = claim.obligations(claim.point(SMALL | {"n_feasible": 3}))
    at_4 = claim.obligations(claim.point(SMALL | {"n_feasible": 4}))
    lengths = lambda needed: {tuple(o.judgment["lengths"]) for o in needed.verify if o.judgment["judgment"] == "solves" and o.judgment["model"] == "kernel-positional"}  # noqa: E731
    assert lengths(at_3) == {(3,)} and lengths(at_4) == {(3,), (4,)}


def test_a_length_or_model_swap_does_not_discharge():
    claim = pc.PositionAndCausal()
    needed = claim.obligations(claim.point(SMALL)).verify
    paper_n5 = next(o for o in needed if o.judgment.get("length") == 5 and o.judgment["model"] == "kernel-positional")
    judgment = check({"m": 4, "positions": True, "rows": pc.paper_certificate(4), "nonnegative": []}).judgment
    assert not discharges(judgment, paper_n5.judgment)  # length 4 proves nothing about length 5
    judgment5 = check({"m": 4, "positions": True, "rows": pc.paper_certificate(5), "nonnegative": []}).judgment
    assert discharges(judgment5, paper_n5.judgment)
    assert not discharges(judgment5 | {"model": "kernel"}, paper_n5.judgment)


def test_the_paper_certificate_for_every_n_symbolically():
    residual = pc.paper_residual()
    assert residual["psi_j(a), j >= 3"] == 0
    assert residual["psi_1(a)"] == residual["psi_2(a)"] == -1
    assert residual["psi_1(b)"] == residual["psi_2(b)"] == 1


@pytest.mark.parametrize("n", [3, 4, 7, 30])
def test_the_paper_certificate_is_accepted_at_every_length(n):
    accepted = check({"m": 4, "positions": True, "rows": pc.paper_certificate(n), "nonnegative": []})
    assert accepted.judgment["length"] == n and accepted.judgment["m"] == [4, None]


def test_the_paper_certificate_needs_disjoint_pairs():
    rows = [[s, y, [{"0101": "0111", "1010": "1010"}[t] for t in seq]] for s, y, seq in pc.paper_certificate(3)]
    with pytest.raises(CertificateError):
        check({"m": 4, "positions": True, "rows": rows, "nonnegative": []})


def test_tampered_positional_witness_is_rejected(outcome):
    cert = next(c for c in outcome.certificates if c["kind"] == "rank-one-positional-witness" and c["data"]["m"] == 2)
    trusted.check(cert)
    psi = [row[:] for row in cert["data"]["psi"]]
    psi[0] = ["0"] * len(psi[0])
    psi[1] = ["0"] * len(psi[1])  # only the query position weighs: (x1, x2, q) reads q alone
    with pytest.raises(CertificateError, match="error"):
        trusted.check({**cert, "data": {**cert["data"], "psi": psi}})


class _PerturbedU(pc.PositionAndCausal):
    def witness(self, point):
        out = super().witness(point)
        for (m, n), (psi, U) in out.items():
            q = (1 << m) - 1
            U[n, q, q] += 2
        return out


def test_a_perturbed_positional_witness_is_not_verified():
    claim = _PerturbedU()
    result = claim.check(claim.point(SMALL))
    assert result.status == "unknown" and "positional-witness" in result.message


def test_an_exhausted_budget_is_unknown_with_no_certificates():
    claim = pc.PositionAndCausal()
    result = claim.check(claim.point(), budget=0.05)
    assert result.status == "unknown" and result.certificates == []


def test_the_every_prefix_reading_checks_the_prefixes(outcome):
    cert = next(c for c in outcome.certificates if c["kind"] == "rank-one-positional-witness" and c["data"]["prefixes"] and c["data"]["m"] == 2)
    accepted = trusted.check(cert)
    assert "every prefix" in accepted.summary and accepted.judgment["model"] == "kernel-causal"
    readout = [[row[:] for row in table] for table in cert["data"]["readout"]]
    readout[0][3][3] = "100"  # the prefix (q) of length 1 reads U_1[q][q] alone
    broken = {**cert, "data": {**cert["data"], "readout": readout}}
    with pytest.raises(CertificateError, match="error"):
        trusted.check(broken)
