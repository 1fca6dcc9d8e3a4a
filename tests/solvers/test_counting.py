from itertools import combinations
from math import comb

import pytest
from hypothesis import given, strategies as st

from solvers import counting


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=6), st.integers(1, 5))
def test_min_closure_matches_subsets(generators, depth):
    levels = counting.min_closure(generators, depth)
    assert len(levels) == depth
    for s, level in enumerate(levels, start=1):
        brute = set()
        for size in range(1, min(s, len(generators)) + 1):
            for subset in combinations(generators, size):
                brute.add(tuple(min(column) for column in zip(*subset)))
        assert set(level) == brute
        for f, indices in level.items():  # the recorded index set realises the function
            assert len(indices) <= s and tuple(min(c) for c in zip(*(generators[i] for i in indices))) == f


def whole_level_closure(generators, depth):
    """The closure recombining the whole level each time (the reference for the frontier walk)."""
    level = {}
    for i, g in enumerate(generators):
        level.setdefault(tuple(g), (i,))
    levels = [level]
    while len(levels) < depth:
        grown = dict(levels[-1])
        for f, indices in levels[-1].items():
            for i, g in enumerate(generators):
                grown.setdefault(tuple(map(min, f, g)), indices + (i,))
        levels.append(grown)
    return levels


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=8),
       st.integers(1, 6))
def test_the_frontier_walk_gives_the_whole_level_walk_with_the_same_witnesses(generators, depth):
    fast, slow = counting.min_closure(generators, depth), whole_level_closure(generators, depth)
    assert [list(level.items()) for level in fast] == [list(level.items()) for level in slow]


def test_ceil_log2():
    assert [counting.ceil_log2(n) for n in (1, 2, 3, 4, 5, 16, 17, 167)] == [0, 1, 2, 2, 3, 4, 5, 8]
    with pytest.raises(ValueError):
        counting.ceil_log2(0)


@given(st.integers(0, 60), st.integers(1, 15))
def test_binomial_beats_power_is_the_largest(M, a):
    s = counting.binomial_beats_power(M, a)
    assert all(comb(M, t) >= a**t for t in range(s + 1))
    assert all(comb(M, t) < a**t for t in range(s + 1, M + 1))
