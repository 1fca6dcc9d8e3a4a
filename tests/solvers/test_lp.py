import random
from fractions import Fraction

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solvers import lp
from solvers.lp import Feasible, Infeasible, LinearSystem, Unknown, decide, holds, refutes

SENSES = [">", ">=", "=", "<=", "<"]


def system(nvars, rows):
    s = LinearSystem(nvars)
    for row in rows:
        s.add(*row)
    return s


def assert_sound(s, result):
    if isinstance(result, Feasible):
        assert holds(s, result.point)
    elif isinstance(result, Infeasible):
        assert refutes(s, result.multipliers)
    else:
        assert isinstance(result, Unknown) and result.reason


def z3_feasible(s):
    xs = [z3.Real(f"x{j}") for j in range(s.nvars)]
    solver = z3.Solver()
    for coefs, sense, rhs, _ in s.rows:
        lhs = z3.Sum([z3.RealVal(str(c)) * xs[j] for j, c in coefs.items()] + [z3.RealVal(0)])
        r = z3.RealVal(str(rhs))
        solver.add({">": lhs > r, ">=": lhs >= r, "=": lhs == r,
                    "<=": lhs <= r, "<": lhs < r}[sense])
    return solver.check() == z3.sat


def planted_strict(nvars, nrows, seed, density=1.0):
    """Random homogeneous strict rows, each oriented to be positive at a hidden point."""
    rng = random.Random(seed)
    hidden = [rng.randint(-5, 5) for _ in range(nvars)]
    s = LinearSystem(nvars)
    while len(s.rows) < nrows:
        a = {j: rng.randint(-9, 9) for j in range(nvars) if rng.random() < density}
        value = sum(c * hidden[j] for j, c in a.items())
        if value:
            s.add({j: c if value > 0 else -c for j, c in a.items()}, ">")
    return s


def random_strict(nvars, nrows, seed):
    rng = random.Random(seed)
    rows = [({j: rng.randint(-9, 9) for j in range(nvars)}, ">") for _ in range(nrows)]
    return system(nvars, rows)


# --- the system object ---------------------------------------------------------------

def test_add_stores_exact_rows_and_returns_indices():
    s = LinearSystem(2)
    assert s.add({0: 1, 1: Fraction(1, 2)}, "<", 3, label="first") == 0
    assert s.add({1: 0}, ">=") == 1
    coefs, sense, rhs, label = s.rows[0]
    assert coefs == {0: 1, 1: Fraction(1, 2)} and sense == "<" and rhs == 3 and label == "first"
    assert s.rows[1].coefs == {} and s.rows[1].rhs == 0


@pytest.mark.parametrize("bad", [({0: 1}, "!="), ({2: 1}, ">"), ({0: 0.5}, ">")])
def test_add_rejects_bad_rows(bad):
    with pytest.raises((ValueError, IndexError, TypeError)):
        LinearSystem(2).add(*bad)


def test_add_integer_rows_gives_the_rows_of_add_one_by_one():
    import numpy as np

    rng = np.random.default_rng(5)
    A = rng.integers(-3, 4, size=(40, 6))
    A[3] = 0  # an empty row stays a row
    rhs = rng.integers(-5, 6, size=40).tolist()
    bulk, single = LinearSystem(6), LinearSystem(6)
    single.add({0: Fraction(1, 3)}, ">", 1)  # a rational row before: the flags stay aligned
    bulk.add({0: Fraction(1, 3)}, ">", 1)
    assert bulk.add_integer_rows(A, ">=", rhs) == range(1, 41)
    for row, b in zip(A.tolist(), rhs):
        single.add(dict(enumerate(row)), ">=", b)
    assert bulk.rows == single.rows and bulk.integer_rows() == single.integer_rows()
    assert all(type(c) is int for row in bulk.rows[1:] for c in row.coefs.values())
    assert type(decide(bulk)) is type(decide(single))


@pytest.mark.parametrize("bad", [("float", ">"), ("int", "!="), ("wide", ">"), ("rhs", ">")])
def test_add_integer_rows_rejects_bad_input(bad):
    import numpy as np

    what, sense = bad
    A = {"float": np.ones((2, 2)), "int": np.ones((2, 2), dtype=int), "wide": np.ones((2, 3), dtype=int),
         "rhs": np.ones((2, 2), dtype=int)}[what]
    with pytest.raises((ValueError, TypeError)):
        LinearSystem(2).add_integer_rows(A, sense, [1] if what == "rhs" else None)


