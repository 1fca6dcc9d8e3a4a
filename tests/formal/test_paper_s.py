"""Paper S in Coq: SDefs.v holds definitions only; the headline theorems of STheorems.v (S6 and its sharpness, the
tanh variant refuted, the per-row residual bound, the grouped-columns lower bound, the multiplicity lemma, S4, S1)
and the lemmas beneath them rest only on the standard reals' axioms: the two every real-number proof brings, and for
the statements about softmax (which mention ``exp``, defined as the limit of its series) the third,
``ClassicalDedekindReals.sig_not_dec``; the soundness theorems of the two-point certificates (which mention ``ln``)
also ``Classical_Prop.classic``, which the standard library's ``ln`` brings.  Every claim of paper S that names a
Coq theorem names one STheorems.v states."""

from __future__ import annotations

import os
import re

from theorems import formal
from theorems.core import get

from .conftest import compile_v

STANDARD = ["ClassicalDedekindReals.sig_forall_dec", "FunctionalExtensionality.functional_extensionality_dep"]
WITH_EXP = ["ClassicalDedekindReals.sig_not_dec", *STANDARD]
THEOREMS = {"S4_row_scalar_quotient": WITH_EXP, "multiplicity_lemma": WITH_EXP,
            "S1_duality_bound": STANDARD, "S1_sign_attains": STANDARD,
            "columns_dependent": STANDARD, "diagonally_dominant_kernel": STANDARD,
            "diagonally_dominant_full_rank": STANDARD, "grouped_lower_bound": STANDARD}
WITH_LN = ["Classical_Prop.classic", *WITH_EXP]
HEADLINES = {"S6_residual_bound": WITH_EXP, "S6_sharp": WITH_EXP, "S6_tanh_refuted": WITH_EXP,
             "residual_within_row": WITH_EXP, "grouped_lower_bound": STANDARD, "multiplicity_lemma": WITH_EXP,
             "S4_row_scalar_quotient": WITH_EXP, "S4_visible": WITH_EXP, "S1_duality": STANDARD}
SOUNDNESS = {"SResidual.two_point_exceeds_tanh_sound": WITH_LN, "SResidual.two_point_attains_sound": WITH_LN,
             "SInstances.lower_sound_Q": WITH_EXP, "SInstances.upper_sound_Q": WITH_EXP,
             "SInstances.rank_lower_sound": STANDARD, "SInstances.rank_upper_sound": STANDARD,
             "SInstances.row_shift_sound": WITH_EXP, "SInstances.differs_sound": WITH_EXP,
             "SInstances.residual_within_sound": WITH_EXP, "SInstances.duality_sound": STANDARD}


def _code(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return re.sub(r"\(\*.*?\*\)", " ", handle.read(), flags=re.S)


def test_the_paper_s_definitions_file_holds_no_proof():
    code = _code(os.path.join(formal.FORMAL, "SDefs.v"))
    assert "Definition approx_rank_ge" in code and not re.search(r"\b(Proof|Qed|Lemma|Theorem|Defined)\b", code)


def _assumptions(formal_built, tmp_path, modules: str, expected: dict[str, list[str]]) -> None:
    source = f"From AttnProof Require Import {modules}.\n" + "".join(f"Print Assumptions {n}.\n" for n in expected)
    ran = compile_v(formal_built, tmp_path, "assumptions_s", source)
    assert ran.returncode == 0, ran.stderr
    blocks = ran.stdout.split("Axioms:")[1:]
    assert len(blocks) == len(expected), ran.stdout
    for name, block in zip(expected, blocks):
        listed = [line.split(" : ")[0].strip() for line in block.splitlines() if line and not line.startswith(" ") and line.strip()]
        assert sorted(listed) == sorted(expected[name]), (name, listed)


def test_paper_s_theorems_rest_only_on_the_standard_reals_axioms(formal_built, tmp_path):
    _assumptions(formal_built, tmp_path, "SLemmas SRank SGrouped", THEOREMS)


def test_the_headline_theorems_rest_only_on_the_standard_reals_axioms(formal_built, tmp_path):
    _assumptions(formal_built, tmp_path, "STheorems", HEADLINES)


def test_the_soundness_theorems_of_the_certificates_rest_on_the_same(formal_built, tmp_path):
    _assumptions(formal_built, tmp_path, "SResidual SInstances", SOUNDNESS)


def test_the_headline_file_states_each_theorem_in_sdefs_words_only():
    code = _code(os.path.join(formal.FORMAL, "STheorems.v"))
    assert "From AttnProof Require Import SDefs." in code  # the lemma files are Required, never Imported
    stated = formal.statements()
    assert set(HEADLINES) <= set(stated)
    for name in HEADLINES:  # a statement names no lemma file's helper (qualified names are proofs' business)
        assert not re.search(r"\b(SLemmas|SGrouped|SResidual|SRank|SInstances)\.", stated[name]), name


def test_every_paper_s_claim_with_a_coq_statement_names_theorems_that_exist():
    stated = formal.statements()
    claims = ("softmax_rank.residual_error", "softmax_rank.residual_error_tanh", "softmax_rank.duality",
              "softmax_rank.row_scalar_quotient", "softmax_rank.spherical_law", "softmax_rank.certified_rank_bounds")
    named = {name for claim in claims for name in get(claim).formal}
    assert {"S6_residual_bound", "S6_tanh_refuted", "S1_duality", "S4_row_scalar_quotient", "grouped_lower_bound"} <= named
    assert named <= set(stated), named - set(stated)
