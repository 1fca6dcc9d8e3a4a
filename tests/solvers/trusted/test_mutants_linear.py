"""The linear family: what mutation testing found untested in linear.py.

Soundness first: forged combinations that a slightly wrong checker would accept (a
kernel-row "refutation" made of ">= 0" rows alone; box conditions whose alternating signs
or coefficients were changed), a rank-one certificate that needs ``psi >= 0`` rows,
feature-family certificates that use ``c >= 0`` rows and an order row, with tokens other
than 0...0 and 1...0, a degree-2 extrapolation, a Motzkin combination whose bound is a
positive fraction below 1.  Then the exact judgment, summary
and reason of each kind, nonnegative rows (parsed and placed even with a zero multiplier),
and the work estimates (the documented formula worked out by hand).
"""

from fractions import Fraction

import flint
import pytest

from solvers import certificates as C
from solvers.trusted import extrapolation as X
from solvers.trusted import linear as L
from solvers.trusted.core import CertificateError, check, encode

HALF = "1/2"


def run(kind, data, max_work=10**9):
    return check(C.make(kind, "test.claim", "s" * 64, {}, encode(data)), max_work=max_work)


def reason(kind, data):
    with pytest.raises(CertificateError) as error:
        run(kind, data)
    return str(error.value)


def unsolvable(model, low, n):
    return {"judgment": "unsolvable", "model": model, "rank": 1, "m": [low, None], "length": n, "target": "min-ip", "tolerance": HALF}


# the certificates of test_linear.py, written out (the LP that found them is not trusted code)
RANK_ONE = {"m": 4, "positions": False, "nonnegative": [], "rows": [
    ["lo", 1, ["1100", "1100", "1100"]], ["hi", 2, ["1100", "0011", "1100"]], ["lo", 1, ["0011", "0011", "1100"]],
    ["lo", 1, ["1100", "1100", "0011"]], ["hi", 2, ["1100", "0011", "0011"]], ["lo", 1, ["0011", "0011", "0011"]]]}
POSITIONAL = {"m": 4, "positions": True, "nonnegative": [], "rows": [
    ["lo", 1, ["1100", "1100", "1100"]], ["hi", 1, ["1100", "0011", "1100"]], ["hi", 1, ["0011", "1100", "1100"]],
    ["lo", 1, ["0011", "0011", "1100"]], ["lo", 1, ["1100", "1100", "0011"]], ["hi", 1, ["1100", "0011", "0011"]],
    ["hi", 1, ["0011", "1100", "0011"]], ["lo", 1, ["0011", "0011", "0011"]]]}
REDUCED = {"m": 4, "positions": False, "nonnegative": [], "rows": [
    ["lo", 1, 2, [[2, 0], [2, 0]]], ["hi", 2, 2, [[2, 0], [2, 2]]], ["lo", 1, 2, [[2, 2], [2, 2]]]]}
READOUT = {"m": 2, "query": "11", "weights": {"00": 1, "11": "3/7"}, "tolerance": HALF, "multipliers": [[2, 0], [0, 3], [1, 0]],
           "sequences": [["11", "11", "11", "11"], ["00", "11", "11", "11"], ["00", "00", "00", "11"]]}
# found by the LP of theorems/kernel_rank/_linearised.py (kernel_row at m = 4, q = 1111, tokens 0000 and 1000, order 0000):
# rows whose K-coefficients are left negative on feature 1 (b_1, the term 1 - x_1) are closed by "b_1 >= 0"
AFFINE = {"m": 4, "query": "1111", "tokens": ["0000", "1000"], "nonnegative": [[1, 3]], "order": [["0000", 5]], "rows": [
    ["lo", 2, ["0000", "1000"]], ["hi", 1, ["0000", "1000"]], ["hi", 1, ["0000", "1111"]], ["hi", 1, ["1000", "1111"]],
    ["lo", 1, ["1111", "1111"]]]}
COMPLEMENT_2 = AFFINE | {"nonnegative": [[1, 3], [5, 3], [6, 3], [7, 3]]}
BOX = {"m": 4, "heads": 1, "length": 3, "boxes": [
    [1, 1, "0101", [["0101", "1010"], ["0101", "1010"]], []], [1, 1, "1010", [["1010", "0101"], ["1010", "0101"]], []]]}
