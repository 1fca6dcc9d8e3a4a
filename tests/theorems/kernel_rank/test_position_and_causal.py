from fractions import Fraction

import pytest
import sympy as sp

from solvers import trusted
from solvers.certificates import CertificateError
from theorems.kernel_rank import position_and_causal as pc

SMALL = {"n_feasible": 3, "n_paper": 5, "m_reduced": 6, "m_reduced_positions": 5, "m_reduced_4": 4}


@pytest.fixture(scope="module")
def outcome():
    claim = pc.PositionAndCausal()
    return claim.check(claim.point(SMALL))


def test_verified_with_the_threshold_at_four(outcome):
    assert outcome.status == "verified", outcome.message
    for m in (1, 2, 3):
        assert outcome.facts[f"positions_m{m}_n3_worst_error"] < Fraction(1, 2)
    assert outcome.facts["reduced_n3_feasible_m"] == [1, 2, 3]
    assert outcome.facts["reduced_n3_refuted_m"] == [4, 6]
    assert outcome.facts["reduced_n3_positions_feasible_m"] == [1, 2, 3]
    assert len(outcome.facts["reduced_n3_certificate_m4"]) == 3
    assert len(outcome.facts["paper_certificate_n3"]) == 8


def test_the_paper_certificate_for_every_n_symbolically():
    residual = pc.paper_residual()
    assert residual["psi_j(a), j >= 3"] == 0
    assert residual["psi_1(a)"] == residual["psi_2(a)"] == -1
    assert residual["psi_1(b)"] == residual["psi_2(b)"] == 1


@pytest.mark.parametrize("n", [3, 4, 7, 30])
def test_the_paper_certificate_is_accepted_at_every_length(n):
    fields, check = trusted.KINDS["rank-one-infeasible"]
    assert f"exact length {n}" in check({"m": 4, "positions": True, "rows": pc.paper_certificate(n), "nonnegative": []})


def test_the_paper_certificate_needs_disjoint_pairs():
    _, check = trusted.KINDS["rank-one-infeasible"]
    rows = [[s, y, [{"0101": "0111", "1010": "1010"}[t] for t in seq]] for s, y, seq in pc.paper_certificate(3)]
    with pytest.raises(CertificateError):
        check({"m": 4, "positions": True, "rows": rows, "nonnegative": []})


def test_tampered_positional_witness_is_rejected(outcome):
    statement = pc.PositionAndCausal().statement_hash()
    cert = next(c for c in outcome.certificates if c["kind"] == "rank-one-positional-witness" and c["data"]["m"] == 2)
    trusted.check(cert, statement)
    psi = [row[:] for row in cert["data"]["psi"]]
    psi[0] = ["0"] * len(psi[0])
    psi[1] = ["0"] * len(psi[1])  # only the query position weighs: (x1, x2, q) reads q alone
    with pytest.raises(CertificateError, match="error"):
        trusted.check({**cert, "data": {**cert["data"], "psi": psi}}, statement)


class _PerturbedU(pc.PositionAndCausal):
    def witness(self, point):
        out = super().witness(point)
        for (m, n), (psi, U) in out.items():
            q = (1 << m) - 1
            U[n, q, q] += 2
        return out


def test_a_perturbed_positional_witness_is_refuted():
    claim = _PerturbedU()
    result = claim.check(claim.point(SMALL))
    assert result.status == "refuted" and "positional-witness" in result.message


def test_an_exhausted_budget_is_unknown_with_no_certificates():
    claim = pc.PositionAndCausal()
    result = claim.check(claim.point(), budget=0.05)
    assert result.status == "unknown" and result.certificates == []


def test_the_every_prefix_reading_checks_the_prefixes(outcome):
    statement = pc.PositionAndCausal().statement_hash()
    cert = next(c for c in outcome.certificates if c["kind"] == "rank-one-positional-witness" and c["data"]["prefixes"] and c["data"]["m"] == 2)
    assert "every prefix" in trusted.check(cert, statement)
    readout = [[row[:] for row in table] for table in cert["data"]["readout"]]
    readout[0][3][3] = "100"  # the prefix (q) of length 1 reads U_1[q][q] alone
    broken = {**cert, "data": {**cert["data"], "readout": readout}}
    with pytest.raises(CertificateError, match="error"):
        trusted.check(broken, statement)
