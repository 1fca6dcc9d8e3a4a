"""Row generation's exact side (solvers/cutting.py): nothing the floats say enters a verdict.

A rounded float point is returned as a solution only when the caller's exact separation finds no row of R
it fails. Here the float separation lies (it never names the second row), so only that exact check stands
between the float search and a wrong answer."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from solvers import cutting, lp

ROWS = {"a": {0: 1}, "b": {0: -1}}  # x0 > 0 and -x0 > 0: no solution


def _system(rows: dict, fixed=()) -> cutting.Implicit:
    def exact(point):
        return [k for k, r in rows.items() if sum(Fraction(c) * point[j] for j, c in r.items()) <= 0]

    return cutting.Implicit(nvars=2, row=lambda key: rows[key], violated=lambda x, below: [],  # floats see nothing
                            violated_exact=exact, lower=np.full(2, -np.inf), upper=np.full(2, np.inf), fixed=list(fixed))


def test_a_rounded_point_that_fails_a_row_exactly_is_no_solution():
    system = _system(ROWS)
    found = cutting.decide(system, ["a"])  # the float search on row a alone finds x0 >= 1, which row b refutes
    assert isinstance(found.decision, lp.Infeasible), found.decision
    assert set(found.decision.multipliers) <= {"a", "b"} and "b" in found.every
    multipliers = found.decision.multipliers
    combined = [sum(Fraction(multipliers.get(k, 0)) * ROWS[k].get(j, 0) for k in ROWS) for j in range(2)]
    assert combined == [0, 0] and sum(Fraction(v) for v in multipliers.values()) > 0  # a Gordan certificate


def test_rounded_checks_the_fixed_rows_and_every_row_exactly():
    feasible = _system({"a": {0: 1}, "c": {0: 1, 1: 1}})
    assert cutting._rounded(feasible, np.array([1.0, 0.5])) == [1, Fraction(1, 2)]
    assert cutting._rounded(feasible, np.array([1.0, -1.0])) is None  # c: 1 - 1 = 0, not > 0
    assert cutting._rounded(feasible, np.array([1.0, -1.0 + 2.0**-22])) is None  # rounds to -1: c fails exactly
    strict = _system({"a": {0: 1}}, fixed=[("psi", {1: 1}, ">")])
    assert cutting._rounded(strict, np.array([1.0, 2.0**-22])) is None  # psi rounds to 0: the strict fixed row fails
    weak = _system({"a": {0: 1}}, fixed=[("psi", {1: 1}, ">=")])
    assert cutting._rounded(weak, np.array([1.0, 2.0**-22])) == [1, 0]  # a weak fixed row holds at 0
    assert cutting._rounded(weak, np.array([1.0, -2.0**-19])) is None
