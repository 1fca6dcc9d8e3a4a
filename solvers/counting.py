"""Exact counting: closures of functions under pointwise minimum, and binomial-versus-power ranges.

* :func:`min_closure` — for generator vectors ``g_1, ..., g_M`` (tuples of
  integers of one length), level s is the set of pointwise minima
  ``min(g_i : i in S)`` over the nonempty index sets ``|S| <= s``, each kept
  with one such S.  Level s + 1 is level s together with ``min(f, g_i)`` for f
  in level s and every i, so the levels are computed one from the other; once
  two consecutive levels are equal every later level is equal too.
* :func:`ceil_log2` — ``min{b : 2^b >= N}``, decided in integers.
* :func:`binomial_beats_power` — the largest s with ``C(M, s) >= a^s``.
"""

from __future__ import annotations

from typing import Callable, Sequence

Vector = tuple[int, ...]


def min_closure(generators: Sequence[Vector], depth: int, poll: Callable[[], None] = lambda: None) -> list[dict[Vector, tuple[int, ...]]]:
    """Levels 1..depth: ``{min(g_i : i in S): S}`` over nonempty S with ``|S| <= s``.

    Each level maps a function (a tuple) to one index tuple S realising it.
    When a level equals the previous one the remaining levels are copies
    (a fixed point: min with any generator adds nothing new).
    """
    if depth < 1:
        return []
    level: dict[Vector, tuple[int, ...]] = {}
    for i, g in enumerate(generators):
        level.setdefault(tuple(g), (i,))
    levels = [level]
    frontier = list(level.items())
    generators = [tuple(g) for g in generators]
    while len(levels) < depth:
        poll()
        current = levels[-1]
        grown = dict(current)
        # Only the functions new at this level can give new ones: for f of the previous level,
        # min(f, g_i) is already in this level.  Walking the new ones in insertion order finds
        # every new function first from the same f as walking the whole level would.
        for f, indices in frontier:
            for i, g in enumerate(generators):
                h = tuple(map(min, f, g))
                if h not in grown:
                    grown[h] = indices + (i,)
        if len(grown) == len(current):
            levels.extend([current] * (depth - len(levels)))
            break
        frontier = list(grown.items())[len(current):]
        levels.append(grown)
    return levels


def ceil_log2(count: int) -> int:
    """``min{b >= 0 : 2^b >= count}`` for ``count >= 1``, in integers."""
    if count < 1:
        raise ValueError("count must be >= 1")
    return (count - 1).bit_length()


def binomial_beats_power(M: int, a: int) -> int:
    """The largest ``s <= M`` with ``C(M, s) >= a^s`` (integers, ``a >= 1``).

    The ratio ``[C(M,s+1)/a^{s+1}] / [C(M,s)/a^s] = (M - s) / (a (s + 1))``
    decreases in s, so ``s -> C(M,s)/a^s`` rises then falls; it is 1 at
    s = 0, hence the s where it is ``>= 1`` form an interval ``[0, s*]``.
    """
    binom, power, s = 1, 1, 0
    while s < M:
        binom, power = binom * (M - s) // (s + 1), power * a
        if binom < power:  # unimodal and 1 at s = 0: the first failure ends the interval
            return s
        s += 1
    return s
