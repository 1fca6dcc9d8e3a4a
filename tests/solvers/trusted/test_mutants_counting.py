"""The counting and decoding family: what mutation testing found untested in counting.py.

The bits a rank proves (a rank-1 matrix proves 0 bits, not 1), the exact ranges of
tokens, primes and bases with their reasons, the sequences a decoder enumerates, and
every work estimate at the edges of its guard (each expected number is the documented
formula worked out by hand).
"""

import pytest

from solvers import certificates as C
from solvers.trusted import counting
from solvers.trusted.core import CertificateError, check

PRIME = 4611686018427387847  # the largest prime below 2^62
RANK = {"m": 3, "n": 3, "prefixes": [[1, 1], [2, 2], [4, 4], [1, 2], [1, 4], [1, 6], [2, 4]],
        "queries": list(range(1, 8)), "prime": PRIME}


def run(kind, data, max_work=10**9):
    return check(C.make(kind, "test.claim", "s" * 64, {}, data), max_work=max_work)


def reason(kind, data):
    with pytest.raises(CertificateError) as error:
        run(kind, data)
    return str(error.value)


# ------------------------------------------------------------- bits from a rank


def test_ceil_log2():
    assert [counting._ceil_log2(c) for c in range(1, 10)] == [0, 1, 2, 2, 3, 3, 3, 3, 4]


@pytest.mark.parametrize("k, bits", [(1, 0), (2, 1), (3, 2), (4, 2), (5, 3)])
def test_a_rank_k_target_matrix_proves_exactly_ceil_log2_k_bits(k, bits):
    """Unit vectors at m = 5, n = 2: T(x_i, e_j) = <e_i, e_j>, the identity. A single query is allowed."""
    data = {"m": 5, "n": 2, "prefixes": [[1 << i] for i in range(k)], "queries": [1 << i for i in range(k)], "prime": 101}
    accepted = run("behaviour-rank", data)
    assert accepted.judgment == {"judgment": "bits-at-least", "channel": "two-way-cut", "target": "min-ip", "m": 5, "n": 2, "bits": bits}
    assert accepted.summary == f"m=5, n=2: the prefix x query target matrix has rank >= {k}: two-way across the cut >= {bits} bits"


# ------------------------------------------------------------- ranges and reasons


@pytest.mark.parametrize("change, why", [
    ({"queries": [1, 2, 3, 4, 5, 6, 8]}, "token=8 outside [0, 7]"),  # 2^m is not a token of {0,1}^3
    ({"queries": [1, 2, 3, 4, 5, 6, 16]}, "token=16 outside [0, 7]"),
    ({"queries": [-1, 2, 3, 4, 5, 6, 7]}, "token=-1 outside [0, 7]"),
    ({"prime": 2**62}, "a prime must lie in [2, 2^62); got one of 63 bits"),
    ({"prime": 1}, "a prime must lie in [2, 2^62); got one of 1 bits"),
    ({"prime": "7"}, "a prime must be an integer"),
    ({"prime": True}, "a prime must be an integer"),
    ({"prefixes": [[0, 1]] + RANK["prefixes"][1:]}, f"the 7 x 7 matrix of targets is singular modulo {PRIME}"),
])
def test_behaviour_rank_reasons(change, why):
    assert reason("behaviour-rank", RANK | change) == why


def test_the_token_zero_is_a_token():
    """t = 0 against Q = 1 at m = 1: <0, 1> = 0 on the diagonal only."""
    accepted = run("fooling-family", {"m": 1, "queries": [1], "tokens": [0], "n_max": 2})
    assert accepted.judgment == {"judgment": "behaviours-at-least-power", "target": "min-ip", "m": 1, "lengths": [2, 2]}


@pytest.mark.parametrize("base, why", [
    (2**63, "h differs: 9223372036854775809/2 vs 9223372036854775808"),  # 64 bits: read, then checked
    (2**64, "the base has more than 64 bits"),
    (1, "base=1 outside [2, None]"),
    ("3", "base must be an integer"),
])
def test_bases_are_read_up_to_64_bits(base, why):
    assert reason("decoding-collision", {"m": 1, "base": base, "max_length": 3, "sequences": [[0, 1], [1, 1]]}) == why


# ------------------------------------------------------------- what a decoder enumerates


@pytest.mark.parametrize("base, lengths, classes", [(5, [1, 2, 3], 52), (2, [1, 2], 16), (3, [2], 16)])
def test_base_decoding_groups_every_sequence_of_exactly_the_lengths(base, lengths, classes):
    """The number of (q, h) values seen counts the context multisets of exactly these lengths."""
    accepted = run("base-decoding", {"m": 2, "base": base, "lengths": lengths})
    assert accepted.judgment == {"judgment": "decodes", "target": "min-ip", "values": {"power": base}, "m": 2, "lengths": lengths}
    assert accepted.summary == f"values {base}^x, m=2: (q, h) determines T on every sequence of lengths {lengths} ({classes} values of (q, h))"


