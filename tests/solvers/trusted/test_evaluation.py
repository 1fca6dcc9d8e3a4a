"""The exact-evaluation family: honest heads accepted with the right judgment, broken ones rejected,
semantic forgeries discharge nothing, oversized requests refused before any work."""

import copy
import time
from fractions import Fraction

import pytest

from solvers import certificates as C
from solvers.trusted import check
from solvers.trusted.core import CertificateError, Refused, digest, discharges, encode

HALF = "1/2"


def envelope(kind, data):
    """The data as given (floats and booleans included), in a valid envelope."""
    return C.make(kind, "test.claim", "s" * 64, {}, {}) | {"data": copy.deepcopy(data)}


def judged(kind, data, max_work=10**9):
    return check(envelope(kind, data), max_work=max_work).judgment


def rejected(kind, data, match):
    with pytest.raises(CertificateError, match=match):
        check(envelope(kind, data), max_work=10**9)


def solves(model, head, rank, m, lengths, tolerance, alphabet="all", target="min-ip"):
    return encode({"judgment": "solves", "model": model, "head": head, "rank": rank, "alphabet": alphabet,
                   "m": m, "lengths": lengths, "target": target, "tolerance": tolerance})


# ------------------------------------------------------------ witnesses


def rank_one_tables(m, lengths=(1, 2)):
    """phi = psi = 1 with U[q][x] = 2<q,x> - |q|: exact on lengths 1 and 2."""
    size = 1 << m
    U = [[2 * (q & x).bit_count() - q.bit_count() for x in range(size)] for q in range(size)]
    return {"m": m, "lengths": list(lengths), "phi": [[1]] * size, "psi": [[1]] * size, "readout": U,
            "target": "min-ip", "tolerance": 0, "symmetry": "coordinates"}


def softmax_scores(m, base, lengths=(3,)):
    """kappa = b^{-<q,x>}, value = score: the softmax head at beta = ln b."""
    return {"m": m, "lengths": list(lengths), "kappa": [C.encode(Fraction(1, base**s)) for s in range(m + 1)],
            "value": [list(range(w + 1)) for w in range(m + 1)], "target": "min-ip", "tolerance": HALF}


def positional(m, prefixes):
    """Length 2 (or prefixes 1, 2): psi_1 = 100, U_1[q][x] = <x,q>; psi_2 = 1, U_2[q][x] = |q|.
    On (x, q) the target is <x,q> and y = (100 <x,q> + |q|) / 101: error <= m/101 < 1/2; on (q), y = |q|."""
    size = 1 << m
    U1 = [[(x & q).bit_count() for x in range(size)] for q in range(size)]
    U2 = [[q.bit_count()] * size for q in range(size)]
    return {"m": m, "psi": [[100] * size, [1] * size], "readout": [U1, U2], "tolerance": HALF, "prefixes": prefixes}


def two_heads(m, alphabet="all", heads=2):
    """Length 1 (the query alone, target |q|): each head reads out |q| / heads, so the sum is exact."""
    tokens = list(range(1 << m)) if alphabet == "all" else [int(t[::-1], 2) for t in alphabet]
    size = len(tokens)
    head = {"phi": [[1]] * size, "psi": [[1]] * size,
            "readout": [[C.encode(Fraction(q.bit_count(), heads))] * size for q in tokens]}
    return {"m": m, "lengths": [1], "alphabet": alphabet, "heads": [copy.deepcopy(head) for _ in range(heads)],
            "target": "min-ip", "tolerance": HALF, "symmetry": "context"}


def threshold(m, symmetry):
    """Length 3, the selector g_2(u) = (1 - 3u)(1 - 3u/2) of the construction (exact)."""
    return {"m": m, "length": 3, "coefficients": [1, "-9/2", "9/2"], "symmetry": symmetry}


def readout_table():
    """m = 1, length 2: psi = 1, P_q(h) = T read off h by a degree-1 table (T = <x, q> at the other token)."""
    # tokens 0, 1; monomials (), (0,), (1,): P_0 = 0; P_1(h) = 1 - 2 h(0) is exact on (0,1), (1,1): T = 0 and 1
    return {"m": 1, "length": 2, "psi": [1, 1], "monomials": [[], [0], [1]], "coefficients": [[0, 0, 0], [1, -2, 0]]}


