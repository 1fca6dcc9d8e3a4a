"""The paper S certificate kinds: accept what is proved, reject broken or merely float-true data."""

from fractions import Fraction

import pytest

from solvers import certificates, trusted
from theorems.core import ParameterError
from theorems.softmax_rank import _definitions as D


def cert(kind, data):
    return certificates.make(kind, "softmax_rank.test", "0" * 64, {}, certificates.encode(data))


def accepts(kind, data):
    return trusted.check(cert(kind, data))


def rejects(kind, data):
    with pytest.raises(certificates.CertificateError):
        trusted.check(cert(kind, data))


def circle(n=24, beta=Fraction(16), eps=Fraction(1, 10)):
    L = D.self_attention_logits(D.rational_circle_points(n), beta)
    rows, groups = D.search_grouped(D.attention_floats(L), eps)
    return L, rows, groups, eps


def test_grouped_lower_bound_is_accepted_and_wrong_groupings_rejected():
    L, rows, groups, eps = circle()
    data = D.lower_certificate_data(L, None, eps, rows, groups)
    assert f"rank_eps >= {len(rows)}" in accepts("approx-rank-lower", data)
    assert len(rows) >= 4
    rejects("approx-rank-lower", {**data, "groups": groups[1:] + groups[:1]})  # groups rotated against rows
    rejects("approx-rank-lower", {**data, "groups": [groups[0] + groups[1][:1]] + groups[1:]})  # overlapping
    rejects("approx-rank-lower", {**data, "epsilon": 1})  # eps >= 1 refused
    rejects("approx-rank-lower", {**data, "rows": rows[:1] + rows[:1] + rows[2:]})  # repeated row


def test_a_margin_true_only_in_floats_is_rejected():
    # Row 0 has logits 0 and multiplicities (3, 1, 2): A_0 = (1/2, 1/6, 1/3), margin 1/2 - 1/6 = 1/3
    # exactly; in floats the margin is 0.33333333333333337 > float(1/3).
    L = [[0, 0, 0], [0, 100, 0]]
    m = [3, 1, 2]
    eps = Fraction(1, 3)
    A = D.attention_floats(L, m)
    assert D.grouped_margins(A, [0, 1], [[0], [1]])[0] > float(eps)  # floats would accept
    assert D.grouped_lower(L, m, eps, [0, 1], [[0], [1]])["certain"] == [1]  # arb does not decide row 0
    rejects("approx-rank-lower", {"logits": L, "multiplicities": m, "epsilon": eps, "rows": [0, 1], "groups": [[0], [1]]})
    # just below the exact margin it is certain
    accepts("approx-rank-lower", {"logits": L, "multiplicities": m, "epsilon": eps - Fraction(1, 10**30), "rows": [0, 1], "groups": [[0], [1]]})


def test_upper_certificate_and_a_tampered_B():
    L, _, _, eps = circle(16)
    k, F, G = D.search_upper(L, None, eps)
    data = D.upper_certificate_data(L, None, eps, F, G)
    assert f"rank_eps <= {k}" in accepts("approx-rank-upper", data)
    G2 = [list(r) for r in G]
    G2[0] = [v + Fraction(1, 2) for v in G2[0]]  # shifts every row of B by F_i0/2
    rejects("approx-rank-upper", {**data, "right": G2})
    rejects("approx-rank-upper", {**data, "left": [r[:-1] for r in F]})  # lower rank, too large an error
    rejects("approx-rank-upper", {**data, "epsilon": Fraction(1, 10**12)})  # rounding of B alone exceeds it
    rejects("approx-rank-upper", {**data, "extra": 1})


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
    accepts("approx-rank-upper", D.upper_certificate_data(
        Lfull, None, eps, D.split_rows(classes, counts, F), D.split_columns(classes, counts, G)))
    rows, groups = D.search_grouped(D.self_attention_floats(points, beta, m), eps)
    accepts("approx-rank-lower", D.lower_certificate_data(
        Lfull, None, eps, D.first_copies(classes, rows), D.merge_groups(classes, groups)))
    # the weighted matrix is not the unweighted one: ignoring multiplicities breaks the upper certificate
    rejects("approx-rank-upper", D.upper_certificate_data(L, None, eps / 4, F, G))


