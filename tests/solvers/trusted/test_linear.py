"""The linear family: honest certificates accepted with the documented judgment, broken and
forged ones rejected, a judgment binds (tolerance, m, model, row), and work is refused."""

import copy
from fractions import Fraction

import pytest

from solvers import certificates as C
from solvers import lp
from solvers.trusted import linear
from solvers.trusted.core import CertificateError, Refused, check, digest, discharges, encode
from theorems import attention as att
from theorems.kernel_rank import _linearised as lin

HALF = "1/2"
HALF_F = Fraction(1, 2)


def run(kind, data, max_work=10**9):
    return check(C.make(kind, "test.claim", "s" * 64, {}, data), max_work=max_work)


def rejected(kind, data, match=None):
    with pytest.raises(CertificateError, match=match):
        run(kind, data)


def unsolvable(model, low, n):
    return {"judgment": "unsolvable", "model": model, "rank": 1, "m": [low, None], "length": n, "target": "min-ip", "tolerance": HALF}


# ------------------------------------------------------------- honest data


def readout_data(tolerance=Fraction(1, 2)):
    """Query 11, weights K[q,00] = 1, K[q,11] = 3/7 at length 4 (the K2 any-readout bound)."""
    q, z, t, n = 0b11, 0b00, Fraction(3, 7), 4
    weights = {q: t, z: Fraction(1)}
    sequences = [(q,) * n, (z,) + (q,) * (n - 1), (z,) * (n - 1) + (q,)]
    system = lp.LinearSystem(2)
    for seq in sequences:
        target, total = att.min_ip_target(seq), sum(weights[x] for x in seq)
        coefs = {}
        for x in seq:
            coefs[[z, q].index(x)] = coefs.get([z, q].index(x), 0) + weights[x]
        system.add(coefs, ">", (target - HALF_F) * total)
        system.add(coefs, "<", (target + HALF_F) * total)
    decision = lp.decide(system)
    assert isinstance(decision, lp.Infeasible)
    ys = [[decision.multipliers.get(2 * k, 0), decision.multipliers.get(2 * k + 1, 0)] for k in range(3)]
    return encode({"m": 2, "query": "11", "weights": {"00": 1, "11": t}, "sequences": [[att.bits(x, 2) for x in s] for s in sequences],
                   "multipliers": ys, "tolerance": tolerance})



def rank_one_data():
    problem = lin.rank_one(4, 3, tokens=[0b0011, 0b1100])
    rows, nonneg, _ = lin.certificate_rows(problem, problem.decide().multipliers, 4)
    return encode({"m": 4, "positions": False, "rows": rows, "nonnegative": nonneg})


def reduced_data(m=4, positions=False):
    problem = lin.reduced_rank_one(4, 3, positions)
    rows, nonneg, _ = lin.certificate_rows(problem, problem.decide().multipliers, 4, reduced=True)
    return encode({"m": m, "positions": positions, "rows": rows, "nonnegative": nonneg})


def row_lemma_case(w, s):
    q, z = (1 << w) - 1, (1 << s) - 1
    problem = lin.kernel_row(w, q, 3, "free", tokens=[z, q], order=[z])
    rows, nonneg, order = lin.certificate_rows(problem, problem.decide().multipliers, w)
    return {"m": w, "query": att.bits(q, w), "tokens": [att.bits(z, w)], "rows": rows, "nonnegative": nonneg, "order": order}


def family_case(m=6):
    """The affine-complement family has no row for the query 1^6 at m = 6."""
    q = (1 << m) - 1
    problem = lin.kernel_row(m, q, 3, "affine-complement")
    decision = problem.decide()
    assert isinstance(decision, lp.Infeasible)
    rows, nonneg, _ = lin.certificate_rows(problem, decision.multipliers, m)
    return encode({"m": m, "query": att.bits(q, m), "tokens": "all", "rows": rows, "nonnegative": nonneg, "order": []})


