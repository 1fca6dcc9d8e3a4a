"""The margin LP of the search (solvers/cutting.py, ``_margin``): by interior point without crossover
first, since a point needs no vertex (the crossover ran for more than 10 minutes at n = 4 with positions,
m = 64); with crossover only when there is no point, for a vertex dual whose support the exact step
re-solves.  Floats only search: the answer here is a point or a support, never a verdict."""

from __future__ import annotations

import numpy as np
import pytest

from solvers import cutting


def _box() -> cutting.Implicit:
    return cutting.Implicit(nvars=3, row=None, violated=None, violated_exact=None,
                            lower=np.full(3, -1.0), upper=np.full(3, 1.0))


@pytest.fixture
def crossovers(monkeypatch):
    """The run_crossover option of every HiGHS call of the margin LP, in order."""
    seen = []
    solve = cutting._linprog

    def spy(c, A_ub, b_ub, bounds, options, method="highs", *rest):
        seen.append(options.get("run_crossover"))
        return solve(c, A_ub, b_ub, bounds, options, method, *rest)

    monkeypatch.setattr(cutting, "_linprog", spy)
    return seen


def test_a_feasible_margin_lp_is_answered_without_crossover(crossovers):
    rows = [{0: 1}, {1: 1}, {0: 1, 1: -1, 2: 1}]
    found = cutting._margin(_box(), rows, None)
    assert found is not None and found.x is not None
    assert all(sum(c * found.x[j] for j, c in r.items()) >= 1 - 1e-6 for r in rows)  # x / t: margin 1
    assert crossovers == ["off"]  # no vertex asked for


def test_an_infeasible_margin_lp_is_solved_again_with_crossover_for_a_small_support(crossovers):
    rows = [{0: 1}, {1: 1}, {0: -1, 1: -1}, {2: 1}, {2: 1, 0: 1}]  # rows 0, 1, 2 sum to zero: no point
    found = cutting._margin(_box(), rows, None)
    assert found is not None and found.x is None
    assert crossovers == ["off", "on"]
    assert set(found.support) == {0, 1, 2} and not found.bounded  # the vertex dual: the three rows that cancel
