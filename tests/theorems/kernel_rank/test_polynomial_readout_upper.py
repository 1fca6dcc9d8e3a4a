from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from solvers import certificates as C
from solvers import trusted
from solvers.trusted.core import discharges
from theorems import attention as att
from theorems.core import first_discharging
from theorems.kernel_rank import polynomial_readout_upper as k6
from theorems.kernel_rank.polynomial_readout_upper import PolynomialReadoutUpper

SMALL = {"m_D1": 5, "m_D2": 4, "m_D3": 3, "m_statistic": 8, "D_exact": 8}


def envelope(data):
    return C.make("threshold-polynomial", "test.claim", "s" * 64, {}, data)


def test_verified_with_error_exactly_zero():
    claim = PolynomialReadoutUpper()
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "verified", outcome.message
    assert outcome.facts["symbolic_selector_identity"]["proved"]
    assert outcome.facts["symbolic_selector_identity"]["as_binomial"] == "binomial(D - k, D)"
    assert outcome.facts["symbolic_selector_identity"]["rests_on"] == "symbolic (sympy)"
    assert outcome.covered["D=3"]["sequences"] == 2 ** (3 * 4)
    assert outcome.facts["readout_coefficients"]["D=2"] == [1, Fraction(-9, 2), Fraction(9, 2)]
    assert [c["kind"] for c in outcome.certificates] == ["threshold-polynomial"] * 6
    assert [c["data"]["symmetry"] for c in outcome.certificates[3:]] == ["scores"] * 3
    assert outcome.covered["statistic_D=1"]["points"] == 45  # (w, s) with 0 <= s <= w <= 8


def test_every_obligation_is_discharged_and_nothing_else_does():
    claim = PolynomialReadoutUpper()
    point = claim.point(SMALL)
    needed = claim.obligations(point)
    found = [(c["kind"], trusted.check(c).judgment) for c in claim.check(point).certificates]
    assert len(needed.verify) == 6 and all(first_discharging(found, o) for o in needed.verify)
    assert needed.reach == "D = 1, 2, 3 (length D + 1), m <= 8"  # m_D <= m_statistic here; never "all"
    # g_2 certified at length 3 names another head than g_3's obligation; a smaller m_statistic does not reach 8
    g2_scores = next(j for kind, j in found if j["lengths"] == [3] and j["m"] == [1, 8])
    assert not any(discharges(g2_scores, o.judgment) for o in needed.verify if o.judgment["lengths"] == [4])
    short = trusted.check(envelope({"m": 7, "length": 3, "coefficients": C.encode(k6.selector_coefficients(2)), "symmetry": "scores"})).judgment
    assert not any(discharges(short, o.judgment) for o in needed.verify if o.judgment["m"] == [1, 8])
    # the orbit certificate at m_D2 = 4 does not stand in for m = 5
    orbit = next(j for kind, j in found if j["m"] == [4, 4] and j["lengths"] == [3])
    assert not discharges(orbit, orbit | {"m": [5, 5]})


@given(st.integers(1, 12))
def test_selector_is_the_indicator_of_zero(D):
    g = k6.selector_coefficients(D)
    assert len(g) == D + 1
    assert [k6.evaluate(g, Fraction(k, D + 1)) for k in range(D + 1)] == [1] + [0] * D


@given(st.data())
def test_the_readout_summed_over_steps_is_the_sum_over_t(data):
    """P_q(h) = sum_{t <= |q|} g(h(S_t)) on arbitrary sparse and dense h (any rational masses, any g)."""
    m = data.draw(st.integers(1, 4))
    tokens = st.integers(0, (1 << m) - 1)
    h = data.draw(st.dictionaries(tokens, st.fractions(0, 3, max_denominator=12), max_size=5))
    q = data.draw(tokens)
    g = data.draw(st.lists(st.fractions(-4, 4, max_denominator=7), min_size=1, max_size=4))
    direct = sum((k6.evaluate(g, k6.threshold_mass(h, q, t)) for t in range(1, att.weight(q) + 1)), Fraction(0))
    polynomial = k6.readout(g, len(g) - 1).polynomial
    assert polynomial(q, [h]) == direct
    assert polynomial(q, [tuple(h.get(x, Fraction(0)) for x in range(1 << m))]) == direct