def test_surd_decoding_counts_its_values():
    accepted = run("surd-decoding", {"m": 1, "primes": [2, 3], "max_length": 3, "precision": 64})
    assert accepted.judgment == {"judgment": "decodes", "target": "min-ip", "values": {"sqrt": [2, 3]}, "m": 1, "lengths": [1, 2, 3]}
    assert accepted.summary == ("values sqrt(p_x), p = [2, 3], m=1: (q, h) determines T on every sequence "
                                "of length 1..3 (8 values of h, all separated)")


def test_count_sequences():
    # 2^m queries times C(n - 2 + 2^m, n - 1) context multisets, per length
    assert counting._count_sequences(1, [1, 2, 3]) == 2 * (1 + 2 + 3)
    assert counting._count_sequences(2, [2, 4]) == 4 * (4 + 20)
    assert counting._count_sequences(3, [1]) == 8


# ------------------------------------------------------------- work estimates


def test_size_readers():
    assert [counting._len(v) for v in (None, "ab", [1])] == [0, 0, 1]
    assert [counting._int(v) for v in (3, True, "4", None, 2.5)] == [3, 0, 0, 0, 0]
    assert counting._int("x", 7) == 7 and counting._int(False, 7) == 7


def test_prefix_behaviours_estimate():
    # 4^m (1 + the counts but the last), for 1 <= m <= 6; otherwise 0 (the kind rejects m)
    values = [counting._behaviours_work({"m": m, "counts": [10, 20, 30]}) for m in (0, 1, 2, 5, 6, 7)]
    assert values == [0, 4 * 31, 16 * 31, 1024 * 31, 4096 * 31, 0]
    assert counting._behaviours_work({"m": 2, "counts": 5}) == 0


def test_fooling_family_estimate():
    # M^2 + n_max (1 + (M + 5 n_max) // 64) for 0 <= n_max <= M + 1; otherwise 0
    M10 = [counting._fooling_work({"queries": [1] * 10, "n_max": n}) for n in (-1, 0, 1, 7, 11, 12)]
    assert M10 == [0, 100, 101, 107, 100 + 11 * 2, 0]
    assert counting._fooling_work({"queries": [1] * 14, "n_max": 10}) == 196 + 10 * 2  # (14 + 50) // 64 = 1
    assert counting._fooling_work({"queries": [1] * 100, "n_max": 90}) == 10000 + 90 * 9
    assert counting._fooling_work({"queries": [1] * 3, "n_max": "x"}) == 9


def test_behaviour_rank_estimate():
    assert counting._rank_work({"queries": [1] * 3, "n": 5}) == 27 + 9 * 5
    assert counting._rank_work({"queries": [1] * 4, "n": 7}) == 64 + 16 * 7


@pytest.mark.parametrize("m, L, precision, expected", [
    (1, 3, 100, 12 * 2 * (3 + 1 + 1)),  # sequences of lengths 1..L, times 2^m, times (L + 1 + precision // 64)
    (8, 2, 64, 65792 * 256 * 4),
    (2, 1, 130, 4 * 4 * 4),
    (2, 64, 0, 797139200),
    (3, 4, "x", 8 * (1 + 8 + 36 + 120) * 8 * 5),
    (0, 3, 0, 0), (9, 2, 64, 0), (2, 0, 0, 0), (2, 65, 0, 0),  # outside 1 <= m <= 8, 1 <= L <= 64: 0
])
def test_surd_decoding_estimate(m, L, precision, expected):
    assert counting._surd_work({"m": m, "max_length": L, "precision": precision}) == expected


def test_power_size():
    # machine words of B^(2^m - 1): 1 + 2^m bits(B) // 64
    assert [counting._power_size(m, b) for m, b in ((1, 3), (3, 2**40), (6, 2**63), (2, "x"))] == [1, 6, 65, 1]


@pytest.mark.parametrize("m, base, lengths, expected", [
    (1, 3, [1, 3], 26),  # sequences 2 * (1 + 3) = 8, times max length 3, times 1 word, plus 2^m words
    (8, 3, [2], 1181952),
    (2, 2**70, [2, 5], 3920),
    (2, 3, [1] * 64, 260),
    (2, 3, [64], 11714564),
    (2, "b", [3], 124),
    (0, 3, [1], 0), (9, 3, [2], 0), (2, 3, [], 0), (2, 3, [1] * 65, 0), (2, 3, [65], 0), (2, 3, [0], 0), (2, 3, "x", 0),
])
def test_base_decoding_estimate(m, base, lengths, expected):
    assert counting._base_work({"m": m, "base": base, "lengths": lengths}) == expected


@pytest.mark.parametrize("m, base, sequences, expected", [
    (1, 3, [[1, 2], [3]], 3),  # tokens listed, times the words of B^(2^m - 1)
    (8, 2**60, [[1] * 5, [1]], 6 * 245),
    (2, 3, [None, [1, 2]], 2),
    (0, 3, [[1]], 0), (9, 3, [[1]], 0), (2, 3, "x", 0),
])
def test_decoding_collision_estimate(m, base, sequences, expected):
    assert counting._collision_work({"m": m, "base": base, "sequences": sequences}) == expected
