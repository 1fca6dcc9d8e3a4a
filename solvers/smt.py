"""A small z3 wrapper whose "sat" carries an exactly re-checked rational model.

For constraints φ_1, …, φ_k over real and integer variables x, `solve` reports
  "sat"     with a model  m : vars → Q  such that every φ_i[x := m] simplifies to True
            (checked again by `recheck` after substituting the exact rationals);
  "unsat"   when z3 proves that no assignment satisfies all φ_i;
  "unknown" otherwise: timeout, z3's own "unknown", or a model that is not rational
            (e.g. an algebraic number such as √2) or does not re-check.

The budget bounds the whole call, not only z3's search: the walk over the constraints for
their variables, the search (z3's ``timeout``), reading the model and the exact re-check
each stop with "unknown" once it is spent.  The walks visit each distinct subterm once, so
they are linear in the size of the constraints (z3util's ``get_vars`` converted every
variable seen so far to a string at every node: minutes on a few thousand linear rows).
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


class _OutOfTime(Exception):
    """The deadline passed during a walk over the constraints."""


def _variables(constraints, deadline: float | None = None) -> dict[str, z3.ExprRef]:
    """The uninterpreted constants of the constraints by name, each distinct subterm visited once.

    Raises ValueError when two different constants share a name, and :class:`_OutOfTime` when
    ``deadline`` (``time.monotonic()``) passes during the walk."""
    found: dict[str, z3.ExprRef] = {}
    seen: set[int] = set()
    stack = list(constraints)
    steps = 0
    while stack:
        e = stack.pop()
        key = e.get_id()
        if key in seen:
            continue
        seen.add(key)
        steps += 1
        if deadline is not None and steps % 4096 == 0 and time.monotonic() > deadline:
            raise _OutOfTime
        if z3.is_const(e):
            if e.decl().kind() != z3.Z3_OP_UNINTERPRETED:  # a value (numeral, True, ...), not a variable
                continue
            name = str(e)
            if name in found and not found[name].eq(e):
                raise ValueError(f"two different variables are both named {name!r}")
            found[name] = e
        elif z3.is_app(e) or z3.is_quantifier(e):
            stack.extend(e.children())
    return found


def _value(v: z3.ExprRef, value: Fraction) -> z3.ExprRef:
    if v.sort() == z3.IntSort():
        if value.denominator != 1:
            raise ValueError(f"{v} is an integer variable, got {value}")
        return z3.IntVal(value.numerator)
    return z3.RealVal(f"{value.numerator}/{value.denominator}")


def recheck(constraints, model: dict[str, Fraction], deadline: float | None = None, variables=None) -> bool:
    """Whether every constraint simplifies to True under the exact rational model.

    The model is substituted once into the conjunction of the constraints (not once per
    constraint: z3 reads the whole substitution at every call), which simplifies to True iff
    every constraint does.  ``variables``: the constraints' variables by name when the
    caller built them (else found by a walk); one missing stays free, and the re-check
    fails.  Raises :class:`_OutOfTime` when ``deadline`` passes."""
    try:
        pairs = []
        for name, v in (_variables(constraints, deadline) if variables is None else variables).items():
            if name not in model:
                return False
            pairs.append((v, _value(v, Fraction(model[name]))))
    except ValueError:
        return False
    if deadline is not None and time.monotonic() > deadline:
        raise _OutOfTime
    constraints = list(constraints)
    if not constraints:
        return True
    whole = constraints[0] if len(constraints) == 1 else z3.And(*constraints)
    return z3.is_true(z3.simplify(z3.substitute(whole, *pairs) if pairs else whole))


def solve(constraints: list, budget: float, variables: dict | None = None) -> SmtResult:
    """Decide the conjunction of the constraints within `budget` seconds (module docstring).

    ``variables``: every variable of the constraints by name, when the caller made them (the
    walk that finds them is skipped; the model is read and re-checked over these)."""
    start = time.monotonic()
    deadline = start + max(budget, 0.0)

    def result(status, model=None, reason=""):
        return SmtResult(status, model, reason, time.monotonic() - start)

    def spent(stage):
        return result("unknown", reason=f"budget of {budget:.3g}s exhausted {stage}")

    try:
        if variables is None:
            variables = _variables(constraints, deadline)
    except ValueError as e:
        return result("unknown", reason=str(e))
    except _OutOfTime:
        return spent("reading the constraints' variables")
    for name, v in variables.items():
        if v.sort() not in (z3.IntSort(), z3.RealSort()):
            return result("unknown", reason=f"variable {name} has unsupported sort {v.sort()}")
    left = deadline - time.monotonic()
    if left <= 0:
        return spent("before z3's search")
    # A fresh context per search: z3 orders its search by the ids of its terms, which in the
    # shared context depend on every term made before (another test order, another earlier
    # solve, another model). Translated into a context of its own, the same constraints get
    # the same ids, so the same call gives the same model whatever ran before it.
    context = z3.Context()
    solver = z3.Solver(ctx=context)
    # z3 reads the timeout as an unsigned 32-bit count of milliseconds.
    solver.set("timeout", int(min(max(left * 1000, 1), 2**32 - 1)))
    solver.add(*(c.translate(context) for c in constraints))
    answer = solver.check()
    if answer == z3.unsat:
        return result("unsat")
    if answer != z3.sat:
        return result("unknown", reason=f"z3: {solver.reason_unknown()}")
    m = solver.model()
    model: dict[str, Fraction] = {}
    for k, (name, v) in enumerate(variables.items()):
        if k % 1024 == 1023 and time.monotonic() > deadline:
            return spent("reading z3's model")
        # Completion gives a value to variables z3 left unconstrained.
        val = m.eval(v.translate(context), model_completion=True)
        if z3.is_int_value(val):
            model[name] = Fraction(val.as_long())
        elif z3.is_rational_value(val):
            model[name] = Fraction(val.numerator_as_long(), val.denominator_as_long())
        elif z3.is_algebraic_value(val):
            return result("unknown", reason=f"{name} is irrational: {val.sexpr()}")
        else:
            return result("unknown", reason=f"{name} has no numeric value: {val}")
    try:
        if not recheck(constraints, model, deadline, variables):
            return result("unknown", reason="z3 model does not re-check exactly")
    except _OutOfTime:
        return spent("re-checking z3's model exactly")
    return result("sat", model)