EXTRAPOLATION = {"m": 4, "degree": 1, "query": 0b1100, "other": 0b0011, "lambda": {"numerator": [5, 4], "denominator": [3]}}


def kernel_rows(family, case, n=3):
    return {"family": family, "length": n, "cases": [case]}


def swap_coordinates_1_and_2(case):
    """The same certificate with coordinates 1 and 2 exchanged (feature 1 <-> feature 2)."""
    swap = lambda t: t[1] + t[0] + t[2:]  # noqa: E731
    return case | {"tokens": [swap(t) for t in case["tokens"]], "order": [[swap(z), y] for z, y in case["order"]],
                   "rows": [[s, y, [swap(t) for t in c]] for s, y, c in case["rows"]],
                   "nonnegative": [[{1: 2, 2: 1}.get(f, f), y] for f, y in case["nonnegative"]]}


# ---------------------------------------------------------- soundness: forgeries


def test_a_kernel_row_refutation_needs_a_strict_row():
    """q = 11, z = 00 in the affine-complement family: K[q,q] = a, K[q,00] = a + b_1 + b_2.  The order row
    K[q,q] - K[q,00] >= 0 plus b_1 >= 0 and b_2 >= 0 cancels every unknown, but "0 >= 0" contradicts nothing:
    indeed b = 0 satisfies all three.  Only the sequence rows (strict) can make a contradiction."""
    forged = {"m": 2, "query": "11", "tokens": "all", "rows": [["lo", 0, ["00", "00"]]],
              "nonnegative": [[1, 1], [2, 1]], "order": [["00", 1]]}
    for family, extra in (("affine-complement", []), ("complement-2", [[3, 1]])):
        case = forged | {"nonnegative": forged["nonnegative"] + extra}
        assert reason("kernel-row-infeasible", kernel_rows(family, case)) == \
            "kernel row q=11: the combination gives no contradiction (sum 0, strict row used: False)"


@pytest.mark.parametrize("boxes", [
    # each is a nonnegative combination of box conditions for m = 2 that leaves positive coefficients
    [["2/7", 1, "11", [["01", "10"], ["01", "10"]], []], ["1/7", 1, "01", [["01", "11"], ["11", "01"]], []],
     ["4/7", 1, "10", [["10", "01"], ["01", "10"]], []]],
    [["1/11", 1, "01", [["10", "01"], ["10", "01"]], []], ["8/33", 1, "10", [["11", "10"], ["01", "10"]], []],
     ["2/11", 1, "10", [["11", "10"], ["11", "10"]], []], ["16/33", 1, "10", [["10", "11"], ["01", "10"]], []]],
])
def test_box_conditions_that_do_not_combine_are_rejected(boxes):
    """Found by an LP against checkers with the alternating sign (-1)^|s| replaced by +1 or (-2)^|s|: those
    accept these combinations, and would "prove" that one rank-one head fails length 3 at m = 2."""
    assert reason("box-refutation", {"m": 2, "heads": 1, "length": 3, "boxes": boxes}) == \
        "box-refutation: the combination leaves positive coefficients on the monomials [(1,), (2,), (3,)]"


def test_a_box_counted_twice_leaves_a_positive_coefficient():
    assert reason("box-refutation", BOX | {"boxes": BOX["boxes"] + [BOX["boxes"][0]]}) == \
        "box-refutation: the combination leaves positive coefficients on the monomials [(5,)]"


def test_a_positive_bound_below_one_is_a_contradiction():
    """x >= 1/2 and -x >= 0: the sum says 0 >= 1/2.  No strict row is needed when the bound is positive."""
    L._motzkin_refutes([({"x": Fraction(1)}, ">=", Fraction(1, 2)), ({"x": Fraction(-1)}, ">=", Fraction(0))], [Fraction(1)] * 2, "w")
    with pytest.raises(CertificateError) as error:
        L._motzkin_refutes([({"x": Fraction(1)}, ">=", Fraction(-1, 2)), ({"x": Fraction(-1)}, ">=", Fraction(0))], [Fraction(1)] * 2, "w")
    assert str(error.value) == "w: the combination gives no contradiction (sum -1/2, strict row used: False)"


