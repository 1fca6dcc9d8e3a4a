from fractions import Fraction

import sympy
from hypothesis import given, strategies as st

from solvers import exact

small_matrices = st.integers(1, 6).flatmap(
    lambda r: st.integers(1, 6).flatmap(
        lambda c: st.lists(st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=4), min_size=c, max_size=c), min_size=r, max_size=r)
    )
)


@given(small_matrices)
def test_rank_agrees_with_sympy(matrix):
    assert exact.rank(matrix) == sympy.Matrix(matrix).rank()


@given(small_matrices)
def test_minor_and_factorisation_certify_the_rank(matrix):
    r = exact.rank(matrix)
    rows, cols = exact.nonsingular_minor(matrix)
    assert len(rows) == r
    assert exact.minor_is_nonsingular(matrix, rows, cols, exact.DEFAULT_PRIME)
    F, G = exact.factorisation(matrix)
    assert len(G) == r
    if r == 0:
        assert all(v == 0 for row in matrix for v in row)
    else:
        assert exact.matmul(F, G) == [[Fraction(v) for v in row] for row in matrix]


@given(small_matrices)
def test_nullspace_vectors_are_killed(matrix):
    basis = exact.nullspace(matrix)
    assert len(basis) == len(matrix[0]) - exact.rank(matrix)
    for x in basis:
        assert all(sum(Fraction(a) * b for a, b in zip(row, x)) == 0 for row in matrix)


def test_singular_minor_is_rejected():
    matrix = [[1, 2], [2, 4]]
    assert not exact.minor_is_nonsingular(matrix, [0, 1], [0, 1], exact.DEFAULT_PRIME)
    assert not exact.minor_is_nonsingular([[1, 0], [0, 1]], [0, 1], [0, 1], 15)  # not a prime


@given(st.integers(1, 5), st.integers(-6, 6), st.fractions(min_value=Fraction(1, 50), max_value=Fraction(49, 50)))
def test_max_linear_times_geometric_matches_brute_force(alpha, beta, t):
    value, arg, _ = exact.max_linear_times_geometric(alpha, beta, t)
    brute = max((alpha * d + beta) * t**d for d in range(1, 400))
    assert value == brute
    assert (alpha * arg + beta) * t**arg == value


def test_floats_are_refused():
    import pytest

    with pytest.raises(TypeError):
        exact.rank([[0.5, 1]])