# ---------------------------------------------------------- honest heads


def test_exhaustive_judgment_names_the_head_its_rank_and_sizes():
    data = rank_one_tables(3)
    head = digest({k: [[Fraction(v) for v in row] for row in data[k]] for k in ("phi", "psi", "readout")})
    assert judged("exhaustive", data) == solves("kernel", head, 1, [3, 3], [1, 2], 0)
    assert judged("exhaustive", data | {"symmetry": "none", "lengths": [2, 1]})["lengths"] == [1, 2]


def test_score_statistic_at_ln4_covers_every_smaller_m_and_ln2_fails():
    j = judged("score-statistic", softmax_scores(12, 4))
    assert j["m"] == [1, 12] and j["rank"] == "any" and j["model"] == "score-statistic" and j["tolerance"] == HALF
    rejected("score-statistic", softmax_scores(12, 2), "is not < 1/2")


def test_counterexample_judgment_and_it_must_really_fail():
    data = softmax_scores(2, 2)
    data.pop("lengths")
    j = judged("score-counterexample", data | {"sequence": [0b00, 0b11, 0b11]})
    assert j == encode({"judgment": "fails", "model": "score-statistic", "head": digest({"kappa": data["kappa"], "value": data["value"]}),
                        "m": 2, "length": 3, "target": "min-ip", "tolerance": Fraction(1, 2)})
    rejected("score-counterexample", data | {"sequence": [0b11, 0b11, 0b11]}, "not a counterexample")
    rejected("score-counterexample", data | {"sequence": [0b00, 0b11, 0b11], "tolerance": 0}, "must be > 0")


def test_positional_and_causal_models():
    assert judged("rank-one-positional-witness", positional(2, False))["model"] == "kernel-positional"
    j = judged("rank-one-positional-witness", positional(2, True))
    assert j["model"] == "kernel-causal" and j["lengths"] == [1, 2] and j["rank"] == 1 and j["m"] == [2, 2]


def test_multi_head_model_counts_heads_and_names_the_alphabet():
    j = judged("multi-head-exhaustive", two_heads(2))
    assert j["model"] == "kernel-heads-2" and j["alphabet"] == "all" and j["tolerance"] == HALF
    tokens = ["00", "11"]
    assert judged("multi-head-exhaustive", two_heads(2, tokens))["alphabet"] == digest(tokens)


def test_threshold_polynomial_every_symmetry():
    for symmetry, m_range in (("coordinates-and-context", [3, 3]), ("none", [3, 3]), ("scores", [1, 3])):
        j = judged("threshold-polynomial", threshold(3, symmetry))
        assert j["m"] == m_range and j["tolerance"] == 0 and j["lengths"] == [3] and j["model"] == "threshold-polynomial"


def test_polynomial_readout_table_model_carries_the_degree():
    j = judged("polynomial-readout-table", readout_table())
    assert j["model"] == "polynomial-readout-1" and j["m"] == [1, 1] and j["tolerance"] == HALF


def test_polynomial_readout_table_worst_error_is_the_direct_one():
    """Degree 3 at m = 1, length 3, some monomials absent: the checker's worst error is the one of
    evaluating h and every monomial in Fractions, sequence by sequence (all 8 sequences)."""
    from itertools import combinations_with_replacement, product

    psi = [Fraction(1), Fraction(1, 2)]
    monomials = [mono for d in range(4) for mono in combinations_with_replacement(range(2), d) if mono not in ((1, 1), (0, 1, 1))]
    # query 1: 1 - 13/4 h(0) + 5/2 h(0)^2 vanishes at h(0) = 1/2 and 4/5, the masses of one and two 0s; query 0: small;
    # plus small degree-3 terms, so the worst error is neither 0 nor near 1/2
    exact = {(): 1, (0,): Fraction(-13, 4), (0, 0): Fraction(5, 2)}
    coefficients = [[Fraction(j % 3 - 1, 40) for j in range(len(monomials))],
                    [exact.get(mono, Fraction(j % 5 - 2, 50) if len(mono) == 3 else 0) for j, mono in enumerate(monomials)]]
    worst = Fraction(0)
    for seq in product(range(2), repeat=3):
        h = {}
        for x in seq:
            h[x] = h.get(x, 0) + psi[x] / sum(psi[y] for y in seq)
        y = Fraction(0)
        for c, mono in zip(coefficients[seq[-1]], monomials):
            for a in mono:
                c *= h.get(a, 0)
            y += c
        worst = max(worst, abs(y - min((x & seq[-1]).bit_count() for x in seq)))
    assert 0 < worst < Fraction(1, 4)
    data = {"m": 1, "length": 3, "psi": encode(psi), "monomials": [list(mono) for mono in monomials],
            "coefficients": encode(coefficients)}
    assert f"worst error {worst} < 1/2" in check(envelope("polynomial-readout-table", data), max_work=10**9).summary