# ---------------------------------------------------------- feature families


@pytest.mark.parametrize("family, case", [("affine-complement", AFFINE), ("complement-2", COMPLEMENT_2)])
def test_feature_family_certificates_with_nonnegative_and_order_rows(family, case):
    accepted = run("kernel-row-infeasible", kernel_rows(family, case))
    entry = {"m": 4, "query": "1111", "tokens": ["0000", "1000"], "order": ["0000"]}
    assert accepted.judgment == {"judgment": "kernel-row-infeasible", "family": family, "length": 3, "cases": [entry]}
    assert accepted.summary == f"1 kernel row case(s) refuted ({family} family, exact length 3; first {entry})"


def test_the_judgment_names_tokens_by_their_bits():
    moved = swap_coordinates_1_and_2(AFFINE)
    accepted = run("kernel-row-infeasible", kernel_rows("affine-complement", moved))
    assert accepted.judgment["cases"] == [{"m": 4, "query": "1111", "tokens": ["0000", "0100"], "order": ["0000"]}]
    # a feature is 1 - x_i: on the unmoved tokens, "b_2 >= 0" in place of "b_1 >= 0" leaves b_1 behind
    assert reason("kernel-row-infeasible", kernel_rows("affine-complement", AFFINE | {"nonnegative": [[2, 3]]})) == \
        "kernel row q=1111: the combination leaves the unknowns [\"('phi', 1)\", \"('phi', 2)\"] (it must vanish)"


@pytest.mark.parametrize("change, why", [
    ({"nonnegative": [[5, 0]]}, "feature=5 outside [0, 4]"),  # affine-complement at m = 4: features 0..4
    ({"nonnegative": [[-1, 0]]}, "feature=-1 outside [0, 4]"),
    ({"nonnegative": [[0, 0], [4, 0]]}, "kernel row q=1111: the combination leaves the unknowns [\"('phi', 1)\"] (it must vanish)"),
    ({"nonnegative": [["1", 0]]}, "feature must be an integer"),
    ({"nonnegative": [[1]]}, "each nonnegative row is [unknown, multiplier]"),
    ({"nonnegative": "x"}, "nonnegative must be a list"),
    ({"order": [["1111", 0]]}, "an order token differs from the query"),
    ({"order": [["0000", 5], ["0000", 0]]}, "order tokens must be distinct"),
    ({"order": [["0000"]]}, "each order row is [token, multiplier]"),
    ({"order": "x"}, "order must be a list"),
    ({"order": [["0100", 0]]}, "token 0100 is outside the case's tokens"),
    ({"rows": []}, "rows has 0 entries, outside [1, None]"),
    ({"rows": "x"}, "rows must be a list"),
    ({"rows": [["lo", 2]]}, "each row is [side, multiplier, context tokens]"),
    ({"rows": [["lo", 2, ["0000", "1000", "1000"]]]}, "context has 3 entries, outside [2, 2]"),
    ({"rows": [["lo", 2, ["0000"]]]}, "context has 1 entries, outside [2, 2]"),
    ({"rows": [["lo", 2, "x"]]}, "context must be a list"),
    ({"m": 65}, "m=65 outside [1, 64]"),
    ({"m": 0}, "m=0 outside [1, 64]"),
    ({"tokens": []}, "tokens has 0 entries, outside [1, None]"),
    ({"tokens": ["0000", "1111"]}, "tokens must be distinct and other than the query"),
    ({"tokens": ["0000", "0000"]}, "tokens must be distinct and other than the query"),
    ({"tokens": "x"}, "tokens must be a list"),
])
def test_kernel_row_reasons(change, why):
    assert reason("kernel-row-infeasible", kernel_rows("affine-complement", AFFINE | change)) == why