BOX = {"m": 4, "heads": 1, "length": 3, "boxes": [
    [1, 1, "0101", [["0101", "1010"], ["0101", "1010"]], []],
    [1, 1, "1010", [["1010", "0101"], ["1010", "0101"]], []],
]}
EXTRAPOLATION = {"m": 4, "degree": 1, "query": 0b1100, "other": 0b0011, "lambda": {"numerator": [5, 4], "denominator": [3]}}


# ----------------------------------------------------------- judgments


def test_readout_infeasible_judgment_names_the_row():
    accepted = run("readout-infeasible", readout_data())
    row = digest({"query": "11", "weights": {"00": Fraction(1), "11": Fraction(3, 7)}})
    assert accepted.judgment == {"judgment": "no-readout", "m": 2, "row": row, "lengths": [4],
                                 "target": "min-ip", "tolerance": HALF}
    other_row = digest({"query": "11", "weights": {"00": Fraction(1), "11": Fraction(3, 8)}})
    assert not discharges(accepted.judgment, accepted.judgment | {"row": other_row})
    assert discharges(accepted.judgment, accepted.judgment | {"tolerance": "1/3"})  # tolerance at least
    assert not discharges(accepted.judgment, accepted.judgment | {"tolerance": 1})


def test_readout_infeasible_refuses_a_tolerance_at_most_zero():
    # at tolerance <= 0 the lo and hi rows of (q, q, q, q) alone contradict each other: a false "no readout"
    data = readout_data()
    for tolerance in (0, "-1/2"):
        forged = data | {"tolerance": tolerance, "multipliers": [[1, 1], [0, 0], [0, 0]]}
        rejected("readout-infeasible", forged, "tolerance must be > 0")


def test_rank_one_infeasible_judgment_and_zero_padding():
    data = rank_one_data()
    assert run("rank-one-infeasible", data).judgment == unsolvable("kernel", 4, 3)
    padded = copy.deepcopy(data)
    padded["m"] = 7
    padded["rows"] = [[s, y, [t + "000" for t in seq]] for s, y, seq in data["rows"]]
    padded["nonnegative"] = [[j, t + "000", y] for j, t, y in data["nonnegative"]]
    judgment = run("rank-one-infeasible", padded).judgment
    assert judgment == unsolvable("kernel", 7, 3)
    assert discharges(judgment, unsolvable("kernel", 9, 3) | {"m": [9, 9]})
    assert not discharges(judgment, unsolvable("kernel", 4, 3))  # m relabelled: [7, oo) does not cover 4
    assert not discharges(judgment, unsolvable("kernel-positional", 7, 3))
    assert not discharges(judgment, unsolvable("kernel", 7, 4))


def test_rank_one_positional_judgment():
    problem = lin.rank_one(4, 3, positions=True)
    rows, nonneg, _ = lin.certificate_rows(problem, problem.decide().multipliers, 4)
    judgment = run("rank-one-infeasible", {"m": 4, "positions": True, "rows": encode(rows), "nonnegative": encode(nonneg)}).judgment
    assert judgment == unsolvable("kernel-positional", 4, 3)


def test_reduced_certificate_holds_from_the_least_realising_m():
    for m in (4, 9, 10**6):
        assert run("rank-one-reduced-infeasible", reduced_data(m)).judgment == unsolvable("kernel", 4, 3)
    rejected("rank-one-reduced-infeasible", reduced_data(3), "not realisable")


def test_reduced_work_does_not_grow_with_m():
    small = linear._work_reduced(reduced_data(4))
    assert small == linear._work_reduced(reduced_data(10**6)) and small < 1000


