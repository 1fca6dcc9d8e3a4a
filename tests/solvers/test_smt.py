from fractions import Fraction

import z3

from solvers.smt import recheck, solve


def test_sat_model_is_exact_and_rechecks():
    x, y, n = z3.Real("x"), z3.Real("y"), z3.Int("n")
    constraints = [x + y == 1, x - y > z3.RealVal("1/3"), n > x, n < 5, 3 * y > 0]
    result = solve(constraints, budget=5)
    assert result.status == "sat"
    assert set(result.model) == {"x", "y", "n"}
    assert all(type(v) is Fraction for v in result.model.values())
    assert recheck(constraints, result.model)
    m = result.model
    assert m["x"] + m["y"] == 1 and m["x"] - m["y"] > Fraction(1, 3) and m["n"].denominator == 1


def test_recheck_rejects_tampered_or_incomplete_models():
    x, y = z3.Reals("x y")
    constraints = [x + y == 1, x > y]
    model = solve(constraints, budget=5).model
    assert recheck(constraints, model)
    assert not recheck(constraints, {**model, "x": model["x"] + Fraction(1, 10**20)})
    assert not recheck(constraints, {"x": model["x"]})
    assert not recheck([z3.Int("k") > 0], {"k": Fraction(1, 2)})


def test_unconstrained_variables_get_values():
    x, y = z3.Reals("x y")
    result = solve([x > 0, y * 0 == 0], budget=5)
    assert result.status == "sat" and set(result.model) == {"x", "y"}


def test_unsat():
    x = z3.Real("x")
    result = solve([x > 1, x < 0], budget=5)
    assert result.status == "unsat" and result.model is None


def test_irrational_model_is_not_reported_as_sat():
    x = z3.Real("x")
    result = solve([x * x == 2], budget=5)
    assert result.status == "unknown" and "irrational" in result.reason


def test_timeout_is_unknown_not_sat():
    a, b, c = z3.Ints("a b c")
    result = solve([a > 0, b > 0, c > 0, a**3 + b**3 == c**3], budget=0.2)
    assert result.status == "unknown" and result.model is None
    assert result.seconds < 5
