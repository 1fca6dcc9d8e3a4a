"""Min-IP's error bounds: readers shared by the families that judge "solves" (``evaluation.py``, ``scores.py``).

Read with those families (the reading list of a claim whose kinds they check counts this module);
it imports the core only.  The target is ``T(X) = min_j <x_j, q>``, an integer, so an output within
``t <= 1/2`` of it names it; a tolerance ``t`` means "error < t" ("exactly 0" for ``t = 0``).
"""

from __future__ import annotations

from fractions import Fraction

from solvers.trusted.core import integer, listof, rational, require

HALF = Fraction(1, 2)


def read_tolerance(raw, positive: bool = False) -> Fraction:
    """A "solves" tolerance lies in [0, 1/2]: above 1/2 an output no longer names its integer
    target, so "solves with error < 5" would be a vacuous line; a counterexample's lies in (0, oo)."""
    t = rational(raw, "tolerance")
    if positive:
        require(t > 0, f"tolerance {t} must be > 0")
    else:
        require(0 <= t <= HALF, f"tolerance {t} must lie in [0, 1/2]: above 1/2 an error bound does not solve Min-IP")
    return t


def read_lengths(raw, high: int) -> list[int]:
    """A nonempty list of distinct lengths in [1, high], returned sorted."""
    values = [integer(n, "length", 1, high) for n in listof(raw, "lengths", 1, high)]
    require(len(set(values)) == len(values), "lengths must be distinct")
    return sorted(values)


def error_bound(t: Fraction) -> str:
    """The words of "error < t"."""
    return "error exactly 0" if t == 0 else f"error < {t}"
