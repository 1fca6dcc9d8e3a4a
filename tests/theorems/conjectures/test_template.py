"""The template of ``attnproof new``: it checks as shipped, refutes a false head with a certified,
shrunk counterexample, and its certificates are refused once broken."""

from __future__ import annotations

import copy
import importlib
import sys
from fractions import Fraction

import pytest

from solvers import trusted
from solvers.certificates import CertificateError
from theorems import core
from theorems.cli import main
from theorems.core import first_discharging


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """The module ``attnproof new template_mod`` writes, imported from its project folder."""
    project = tmp_path_factory.mktemp("project")
    saved, cwd = dict(core._REGISTRY), __import__("os").getcwd()
    __import__("os").chdir(project)
    try:
        core._REGISTRY.clear()
        assert main(["new", "template_mod"]) == 0
        sys.path.insert(0, str(project / "conjectures"))
        module = importlib.import_module("template_mod")
    finally:
        __import__("os").chdir(cwd)
        core._REGISTRY.clear()
        core._REGISTRY.update(saved)
    module.PROJECT = project  # the random search keeps its database in this project, not in the repository
    yield module
    sys.path.remove(str(project / "conjectures"))
    sys.modules.pop("template_mod", None)


@pytest.fixture(autouse=True)
def in_project(template, monkeypatch):
    monkeypatch.chdir(template.PROJECT)


def judgments(certs):
    return [(c["kind"], trusted.check(c).judgment) for c in certs]


def test_the_template_is_an_attributed_open_conjecture(template):
    claim = template.CLAIM
    assert claim.source == "user conjecture" and claim.relation == "a conjecture"
    assert claim.established == "open" and claim.expected == "unknown"
    assert claim.id == "conjectures.template_mod" and claim.paper == "2608.11427"


def test_as_shipped_the_search_finds_nothing_and_the_outcome_is_open(template):
    claim = template.CLAIM
    point = claim.point({"m": 12})
    outcome = claim.check(point)
    assert outcome.status == "unknown" == claim.expected and "open" in outcome.message
    assert outcome.covered["random"]["evaluations"] >= point["examples"]  # every draw passed
    assert outcome.covered["statistic"]["m"] == 12
    needed = claim.obligations(point)
    accepted = judgments(outcome.certificates)
    assert [k for k, _ in accepted] == ["score-statistic"]
    assert first_discharging(accepted, needed.verify[0]) and not first_discharging(accepted, needed.refute[0])


def test_a_false_head_is_refuted_with_a_shrunk_certified_counterexample(template, monkeypatch):
    claim = template.CLAIM
    monkeypatch.setattr(template, "kappa", lambda w, s: Fraction(1))  # uniform attention
    point = claim.point({"m": 12})
    outcome = claim.check(point)
    assert outcome.status == "refuted"
    example = outcome.counterexample
    # hypothesis shrank it: the least |q| and context scores, one bit
    assert (example["query_weight"], example["context_scores"], example["bits_used"]) == (1, [0, 0, 1], 1)
    assert example["sequence"] == ["0", "0", "1", "1"] and example["error"] == Fraction(1, 2)
    accepted = judgments(outcome.certificates)
    assert [k for k, _ in accepted] == ["score-counterexample"]
    assert first_discharging(accepted, claim.obligations(point).refute[0])
    # without the random search the sweep finds the same smallest counterexample, in its order
    swept = claim.check(claim.point({"m": 12, "examples": 0}))
    assert swept.status == "refuted" and swept.counterexample["sequence"] == example["sequence"]
    assert "random" not in swept.covered


def test_a_broken_witness_is_refused(template, monkeypatch):
    claim = template.CLAIM
    point = claim.point({"m": 8})
    good = claim.check(point).certificates[0]
    assert trusted.check(good).judgment["judgment"] == "solves"
    broken = copy.deepcopy(good)
    broken["data"]["value"][3][1] = "5/2"  # one readout value changed: the head no longer solves
    with pytest.raises(CertificateError, match="error"):
        trusted.check(broken)
    # and a "counterexample" on which the head is right is no counterexample
    monkeypatch.setattr(template, "kappa", lambda w, s: Fraction(1))
    refuted = claim.check(point).certificates[0]
    fixed = copy.deepcopy(refuted)
    fixed["data"]["sequence"] = [0, 0, 0, 1]  # error 1/4 < 1/2
    with pytest.raises(CertificateError, match="not a counterexample"):
        trusted.check(fixed)
    # a certificate about another head discharges nothing for this one
    monkeypatch.setattr(template, "kappa", lambda w, s: Fraction(1, 4**s))
    other = judgments([refuted])
    assert not first_discharging(other, claim.obligations(point).refute[0])


def test_the_statement_names_the_head_so_an_edited_head_without_its_sentence_is_stale(template, monkeypatch):
    """The statement's hash covers the witness (the digest of kappa's and value's tables), and a head edited
    without its sentence is marked STALE SENTENCE by the report, naming the digest to record."""
    from theorems.report.model import sentence_written_for_another, standing

    shipped = type(template.CLAIM)()
    assert shipped.head_digest() == template.SENTENCE_HEAD == shipped.sentence_head
    assert shipped.head_digest() in shipped.statement().render()
    assert sentence_written_for_another(shipped) == ""
    before, softmax = shipped.statement_hash(), shipped.head_digest()
    monkeypatch.setattr(template, "kappa", lambda w, s: Fraction(1))  # uniform attention, the sentence unchanged
    edited = type(template.CLAIM)()
    assert edited.head_digest() != softmax
    assert edited.statement_hash() != before  # outcomes made for the softmax head are stale for this one
    said = standing(edited, [])
    assert said.key == "stale" and said.loud and said.label == "STALE SENTENCE: written for another head"
    assert edited.head_digest() in said.detail and "rewrite the sentence" in said.detail
    monkeypatch.setattr(type(edited), "sentence_head", edited.head_digest())  # the sentence rewritten, recorded
    assert standing(edited, []).key == "not-run"


def test_a_tighter_tolerance_is_named_by_the_statement_and_the_obligations_and_decided_at_it(template, monkeypatch):
    """TOLERANCE = 2/5: softmax at beta = ln 4, length 4, errs by 3/7 at |q| = 1 (>= 2/5, < 1/2), so the
    head that is open at 1/2 is refuted at 2/5 -- with the statement and every obligation naming 2/5."""
    claim = template.CLAIM
    point = claim.point({"m": 6, "examples": 0})
    before_hash, before = claim.statement_hash(), claim.obligations(point)
    monkeypatch.setattr(template, "TOLERANCE", Fraction(2, 5))
    monkeypatch.setattr(claim, "_statement_hash", "", raising=False)  # the hash is cached per object; restored after
    after = claim.obligations(point)
    assert claim.statement_hash() != before_hash
    assert {o.judgment["tolerance"] for o in before.verify + before.refute} == {"1/2"}
    assert {o.judgment["tolerance"] for o in after.verify + after.refute} == {"2/5"}
    assert "error < 2/5" in after.verify[0].words and ">= 2/5" in after.refute[0].words
    outcome = claim.check(point)
    assert outcome.status == "refuted"
    assert any(first_discharging(judgments(outcome.certificates), o) for o in after.refute)
    assert not any(first_discharging(judgments(outcome.certificates), o) for o in before.refute)