def test_kernel_row_case_shape_and_free_family_reasons():
    assert reason("kernel-row-infeasible", kernel_rows("affine-complement", {k: v for k, v in AFFINE.items() if k != "order"})) == \
        "a case reads exactly ['m', 'nonnegative', 'order', 'query', 'rows', 'tokens']"
    assert reason("kernel-row-infeasible", kernel_rows("complement-2", AFFINE | {"nonnegative": [[11, 0]]})) == "feature=11 outside [0, 10]"
    assert reason("kernel-row-infeasible", kernel_rows("free", AFFINE | {"tokens": "all"})) == "the free family lists its tokens (not 'all')"
    same = AFFINE | {"tokens": ["0000", "0001"], "query": "1110"}
    assert reason("kernel-row-infeasible", kernel_rows("free", same)) == "free family: the tokens' inner products with the query must differ"
    assert reason("kernel-row-infeasible", {"family": "free", "length": 3, "cases": 5}) == "cases must be a list"
    assert reason("kernel-row-infeasible", kernel_rows("free", AFFINE | {"rows": 5})) == "rows must be a list"


# ---------------------------------------------------------- rank one


def test_rank_one_judgments_and_summaries():
    accepted = run("rank-one-infeasible", RANK_ONE)
    assert accepted.judgment == unsolvable("kernel", 4, 3)
    assert accepted.summary == "no rank-one head (kernel) solves exact length 3 at any m >= 4: Motzkin combination of 6 rows"
    # a row with multiplier 0 is not counted
    zero = RANK_ONE | {"rows": RANK_ONE["rows"] + [["lo", 0, ["1100", "0011", "0011"]]]}
    assert run("rank-one-infeasible", zero).summary == accepted.summary
    reduced = run("rank-one-reduced-infeasible", REDUCED)
    assert reduced.judgment == unsolvable("kernel", 4, 3)
    assert reduced.summary == "no rank-one head (kernel) solves exact length 3 at any m >= 4: Motzkin combination of 3 rows"


def test_nonnegative_rows_are_read_and_placed():
    """With a zero multiplier they change nothing; with a positive one psi(x) is left over (it is never cancelled)."""
    assert run("rank-one-infeasible", RANK_ONE | {"nonnegative": [[0, "1100", 0], [0, "0011", 0]]}).judgment == unsolvable("kernel", 4, 3)
    assert run("rank-one-infeasible", POSITIONAL | {"nonnegative": [[1, "1100", 0], [3, "0011", 0]]}).judgment == \
        unsolvable("kernel-positional", 4, 3)
    assert run("rank-one-reduced-infeasible", REDUCED | {"nonnegative": [[0, 2, 0], [0, 4, 0]]}).judgment == unsolvable("kernel", 4, 3)
    assert reason("rank-one-infeasible", RANK_ONE | {"nonnegative": [[0, "1100", 1]]}) == \
        "rank-one certificate: the combination leaves the unknowns [\"('psi', 0, 3)\"] (it must vanish)"
    assert reason("rank-one-reduced-infeasible", REDUCED | {"nonnegative": [[0, 2, 1]]}) == \
        "rank-one certificate: the combination leaves the unknowns [\"('psi', 0, 2)\"] (it must vanish)"


# Found by an LP over the dual of the reduced rank-one system at m = 5, length 4 (rows 2 x multipliers of
# theorems/kernel_rank/_linearised.py): the sequence rows leave psi_3, psi_4, psi_5 with negative coefficients,
# which only "psi_v >= 0" closes.  It proves that no rank-one head solves exact length 4 at any m >= 5.
NEEDS_PSI_NONNEGATIVE = {"m": 5, "positions": False, "rows": [
    ["lo", 177, 2, [[3, 0], [3, 0], [3, 0]]], ["hi", 39, 2, [[3, 0], [2, 1], [2, 1]]], ["hi", 90, 2, [[3, 0], [2, 1], [4, 1]]],
    ["hi", 78, 2, [[3, 0], [4, 1], [5, 2]]], ["hi", 324, 2, [[3, 0], [2, 2], [3, 2]]], ["lo", 168, 2, [[2, 1], [4, 1], [2, 2]]],
    ["lo", 78, 2, [[2, 2], [2, 2], [5, 2]]], ["lo", 108, 2, [[3, 2], [3, 2], [3, 2]]], ["lo", 55, 3, [[2, 0], [2, 0], [2, 0]]],
    ["hi", 110, 3, [[2, 0], [3, 3], [4, 3]]], ["hi", 55, 3, [[2, 0], [5, 3], [5, 3]]], ["lo", 110, 3, [[3, 3], [4, 3], [5, 3]]]],
    "nonnegative": [[0, 3, 178], [0, 4, 220], [0, 5, 298]]}


