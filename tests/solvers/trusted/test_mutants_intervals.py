"""The intervals family: what mutation testing found untested in intervals.py.

The range of epsilon and beta exactly (epsilon = 1 or 3/2 would let the zero matrix prove
``rank_eps <= 0``-like bounds; beta = 0 is uniform attention and legitimate), multiplicities
of at least 1 and exactly one per column, a bound of one row, the reason of each rejection,
the summary (sphere or not), and the work estimates.
"""

import re
from fractions import Fraction

import pytest

from solvers.trusted import core, intervals
from solvers.trusted.core import CertificateError, encode

EPS = Fraction(1, 10)
CROSS = [[1, 0], [0, 1], [-1, 0], [0, -1]]
L3 = [[0, -10, -10], [-10, 0, -10], [-10, -10, 0]]
LOWER = {"logits": L3, "multiplicities": [1, 1, 1], "epsilon": EPS, "rows": [0, 1, 2], "groups": [[0], [1], [2]]}
LOWER_POINTS = {"points": CROSS, "beta": 16, "multiplicities": [1] * 4, "epsilon": EPS, "rows": [0, 1, 2, 3],
                "groups": [[0], [1], [2], [3]]}
UNIFORM = {"logits": [[0, 0, 0], [5, 5, 5]], "multiplicities": [1, 1, 1], "epsilon": EPS,
           "left": [[1], [1]], "right": [["1/3", "1/3", "1/3"]]}  # every row is (1/3, 1/3, 1/3): rank one exactly
UNIFORM_POINTS = {"points": [[1, 0], [0, 1]], "beta": 0, "multiplicities": [1, 1], "epsilon": EPS,
                  "left": [[1], [1]], "right": [["1/2", "1/2"]]}
EPSILON_RANGE = "must lie in (0, 1) (for epsilon >= 1 the zero matrix is within epsilon: rank 0)"


def cert(kind, data):
    return {"format": core.FORMAT, "version": core.VERSION, "kind": kind, "claim": "test.claim",
            "statement": "0" * 64, "parameters": {}, "data": encode(data)}


def accepts(kind, data):
    return core.check(cert(kind, data))


def reason(kind, data):
    with pytest.raises(CertificateError) as error:
        core.check(cert(kind, data))
    return str(error.value)


def instance(**named):
    return core.digest(named)


# ------------------------------------------------------------- epsilon and beta


@pytest.mark.parametrize("epsilon, shown", [(1, "1"), ("3/2", "3/2"), (0, "0"), ("1" + "0" * 70 + "/3", "(a number of about 69 digits)")])
def test_epsilon_outside_zero_one_is_rejected_even_when_the_zero_matrix_fits(epsilon, shown):
    """At epsilon = 3/2, B = 0 is within epsilon of every probability row: no rank bound may come of it."""
    zero = UNIFORM | {"epsilon": epsilon, "left": [[0], [0]], "right": [[0, 0, 0]]}
    assert reason("approx-rank-upper", zero) == f"epsilon={shown} {EPSILON_RANGE}"


def test_epsilon_must_be_a_number():
    assert reason("approx-rank-upper", UNIFORM | {"epsilon": "x"}) == "epsilon must be an int or a string 'p/q', got 'x'"


def test_uniform_attention_is_rank_one():
    accepted = accepts("approx-rank-upper", UNIFORM)
    named = instance(logits=[[Fraction(v) for v in r] for r in UNIFORM["logits"]], multiplicities=[1, 1, 1])
    assert accepted.judgment == {"judgment": "approx-rank-at-most", "instance": named, "n": 2, "epsilon": "1/10", "bound": 1}
    assert accepted.summary == f"rank_eps <= 1 at eps = 1/10 on instance {named[:15]} (n = 2; B = F G, every row within eps in arb)"


@pytest.mark.parametrize("beta", [0, "1/1000"])
def test_beta_zero_and_small_beta_are_legitimate(beta):
    """beta = 0: every logit 0, the attention uniform; a small beta keeps it within 1/10 of uniform."""
    accepted = accepts("approx-rank-upper-points", UNIFORM_POINTS | {"beta": beta})
    named = instance(points=[[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]], beta=Fraction(beta), multiplicities=[1, 1])
    assert accepted.judgment == {"judgment": "approx-rank-at-most", "instance": named, "n": 2, "sphere": 2, "epsilon": "1/10", "bound": 1}
    assert accepted.summary == (f"rank_eps <= 1 at eps = 1/10 on instance {named[:15]} "
                                "(n = 2, points on S^1; B = F G, every row within eps in arb)")


# ------------------------------------------------------------- the instance and B


