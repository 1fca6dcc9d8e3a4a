"""The Coq layer as a whole: nothing admitted, the assumptions printed, and verify --coq end to end.

* no ``Admitted``, ``admit`` or axiom of ours anywhere in formal/, and no proof in KDefs.v;
* ``Print Assumptions`` of every headline theorem of KTheorems.v is exactly the standard reals' two axioms;
* the obligations of K1, K3, K5 and rank_two are the Coq statements: each obligation, stated by
  ``theorems.formal.proposition``, is proved in Coq from the claim's headline theorems — so an obligation
  changed without its theorem (length 3 -> 2) fails here;
* ``verify --coq`` on a default run checks every obligation of the four claims, refuses a run without coqc
  in one line naming the packages, and a tampered exported certificate fails coqc.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from theorems import cli, formal
from theorems.core import get

from .conftest import compile_v, coqc_or_skip

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STANDARD = ["ClassicalDedekindReals.sig_forall_dec", "FunctionalExtensionality.functional_extensionality_dep"]
CLAIMS = ("kernel_rank.rank_one_short", "kernel_rank.three_token_lower_bound", "kernel_rank.position_and_causal",
          "kernel_rank.rank_two")


def _sources() -> list[str]:
    return sorted(glob.glob(os.path.join(formal.FORMAL, "**", "*.v"), recursive=True))


def _code(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return re.sub(r"\(\*.*?\*\)", " ", handle.read(), flags=re.S)


def test_nothing_is_admitted_and_no_axiom_is_ours():
    assert len(_sources()) >= 8
    for path in _sources():
        code = _code(path)
        found = re.findall(r"\b(Admitted|admit|Axiom|Axioms|Parameter|Parameters|Hypothesis|Hypotheses|Conjecture)\b", code)
        assert not found, f"{path}: {found}"


def test_the_definitions_file_holds_no_proof():
    code = _code(os.path.join(formal.FORMAL, "KDefs.v"))
    assert "Definition solvable" in code and not re.search(r"\b(Proof|Qed|Lemma|Theorem|Defined)\b", code)


def test_every_claim_with_a_coq_statement_names_theorems_that_exist():
    stated = formal.statements()
    named = {name for claim in (get(c) for c in CLAIMS + ("kernel_rank.feature_rank_table",)) for name in claim.formal}
    assert named and named <= set(stated), named - set(stated)
    assert stated["K3_rank_one_iff"] == "forall m : nat, (1 <= m)%nat -> (solvable 1 m 3 <-> (m <= 3)%nat)"


def test_every_headline_theorem_rests_only_on_the_standard_reals_axioms(formal_built, tmp_path):
    names = sorted(formal.statements(formal.HEADLINES[0]))  # KTheorems.v (paper S's: tests/formal/test_paper_s.py)
    source = "From AttnProof Require Import KTheorems.\n" + "".join(f"Print Assumptions {n}.\n" for n in names)
    ran = compile_v(formal_built, tmp_path, "assumptions", source)
    assert ran.returncode == 0, ran.stderr
    blocks = ran.stdout.split("Axioms:")[1:]
    assert len(blocks) == len(names) == 8, ran.stdout
    for block in blocks:
        assert re.findall(r"^(\S+)\s*$|^(\S+)\s*:", block, flags=re.M)  # something is listed
        listed = [line.strip() for line in block.splitlines() if line and not line.startswith(" ") and line.strip()]
        assert listed == STANDARD, listed


# Per claim: how each obligation follows from its headline theorems (a tactic each; tests, not exported files).
TACTICS = r"""
From Coq Require Import Reals QArith Qreals Lia.
From AttnProof Require Import KDefs KTable KTheorems.
Ltac from_headlines :=
  try (replace (Q2R (0#1)) with 0%R by (unfold Q2R; simpl; field));
  match goal with
  | |- exists h : head 1, solves_within 0 ?m 1 h /\ solves_within 0 ?m 2 h => exact (K1_lengths_one_and_two m)
  | |- forall m, _ -> exists h : head 1, _ => intros ?m ?H; exact (K1_lengths_one_and_two m)
  | |- solvable 1 ?m 3 => apply K3_rank_one_iff; lia
  | |- solvable 1 ?m 4 => apply K3_length_four; lia
  | |- forall m, _ -> ~ solvable 1 m 3 => intros ?m ?H ?S; apply K3_rank_one_iff in S; lia
  | |- forall m, _ -> ~ solvable 1 m 4 => intros ?m ?H ?S; apply K3_length_four in S; lia
  | |- psolvable 1 ?m 3 => exact (proj1 (K5_positions_solve m ltac:(lia)))
  | |- psolvable 1 ?m 4 => exact (proj1 (proj2 (K5_positions_solve m ltac:(lia))))
  | |- csolvable 1 ?m 3 => exact (proj2 (proj2 (K5_positions_solve m ltac:(lia))))
  | |- forall m, (?a <= m)%nat -> ~ psolvable 1 m ?n => intros ?m ?H; exact (proj1 (K5_positions_fail m n ltac:(lia) ltac:(lia)))
  | |- solvable 2 4 3 => exact (proj1 r_star_4_is_2)
  | |- solvable 3 5 3 => exact (proj1 r_star_5_is_3)
  | |- forall m, (5 <= m)%nat -> ~ solvable 2 m 3 => exact rank_two_fails_from_5
  end.
"""


def _obligation_statements() -> list[tuple[str, str]]:
    """(claim, Coq statement) of every verify obligation of the four claims at their default points (and rank_two at m = 5)."""
    found = []
    for claim_id, points in [(c, [{}]) for c in CLAIMS[:-1]] + [(CLAIMS[-1], [{}, {"m": 5}])]:
        claim = get(claim_id)
        for overrides in points:
            for o in claim.obligations(claim.point(overrides)).to_json()["verify"]:
                statement = formal.proposition(o["judgment"])
                if statement is None:  # K1's statistic obligation: stated by the general theorem
                    test, state, _ = formal.THEOREMS[0]
                    statement = state(o["judgment"]) if o["judgment"].get("model") == "score-statistic" else None
                assert statement is not None, (claim_id, o["judgment"])
                found.append((claim_id, statement))
    return found


def test_the_obligations_of_k1_k3_k5_and_rank_two_follow_from_their_coq_theorems(formal_built, tmp_path):
    found = _obligation_statements()
    assert len(found) == 34  # 2 (K1) + 4 (K3) + 25 (K5) + 2 + 1 (rank_two at m = 4, 5)
    source = TACTICS + "".join(f"\nGoal {statement}.\nProof. from_headlines. Qed.\n" for _, statement in found)
    ran = compile_v(formal_built, tmp_path, "obligations", source)
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_an_obligation_changed_without_its_theorem_fails(formal_built, tmp_path):
    """Length 3 -> 2 in K3's obligation: no headline theorem proves it, the file does not compile."""
    ran = compile_v(formal_built, tmp_path, "changed", TACTICS + "\nGoal solvable 1 3 2.\nProof. from_headlines. Qed.\n")
    assert ran.returncode != 0


@pytest.fixture(scope="module")
def default_run(paper_k_run):
    """The session's check run of the four claims (conftest's ``paper_k_run``; rank_two also at m = 5)."""
    return str(paper_k_run)


def test_verify_coq_checks_every_obligation_of_the_four_claims(formal_built, default_run, capsys):
    assert cli.main(["verify", "--coq", default_run]) == 0
    out = capsys.readouterr().out
    for claim in CLAIMS:
        line = next(line for line in out.splitlines() if line.startswith(f"{claim} [default]: ") and "checked by Coq" in line)
        done, total = re.search(r"(\d+) of (\d+) obligation\(s\) checked by Coq", line).groups()
        assert done == total and int(total) >= 2, line
    assert "NOT ACCEPTED" not in out


def test_a_tampered_exported_certificate_fails_coqc(formal_built, default_run, tmp_path):
    from theorems import verification

    result = verification.verify([os.path.join(default_run, "kernel_rank.three_token_lower_bound")])
    done = formal.export(result, str(tmp_path / "coq"))
    name = next(n for p, n in done.certificates.items() if p.endswith("03-rank-one-infeasible.cert.json"))
    path = tmp_path / "coq" / f"{name}.v"
    text = path.read_text()
    tampered = text.replace("(2 # 1)", "(3 # 1)", 1)  # one Motzkin multiplier doubled -> tripled
    assert tampered != text
    path.write_text(tampered)
    formal.compile(done)
    [item] = [o for o in done.obligations if o.certificate.startswith("03-")]
    assert item.accepted is False and item.error
    assert [o.accepted for o in done.obligations if not o.certificate.startswith("03-")] == [True, True, True]


def test_verify_coq_without_coqc_is_one_line_naming_the_packages(default_run, tmp_path):
    env = dict(os.environ, PATH=str(tmp_path), PYTHONPATH=ROOT)  # no coqc on the path
    ran = subprocess.run([sys.executable, "-m", "theorems.cli", "verify", "--coq", default_run], env=env,
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr.count("\n") == 1 and "apt-get install -y coq libcoq-interval libcoq-mathcomp-ssreflect" in ran.stderr


def test_proposition_states_only_what_kdefs_can_say():
    half = "1/2"
    assert formal.proposition({"judgment": "unsolvable", "model": "kernel", "rank": 1, "m": [4, None], "length": 3,
                               "target": "min-ip", "tolerance": half}) == "forall m, (4 <= m)%nat -> ~ solvable 1 m 3"
    assert formal.proposition({"judgment": "solves", "model": "kernel", "head": "any", "rank": 2, "alphabet": "all",
                               "m": [4, 4], "lengths": [3], "target": "min-ip", "tolerance": half}) == "solvable 2 4 3"
    # no counterpart: another target, a sub-alphabet, a range of m, a tolerance above 1/2, a multi-head model
    for change in ({"target": "all-pairs"}, {"alphabet": "sha256:x"}, {"m": [1, 4]}, {"tolerance": "3/4"},
                   {"model": "kernel-heads-2"}):
        assert formal.proposition({"judgment": "solves", "model": "kernel", "head": "any", "rank": 2, "alphabet": "all",
                                   "m": [4, 4], "lengths": [3], "target": "min-ip", "tolerance": half} | change) is None
    # a bridge only in the sound direction: every m >= 4 covers every m >= 5, never the reverse
    at4 = {"judgment": "unsolvable", "model": "kernel", "rank": 1, "m": [4, None], "length": 3, "target": "min-ip", "tolerance": half}
    at5 = at4 | {"m": [5, None]}
    assert formal.bridge(at5, at4, "T") and formal.bridge(at4, at5, "T") is None
    assert formal.bridge(at4, at4 | {"model": "kernel-positional"}, "T") == "(unsolvable_of_positional 1 4 3 T)"
    assert formal.bridge(at4 | {"model": "kernel-positional"}, at4, "T") is None
    # one m: "~ solvable 1 5 3", from "every m >= 4" at m = 5; never at m = 3
    assert formal.proposition(at4 | {"m": [5, 5]}) == "~ solvable 1 5 3"
    assert formal.bridge(at4 | {"m": [5, 5]}, at4, "T") == "(T 5 (proj1 (Nat.leb_le 4 5) eq_refl))"
    assert formal.bridge(at4 | {"m": [3, 3]}, at4, "T") is None
    assert formal.bridge(at4, at4 | {"m": [4, 4]}, "T") is None  # one m never covers every m


def test_no_text_reaches_coq_as_code():
    """Words and summaries go into comments: nothing in them can close the comment or open a string."""
    hostile = '*) Definition solvable (r m n : nat) := True. (* "x'
    line = formal._comment(hostile)
    body = line[3:-4]
    assert line.startswith("(* ") and line.endswith(" *)\n")
    assert "*)" not in body and "(*" not in body and '"' not in body and "(" not in body and ")" not in body


def test_only_outcomes_that_stand_are_asked_of_coq(default_run, tmp_path):
    """An outcome whose recorded obligations were edited does not stand: none of its obligations is exported."""
    from theorems import verification

    root = tmp_path / "run"
    shutil.copytree(os.path.join(default_run, "kernel_rank.three_token_lower_bound"), root / "kernel_rank.three_token_lower_bound")
    path = root / "kernel_rank.three_token_lower_bound" / "default" / "outcome.json"
    record = json.loads(path.read_text())
    record["obligations"]["verify"][0]["words"] = "*) Definition solvable (r m n : nat) := True. (*"
    path.write_text(json.dumps(record))
    result = verification.verify([str(root)])
    assert not result.ok
    done = formal.export(result, str(tmp_path / "coq"))
    assert done.obligations == []
