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

    Each level maps a function (a tuple) to one index tuple S realising it: the first found,
    walking the functions new at the previous level in order, then the generators in order.
    When a level equals the previous one the remaining levels are copies (a fixed point:
    min with any generator adds nothing new).  The minima of a whole frontier with every
    generator are taken at once in numpy, on integers (exact); functions are keyed by their
    bytes while the levels grow and made tuples once at the end.
    """
    if depth < 1:
        return []
    if not generators:
        return [{}] * depth
    from solvers.lazy import numpy as np

    values = [v for g in generators for v in g]
    dtype = np.uint8 if all(0 <= v < 256 for v in values) else np.int64  # small scores: 8x less to compare
    G = np.array([tuple(g) for g in generators], dtype=dtype).reshape(len(generators), -1)
    width = G.shape[1] * G.itemsize
    level: dict[bytes, tuple[int, ...]] = {}
    for i, g in enumerate(G):
        level.setdefault(g.tobytes(), (i,))
    levels = [level]
    frontier = list(level.items())
    while len(levels) < depth:
        poll()
        current = levels[-1]
        grown = dict(current)
        # Only the functions new at this level can give new ones: for f of the previous level,
        # min(f, g_i) is already in this level.  Walking the new ones in insertion order finds
        # every new function first from the same f as walking the whole level would.
        F = np.frombuffer(b"".join(f for f, _ in frontier), dtype=dtype).reshape(len(frontier), G.shape[1])
        buffer = np.minimum(F[:, None, :], G[None, :, :]).tobytes()  # row (f, i) = min(f, g_i), f-major
        step = width * len(G)
        for k, (_, indices) in enumerate(frontier):
            base = k * step
            for i in range(len(G)):
                h = buffer[base + i * width:base + (i + 1) * width]
                if h not in grown:
                    grown[h] = indices + (i,)
        if len(grown) == len(current):
            levels.extend([current] * (depth - len(levels)))
            break
        frontier = list(grown.items())[len(current):]
        levels.append(grown)
    made: dict[int, dict] = {}  # a fixed point repeats one dict: convert it once
    return [made.setdefault(id(lv), {tuple(np.frombuffer(f, dtype=dtype).tolist()): ix for f, ix in lv.items()})
            for lv in levels]


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