def test_residual_two_point_constants():
    # the counterexample to tanh(delta) recorded with the paper: t = 3, p = (1/8, 7/8), w = (8, 33/32)
    documented = {"t": 3, "row": ["1/8", "7/8"], "weights": [8, "33/32"]}
    assert "exceeds tanh(delta) = 4/5" in accepts("residual-two-point", {**documented, "bound": "tanh(delta)", "relation": "exceeds"})
    rejects("residual-two-point", {**documented, "bound": "2tanh(delta/2)", "relation": "exceeds"})
    sharp = {"t": 3, "row": ["1/4", "3/4"], "weights": [9, 1]}
    accepts("residual-two-point", {**sharp, "bound": "2tanh(delta/2)", "relation": "attains"})
    rejects("residual-two-point", {**sharp, "bound": "tanh(delta)", "relation": "attains"})  # wrong constant
    rejects("residual-two-point", {**sharp, "weights": [10, 1], "bound": "2tanh(delta/2)", "relation": "exceeds"})  # w > t^2


def test_residual_bound_and_visible_dimension():
    L = [[0, 1, 2], [2, 0, 1], [1, 1, 0]]
    Lk = [[0, 1, 1], [2, 0, 0], [1, 1, 1]]
    accepts("residual-bound", {"logits": L, "approximation": Lk})
    rejects("residual-bound", {"logits": L, "approximation": Lk[:2]})
    accepts("visible-dimension", {"logits": L, "tau": 0, "count": 2})
    rejects("visible-dimension", {"logits": L, "tau": 0, "count": 3})  # rank L = 3 but rank LP = 2
    accepts("row-shift", {"logits": L, "shifted": [[v + i for v in r] for i, r in enumerate(L)]})
    rejects("row-shift", {"logits": L, "shifted": [[v + j for j, v in enumerate(r)] for r in L]})
    accepts("duality", {"matrix": [[1, -2, "1/2"], [0, 3, -1]]})
    accepts("attention-differs", {"logits": L, "other": Lk, "row": 0, "column": 2})
    rejects("attention-differs", {"logits": L, "other": [[v + 5 for v in r] for r in L], "row": 0, "column": 2})


def test_epsilon_at_least_one_is_refused_with_the_reason():
    with pytest.raises(ParameterError, match="rank is 0"):
        D.check_epsilon(1)
    with pytest.raises(ParameterError, match=r"\(0, 1\)"):
        D.check_epsilon(0)
    assert D.check_epsilon(Fraction(1, 2)) == Fraction(1, 2)


from hypothesis import given, settings, strategies as st  # noqa: E402

logit = st.fractions(min_value=-6, max_value=6, max_denominator=8)


@settings(max_examples=25)
@given(st.integers(2, 5), st.integers(2, 5), st.data())
def test_residual_bound_holds_on_random_perturbations(n, N, data):
    """S6 as a property: every random perturbation is within 2 tanh(osc_i/4), row by row."""
    L = [[data.draw(logit) for _ in range(N)] for _ in range(n)]
    E = [[data.draw(logit) for _ in range(N)] for _ in range(n)]
    accepts("residual-bound", {"logits": L, "approximation": [[a - e for a, e in zip(r, s)] for r, s in zip(L, E)]})


@settings(max_examples=15)
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


@pytest.mark.parametrize("kind, data", [
    ("approx-rank-lower", {"logits": [[0, 1]], "multiplicities": [1, 1], "epsilon": "1/10", "rows": [0], "groups": [1]}),
    ("approx-rank-lower", {"logits": [[0, 1]], "multiplicities": 1, "epsilon": "1/10", "rows": [0], "groups": [[1]]}),
    ("approx-rank-lower-points", {"points": [[1, 0]], "beta": "-1", "multiplicities": [1], "epsilon": "1/10", "rows": [0], "groups": [[0]]}),
    ("residual-two-point", {"t": 3, "row": "1/2", "weights": [1], "bound": "tanh(delta)", "relation": "exceeds"}),
    ("approx-rank-upper", {"logits": [[0, 1]], "multiplicities": [1, 1], "epsilon": "0.1", "left": [[1]], "right": [[0, 1]]}),
])
def test_malformed_data_is_a_certificate_error(kind, data):
    rejects(kind, data)