# --------------------------------------------------------- broken heads


def test_exhaustive_rejects_a_perturbed_readout_and_broken_symmetry():
    data = rank_one_tables(3)
    for q in range(8):  # invariant under the symmetry, so only evaluation can catch it
        data["readout"][q][q] = C.encode(Fraction(data["readout"][q][q]) + Fraction(1, 4))
    rejected("exhaustive", data, "error")
    data = rank_one_tables(3)
    data["readout"][1][0] = 99
    rejected("exhaustive", data, "not invariant")


def test_exhaustive_rejects_negative_features_and_zero_diagonal():
    rejected("exhaustive", rank_one_tables(2) | {"phi": [[-1]] + [[1]] * 3}, "nonnegative")
    rejected("exhaustive", rank_one_tables(2) | {"psi": [[0]] + [[1]] * 3}, "positive")


@pytest.mark.parametrize("field, value, reason", [
    ("lengths", [], "lengths"), ("lengths", [1, 1], "distinct"), ("lengths", [True], "integer"), ("lengths", "12", "list"),
    ("tolerance", -1, "lie in"), ("tolerance", 5, "lie in"), ("tolerance", 0.5, "tolerance"), ("tolerance", True, "tolerance"), ("tolerance", "1e9", "tolerance"),
    ("m", True, "integer"), ("m", 0, "outside"), ("target", "max-ip", "target"), ("target", ["min-ip"], "target"),
    ("symmetry", ["none"], "symmetry"), ("phi", [[1]] * 7, "rows"), ("readout", "table", "list"),
])
def test_exhaustive_type_validation(field, value, reason):
    rejected("exhaustive", rank_one_tables(3) | {field: value}, reason)


def test_other_kinds_validate_their_fields():
    rejected("rank-one-positional-witness", positional(2, False) | {"prefixes": 1}, "true or false")
    rejected("rank-one-positional-witness", positional(2, False) | {"readout": [[[0]]]}, "readout")
    rejected("multi-head-exhaustive", two_heads(2) | {"heads": []}, "heads")
    rejected("multi-head-exhaustive", two_heads(2) | {"heads": [{"phi": [[1]]}]}, "reads exactly")
    rejected("multi-head-exhaustive", two_heads(2, ["00", "00"]), "distinct")
    rejected("multi-head-exhaustive", two_heads(2) | {"alphabet": ["0"]}, "bit string")
    rejected("score-statistic", softmax_scores(3, 4) | {"kappa": [1, 1, 1]}, "entries")
    rejected("score-statistic", softmax_scores(3, 4) | {"kappa": [1, 1, 0, 1]}, "positive")
    rejected("score-statistic", softmax_scores(3, 4) | {"value": [[0], [0, 1], [0, 1, 2], [0, 1]]}, "w\\+1")
    rejected("threshold-polynomial", threshold(3, "scores") | {"coefficients": []}, "coefficients")
    rejected("threshold-polynomial", threshold(3, "orbits"), "symmetry")
    rejected("threshold-polynomial", threshold(3, "scores") | {"coefficients": [0, 1]}, "!= T|not exactly 0")
    rejected("polynomial-readout-table", readout_table() | {"monomials": [[], [1], [0]]}, "error")
    rejected("polynomial-readout-table", readout_table() | {"monomials": [[], [0], [0]]}, "twice")
    rejected("polynomial-readout-table", readout_table() | {"psi": [1, 0]}, "positive")
    rejected("polynomial-readout-table", readout_table() | {"monomials": [[], [0], [1, 0]]}, "in order")


