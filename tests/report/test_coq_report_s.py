"""Coq in the report, paper S: a claim's STheorems.v statements and the rung "checked by Coq", as for paper K.

Two claims of paper S whose every obligation Coq checks, at small points (residual_error_tanh: one two-point
certificate; duality at one sample per size), reported with ``report --coq``: each claim's page shows the
statements of formal/STheorems.v it names, linked to that file's page and glossed from formal/SDefs.v, and
the claim's badge carries "checked by Coq".
"""

from __future__ import annotations

import html

import pytest

from theorems import formal
from theorems.cli import main

from .test_coq_report import require_coqc

CLAIMS = ["residual_error_tanh", "duality"]


@pytest.fixture(scope="module")
def with_coq(tmp_path_factory):
    require_coqc()
    out = tmp_path_factory.mktemp("coq-outcomes-s") / "out"
    assert main(["check", *CLAIMS, "--param", "duality:samples=1", "--out", str(out)]) == 0
    site = tmp_path_factory.mktemp("coq-report-s") / "site"
    assert main(["report", "--coq", "--outcomes", str(out), "--out", str(site)]) == 0
    return site


@pytest.mark.parametrize("claim, theorem", [("softmax_rank.residual_error_tanh", "S6_tanh_refuted"),
                                            ("softmax_rank.duality", "S1_duality")])
def test_a_paper_s_claim_shows_its_statement_and_the_rung(with_coq, claim, theorem):
    text = (with_coq / "claims" / f"{claim}.html").read_text(encoding="utf-8")
    coq = text.split('id="coq"')[1]
    assert "formal/STheorems.v" in coq and "formal/SDefs.v" in coq
    assert f'STheorems.html#{theorem}' in coq  # linked to the line that states it
    statement = formal.statements()[theorem]
    assert html.escape(f"Theorem {theorem} : {statement}.") in coq  # verbatim
    assert "checked by Coq" in text
    assert (with_coq / "formal" / "STheorems.html").exists() and (with_coq / "formal" / "SDefs.v").exists()
