from fractions import Fraction

import pytest

from solvers import trusted
from solvers.certificates import CertificateError
from theorems.kernel_rank.three_token_lower_bound import ThreeTokenLowerBound


@pytest.fixture(scope="module")
def outcome():
    claim = ThreeTokenLowerBound()
    return claim.check(claim.point())


def test_verified_with_witnesses_and_a_six_row_certificate(outcome):
    assert outcome.status == "verified", outcome.message
    for m in (1, 2, 3):
        assert outcome.facts[f"m{m}_worst_error"] < Fraction(1, 2)
    assert outcome.facts["m4_certificate_rows"] == 6
    # the certificate uses two tokens of weight 2 with disjoint supports
    tokens = {t for line in outcome.facts["m4_certificate"] for t in line.replace("q=", "").split()[3:] if set(t) <= {"0", "1"}}
    assert len(tokens) == 2 and all(t.count("1") == 2 for t in tokens)
    assert sorted(c["kind"] for c in outcome.certificates) == ["exhaustive"] * 3 + ["rank-one-infeasible"]


def test_tampered_certificates_are_rejected(outcome):
    statement = ThreeTokenLowerBound().statement_hash()
    refutation = next(c for c in outcome.certificates if c["kind"] == "rank-one-infeasible")
    trusted.check(refutation, statement)
    bad = {**refutation, "data": {**refutation["data"], "rows": refutation["data"]["rows"][1:]}}
    with pytest.raises(CertificateError):
        trusted.check(bad, statement)
    witness = next(c for c in outcome.certificates if c["kind"] == "exhaustive" and c["data"]["m"] == 3)
    U = [row[:] for row in witness["data"]["readout"]]
    U[7][7] = "100"
    with pytest.raises(CertificateError, match="error"):
        trusted.check({**witness, "data": {**witness["data"], "readout": U}}, statement)


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
def test_a_broken_witness_is_refuted(broken):
    claim = broken()
    result = claim.check(claim.point())
    assert result.status == "refuted"
    assert "rejected the exhaustive certificate" in result.message