# --- the exact checks ------------------------------------------------------------------

def test_holds_is_exact_and_a_tampered_point_fails():
    s = system(2, [({0: 1, 1: 1}, "=", 1), ({0: 1, 1: -1}, ">", Fraction(1, 3))])
    assert holds(s, [Fraction(2, 3) + Fraction(1, 10**30), Fraction(1, 3) - Fraction(1, 10**30)])
    assert not holds(s, [Fraction(2, 3) + Fraction(1, 10**30), Fraction(1, 3)])
    assert not holds(s, [Fraction(2, 3), Fraction(1, 3)])  # strict row is tight
    assert not holds(s, [1])
    with pytest.raises(TypeError):
        holds(s, [0.7, 0.3])


def test_refutes_gordan_triangle_and_tampering():
    s = system(2, [({0: 1}, ">"), ({1: 1}, ">"), ({0: -1, 1: -1}, ">")])
    good = {0: Fraction(1), 1: Fraction(1), 2: Fraction(1)}
    assert refutes(s, good)
    assert refutes(s, {i: 7 * y for i, y in good.items()})
    assert not refutes(s, {**good, 0: Fraction(2)})          # one multiplier changed
    assert not refutes(s, {**good, 2: Fraction(-1)})         # a sign flipped
    assert not refutes(s, {0: -1, 1: -1, 2: -1})              # y ≥ 0 on inequalities
    assert not refutes(s, {})
    assert not refutes(s, {0: 1, 1: 1, 2: 1, 3: 1})          # no such row


def test_refutes_sign_convention_of_less_than_rows():
    # x < 0 is read as −x > 0; its multiplier is nonnegative.
    s = system(1, [({0: 1}, "<", 0), ({0: 1}, ">", 0)])
    assert refutes(s, {0: 1, 1: 1})
    assert not refutes(s, {0: -1, 1: 1})


def test_refutes_needs_a_strict_row_or_positive_bound():
    weak = system(1, [({0: 1}, ">=", 0), ({0: 1}, "<=", 0)])  # feasible: x = 0
    assert not refutes(weak, {0: 1, 1: 1})
    gap = system(1, [({0: 1}, ">=", 1), ({0: 1}, "<=", 0)])
    assert refutes(gap, {0: 1, 1: 1})


def test_equality_multipliers_are_free():
    s = system(2, [({0: 1, 1: 1}, "=", 1), ({0: 1, 1: 1}, "=", 2)])
    assert refutes(s, {0: -1, 1: 1})
    assert not refutes(s, {0: 1, 1: -1})
    result = decide(s)
    assert isinstance(result, Infeasible) and refutes(s, result.multipliers)


# --- decide ----------------------------------------------------------------------------

def test_gordan_triangle_is_infeasible():
    s = system(2, [({0: 1}, ">"), ({1: 1}, ">"), ({0: -1, 1: -1}, ">")])
    result = decide(s)
    assert isinstance(result, Infeasible)
    assert refutes(s, result.multipliers)
    assert set(result.multipliers) == {0, 1, 2}


def test_random_planted_gordan_system_is_feasible():
    s = planted_strict(8, 60, seed=5)
    result = decide(s)
    assert isinstance(result, Feasible) and holds(s, result.point)
    assert all(v.denominator == 1 for v in result.point)  # homogeneous points are scaled


def test_mixed_strict_weak_equality():
    feasible = system(3, [({0: 1, 1: 1, 2: 1}, "=", 1), ({0: 1}, ">", Fraction(1, 3)),
                          ({1: 1}, ">=", Fraction(1, 3)), ({2: 1}, "<", Fraction(1, 3)),
                          ({2: 1}, ">=", 0)])
    result = decide(feasible)
    assert isinstance(result, Feasible) and holds(feasible, result.point)

    infeasible = system(3, [({0: 1, 1: 1, 2: 1}, "=", 1), ({0: 1}, ">", Fraction(1, 3)),
                            ({1: 1}, ">=", Fraction(1, 3)), ({2: 1}, ">=", Fraction(1, 3))])
    result = decide(infeasible)
    assert isinstance(result, Infeasible) and refutes(infeasible, result.multipliers)


def test_systems_without_variables():
    assert isinstance(decide(system(0, [({}, ">", -1)])), Feasible)
    s = system(0, [({}, ">", -1), ({}, ">=", 1)])
    assert decide(s) == Infeasible({1: Fraction(1)})
    assert decide(LinearSystem(3)) == Feasible([0, 0, 0])


