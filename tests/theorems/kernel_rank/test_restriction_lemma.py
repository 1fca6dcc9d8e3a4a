import pytest

from solvers import trusted
from solvers.certificates import CertificateError
from theorems.kernel_rank import restriction_lemma as rl


def test_verified_up_to_m_max():
    claim = rl.RestrictionLemma()
    outcome = claim.check(claim.point({"m_max": 9}))
    assert outcome.status == "verified", outcome.message
    assert len(outcome.certificates) == 6
    assert all(len(c["data"]["rows"][0][2][0]) == c["data"]["m"] for c in outcome.certificates)


def test_tokens_that_overlap_break_the_certificate():
    claim = rl.RestrictionLemma()
    outcome = claim.check(claim.point({"m_max": 5}))
    cert = outcome.certificates[-1]
    assert cert["data"]["m"] == 5
    # 11000 -> 11100: now <a,b> = 1 and |b - a| = 1, and the combination no longer cancels
    rows = [[s, y, ["11100" if t == "11000" else t for t in seq]] for s, y, seq in cert["data"]["rows"]]
    with pytest.raises(CertificateError):
        trusted.check({**cert, "data": {**cert["data"], "rows": rows}}, claim.statement_hash())


class _Broken(rl.RestrictionLemma):
    def witness(self, point):
        rows, nonneg = super().witness(point)
        return [[s, y * (2 if i == 0 else 1), seq] for i, (s, y, seq) in enumerate(rows)], nonneg


def test_a_broken_certificate_is_refuted():
    claim = _Broken()
    assert claim.check(claim.point({"m_max": 5})).status == "refuted"
