"""The paper S search helpers (_definitions) against the trusted checker: what they find is certified.

The kinds themselves (honest, broken, forged, oversized) are tested in
tests/solvers/trusted/test_intervals.py and test_ranks.py.
"""

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from solvers import certificates, trusted
from theorems.core import ParameterError
from theorems.softmax_rank import _definitions as D


def cert(kind, data):
    return certificates.make(kind, "softmax_rank.test", "0" * 64, {}, certificates.encode(data))


def accepts(kind, data):
    return trusted.check(cert(kind, data)).judgment


def rejects(kind, data):
    with pytest.raises(certificates.CertificateError):
        trusted.check(cert(kind, data))


def circle(n=24, beta=Fraction(16), eps=Fraction(1, 10)):
    L = D.self_attention_logits(D.rational_circle_points(n), beta)
    rows, groups = D.search_grouped(D.attention_floats(L), eps)
    return L, rows, groups, eps


def test_grouped_search_is_certified():
    L, rows, groups, eps = circle()
    assert len(rows) >= 4
    judgment = accepts("approx-rank-lower", D.lower_certificate_data(L, None, eps, rows, groups))
    assert judgment["bound"] == len(rows) and judgment["n"] == 24


def test_grouped_lower_decides_in_arb_what_floats_only_suggest():
    # row 0: logits 0, multiplicities (3, 1, 2): A_0 = (1/2, 1/6, 1/3), margin 1/2 - 1/6 = 1/3 exactly;
    # in floats the margin is 0.33333333333333337 > float(1/3)
    L, m, eps = [[0, 0, 0], [0, 100, 0]], [3, 1, 2], Fraction(1, 3)
    assert D.grouped_margins(D.attention_floats(L, m), [0, 1], [[0], [1]])[0] > float(eps)
    assert D.grouped_lower(L, m, eps, [0, 1], [[0], [1]])["certain"] == [1]


def test_upper_search_is_certified():
    L, _, _, eps = circle(16)
    k, F, G = D.search_upper(L, None, eps)
    assert accepts("approx-rank-upper", D.upper_certificate_data(L, None, eps, F, G))["bound"] == k


def test_instances_and_obligations_name_what_the_checker_names():
    points, m, beta, eps = D.rational_circle_points(6), [1, 2, 1, 2, 1, 2], Fraction(4), Fraction(1, 10)
    rows, groups, _ = D.certified_grouped_points(points, beta, m, eps)
    k, F, G = D.search_upper(D.self_attention_logits(points, beta), m, eps)
    lower = accepts("approx-rank-lower-points", D.lower_certificate_points(points, beta, m, eps, rows, groups))
    upper = accepts("approx-rank-upper-points", D.upper_certificate_points(points, beta, m, eps, F, G))
    assert lower["instance"] == upper["instance"] == D.points_instance(points, beta, m)
    needed = D.sandwich_obligations("test", points, beta, m, eps, len(rows), k, 2)
    assert [o.judgment for o in needed] == [lower, upper]
    assert "6 points of S^1, 9 with copies" in needed[0].words
    assert D.sandwich_obligations("test", points, beta, m, eps, len(rows), None, 2) == needed[:1]


def test_multiplicity_lemma_maps_certificates_to_the_full_instance():
    points = D.rational_circle_points(12)
    m = [1 + j % 3 for j in range(12)]
    beta, eps = Fraction(9), Fraction(1, 10)
    L = D.self_attention_logits(points, beta)
    k, F, G = D.search_upper(L, m, eps)
    full = D.expand(points, m)
    _, counts, classes = D.distinct_with_multiplicities(full)
    assert counts == m
    Lfull = D.self_attention_logits(full, beta)
    upper = accepts("approx-rank-upper", D.upper_certificate_data(
        Lfull, None, eps, D.split_rows(classes, counts, F), D.split_columns(classes, counts, G)))
    rows, groups = D.search_grouped(D.self_attention_floats(points, beta, m), eps)
    lower = accepts("approx-rank-lower", D.lower_certificate_data(
        Lfull, None, eps, D.first_copies(classes, rows), D.merge_groups(classes, groups)))
    assert (lower["bound"], upper["bound"], lower["n"]) == (len(rows), k, sum(m))
    # the weighted matrix is not the unweighted one: ignoring multiplicities breaks the upper certificate
    rejects("approx-rank-upper", D.upper_certificate_data(L, None, eps / 4, F, G))