# ------------------------------------------------------------ forgeries


def test_a_raised_tolerance_does_not_discharge_the_needed_one():
    j = judged("score-statistic", softmax_scores(12, 4))  # error < 1/2
    assert not discharges(j, j | {"tolerance": "1/4"}) and discharges(j, j | {"tolerance": HALF})
    # "error < 5" solves nothing: such a tolerance is refused, not turned into a vacuous "solves" line
    rejected("score-statistic", softmax_scores(12, 2) | {"tolerance": 5}, "lie in")


def test_vacuous_lengths_are_rejected_and_missing_lengths_do_not_discharge():
    rejected("exhaustive", rank_one_tables(3, lengths=()), "lengths")
    j = judged("exhaustive", rank_one_tables(3, lengths=(1,)))
    assert not discharges(j, j | {"lengths": [1, 2]})


def test_another_table_gives_another_head():
    ln4 = judged("score-statistic", softmax_scores(6, 4))
    shifted = softmax_scores(6, 4)
    shifted["value"][6][0] = "1/4"  # a readout the softmax head does not have, still within 1/2
    forged = judged("score-statistic", shifted)
    assert forged["head"] != ln4["head"] and not discharges(forged, ln4)
    flat = judged("score-statistic", softmax_scores(6, 4) | {"value": [0, 1, 2, 3, 4, 5, 6]})
    assert flat["head"] != ln4["head"]  # the digest keeps the table's shape


def test_m_swapped_does_not_discharge():
    j = judged("exhaustive", rank_one_tables(2))
    at3 = judged("exhaustive", rank_one_tables(3))
    assert not discharges(j, at3 | {"head": "any"}) and discharges(at3, at3 | {"head": "any"})
    small = judged("score-statistic", softmax_scores(4, 4))
    assert not discharges(small, small | {"m": [1, 5]}) and discharges(small, small | {"m": [2, 3]})
    fails = judged("score-counterexample", {k: v for k, v in softmax_scores(2, 2).items() if k != "lengths"} | {"sequence": [0, 3, 3]})
    assert not discharges(fails, fails | {"m": [3, None]}) and discharges(fails, fails | {"m": [1, None]})


def test_kind_swap_positional_is_not_a_kernel_head():
    j = judged("rank-one-positional-witness", positional(2, False))
    assert not discharges(j, j | {"model": "kernel"})
    causal = judged("rank-one-positional-witness", positional(2, True))
    assert discharges(causal, causal | {"lengths": [2]}) and not discharges(causal, causal | {"model": "kernel-positional"})


def test_multi_head_forgeries_a_smaller_alphabet_or_another_head_count():
    full = judged("multi-head-exhaustive", two_heads(2))
    subset = judged("multi-head-exhaustive", two_heads(2, ["00", "11"]))
    assert not discharges(subset, full) and discharges(full, full | {"head": "any"})
    one = two_heads(2, heads=1)
    assert not discharges(judged("multi-head-exhaustive", one), full | {"head": "any"})


def test_threshold_forgeries_orbits_are_not_every_m_and_another_g_is_another_head():
    orbits, scores = judged("threshold-polynomial", threshold(3, "coordinates-and-context")), judged("threshold-polynomial", threshold(3, "scores"))
    assert discharges(scores, orbits) and not discharges(orbits, scores)
    g1 = judged("threshold-polynomial", {"m": 3, "length": 2, "coefficients": [1, -2], "symmetry": "scores"})
    assert g1["head"] != scores["head"] and not discharges(g1, scores | {"lengths": [2]})


def test_readout_table_forgeries_degree_and_weights():
    j = judged("polynomial-readout-table", readout_table())
    assert not discharges(j, j | {"model": "polynomial-readout-2"})  # degree 1 is its own model
    other = judged("polynomial-readout-table", readout_table() | {"psi": [1, 2], "coefficients": [[0, 0, 0], [1, -2, 0]]})
    assert other["head"] != j["head"] and not discharges(other, j)
    assert discharges(j, j | {"head": "any", "m": [1, 1]}) and not discharges(j, j | {"m": [1, 2]})


