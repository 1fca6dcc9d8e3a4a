from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from solvers import orbits
from theorems import attention as att


def test_min_ip_target_includes_the_query():
    assert att.min_ip_target([0b101]) == 2
    assert att.min_ip_target([0b001, 0b111, 0b101]) == 1
    assert att.bits(0b0011, 4) == "1100"


def test_softmax_head_output_by_hand():
    layer = att.softmax_witness(2, 4).layer()
    # q = 11, context 00 and 11: weights 1, 1/16, 1/16 on scores 0, 2, 2
    assert layer((0b00, 0b11, 0b11)) == Fraction(4, 16) / Fraction(18, 16)
    assert layer.error((0b00, 0b11, 0b11)) == Fraction(2, 9)


def test_kernel_from_features_refuses_negative_features_and_floats():
    head = att.KernelHead.from_features(lambda q: (-1,), lambda x: (1,), lambda x: (1,))
    with pytest.raises(ValueError):
        head.attend([0, 1])
    with pytest.raises(TypeError):
        att.KernelHead.from_features(lambda q: (0.5,), lambda x: (1,), lambda x: (1,)).attend([0, 1])


def test_tables_agree_with_the_layer():
    witness = att.softmax_witness(3, Fraction(5, 2))
    phi, psi, U = witness.tables()
    layer = witness.layer()
    for seq in [(1, 2, 7), (0, 0, 5), (6, 3, 3)]:
        q = seq[-1]
        weights = [sum(a * b for a, b in zip(phi[q], psi[x])) for x in seq]
        assert layer(seq) == sum(w * U[q][x] for w, x in zip(weights, seq)) / sum(weights)


@given(st.integers(1, 3), st.lists(st.fractions(min_value=-5, max_value=5, max_denominator=3), min_size=8, max_size=8),
       st.booleans())
def test_tables_readout_is_the_sum_whatever_the_entries(m, numbers, one_hot):
    """U[q][x] = <a(q), v(x)> + b(q) whether the row is summed in ints (integer values, a(q), b(q)) or in Fractions."""
    size = 1 << m
    value = (lambda x: tuple(int(i == x) for i in range(size))) if one_hot else (lambda x: tuple(numbers[(x + i) % 8] for i in range(size)))
    a = lambda q: tuple(numbers[(q * i) % 8] if q % 2 else Fraction(int(numbers[(q + i) % 8])) for i in range(size))
    b = lambda q: numbers[q % 8] if q % 3 else 7
    head = att.TokenwiseHead(m=m, phi=lambda q: (1,), psi=lambda x: (1,), value=value, a=a, b=b)
    _, _, U = head.tables()
    assert U == [[sum((Fraction(c) * Fraction(v) for c, v in zip(a(q), value(x))), Fraction(b(q))) for x in range(size)] for q in range(size)]
    assert all(type(u) is Fraction for row in U for u in row)


@given(st.integers(1, 4), st.fractions(min_value=Fraction(11, 10), max_value=8, max_denominator=10))
def test_orbit_sweep_equals_the_naive_sweep(m, base):
    layer = att.softmax_witness(m, base).layer()
    fast, naive = att.sweep_orbits(layer, m, 3), att.sweep_all(layer, m, 3)
    assert fast.worst == naive.worst
    assert fast.inputs == naive.inputs == 8**m
    assert (fast.failure is None) == (naive.failure is None)


@given(st.integers(1, 6), st.fractions(min_value=Fraction(11, 10), max_value=8, max_denominator=10))
def test_score_sweep_equals_the_token_sweep(m, base):
    """The score statistic sees exactly the errors of real token sequences."""
    head = att.ScoreHead(lambda w, s: att.softmax_weight(base, s), lambda w, s: Fraction(s))
    by_scores = att.sweep_scores(head, m, 3)
    layer = att.softmax_witness(min(m, 3), base).layer()
    by_tokens = att.sweep_orbits(layer, min(m, 3), 3)
    if m <= 3:
        assert by_scores.worst == by_tokens.worst
    w, scores = by_scores.worst_input
    assert layer_error(base, att.token_sequence(w, scores), max(w, 1)) == by_scores.worst


@given(st.integers(1, 12), st.integers(1, 4), st.fractions(min_value=Fraction(11, 10), max_value=8, max_denominator=10),
       st.fractions(min_value=-1, max_value=1, max_denominator=4))
