"""A small z3 wrapper whose "sat" carries an exactly re-checked rational model.

For constraints φ_1, …, φ_k over real and integer variables x, `solve` reports
  "sat"     with a model  m : vars → Q  such that every φ_i[x := m] simplifies to True
            (checked again by `recheck` after substituting the exact rationals);
  "unsat"   when z3 proves that no assignment satisfies all φ_i;
  "unknown" otherwise: timeout, z3's own "unknown", or a model that is not rational
            (e.g. an algebraic number such as √2) or does not re-check.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from solvers.lazy import z3


@dataclass
class SmtResult:
    status: str  # "sat" | "unsat" | "unknown"
    model: dict[str, Fraction] | None
    reason: str
    seconds: float


def _variables(constraints) -> dict[str, z3.ExprRef]:
    from z3.z3util import get_vars

    found: dict[str, z3.ExprRef] = {}
    for c in constraints:
        for v in get_vars(c):
            name = str(v)
            if name in found and not found[name].eq(v):
                raise ValueError(f"two different variables are both named {name!r}")
            found[name] = v
    return found


def _value(v: z3.ExprRef, value: Fraction) -> z3.ExprRef:
    if v.sort() == z3.IntSort():
        if value.denominator != 1:
            raise ValueError(f"{v} is an integer variable, got {value}")
        return z3.IntVal(value.numerator)
    return z3.RealVal(f"{value.numerator}/{value.denominator}")


def recheck(constraints, model: dict[str, Fraction]) -> bool:
    """Whether every constraint simplifies to True under the exact rational model."""
    try:
        pairs = []
        for name, v in _variables(constraints).items():
            if name not in model:
                return False
            pairs.append((v, _value(v, Fraction(model[name]))))
    except ValueError:
        return False
    return all(z3.is_true(z3.simplify(z3.substitute(c, *pairs) if pairs else c))
               for c in constraints)


def solve(constraints: list, budget: float) -> SmtResult:
    """Decide the conjunction of the constraints within `budget` seconds (module docstring)."""
    start = time.monotonic()

    def result(status, model=None, reason=""):
        return SmtResult(status, model, reason, time.monotonic() - start)

    try:
        variables = _variables(constraints)
    except ValueError as e:
        return result("unknown", reason=str(e))
    for name, v in variables.items():
        if v.sort() not in (z3.IntSort(), z3.RealSort()):
            return result("unknown", reason=f"variable {name} has unsupported sort {v.sort()}")
    solver = z3.Solver()
    # z3 reads the timeout as an unsigned 32-bit count of milliseconds.
    solver.set("timeout", int(min(max(budget * 1000, 1), 2**32 - 1)))
    solver.add(*constraints)
    answer = solver.check()
    if answer == z3.unsat:
        return result("unsat")
    if answer != z3.sat:
        return result("unknown", reason=f"z3: {solver.reason_unknown()}")
    m = solver.model()
    model: dict[str, Fraction] = {}
    for name, v in variables.items():
        # Completion gives a value to variables z3 left unconstrained.
        val = m.eval(v, model_completion=True)
        if z3.is_int_value(val):
            model[name] = Fraction(val.as_long())
        elif z3.is_rational_value(val):
            model[name] = Fraction(val.numerator_as_long(), val.denominator_as_long())
        elif z3.is_algebraic_value(val):
            return result("unknown", reason=f"{name} is irrational: {val.sexpr()}")
        else:
            return result("unknown", reason=f"{name} has no numeric value: {val}")
    if not recheck(constraints, model):
        return result("unknown", reason="z3 model does not re-check exactly")
    return result("sat", model)