# ---------------------------------------------------------------- work


@pytest.mark.parametrize("kind, data", [
    ("score-statistic", softmax_scores(2000, 4, lengths=(8,)) | {"value": list(range(2001))}),
    ("threshold-polynomial", {"m": 1000, "length": 6, "coefficients": [0, 1], "symmetry": "scores"}),
    ("threshold-polynomial", {"m": 64, "length": 6, "coefficients": [0, 1], "symmetry": "coordinates-and-context"}),
    ("exhaustive", {"m": 12, "lengths": [6], "phi": [[1]], "psi": [], "readout": [], "target": "min-ip", "tolerance": 0, "symmetry": "none"}),
    ("multi-head-exhaustive", two_heads(8) | {"lengths": [6], "symmetry": "none"}),
    ("polynomial-readout-table", {"m": 5, "length": 6, "psi": [1] * 32, "monomials": [[0] * 6], "coefficients": [[1]] * 32}),
])
def test_oversized_requests_are_refused_before_any_work(kind, data):
    start = time.monotonic()
    with pytest.raises(Refused, match=r"asks for about \S+ operations, above the limit of"):  # from the estimate
        check(envelope(kind, data))
    assert time.monotonic() - start < 60  # a hang guard only: up to 0.6 s measured on a loaded 2-core machine


def test_threshold_at_m_1000_asks_for_about_1e15():
    with pytest.raises(Refused, match=r"e\+1[56]"):
        check(envelope("threshold-polynomial", {"m": 1000, "length": 6, "coefficients": [0, 1], "symmetry": "scores"}))


@pytest.mark.parametrize("kind, data", [
    ("exhaustive", {"m": "3", "lengths": [1], "phi": 0, "psi": 0, "readout": 0, "target": 0, "tolerance": 0, "symmetry": 0}),
    ("multi-head-exhaustive", two_heads(2) | {"heads": "xx"}),
    ("score-statistic", softmax_scores(3, 4) | {"lengths": None}),
    ("score-counterexample", {"m": 2, "sequence": {}, "kappa": [1, 1, 1], "value": [0, 1, 2], "target": "min-ip", "tolerance": 1}),
    ("rank-one-positional-witness", positional(2, False) | {"psi": {"a": 1}}),
    ("polynomial-readout-table", readout_table() | {"monomials": [None]}),
    ("threshold-polynomial", {"m": 3, "length": 3, "coefficients": {}, "symmetry": 5}),
])
def test_hostile_types_are_rejected_with_a_reason(kind, data):
    with pytest.raises(CertificateError):
        check(envelope(kind, data))


def full_walk_accepts(m, base, c, lengths):
    """Reference: every (w, context multiset) walked, exactly, error < 1/2."""
    from itertools import combinations_with_replacement

    t = Fraction(1, 1) / base
    for n in lengths:
        for w in range(m + 1):
            for scores in combinations_with_replacement(range(w + 1), n - 1):
                all_scores = list(scores) + [w]
                weights = [t**s for s in all_scores]
                y = sum(k * (s + c) for k, s in zip(weights, all_scores)) / sum(weights)
                if not abs(y - min(all_scores)) < Fraction(1, 2):
                    return False
    return True


@pytest.mark.parametrize("m, base, c, lengths", [
    (7, Fraction(4), Fraction(0), (3,)), (7, Fraction(2), Fraction(0), (3,)), (9, Fraction(7, 2), Fraction(0), (3, 4)),
    (6, Fraction(5), Fraction(1, 3), (2, 3)), (6, Fraction(5), Fraction(-1, 4), (1, 3)), (5, Fraction(9), Fraction(1, 2), (1,)),
    (8, Fraction(3), Fraction(0), (4,)), (8, Fraction(11, 10), Fraction(0), (2,)),
])
def test_the_gap_reduced_score_check_decides_as_the_full_walk(m, base, c, lengths):
    """kappa = b^-s, value = s + c has the gap form: the checker walks only minimum-0 statistics,
    and accepts exactly when every statistic of the full walk has error < 1/2."""
    data = {"m": m, "lengths": list(lengths), "kappa": [C.encode(Fraction(1) / base**s) for s in range(m + 1)],
            "value": [[C.encode(s + c) for s in range(w + 1)] for w in range(m + 1)], "target": "min-ip", "tolerance": HALF}
    if full_walk_accepts(m, base, c, lengths):
        assert "minimum score 0" in check(envelope("score-statistic", data), max_work=10**9).summary
    else:
        rejected("score-statistic", data, "is not < 1/2")


