"""Rigorous arb arithmetic: enclosures contain the truth, uncertain comparisons say "unknown"."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from solvers import intervals as iv

small = st.fractions(min_value=-20, max_value=20, max_denominator=50)


@given(st.lists(small, min_size=1, max_size=6), st.data())
def test_softmax_row_encloses_the_float_softmax_and_sums_to_one(logits, data):
    weights = data.draw(st.lists(st.integers(1, 9), min_size=len(logits), max_size=len(logits)))
    row = iv.softmax_row(logits, weights)
    x = np.array([float(v) for v in logits])
    e = np.exp(x - x.max()) * np.array(weights)
    for ball, value in zip(row, e / e.sum()):
        assert abs(float(ball.mid()) - value) <= float(ball.rad()) + 1e-12
        assert ball > 0
    assert sum(row[1:], row[0]).contains(1)


def test_comparisons_are_decided_only_when_certain():
    assert iv.compare(iv.exp(1), Fraction(27, 10)) == ">"
    assert iv.compare(iv.exp(1), Fraction(28, 10)) == "<"
    assert iv.compare(iv.enclose(Fraction(1, 2)), Fraction(1, 2)) == "="  # dyadic: exact balls
    assert iv.compare(iv.enclose(Fraction(1, 3)), Fraction(1, 3)) == "unknown"  # never declared equal
    # e^{1/2} e^{1/2} - e = 0 exactly, but no precision can certify a sign
    assert iv.compare_refining(lambda: iv.exp(Fraction(1, 2)) ** 2 - iv.exp(1), 0) == "unknown"
    # a difference of 2^-300 is decided once the precision is high enough
    tiny = Fraction(1, 2**300)
    assert iv.compare_refining(lambda: iv.exp(tiny) - 1, 0) == ">"


def test_floats_are_refused():
    with pytest.raises(TypeError):
        iv.enclose(0.5)
    with pytest.raises(ValueError):
        iv.log(0)


def test_lower_and_upper_are_exact_bounds():
    x = iv.exp(Fraction(1, 3))
    # e^{1/3} = 1.39561242508608...
    assert Fraction(1395612425086, 10**12) < iv.lower(x) <= iv.upper(x) < Fraction(1395612425087, 10**12)
    assert iv.upper(x) - iv.lower(x) < Fraction(1, 10**12)


@given(st.lists(st.lists(st.integers(-4, 4), min_size=3, max_size=3), min_size=3, max_size=3), st.integers(-3, 12))
def test_eigenvalue_counts_match_numpy_away_from_the_threshold(rows, threshold):
    S = np.array(rows, dtype=float)
    S = S + S.T
    eig = np.linalg.eigvalsh(S)
    if np.min(np.abs(eig - threshold)) < 1e-6:
        return  # floats cannot serve as the oracle right at the threshold
    exact = [[int(v) for v in r] for r in S]
    assert iv.eigenvalues_above(exact, threshold) == int((eig > threshold).sum())


def test_singular_value_counts_at_exact_ties():
    M = [[3, 0], [0, 1], [0, 0]]
    assert iv.singular_values_above(M, 1) == 1  # sigma_2 = 1 is not > 1
    assert iv.singular_values_above(M, Fraction(99, 100)) == 2
    assert iv.singular_values_above(M, 0) == 2
    assert iv.singular_values_above([[1, 2, 3], [2, 4, 6]], 0) == 1  # rank 1
    s = iv.singular_value_enclosures(M)
    assert s[0].contains(3) and s[1].contains(1)
    with pytest.raises(ValueError):
        iv.eigenvalues_above([[1, 2], [0, 1]], 0)  # not symmetric
