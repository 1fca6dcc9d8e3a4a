"""Coq export of the evaluation kinds ``exhaustive`` and ``rank-one-positional-witness``.

:func:`exhaustive` and :func:`positional_witness` write one certificate as a Coq
file that states the judgment and proves it with the reflective evaluator of
``formal/KEval.v``: the file holds the certificate's tables as Coq terms and a
proof that applies one soundness theorem and evaluates the checker
(``vm_compute; reflexivity``); it reasons about nothing itself.  Coq re-evaluates
the head exactly on every sequence (every ordered context, query last, targets by
``KDefs.target``), so a changed readout entry that breaks an error bound, a
negative feature, ``kappa(q, q) = 0``, a table of the wrong size, or a statement
the data does not prove (another rank, m, length or a smaller tolerance) makes
the checker compute ``false`` and ``coqc`` reject the file.

Data (the certificate's ``data`` field, as ``solvers/trusted/evaluation.py`` reads it)::

    exhaustive:  {"m": M, "lengths": [n, ...], "phi": 2^M x r, "psi": 2^M x r,
                  "readout": 2^M x 2^M (U[q][x]), "target": "min-ip",
                  "tolerance": t, "symmetry": ...}           (symmetry is not read:
                                                               Coq checks every sequence)
    positional:  {"m": M, "psi": n x 2^M (psi[j-1][x] = psi_j(x)),
                  "readout": n tables U_j (2^M x 2^M), "tolerance": t,
                  "prefixes": bool}

Tables are indexed by the token read as a binary number, coordinate 1 = bit 0
(``KEval.tok``).  Numbers are exact: ints, or strings ``"p/q"`` / ``"p"`` (no
floats, no bools, the grammar of ``solvers.trusted.core.rational``), written by
:mod:`theorems.formal.terms` as Coq ``(p # q)`` in lowest terms.

Statements (passed in by the dispatcher, written verbatim as the theorem once
:func:`theorems.formal.terms.proposition` has read them as one proposition; spaces
are free, the numbers are decimal integers)::

    exhaustive, tolerance <= 1/2, N one of the certificate's lengths:
        solvable R M N
    exhaustive, any tolerance the data proves, any nonempty list of lengths:
        exists h : head R, solves_within (Q2R (P#D)) M N1 h /\\ ... /\\ solves_within (Q2R (P#D)) M Nk h
      (optionally in one pair of parentheses; the same P#D and M in every conjunct;
       P#D the tolerance as a fraction, D >= 1, e.g. (Q2R (1#2)), (Q2R (0#1)); a
       P#D at least the certificate's tolerance is accepted)
    rank-one-positional-witness, prefixes false, tolerance <= 1/2:
        psolvable 1 M N        (N = the number of psi rows)
    rank-one-positional-witness, prefixes true, tolerance <= 1/2:
        csolvable 1 M N

Output shape::

    From Coq Require Import Reals QArith List.
    From AttnProof Require Import KDefs KEval.
    Import ListNotations.

    Definition data_phi : list (list Q) :=
      [[(1 # 1)];
      ...]%Q.
    Definition data_psi : list (list Q) := ...
    Definition data_readout : list (list Q) := ...
    Definition data_tolerance : Q := (1 # 2)%Q.

    Theorem judgment : solvable 1 3 3.
    Proof.
      apply (exhaustive_solvable 1 3 3 [3]%nat data_phi data_psi data_readout data_tolerance).
      vm_compute. reflexivity.
    Qed.

For the ``exists h`` shape the proof is
``refine (exhaustive_exists R M [N1; ...; Nk]%nat data_phi data_psi data_readout
data_tolerance (P#D)%Q _).`` (the statement's lengths and tolerance; Coq checks
``rank_of data_phi = R``, ``data_tolerance <= P/D`` and every listed length);
for the positional kind ``apply (positional_psolvable M N data_psi data_readout
data_tolerance).`` (``positional_csolvable`` with prefixes), whose check reads
``length data_psi = N`` and ``data_tolerance <= 1/2``.  A statement of another
shape, or one the data plainly cannot prove (another m, a length the
certificate does not list, psolvable for a prefixes certificate), raises
``ValueError``; anything subtler is left to ``coqc``.

Times (coqc, user CPU, 2 cores shared): the three-token witnesses at m <= 3
about 0.5 s each, the m = 5 rank-3 head (32 tokens, 32,768 sequences, kernel
rows of ~400-bit integers) about 5 s, rank_one_short's m = 7 certificate
(128 tokens, lengths 1 and 2, tolerance 0) about 2 s.
"""

from __future__ import annotations

import re

from theorems.formal import terms

__all__ = ["exhaustive", "positional_witness"]

_HEADER = terms.header("KDefs", "KEval", coq="Reals QArith List")


def _tables(tables, what: str) -> str:
    """A list of tables (a ``list (list (list Q))``), one table after another, entries unscoped."""
    return terms.bracket((terms.table(t, what) for t in terms.listof(tables, f"{what} (a list of tables)")), ";\n ")


