"""The ranks family's work estimates, pinned: what mutation testing found untested in ranks.py.

Every surviving mutant of ``solvers/trusted/ranks.py`` was in a work estimate: the kinds
themselves were already pinned by ``test_ranks.py``.  An estimate decides which
certificates are REFUSED before any work is done, so its value is part of the checker's
behaviour: each expected number below is the documented formula worked out by hand.
"""

import re
from fractions import Fraction

import pytest

from solvers.trusted import core, limits, ranks
from solvers.trusted.core import CertificateError, Refused, encode

D40 = "1" + "0" * 39  # a 40-digit integer, written as text
D50 = "1" + "0" * 49


def cert(kind, data):
    return {"format": core.FORMAT, "version": core.VERSION, "kind": kind, "claim": "test.claim",
            "statement": "0" * 64, "parameters": {}, "data": encode(data)}


def work(kind, data):
    """The estimate ``check`` compares with ``--max-work``."""
    return core.KINDS[kind][1](data)


# ------------------------------------------------------------- size helpers


def test_sizes_of_malformed_values_are_zero():
    assert [ranks.length_of(v) for v in (None, "abc", [1, 2])] == [0, 0, 2]
    assert [ranks.width_of(v) for v in ([], None, [[1, 2, 3]], ["ab"])] == [0, 0, 3, 0]


def test_digits_are_read_off_the_text():
    # "12345": 5 characters; 7: 3 bits -> 1 digit; 10^40: 133 bits -> 133 * 3 // 10 + 1 = 40; a float counts 1
    assert ranks.digits_of([["12345", 7, 10**40, 1.5]]) == 40
    # at least 1, whatever the rows are (nothing to read, or not lists)
    assert [ranks.digits_of(rows) for rows in ([[1.5]], [], None, [None], ["abcdef"], 5)] == [1] * 6


def test_one_operation_costs_one_plus_the_square_of_its_hundreds_of_digits():
    assert [ranks._op(d) for d in (0, 99, 100, 250, 300)] == [1, 1, 2, 5, 10]


def test_common_denominator_digits():
    # lcm 5: 3 bits -> 1 digit; 100: 7 bits -> 3; 1024: 11 bits -> 4
    assert [ranks._common_digits([[v]]) for v in ("1/5", "1/100", "1/1024")] == [1, 3, 4]
    # the cap (in digits) stops the lcm once it has more than cap * 10 // 3 bits
    assert ranks._common_digits([["1/512"]], 3) == 4  # 10 bits: not above 10
    assert ranks._common_digits([["1/1024"]], 3) == 3  # 11 bits: capped
    assert ranks._common_digits([["1/4096"]], 5) == 4  # 13 bits, cap 16 bits
    assert ranks._common_digits(None) == 1 and ranks._common_digits([None]) == 1


def test_a_malformed_logit_is_rejected_by_the_estimate_with_its_reason():
    with pytest.raises(CertificateError) as error:
        core.check(cert("visible-dimension", {"logits": [[1, "x"]], "tau": 0, "count": 0}))
    assert str(error.value) == "entry must be an int or a string 'p/q', got 'x'"


# ------------------------------------------------------------ per kind


def test_rank_lower_estimate():
    # size 3 x 4 = 12, k = 3 rows, d = 40 digits: 12 + k^2 op((k+1) d) + k^3 = 12 + 9 * op(160) + 27
    assert work("rank-lower", {"matrix": [[D40, 1, 1, 1]] * 3, "rows": [0, 1, 2], "cols": [0]}) == 12 + 9 * 2 + 27


D250 = "1" + "0" * 249  # op(250) = 1 + 2^2 = 5


