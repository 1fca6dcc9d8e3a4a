import pytest
from hypothesis import given, strategies as st

from solvers import radicals, trusted
from theorems import attention as att
from theorems.core import first_discharging
from theorems.kernel_rank import exact_real_decoding as k8
from theorems.kernel_rank.exact_real_decoding import ExactRealDecoding

SMALL = {"m": 2, "L": 4, "m_rational": 2, "n_max": 3, "L_rational": 3, "precision": 128}


@pytest.fixture(scope="module")
def outcome():
    claim = ExactRealDecoding()
    return claim.check(claim.point(SMALL))


def test_verified_and_the_premise_is_shown(outcome):
    assert outcome.status == "verified", outcome.message
    assert "cited, not checked" in outcome.facts["premise_cited_unchecked"]
    assert outcome.facts["values"]["11"] == "sqrt(7)"
    kinds = [c["kind"] for c in outcome.certificates]
    assert kinds == ["surd-decoding"] + ["base-decoding"] * 4


def test_every_obligation_is_discharged_and_the_reach_names_the_lengths(outcome):
    claim = ExactRealDecoding()
    needed = claim.obligations(claim.point(SMALL))
    judgments = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    assert [first_discharging(judgments, o) for o in needed.verify] == ["surd-decoding"] + ["base-decoding"] * 4
    assert needed.verify[0].judgment["values"] == {"sqrt": [2, 3, 5, 7]}
    assert needed.reach != "all" and "lengths 1..4" in needed.reach and "premise, not checked" in needed.reach
    assert outcome.obligations == needed.to_json()


def test_certificates_of_another_point_do_not_discharge(outcome):
    claim = ExactRealDecoding()
    judgments = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    for other, index in (({"L": 5}, 0), ({"m": 3}, 0), ({"L_rational": 4}, -1), ({"m_rational": 3}, 1)):
        needed = claim.obligations(claim.point(SMALL | other))
        assert first_discharging(judgments, needed.verify[index]) is None, other


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


def test_a_repeated_prime_is_not_verified():
    claim = _RepeatedPrime()
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "unknown" and "rejected the surd-decoding" in outcome.message


def test_the_field_refuses_a_repeated_prime():
    with pytest.raises(ValueError, match="distinct"):
        radicals.Multiquadratic([2, 3, 3, 5])