_INT = r"(\d+)"
_SOLVABLE = re.compile(rf"^\s*solvable\s+{_INT}\s+{_INT}\s+{_INT}\s*$")
_POSITIONAL = re.compile(rf"^\s*(psolvable|csolvable)\s+{_INT}\s+{_INT}\s+{_INT}\s*$")
_EXISTS = re.compile(rf"^\s*exists\s+h\s*:\s*head\s+{_INT}\s*,\s*(.*?)\s*$", re.S)
_CONJUNCT = re.compile(rf"^\s*solves_within\s+\(\s*Q2R\s+\(\s*(-?\d+)\s*#\s*{_INT}\s*\)\s*\)\s+{_INT}\s+{_INT}\s+h\s*$")


def _strip_parens(text: str) -> str:
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, ch in enumerate(text):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0 and i < len(text) - 1:
                return text  # the first parenthesis closes before the end: not one outer pair
        return text[1:-1].strip()
    return text


def _file(definitions: list[str], statement: str, proof: str) -> str:
    """The file: header, the data's definitions, and ``Theorem judgment`` (``statement`` already guarded)."""
    body = "\n\n".join(definitions)
    return (f"{_HEADER}\n{body}\n\nTheorem judgment : {statement}.\n"
            f"Proof.\n  {proof}\n  vm_compute. reflexivity.\nQed.\n")


def exhaustive(data: dict, statement: str) -> str:
    """The Coq file of an ``exhaustive`` certificate proving ``statement`` (see the module docstring)."""
    m = terms.nat(data["m"], "m")
    lengths = [terms.nat(n, "length") for n in data["lengths"]]
    definitions = [
        f"Definition data_phi : list (list Q) :=\n  {terms.table(data['phi'], 'phi')}%Q.",
        f"Definition data_psi : list (list Q) :=\n  {terms.table(data['psi'], 'psi')}%Q.",
        f"Definition data_readout : list (list Q) :=\n  {terms.table(data['readout'], 'readout')}%Q.",
        f"Definition data_tolerance : Q := {terms.rational(data['tolerance'], 'tolerance')}.",
    ]
    statement = terms.proposition(statement)
    match = _SOLVABLE.match(statement)
    if match:
        r, sm, n = (int(g) for g in match.groups())
        if n not in lengths:
            raise ValueError(f"length {n} is not one of the certificate's lengths {lengths}")
        if sm != m:
            raise ValueError(f"the statement's m = {sm} is not the certificate's m = {m}")
        proof = f"apply (exhaustive_solvable {r} {m} {n} {terms.nats([n])} data_phi data_psi data_readout data_tolerance)."
        return _file(definitions, statement, proof)
    match = _EXISTS.match(_strip_parens(statement))
    if match:
        r = int(match.group(1))
        conjuncts = [_CONJUNCT.match(c) for c in re.split(r"/\\", match.group(2))]
        if not conjuncts or not all(conjuncts):
            raise ValueError(f"unsupported conjunct in {statement!r}")
        tols = {(int(c.group(1)), int(c.group(2))) for c in conjuncts}
        ms = {int(c.group(3)) for c in conjuncts}
        ns = [int(c.group(4)) for c in conjuncts]
        if len(tols) != 1 or ms != {m}:
            raise ValueError(f"every conjunct must have the same tolerance and the certificate's m = {m}: {statement!r}")
        (p, d), = tols
        if d == 0:
            raise ValueError("the tolerance's denominator must be positive")
        if not set(ns) <= set(lengths):
            raise ValueError(f"lengths {ns} are not all among the certificate's lengths {lengths}")
        proof = (f"refine (exhaustive_exists {r} {m} {terms.nats(ns)} data_phi data_psi data_readout data_tolerance "
                 f"({p}#{d})%Q _).")
        return _file(definitions, statement, proof)
    raise ValueError(f"unsupported statement for an exhaustive certificate: {statement!r}")


def positional_witness(data: dict, statement: str) -> str:
    """The Coq file of a ``rank-one-positional-witness`` certificate proving ``statement``."""
    m = terms.nat(data["m"], "m")
    prefixes = data["prefixes"]
    if not isinstance(prefixes, bool):
        raise ValueError(f"prefixes must be a bool, got {prefixes!r}")
    statement = terms.proposition(statement)
    match = _POSITIONAL.match(statement)
    if not match:
        raise ValueError(f"unsupported statement for a positional witness: {statement!r}")
    which, r, sm, n = match.group(1), *(int(g) for g in match.groups()[1:])
    if (which == "csolvable") != prefixes:
        raise ValueError(f"{which} needs a certificate with prefixes {which == 'csolvable'}")
    if r != 1 or sm != m:
        raise ValueError(f"the statement must read rank 1 and the certificate's m = {m}: {statement!r}")
    definitions = [
        f"Definition data_psi : list (list Q) :=\n  {terms.table(data['psi'], 'psi')}%Q.",
        f"Definition data_readout : list (list (list Q)) :=\n {_tables(data['readout'], 'readout')}%Q.",
        f"Definition data_tolerance : Q := {terms.rational(data['tolerance'], 'tolerance')}.",
    ]
    lemma = "positional_csolvable" if prefixes else "positional_psolvable"
    proof = f"apply ({lemma} {m} {n} data_psi data_readout data_tolerance)."
    return _file(definitions, statement, proof)
