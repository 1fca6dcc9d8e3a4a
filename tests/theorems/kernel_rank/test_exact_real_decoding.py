import copy

import pytest
from hypothesis import given, strategies as st

from solvers import certificates as C
from solvers import radicals, trusted
from theorems import attention as att
from theorems.kernel_rank import exact_real_decoding as k8
from theorems.kernel_rank.exact_real_decoding import ExactRealDecoding

SMALL = {"m": 2, "L": 4, "m_rational": 2, "n_max": 3, "L_rational": 3, "precision": 128}


def envelope(kind, data):
    return C.make(kind, "test.claim", "s" * 64, {}, data)


def test_verified_and_the_premise_is_shown():
    claim = ExactRealDecoding()
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "verified", outcome.message
    assert "cited, not checked" in outcome.facts["premise"]
    assert outcome.facts["values"]["11"] == "sqrt(7)"
    kinds = [c["kind"] for c in outcome.certificates]
    assert kinds == ["surd-decoding"] + ["base-decoding"] * 4


@given(st.lists(st.integers(0, 7), min_size=1, max_size=9))
def test_the_square_root_decoder_reads_t_at_any_length(seq):
    field = radicals.Multiquadratic(radicals.first_primes(8))
    assert k8.surd_decoder(seq[-1], k8.surd_output(field, seq)) == att.min_ip_target(seq)


@given(st.integers(1, 5), st.data())
def test_the_base_decoder_at_all_lengths_up_to_l(L, data):
    seq = data.draw(st.lists(st.integers(0, 7), min_size=1, max_size=L))
    B = 2 * L * L + 1
    assert k8.base_decoder(seq[-1], k8.base_output(B, seq), B, range(1, L + 1)) == att.min_ip_target(seq)


class _RepeatedPrime(ExactRealDecoding):
    def witness(self, point):
        primes = radicals.first_primes(1 << point["m"])
        primes[1] = primes[2]
        field = object.__new__(radicals.Multiquadratic)
        field.primes = tuple(primes)  # bypass the constructor's own check: the claim must catch it
        return field


def test_a_repeated_prime_is_refuted():
    claim = _RepeatedPrime()
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "refuted"


def test_the_field_refuses_a_repeated_prime():
    with pytest.raises(ValueError, match="distinct"):
        radicals.Multiquadratic([2, 3, 3, 5])


def test_the_checker_rejects_a_repeated_prime_and_a_composite():
    data = {"m": 2, "primes": [2, 3, 5, 7], "max_length": 4, "precision": 128}
    assert "separated" in trusted.check(envelope("surd-decoding", data))
    with pytest.raises(C.CertificateError, match="distinct"):
        trusted.check(envelope("surd-decoding", data | {"primes": [2, 3, 3, 7]}))
    with pytest.raises(C.CertificateError, match="prime"):
        trusted.check(envelope("surd-decoding", data | {"primes": [2, 3, 4, 7]}))


def test_the_checker_rejects_a_base_that_collides():
    ok = {"m": 2, "base": 4, "lengths": [3]}
    assert "determines T" in trusted.check(envelope("base-decoding", ok))
    with pytest.raises(C.CertificateError, match="collide"):
        trusted.check(envelope("base-decoding", {"m": 2, "base": 2, "lengths": [4]}))  # 1 + 1 + 4 + 2 = 2 + 2 + 2 + 2
    with pytest.raises(C.CertificateError, match="collide"):
        trusted.check(envelope("base-decoding", {"m": 2, "base": 5, "lengths": [1, 2, 3, 4]}))
