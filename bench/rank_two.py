"""Research script of ``kernel_rank.rank_two``: how the m = 5 betweenness plan was found.

    nice -n 19 python bench/rank_two.py [--m 5] [--no-minimise]

1. One query triple per orbit of the coordinate permutations (134 orbits at m = 5, of
   C(32, 3) = 4960 triples).  For each triple and each choice of middle a, the middle problem
   ``M(a; b, c)`` on every token (the rows of :func:`theorems.kernel_rank.rank_two.middle_system`,
   in floats) as a margin LP (max t with every strict row >= t, the unknowns boxed) — a
   margin <= 1e-9 marks the middle as excluded.  Floats only search: the claim decides every
   exclusion it uses exactly.
2. The exclusions are transported to every triple by the permutations, and z3 decides
   whether some linear order of all 2^m queries avoids them (integer positions, distinct).
3. When none does, the exclusions are minimised greedily (drop one, keep the drop while z3
   still answers unsat): the plan stored as ``EXCLUSIONS_M5``.

Figures are printed, never asserted; docs/kernel_rank.rank_two.md records a run.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
import scipy.sparse as sps
import z3
from scipy.optimize import linprog

from theorems import attention as att


def margin(m: int, a: int, b: int, c: int) -> float:
    """max t over the rows of M(a; b, c) (every strict row >= t), k in [0, 1], P in [-20, 20], t <= 1.

    The rows of :func:`theorems.kernel_rank.rank_two.middle_system`, built here in floats
    (building them exactly first would triple the time of the scan).
    """
    size = 1 << m
    contexts = list(itertools.combinations_with_replacement(range(size), 2))
    KB, KC, P = 0, size, {b: 2 * size, c: 3 * size, a: 4 * size}
    t_col = 5 * size
    rows, cols, vals, r = [], [], [], 0
    for q, kernel in ((b, [KB]), (c, [KC]), (a, [KB, KC])):
        for x, y in contexts:
            target = att.min_ip_target((x, y, q))
            for sign, level in ((1, target - 0.5), (-1, target + 0.5)):
                coefs: dict = {}
                for z in (x, y, q):
                    coefs[P[q] + z] = coefs.get(P[q] + z, 0) + sign
                    for k in kernel:
                        coefs[k + z] = coefs.get(k + z, 0) - sign * level
                for j, v in coefs.items():
                    rows.append(r), cols.append(j), vals.append(-v)
                rows.append(r), cols.append(t_col), vals.append(1.0)
                r += 1
    A = sps.csr_matrix((vals, (rows, cols)), shape=(r, t_col + 1))
    cost = np.zeros(t_col + 1)
    cost[t_col] = -1.0
    bounds = [(0.0, 1.0)] * (2 * size) + [(-20.0, 20.0)] * (3 * size) + [(None, 1.0)]
    res = linprog(cost, A_ub=A, b_ub=np.zeros(r), bounds=bounds, method="highs")
    return -res.fun if res.status == 0 else float("-inf")


def orbit_representatives(m: int):
    perms = list(itertools.permutations(range(m)))
    image = lambda x, p: sum(1 << p[i] for i in range(m) if x >> i & 1)  # noqa: E731
    seen, reps = set(), []
    for triple in itertools.combinations(range(1 << m), 3):
        if triple not in seen:
            seen |= {tuple(sorted(image(x, p) for x in triple)) for p in perms}
            reps.append(triple)
    return reps, perms, image


def unsat(exclusions) -> bool:
    queries = sorted({x for e in exclusions for x in e})
    pos = {x: z3.Int(f"p{x}") for x in queries}
    solver = z3.Solver()
    solver.add(z3.Distinct(list(pos.values())))
    for a, b, c in exclusions:
        solver.add(z3.Not(z3.Or(z3.And(pos[b] < pos[a], pos[a] < pos[c]), z3.And(pos[c] < pos[a], pos[a] < pos[b]))))
    return solver.check() == z3.unsat


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=5)
    parser.add_argument("--no-minimise", action="store_true")
    args = parser.parse_args()
    m = args.m
    start = time.monotonic()
    reps, perms, image = orbit_representatives(m)
    excluded_orbits = []
    for triple in reps:
        for a in triple:
            b, c = (x for x in triple if x != a)
            t = margin(m, a, b, c)
            if t <= 1e-9:
                excluded_orbits.append((a, b, c))
    scan = time.monotonic() - start
    print(f"m = {m}: {len(reps)} triple orbits, {len(excluded_orbits)} excluded middles (orbit representatives), {scan:.1f} s")
    for a, b, c in excluded_orbits:
        print(f"  {att.bits(a, m)} is never between {att.bits(b, m)} and {att.bits(c, m)}")
    # (a, b, c) = (middle, ends), ordered by the ends: the greedy minimisation below depends on the order
    exclusions = sorted({(image(a, p), *sorted((image(b, p), image(c, p)))) for a, b, c in excluded_orbits for p in perms},
                        key=lambda e: (e[1], e[2], e[0]))
    t0 = time.monotonic()
    verdict = unsat(exclusions) if exclusions else False
    print(f"{len(exclusions)} exclusions on all {1 << m} queries; an avoiding order exists: {not verdict} (z3, {time.monotonic() - t0:.2f} s)")
    if not verdict or args.no_minimise:
        return
    i = 0
    while i < len(exclusions):
        trial = exclusions[:i] + exclusions[i + 1:]
        if unsat(trial):
            exclusions = trial
        else:
            i += 1
    queries = sorted({x for e in exclusions for x in e})
    print(f"minimised: {len(exclusions)} exclusions on {len(queries)} queries ({time.monotonic() - start:.1f} s in all)")
    for a, b, c in exclusions:
        print(f'  ("{att.bits(a, m)}", "{att.bits(b, m)}", "{att.bits(c, m)}"),')


if __name__ == "__main__":
    main()
