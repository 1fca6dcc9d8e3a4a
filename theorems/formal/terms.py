"""Coq terms from certificate data: what every exporter of :mod:`theorems.formal` writes the same way.

The exporters (:mod:`~theorems.formal.evaluation`, :mod:`~theorems.formal.linear`,
:mod:`~theorems.formal.cones`) differ in the records they write; the pieces below are
shared, and each refuses with ``ValueError`` what it cannot write exactly:

* :func:`number`, :func:`rational`, :func:`rationals` — an exact number of a certificate
  (an int, not a bool, or a string ``"p"`` / ``"p/q"`` with q > 0: the grammar of
  ``solvers.trusted.core.rational``; no floats, no other spellings) as a Coq ``Q`` in lowest
  terms, ``(p # q)%Q`` — or ``(p # q)`` inside a list that carries ``%Q`` once;
* :func:`token` — a token written as a bit string, coordinate 1 first (as
  ``solvers.trusted.core.token`` reads it), as the Coq list of booleans in the same order;
* :func:`nat`, :func:`nats` — natural numbers, and a Coq ``list nat``;
* :func:`listof`, :func:`bracket`, :func:`table` — lists checked to be lists, and written as Coq lists;
* :func:`header` — the ``Require`` lines every exported file opens with;
* :func:`proposition` — the statement guard: the dispatcher's statement is written verbatim as
  ``Theorem judgment : <statement>.``, so it must be one Coq proposition (no ``.`` that would end
  the theorem and let the text go on).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction

__all__ = ["number", "rational", "rationals", "table", "token", "nat", "nats", "listof", "bracket", "header",
           "proposition"]

_RATIONAL = re.compile(r"-?[0-9]+(/[0-9]+)?")  # the grammar of solvers.trusted.core.rational


def number(value, what: str) -> Fraction:
    """The exact value of ``value``: an int (not a bool) or a string ``"p"`` / ``"p/q"`` with q > 0."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if not (isinstance(value, str) and _RATIONAL.fullmatch(value)):
        raise ValueError(f"{what} must be an int or a string 'p/q', got {value!r}")
    p, _, q = value.partition("/")
    if q and int(q) == 0:
        raise ValueError(f"{what} has a zero denominator: {value!r}")
    return Fraction(int(p), int(q) if q else 1)


def rational(value, what: str, scoped: bool = True) -> str:
    """``value`` (:func:`number`) as the Coq term ``(p # q)%Q`` in lowest terms, q >= 1; without
    ``%Q`` when ``scoped`` is false (an entry of a list that is given ``%Q`` as a whole)."""
    y = number(value, what)
    return f"({y.numerator} # {y.denominator})" + ("%Q" if scoped else "")


def rationals(values, what: str) -> str:
    """A list of numbers as ``[(p # q); ...]``, entries unscoped (the caller scopes the whole term)."""
    return bracket(rational(v, what, scoped=False) for v in listof(values, what))


def table(rows, what: str) -> str:
    """A list of rows of numbers (a ``list (list Q)``), one row a line: ``[[...];\\n  [...]]``, unscoped."""
    return bracket((rationals(r, what) for r in listof(rows, f"{what} (a list of rows)")), ";\n  ")


def token(text, m: int) -> str:
    """A bit string of length ``m``, coordinate 1 first, as the Coq ``list bool`` ``[true; false; ...]``."""
    if not (isinstance(text, str) and len(text) == m and set(text) <= {"0", "1"}):
        raise ValueError(f"token {text!r} is not a bit string of length {m}")
    return bracket("true" if ch == "1" else "false" for ch in text)


def nat(value, what: str, least: int = 0) -> int:
    """``value`` if it is an int (not a bool) at least ``least`` (a natural number by default)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{what} must be an int >= {least}, got {value!r}")
    return value


def nats(values: Iterable[int]) -> str:
    """Natural numbers as the Coq ``list nat`` ``[1; 2]%nat``."""
    return bracket(str(nat(n, "a natural number")) for n in values) + "%nat"


def listof(value, what: str, nonempty: bool = False) -> list:
    """``value`` if it is a list (and, with ``nonempty``, not empty)."""
    if not isinstance(value, list) or (nonempty and not value):
        raise ValueError(f"{what} must be a {'nonempty ' if nonempty else ''}list, got {value!r}"[:300])
    return value


def bracket(terms: Iterable[str], sep: str = "; ") -> str:
    """Coq terms written as one Coq list, ``[a; b; c]`` (``sep`` between entries, e.g. a line break)."""
    return "[" + sep.join(terms) + "]"


def header(*modules: str, coq: str = "List QArith") -> str:
    """The first lines of an exported file: the standard library's ``coq`` modules, the development's
    ``modules`` (logical path ``AttnProof``, i.e. ``formal/``), and the list notations."""
    return (f"From Coq Require Import {coq}.\n"
            f"From AttnProof Require Import {' '.join(modules)}.\n"
            "Import ListNotations.\n")


def proposition(statement) -> str:
    """The statement guard: ``statement``, stripped, if it is one Coq proposition — a nonempty string
    with no ``.`` outside ``%nat`` (a ``.`` would end ``Theorem judgment : ...`` and let the rest of the
    text be read as commands, e.g. a proof of something else)."""
    if not isinstance(statement, str) or not statement.strip() or "." in statement.replace("%nat", ""):
        raise ValueError(f"statement must be one Coq proposition, got {statement!r}"[:300])
    return statement.strip()