def test_a_certificate_that_needs_psi_nonnegative():
    accepted = run("rank-one-reduced-infeasible", NEEDS_PSI_NONNEGATIVE)
    assert accepted.judgment == unsolvable("kernel", 5, 4)
    assert accepted.summary == "no rank-one head (kernel) solves exact length 4 at any m >= 5: Motzkin combination of 15 rows"
    # each "psi_v >= 0" row enters with coefficient 1: one unit less on psi_3 leaves psi_3 behind
    short = NEEDS_PSI_NONNEGATIVE | {"nonnegative": [[0, 3, 177], [0, 4, 220], [0, 5, 298]]}
    assert reason("rank-one-reduced-infeasible", short) == \
        "rank-one certificate: the combination leaves the unknowns [\"('psi', 0, 3)\"] (it must vanish)"


ONE, REDUCED_KIND = "rank-one-infeasible", "rank-one-reduced-infeasible"


@pytest.mark.parametrize("kind, data, why", [
    (ONE, RANK_ONE | {"nonnegative": [[1, "1100", 0]]}, "position=1 outside [0, 0]"),  # one psi without positions
    (ONE, POSITIONAL | {"nonnegative": [[4, "1100", 0]]}, "position=4 outside [1, 3]"),
    (ONE, POSITIONAL | {"nonnegative": [[0, "1100", 0]]}, "position=0 outside [1, 3]"),
    (ONE, RANK_ONE | {"nonnegative": [[0, "1100"]]}, "each nonnegative row is [position, token or v, multiplier]"),
    (ONE, RANK_ONE | {"nonnegative": "x"}, "nonnegative must be a list"),
    (ONE, RANK_ONE | {"nonnegative": [[True, "1100", 0]]}, "position must be an integer"),
    (ONE, RANK_ONE | {"nonnegative": [[0, "1100", "x"]]}, "multiplier must be an int or a string 'p/q', got 'x'"),
    (ONE, RANK_ONE | {"rows": RANK_ONE["rows"] + [["lo", 0, ["1100", "1100"]]]}, "all sequences must have one length, got [2, 3]"),
    (ONE, RANK_ONE | {"rows": 5}, "rows must be a list"),  # the estimate reads no size from it, the kind rejects it
    (REDUCED_KIND, REDUCED | {"nonnegative": [[0, 5, 0]]}, "v=5 outside [0, 4]"),
    (REDUCED_KIND, REDUCED | {"rows": 5}, "rows must be a list"),
])
def test_rank_one_reasons(kind, data, why):
    assert reason(kind, data) == why


# ---------------------------------------------------------- readout, box, extrapolation


def test_readout_summary():
    accepted = run("readout-infeasible", READOUT)
    row = accepted.judgment["row"]
    assert accepted.summary == f"no readout has error < 1/2 on 3 sequences for the fixed kernel row of q=11 (m=2, row {row[:19]})"
    assert reason("readout-infeasible", READOUT | {"sequences": 5}) == "sequences must be a list"


def test_box_summary():
    assert run("box-refutation", BOX).summary == \
        "no 1 rank-one head(s) with affine mixing solve exact length 3 at any m >= 4: 2 box condition(s) combine to a contradiction"


def test_two_token_extrapolation_at_degree_two():
    """q = 00001111, z = 11110000 (gap 4 each way): Lambda = (3 rho^2 + 6 rho + 5) / 2, Lambda(1) = 7 <= 2 * 4 - 1."""
    data = {"m": 8, "degree": 2, "query": 0b00001111, "other": 0b11110000, "lambda": {"numerator": [5, 6, 3], "denominator": [2]}}
    accepted = run("two-token-extrapolation", data)
    assert accepted.judgment == unsolvable("polynomial-readout-2", 8, 4)
    assert accepted.summary == "no rank-one head with a readout of degree 2 solves length 4 at any m >= 8 (tokens 15, 240)"
    assert "differs" in reason("two-token-extrapolation", data | {"lambda": {"numerator": [5, 6, 4], "denominator": [2]}})