@pytest.fixture
def without_exact_fallback(monkeypatch):
    """Only the float search and its exact repair may answer."""
    monkeypatch.setattr(lp, "_exact_arithmetic", lambda *args: None)


@pytest.mark.usefixtures("without_exact_fallback")
@pytest.mark.parametrize("width", [Fraction(1, 10**7), Fraction(1, 10**12)])
def test_thin_feasible_region_is_repaired_exactly(width):
    s = system(3, [({0: 1, 1: 1}, ">", 1), ({0: 1, 1: 1}, "<", 1 + width),
                   ({0: 1, 1: -1}, "=", Fraction(1, 3)), ({2: 3}, ">=", 1)])
    result = decide(s)
    assert isinstance(result, Feasible) and holds(s, result.point)


@pytest.mark.usefixtures("without_exact_fallback")
@pytest.mark.parametrize("gap", [Fraction(1, 10**9), Fraction(1, 10**15)])
def test_thin_infeasibility_is_certified_exactly(gap):
    s = system(2, [({0: 1, 1: 1}, ">=", 1 + gap), ({0: 1, 1: 1}, "<=", 1), ({0: 1}, ">", 0)])
    result = decide(s)
    assert isinstance(result, Infeasible) and refutes(s, result.multipliers)


@pytest.mark.usefixtures("without_exact_fallback")
def test_open_interval_below_float_resolution():
    s = system(1, [({0: 1}, ">", 1), ({0: 1}, "<", 1 + Fraction(1, 10**15))])
    result = decide(s)
    assert isinstance(result, Feasible) and holds(s, result.point)


def test_thin_slabs_are_decided_exactly():
    # a·x ∈ (c, c + w) with w down to 1e-16·|c|, beyond what HiGHS can see, plus noise
    # rows; some of these need the exact z3 fallback.
    rng = random.Random(5)
    for _ in range(60):
        n = rng.randint(2, 8)
        a = {j: rng.randint(-9, 9) or 1 for j in range(n)}
        c, w = Fraction(rng.randint(-50, 50), 7), Fraction(1, 10 ** rng.randint(6, 16))
        s = system(n, [(a, ">", c), (a, rng.choice(["<", "<="]), c + rng.choice([-1, 0, 1]) * w)])
        for _ in range(rng.randint(0, 8)):
            noise = {j: rng.randint(-3, 3) for j in range(n)}
            s.add(noise, rng.choice([">", ">=", "="]), rng.randint(-20, 0))
        result = decide(s)
        assert_sound(s, result)
        assert not isinstance(result, Unknown), result.reason
        assert isinstance(result, Feasible) == z3_feasible(s)


@st.composite
def small_systems(draw):
    nvars = draw(st.integers(1, 3))
    homogeneous = draw(st.booleans())
    s = LinearSystem(nvars)
    for _ in range(draw(st.integers(1, 6))):
        coefs = draw(st.dictionaries(st.integers(0, nvars - 1), st.integers(-3, 3), max_size=nvars))
        rhs = 0 if homogeneous else draw(st.integers(-3, 3))
        s.add(coefs, draw(st.sampled_from(SENSES)), rhs)
    return s


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_systems())
def test_decide_is_never_wrong_and_agrees_with_z3(s):
    result = decide(s)
    assert_sound(s, result)
    assert not isinstance(result, Unknown), result.reason
    assert isinstance(result, Feasible) == z3_feasible(s)


@settings(max_examples=200, deadline=None)
@given(small_systems(), st.data())
def test_tampered_certificates_fail(s, data):
    result = decide(s)
    if not isinstance(result, Infeasible):
        return
    y = result.multipliers
    i = data.draw(st.sampled_from(sorted(y)))
    if s.rows[i].coefs:
        # Σ y_i a'_i moves by y_i a'_i ≠ 0.
        assert not refutes(s, {**y, i: 2 * y[i]})
    if s.rows[i].sense != "=":
        assert not refutes(s, {**y, i: -y[i]})


