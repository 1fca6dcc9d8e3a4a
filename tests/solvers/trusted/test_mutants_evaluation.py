"""The exact-evaluation family: what mutation testing found untested in evaluation.py.

Soundness first: an error exactly at the tolerance is not "< tolerance"; the symmetry check
runs at m = 2 and uses generators of the whole S_m; fractional features and several heads
are evaluated exactly; an alphabet's tokens (not their positions) give the target; the
orbit walks cover every sequence once.  Then the exact judgment and summary of each kind
(the summary's sequence count shows what was enumerated), every rejection reason, and the
work estimates (the documented formula worked out by hand; a malformed size is REJECTED
with its reason before any estimate is compared with the limit).
"""

import copy
from fractions import Fraction
from itertools import combinations_with_replacement, permutations, product

import pytest

from solvers import certificates as C
from solvers.trusted import core
from solvers.trusted import evaluation as E
from solvers.trusted import scores as S
from solvers.trusted.core import CertificateError, digest


def envelope(kind, data):
    return C.make(kind, "test.claim", "s" * 64, {}, {}) | {"data": copy.deepcopy(data)}


def run(kind, data, max_work=10**9):
    return core.check(envelope(kind, data), max_work=max_work)


def reason(kind, data, max_work=10**9):
    with pytest.raises(CertificateError) as error:
        run(kind, data, max_work)
    return str(error.value)


def work(kind, data):
    return core.KINDS[kind][1](data)


def exact_readout(m):
    """U[q][x] = 2<q,x> - |q| with phi = psi = 1: exact on lengths 1 and 2."""
    size = 1 << m
    return [[2 * (q & x).bit_count() - q.bit_count() for x in range(size)] for q in range(size)]


def tables(m, lengths=(1, 2), symmetry="coordinates", tolerance=0, readout=None):
    size = 1 << m
    return {"m": m, "lengths": list(lengths), "phi": [[1]] * size, "psi": [[1]] * size,
            "readout": exact_readout(m) if readout is None else readout,
            "target": "min-ip", "tolerance": tolerance, "symmetry": symmetry}


def perturbed(m, queries, delta="1/4"):
    """The exact readout with U[q][q] raised by delta for the given queries."""
    U = exact_readout(m)
    for q in queries:
        U[q][q] = C.encode(Fraction(U[q][q]) + Fraction(delta))
    return U


def head(size, readout, phi=1, psi=1):
    return {"phi": [[phi]] * size, "psi": [[psi]] * size, "readout": readout}


def heads(m, hs, alphabet="all", lengths=(1, 2), tolerance=0, symmetry="none"):
    return {"m": m, "lengths": list(lengths), "alphabet": alphabet, "heads": hs, "target": "min-ip",
            "tolerance": tolerance, "symmetry": symmetry}


GAPS = "statistic points with minimum score 0 (the error depends only on the gaps above it)"


def scores(m, base, lengths=(3,), tolerance="1/2"):
    """kappa = base^-s, value = s: the softmax head at beta = ln base."""
    return {"m": m, "lengths": list(lengths), "kappa": [C.encode(Fraction(1, base**s)) for s in range(m + 1)],
            "value": [list(range(w + 1)) for w in range(m + 1)], "target": "min-ip", "tolerance": tolerance}


def counterexample(m=2, base=2, **change):
    data = {k: v for k, v in scores(m, base).items() if k != "lengths"} | {"sequence": [0, 3, 3]}
    return data | change


def positional(m, prefixes):
    """Length 2 (or prefixes 1, 2): psi_1 = 100, U_1[q][x] = <x,q>; psi_2 = 1, U_2[q][x] = |q|: error <= m/101."""
    size = 1 << m
    U1 = [[(x & q).bit_count() for x in range(size)] for q in range(size)]
    U2 = [[q.bit_count()] * size for q in range(size)]
    return {"m": m, "psi": [[100] * size, [1] * size], "readout": [U1, U2], "tolerance": "1/2", "prefixes": prefixes}


def threshold(m, symmetry, length=3, coefficients=(1, "-9/2", "9/2")):
    return {"m": m, "length": length, "coefficients": list(coefficients), "symmetry": symmetry}