@pytest.mark.parametrize("kind, data, why", [
    ("approx-rank-upper-points", UNIFORM_POINTS | {"beta": "-1"}, "beta must be >= 0"),
    ("approx-rank-upper-points", UNIFORM_POINTS | {"beta": "x"}, "beta must be an int or a string 'p/q', got 'x'"),
    ("approx-rank-upper-points", UNIFORM_POINTS | {"points": [["x", 0], [0, 1]]}, "points must be an int or a string 'p/q', got 'x'"),
    ("approx-rank-upper", UNIFORM | {"logits": [["x", 0, 0], [5, 5, 5]]}, "logits must be an int or a string 'p/q', got 'x'"),
    ("approx-rank-upper", UNIFORM | {"multiplicities": [1, 1, 0]}, "multiplicity=0 outside [1, None]"),
    ("approx-rank-upper", UNIFORM | {"multiplicities": [1, 1, True]}, "multiplicity must be an integer"),
    ("approx-rank-upper", UNIFORM | {"multiplicities": [1, 1, 1, 1]}, "multiplicities has 4 entries, outside [3, 3]"),
    ("approx-rank-upper", UNIFORM | {"multiplicities": [1, 1]}, "multiplicities has 2 entries, outside [3, 3]"),
    ("approx-rank-upper", UNIFORM | {"left": [[1], [1], [1]]}, "left has 3 rows, expected 2"),
    ("approx-rank-upper", UNIFORM | {"left": [["x"], [1]]}, "left must be an int or a string 'p/q', got 'x'"),
    ("approx-rank-upper", UNIFORM | {"right": [["1/3", "1/3", "1/3"], [0, 0, 0]]}, "right has 2 rows, expected 1"),
    ("approx-rank-upper", UNIFORM | {"right": [["1/3", "1/3"]]}, "right rows must all have 3 >= 1 entries"),
    ("approx-rank-upper", UNIFORM | {"right": [["x", "1/3", "1/3"]]}, "right must be an int or a string 'p/q', got 'x'"),
])
def test_instance_and_factor_reasons(kind, data, why):
    assert reason(kind, data) == why


# ------------------------------------------------------------- grouped rows


def test_a_single_grouped_row_proves_rank_at_least_one():
    accepted = accepts("approx-rank-lower", LOWER | {"rows": [1], "groups": [[1]]})
    named = instance(logits=[[Fraction(v) for v in r] for r in L3], multiplicities=[1, 1, 1])
    assert accepted.judgment == {"judgment": "approx-rank-at-least", "instance": named, "n": 3, "epsilon": "1/10", "bound": 1}
    assert accepted.summary == f"rank_eps >= 1 at eps = 1/10 on instance {named[:15]} (n = 3; 1 grouped rows decided in arb)"


@pytest.mark.parametrize("change, why", [
    ({"rows": [0, 1, 3]}, "row=3 outside [0, 2]"),
    ({"rows": [0, 1, True]}, "row must be an integer"),
    ({"rows": [], "groups": []}, "rows has 0 entries, outside [1, None]"),
    ({"rows": "x"}, "rows must be a list"),
    ({"rows": [0, 0, 1]}, "rows must be distinct"),
    ({"groups": [[0], [1], [2], []]}, "groups has 4 entries, outside [3, 3]"),
    ({"groups": [[0], [1]]}, "groups has 2 entries, outside [3, 3]"),
    ({"groups": "x"}, "groups must be a list"),
    ({"groups": [[0], [1], [3]]}, "column=3 outside [0, 2]"),
    ({"groups": [[0], [1], [True]]}, "column must be an integer"),
    ({"groups": [[0], [1], []]}, "group has 0 entries, outside [1, None]"),
    ({"groups": [[0], [1], "x"]}, "group must be a list"),
    ({"groups": [[0], [1], [1]]}, "column groups must be pairwise disjoint"),
])
def test_grouped_lower_reasons(change, why):
    assert reason("approx-rank-lower", LOWER | change) == why


def test_the_summary_says_whether_the_points_are_on_the_sphere():
    on = accepts("approx-rank-lower-points", LOWER_POINTS)
    assert on.summary == f"rank_eps >= 4 at eps = 1/10 on instance {on.judgment['instance'][:15]} (n = 4, points on S^1; 4 grouped rows decided in arb)"
    off = accepts("approx-rank-lower-points", LOWER_POINTS | {"points": [[2 * a for a in x] for x in CROSS], "beta": 4})
    assert off.judgment["sphere"] is False
    assert off.summary == (f"rank_eps >= 4 at eps = 1/10 on instance {off.judgment['instance'][:15]} "
                           "(n = 4, points NOT all on the unit sphere; 4 grouped rows decided in arb)")
    assert intervals._sphere({}) == "" and intervals._sphere({"sphere": 3}) == ", points on S^2"


# ------------------------------------------------------------- residuals and arb decisions


