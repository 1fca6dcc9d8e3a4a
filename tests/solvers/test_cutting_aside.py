"""Row generation sets slack rows aside (solvers/cutting.py, SLACK and SLACK_ROUNDS): the answer stays exact.

A row set aside leaves the search LP, not R: the float separation and the exact one still see
it, so a point that fails it brings it back.  Here R is the half-planes ``a_k . x > 0`` of 2-D
integer directions a_k; around the whole circle they have no common point (an exact Motzkin
certificate must come out), within an arc of less than pi they do (an exact point must hold
every row of R).  Set-aside is forced after one round at any slack, so rows leave and come
back on the way.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from solvers import cutting, lp


def _directions(arc: float, count: int) -> dict:
    rows = {}
    for k in range(count):
        angle = arc * k / count
        rows[k] = {0: round(1000 * math.cos(angle)), 1: round(1000 * math.sin(angle))}
    return rows


def _implicit(rows: dict) -> cutting.Implicit:
    matrix = np.array([[r[0], r[1]] for r in rows.values()], dtype=float)
    keys = list(rows)

    def violated(x, below):
        return [keys[i] for i in np.flatnonzero(matrix @ x < below)[:3]]  # a few at a time: more rounds

    def violated_exact(point):
        return [k for k, r in rows.items() if r[0] * point[0] + r[1] * point[1] <= 0]

    return cutting.Implicit(nvars=2, row=lambda key: rows[key], violated=violated, violated_exact=violated_exact,
                            lower=np.full(2, -np.inf), upper=np.full(2, np.inf))


@pytest.fixture
def eager_set_aside(monkeypatch):
    monkeypatch.setattr(cutting, "SLACK", 1.0 + 1e-6)
    monkeypatch.setattr(cutting, "SLACK_ROUNDS", 1)


@pytest.mark.usefixtures("eager_set_aside")
def test_the_whole_circle_is_refuted_by_an_exact_certificate():
    rows = _directions(2 * math.pi, 60)
    found = cutting.decide(_implicit(rows), [0])
    assert isinstance(found.decision, lp.Infeasible), found.decision
    y = found.decision.multipliers
    assert all(v >= 0 for v in y.values()) and any(v > 0 for v in y.values())
    assert [sum(Fraction(y[k]) * rows[k][j] for k in y) for j in (0, 1)] == [0, 0]  # a Gordan combination


@pytest.mark.usefixtures("eager_set_aside")
def test_an_arc_below_pi_gives_a_point_that_holds_every_row_exactly():
    rows = _directions(0.95 * math.pi, 60)
    found = cutting.decide(_implicit(rows), [0])
    assert isinstance(found.decision, lp.Feasible), found.decision
    x = found.decision.point
    assert all(r[0] * x[0] + r[1] * x[1] > 0 for r in rows.values())


def test_rows_that_come_back_are_kept(monkeypatch):
    """With set-aside forced, the search still ends; the rows it set aside and took back are
    generated once (``every`` has no key twice)."""
    monkeypatch.setattr(cutting, "SLACK", 1.0 + 1e-6)
    monkeypatch.setattr(cutting, "SLACK_ROUNDS", 1)
    found = cutting.decide(_implicit(_directions(2 * math.pi, 60)), [0])
    assert len(found.every) == len(set(found.every)) and found.rounds < 200