def test_kernel_row_free_judgment_is_stated_by_inner_products():
    data = {"family": "free", "length": 3, "cases": [row_lemma_case(4, 1), row_lemma_case(5, 0)]}
    judgment = run("kernel-row-infeasible", data).judgment
    assert judgment == {"judgment": "kernel-row-infeasible", "family": "free", "length": 3, "cases": [
        {"weight": 4, "inner": [1], "order": [1]}, {"weight": 5, "inner": [0], "order": [0]}]}
    # another embedding of the same case (other m, other query) proves the same judgment
    case = row_lemma_case(4, 1)
    flip = lambda t: t[::-1] + "00"  # noqa: E731
    moved = {"m": 6, "query": flip(case["query"]), "tokens": [flip(t) for t in case["tokens"]],
             "rows": [[s, y, [flip(t) for t in c]] for s, y, c in case["rows"]],
             "nonnegative": [[flip(t), y] for t, y in case["nonnegative"]], "order": [[flip(t), y] for t, y in case["order"]]}
    assert run("kernel-row-infeasible", {"family": "free", "length": 3, "cases": [moved]}).judgment["cases"] == [
        {"weight": 4, "inner": [1], "order": [1]}]


def test_kernel_row_family_judgment():
    case = family_case()
    judgment = run("kernel-row-infeasible", {"family": "affine-complement", "length": 3, "cases": [case]}).judgment
    assert judgment["cases"] == [{"m": 6, "query": case["query"], "tokens": "all", "order": []}]
    # the same rows do not refute the degree-2 family (more features): the combination leaves unknowns
    rejected("kernel-row-infeasible", {"family": "complement-2", "length": 3, "cases": [case]})


def test_box_refutation_judgment():
    assert run("box-refutation", BOX).judgment == unsolvable("kernel-heads-1", 4, 3)


def test_two_token_extrapolation_judgment():
    judgment = run("two-token-extrapolation", EXTRAPOLATION).judgment
    assert judgment == unsolvable("polynomial-readout-1", 4, 3)
    assert not discharges(judgment, unsolvable("polynomial-readout-2", 4, 3))


# ------------------------------------------------ broken and forged data


def test_broken_readout_certificates_are_rejected():
    data = readout_data()
    ys = data["multipliers"]
    rejected("readout-infeasible", data | {"multipliers": [[ys[0][1], ys[0][0]]] + ys[1:]})  # a pair flipped
    rejected("readout-infeasible", data | {"sequences": data["sequences"][:-1], "multipliers": ys[:-1]})  # a row dropped
    rejected("readout-infeasible", data | {"weights": {"00": 1, "11": "3/8"}})  # another kernel row
    rejected("readout-infeasible", data | {"tolerance": 1})  # these multipliers prove 1/2, not 1 (values exist)
    rejected("readout-infeasible", data | {"weights": {"00": 1, "11": 0}}, "positive")
    rejected("readout-infeasible", data | {"multipliers": [[-1, 0]] + ys[1:]}, "negative")


def test_broken_rank_one_certificates_are_rejected():
    data = rank_one_data()
    rows = data["rows"]
    for broken in (
        [[s, rows[0][1] if i else "7/2", seq] for i, (s, y, seq) in enumerate(rows)],  # a multiplier changed
        [[{"lo": "hi", "hi": "lo"}[s] if i == 1 else s, y, seq] for i, (s, y, seq) in enumerate(rows)],  # a side flipped
        [[s, y, ["0111" if t == "1100" else t for t in seq]] for s, y, seq in rows],  # a token changed
        rows[:-1],  # a row dropped
    ):
        rejected("rank-one-infeasible", data | {"rows": broken})
    rejected("rank-one-infeasible", data | {"positions": True})  # positions change the model: no cancellation
    rejected("rank-one-infeasible", data | {"m": 5}, "bit string of length 5")  # m relabelled