def test_epsilon_at_least_one_is_refused_with_the_reason():
    with pytest.raises(ParameterError, match="rank is 0"):
        D.check_epsilon(1)
    with pytest.raises(ParameterError, match=r"\(0, 1\)"):
        D.check_epsilon(0)
    assert D.check_epsilon(Fraction(1, 2)) == Fraction(1, 2)


@settings(max_examples=15, deadline=None)
@given(st.integers(3, 8), st.fractions(min_value=1, max_value=40, max_denominator=4), st.sampled_from([Fraction(1, 10), Fraction(1, 3), Fraction(2, 3)]))
def test_certified_lower_never_exceeds_certified_upper(n, beta, eps):
    points = D.rational_circle_points(n)
    L = D.self_attention_logits(points, beta)
    rows, groups = D.search_grouped(D.self_attention_floats(points, beta), eps)
    verdicts = D.grouped_lower(L, None, eps, rows, groups)
    assert not verdicts["not"]  # the float search never proposes a margin that arb finds false here
    k, F, G = D.search_upper(L, None, eps)
    accepts("approx-rank-upper-points", D.upper_certificate_points(points, beta, None, eps, F, G))
    certain = [(i, g) for i, g in zip(rows, groups) if i in verdicts["certain"]]
    if certain:
        accepts("approx-rank-lower-points", D.lower_certificate_points(points, beta, None, eps, *map(list, zip(*certain))))
    assert len(certain) <= k


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**32 - 1), st.sampled_from([1.0, 8.0, 64.0]), st.fractions(Fraction(1, 100), Fraction(9, 10)))
def test_the_grouped_search_is_the_plain_definition(n, seed, beta, eps):
    """voronoi_groups, grouped_margins and search_grouped against a plain reading of their definitions: each
    column to its heaviest chosen row (first on ties), kept only at ratio times the runner-up, the margins
    summed column by column; the search's answer is Voronoi groups at one of the ratios, its margins > eps."""
    import numpy as np

    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)) * 4) / 4  # ties among the masses
    L = beta * X @ X.T / max(1.0, float(np.abs(X).max()) ** 2)
    A = np.exp(L - L.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    rows = sorted(set(rng.choice(n, size=int(rng.integers(1, n + 1))).tolist()))
    for ratio in D.GAP_RATIOS:
        plain = [[] for _ in rows]
        for j in range(n):
            masses = [A[i, j] for i in rows]
            top = max(range(len(rows)), key=lambda t: (masses[t], -t))
            runner = max((masses[t] for t in range(len(rows)) if t != top), default=None)
            if ratio <= 1 or runner is None or masses[top] >= ratio * runner:
                plain[top].append(j)
        assert D.voronoi_groups(A, rows, ratio) == plain
        if all(plain):
            margins = D.grouped_margins(A, rows, plain)
            for t, i in enumerate(rows):
                own = sum(A[i, j] for j in plain[t])
                rest = sum(A[i, j] for s, g in enumerate(plain) if s != t for j in g)
                assert abs(margins[t] - (own - rest)) < 1e-12
    found, groups = D.search_grouped(A, eps)
    if found:
        assert any(D.voronoi_groups(A, found, r) == groups for r in D.GAP_RATIOS)
        assert min(D.grouped_margins(A, found, groups)) > float(eps)


def test_integers_digest_is_the_digest():
    from solvers.trusted.core import digest

    tables = {"kappa": [Fraction(1)] * 4, "value": [list(range(-w, w + 1, 2)) for w in range(4)], "scale": Fraction(3, 7),
              "mixed": [[1, Fraction(1, 2)], [3, 4]], "multiplicities": [1, 1], "empty": []}
    assert D.integers_digest(tables) == digest(tables)
    assert D.integers_digest({"value": [[1, 2], [3]]}) != D.integers_digest({"value": [[1, 2], [4]]})
