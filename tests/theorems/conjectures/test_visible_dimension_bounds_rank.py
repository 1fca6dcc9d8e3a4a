"""Worked example (c): the visible dimension does not bound rank_1/10 of every random head."""

from __future__ import annotations

import pytest

from solvers import trusted
from theorems.conjectures.visible_dimension_bounds_rank import EPSILON, VisibleDimensionBoundsRank, transformer, visible
from theorems.core import first_discharging


@pytest.fixture(scope="module")
def outcome():
    return VisibleDimensionBoundsRank().check()


def test_refuted_by_a_head_whose_rank_eps_exceeds_its_visible_dimension(outcome):
    claim = VisibleDimensionBoundsRank()
    assert outcome.status == "refuted" == claim.expected
    accepted = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    refuting = [o for o in claim.obligations(claim.point()).refute if first_discharging(accepted, o)]
    assert refuting
    head = outcome.counterexample["head"]
    L = transformer(claim.point())[head]
    assert outcome.counterexample["rank_eps_at_least"] > outcome.counterexample["visible_dimension"] == visible(L)
    # the checker counted the visible dimension too, on the same logits
    counted = [j for k, j in accepted if k == "visible-dimension"]
    assert len(counted) == claim.point()["heads"] and all(j["tau"] == 0 for j in counted)


def test_the_obligations_name_the_seeded_instance():
    claim = VisibleDimensionBoundsRank()
    one, other = claim.obligations(claim.point()), claim.obligations(claim.point({"seed": 1}))
    assert one.refute[0].judgment["instance"] != other.refute[0].judgment["instance"]
    assert one.refute[0].judgment["epsilon"] == "1/10" == str(EPSILON)


def test_a_certificate_of_another_transformer_discharges_nothing(outcome):
    claim = VisibleDimensionBoundsRank()
    accepted = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    assert not any(first_discharging(accepted, o) for o in claim.obligations(claim.point({"seed": 1})).refute)


def test_the_outcome_is_written_as_exact_json(outcome):
    record = outcome.to_json()  # refuses a float anywhere (coverage, facts, counterexample)
    assert record["claim"] == outcome.claim and record["status"] == outcome.status