@pytest.mark.parametrize("where, expected", [("matrix", 112), ("left", 128), ("right", 144)])
def test_rank_upper_estimate_reads_each_matrix_by_its_own_longest_number(where, expected):
    data = {"matrix": [[1, 1], [1, 1]], "left": [[1], [1]], "right": [[1, 1], [1, 1], [1, 1]]}
    data[where] = [[D250] + row[1:] for row in data[where][:1]] + data[where][1:]
    # n = N = 2, k = 3 rows of G; reading 4 (size(A) op(d_A) + size(F) op(d_F)) + 2 (3 - n) size(G) op(d_G),
    # product n N k op(D), D = d_F + lcm digits of F's rows + d_G + lcm digits of G's columns (all 1 here):
    # matrix: 4 (4 * 5 + 2) + 2 * 6 + 12 * op(4)          = 88 + 12 + 12
    # left:   4 (4 + 2 * 5) + 2 * 6 + 12 * op(253) = 5    = 56 + 12 + 60
    # right:  4 (4 + 2)     + 2 * 6 * 5 + 12 * op(253)    = 24 + 60 + 60
    assert work("rank-upper", data) == expected


def test_rank_upper_estimate_counts_the_common_denominator_of_each_row_of_f():
    zeros, G = [[0, 0]] * 3, [[0, 0]] * 4  # n = 3 rows (G's reading covered by the product), N = 2, k = 4
    dyadic = [[f"1/{2**e}" for e in (200, 199, 198, 197)]] * 3
    coprime = [[f"1/{2**200}", f"1/{3**126}", f"1/{5**86}", f"1/{7**71}"]] * 3
    # every entry "1/" + 61 digits: d_F = 63; reading 4 (6 * 1 + 12 * op(63) = 1) = 72; product 3 * 2 * 4 = 24 op(D)
    # dyadic: lcm 2^200, 61 digits: D = 63 + 61 + 1 + 1 = 126, op 2
    assert work("rank-upper", {"matrix": zeros, "left": dyadic, "right": G}) == 72 + 24 * 2
    # coprime: lcm 2^200 3^126 5^86 7^71, 799 bits, 799 * 3 // 10 + 1 = 240 digits: D = 305, op 1 + 3^2 = 10
    assert work("rank-upper", {"matrix": zeros, "left": coprime, "right": G}) == 72 + 24 * 10


def test_rank_upper_estimate_counts_the_common_denominator_of_each_column_of_g():
    G = [[f"1/{2**200}", f"1/{3**126}", f"1/{5**86}", f"1/{7**71}"]]  # one row (k = 1): its lcm has 240 digits
    # each column holds one denominator, 61 digits: D = 1 + 1 + 63 + 61 = 126, op 2 (by G's row: 305, op 10)
    # reading 4 (size(A) 12 + size(F) 3), n = 3: nothing for G; product 3 * 4 * 1 * 2
    assert work("rank-upper", {"matrix": [[0] * 4] * 3, "left": [[0]] * 3, "right": G}) == 60 + 24


def test_rank_upper_estimate_charges_g_for_each_row_of_a_below_three():
    G = [["1/3", "1/5"]] * 2  # k = 2, N = 2, d_G = 3, columns' lcm 1 digit: D = 1 + 1 + 3 + 1 = 6
    for n, expected in [(1, 4 * (2 + 2) + 2 * 2 * 4 + 4), (2, 4 * (4 + 4) + 2 * 1 * 4 + 8), (3, 4 * (6 + 6) + 12), (6, 4 * (12 + 12) + 24)]:
        assert work("rank-upper", {"matrix": [[0, 0]] * n, "left": [[0, 0]] * n, "right": G}) == expected


