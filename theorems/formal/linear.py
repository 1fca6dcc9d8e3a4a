"""Coq export of the linear certificate kind ``rank-one-infeasible``.

:func:`rank_one_infeasible` writes one certificate as a Coq file that states the
judgment and proves it by the reflective checker of ``formal/KLower.v``
(``check_rank_one_infeasible``, proved sound once as
``rank_one_infeasible_tokenwise`` / ``rank_one_infeasible_positional``).  The file
holds the certificate's data as Coq terms and a proof that applies the soundness
theorem and evaluates the checker (``vm_compute; reflexivity``); it reasons about
nothing itself.  Coq rebuilds every row from its tokens (targets by
``KDefs.target``), so a changed multiplier, a dropped row or a changed token makes
the check compute ``false`` and ``coqc`` reject the file.

Data (as in the Python certificate, ``solvers/trusted/linear.py``)::

    {"m": M,                         # int >= 1, the tokens' length
     "positions": bool,              # false: model "kernel"; true: "kernel-positional"
     "rows": [[side, multiplier, [bitstring, ...]], ...],
                                     # side "lo" or "hi"; the sequence ends with its
                                     # query; every sequence has the same length N
     "nonnegative": [[position, bitstring, multiplier], ...]}
                                     # psi_position(token) >= 0; position 0 without
                                     # positions, 1..N with them

Numbers are exact: ints, or strings ``"p/q"`` / ``"p"`` (q > 0; no floats, no bools,
the grammar of ``solvers.trusted.core.rational``), written as Coq ``(p # q)%Q`` in lowest terms
(:mod:`theorems.formal.terms`, as every token, list and the statement guard);
a negative multiplier is written as it is, and the Coq checker rejects it.  Bit strings are written
coordinate 1 first, as in ``solvers.trusted.core.token``, and become Coq lists of
booleans in the same order.

Statement (passed in by the dispatcher, written verbatim)::

    forall m, (M <= m)%nat -> ~ solvable 1 m N      (positions false)
    forall m, (M <= m)%nat -> ~ psolvable 1 m N     (positions true)

Output shape::

    From Coq Require Import List QArith.
    From AttnProof Require Import KDefs KTable KLower.
    Import ListNotations.

    Definition cert : rcert := {| rc_m := M; rc_positions := ...;
      rc_rows := [(lo, (1 # 1)%Q, [[true; true; false; false]; ...]); ...];
      rc_nonneg := [...] |}.

    Theorem judgment : <statement>.
    Proof. apply (rank_one_infeasible_tokenwise cert); vm_compute; reflexivity. Qed.

(``rank_one_infeasible_positional`` when ``positions`` is true.)  A statement that
does not match the data (another M, N or model) fails in ``coqc`` too: ``apply``
does not unify, or ``rc_m cert = M`` / ``rc_length cert = N`` computes to a false
equation.
"""

from __future__ import annotations

from theorems.formal import terms

__all__ = ["rank_one_infeasible"]


def rank_one_infeasible(data: dict, statement: str) -> str:
    """Coq source for one ``rank-one-infeasible`` certificate proving ``statement``."""
    if not isinstance(data, dict):
        raise ValueError("data must be a dict")
    m = terms.nat(data["m"], "m", least=1)
    positions = data["positions"]
    if not isinstance(positions, bool):
        raise ValueError(f"positions must be a bool, got {positions!r}")
    row_terms = []
    for row in terms.listof(data["rows"], "rows", nonempty=True):
        if not (isinstance(row, list) and len(row) == 3):
            raise ValueError(f"a row is [side, multiplier, sequence], got {row!r}")
        side, y, sequence = row
        if side not in ("lo", "hi"):
            raise ValueError(f"side must be 'lo' or 'hi', got {side!r}")
        tokens = terms.bracket(terms.token(t, m) for t in terms.listof(sequence, "a sequence of bit strings", nonempty=True))
        row_terms.append(f"({side}, {terms.rational(y, 'multiplier')}, {tokens})")
    nonneg_terms = []
    for entry in data.get("nonnegative", []):
        if not (isinstance(entry, list) and len(entry) == 3):
            raise ValueError(f"a nonnegative row is [position, token, multiplier], got {entry!r}")
        j, x, y = entry
        nonneg_terms.append(f"({terms.nat(j, 'position')}%nat, {terms.token(x, m)}, {terms.rational(y, 'multiplier')})")
    statement = terms.proposition(statement)
    sound = "rank_one_infeasible_positional" if positions else "rank_one_infeasible_tokenwise"
    sep = ";\n    "
    return (
        terms.header("KDefs", "KTable", "KLower") + "\n"
        "Definition cert : rcert := {|\n"
        f"  rc_m := {m};\n"
        f"  rc_positions := {'true' if positions else 'false'};\n"
        f"  rc_rows := [\n    {sep.join(row_terms)}];\n"
        f"  rc_nonneg := [{'; '.join(nonneg_terms)}] |}}.\n\n"
        f"Theorem judgment : {statement}.\n"
        f"Proof. apply ({sound} cert); vm_compute; reflexivity. Qed.\n"
    )
