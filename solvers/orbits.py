"""Enumeration of tuples of bit vectors up to symmetry.

A tuple ``(x_1, ..., x_k)`` of vectors in ``{0,1}^m`` (ints, bit ``i`` is
coordinate ``i``) is seen column by column: coordinate ``i`` carries the
*pattern* ``(x_1[i], ..., x_k[i]) in {0,1}^k``.  Permuting the m coordinates
permutes the columns, so the orbit of a tuple under ``S_m`` is determined by
its **joint type**: the number of coordinates carrying each of the ``2^k``
patterns.  There are ``C(m + 2^k - 1, 2^k - 1)`` types, against ``2^{mk}``
tuples.

Optionally the first ``k - 1`` positions (the *context*, the last position
being the query) may also be permuted: then one type per orbit of the
position group suffices, since any function of a multiset of context tokens
is invariant under it.

Using one representative per orbit is valid only for a function that is
invariant under the group; :func:`invariant_under_coordinates` checks that on
the generators (a transposition and an m-cycle generate ``S_m``), so it is
checked, never assumed.
"""

from __future__ import annotations

from itertools import combinations_with_replacement, permutations
from math import factorial
from typing import Callable, Iterator


def popcount(x: int) -> int:
    return x.bit_count()


def permute_bits(x: int, perm: tuple[int, ...]) -> int:
    """Move coordinate ``i`` of ``x`` to coordinate ``perm[i]``."""
    y = 0
    for i, target in enumerate(perm):
        if x >> i & 1:
            y |= 1 << target
    return y


def coordinate_generators(m: int) -> list[tuple[int, ...]]:
    """A transposition and an m-cycle: together they generate the symmetric group S_m."""
    if m < 2:
        return []
    swap = (1, 0) + tuple(range(2, m))
    cycle = tuple((i + 1) % m for i in range(m))
    return [swap] if m == 2 else [swap, cycle]


def invariant_under_coordinates(
    table: Callable[[int, int], object], m: int
) -> tuple[int, int] | None:
    """Check ``table(σq, σx) == table(q, x)`` for all q, x and both generators σ.

    Returns None when invariant, else a pair ``(q, x)`` where it fails.
    Cost: ``2 * 4^m`` evaluations.
    """
    for perm in coordinate_generators(m):
        image = [permute_bits(x, perm) for x in range(1 << m)]
        for q in range(1 << m):
            for x in range(1 << m):
                if table(image[q], image[x]) != table(q, x):
                    return (q, x)
    return None


def type_count(m: int, k: int) -> int:
    """Number of joint types of k vectors in {0,1}^m: C(m + 2^k - 1, 2^k - 1)."""
    patterns = 1 << k
    numerator = 1
    for i in range(1, patterns):
        numerator = numerator * (m + i) // i
    return numerator


def _orbit_size(counts: tuple[int, ...], m: int) -> int:
    size = factorial(m)
    for c in counts:
        size //= factorial(c)
    return size


def _tuple_of(columns: tuple[int, ...], k: int) -> tuple[int, ...]:
    """The tuple whose coordinate i carries pattern columns[i] (bit j of a pattern = x_{j+1}[i])."""
    xs = [0] * k
    for i, pattern in enumerate(columns):
        for j in range(k):
            if pattern >> j & 1:
                xs[j] |= 1 << i
    return tuple(xs)


def _relabel(pattern: int, perm: tuple[int, ...]) -> int:
    """Apply a permutation of positions to one column pattern."""
    return permute_bits(pattern, perm)


def tuples_up_to_symmetry(m: int, k: int, context_symmetric: bool = True) -> Iterator[tuple[tuple[int, ...], int]]:
    """Yield ``(representative, orbit_size)`` covering ``({0,1}^m)^k`` exactly once per orbit.

    The group is ``S_m`` on coordinates, times ``S_{k-1}`` on the context
    positions when ``context_symmetric``.  The orbit sizes add up to ``2^{mk}``
    (tests check this), so coverage is accounted for exactly.
    """
    position_perms = [tuple(range(k))]
    if context_symmetric and k > 2:
        position_perms = [p + (k - 1,) for p in permutations(range(k - 1))]
    # how each position permutation relabels the 2^k column patterns, computed once
    relabels = [[_relabel(pattern, perm) for pattern in range(1 << k)] for perm in position_perms]
    for columns in combinations_with_replacement(range(1 << k), m):
        counts = [0] * (1 << k)
        for pattern in columns:
            counts[pattern] += 1
        key = tuple(counts)
        images = set()
        canonical = True
        for relabel in relabels:
            moved = [0] * (1 << k)
            for pattern, c in enumerate(counts):
                moved[relabel[pattern]] += c
            moved = tuple(moved)
            if moved > key:  # keep the lexicographically largest image as representative
                canonical = False
                break
            images.add(moved)
        if not canonical:
            continue
        yield _tuple_of(columns, k), len(images) * _orbit_size(key, m)

