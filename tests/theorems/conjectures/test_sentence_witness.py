"""The built-in conjectures name their witness in their statement (issue 24, item 6), as the template does.

rank_one_length_three fixes no head (it is about every rank-one head): its statement names the digest of the
linear systems its search decides at the default sizes; visible_dimension_bounds_rank names the digest of its
seeded transformer's logits.  Editing either witness without the sentence changes the statement's hash (outcomes
made before are stale) and the report marks the sentence STALE SENTENCE until SENTENCE_HEAD is set again.
"""

from fractions import Fraction

import pytest

from theorems.core import get
from theorems.report.model import sentence_written_for_another, standing


def _fresh_hash(monkeypatch, claim) -> str:
    claim.__dict__.pop("_statement_hash", None)  # cached per claim: computed afresh, and not left cached after
    value = claim.statement_hash()
    monkeypatch.delitem(claim.__dict__, "_statement_hash")
    return value


def _edit_rank_one(monkeypatch, module):
    from theorems.api import rank_one_problem

    module.problem_digest.cache_clear()
    monkeypatch.setattr(module, "problem", lambda m: rank_one_problem(m, 4))  # decides length 4, not 3
    return module.problem_digest.cache_clear


def _edit_transformer(monkeypatch, module):
    original = module.transformer
    monkeypatch.setattr(module, "transformer", lambda point: [[[2 * x for x in row] for row in L] for L in original(point)])
    return lambda: None


@pytest.mark.parametrize("claim_id, edit", [("conjectures.rank_one_length_three", _edit_rank_one),
                                            ("conjectures.visible_dimension_bounds_rank", _edit_transformer)])
def test_the_statement_names_the_witness_and_an_edited_witness_marks_the_sentence_stale(monkeypatch, claim_id, edit):
    import importlib

    module = importlib.import_module("theorems." + claim_id)
    claim = get(claim_id)
    assert claim.head_digest() == module.SENTENCE_HEAD == claim.sentence_head
    assert claim.head_digest() in claim.statement().render() and sentence_written_for_another(claim) == ""
    before = _fresh_hash(monkeypatch, claim)
    undo = edit(monkeypatch, module)
    try:
        assert claim.head_digest() != module.SENTENCE_HEAD
        assert _fresh_hash(monkeypatch, claim) != before  # outcomes made for the old witness are stale
        said = standing(claim, [])
        assert said.key == "stale" and said.loud and claim.head_digest() in said.detail
    finally:
        monkeypatch.undo()
        undo()
    assert claim.head_digest() == module.SENTENCE_HEAD


def test_the_digests_are_exact_data_of_the_witness():
    from theorems.conjectures import rank_one_length_three, visible_dimension_bounds_rank
    from theorems.api import digest

    claim = get("conjectures.visible_dimension_bounds_rank")
    logits = visible_dimension_bounds_rank.transformer(claim.point())
    assert all(isinstance(x, Fraction) for L in logits for row in L for x in row)
    assert claim.head_digest() == digest(logits)
    assert rank_one_length_three.problem_digest(4) != rank_one_length_three.problem_digest(3)  # every size counts