def test_broken_reduced_and_kernel_row_certificates_are_rejected():
    data = reduced_data()
    rejected("rank-one-reduced-infeasible", data | {"rows": data["rows"][1:]})
    flipped = [[s, y, w, [[v, s2] for v, s2 in c]] for s, y, w, c in data["rows"]]
    flipped[0][2] = flipped[0][2] - 1 if flipped[0][2] else 1
    rejected("rank-one-reduced-infeasible", data | {"rows": flipped})
    case = row_lemma_case(4, 0)
    rejected("kernel-row-infeasible", {"family": "free", "length": 3, "cases": [case | {"order": []}]})  # conclusion dropped
    rejected("kernel-row-infeasible", {"family": "free", "length": 3, "cases": [case | {"tokens": ["1111"]}]}, "other than the query")
    rejected("kernel-row-infeasible", {"family": "free", "length": 3, "cases": [case | {"tokens": ["1000"]}]}, "outside")
    rejected("kernel-row-infeasible", {"family": "free", "length": 4, "cases": [case]}, "context")
    rejected("kernel-row-infeasible", {"family": "free", "length": 3, "cases": [case | {"tokens": "all"}]}, "lists its tokens")
    rejected("kernel-row-infeasible", {"family": "free", "length": 3, "cases": [case | {"m": 5}]})


def test_broken_box_and_extrapolation_certificates_are_rejected():
    rejected("box-refutation", BOX | {"boxes": BOX["boxes"][:1]})  # a box dropped
    rejected("box-refutation", BOX | {"boxes": [[1, True] + b[2:] for b in BOX["boxes"]]}, "sign")
    rejected("box-refutation", BOX | {"boxes": [[1, -1] + b[2:] for b in BOX["boxes"]]})
    rejected("two-token-extrapolation", EXTRAPOLATION | {"lambda": {"numerator": [5, 5], "denominator": [3]}}, "differs")
    rejected("two-token-extrapolation", EXTRAPOLATION | {"other": 0b0111}, "differs|exceeds")
    rejected("two-token-extrapolation", EXTRAPOLATION | {"query": 0b1100 + (1 << 4)}, "outside")


def test_wrong_types_are_rejected_with_a_reason():
    rejected("rank-one-infeasible", rank_one_data() | {"positions": 1}, "true or false")
    rejected("rank-one-infeasible", rank_one_data() | {"m": True}, "integer")
    rejected("rank-one-infeasible", rank_one_data() | {"rows": {"a": 1}}, "list")
    rejected("readout-infeasible", readout_data() | {"weights": [["00", 1]]}, "object")
    rejected("readout-infeasible", readout_data() | {"tolerance": "0.5"}, "p/q")
    rejected("kernel-row-infeasible", {"family": "free", "length": 3, "cases": [[1]]}, "a case reads")
    rejected("two-token-extrapolation", EXTRAPOLATION | {"lambda": [1]}, "numerator and denominator")


def test_work_is_estimated_and_refused_above_the_limit():
    for kind, data in (("rank-one-infeasible", rank_one_data()), ("box-refutation", BOX),
                       ("two-token-extrapolation", EXTRAPOLATION), ("readout-infeasible", readout_data())):
        with pytest.raises(Refused, match="operations"):
            run(kind, data, max_work=10)
    big = {"family": "complement-3", "length": 3, "cases": [{"m": 64, "rows": [["lo", 1, ["0" * 64] * 2]] * 10**4}]}
    assert linear._work_kernel_row(big) > 10**9
    assert linear._work_kernel_row({"family": [], "cases": "x"}) == 0


def test_motzkin_checker_needs_a_strict_row():
    weak = [({"x": Fraction(1)}, ">=", Fraction(0)), ({"x": Fraction(-1)}, ">=", Fraction(0))]
    with pytest.raises(CertificateError):
        linear._motzkin_refutes(weak, [Fraction(1), Fraction(1)], "test")
    strict = [({"x": Fraction(1)}, ">", Fraction(0)), ({"x": Fraction(-1)}, ">=", Fraction(0))]
    linear._motzkin_refutes(strict, [Fraction(1), Fraction(1)], "test")


def test_a_no_readout_judgment_names_its_lengths():
    """A certificate about length-5 sequences of the same row cannot discharge a length-4 obligation."""
    judgment = run("readout-infeasible", readout_data()).judgment
    assert discharges(judgment, judgment)
    assert not discharges(judgment, judgment | {"lengths": [5]})
