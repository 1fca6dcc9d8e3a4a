import pytest

from solvers import trusted
from solvers.certificates import CertificateError
from solvers.trusted.core import discharges
from theorems.core import first_discharging
from theorems.kernel_rank import restriction_lemma as rl


def test_verified_up_to_m_max_with_every_obligation_discharged():
    claim = rl.RestrictionLemma()
    point = claim.point({"m_max": 9})
    outcome = claim.check(point)
    assert outcome.status == "verified", outcome.message
    assert len(outcome.certificates) == 6
    assert all(len(c["data"]["rows"][0][2][0]) == c["data"]["m"] for c in outcome.certificates)
    needed = claim.obligations(point)
    assert outcome.obligations["reach"] == needed.reach != "all"
    accepted = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    assert all(first_discharging(accepted, o) for o in needed.verify) and len(needed.verify) == 6


def test_a_judgment_of_another_length_tolerance_or_m_does_not_discharge():
    claim = rl.RestrictionLemma()
    wanted = claim.obligations(claim.point({"m_max": 5})).verify[-1].judgment  # m' = 5
    good = {"judgment": "unsolvable", "model": "kernel", "rank": 1, "m": [5, None], "length": 3,
            "target": "min-ip", "tolerance": "1/2"}
    assert discharges(good, wanted)
    assert not discharges(good | {"m": [6, None]}, wanted)
    assert not discharges(good | {"length": 4}, wanted)
    assert not discharges(good | {"tolerance": "1/4"}, wanted)


def test_tokens_that_overlap_break_the_certificate():
    claim = rl.RestrictionLemma()
    outcome = claim.check(claim.point({"m_max": 5}))
    cert = outcome.certificates[-1]
    assert cert["data"]["m"] == 5
    # 11000 -> 11100: now <a,b> = 1 and |b - a| = 1, and the combination no longer cancels
    rows = [[s, y, ["11100" if t == "11000" else t for t in seq]] for s, y, seq in cert["data"]["rows"]]
    with pytest.raises(CertificateError):
        trusted.check({**cert, "data": {**cert["data"], "rows": rows}})


def test_the_padded_certificate_is_read_at_its_own_m():
    claim = rl.RestrictionLemma()
    cert = claim.check(claim.point({"m_max": 5})).certificates[-1]
    with pytest.raises(CertificateError, match="length 6"):  # m relabelled, tokens still 5 bits
        trusted.check({**cert, "data": {**cert["data"], "m": 6}})


class _Broken(rl.RestrictionLemma):
    def witness(self, point):
        rows, nonneg = super().witness(point)
        return [[s, y * (2 if i == 0 else 1), seq] for i, (s, y, seq) in enumerate(rows)], nonneg


def test_a_broken_certificate_is_not_verified():
    claim = _Broken()
    outcome = claim.check(claim.point({"m_max": 5}))
    assert outcome.status == "unknown" and "rejected" in outcome.message