READOUT_TABLE = {"m": 1, "length": 2, "psi": [1, 1], "monomials": [[], [0], [1]], "coefficients": [[0, 0, 0], [1, -2, 0]]}


def fractions(rows):
    return [[Fraction(v) for v in row] for row in rows]


def kernel_head(data):
    return digest({k: fractions(data[k]) for k in ("phi", "psi", "readout")})


def solves(model, head, rank, m, lengths, tolerance, alphabet="all"):
    return core.encode({"judgment": "solves", "model": model, "head": head, "rank": rank, "alphabet": alphabet,
                        "m": m, "lengths": lengths, "target": "min-ip", "tolerance": Fraction(tolerance)})


# ---------------------------------------------------------- soundness: what must be rejected


def test_an_error_exactly_at_the_tolerance_is_rejected():
    """U[q][q] + 1/4 errs by exactly 1/4 on the sequence (q): "error < 1/4" is false."""
    data = tables(2, symmetry="none", tolerance="1/4", readout=perturbed(2, range(4)))
    assert reason("exhaustive", data) == "sequence [0] (m=2): error 1/4 is not < 1/4"
    accepted = run("exhaustive", data | {"tolerance": "1/3"})
    assert accepted.judgment["tolerance"] == "1/3"
    assert run("exhaustive", data | {"tolerance": "1/2"}).judgment["tolerance"] == "1/2"  # the largest a "solves" may carry
    assert accepted.summary == "feature rank <= 1 head, lengths [1, 2] at m=2: 20 sequences (none), worst error 1/4, error < 1/3"


def test_tables_not_symmetric_are_rejected_at_m_2():
    """At m = 2 the only generator is the swap of the two coordinates; it must still be checked."""
    data = tables(2, readout=perturbed(2, [1]))  # U[01][01] changed, U[10][10] not
    assert reason("exhaustive", data) == "tables are not invariant under the coordinate permutation (1, 0) at q=1, x=1"


def test_the_symmetry_check_uses_a_full_m_cycle():
    """Invariant under (0 1) and (0 2)(1 3) -- a group of order 8 -- but not under the 4-cycle, so not under S_4."""
    data = tables(4, lengths=(1,), readout=perturbed(4, [0b0011, 0b1100]))
    assert reason("exhaustive", data) == "tables are not invariant under the coordinate permutation (1, 2, 3, 0) at q=3, x=3"


def test_fractional_features_are_evaluated_exactly():
    """phi = 1/2, psi = 2/3: every weight is 1/3, the same head up to scale: still exact."""
    data = tables(2) | {"phi": [["1/2"]] * 4, "psi": [["2/3"]] * 4}
    accepted = run("exhaustive", data)
    assert accepted.judgment == solves("kernel", kernel_head(data), 1, [2, 2], [1, 2], 0)
    assert accepted.summary == "feature rank <= 1 head, lengths [1, 2] at m=2: 13 sequences (coordinates), worst error 0, error exactly 0"


def test_two_heads_add_up():
    """Two heads each with half the exact readout: y is their sum, exact; either head alone errs."""
    half = [[C.encode(Fraction(v, 2)) for v in row] for row in exact_readout(2)]
    accepted = run("multi-head-exhaustive", heads(2, [head(4, half), head(4, half)]))
    assert accepted.judgment["model"] == "kernel-heads-2" and accepted.judgment["tolerance"] == 0
    assert accepted.summary == ("2 heads of feature ranks [1, 1], lengths [1, 2] over 4 tokens at m=2: "
                                "20 sequences (none), worst error 0, error exactly 0")
    assert "error" in reason("multi-head-exhaustive", heads(2, [head(4, half)]))


def test_an_alphabets_tokens_give_the_target_not_their_positions():
    """Tokens 11 and 01 (positions 0 and 1), tables indexed by position, exact for the tokens."""
    tokens = [0b11, 0b10]  # "11" and "01": coordinate 1 first
    readout = [[2 * (q & x).bit_count() - q.bit_count() for x in tokens] for q in tokens]
    accepted = run("multi-head-exhaustive", heads(2, [head(2, readout)], alphabet=["11", "01"]))
    assert accepted.judgment["alphabet"] == digest(["11", "01"])
    assert accepted.summary == "1 heads of feature ranks [1], lengths [1, 2] over 2 tokens at m=2: 6 sequences (none), worst error 0, error exactly 0"
    context = run("multi-head-exhaustive", heads(2, [head(2, readout)], alphabet=["11", "01"], lengths=(1, 2, 3), tolerance="1/2", symmetry="context"))
    assert context.summary == ("1 heads of feature ranks [1], lengths [1, 2, 3] over 2 tokens at m=2: "
                               "12 sequences (context), worst error 1/3, error < 1/2")


