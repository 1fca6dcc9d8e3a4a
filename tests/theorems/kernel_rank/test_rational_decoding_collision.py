import copy

import pytest

from solvers import certificates as C
from solvers import trusted
from theorems.core import first_discharging
from theorems.kernel_rank import rational_decoding_collision as rdc
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


def test_the_refutation_is_the_certified_collision_at_the_point():
    claim = RationalDecodingCollision()
    point = claim.point({"L_max": 5, "m_max": 3})
    outcome = claim.check(point)
    needed = claim.obligations(point)
    judgments = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    refuted_by = [o for o in needed.refute if first_discharging(judgments, o)]
    assert [o.judgment for o in refuted_by] == [
        {"judgment": "no-decoder", "target": "min-ip", "values": {"power": 5}, "m": 2, "max_length": 4}]
    # every (L, m) searched before it is certified collision-free
    decoded = [o for o in needed.verify if first_discharging(judgments, o)]
    assert [(o.judgment["values"]["power"] - 1, o.judgment["m"]) for o in decoded] == [
        (L, m) for L in (1, 2, 3) for m in (1, 2, 3)] + [(4, 1)]
    assert outcome.obligations == needed.to_json()


def test_below_l_4_it_is_verified_up_to_the_searched_sizes():
    claim = RationalDecodingCollision()
    outcome = claim.check(claim.point({"L_max": 3, "m_max": 3}))
    assert outcome.status == "verified" and outcome.obligations["reach"] == "L <= 3, m <= 3"


def test_a_collision_of_another_base_does_not_refute():
    claim = RationalDecodingCollision()
    judgment = trusted.check(claim.check(claim.point({"L_max": 4, "m_max": 2})).certificates[-1]).judgment
    needed = claim.obligations(claim.point({"L_max": 6, "m_max": 3}))
    assert sum(bool(first_discharging([("c", judgment)], o)) for o in needed.refute) == 1
    for forged in ({"values": {"power": 6}}, {"max_length": 5}, {"m": 4}):  # base != L + 1, or m beyond m_max
        assert not any(first_discharging([("c", judgment | forged)], o) for o in needed.refute), forged


def test_a_false_collision_is_not_a_refutation(monkeypatch):
    monkeypatch.setattr(rdc, "collisions", lambda m, L, base: [((1, 3, 1), (2, 2, 3, 3))] if L == 4 else [])
    claim = RationalDecodingCollision()
    outcome = claim.check(claim.point({"L_max": 4, "m_max": 2}))
    assert outcome.status == "unknown" and "rejected the decoding-collision" in outcome.message


def test_no_collision_below_l_4():
    assert all(not collisions(m, L, L + 1) for L in (1, 2, 3) for m in (1, 2, 3))


def test_the_checker_rejects_a_non_collision():
    claim = RationalDecodingCollision()
    cert = copy.deepcopy(claim.check(claim.point({"L_max": 4, "m_max": 2})).certificates[-1])
    assert "share q" in trusted.check(cert).summary
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
