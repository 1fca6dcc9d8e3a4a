"""Exact matrices: readers shared by the families that compute with them (``evaluation.py``, ``scores.py``,
``ranks.py``, ``intervals.py``, ``geometry.py``).

Read with those families (the reading list of a claim whose kinds they check counts this module);
it imports the core and python-flint only.  A matrix is a rectangular list of rows of exact numbers,
each read by :func:`solvers.trusted.core.rational` (an int or a string ``"p/q"``, nothing else).
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint

from solvers.trusted.core import listof, rational, require


def lcm_denominator(values) -> int:
    """The least common denominator of exact fractions."""
    return math.lcm(1, *(v.denominator for v in values))


def fmpq_matrix(M: list[list[Fraction]]) -> "flint.fmpq_mat":
    return flint.fmpq_mat(len(M), len(M[0]), [flint.fmpq(v.numerator, v.denominator) for r in M for v in r])


def matrix(rows, name: str, nrows: int | None = None, ncols: int | None = None) -> list[list[Fraction]]:
    """A rectangular list of rows of exact numbers (``nrows`` / ``ncols`` when given)."""
    listof(rows, name, 1)
    require(all(isinstance(r, list) for r in rows), f"{name} must be a list of rows")
    require(nrows is None or len(rows) == nrows, f"{name} has {len(rows)} rows, expected {nrows}")
    width = len(rows[0]) if ncols is None else ncols
    require(width >= 1 and all(len(r) == width for r in rows), f"{name} rows must all have {width} >= 1 entries")
    known: dict[str, Fraction] = {}  # each distinct "p/q" parsed once: a matrix repeats its entries

    def read(v) -> Fraction:
        if type(v) is str:
            return known[v] if v in known else known.setdefault(v, rational(v, name))
        return rational(v, name)

    return [[read(v) for v in r] for r in rows]
