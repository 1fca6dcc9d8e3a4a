"""The formal model is the Python model: exact outputs, targets and errors agree sequence by sequence.

For a table head (``phi``, ``psi``, readout ``U`` over {0,1}^m, indexed by the token
read as a binary number) Coq evaluates ``KEval.table_outputs`` and ``KDefs.target``
on every sequence of length 3, in ``itertools.product`` order; the same file proves
(``KEval.table_outputs_sound``, applied in it) that each listed output is
``KDefs.output`` of the head ``table_head_r`` on that sequence.  Python evaluates the
same head with ``theorems/attention.py`` (``KernelHead.from_features`` with one-hot
values and an ``AffineReadout`` a(q) = U[q], b = 0, in an ``AttentionLayer``) and
``min_ip_target``.  Heads: the K3 witnesses at m = 2 and 3 (from the session's check
run, conftest's ``paper_k_run``) and seeded random small rational heads of rank 1 and 2
at m = 2 and 3, with large errors.  The tables are written by the exporters' own
:func:`theorems.formal.terms.table`; the files are compiled against ``formal/`` built
once per session into the cache (conftest's ``formal_built``).

Tests that need ``coqc`` skip without it, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import itertools
import random
import re
from fractions import Fraction
from pathlib import Path

import pytest

from theorems.attention import AffineReadout, AttentionLayer, KernelHead, min_ip_target
from theorems.formal import terms

from .conftest import compile_v, run_certificates

LENGTH = 3


@pytest.fixture(scope="module")
def witnesses(paper_k_run) -> dict[int, dict]:
    """The K3 exhaustive witnesses of a default check run (the session's), by m."""
    return {cert["data"]["m"]: cert["data"]
            for _, cert in run_certificates(paper_k_run, ["three_token_lower_bound"], ("exhaustive",))}


def _random_head(seed: int, m: int, rank: int) -> dict:
    """phi, psi > 0 (so kappa(q, q) > 0) and a readout far from any solution: errors up to ~10."""
    rng = random.Random(seed)
    size = 1 << m

    def positive():
        return Fraction(rng.randint(1, 9), rng.randint(1, 5))

    return {
        "m": m,
        "phi": [[positive() for _ in range(rank)] for _ in range(size)],
        "psi": [[positive() if rng.random() < 0.8 else Fraction(0) for _ in range(rank - 1)] + [positive()]
                for _ in range(size)],
        "readout": [[Fraction(rng.randint(-30, 30), rng.randint(1, 7)) for _ in range(size)] for _ in range(size)],
    }


def _table(rows) -> str:
    """A table of exact numbers (ints, "p/q" strings or Fractions) as a Coq ``list (list Q)``."""
    return terms.table([[str(v) for v in row] for row in rows], "table") + "%Q"


def _coq_file(head: dict) -> str:
    m, rank = head["m"], len(head["phi"][0])
    args = f"{rank} {m} data_phi data_psi data_readout"
    return f"""From Coq Require Import Reals QArith List.
From AttnProof Require Import KDefs KEval.
Import ListNotations.

Definition data_phi : list (list Q) := {_table(head['phi'])}.
Definition data_psi : list (list Q) := {_table(head['psi'])}.
Definition data_readout : list (list Q) := {_table(head['readout'])}.

(* the listed outputs are KDefs' outputs of the head, sequence by sequence *)
Lemma outputs_are_the_model :
  Forall2 (fun s y => Q2R y = output (table_head_r {args})
                                     (map (tok {m}) (removelast s)) (tok {m} (last s 0%nat)))
          (all_seqs (2 ^ {m}) {LENGTH}) (table_outputs {m} {LENGTH} data_phi data_psi data_readout).
Proof. apply table_outputs_sound; [vm_compute; reflexivity | repeat constructor]. Qed.

Eval vm_compute in
  map (fun sy => (Qnum (snd sy), Zpos (Qden (snd sy)),
                  target (map (tok {m}) (removelast (fst sy))) (tok {m} (last (fst sy) 0%nat))))
      (combine (all_seqs (2 ^ {m}) {LENGTH}) (table_outputs {m} {LENGTH} data_phi data_psi data_readout)).
"""


_TRIPLE = re.compile(r"\(\s*\(?(-?\d+)\)?%Z,\s*(\d+)%Z,\s*(\d+)%nat\s*\)")


def _coq_rows(built: str, folder: Path, head: dict) -> list[tuple[Fraction, int]]:
    done = compile_v(built, folder, "agreement", _coq_file(head))
    assert done.returncode == 0, done.stdout + done.stderr
    return [(Fraction(int(a), int(b)), int(t)) for a, b, t in _TRIPLE.findall(done.stdout)]


def _python_rows(head: dict) -> list[tuple[Fraction, int, Fraction]]:
    m = head["m"]
    size = 1 << m
    phi = [[Fraction(v) for v in row] for row in head["phi"]]
    psi = [[Fraction(v) for v in row] for row in head["psi"]]
    U = [[Fraction(v) for v in row] for row in head["readout"]]
    kernel = KernelHead.from_features(lambda x: phi[x], lambda x: psi[x], lambda x: [int(i == x) for i in range(size)])
    layer = AttentionLayer((kernel,), AffineReadout(a=lambda q: [U[q]], b=lambda q: Fraction(0)))
    return [(layer(seq), min_ip_target(seq), layer.error(seq)) for seq in itertools.product(range(size), repeat=LENGTH)]


def _agree(built: str, tmp_path: Path, head: dict) -> None:
    coq = _coq_rows(built, tmp_path, head)
    python = _python_rows(head)
    assert len(coq) == len(python) == (1 << head["m"]) ** LENGTH
    for seq, (y_coq, t_coq), (y_py, t_py, e_py) in zip(itertools.product(range(1 << head["m"]), repeat=LENGTH), coq, python):
        assert (y_coq, t_coq) == (y_py, t_py), f"sequence {seq}: Coq {y_coq}, T={t_coq}; Python {y_py}, T={t_py}"
        assert abs(y_coq - t_coq) == e_py, f"sequence {seq}: errors differ"


@pytest.mark.parametrize("m", [2, 3])
def test_the_k3_witness_has_the_same_outputs_targets_and_errors(formal_built, witnesses, tmp_path, m):
    data = witnesses[m]
    _agree(formal_built, tmp_path, {"m": m, "phi": data["phi"], "psi": data["psi"], "readout": data["readout"]})


@pytest.mark.parametrize("seed,m,rank", [(1, 2, 1), (2, 2, 2), (3, 3, 1), (4, 3, 2)])
def test_a_random_head_has_the_same_outputs_targets_and_errors(formal_built, tmp_path, seed, m, rank):
    head = _random_head(seed, m, rank)
    assert max(e for _, _, e in _python_rows(head)) > 1  # far from solving: the errors themselves are compared
    _agree(formal_built, tmp_path, head)
