"""Coq export of the cone certificate kind ``rank-two-betweenness``.

:func:`rank_two_betweenness` writes one certificate as a Coq file that states the
judgment and proves it by the reflective checker of ``formal/KRankTwo.v``
(``check_betweenness``, proved sound once as ``check_betweenness_sound``)::

    Theorem check_betweenness_sound d :
      check_betweenness d = true -> forall m', (cm d <= m')%nat -> ~ solvable 2 m' 3.

The file holds the certificate's data as Coq terms and a proof that applies the
soundness theorem and evaluates the checker (``vm_compute; reflexivity``); it reasons
about nothing itself.  Coq rebuilds every row of every middle problem ``M(a; b, c)``
from its tokens (targets by ``KDefs.target``), checks each Motzkin combination exactly
(over ``Q``), and decides that no real keys of the queries (the angles of ``phi(q)``)
keep every middle strictly outside its ends' interval, by branching on the two sides
of each exclusion until the strict edges close a cycle.  So a changed multiplier, a
dropped row, a changed token, or a dropped exclusion that lets an order exist makes
the check compute ``false`` and ``coqc`` reject the file.

Data (as in the Python certificate, ``solvers/trusted/cones.py``)::

    {"m": M,                              # int >= 1, the tokens' length
     "queries": [bitstring, ...],         # the queries to be ordered
     "exclusions": [                      # each: the middle is never between the ends
        {"middle": a, "ends": [b, c],
         "rows": [[query, side, multiplier, [bitstring, bitstring]], ...],
                                          # query a, b or c; side "lo" or "hi";
                                          # the context of a sequence of length 3
         "nonnegative": [[end, bitstring, multiplier], ...]},   # k_end(token) >= 0
        ...]}

Numbers are exact: ints, or strings ``"p/q"`` / ``"p"`` (q > 0; no floats, no bools,
the grammar of ``solvers.trusted.core.rational``), written as Coq ``(p # q)%Q`` in
lowest terms (:mod:`theorems.formal.terms`, as every token, list and the statement guard); a negative multiplier is written as it is, and the Coq checker rejects
it.  Bit strings are written coordinate 1 first, as in ``solvers.trusted.core.token``,
and become Coq lists of booleans in the same order.  Contexts of another length than
two are written as they are, and the Coq checker rejects them (its judgment is about
length three only).

Statement (passed in by the dispatcher, written verbatim)::

    forall m, (M <= m)%nat -> ~ solvable 2 m 3

Output shape::

    From Coq Require Import List QArith.
    From AttnProof Require Import KDefs KTable KRankTwo.
    Import ListNotations.

    Definition cert : certificate := {|
      cm := M;
      cqueries := [[true; false; ...]; ...];
      cexcl := [
        {| emid := [...]; eends := ([...], [...]);
           erows := [
             {| rq := [...]; rside := Lo; ry := (1 # 1)%Q; rctx := [[...]; [...]] |};
             ...];
           enn := [] |};
        ...] |}.

    Theorem judgment : forall m, (M <= m)%nat -> ~ solvable 2 m 3.
    Proof. apply (check_betweenness_sound cert); vm_compute; reflexivity. Qed.

A statement that does not match the data (another M, rank or length) fails in
``coqc`` too: ``apply`` does not unify.
"""

from __future__ import annotations

from theorems.formal import terms

__all__ = ["rank_two_betweenness"]


_SIDES = {"lo": "Lo", "hi": "Hi"}


def _row(row, m: int) -> str:
    if not (isinstance(row, list) and len(row) == 4):
        raise ValueError(f"a row is [query, side, multiplier, context tokens], got {row!r}")
    query, side, y, context = row
    if side not in _SIDES:
        raise ValueError(f"side must be 'lo' or 'hi', got {side!r}")
    tokens = terms.bracket(terms.token(t, m) for t in terms.listof(context, "a row's context", nonempty=True))
    return (f"{{| rq := {terms.token(query, m)}; rside := {_SIDES[side]}; "
            f"ry := {terms.rational(y, 'multiplier')}; rctx := {tokens} |}}")


def _nonnegative(entry, m: int) -> str:
    if not (isinstance(entry, list) and len(entry) == 3):
        raise ValueError(f"a nonnegative row is [end, token, multiplier], got {entry!r}")
    end, x, y = entry
    return f"{{| nend := {terms.token(end, m)}; ntok := {terms.token(x, m)}; ny := {terms.rational(y, 'multiplier')} |}}"


def _exclusion(entry, m: int) -> str:
    if not (isinstance(entry, dict) and set(entry) == {"middle", "ends", "rows", "nonnegative"}):
        raise ValueError(f"an exclusion reads exactly middle, ends, rows, nonnegative, got {entry!r}")
    ends = entry["ends"]
    if not (isinstance(ends, list) and len(ends) == 2):
        raise ValueError(f"ends is a pair of tokens, got {ends!r}")
    rows = ";\n         ".join(_row(r, m) for r in terms.listof(entry["rows"], "rows", nonempty=True))
    nonneg = terms.bracket(_nonnegative(e, m) for e in terms.listof(entry["nonnegative"], "nonnegative"))
    return (f"{{| emid := {terms.token(entry['middle'], m)};\n"
            f"       eends := ({terms.token(ends[0], m)}, {terms.token(ends[1], m)});\n"
            f"       erows := [\n         {rows}];\n"
            f"       enn := {nonneg} |}}")


def rank_two_betweenness(data: dict, statement: str) -> str:
    """Coq source for one ``rank-two-betweenness`` certificate proving ``statement``.

    ``data`` is the certificate's data (module docstring); ``statement`` one Coq
    proposition, ``forall m, (M <= m)%nat -> ~ solvable 2 m 3`` from the dispatcher,
    written verbatim as the statement of ``Theorem judgment``, proved by
    ``apply (check_betweenness_sound cert); vm_compute; reflexivity``.  Raises
    ``ValueError`` on data it cannot write (the Coq checker decides everything else).
    """
    if not isinstance(data, dict):
        raise ValueError("data must be a dict")
    m = terms.nat(data["m"], "m", least=1)
    queries = terms.bracket(terms.token(q, m) for q in terms.listof(data["queries"], "queries", nonempty=True))
    exclusions = ";\n    ".join(_exclusion(e, m) for e in terms.listof(data["exclusions"], "exclusions", nonempty=True))
    statement = terms.proposition(statement)
    return (
        terms.header("KDefs", "KTable", "KRankTwo") + "\n"
        "Definition cert : certificate := {|\n"
        f"  cm := {m};\n"
        f"  cqueries := {queries};\n"
        f"  cexcl := [\n    {exclusions}] |}}.\n\n"
        f"Theorem judgment : {statement}.\n"
        "Proof. apply (check_betweenness_sound cert); vm_compute; reflexivity. Qed.\n"
    )
