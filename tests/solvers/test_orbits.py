from itertools import product

from hypothesis import given, strategies as st

from solvers import orbits


@given(st.integers(1, 5), st.integers(1, 3), st.booleans())
def test_orbit_sizes_add_up_to_every_tuple(m, k, context_symmetric):
    reps = list(orbits.tuples_up_to_symmetry(m, k, context_symmetric))
    assert sum(size for _, size in reps) == 2 ** (m * k)
    if not context_symmetric or k <= 2:
        assert len(reps) == orbits.type_count(m, k)


def _canonical(seq, m):
    """Brute-force orbit key: the smallest image under all coordinate and context permutations."""
    from itertools import permutations

    k = len(seq)
    images = []
    for perm in permutations(range(m)):
        moved = [orbits.permute_bits(x, perm) for x in seq]
        images.append(tuple(sorted(moved[:-1])) + (moved[-1],))
    return min(images)


def test_representatives_meet_every_orbit_once():
    m, k = 3, 3
    keys = [_canonical(rep, m) for rep, _ in orbits.tuples_up_to_symmetry(m, k)]
    assert len(keys) == len(set(keys))
    every = {_canonical(seq, m) for seq in product(range(1 << m), repeat=k)}
    assert set(keys) == every


def test_generators_detect_a_non_invariant_table():
    m = 4
    assert orbits.invariant_under_coordinates(lambda q, x: (q & x).bit_count(), m) is None
    swap, cycle = orbits.coordinate_generators(m)

    def moved(table, perm, q, x):  # the table differs at (q, x) from its image under perm
        return table(orbits.permute_bits(q, perm), orbits.permute_bits(x, perm)) != table(q, x)

    def first(q, x):  # depends on coordinate 0 specifically: the transposition (0 1) moves (1, 1)
        return q & x & 1

    def third(q, x):  # invariant under the transposition (0 1) only: the m-cycle must catch it, at (2, 0)
        return (q >> 2) & 1

    assert orbits.invariant_under_coordinates(first, m) == (1, 1) and moved(first, swap, 1, 1)
    assert not any(moved(third, swap, q, x) for q in range(1 << m) for x in range(1 << m))
    assert orbits.invariant_under_coordinates(third, m) == (2, 0) and moved(third, cycle, 2, 0)


@given(st.integers(0, 6), st.integers(1, 4), st.booleans())
def test_the_array_enumeration_equals_the_plain_one(m, k, context_symmetric):
    """Representatives, order and orbit sizes: the gathers per tabulated permutation agree with
    the column-by-column enumeration in Python integers (kept for m > 62)."""
    if m * k > 20:
        m = 20 // k
    assert list(orbits.tuples_up_to_symmetry(m, k, context_symmetric)) == \
        list(orbits._tuples_up_to_symmetry_python(m, k, context_symmetric))


def test_tables_are_checked_as_the_functions_they_tabulate():
    """The row-at-a-time check of tables agrees with the check of the functions, failure point included."""
    m, size = 4, 16
    functions = [lambda q, x: (q & x).bit_count(), lambda q, x: q & x & 1, lambda q, x: (q >> 2) & 1,
                 lambda q, x: (q | x).bit_count() * 3 + (q == 5 and x == 9)]
    for f in functions:
        table = [[f(q, x) for x in range(size)] for q in range(size)]
        assert orbits.tables_invariant_under_coordinates([table], m) == orbits.invariant_under_coordinates(f, m)
    inner = [tuple((q & x).bit_count() for x in range(size)) for q in range(size)]  # rows may be tuples
    broken = [row[:] for row in map(list, inner)]
    broken[6][3] += 1
    assert orbits.tables_invariant_under_coordinates([inner], m) is None
    assert orbits.tables_invariant_under_coordinates([inner, broken], m) == orbits.invariant_under_coordinates(
        lambda q, x: (inner[q][x], broken[q][x]), m)
    late = [row[:] for row in map(list, inner)]
    late[6][9] += 1  # both tables fail at q = 6; the first x is the second table's
    assert orbits.tables_invariant_under_coordinates([late, broken], m) == orbits.invariant_under_coordinates(
        lambda q, x: (late[q][x], broken[q][x]), m)
    assert orbits.tables_invariant_under_coordinates([[[7]]], 0) is None
