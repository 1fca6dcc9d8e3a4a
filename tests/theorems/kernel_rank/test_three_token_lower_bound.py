from fractions import Fraction

import pytest

from solvers import trusted
from solvers.certificates import CertificateError
from solvers.trusted.core import discharges
from theorems.core import first_discharging, rung
from theorems.kernel_rank.three_token_lower_bound import ThreeTokenLowerBound


@pytest.fixture(scope="module")
def outcome():
    claim = ThreeTokenLowerBound()
    return claim.check(claim.point())


def judgments(outcome):
    return [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]


def test_verified_for_every_m_with_witnesses_and_a_six_row_certificate(outcome):
    assert outcome.status == "verified", outcome.message
    assert outcome.obligations["reach"] == "all" and rung(outcome.status, "all") == "proved for every parameter"
    for m in (1, 2, 3):
        assert outcome.facts[f"m{m}_worst_error_unchecked"] < Fraction(1, 2)
    assert outcome.facts["m4_certificate_rows_unchecked"] == 6
    # the certificate uses two tokens of weight 2 with disjoint supports
    tokens = {t for line in outcome.facts["m4_certificate_unchecked"] for t in line.replace("q=", "").split()[3:] if set(t) <= {"0", "1"}}
    assert len(tokens) == 2 and all(t.count("1") == 2 for t in tokens)
    assert sorted(c["kind"] for c in outcome.certificates) == ["exhaustive"] * 3 + ["rank-one-infeasible"]


def test_every_obligation_is_discharged_by_its_own_kind(outcome):
    claim = ThreeTokenLowerBound()
    needed = claim.obligations(claim.point())
    assert len(needed.verify) == 4 and not needed.refute
    accepted = judgments(outcome)
    assert [first_discharging(accepted, o) for o in needed.verify] == ["exhaustive"] * 3 + ["rank-one-infeasible"]


def test_forged_judgments_do_not_discharge(outcome):
    claim = ThreeTokenLowerBound()
    needed = claim.obligations(claim.point()).verify
    refutation = next(j for k, j in judgments(outcome) if k == "rank-one-infeasible")
    solved = next(j for k, j in judgments(outcome) if k == "exhaustive" and j["m"] == [3, 3])
    assert not discharges(refutation | {"m": [5, None]}, needed[-1].judgment)  # m relabelled: misses m = 4
    assert not discharges(refutation | {"model": "kernel-positional"}, needed[-1].judgment)
    assert not discharges(refutation | {"tolerance": "1/3"}, needed[-1].judgment)  # fails by 1/3 only
    assert not discharges(solved | {"tolerance": 1}, needed[2].judgment)  # error < 1 is not error < 1/2
    assert not discharges(solved | {"rank": 2}, needed[2].judgment)
    assert not discharges(solved | {"m": [4, 4]}, needed[2].judgment)  # a witness of another m


def test_tampered_certificates_are_rejected(outcome):
    refutation = next(c for c in outcome.certificates if c["kind"] == "rank-one-infeasible")
    trusted.check(refutation)
    bad = {**refutation, "data": {**refutation["data"], "rows": refutation["data"]["rows"][1:]}}
    with pytest.raises(CertificateError):
        trusted.check(bad)
    witness = next(c for c in outcome.certificates if c["kind"] == "exhaustive" and c["data"]["m"] == 3)
    U = [row[:] for row in witness["data"]["readout"]]
    U[7][7] = "100"
    with pytest.raises(CertificateError, match="error"):
        trusted.check({**witness, "data": {**witness["data"], "readout": U}})


class _PerturbedPsi(ThreeTokenLowerBound):
    """psi of weight-one tokens multiplied by 50: the head errs."""

    def witness(self, point):
        out = super().witness(point)
        for m, (psi, U) in out.items():
            for key in psi:
                if bin(key[1]).count("1") == 1:
                    psi[key] *= 50
        return out


class _PerturbedU(ThreeTokenLowerBound):
    def witness(self, point):
        out = super().witness(point)
        for m, (psi, U) in out.items():
            U[0, 1, 1] += 1
        return out


@pytest.mark.parametrize("broken", [_PerturbedPsi, _PerturbedU])
def test_a_broken_witness_is_not_verified(broken):
    claim = broken()
    result = claim.check(claim.point())
    assert result.status == "unknown"
    assert "rejected the exhaustive certificate" in result.message


def test_a_smaller_feasible_range_reaches_less():
    claim = ThreeTokenLowerBound()
    needed = claim.obligations(claim.point({"m_feasible": 2}))
    assert len(needed.verify) == 3 and needed.reach.startswith("m <= 2")
