"""The reduced rank-one LP decided at scale: closed-form least rows, row generation, certificates in reduced form."""

import random
from fractions import Fraction

import pytest

from solvers import certificates as C
from solvers import lp, trusted
from solvers.certificates import CertificateError
from theorems.kernel_rank import _linearised as lin

PROBLEMS = [(3, False), (3, True), (4, False), (4, True)]


@pytest.mark.parametrize("n,positions", PROBLEMS)
@pytest.mark.parametrize("m", [2, 3, 4])
def test_the_closed_form_least_row_is_the_least_row_of_the_whole_lp(m, n, positions):
    """At a random integer point, the least value per (w, t, side) equals the brute-force minimum
    over every row of reduced_rank_one (written whole), and the row named attains it."""
    types = lin.ReducedTypes(m, n, positions)
    whole = lin.reduced_rank_one(m, n, positions)
    rng = random.Random(m * 10 + n + positions)
    x = [rng.randint(0, 9) if c < types.psi_cols else rng.randint(-9, 9) for c in range(types.nvars)]
    point = [0] * types.nvars
    for c in range(types.nvars):
        point[whole.index[types.key_of(c)]] = x[c]
    brute = {}
    for row, label in zip(whole.system.rows, whole.labels):
        if label[0] != "seq":
            continue
        w, context = label[2]
        t = min([s for _, s in context] + [w])
        value = sum(c * point[j] for j, c in row.coefs.items())
        key = (label[1], w, t)
        brute[key] = min(brute.get(key, value), value)
    least = {}
    for value, key in types.least_rows(x, exact=True):
        side, w, context = key
        t = min(int(types.s[w][tau]) for tau in context + (types.query[w],))
        assert sum(c * x[col] for col, c in types.row(key).items()) == value  # the key names a row of that value
        least[side, w, t] = min(least.get((side, w, t), value), value)
    assert least == brute


@pytest.mark.parametrize("n,positions", PROBLEMS)
@pytest.mark.parametrize("m", [1, 3, 4, 6])
def test_row_generation_decides_like_the_whole_lp(m, n, positions):
    found = lin.decide_reduced(m, n, positions)
    assert found.rows == lin.reduced_size(m, n, positions) and found.used <= found.rows
    if m <= 3:
        assert isinstance(found.decision, lp.Feasible)
        # an exact point of every row of the whole LP, not only of the rows generated
        whole = lin.reduced_rank_one(m, n, positions)
        types = lin.ReducedTypes(m, n, positions)
        point = [Fraction(0)] * types.nvars
        for c in range(types.nvars):
            point[whole.index[types.key_of(c)]] = found.decision.point[c]
        assert lp.holds(whole.system, point)
    else:
        assert isinstance(found.decision, lp.Infeasible) and lp.refutes(found.problem.system, found.decision.multipliers)


def reduced_certificate(m, n, positions, hint=()):
    found = lin.decide_reduced(m, n, positions, hint=hint)
    rows, nonneg, _ = lin.certificate_rows(found.problem, found.decision.multipliers, m, reduced=True)
    return {"m": m, "positions": positions, "rows": rows, "nonnegative": nonneg}


def test_a_certificate_at_m_48_is_checked_in_reduced_form_with_work_independent_of_m():
    data = reduced_certificate(48, 3, False)  # about 1 s of CPU (docs/performance.md)
    accepted = trusted.check(C.make("rank-one-reduced-infeasible", "test", "s" * 64, {}, data))
    assert accepted.judgment["m"][1] is None and 4 <= accepted.judgment["m"][0] <= 48
    assert accepted.judgment["length"] == 3 and accepted.judgment["model"] == "kernel"
    # the work estimate reads the data's size, never m: the same rows at m = 10^6 ask no more
    from solvers.trusted.linear import _work_reduced

    assert _work_reduced(data) == _work_reduced(data | {"m": 10**6}) < 10**4