def test_lcm_digits_reads_denominators_off_the_text():
    # lcm(1024, 3) = 3072: 12 bits -> 12 * 3 // 10 + 1 = 4; lcm(4, 8, 1024) = 1024: 11 bits -> 4; the most of the lines
    assert [limits.lcm_digits(rows) for rows in ([["1/1024", "1/3"]], [["1/4", "1/8", "1/1024"]], [["1/3"], ["1/1024", "1/3"]])] == [4, 4, 4]
    # ints, malformed entries and lines, a zero denominator: 1
    assert [limits.lcm_digits(rows) for rows in ([[5, 7]], [None, "x", ["a/b", "1/0", 3.5, "1/+3", "1/"]], [], [[]])] == [1] * 4
    assert limits.lcm_digits([["1/" + "1" * 2001]]) == 10**5  # longer than an entry may be: the cap
    assert limits.lcm_digits([["1/" + "1" * 2000]]) == 1993  # as long as may be: 6641 bits, 6641 * 3 // 10 + 1
    assert limits.lcm_digits([["1/512"]], 3) == 3 + 1  # 10 bits: not above 3 * 10 // 3
    assert limits.lcm_digits([["1/1024"]], 3) == 3  # 11 bits: capped
    assert limits.lcm_digits(zip(*[["1/3", "1/5"], ["1/7", "1/5"]])) == 2  # columns: lcm 21 (5 bits) and 5


def test_the_rank_upper_estimate_is_its_refusal_boundary():
    F, G = [["1/2", 1], [3, "-1/4"], [0, "5/8"]], [[1, "1/2", 0], ["3/4", 1, 2]]
    A = [[Fraction(F[i][0]) * Fraction(G[0][j]) + Fraction(F[i][1]) * Fraction(G[1][j]) for j in range(3)] for i in range(3)]
    data = {"matrix": A, "left": F, "right": G}
    estimate = work("rank-upper", encode(data))
    assert estimate == 4 * (9 + 6) + 3 * 3 * 2  # n = 3, digits at most 4 ("-1/4"), D = 4 + 1 + 3 + 1: op 1
    assert core.check(cert("rank-upper", data), max_work=estimate).judgment["bound"] == 2
    with pytest.raises(Refused, match=re.escape(f"rank-upper: asks for about {estimate} operations, above the limit of {estimate - 1}")):
        core.check(cert("rank-upper", data), max_work=estimate - 1)


def test_visible_dimension_estimate():
    # 2 (calibration) * (n = 3, N = 5; e = 2 (lcm 21) + 3 ("1/7") + 1 (len "5") = 6; 15 op(6) + 3^3 (3 + 6) (1 + 0) // 16)
    logits = [["1/7", 1, 3, 5, 6], [1, 2, 3, "1/3", 0], [4, 5, 5, 5, 5]]
    assert work("visible-dimension", {"logits": logits}) == 2 * (15 + 243 // 16)
    # 1/10^98: e = 98 (326 bits) + 101 (the text) + 1 = 200, where the long-number factor 1 + e // 200 becomes 2
    at_200 = [["1/1" + "0" * 98, 1, 3], [1, 2, 3]]
    assert work("visible-dimension", {"logits": at_200}) == 2 * (6 * 5 + 8 * 202 * 2 // 16)
    big = [["1/1" + "0" * 200, 1, 3], [1, 2, 3]]
    assert work("visible-dimension", {"logits": big}) == 2 * 711


def test_duality_estimate():
    # N = 3 columns, size 6, d = 40: 2^N * 6 * op((N+1) d) = 8 * 6 * op(160)
    assert work("duality", {"matrix": [[D40] * 3] * 2}) == 8 * 6 * 2
    # the column count is capped at 64 in the estimate (the kind itself refuses N > 14)
    assert work("duality", {"matrix": [[1] * 70]}) == 2**64 * 70


def test_the_estimate_is_the_refusal_boundary():
    A = [[1, 2], [3, 4]]
    data = {"matrix": A, "rows": [0, 1], "cols": [0, 1], "prime": 101}
    estimate = work("rank-lower", encode(data))
    assert estimate == 4 + 4 * 1 + 8
    assert core.check(cert("rank-lower", data), max_work=estimate).judgment["bound"] == 2
    with pytest.raises(Refused, match=re.escape("rank-lower: asks for about 16 operations, above the limit of 15")):
        core.check(cert("rank-lower", data), max_work=estimate - 1)