def test_medium_homogeneous_strict_systems():
    # no speed assertion: 19-23 s for both on a loaded 2-core machine (bench/wallclock.py); _guarded only
    # catches a hang, at more than 10x that
    s = planted_strict(300, 3000, seed=11, density=0.1)
    result = _guarded(lambda: decide(s), 600)
    assert isinstance(result, Feasible) and holds(s, result.point)

    s = random_strict(300, 3000, seed=12)  # 3000 random halfspaces in R^300: infeasible
    result = _guarded(lambda: decide(s), 600)
    assert isinstance(result, Infeasible) and refutes(s, result.multipliers)
    assert len(result.multipliers) <= 301  # a vertex of the dual: at most n + 1 rows weighed


def test_budget_exhaustion_is_unknown_never_a_guess():
    s = random_strict(100, 1000, seed=13)
    result = decide(s, budget=1e-3)
    assert_sound(s, result)
    assert isinstance(result, Unknown) and "budget" in result.reason


def test_coefficients_beyond_float_range_give_unknown_not_a_crash():
    from solvers import lp

    system = lp.LinearSystem(1)
    system.add({0: Fraction(10**400)}, ">", 1)
    assert isinstance(lp.decide(system), lp.Unknown)


# --- the exact fallback is bounded ----------------------------------------------------

def _guarded(call, seconds=300):
    """call() in a thread; fails (instead of hanging the run) if it has not returned after
    `seconds` — a guard against hangs only, far above any expected time."""
    import threading

    out = []
    worker = threading.Thread(target=lambda: out.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"no answer after {seconds}s"
    return out[0]


@pytest.fixture
def only_the_exact_fallback(monkeypatch):
    """The float search fails and finds nothing it can repair: decide falls through to z3 (recorded).

    The search's float matrix is not even built (only its row count is read when the search fails): for
    the 3000-row systems below building it takes seconds of a wall-clock budget on a loaded machine, and
    a shuffled run at load 15 spent the whole budget there, never reaching z3 (the order did not matter)."""
    from types import SimpleNamespace

    failed = SimpleNamespace(status=4, message="failed on purpose", fun=None, x=None)
    monkeypatch.setattr(lp, "_Homogenised", lambda s: SimpleNamespace(A=lp.np.zeros((len(s.rows), 0)), kind=None))
    monkeypatch.setattr(lp, "_margin_lp", lambda *args: failed)
    monkeypatch.setattr(lp, "_certificate_lp", lambda *args: (failed, None))
    monkeypatch.setattr(lp, "_exact_point", lambda *args: None)
    monkeypatch.setattr(lp, "_exact_certificate", lambda *args: None)
    reached = []
    exact = lp._exact_arithmetic

    def recorded(system, time_limit):
        reached.append(time_limit)
        return exact(system, time_limit)

    monkeypatch.setattr(lp, "_exact_arithmetic", recorded)
    return reached


def test_the_exact_fallback_still_decides_a_small_system(only_the_exact_fallback):
    s = system(2, [({0: 1, 1: 1}, ">=", 1), ({0: 1}, "<", 0), ({1: 1}, "<=", 0)])
    result = _guarded(lambda: decide(s, budget=60))
    assert only_the_exact_fallback and isinstance(result, Infeasible) and refutes(s, result.multipliers)


def test_a_system_too_large_for_the_budget_is_refused_before_z3(only_the_exact_fallback):
    s = random_strict(300, 3000, seed=12)  # infeasible; 903,000 terms to state
    result = _guarded(lambda: decide(s, budget=10.0))
    assert only_the_exact_fallback, "decide did not reach the exact fallback"
    assert isinstance(result, Unknown) and "not tried" in result.reason and "budget" in result.reason


def test_the_exact_fallback_stops_stating_the_system_when_the_budget_is_spent(monkeypatch, only_the_exact_fallback):
    monkeypatch.setattr(lp, "_Z3_SECONDS_PER_TERM", 0.0)  # the estimate admits it: the statement itself must stop
    s = random_strict(300, 3000, seed=12)  # stating it takes about a minute
    result = _guarded(lambda: decide(s, budget=5.0))
    assert only_the_exact_fallback
    assert isinstance(result, Unknown) and "budget" in result.reason


def test_without_a_budget_the_exact_fallback_is_bounded_too(monkeypatch, only_the_exact_fallback):
    monkeypatch.setattr(lp, "EXACT_FALLBACK_SECONDS", 0.5)
    s = random_strict(60, 600, seed=14)
    result = _guarded(lambda: decide(s))
    assert only_the_exact_fallback and only_the_exact_fallback[0] is None
    assert_sound(s, result)
    assert isinstance(result, Unknown) and "budget" in result.reason
