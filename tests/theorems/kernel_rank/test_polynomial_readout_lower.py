import copy

import pytest
import sympy as sp

from solvers import certificates as C
from solvers import trusted
from solvers.trusted.core import discharges
from theorems.core import first_discharging
from theorems.kernel_rank import polynomial_readout_lower as k7
from theorems.kernel_rank.polynomial_readout_lower import PolynomialReadoutLower


def test_verified_with_the_planning_lambdas():
    claim = PolynomialReadoutLower()
    outcome = claim.check(claim.point({"D_max": 3, "m_small": 3}))
    assert outcome.status == "verified", outcome.message
    rho = sp.Symbol("rho", positive=True)
    assert sp.simplify(sp.sympify(outcome.facts["symbolic_lambda"]["D=2"], locals={"rho": rho}) - (3 * rho**2 + 6 * rho + 5) / 2) == 0
    assert [c["kind"] for c in outcome.certificates] == ["two-token-extrapolation"] * 3 + ["polynomial-readout-table"]
    gordan = outcome.facts["affine_gordan_m4_unchecked"]
    assert gordan["combination_is_zero"] and gordan["same_rows_as_three_token_certificate"]
    assert gordan["weights"] == [1, 2, 1, 1, 2, 1]


def test_every_obligation_is_discharged_and_forgeries_are_not():
    claim = PolynomialReadoutLower()
    point = claim.point({"D_max": 3, "m_small": 3})
    needed = claim.obligations(point)
    found = [(c["kind"], trusted.check(c).judgment) for c in claim.check(point).certificates]
    assert len(needed.verify) == 4 and all(first_discharging(found, o) for o in needed.verify)
    assert needed.reach == "D <= 3, every m >= 2^(D+1)"  # every m, but not every D
    by_degree = {j["model"]: j for kind, j in found if kind == "two-token-extrapolation"}
    # degree 1 is not degree 2; and a certificate at m = 8 for D = 1 says nothing at m = 4
    assert not discharges(by_degree["polynomial-readout-1"], needed.verify[1].judgment)
    assert not discharges(by_degree["polynomial-readout-1"] | {"m": [8, None]}, needed.verify[0].judgment)
    # the witness at m = 3 does not reach m_small = 4
    below = next(j for kind, j in found if kind == "polynomial-readout-table")
    at4 = claim.obligations(claim.point({"D_max": 3, "m_small": 4})).verify[-1]
    assert discharges(below, needed.verify[-1].judgment) and not discharges(below, at4.judgment)


@pytest.mark.parametrize("D", range(1, 7))
def test_lambda_at_one(D):
    found = k7.extrapolation_constant(D)
    assert found["at_one"] == 2 ** (D + 1) - 1
    assert found["increasing"] and found["lagrange_exact"] and found["node_differences"]


def test_a_wrong_node_is_not_verified(monkeypatch):
    honest = k7.nodes
    monkeypatch.setattr(k7, "nodes", lambda D, rho=None: [p * 2 if i == 0 else p for i, p in enumerate(honest(D, rho))])
    claim = PolynomialReadoutLower()
    outcome = claim.check(claim.point({"D_max": 2}))
    assert outcome.status == "unknown" and "not established" in outcome.message


def _certificate(D):
    claim = PolynomialReadoutLower()
    outcome = claim.check(claim.point({"D_max": D, "D_small": 1}))
    return copy.deepcopy(outcome.certificates[D - 1])


def test_the_checker_rejects_a_changed_lambda():
    cert = _certificate(2)
    cert["data"]["lambda"]["numerator"][0] = "7/2"
    with pytest.raises(C.CertificateError, match="Lambda"):
        trusted.check(cert)


def test_the_checker_rejects_tokens_too_small_for_the_degree():
    cert = _certificate(2)
    cert["data"]["query"], cert["data"]["other"] = 0b0011, 0b1100  # |q| = 2 < 2^D: Lambda(1) = 7 > 3
    with pytest.raises(C.CertificateError, match="no contradiction"):
        trusted.check(cert)


def test_the_checker_rejects_overlapping_tokens_with_one_target():
    cert = _certificate(1)
    cert["data"]["query"], cert["data"]["other"] = 0b0011, 0b0111
    with pytest.raises(C.CertificateError):
        trusted.check(cert)


def test_the_plot_crosses_one_at_rho_one():
    import json

    claim = PolynomialReadoutLower()
    record = json.loads(json.dumps(claim.check(claim.point({"D_max": 2})).to_json()))
    (plot,) = claim.plots(record)
    for label, xs, ys in plot.series[:-1]:
        assert abs(ys[xs.index(1.0)] - 1.0) < 1e-12 and list(ys) == sorted(ys)


def test_below_the_construction_rank_one_solves_at_m3():
    claim = PolynomialReadoutLower()
    outcome = claim.check(claim.point({"D_max": 1, "D_small": 2, "m_small": 3}))
    assert outcome.facts["below_the_construction"]["D=2"]["smallest_failing_m_between"] == [4, 8]  # m_small = 3
    cert = copy.deepcopy(next(c for c in outcome.certificates if c["kind"] == "polynomial-readout-table"))
    assert "degree 2" in trusted.check(cert).summary
    # a changed coefficient: the constant term of query 111 moved by 1
    row = cert["data"]["coefficients"][7]
    row[0] = C.encode(C.rational(row[0]) + 1)
    with pytest.raises(C.CertificateError, match="not < 1/2"):
        trusted.check(cert)


def test_the_table_checker_reads_the_weights():
    claim = PolynomialReadoutLower()
    outcome = claim.check(claim.point({"D_max": 1, "D_small": 2, "m_small": 3}))
    honest = next(c for c in outcome.certificates if c["kind"] == "polynomial-readout-table")
    assert honest["data"]["psi"][7] == "1/8"
    flat = copy.deepcopy(honest)
    flat["data"]["psi"] = [1] * 8  # the readout was fitted to psi = 2^-|x|
    with pytest.raises(C.CertificateError, match="not < 1/2"):
        trusted.check(flat)
    zero = copy.deepcopy(honest)
    zero["data"]["psi"][0] = 0
    with pytest.raises(C.CertificateError, match="positive"):
        trusted.check(zero)