def test_lambda_is_read_exactly():
    same = [{"numerator": ["5/3", "4/3"], "denominator": [1]}, {"numerator": [5, 4] + [0] * 4094, "denominator": [3]}]
    for given in same:  # the same rational function: fractions kept, trailing zeros allowed up to 4096 coefficients
        assert run("two-token-extrapolation", EXTRAPOLATION | {"lambda": given}).judgment == unsolvable("polynomial-readout-1", 4, 3)
    assert run("two-token-extrapolation", EXTRAPOLATION).summary == \
        "no rank-one head with a readout of degree 1 solves length 3 at any m >= 4 (tokens 12, 3)"
    for given, why in (
        ({"numerator": [5, 4] + [0] * 4095, "denominator": [3]}, "lambda numerator has 4097 entries, outside [1, 4096]"),
        ({"numerator": [5, "x"], "denominator": [3]}, "lambda numerator must be an int or a string 'p/q', got 'x'"),
        ({"numerator": [5, 4], "denominator": ["x"]}, "lambda denominator must be an int or a string 'p/q', got 'x'"),
        ({"numerator": [5, 4], "denominator": [0]}, "lambda's denominator is zero"),
    ):
        assert reason("two-token-extrapolation", EXTRAPOLATION | {"lambda": given}) == why


def poly(coefficients):
    return flint.fmpq_poly([flint.fmpq(Fraction(c).numerator, Fraction(c).denominator) for c in coefficients])


def test_sign_on_positive_reals():
    assert [X._sign_on_positive_reals(poly(c)) for c in ([1, "1/2"], [0, 3, 0, 2], [-1, "-1/2"], ["-1/2", 0, -3])] == [1, 1, -1, -1]
    for coefficients, why in (
        ([-1, "1/2"], "the sign of 1/2*x + (-1) on rho > 0 is not evident from its coefficients"),
        (["1/2", -2], "the sign of (-2)*x + 1/2 on rho > 0 is not evident from its coefficients"),
        ([0], "a polynomial that should have a sign is zero"),
    ):
        with pytest.raises(CertificateError) as error:
            X._sign_on_positive_reals(poly(coefficients))
        assert str(error.value) == why


# ---------------------------------------------------------- helpers and reasons


def test_helpers():
    assert [L._n(None), L._n("ab"), L._n([1, 2])] == [0, 0, 2]
    # a size clamped to [1, high], or the default when not an int (booleans included)
    assert [L._int_or(0, 5, 10), L._int_or(20, 5, 10), L._int_or(True, 5, 10), L._int_or("3", 5, 10), L._int_or(4, 5, 10)] == [1, 10, 5, 5, 4]
    assert [L._features(m, d) for m, d in ((4, 0), (4, 1), (4, 2), (5, 3))] == [1, 5, 11, 26]
    # lo: P - (T - 1/2) k per position; hi: -P + (T + 1/2) k
    assert L._ratio_row("lo", [("k1", "p1"), ("k1", "p2")], 2) == ({"p1": 1, "k1": -3, "p2": 1}, ">", 0)
    assert L._ratio_row("hi", [("k1", "p1"), ("k2", "p1")], 0) == ({"p1": -2, "k1": Fraction(1, 2), "k2": Fraction(1, 2)}, ">", 0)


@pytest.mark.parametrize("call, why", [
    (lambda: L._multiplier("x"), "multiplier must be an int or a string 'p/q', got 'x'"),
    (lambda: L._multiplier(-1), "multiplier -1 is negative"),
    (lambda: L._entry("abc", 3, "x is y"), "each x is y"),
    (lambda: L._entry([1, 2], 3, "x is y"), "each x is y"),
    (lambda: L._motzkin_refutes([({"x": 1}, ">", 0)], [], "w"), "w: 1 rows but 0 multipliers"),
    (lambda: L._motzkin_refutes([({"x": 1}, ">", 0)], [Fraction(-1)], "w"), "w: negative multiplier -1"),
    (lambda: L._motzkin_refutes([({"aaaa": 1, "b": 1, "cc": -1, "ddd": 2, "e": 1}, ">", 0)], [Fraction(1)], "w"),
     "w: the combination leaves the unknowns ['b', 'e', 'cc'] (it must vanish)"),  # the three shortest names
    (lambda: L._ratio_row("x" * 30, [], 0), f"side must be 'lo' or 'hi', got {'x' * 20!r}"),
])
def test_helper_reasons(call, why):
    with pytest.raises(CertificateError) as error:
        call()
    assert str(error.value) == why