def test_evaluate_reads_tokens_through_the_alphabet():
    # indices (0, 1) and (1, 1) over tokens [0, 3]: the sequences (0, 3) and (3, 3), targets 0 and 2
    assert E.evaluate([(0, 1)], lambda s: Fraction(0), Fraction(1, 2), 2, tokens=[0, 3]) == (1, 0)
    with pytest.raises(CertificateError, match=r"^sequence \[3, 3\] \(m=2\): error 2 is not < 1/2$"):
        E.evaluate([(0, 1), (1, 1)], lambda s: Fraction(0), Fraction(1, 2), 2, tokens=[0, 3])
    with pytest.raises(CertificateError, match=r"^sequence \[3, 3\] \(m=2\): error 3/2 is not < 1$"):
        E.evaluate([(1, 3), (3, 3), (0, 3)], lambda s: Fraction(1, 2), Fraction(1), 2)
    assert E.evaluate([(0, 1), (1, 1)], lambda s: Fraction(1, 2) * (s[0] & s[1]), Fraction(1), 1) == (2, Fraction(1, 2))


# ---------------------------------------------------------- the orbit walks


def orbit(seq, m):
    """The least image of a sequence (query last) under coordinate permutations: an independent canonical form."""
    return min(tuple(sum(1 << p[i] for i in range(m) if x >> i & 1) for x in seq) for p in permutations(range(m)))


@pytest.mark.parametrize("m, n, count", [(2, 3, 36), (3, 2, 20), (3, 3, 120)])
def test_joint_types_meet_every_orbit_exactly_once(m, n, count):
    types = list(E._joint_types(m, n))
    everything = {orbit(seq, m) for seq in product(range(1 << m), repeat=n)}
    assert len(types) == count == len(everything)
    assert {orbit(t, m) for t in types} == everything


