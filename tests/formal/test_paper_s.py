"""Paper S in Coq (begun): SDefs.v holds definitions only, and every theorem of SLemmas.v, SRank.v and SGrouped.v rests
only on the standard reals' axioms: the two every real-number proof brings, and for the statements about softmax (which
mention ``exp``, defined as the limit of its series) the third, ``ClassicalDedekindReals.sig_not_dec``."""

from __future__ import annotations

import os
import re

from theorems import formal

from .conftest import compile_v

STANDARD = ["ClassicalDedekindReals.sig_forall_dec", "FunctionalExtensionality.functional_extensionality_dep"]
WITH_EXP = ["ClassicalDedekindReals.sig_not_dec", *STANDARD]
THEOREMS = {"S4_row_scalar_quotient": WITH_EXP, "multiplicity_lemma": WITH_EXP,
            "S1_duality_bound": STANDARD, "S1_sign_attains": STANDARD,
            "columns_dependent": STANDARD, "diagonally_dominant_kernel": STANDARD,
            "diagonally_dominant_full_rank": STANDARD, "grouped_lower_bound": STANDARD}


def _code(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return re.sub(r"\(\*.*?\*\)", " ", handle.read(), flags=re.S)


def test_the_paper_s_definitions_file_holds_no_proof():
    code = _code(os.path.join(formal.FORMAL, "SDefs.v"))
    assert "Definition approx_rank_ge" in code and not re.search(r"\b(Proof|Qed|Lemma|Theorem|Defined)\b", code)


def test_paper_s_theorems_rest_only_on_the_standard_reals_axioms(formal_built, tmp_path):
    source = "From AttnProof Require Import SLemmas SRank SGrouped.\n" + "".join(f"Print Assumptions {n}.\n" for n in THEOREMS)
    ran = compile_v(formal_built, tmp_path, "assumptions_s", source)
    assert ran.returncode == 0, ran.stderr
    blocks = ran.stdout.split("Axioms:")[1:]
    assert len(blocks) == len(THEOREMS), ran.stdout
    for name, block in zip(THEOREMS, blocks):
        listed = [line.split(" : ")[0].strip() for line in block.splitlines() if line and not line.startswith(" ") and line.strip()]
        assert listed == THEOREMS[name], (name, listed)