def affine_walk_accepts(m, base, alpha, c, lengths, tolerance):
    """Reference: kappa = b^-s, value = alpha s + (1 - alpha) w + c, every (w, context multiset) walked."""
    from itertools import combinations_with_replacement

    for n in lengths:
        for w in range(m + 1):
            for scores in combinations_with_replacement(range(w + 1), n - 1):
                all_scores = list(scores) + [w]
                weights = [Fraction(1) / base**s for s in all_scores]
                y = sum(k * (alpha * s + (1 - alpha) * w + c) for k, s in zip(weights, all_scores)) / sum(weights)
                error = abs(y - min(all_scores))
                if not (error == 0 if tolerance == 0 else error < tolerance):
                    return False
    return True


@pytest.mark.parametrize("m, base, alpha, c, lengths, tolerance", [
    (9, Fraction(1), Fraction(2), Fraction(0), (1, 2), Fraction(0)),  # rank one, U = 2s - w: exact on lengths 1, 2
    (9, Fraction(1), Fraction(2), Fraction(0), (3,), Fraction(1, 2)),  # ... and not at length 3
    (7, Fraction(4), Fraction(3, 2), Fraction(-1, 5), (2, 3), Fraction(1, 2)),
    (7, Fraction(6), Fraction(1, 2), Fraction(1, 7), (3,), Fraction(1, 2)),
    (6, Fraction(3), Fraction(-1), Fraction(0), (2,), Fraction(1, 2)),
])
def test_the_affine_gap_form_decides_as_the_full_walk(m, base, alpha, c, lengths, tolerance):
    """value alpha s + (1 - alpha) w + c with geometric weights: only minimum-0 statistics are walked,
    and the checker accepts exactly when the full walk does."""
    data = {"m": m, "lengths": list(lengths), "kappa": [C.encode(Fraction(1) / base**s) for s in range(m + 1)],
            "value": [[C.encode(alpha * s + (1 - alpha) * w + c) for s in range(w + 1)] for w in range(m + 1)],
            "target": "min-ip", "tolerance": C.encode(tolerance)}
    if affine_walk_accepts(m, base, alpha, c, lengths, tolerance):
        assert "minimum score 0" in check(envelope("score-statistic", data), max_work=10**9).summary
    else:
        rejected("score-statistic", data, "is not")


def test_the_integer_evaluator_is_the_attention_formula_with_rows_of_distinct_denominators():
    """_attention scales each query row to integers on its own; its ratio is, sequence by sequence,
    sum_h sum_j W U / sum_j W computed in fractions (one head, several, positional tables)."""
    import random
    from itertools import product

    from solvers.trusted import evaluation as E

    rng = random.Random(15)

    def table(low):
        return [[Fraction(rng.randint(low, 999), rng.randint(1, 10**9)) for _ in range(4)] for _ in range(4)]

    def direct(heads, seq, positional):
        q = seq[-1]
        total = Fraction(0)
        for tables in heads:
            pairs = [tables[j if positional else 0] for j in range(len(seq))]
            total += sum(W[q][x] * U[q][x] for (W, U), x in zip(pairs, seq)) / sum(W[q][x] for (W, _), x in zip(pairs, seq))
        return total

    for heads, positional in (([[(table(1), table(-999))]], False),
                              ([[(table(1), table(-999))], [(table(1), table(-999))]], False),
                              ([[(table(1), table(-999)) for _ in range(3)]], True)):
        ratio = E._attention(heads, positional).ratio
        for seq in product(range(4), repeat=3):
            num, den = ratio(seq)
            assert den > 0 and Fraction(num, den) == direct(heads, seq, positional)
