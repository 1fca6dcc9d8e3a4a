"""When the search's simplex stops at its iteration cap, the interior point (then the margin LP) searches
instead (solvers/cutting.py, SIMPLEX_ITERATIONS_PER_ROW): the answer stays exact.

R is ``a_k . x > 0`` for random integer directions a_k in 3-D (HiGHS's presolve settles only the
first rounds' LPs, so a simplex allowed no iteration gives up on the others): those with
``a_k . (1, 1, 1) > 0`` have a common point (an exact point must hold every row), all of them
around the sphere have none (an exact Motzkin certificate must come out).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from solvers import cutting, lp


def _rows(feasible: bool, seed: int = 1) -> dict:
    A = np.random.default_rng(seed).integers(-20, 21, size=(80, 3))
    if feasible:
        A = A[A.sum(axis=1) > 0]
    return {k: {j: int(v) for j, v in enumerate(r) if v} for k, r in enumerate(A) if r.any()}


def _implicit(rows: dict) -> cutting.Implicit:
    keys = list(rows)
    matrix = np.array([[rows[k].get(j, 0) for j in range(3)] for k in keys], dtype=float)

    def violated(x, below):
        return [keys[i] for i in np.flatnonzero(matrix @ x < below)[:5]]  # a few at a time: more rounds

    def violated_exact(point):
        return [k for k, r in rows.items() if sum(c * point[j] for j, c in r.items()) <= 0]

    return cutting.Implicit(nvars=3, row=lambda key: rows[key], violated=violated, violated_exact=violated_exact,
                            lower=np.full(3, -np.inf), upper=np.full(3, np.inf))


@pytest.fixture
def calls(monkeypatch):
    """No simplex iteration allowed; every search LP recorded as (interior?, gave a point?)."""
    monkeypatch.setattr(cutting, "SIMPLEX_ITERATIONS_PER_ROW", 0.0)
    monkeypatch.setattr(cutting, "SIMPLEX_ITERATIONS_SPARE", 0)
    seen = []
    phase_one = cutting._phase_one

    def spy(system, rows, time_limit, scale_fixed=False, interior=False):
        found = phase_one(system, rows, time_limit, scale_fixed, interior)
        seen.append((interior, found is not None and found.x is not None))
        return found

    monkeypatch.setattr(cutting, "_phase_one", spy)
    return seen


def test_a_capped_simplex_hands_a_feasible_search_to_the_interior_point(calls):
    rows = _rows(feasible=True)
    found = cutting.decide(_implicit(rows), list(rows)[:3])
    assert isinstance(found.decision, lp.Feasible), found.decision
    x = found.decision.point
    assert all(sum(c * x[j] for j, c in r.items()) > 0 for r in rows.values())
    assert (False, False) in calls and (True, True) in calls  # the capped simplex gave up; the interior point found


def test_a_capped_simplex_still_ends_in_an_exact_certificate(calls):
    rows = _rows(feasible=False)
    found = cutting.decide(_implicit(rows), list(rows)[:3])
    assert isinstance(found.decision, lp.Infeasible), found.decision
    y = found.decision.multipliers
    assert all(v >= 0 for v in y.values()) and any(v > 0 for v in y.values())
    assert [sum(Fraction(y[k]) * rows[k].get(j, 0) for k in y) for j in range(3)] == [0, 0, 0]  # Gordan
    assert any(interior for interior, _ in calls)


def test_the_round_after_a_simplex_that_gave_up_starts_with_the_interior_point(calls, monkeypatch):
    """Each round's search LP calls in order; the round after one where the simplex gave up and the
    interior point found the point asks the interior point first and, when it gives a point, runs no
    simplex at all (88 s of capped simplex at n = 4 with positions, m = 48, on an LP whose answer was
    the interior point's)."""
    rounds = []
    search = cutting._search

    def spy(*args, **kwargs):
        start = len(calls)
        found = search(*args, **kwargs)
        rounds.append(calls[start:])
        return found

    monkeypatch.setattr(cutting, "_search", spy)
    rows = _rows(feasible=True, seed=2)  # four rounds: the simplex gives up in the second and the fourth
    found = cutting.decide(_implicit(rows), list(rows)[:3])
    assert isinstance(found.decision, lp.Feasible), found.decision
    instead = lambda calls: calls[-2:] == [(False, False), (True, True)]  # noqa: E731
    followed = [(before, after) for before, after in zip(rounds, rounds[1:]) if instead(before)]
    assert followed, rounds  # some simplex gave up, and the interior point answered, before the last round
    for before, after in followed:
        assert after[0][0], (before, after)  # the interior point first
        if after[0] == (True, True):
            assert after == [(True, True)], (before, after)  # its point answers: no simplex in that round
    assert any(after == [(True, True)] for _, after in followed), rounds
    for before, after in zip(rounds, rounds[1:]):
        if not instead(before):
            assert not after[0][0], (before, after)  # otherwise the simplex first, as the search's path


def test_the_round_after_the_interior_point_answered_first_goes_back_to_the_simplex(calls):
    """The interior point first for one round only: its answer does not count as the simplex giving up."""
    found = cutting._search(_implicit(_rows(feasible=True)), [{0: 1}, {1: 1}, {0: 1, 1: 1, 2: 1}], None,
                            interior_first=True)
    assert found.x is not None and calls == [(True, True)] and not found.interior_instead