def test_a_hint_from_a_smaller_m_is_used_and_a_broken_reduced_certificate_is_rejected():
    small = reduced_certificate(4, 4, True)
    data = reduced_certificate(20, 4, True, hint=small["rows"])
    trusted.check(C.make("rank-one-reduced-infeasible", "test", "s" * 64, {}, data))
    broken = [row[:] for row in data["rows"]]
    broken[0][1] = Fraction(broken[0][1]) * 2  # one multiplier doubled: the combination no longer vanishes
    with pytest.raises(CertificateError):
        trusted.check(C.make("rank-one-reduced-infeasible", "test", "s" * 64, {}, data | {"rows": broken}))
    unrealisable = [row[:3] + [[[2, 3]] + row[3][1:]] for row in data["rows"]]  # s = 3 > v = 2
    with pytest.raises(CertificateError):
        trusted.check(C.make("rank-one-reduced-infeasible", "test", "s" * 64, {}, data | {"rows": unrealisable}))


def test_key_from_types_refuses_types_that_m_cannot_realise():
    types = lin.ReducedTypes(5, 3)
    key = types.key_from_types("lo", 2, [(2, 0), (2, 2)])
    assert types.label(key) == ("seq", "lo", (2, ((2, 0), (2, 2))))
    assert types.key_from_types("lo", 2, [(5, 0), (2, 2)]) is None  # v - s = 5 > m - w = 3
    assert types.key_from_types("lo", 6, [(2, 0), (2, 2)]) is None  # w > m


@pytest.mark.parametrize("n", [3, 4])
def test_the_pinned_columns_lie_on_lines_that_every_positional_row_keeps(n):
    """With positions, adding c_j to every P_{j,w,.} with sum_j c_j = 0 changes no row, so the
    search may pin P_{j,w,q} = 0 for j < n; the pinned columns are exactly those."""
    types = lin.ReducedTypes(3, n, positions=True)
    system = types.implicit()
    pinned = {c for c in range(types.nvars) if system.lower[c] == system.upper[c]}
    assert pinned == {types.p_col(j, w, types.query[w]) for j in range(n - 1) for w in range(4)}
    rng = random.Random(n)
    shift = {(j, w): Fraction(rng.randint(-5, 5)) for j in range(n - 1) for w in range(4)}
    for w in range(4):
        shift[n - 1, w] = -sum(shift[j, w] for j in range(n - 1))
    whole = lin.reduced_rank_one(3, n, positions=True)
    for key, label in zip(range(len(whole.system.rows)), whole.labels):
        row = whole.system.rows[key]
        moved = sum(c * shift[name[1] - 1, name[2]] for name, col in whole.index.items()
                    if name[0] == "P" and (c := row.coefs.get(col, 0)))
        assert moved == 0, label


@pytest.mark.parametrize("n,positions", PROBLEMS)
def test_bounding_names_rows_of_the_lp_that_hold_the_column_on_the_bound_side(n, positions):
    types = lin.ReducedTypes(3, n, positions)
    system = types.implicit()
    whole = {label for label in lin.reduced_rank_one(3, n, positions).labels}
    named = 0
    for col in range(types.psi_cols, types.nvars):
        if system.lower[col] == system.upper[col]:
            continue
        for upper in (False, True):
            keys = types.bounding(col, upper)
            for key in keys:
                assert types.label(key) in whole
            if keys:
                named += 1
                # the first row holds the column with the sign that bounds it on that side
                assert types.row(keys[0]).get(col, 0) * (-1 if upper else 1) > 0
    assert named > 0
    assert all(types.bounding(c, True) == [] for c in range(types.psi_cols))


@pytest.mark.parametrize("n,positions", PROBLEMS)
@pytest.mark.parametrize("m", [3, 6])
def test_the_normalised_margin_search_decides_alone(m, n, positions, monkeypatch):
    """The fallback search (sum psi fixed, P boxed, bounding rows on demand) decides the same
    problems when the phase-one LP is not used at all."""
    from solvers import cutting

    monkeypatch.setattr(cutting, "_phase_one", lambda *args, **kwargs: None)
    found = lin.decide_reduced(m, n, positions)
    if m <= 3:
        assert isinstance(found.decision, lp.Feasible)
    else:
        assert isinstance(found.decision, lp.Infeasible) and lp.refutes(found.problem.system, found.decision.multipliers)
