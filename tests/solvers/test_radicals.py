from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from solvers import radicals

FIELD = radicals.Multiquadratic([2, 3, 5, 7])
coefficients = st.dictionaries(st.integers(0, 3), st.fractions(min_value=-5, max_value=5, max_denominator=6), max_size=4)


def test_products_of_square_roots():
    r2, r3 = FIELD.sqrt(0), FIELD.sqrt(1)
    assert (r2 * r2).terms == ((0, Fraction(2)),)
    assert (r2 * r3 * r2 * r3).terms == ((0, Fraction(6)),)
    assert ((r2 + r3) * (r2 - r3)).terms == ((0, Fraction(-1)),)
    assert (r2 * r3).coefficient(0b11) == 1


@given(coefficients, coefficients)
def test_ring_laws_and_enclosures(a, b):
    x, y = FIELD.combination(a), FIELD.combination(b)
    assert x + y == y + x and x * y == y * x
    assert (x - x).is_zero()
    assert (x + y) - y == x
    ball, exact = (x * y).enclosure(200), x.enclosure(200) * y.enclosure(200)
    assert (ball - exact).contains(0)


@given(coefficients, coefficients)
def test_distinct_vectors_have_disjoint_balls(a, b):
    x, y = FIELD.combination(a), FIELD.combination(b)
    if x != y:
        # distinct by the premise; the balls show it without the premise
        assert not (x.enclosure(300) - y.enclosure(300)).contains(0)


def test_the_field_needs_distinct_primes():
    with pytest.raises(ValueError, match="distinct"):
        radicals.Multiquadratic([2, 2])
    with pytest.raises(ValueError, match="not prime"):
        radicals.Multiquadratic([2, 9])


def test_linear_coefficients_refuse_products():
    with pytest.raises(ValueError):
        (FIELD.sqrt(0) * FIELD.sqrt(1)).linear_coefficients()
    assert FIELD.combination({1: Fraction(1, 3)}).linear_coefficients() == {1: Fraction(1, 3)}


def test_first_primes():
    assert radicals.first_primes(8) == [2, 3, 5, 7, 11, 13, 17, 19]