def test_sequences_of_each_order():
    # scores: q = 1^w, contexts 1^s for every multiset of scores s <= w <= m
    assert sorted(E._sequences(4, 3, "scores", 2)) == sorted(
        (2**s - 1, 2**t - 1, 2**w - 1) for w in range(3) for s, t in combinations_with_replacement(range(w + 1), 2))
    assert sorted(E._sequences(4, 2, "context", 2)) == sorted(product(range(4), repeat=2))
    assert sorted(E._sequences(4, 3, "context", 2)) == sorted(c + (q,) for q in range(4) for c in combinations_with_replacement(range(4), 2))
    assert sorted(E._sequences(2, 2, "none", 1)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert sorted(E._sequences(0, 3, "coordinates", 2)) == sorted(E._joint_types(2, 3))


# ---------------------------------------------------------- judgments and summaries


@pytest.mark.parametrize("m, symmetry, count", [(3, "coordinates", 24), (3, "none", 72), (1, "coordinates", 6)])
def test_exhaustive_judgment_and_count(m, symmetry, count):
    data = tables(m, symmetry=symmetry)
    accepted = run("exhaustive", data)
    assert accepted.judgment == solves("kernel", kernel_head(data), 1, [m, m], [1, 2], 0)
    assert accepted.summary == f"feature rank <= 1 head, lengths [1, 2] at m={m}: {count} sequences ({symmetry}), worst error 0, error exactly 0"


def test_multi_head_with_context_symmetry():
    accepted = run("multi-head-exhaustive", heads(2, [head(4, exact_readout(2))], symmetry="context"))
    assert accepted.summary == "1 heads of feature ranks [1], lengths [1, 2] over 4 tokens at m=2: 20 sequences (context), worst error 0, error exactly 0"


@pytest.mark.parametrize("m, kappa, lengths, expected", [
    (6, None, [3], ([1, 6], "score-statistic head solves lengths [3] for every m' <= 6: 28 " + GAPS + ", error < 1/2")),
    (1, None, [1, 2], ([1, 1], "score-statistic head solves lengths [1, 2] for every m' <= 1: 3 " + GAPS + ", error < 1/2")),
    (3, [[1], ["1", "1/4"], [1, "1/4", "1/16"], [1, "1/4", "1/16", "1/64"]], [3],
     ([1, 3], "score-statistic head solves lengths [3] for every m' <= 3: 10 " + GAPS + ", error < 1/2")),
    # not geometric in s at w = 3: no reduction, every statistic walked
    (3, [[1], ["1", "1/4"], [1, "1/4", "1/16"], [1, "1/4", "1/15", "1/64"]], [3],
     ([1, 3], "score-statistic head solves lengths [3] for every m' <= 3: 20 statistic points, error < 1/2")),
    (2, [[1], [2, "1/2"], [3, "3/4", "3/16"]], [1, 3],  # a_w = w + 1, r = 1/4
     ([1, 2], "score-statistic head solves lengths [1, 3] for every m' <= 2: 7 " + GAPS + ", error < 1/2")),
])
def test_score_statistic_judgment_and_count(m, kappa, lengths, expected):
    """Counts: with the gap form, sum over w <= m of the multisets with a context score 0 (n >= 2), w = 0 (n = 1)."""
    data = scores(m, 4, lengths=lengths) | ({"kappa": kappa} if kappa else {})
    accepted = run("score-statistic", data)
    m_range, summary = expected
    head = digest({"kappa": fractions(data["kappa"]) if kappa else [Fraction(v) for v in data["kappa"]],
                   "value": fractions(data["value"])})
    assert accepted.judgment == solves("score-statistic", head, "any", m_range, lengths, "1/2")
    assert accepted.summary == summary


def test_score_counterexample_judgment():
    accepted = run("score-counterexample", counterexample())
    head = digest({"kappa": [Fraction(1), Fraction(1, 2), Fraction(1, 4)], "value": fractions(scores(2, 2)["value"])})
    assert accepted.judgment == {"judgment": "fails", "model": "score-statistic", "head": head, "m": 2, "length": 3,
                                 "target": "min-ip", "tolerance": "1/2"}
    assert accepted.summary == "sequence [0, 3, 3] (m=2) has error 2/3 >= 1/2"
    one = run("score-counterexample", {"m": 1, "kappa": [1, 1], "value": [1, 1], "target": "min-ip", "tolerance": 1, "sequence": [0, 1]})
    assert one.summary == "sequence [0, 1] (m=1) has error 1 >= 1"


@pytest.mark.parametrize("m, prefixes, expected", [
    (2, False, ("kernel-positional", [2], "solves exact length 2 at m=2: 16 sequences, worst error 2/101, error < 1/2")),
    (2, True, ("kernel-causal", [1, 2], "solves every prefix of length <= 2 at m=2: 20 sequences, worst error 2/101, error < 1/2")),
    (1, True, ("kernel-causal", [1, 2], "solves every prefix of length <= 2 at m=1: 6 sequences, worst error 1/101, error < 1/2")),
])
def test_positional_judgment_and_count(m, prefixes, expected):
    model, lengths, words = expected
    data = positional(m, prefixes)
    accepted = run("rank-one-positional-witness", data)
    head = digest({"psi": fractions(data["psi"]), "readout": [fractions(U) for U in data["readout"]]})
    assert accepted.judgment == solves(model, head, 1, [m, m], lengths, "1/2")
    assert accepted.summary == "rank-one head with position-dependent maps " + words


@pytest.mark.parametrize("data, m_range, count", [
    (threshold(3, "coordinates-and-context"), [3, 3], 20),  # the orbits walked as the score points of m = 3
    (threshold(3, "none"), [3, 3], 512),
    (threshold(3, "scores"), [1, 3], 20),
    (threshold(4, "coordinates-and-context", length=2, coefficients=[1, -2]), [4, 4], 15),
    (threshold(1, "none", length=1, coefficients=[1]), [1, 1], 2),
])
def test_threshold_polynomial_judgment_and_count(data, m_range, count):
    accepted = run("threshold-polynomial", data)
    c = [Fraction(v) for v in data["coefficients"]]
    assert accepted.judgment == solves("threshold-polynomial", digest(c), 1, m_range, [data["length"]], 0)
    where = f"every m' <= {data['m']}" if data["symmetry"] == "scores" else f"m={data['m']}"
    walked = "sequences" if data["symmetry"] == "none" else "score points"  # (|q|, context scores): see the kind
    assert accepted.summary == (f"rank one, threshold readout of degree {len(c) - 1}: y = T exactly on every sequence of length "
                                f"{data['length']} at {where} ({count} {walked}, symmetry {data['symmetry']})")


def test_threshold_polynomial_reasons():
    wrong = threshold(5, "scores", length=4, coefficients=[1, -11, 36, -36])
    assert reason("threshold-polynomial", wrong) == "sequence [0, 0, 0, 1] (m=5): error 35/16 is not exactly 0"
    assert reason("threshold-polynomial", threshold(65, "coordinates-and-context", length=1, coefficients=[1])) == "tables of tuples need m <= 64"
    # a symmetry that is not one of the names (here a list) is estimated as "none", then rejected by the kind
    assert reason("threshold-polynomial", threshold(3, ["none"])) == \
        "symmetry must be one of ['coordinates-and-context', 'none', 'scores'], got list"


def test_polynomial_readout_table_judgment():
    accepted = run("polynomial-readout-table", READOUT_TABLE)
    assert accepted.judgment["model"] == "polynomial-readout-1" and accepted.judgment["m"] == [1, 1]
    assert accepted.summary == "rank one, tabled readout of degree 1: worst error 0 < 1/2 on 4 context multisets of length 2 at m=1, hence at every m' <= 1"


# ---------------------------------------------------------- reasons


@pytest.mark.parametrize("change, why", [
    ({"phi": [[1, 0]] * 4}, "head 0: phi and psi must have the same feature rank r"),
    ({"psi": [[1], [1], [1], [-1]]}, "head 0: feature maps must be nonnegative"),
    ({"phi": [[1, 0], [0, 1], [1, 0], [0, 1]], "psi": [[0, 1], [1, 0], [1, 0], [1, 0]]}, "head 0: kappa(q, q) must be positive for every q"),
    ({"phi": [[1]] * 3}, "phi_0 has 3 rows, expected 4"),
    ({"psi": [[1]] * 5}, "psi_0 has 5 rows, expected 4"),
    ({"readout": exact_readout(2)[:3]}, "readout_0 has 3 rows, expected 4"),
    ({"readout": [r[:3] for r in exact_readout(2)]}, "readout_0 rows must all have 4 >= 1 entries"),
    ({"lengths": [7]}, "length=7 outside [1, 6]"),
    ({"lengths": [1, 2, 3, 4, 5, 6, 1]}, "lengths has 7 entries, outside [1, 6]"),
    ({"lengths": [True]}, "length must be an integer"),
    ({"lengths": [1, 1]}, "lengths must be distinct"),
    ({"lengths": "x"}, "lengths must be a list"),
    ({"tolerance": -1}, "tolerance -1 must lie in [0, 1/2]: above 1/2 an error bound does not solve Min-IP"),
    ({"tolerance": "501/1000"}, "tolerance 501/1000 must lie in [0, 1/2]: above 1/2 an error bound does not solve Min-IP"),
    ({"tolerance": "x"}, "tolerance must be an int or a string 'p/q', got 'x'"),
    ({"target": ["min-ip"]}, "unknown target list"),
    ({"target": "x" * 50}, f"unknown target {'x' * 40!r}"),
    ({"symmetry": ["none"]}, "symmetry must be one of ['coordinates', 'none'], got list"),
    ({"symmetry": "y" * 50}, f"symmetry must be one of ['coordinates', 'none'], got {'y' * 40!r}"),
])
def test_exhaustive_reasons(change, why):
    assert reason("exhaustive", tables(2) | change) == why


@pytest.mark.parametrize("data, why", [
    (heads(1, [head(3, [[0] * 3] * 3)], alphabet=["0", "1", "1"]), "alphabet has 3 entries, outside [1, 2]"),
    (heads(1, [head(2, [[0] * 2] * 2)], alphabet="x"), "alphabet must be a list"),
    (heads(2, [head(2, [[0] * 2] * 2)], alphabet=["00", "00"]), "alphabet tokens must be distinct"),
    (heads(1, [head(2, [[0] * 2] * 2)] * 9, tolerance=5), "heads has 9 entries, outside [1, 8]"),
    (heads(1, [{"phi": [[1]] * 2}]), "head 0 reads exactly phi, psi, readout"),
    (heads(1, [{"phi": [[1, 1]] * 2, "psi": [[1]] * 2, "readout": [[0, 0], [0, 0]]}]), "head 0: phi and psi must have the same feature rank r"),
])
def test_multi_head_reasons(data, why):
    assert reason("multi-head-exhaustive", data) == why


@pytest.mark.parametrize("change, why", [
    ({"kappa": [1, -1, 1, 1]}, "kappa must be nonnegative"),
    ({"kappa": [1, 1, 1, 0]}, "kappa(w, w) must be positive (the query's own weight)"),
    ({"kappa": [1, 1, 1, "x"]}, "kappa must be an int or a string 'p/q', got 'x'"),
    ({"kappa": [1, 1, 1]}, "kappa has 3 entries, outside [4, 4]"),
    ({"kappa": [1, 1, 1, 1, 1]}, "kappa has 5 entries, outside [4, 4]"),
    ({"value": [0, 1, 2, "x"]}, "value must be an int or a string 'p/q', got 'x'"),
    ({"value": [[0], [0, 1], [0, 1, 2], [0, 1, 2, "x"]]}, "value must be an int or a string 'p/q', got 'x'"),
    ({"value": [[0], [0, 1], [0, 1, 2], [0, 1]]}, "value row w must list w+1 entries"),
    ({"target": 5}, "unknown target int"),
])
def test_score_statistic_reasons(change, why):
    assert reason("score-statistic", scores(3, 4) | change) == why


def test_a_counterexample_needs_a_positive_tolerance():
    assert reason("score-counterexample", counterexample(tolerance=0)) == "tolerance 0 must be > 0"


@pytest.mark.parametrize("kind, data, why", [
    # each size is read (and refused as malformed) before the estimate is compared with the limit
    ("exhaustive", tables(2) | {"lengths": [7]}, "length=7 outside [1, 6]"),
    ("exhaustive", tables(2) | {"m": 13}, "m=13 outside [1, 12]"),
    ("exhaustive", tables(2) | {"m": 0}, "m=0 outside [1, 12]"),
    ("multi-head-exhaustive", heads(1, [head(2, [[0] * 2] * 2)] * 9, tolerance=5), "heads has 9 entries, outside [1, 8]"),
    ("multi-head-exhaustive", heads(9, [head(2, [[0] * 2] * 2)]), "m=9 outside [1, 8]"),
    ("multi-head-exhaustive", heads(1, [head(2, [[0] * 2] * 2)], lengths=[7]), "length=7 outside [1, 6]"),
    ("score-statistic", scores(3, 4) | {"lengths": [9]}, "length=9 outside [1, 8]"),
    ("score-statistic", scores(3, 4) | {"m": 0}, "m=0 outside [1, 100000]"),
    ("score-statistic", scores(3, 4) | {"m": 100001}, "m=100001 outside [1, 100000]"),
    ("score-counterexample", counterexample() | {"m": 100001}, "m=100001 outside [1, 100000]"),
    ("score-counterexample", counterexample() | {"m": 0}, "m=0 outside [1, 100000]"),
    ("rank-one-positional-witness", positional(2, False) | {"m": 5}, "m=5 outside [1, 4]"),
    ("rank-one-positional-witness", positional(2, False) | {"m": 0}, "m=0 outside [1, 4]"),
    ("threshold-polynomial", threshold(1001, "scores"), "m=1001 outside [1, 1000]"),
    ("threshold-polynomial", threshold(3, "scores", length=7), "length=7 outside [1, 6]"),
    ("threshold-polynomial", threshold(3, "scores", length=0), "length=0 outside [1, 6]"),
    ("polynomial-readout-table", READOUT_TABLE | {"m": 6}, "m=6 outside [1, 5]"),
    ("polynomial-readout-table", READOUT_TABLE | {"length": 7}, "length=7 outside [1, 6]"),
    ("polynomial-readout-table", READOUT_TABLE | {"length": 0}, "length=0 outside [1, 6]"),
    ("polynomial-readout-table", READOUT_TABLE | {"monomials": "x"}, "monomials must be a list"),
])
def test_malformed_sizes_are_rejected_even_at_work_limit_zero(kind, data, why):
    assert reason(kind, data, max_work=0) == why


def test_short_values_in_messages():
    assert E._short("a" * 50) == repr("a" * 40) and E._short(5) == "int" and E._short(None) == "NoneType"


# ---------------------------------------------------------- work estimates


def test_count():
    # sequences times 10 n; joint types cost (10 + m) n each
    assert E._count(8, 3, "none", 3) == 10 * 3 * 8**3
    assert E._count(8, 3, "context", 3) == 10 * 3 * 8 * 36  # 8 queries, C(9, 2) context multisets
    assert E._count(8, 3, "scores", 3) == 10 * 3 * 20  # C(m + n, n)
    assert E._count(8, 3, "coordinates", 3) == 120 * 13 * 3  # C(2^3 + 3 - 1, 3) types
    assert E._count(16, 2, "coordinates", 4) == 35 * 14 * 2
    assert E._count(16, 4, "coordinates", 4) == 3876 * 14 * 4


def test_table_width():
    assert [E._width(v) for v in ([[1, 2]], [], None, [1], "ab")] == [2, 0, 0, 0, 0]
    # a flat table has m + 1 entries, a triangular one (m + 1)(m + 2) / 2
    assert [S._table_work(raw, m) for raw, m in (([1, 2], 5), ([[1]], 5), ([], 5), (None, 5), ("x", 4))] == [6, 21, 21, 21, 15]


def table_units(size, r, nnz):
    """8 units per table entry: phi and psi read (2 size r), one product per nonzero of phi and column of
    psi^T (size nnz), readout, kernel and the walk's tables (3 size^2)."""
    return 8 * size * (nnz + 2 * r + 3 * size)


def test_kernel_head_estimates():
    # tables (table_units) per head, then heads * the sequences of each length
    assert work("exhaustive", tables(3, lengths=(2, 3))) == table_units(8, 1, 8) + E._count(8, 2, "coordinates", 3) + E._count(8, 3, "coordinates", 3)
    assert work("exhaustive", tables(3, lengths=(2, 3), symmetry="none")) == table_units(8, 1, 8) + 10 * 2 * 64 + 10 * 3 * 512
    assert work("exhaustive", tables(2, lengths=(3,), symmetry="none") | {"phi": [[1, 1]] * 4}) == table_units(4, 2, 8) + 10 * 3 * 64
    two = heads(2, [head(4, exact_readout(2))] * 2, lengths=(2, 3), symmetry="context")
    assert work("multi-head-exhaustive", two) == 2 * table_units(4, 1, 4) + 2 * (10 * 2 * 4 * 4 + 10 * 3 * 4 * 10)
    with_junk = heads(2, [head(4, exact_readout(2)), 5], lengths=(2, 3), symmetry="none")
    assert work("multi-head-exhaustive", with_junk) == table_units(4, 1, 4) + 2 * (10 * 2 * 16 + 10 * 3 * 64)
    alphabet = heads(3, [head(3, exact_readout(2))], alphabet=["111", "000", "101"], lengths=(2, 3), symmetry="context")
    assert work("multi-head-exhaustive", alphabet) == table_units(3, 1, 3) + (10 * 2 * 3 * 3 + 10 * 3 * 3 * 6)


def test_kernel_products_are_counted_per_nonzero_feature():
    # one-hot phi (softmax as a kernel): kappa(q, x) is one product, not r; an entry written "0" is zero,
    # anything else (even "0/1", or a malformed entry) counts as nonzero: the estimate stays an upper bound
    one_hot = [[int(i == q) for i in range(4)] for q in range(4)]
    sparse = tables(2, lengths=(3,), symmetry="none") | {"phi": one_hot, "psi": one_hot}
    assert work("exhaustive", sparse) == table_units(4, 4, 4) + 10 * 3 * 64
    assert work("exhaustive", sparse | {"phi": [["0" if v == 0 else 1 for v in row] for row in one_hot]}) == work("exhaustive", sparse)
    assert work("exhaustive", sparse | {"phi": [["0/1" if v == 0 else 1 for v in row] for row in one_hot]}) == table_units(4, 4, 16) + 10 * 3 * 64
    assert work("exhaustive", sparse | {"phi": [[1, 0, 0, {}]] * 4}) == table_units(4, 4, 8) + 10 * 3 * 64
    assert E._nonzero("junk") == 0 and E._nonzero([5, [0, 2]]) == 1


def test_positional_estimate():
    # every sequence of each length 1..n (10 k operations each), plus 3 n 4^m for the tables
    assert work("rank-one-positional-witness", positional(2, False)) == 10 * (4 + 2 * 16) + 3 * 2 * 16
    four = {"m": 3, "psi": [[1] * 8] * 4, "readout": [], "tolerance": 0, "prefixes": False}
    assert work("rank-one-positional-witness", four) == 10 * (8 + 2 * 64 + 3 * 512 + 4 * 4096) + 3 * 4 * 64


def test_score_estimates():
    # 4 (calibration) * (table + (m + 1)^2 + sum_n n C(m + n, n)); with the gap form (softmax) sum_n n C(m + n - 1, n - 1)
    assert work("score-statistic", scores(6, 4, lengths=(2, 3))) == 4 * (7 + 49 + 2 * 7 + 3 * 28)
    not_geometric = scores(6, 4, lengths=(2, 3)) | {"kappa": [1, "1/4", "1/16", "1/64", "1/256", "1/1024", "1/4095"]}
    assert work("score-statistic", not_geometric) == 4 * (7 + 49 + 2 * 28 + 3 * 84)
    assert work("score-statistic", scores(6, 4, lengths=(2, 3)) | {"kappa": [[1]] * 7}) == 4 * (28 + 49 + 2 * 28 + 3 * 84)
    # both tables + 64 (m + 1)
    assert work("score-counterexample", {"m": 6, "kappa": [1] * 7, "value": [[1]] * 7}) == 7 + 28 + 64 * 7
    assert work("score-counterexample", {"m": 6, "kappa": [[1]] * 7, "value": [1] * 7}) == 28 + 7 + 64 * 7


@pytest.mark.parametrize("m, symmetry, n, expected", [
    (3, "none", 3, E._count(8, 3, "none", 3)),
    (5, "coordinates-and-context", 3, 10 * 3 * 56),  # the orbits walked as score points: C(5 + 3, 3)
    (4, "coordinates", 2, 10 * 2 * 16**2),  # not a symmetry of this kind: estimated as "none"
    (70, "scores", 4, 10 * 4 * 1150626),  # scores: C(74, 4), m itself (not capped)
    (70, "coordinates-and-context", 2, 10 * 2 * 2556),  # score points C(72, 2), m itself (the kind rejects m > 64)
    (70, "none", 2, 10 * 2 * 2**128),
    (3, "bogus", 2, 10 * 2 * 64),  # an unknown symmetry is estimated as "none" (the kind then rejects it)
    (2, "context", 3, 10 * 3 * 4**3),  # not a symmetry of this kind: estimated as "none"
])
def test_threshold_estimate(m, symmetry, n, expected):
    assert work("threshold-polynomial", threshold(m, symmetry, length=n)) == expected


def test_readout_table_estimate():
    # size * columns + context multisets * (n + sum_{d <= D} C(n + d - 1, d) d)
    assert work("polynomial-readout-table", READOUT_TABLE) == 2 * 3 + 10 * 2 * 2 * 2 * (2 + 2)
    data = {"m": 2, "length": 3, "monomials": [[], [0, 1, 1], "x", [2, 3]], "coefficients": [[1] * 5] * 4}
    assert work("polynomial-readout-table", data) == 4 * 5 + 10 * 3 * 4 * 10 * (3 + 3 + 2 * 6 + 3 * 10)
    assert work("polynomial-readout-table", {"m": 2, "length": 3, "monomials": ["x"], "coefficients": 5}) == 10 * 3 * 4 * 10 * 3
