import copy

import pytest

from solvers import certificates as C
from solvers import trusted
from theorems.kernel_rank.rational_decoding_collision import RationalDecodingCollision, collisions


def test_refuted_with_the_smallest_collision():
    claim = RationalDecodingCollision()
    outcome = claim.check(claim.point({"L_max": 5, "m_max": 3}))
    assert outcome.status == "refuted" and outcome.as_expected
    smallest = outcome.facts["smallest_collision"]
    assert (smallest["L"], smallest["m"], smallest["base"]) == (4, 2, 5)
    assert smallest["as_integers"] == [[1, 3, 1], [2, 2, 3, 1]]
    assert smallest["targets"] == [1, 0]
    assert {"L": 3, "m": 3} in outcome.covered["searched_without_collision"]
    assert outcome.counterexample["base"] == 5


def test_no_collision_below_l_4():
    assert all(not collisions(m, L, L + 1) for L in (1, 2, 3) for m in (1, 2, 3))


def test_the_checker_rejects_a_non_collision():
    claim = RationalDecodingCollision()
    cert = copy.deepcopy(claim.check(claim.point({"L_max": 4, "m_max": 2})).certificates[0])
    assert "share q" in trusted.check(cert)
    tampered = copy.deepcopy(cert)
    tampered["data"]["sequences"][1] = [2, 2, 3, 3]  # another query
    with pytest.raises(C.CertificateError, match="same query"):
        trusted.check(tampered)
    tampered = copy.deepcopy(cert)
    tampered["data"]["base"] = 6
    with pytest.raises(C.CertificateError, match="h differs"):
        trusted.check(tampered)
    tampered = copy.deepcopy(cert)
    tampered["data"]["sequences"] = [[1, 3, 1], [1, 1, 3, 3, 1, 1]]
    with pytest.raises(C.CertificateError):
        trusted.check(tampered)
