"""The open conjecture: H rank-one heads solve exact length H+1 for every m."""

import copy
from fractions import Fraction

import pytest

from solvers import certificates as C
from solvers import trusted
from theorems import attention as att
from theorems.conjectures.multi_head_length import MultiHeadLength
from theorems.core import ParameterError, first_discharging
from theorems.kernel_rank import multi_head as mh
from theorems.kernel_rank.multi_head import MultiHead


def accepted(certs):
    """(kind, judgment) of every certificate, re-checked from its data."""
    return [(c["kind"], trusted.check(c).judgment) for c in certs]


@pytest.fixture(scope="module")
def outcome():
    return MultiHeadLength().check()


def test_open_with_every_witness_obligation_discharged(outcome):
    claim = MultiHeadLength()
    assert outcome.status == "unknown" == claim.expected
    assert "open" in outcome.message
    needed = claim.obligations(claim.point())
    assert outcome.obligations == needed.to_json() and needed.reach == "m <= 4, length 3"
    assert len(needed.verify) == len(needed.refute) == 4
    assert [c["kind"] for c in outcome.certificates] == ["multi-head-exhaustive"] * 4  # kept although unknown
    judgments = accepted(outcome.certificates)
    for o in needed.verify:
        assert first_discharging(judgments, o), o.words
    assert not any(first_discharging(judgments, o) for o in needed.refute)
    assert outcome.facts["largest_m_with_witness"] == 4
    assert all(e < Fraction(1, 2) for e in outcome.facts["worst_errors_unchecked"].values())


def test_each_witness_proves_its_own_m_only(outcome):
    needed = MultiHeadLength().obligations(MultiHeadLength().point()).verify
    for i, cert in enumerate(outcome.certificates):
        one = accepted([cert])
        assert [bool(first_discharging(one, o)) for o in needed] == [j == i for j in range(4)]
    # a witness at a raised tolerance is refused: above 1/2 an error bound solves nothing
    loose = copy.deepcopy(outcome.certificates[-1])
    loose["data"]["tolerance"] = 1
    with pytest.raises(trusted.CertificateError, match="1/2"):
        accepted([loose])


def test_the_one_head_refutation_does_not_refute_two_heads():
    claim = MultiHeadLength()
    a, b = mh.token("0101"), mh.token("1010")
    boxes = [(a, [[a, b], [a, b]], [], 1), (b, [[a, b], [a, b]], [], 1)]
    ys = mh.box_refutation(1, boxes)
    box = MultiHead().certificate("box-refutation", {}, {"m": 4, "heads": 1, "length": 3, "boxes": [
        [y, 1, att.bits(q, 4), [[att.bits(u, 4), att.bits(v, 4)] for u, v in corners], []] for y, (q, corners, _, _) in zip(ys, boxes)]})
    judgments = accepted([box])
    assert judgments[0][1]["judgment"] == "unsolvable"
    # no H = 1 head solves length 3 at m >= 4; that says nothing about two heads ...
    assert not any(first_discharging(judgments, o) for o in claim.obligations(claim.point()).refute)
    # ... and, for H = 1, it is about length 3, not the conjectured length 2
    assert not any(first_discharging(judgments, o) for o in claim.obligations(claim.point({"H": 1})).refute)


def test_one_head_is_uniform_attention_at_length_two():
    claim = MultiHeadLength()
    point = claim.point({"H": 1, "m_max": 3})
    out = claim.check(point)
    assert out.status == "unknown"
    assert out.facts["largest_m_with_witness"] == 3 and out.facts["length"] == 2
    judgments = accepted(out.certificates)
    assert all(first_discharging(judgments, o) for o in claim.obligations(point).verify)


def test_beyond_the_stored_witnesses_a_search_is_required():
    with pytest.raises(ParameterError, match="m_max"):
        MultiHeadLength().point({"m_max": 5})


class _Broken(MultiHeadLength):
    """Both heads uniform: that is one rank-one head, which fails length 3 at m = 4."""

    def witness(self, point, m=None):
        m = point["m_max"] if m is None else m
        return [[Fraction(1)] * (1 << m)] * 2