@pytest.mark.parametrize("kind, data, why", [
    ("residual-bound", {"logits": [[0, 1]], "approximation": [[0, 1], [1, 1]]}, "logits and approximation have different shapes"),
    ("residual-bound", {"logits": [["x", 1]], "approximation": [[0, 1]]}, "logits must be an int or a string 'p/q', got 'x'"),
    ("residual-bound", {"logits": [[0, 1]], "approximation": [["x", 1]]}, "approximation must be an int or a string 'p/q', got 'x'"),
    ("attention-differs", {"logits": [[0, 1]], "other": [["x", 1]], "row": 0, "column": 0}, "other must be an int or a string 'p/q', got 'x'"),
])
def test_pair_reasons(kind, data, why):
    assert reason(kind, data) == why


def test_an_exactly_equal_entry_is_certainly_not_different():
    """Uniform rows: both entries are exactly 1/2, so "they differ" is certainly false at once."""
    assert reason("attention-differs", {"logits": [[0, 0]], "other": [[0, 0]], "row": 0, "column": 0}) == "entry (0, 0) differs: certainly false"


def test_an_undecidable_entry_is_rejected_after_the_last_precision():
    shifted = [[v + 5 for v in r] for r in [[0, 1, 2], [2, 0, 1], [1, 1, 0]]]  # the same attention, in different balls
    data = {"logits": [[0, 1, 2], [2, 0, 1], [1, 1, 0]], "other": shifted, "row": 0, "column": 2}
    assert reason("attention-differs", data) == "entry (0, 2) differs: not certain even at 1024 bits"


def test_entries_that_differ_by_1e_minus_30_are_told_apart():
    tiny = "1000000000000000000000000000001/1000000000000000000000000000000"
    accepted = accepts("attention-differs", {"logits": [[0, 1]], "other": [[0, tiny]], "row": 0, "column": 0})
    assert accepted.summary == "the two attentions (1 x 2) differ at (0, 0)"


def test_short_numbers():
    assert intervals._short(Fraction(2**200 - 1, 2)) == f"{2**200 - 1}/2"  # 200 bits: in full
    assert intervals._short(Fraction(2**200, 3)) == "(a number of about 60 digits)"  # 201 bits
    assert intervals._short(Fraction(1, 2**300)) == "(a number of about 90 digits)"
    assert intervals._short(Fraction(10**100)) == "(a number of about 99 digits)"


# ------------------------------------------------------------- work


def test_size_readers():
    assert [intervals.length_of(None), intervals.length_of("ab"), intervals.width_of([]), intervals.width_of(None), intervals.width_of(["ab"])] == [0] * 5
    assert intervals._shape({"logits": [[1, 2, 3]] * 2}) == (2, 3, 0)
    assert intervals._shape({"points": [[1, 2, 3]] * 4}) == (4, 4, 3)  # n points: an n x n attention
    assert intervals.digits_of([["12345", 7, 10**40, 1.5]]) == 40
    assert [intervals.digits_of(rows) for rows in ([[1.5]], [], None, [None], ["abcdef"])] == [1] * 5


D40 = "1" + "0" * 39


def test_sphere_work():
    # rows * dim * (1 + dim * digits // 19)^2: 4 * 3 * (1 + 120 // 19)^2
    assert intervals._sphere_work({"points": [[D40, 1, 1]] * 4}) == 12 * 49
    assert intervals._sphere_work({"points": [["1" * 19]]}) == 1 * 1 * 2**2
    assert intervals._sphere_work({"points": [["1" * 10, 1]] * 3}) == 3 * 2 * 2**2
    assert intervals._sphere_work({"logits": 1}) == 0


def test_lower_work():
    # sphere + rows * max(width, dim) + 5 precisions * |R| * width * (dim + 2)
    assert core.KINDS["approx-rank-lower-points"][1]({"points": [[D40, 1, 1]] * 4, "rows": [0, 1]}) == 588 + 16 + 5 * 2 * 4 * 5
    assert core.KINDS["approx-rank-lower"][1]({"logits": [[1, 2, 3]] * 2, "rows": [0, 1]}) == 8 * (6 + 5 * 2 * 3 * 2)  # 8: calibration
    assert core.KINDS["approx-rank-lower"][1]({"logits": [[1, 2, 3, 4, 5]] * 7, "rows": [0, 1, 4]}) == 8 * (35 + 5 * 3 * 5 * 2)


def test_upper_work():
    # sphere + 5 precisions * rows * width * (k + dim + 2)
    assert core.KINDS["approx-rank-upper-points"][1]({"points": [[D40, 1, 1]] * 4, "right": [[1]] * 3}) == 588 + 5 * 16 * 8
    assert core.KINDS["approx-rank-upper"][1]({"logits": [[1, 2, 3]] * 2, "right": [[1]] * 5}) == 5 * 6 * 7


def test_a_grouped_row_outside_the_instance_is_rejected_by_its_reason_not_a_crash():
    assert not re.search("malformed", reason("approx-rank-lower", LOWER | {"rows": [0, 1, 3]}))
