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

from itertools import combinations_with_replacement, islice, permutations
from math import factorial
from typing import Callable, Iterator, Sequence


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

    Returns None when invariant, else a pair ``(q, x)`` where it fails (the first, generator by
    generator, q then x).  Cost: ``4^m`` evaluations, tabulated once, then
    :func:`tables_invariant_under_coordinates`.
    """
    size = 1 << m
    return tables_invariant_under_coordinates([[[table(q, x) for x in range(size)] for q in range(size)]], m)


def tables_invariant_under_coordinates(tables: Sequence[Sequence[Sequence]], m: int) -> tuple[int, int] | None:
    """:func:`invariant_under_coordinates` for functions given as tables ``T[q][x]`` (2^m x 2^m each).

    ``T(σq, σx) == T(q, x)`` for all q, x, both generators σ and every table; a row at a
    time (row q of the moved table is row σq gathered at σx), so ``2 * 4^m`` lookups and
    list comparisons instead of ``2 * 4^m`` calls.  Returns None, or the first ``(q, x)``
    (in the order of :func:`invariant_under_coordinates`) where a table differs.
    """
    size = 1 << m
    for perm in coordinate_generators(m):
        image = [permute_bits(x, perm) for x in range(size)]
        for q in range(size):
            if any([table[image[q]][y] for y in image] != list(table[q]) for table in tables):
                return q, next(x for x in range(size) if any(t[image[q]][image[x]] != t[q][x] for t in tables))
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

    A joint type is its count vector ``c`` over the ``2^k`` column patterns; a
    permutation of positions moves pattern p to ``relabel[p]`` (a table made once per
    permutation), so the image of ``c`` is ``c[inverse]``, one gather.  The types are
    taken in blocks as arrays: for every permutation the image is gathered, compared
    lexicographically with ``c`` (the type is kept iff no image is larger), and the
    orbit size is (distinct images) x ``m! / prod c_p!``.  Representatives are built
    from the sorted columns with shifts, not bit by bit.
    """
    if not 1 <= m <= 62:
        yield from _tuples_up_to_symmetry_python(m, k, context_symmetric)
        return
    import numpy as np

    patterns = 1 << k
    position_perms = [tuple(range(k))]
    if context_symmetric and k > 2:
        position_perms = [p + (k - 1,) for p in permutations(range(k - 1))]
    inverses = []
    for perm in position_perms:  # the relabelling table of each permutation, once
        table = [_relabel(pattern, perm) for pattern in range(patterns)]
        inverse = [0] * patterns
        for pattern, image in enumerate(table):
            inverse[image] = pattern
        inverses.append(np.array(inverse))
    fact = [factorial(i) for i in range(m + 1)]
    small = fact[m] < 2**62
    fact_arr = np.array(fact, dtype=np.int64 if small else object)
    shifts = np.left_shift(np.int64(1), np.arange(m, dtype=np.int64))
    combos = combinations_with_replacement(range(patterns), m)
    while True:
        block = np.array(list(islice(combos, 1 << 16)), dtype=np.int64).reshape(-1, m)
        if not len(block):
            return
        counts = np.stack([(block == p).sum(axis=1) for p in range(patterns)], axis=1)
        keep = np.ones(len(block), dtype=bool)
        images = []
        for inverse in inverses:
            moved = counts[:, inverse]
            diff = moved - counts
            first = (diff != 0).argmax(axis=1)
            keep &= diff[np.arange(len(block)), first] <= 0  # not larger (equal images have diff 0)
            images.append(moved)
        rows = np.flatnonzero(keep)
        kept = [image[rows] for image in images]
        distinct = np.ones(len(rows), dtype=np.int64)
        for a in range(1, len(kept)):
            seen = np.zeros(len(rows), dtype=bool)
            for b in range(a):
                seen |= (kept[a] == kept[b]).all(axis=1)
            distinct += ~seen
        sizes = (distinct * (fact_arr[m] // np.prod(fact_arr[counts[rows]], axis=1))).tolist()
        xs = np.stack([((block[rows] >> j) & 1) @ shifts for j in range(k)], axis=1).tolist()
        for r in range(len(rows)):
            yield tuple(xs[r]), sizes[r]


def _tuples_up_to_symmetry_python(m: int, k: int, context_symmetric: bool = True) -> Iterator[tuple[tuple[int, ...], int]]:
    """The same enumeration in plain Python integers (m = 0, and m > 62, beyond 64-bit shifts)."""
    position_perms = [tuple(range(k))]
    if context_symmetric and k > 2:
        position_perms = [p + (k - 1,) for p in permutations(range(k - 1))]
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