def test_the_gap_reduced_score_sweep_equals_the_full_one(m, n, base, c):
    """Softmax weights with values s + c have the gap form: the walk over minimum-0 statistics
    finds the same worst error, worst input and first failure, and counts the same inputs."""
    head = att.ScoreHead(lambda w, s: att.softmax_weight(base, s), lambda w, s: s + c)
    assert att.gap_form(*head.tables(m)) == (1 / base, 1, c)
    reduced, full = att.sweep_scores(head, m, n), att.sweep_scores(head, m, n, reduce=False)
    assert (reduced.worst, reduced.worst_input, reduced.failure) == (full.worst, full.worst_input, full.failure)
    assert reduced.inputs == full.inputs == full.points
    assert reduced.points < full.points or m == 1 or n == 1


def test_the_rank_one_head_of_lengths_one_and_two_has_the_affine_gap_form():
    """kappa = 1, U = 2s - w (alpha = 2): the reduced walk agrees with the full one (error exactly 0)."""
    head = att.ScoreHead(lambda w, s: Fraction(1), lambda w, s: Fraction(2 * s - w))
    assert att.gap_form(*head.tables(30)) == (1, 2, 0)
    for n in (1, 2, 3):
        reduced, full = att.sweep_scores(head, 30, n, tolerance=Fraction(0)), att.sweep_scores(head, 30, n, reduce=False, tolerance=Fraction(0))
        assert (reduced.worst, reduced.worst_input, reduced.failure, reduced.inputs) == (full.worst, full.worst_input, full.failure, full.inputs)
    assert att.sweep_scores(head, 30, 2).worst == 0 and att.sweep_scores(head, 30, 3).worst > 0


def test_a_head_without_the_gap_form_is_walked_whole():
    # one value off the line s + c: no reduction, every statistic evaluated
    head = att.ScoreHead(lambda w, s: att.softmax_weight(4, s), lambda w, s: Fraction(s) + (Fraction(1, 3) if (w, s) == (5, 2) else 0))
    assert att.gap_form(*head.tables(6)) is None
    assert att.sweep_scores(head, 6, 3).points == att.sweep_scores(head, 6, 3, reduce=False).points
    weights = att.ScoreHead(lambda w, s: Fraction(1, 4 ** s) if (w, s) != (4, 3) else Fraction(1, 63), lambda w, s: Fraction(s))
    assert att.gap_form(*weights.tables(6)) is None


def layer_error(base, seq, m):
    return att.softmax_witness(m, base).layer().error(seq)


def test_invariance_of_the_softmax_tables():
    witness = att.softmax_witness(3, 4)
    _, _, U = witness.tables()
    assert orbits.invariant_under_coordinates(lambda q, x: (witness.kernel(q, x), U[q][x]), 3) is None


def test_two_heads_with_affine_mixing_by_hand():
    # head 1 attends uniformly, head 2 only to tokens with coordinate 0 set (plus a floor)
    uniform = att.KernelHead.from_features(lambda q: (1,), lambda x: (1,), lambda x: (x & 1,))
    picky = att.KernelHead.from_features(lambda q: (1, 1), lambda x: (x & 1, Fraction(1, 10)), lambda x: (x.bit_count(),))
    readout = att.AffineReadout(a=lambda q: [(2,), (Fraction(1, 2),)], b=lambda q: -1)
    layer = att.AttentionLayer((uniform, picky), readout)
    assert layer.feature_rank == 3
    seq = (0b01, 0b10, 0b11)
    h1 = Fraction(2, 3)  # two of three tokens have coordinate 0 set
    w = [Fraction(11, 10), Fraction(1, 10), Fraction(11, 10)]
    h2 = (w[0] * 1 + w[1] * 1 + w[2] * 2) / sum(w)
    assert layer(seq) == 2 * h1 + h2 / 2 - 1


def test_position_dependent_head():
    # position j weighs its token by j: later positions count more
    head = att.KernelHead.from_features(
        lambda j, q: (Fraction(1),), lambda j, x: (Fraction(j),), lambda j, x: (Fraction(x),), positional=True
    )
    assert head.attend((4, 1)) == ((1 * 4 + 2 * 1) / Fraction(3),)
    assert head.attend((1, 4)) == ((1 * 1 + 2 * 4) / Fraction(3),)


def test_polynomial_readout():
    head = att.KernelHead.from_features(lambda q: (1,), lambda x: (1,), lambda x: (Fraction(int(x == 0)),))
    square = att.PolynomialReadout(lambda q, hs: hs[0][0] ** 2, degree=2)
    layer = att.AttentionLayer((head,), square)
    assert layer((0, 0, 3)) == Fraction(4, 9)