def test_a_broken_witness_leaves_its_obligation_undischarged():
    claim = _Broken()
    point = claim.point({"m_max": 4})
    out = claim.check(point)
    assert out.status == "unknown"
    assert out.message.startswith("not established") and "no readout" in out.message
    assert out.facts["largest_m_with_witness"] < 4
    assert not first_discharging(accepted(out.certificates), claim.obligations(point).verify[-1])


def test_a_tampered_witness_certificate_is_rejected(outcome):
    cert = copy.deepcopy(outcome.certificates[1])
    cert["data"]["heads"][0]["readout"][3][0] = "1000"
    with pytest.raises(C.CertificateError):
        trusted.check(cert)


class _SearchFromScratch(MultiHeadLength):
    """No stored witness at m = 2: the float search must find one, rationalised and certified."""

    def witness(self, point, m=None):
        m = point["m_max"] if m is None else m
        return None if m == 2 else super().witness(point, m)


def test_a_searched_witness_is_rationalised_and_certified():
    claim = _SearchFromScratch()
    point = claim.point({"m_max": 2, "search_rounds": 2})
    out = claim.check(point)
    assert out.status == "unknown"
    assert out.facts["largest_m_with_witness"] == 2
    assert "search" in out.facts["search_m2_unchecked"]
    assert len(out.certificates) == 2
    judgments = accepted(out.certificates)
    assert all(first_discharging(judgments, o) for o in claim.obligations(point).verify)


def test_editing_a_stored_witness_changes_the_statement_and_marks_the_sentence_stale(monkeypatch):
    """The statement names the stored witnesses' digest (psi tables at m = 4, H = 1 and 2): a witness edited
    without the sentence changes the statement's hash (outcomes made before are stale) and the report says the
    sentence was written for other heads (issue 24, as for softmax_temperature_length)."""
    from theorems.conjectures import multi_head_length as module
    from theorems.core import get
    from theorems.report.model import sentence_written_for_another

    claim = get("conjectures.multi_head_length")
    assert claim.head_digest() == module.SENTENCE_HEAD == claim.sentence_head
    assert claim.head_digest() in claim.statement().render() and sentence_written_for_another(claim) == ""
    before = claim.statement_hash()
    edited = (mh.TWO_HEADS_M4[0], mh.TWO_HEADS_M4[1][:-1] + (Fraction(1, 10),))  # one psi value of head 2
    monkeypatch.setattr(mh, "TWO_HEADS_M4", edited)
    monkeypatch.delitem(claim.__dict__, "_statement_hash", raising=False)  # the hash is cached per claim
    after = claim.statement_hash()
    monkeypatch.delitem(claim.__dict__, "_statement_hash")  # and not left cached for the tests after this one
    assert after != before
    assert "written for the head" in sentence_written_for_another(claim)


def test_three_heads_at_length_four_from_two_heads_of_k4():
    """H = 3 (length 4 = H + 1): K4's two heads at length 4 = 2 + 2 and a uniform third head, certified per m."""
    claim = MultiHeadLength()
    point = claim.point({"H": 3, "m_max": 3})
    out = claim.check(point)
    assert out.status == "unknown" and out.facts["largest_m_with_witness"] == 3, out.message
    needed = claim.obligations(point)
    assert [o.judgment["model"] for o in needed.verify] == ["kernel-heads-3"] * 3
    assert all(o.judgment["lengths"] == [4] for o in needed.verify)
    judgments = accepted(out.certificates)
    assert all(first_discharging(judgments, o) for o in needed.verify)
    assert not any(first_discharging(judgments, o) for o in needed.refute)
    assert [len(c["data"]["heads"]) for c in out.certificates] == [3, 3, 3]
    assert claim.witness(point, 3)[:2] == mh.two_heads_length_4(3)
    # a third head claimed where the certificate has two: rejected as a forgery of the model, never discharging
    forged = copy.deepcopy(out.certificates[-1])
    forged["data"]["heads"] = forged["data"]["heads"][:2]
    two = accepted([forged]) if _accepts(forged) else []
    assert not any(first_discharging(two, o) for o in needed.verify)


def _accepts(cert) -> bool:
    try:
        trusted.check(cert)
        return True
    except trusted.CertificateError:
        return False
