"""The open conjecture: H rank-one heads solve exact length H+1 for every m."""

from fractions import Fraction

import pytest

from solvers import certificates as C
from solvers import trusted
from theorems.core import ParameterError
from theorems.conjectures.multi_head_length import MultiHeadLength


def test_open_with_certified_witnesses_up_to_m4():
    claim = MultiHeadLength()
    out = claim.check()
    assert out.status == "unknown" == claim.expected
    assert out.facts["largest_m_with_witness"] == 4
    assert all(e < Fraction(1, 2) for e in out.facts["worst_errors"].values())
    assert [c["kind"] for c in out.certificates] == ["multi-head-exhaustive"] * 4
    for cert in out.certificates:
        assert "solve lengths [3]" in trusted.check(cert, claim.statement_hash())
    assert "open" in out.message


def test_one_head_is_uniform_attention_at_length_two():
    claim = MultiHeadLength()
    out = claim.check(claim.point({"H": 1, "m_max": 3}))
    assert out.status == "unknown"
    assert out.facts["largest_m_with_witness"] == 3 and out.facts["length"] == 2


def test_beyond_the_stored_witnesses_a_search_is_required():
    with pytest.raises(ParameterError, match="m_max"):
        MultiHeadLength().point({"m_max": 5})


class _Broken(MultiHeadLength):
    """Both heads uniform: that is one rank-one head, which fails length 3 at m = 4."""

    def witness(self, point, m=None):
        m = point["m_max"] if m is None else m
        return [[Fraction(1)] * (1 << m)] * 2


def test_a_broken_witness_is_refuted_not_unknown():
    claim = _Broken()
    out = claim.check(claim.point({"m_max": 4}))
    assert out.status == "refuted"
    assert "no readout" in out.message
    assert out.facts["largest_m_with_witness"] < 4


def test_a_tampered_witness_certificate_is_rejected():
    claim = MultiHeadLength()
    out = claim.check(claim.point({"m_max": 2}))
    cert = out.certificates[-1]
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
    out = claim.check(claim.point({"m_max": 2, "search_rounds": 2}))
    assert out.status == "unknown"
    assert out.facts["largest_m_with_witness"] == 2
    assert "search" in out.facts["search_m2"]
    assert len(out.certificates) == 2
    assert "{0,1}^2" in trusted.check(out.certificates[-1], claim.statement_hash())