# ---------------------------------------------------------- work estimates


def test_readout_estimate():
    # tokens listed, times (m clamped to [1, 64]) + 4
    assert [L._work_readout(d) for d in (READOUT, READOUT | {"m": 70}, READOUT | {"m": 0}, READOUT | {"m": "x"})] == [12 * 6, 12 * 68, 12 * 5, 12 * 5]
    assert L._work_readout({"sequences": "x", "m": 3}) == 0 and L._work_readout({"sequences": [[1, 2], "ab"]}) == 10


def test_rank_one_estimates():
    # (tokens + 1 per row, plus nonnegative rows) times (m + 8)
    assert L._work_rank_one(RANK_ONE) == 24 * 12
    assert L._work_rank_one(RANK_ONE | {"nonnegative": [1, 2], "m": 70}) == 26 * 72
    assert L._work_rank_one({"rows": [[], ["lo", 1, "abc"], 5, ["a", [1, 2]]], "m": "x"}) == 4 * 9
    assert L._work_rank_one({"rows": "x"}) == 0
    # reduced: 8 (types + 1 per row, plus nonnegative rows), whatever m is
    assert [L._work_reduced(d) for d in (REDUCED, REDUCED | {"nonnegative": [1, 2, 3]})] == [72, 96]
    assert L._work_reduced({"rows": [[], ["lo", 1, 2, "abc"], 5, ["a", [1, 2]]]}) == 32 and L._work_reduced({"rows": "x", "nonnegative": [1]}) == 8


def test_kernel_row_estimate():
    # per case: (tokens + 1 per row + order rows + 1) (features + 1) (degree + 1) + nonnegative rows + m * tokens
    assert L._work_kernel_row(kernel_rows("affine-complement", AFFINE)) == 17 * 6 * 2 + 1 + 8
    assert L._work_kernel_row(kernel_rows("complement-2", COMPLEMENT_2 | {"m": 70})) == 17 * (2081 + 1) * 3 + 4 + 128
    assert L._work_kernel_row(kernel_rows("free", AFFINE | {"m": 0, "tokens": "ab"})) == 17 * 2 + 1
    assert L._work_kernel_row({"family": "bogus", "cases": [AFFINE]}) == 17 * 2 + 1 + 8
    assert L._work_kernel_row({"family": 3, "cases": [AFFINE | {"m": "x"}]}) == 17 * 2 + 1 + 2
    assert L._work_kernel_row({"family": "free", "cases": "x"}) == 0
    assert L._work_kernel_row({"family": "free", "cases": [5, {"rows": "x", "m": 3}, {"rows": [[], ["lo", 1, "abc"], 5]}]}) == 2 + 4


def test_box_and_extrapolation_estimates():
    # boxes * 2^(H+1) * (n^H + n m), each clamped
    assert L._work_box(BOX) == 2 * 4 * (3 + 12)
    assert L._work_box(BOX | {"heads": 2, "length": 5, "m": 3}) == 2 * 8 * (25 + 15)
    assert L._work_box(BOX | {"heads": 9, "length": 20, "m": 70}) == 2 * 32 * (10**4 + 640)
    assert L._work_box({"boxes": [1, 2]}) == 2 * 4 * 2 and L._work_box(BOX | {"heads": 0, "length": 0, "m": 0}) == 16
    # 40 (degree + 2)^5 + m, clamped to degree <= 12, m <= 4096
    assert [X._work_extrapolation(d) for d in (EXTRAPOLATION, {"degree": 2, "m": 8}, {"degree": 20, "m": 5000}, {"degree": 0, "m": 0}, {})] == \
        [40 * 3**5 + 4, 40 * 4**5 + 8, 40 * 14**5 + 4096, 40 * 3**5 + 1, 40 * 3**5 + 1]
