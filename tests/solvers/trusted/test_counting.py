"""The counting and decoding family: honest certificates accepted with the documented judgment,
broken ones rejected, one semantic forgery per kind, hostile sizes refused up front."""

import json
import time
from itertools import combinations, product

import pytest

from solvers import certificates as C
from solvers.trusted import parse
from solvers.trusted.core import CertificateError, Refused, check, discharges

T = "min-ip"
M4 = [16, 71, 135, 160, 166, 167, 167]  # N(n) at m = 4, n = 2..8
PRIMES = [2, 3, 5, 7]


def run(kind, data, max_work=10**9):
    return check(C.make(kind, "test.claim", "s" * 64, {}, data), max_work=max_work)


def rejected(kind, data, match=None):
    with pytest.raises(CertificateError, match=match):
        run(kind, data)


def fooling(m):
    """Queries = k-subsets of [m], tokens = their complements (k = m // 2)."""
    full = (1 << m) - 1
    queries = [sum(1 << i for i in c) for c in combinations(range(m), m // 2)]
    return queries, [full ^ Q for Q in queries]


def rank_data():
    """m = 3, n = 3: seven prefixes of two tokens against the 7 nonzero queries (a nonsingular 7 x 7)."""
    prefixes = [[1, 1], [2, 2], [4, 4], [1, 2], [1, 4], [1, 6], [2, 4]]
    return {"m": 3, "n": 3, "prefixes": prefixes, "queries": list(range(1, 8)), "prime": 4611686018427387847}


HONEST = {
    "prefix-behaviours": {"m": 4, "counts": M4},
    "fooling-family": {"m": 6, "queries": fooling(6)[0], "tokens": fooling(6)[1], "n_max": 4},
    "behaviour-rank": rank_data(),
    "surd-decoding": {"m": 2, "primes": PRIMES, "max_length": 5, "precision": 128},
    "base-decoding": {"m": 2, "base": 19, "lengths": [1, 2, 3]},
    "decoding-collision": {"m": 2, "base": 5, "max_length": 4, "sequences": [[1, 3, 1], [2, 2, 3, 1]]},
}


# ------------------------------------------------------------- honest: the judgments


def test_prefix_behaviours_counts_exactly():
    accepted = run("prefix-behaviours", HONEST["prefix-behaviours"])
    assert accepted.judgment == {"judgment": "behaviour-counts", "target": T, "m": 4, "counts": M4, "bits": [4, 7, 8, 8, 8, 8, 8]}
    assert "N(n) = [16, 71" in accepted.summary
    assert run("prefix-behaviours", {"m": 5, "counts": [32, 317, 1407]}).judgment["bits"] == [5, 9, 11]


def test_prefix_behaviours_at_m6():
    # the third row of K9's table (THEOREMS.md's oracle N = 64, 1415, 15415): counted by the checker's own closure
    accepted = run("prefix-behaviours", {"m": 6, "counts": [64, 1415, 15415]}, max_work=2 * 10**8)
    assert accepted.judgment["counts"] == [64, 1415, 15415] and accepted.judgment["bits"] == [6, 11, 14]
    rejected("prefix-behaviours", {"m": 6, "counts": [64, 1415, 15414]}, "N\\(4\\) = 15415 at m=6")
    rejected("prefix-behaviours", {"m": 6, "counts": [64, 1416, 15415]}, "N\\(3\\) = 1415")
    rejected("prefix-behaviours", {"m": 7, "counts": [128]}, "m")  # beyond the kind's range: codes of 7 * 128 bits
    # n = 6 at m = 6 asks 4^6 (1 + 64 + 1415 + 15415 + 97530) = 4.7e8 > the default bound: refused before any work
    with pytest.raises(Refused, match="operations"):
        run("prefix-behaviours", {"m": 6, "counts": [64, 1415, 15415, 97530, 402282]}, max_work=2 * 10**8)


def test_prefix_behaviours_agree_with_every_prefix():
    # N_m(n) counted directly: the distinct functions q -> min_{x in P + (q,)} <x, q> over every prefix P
    for m in (1, 2, 3):
        counts = [len({tuple(min((x & q).bit_count() for x in P + (q,)) for q in range(1 << m))
                       for P in product(range(1 << m), repeat=n - 1)}) for n in range(2, 6)]
        assert run("prefix-behaviours", {"m": m, "counts": counts}).judgment["counts"] == counts
        rejected("prefix-behaviours", {"m": m, "counts": counts[:-1] + [counts[-1] + 1]}, "N\\(5\\)")


def test_fooling_family_up_to_its_range():
    accepted = run("fooling-family", HONEST["fooling-family"])
    assert accepted.judgment == {"judgment": "behaviours-at-least-power", "target": T, "m": 6, "lengths": [2, 4]}
    # C(20, 3) = 1140 >= 216 = 6^3, and the family reaches much further
    assert run("fooling-family", HONEST["fooling-family"] | {"n_max": 6}).judgment["lengths"] == [2, 6]


def test_behaviour_rank_gives_bits_across_the_cut():
    accepted = run("behaviour-rank", HONEST["behaviour-rank"])
    assert accepted.judgment == {"judgment": "bits-at-least", "channel": "two-way-cut", "target": T, "m": 3, "n": 3, "bits": 3}


def test_decoders_and_a_collision():
    assert run("surd-decoding", HONEST["surd-decoding"]).judgment == {
        "judgment": "decodes", "target": T, "values": {"sqrt": PRIMES}, "m": 2, "lengths": [1, 2, 3, 4, 5]}
    assert run("base-decoding", HONEST["base-decoding"]).judgment == {
        "judgment": "decodes", "target": T, "values": {"power": 19}, "m": 2, "lengths": [1, 2, 3]}
    assert run("decoding-collision", HONEST["decoding-collision"]).judgment == {
        "judgment": "no-decoder", "target": T, "values": {"power": 5}, "m": 2, "max_length": 4}


# ------------------------------------------------------------- broken: rejected


def test_broken_counts_and_families_are_rejected():
    rejected("prefix-behaviours", {"m": 4, "counts": [16, 71, 135, 161]}, "N\\(5\\) = 160")
    rejected("prefix-behaviours", {"m": 4, "counts": []}, "counts")
    queries, tokens = fooling(4)
    data = {"m": 4, "queries": queries, "tokens": tokens, "n_max": 2}
    rejected("fooling-family", data | {"tokens": queries}, "diagonal")  # <Q, Q> = k: no zero on the diagonal
    rejected("fooling-family", data | {"tokens": [tokens[0]] + tokens[:-1]}, "diagonal")  # a repeated token
    rejected("fooling-family", data | {"n_max": 3}, "<")  # C(6, 2) = 15 < 16
    rejected("fooling-family", data | {"tokens": tokens[:-1]}, "tokens")


def test_broken_rank_certificates_are_rejected():
    data = rank_data()
    rejected("behaviour-rank", data | {"prefixes": [[x, x] for x in range(1, 8)]}, "singular")  # <x, q>: rank 3
    rejected("behaviour-rank", data | {"prime": 4611686018427387849}, "not prime")
    rejected("behaviour-rank", data | {"queries": [1] * 7}, "distinct")
    rejected("behaviour-rank", data | {"prefixes": [[x] for x in range(1, 8)]}, "prefix")  # n - 1 = 2 tokens each


def test_broken_decoders_are_rejected():
    rejected("surd-decoding", HONEST["surd-decoding"] | {"primes": [2, 3, 3, 7]}, "distinct")
    rejected("surd-decoding", HONEST["surd-decoding"] | {"primes": [2, 3, 4, 7]}, "not prime")
    rejected("surd-decoding", HONEST["surd-decoding"] | {"primes": [2, 3, 5]}, "primes")
    rejected("base-decoding", {"m": 2, "base": 2, "lengths": [4]}, "collide")  # 1 + 1 + 4 + 2 = 2 + 2 + 2 + 2
    rejected("base-decoding", {"m": 2, "base": 5, "lengths": [1, 2, 3, 4]}, "collide")
    rejected("base-decoding", {"m": 2, "base": 19, "lengths": []}, "lengths")
    rejected("base-decoding", {"m": 2, "base": 19, "lengths": [3, 1]}, "increasing")
    collision = HONEST["decoding-collision"]
    rejected("decoding-collision", collision | {"sequences": [[1, 3, 1], [2, 2, 3, 3]]}, "same query")
    rejected("decoding-collision", collision | {"base": 6}, "h differs")
    rejected("decoding-collision", collision | {"sequences": [[1, 3, 1], [1, 1, 3, 3, 1, 1]]})
    rejected("decoding-collision", collision | {"max_length": 3}, "sequence")  # a sequence longer than max_length


# ------------------------------------------------------------- forgeries: a judgment binds


def test_counts_bind_m_and_the_lengths():
    judgment = run("prefix-behaviours", {"m": 4, "counts": M4[:-1]}).judgment
    wanted = {"judgment": "behaviour-counts", "target": T, "m": 4, "counts": M4, "bits": [4, 7, 8, 8, 8, 8, 8]}
    assert not discharges(judgment, wanted)  # n <= 7 does not say n = 8
    assert not discharges(judgment | {"m": 5}, wanted)
    assert discharges(run("prefix-behaviours", {"m": 4, "counts": M4}).judgment, wanted)


def test_a_fooling_range_binds_m_and_lengths():
    judgment = run("fooling-family", HONEST["fooling-family"]).judgment
    assert not discharges(judgment, judgment | {"lengths": [2, 5]})
    assert not discharges(judgment, judgment | {"m": 7})


def test_bits_follow_the_rule_at_least():
    judgment = run("behaviour-rank", rank_data()).judgment  # rank 7: 3 bits
    assert discharges(judgment, judgment | {"bits": 2})
    assert not discharges(judgment, judgment | {"bits": 4})
    assert not discharges(judgment, judgment | {"n": 4})
    assert not discharges(judgment, judgment | {"channel": "causal"})


def test_a_decoder_binds_its_values_and_lengths():
    surd = run("surd-decoding", HONEST["surd-decoding"]).judgment
    assert not discharges(surd, surd | {"values": {"sqrt": [2, 3, 5, 11]}})
    assert not discharges(surd, surd | {"lengths": [1, 2, 3, 4, 5, 6]})
    base = run("base-decoding", HONEST["base-decoding"]).judgment
    assert not discharges(base, base | {"values": {"power": 20}})
    assert not discharges(base, surd)  # a kind swap: same judgment name, other values
    collision = run("decoding-collision", HONEST["decoding-collision"]).judgment
    assert not discharges(collision, collision | {"values": {"power": 4}, "max_length": 3})
    assert not discharges(collision, collision | {"m": 3})


# ------------------------------------------------------------- hostile: refused or rejected, never a traceback


def test_primes_are_decided_only_below_2_to_the_62():
    for prime in (int("1" * 100), 10**3999 + 7, 2**62 + 135, 2**64 + 13):
        started = time.monotonic()
        rejected("behaviour-rank", rank_data() | {"prime": prime}, "2\\^62")
        rejected("surd-decoding", HONEST["surd-decoding"] | {"primes": [prime, 3, 5, 7]}, "2\\^62")
        assert time.monotonic() - started < 10  # a hang guard: 0.01 s measured (primality is never tested)


def test_a_100_digit_prime_from_a_file_is_rejected():
    cert = C.make("behaviour-rank", "test.claim", "s" * 64, {}, rank_data())
    text = json.dumps(cert).replace("4611686018427387847", "1" * 99 + "3")
    with pytest.raises(CertificateError, match="2\\^62"):
        check(parse.loads(text.encode()))


def test_hostile_sizes_are_refused_from_the_estimate():
    surd = {"m": 4, "primes": [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53], "max_length": 12, "precision": 256}
    cases = [
        ("surd-decoding", surd),
        ("surd-decoding", HONEST["surd-decoding"] | {"m": 3, "primes": [2, 3, 5, 7, 11, 13, 17, 19], "max_length": 30}),
        ("base-decoding", {"m": 8, "base": 3, "lengths": list(range(1, 65))}),
        ("prefix-behaviours", {"m": 5, "counts": [32, 10**100, 5]}),
        ("behaviour-rank", {"m": 16, "n": 3, "prefixes": [[0, 0]] * 5000, "queries": list(range(5000)), "prime": 3}),
        ("fooling-family", {"m": 20, "queries": list(range(1, 20001)), "tokens": list(range(20000)), "n_max": 2}),
    ]
    for kind, data in cases:
        started = time.monotonic()
        with pytest.raises(Refused, match="operations"):
            run(kind, data, max_work=2 * 10**8)
        assert time.monotonic() - started < 10, kind  # a hang guard: at most 0.1 s measured, loaded


HOSTILE_VALUES = [True, None, "x", "1/2", [], {}, -1, 0, 10**30, 1.5, [[1]], [True], ["0"], {"a": 1}]


@pytest.mark.parametrize("kind", sorted(HONEST))
def test_every_field_with_a_hostile_value_ends_cleanly(kind):
    """Each field replaced by each hostile value: rejected, refused, or accepted with the honest
    certificate's own judgment -- never another exception, never another judgment."""
    honest = run(kind, HONEST[kind]).judgment
    for field in HONEST[kind]:
        for value in HOSTILE_VALUES:
            started = time.monotonic()
            try:
                accepted = run(kind, HONEST[kind] | {field: value}, max_work=2 * 10**8)
            except (CertificateError, Refused):
                accepted = None
            assert time.monotonic() - started < 10, (field, value)  # a hang guard: 0.03 s measured per kind
            assert accepted is None or accepted.judgment == honest, (field, value, accepted)


def test_booleans_are_not_integers():
    rejected("prefix-behaviours", {"m": True, "counts": [2]}, "integer")
    rejected("base-decoding", {"m": 1, "base": 3, "lengths": [True]}, "integer")
    rejected("decoding-collision", HONEST["decoding-collision"] | {"sequences": [[1, 3, True], [2, 2, 3, 1]]}, "integer")