@given(st.integers(1, 12), st.integers(0, 2), st.fractions(-2, 2, max_denominator=9))
def test_the_integer_selector_test_agrees_with_evaluation(D, position, change):
    g = k6.selector_coefficients(D)
    g[min(position, D)] += change
    assert k6.selects_zero(g) == ([k6.evaluate(g, Fraction(k, D + 1)) for k in range(D + 1)] == [1] + [0] * D)
    assert k6.selects_zero(g) == (change == 0)


def test_sparse_head_equals_the_dense_kernel_head():
    m = 3
    dense, sparse = att.uniform_one_hot_kernel_head(m), att.UniformOneHotHead()
    for seq in [(0, 5, 5), (7, 1, 2, 7), (3,)]:
        h_dense, h_sparse = dense.attend(seq), sparse.attend(seq)
        assert all(h_dense[x] == h_sparse.get(x, 0) for x in range(1 << m))
        layer_dense = att.AttentionLayer((dense,), k6.readout(k6.selector_coefficients(len(seq) - 1), len(seq) - 1))
        assert layer_dense(seq) == att.min_ip_target(seq)


class _ChangedCoefficient(PolynomialReadoutUpper):
    def witness(self, point):
        honest = super().witness(point)
        honest[2] = [honest[2][0], honest[2][1] + Fraction(1, 10), honest[2][2]]
        return honest


def test_a_changed_coefficient_is_not_verified():
    claim = _ChangedCoefficient()
    outcome = claim.check(claim.point(SMALL))
    assert outcome.status == "unknown" and "not established" in outcome.message  # existential: a bad witness refutes nothing
    assert outcome.counterexample["D"] == 2
    assert outcome.counterexample["error"] != 0


def test_the_checker_accepts_the_witness_with_and_without_symmetry():
    for symmetry in ("coordinates-and-context", "none", "scores"):
        data = {"m": 3, "length": 3, "coefficients": C.encode(k6.selector_coefficients(2)), "symmetry": symmetry}
        assert "y = T exactly" in trusted.check(envelope(data)).summary


@pytest.mark.parametrize("symmetry", ["coordinates-and-context", "scores"])
@pytest.mark.parametrize("position", [0, 1, 2])
def test_the_checker_rejects_a_changed_coefficient(position, symmetry):
    coefficients = k6.selector_coefficients(2)
    coefficients[position] += Fraction(1, 3)
    data = {"m": 3, "length": 3, "coefficients": C.encode(coefficients), "symmetry": symmetry}
    with pytest.raises(C.CertificateError, match="is not exactly 0"):
        trusted.check(envelope(data))


def test_the_checker_rejects_degree_d_at_length_d_plus_2():
    data = {"m": 3, "length": 4, "coefficients": C.encode(k6.selector_coefficients(2)), "symmetry": "coordinates-and-context"}
    with pytest.raises(C.CertificateError, match="is not exactly 0"):
        trusted.check(envelope(data))


def test_the_symbolic_identity_rejects_a_wrong_factor(monkeypatch):
    monkeypatch.setattr(k6, "product_factor", lambda D, k, i: 1 - k / (i + 1))
    assert not k6.prove_selector_identity()["proved"]


@given(st.integers(1, 3), st.integers(1, 3))
def test_the_score_route_agrees_with_the_orbit_route(D, m):
    base = {"length": D + 1, "coefficients": C.encode(k6.selector_coefficients(D))}
    for symmetry in ("coordinates-and-context", "scores"):
        assert "y = T exactly" in trusted.check(envelope(base | {"m": m, "symmetry": symmetry})).summary
    wrong = base | {"coefficients": C.encode(k6.selector_coefficients(D + 1)), "length": D + 1}
    with pytest.raises(C.CertificateError):  # g_{D+1} read at k/(D+1) is not the selector
        trusted.check(envelope(wrong | {"m": m + 1, "symmetry": "scores"}))
