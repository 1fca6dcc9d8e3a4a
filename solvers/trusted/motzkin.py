"""Motzkin combinations: shared by the two families that refute heads with them (``linear.py``, ``cones.py``).

Read with those families (the reading list of a claim whose kinds they check counts this module);
it imports the core only.  A system of linear rows ``sum_k coefs[k] x_k (> or >=) rhs`` has no real
solution when nonnegative multipliers combine its rows into ``0 > 0`` or ``0 >= c > 0``
(:func:`motzkin_refutes`, Motzkin's transposition theorem, the direction used here being the easy
one: a solution would satisfy the combination).  The rows come from the sequences a head must
solve (:func:`ratio_row`), whose targets are Min-IP (:func:`min_ip`).
"""

from __future__ import annotations

from fractions import Fraction

from solvers.trusted.core import rational, require


def multiplier(value) -> Fraction:
    """A Motzkin multiplier: an exact number >= 0."""
    y = rational(value, "multiplier")
    require(y >= 0, f"multiplier {y} is negative")
    return y


def entry(value, size: int, what: str) -> list:
    """A list of exactly ``size`` items (a row of a certificate), or a rejection saying what it should be."""
    require(isinstance(value, list) and len(value) == size, f"each {what}")
    return value


def min_ip(seq: list[int], q: int) -> int:
    """The Min-IP target ``T(X) = min_j <x_j, q>`` of a sequence of tokens (as integers), query q."""
    return min((x & q).bit_count() for x in seq)


def motzkin_refutes(rows, multipliers, what: str) -> None:
    """Raise unless ``multipliers`` prove the rows ``sum_k coefs[k] x_k (> or >=) rhs`` have no
    common real solution.  Motzkin: every ``y_i >= 0``, ``sum_i y_i coefs_i = 0`` and either
    ``sum_i y_i rhs_i > 0``, or ``= 0`` with ``y_i > 0`` on a strict row (a solution would
    give ``0 >= sum_i y_i rhs_i``, strictly when a strict row is used)."""
    require(len(rows) == len(multipliers), f"{what}: {len(rows)} rows but {len(multipliers)} multipliers")
    total: dict = {}
    bound, strict = Fraction(0), False
    for (coefs, sense, rhs), y in zip(rows, multipliers):
        require(y >= 0, f"{what}: negative multiplier {y}")
        if y == 0:
            continue
        strict |= sense == ">"
        for key, c in coefs.items():
            total[key] = total.get(key, 0) + y * c
        bound += y * rhs
    left = sorted((str(k) for k, v in total.items() if v), key=len)[:3]
    require(not left, f"{what}: the combination leaves the unknowns {left} (it must vanish)")
    require(bound > 0 or (bound == 0 and strict), f"{what}: the combination gives no contradiction (sum {bound}, strict row used: {strict})")


def ratio_row(side, terms, target: int):
    """The strict row of one side of one sequence; ``terms`` = per position ``(weight key, P key)``.

    A head outputs ``y = sum_j k_j U_j / sum_j k_j`` (weights ``k_j >= 0``, positive sum); with
    ``P_j = k_j U_j``, ``|y - T| < 1/2`` is the pair of strict homogeneous rows
    ``lo: sum P - (T - 1/2) sum k > 0`` and ``hi: (T + 1/2) sum k - sum P > 0``, so every head
    solving a sequence satisfies both rows of it, and a Motzkin combination of rows refutes every head."""
    require(side in ("lo", "hi"), f"side must be 'lo' or 'hi', got {str(side)[:20]!r}")
    sign, level = (1, target - Fraction(1, 2)) if side == "lo" else (-1, target + Fraction(1, 2))
    coefs: dict = {}
    for k_key, p_key in terms:
        coefs[p_key] = coefs.get(p_key, 0) + sign
        coefs[k_key] = coefs.get(k_key, 0) - sign * level
    return coefs, ">", Fraction(0)
