"""The public API: one import for a conjecture, and what every conjecture in the package states."""

from __future__ import annotations

import inspect

from theorems import api, core


def test_everything_a_conjecture_needs_imports_from_one_place():
    for name in api.__all__:
        assert hasattr(api, name), name
    assert api.Claim is core.Claim and api.Obligations is core.Obligations and api.obligation is core.obligation
    assert issubclass(api.Conjecture, core.Claim)
    for engine in (api.exhaustive, api.random_search, api.smt_search, api.linear_sizes):
        assert engine.__doc__ and "search" in inspect.getmodule(engine).__name__


def test_a_conjecture_is_its_authors_open_and_a_conjecture_by_default():
    class Mine(api.Conjecture):
        id = "conjectures.mine"

    mine = Mine()
    assert mine.source == "user conjecture" and mine.relation == "a conjecture"
    assert mine.established == "open" and mine.expected == "unknown"
    core._validate(mine)  # what registration checks


def test_every_conjecture_of_the_package_states_expected_source_and_relation():
    conjectures = [c for c in core.registry().values() if c.id.startswith("conjectures.")]
    assert {c.id for c in conjectures} >= {
        "conjectures.rank_one_length_three", "conjectures.multi_head_length",
        "conjectures.visible_dimension_bounds_rank", "conjectures.softmax_temperature_length"}
    for claim in conjectures:
        assert "expected" in type(claim).__dict__, f"{claim.id} states its expectation"
        assert claim.relation == "a conjecture" and isinstance(claim, api.Conjecture)
        assert not claim.source.startswith("arXiv"), f"{claim.id} is not stated by the paper it asks about"
        point = claim.point()
        assert claim.cost(point) <= 2.5, f"{claim.id}: the default point stays small"
        assert claim.obligations(point).refute, f"{claim.id} states what would refute it"
