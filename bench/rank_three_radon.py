"""Research script for r*(m) >= 4: the Radon problems of four queries (the rank-three analogue of Lemma 2).

    nice -n 19 python bench/rank_three_radon.py [--m 6] [--tuples 200] [--alphabet small|all] [--seed 0]

Lemma (docs/kernel_rank.feature_rank_table.md, "A lower bound >= 4?").  In a head of feature rank <= 3 the
directions of ``phi(q)`` lie in the 2-simplex; by Radon's theorem any four of them, a, b, c, d, split as one
inside the triangle of the other three or as two crossing segments.  Multiplying by Psi: one of seven linear
problems on the query cones ``G_q`` is feasible —

* ``T(a; b, c, d)`` (4 choices of a): rows of b, c, d on ``k_b, k_c, k_d >= 0``, rows of a on ``k_b + k_c + k_d``;
* ``X(a c | b d)`` (3 pairings): rows of each query on its own ``k >= 0``, and ``k_a + k_c = k_b + k_d``.

(Zero coefficients are absorbed as in Lemma 2: the rows are strict.)  So four queries whose seven problems
are all infeasible would prove ``r*(m) >= 4`` at once, and infeasible problems in general constrain the
order type of the directions, as the middle problems constrained the angular order in rank two.

This script samples four-query sets and decides the seven problems in floats (margin LPs: max t with every
strict row >= t, k in [0, 1], P in [-20, 20]); a margin <= 1e-9 marks the problem infeasible (evidence only:
a certificate would be an exact Motzkin combination).  ``--alphabet small`` keeps only the four queries and
their complements as tokens: a restriction drops rows, so an infeasible restricted problem is infeasible on
every token (sound for exclusions), while a feasible one says nothing.  Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time
from collections import Counter

import numpy as np
import scipy.sparse as sps
from scipy.optimize import linprog

from theorems import attention as att


def margin(tokens, queries_on, blocks: int, equal=None) -> float:
    """max t: for each (q, [block, ...]) the cone rows of q on the sum of those k-blocks (with P_q), every
    row >= t; ``equal = (plus, minus)``: sum of the plus blocks = sum of the minus blocks, per token."""
    n = len(tokens)
    where = {x: i for i, x in enumerate(tokens)}
    contexts = list(itertools.combinations_with_replacement(tokens, 2))
    P0 = blocks * n
    t_col = P0 + len(queries_on) * n
    rows, cols, vals, r = [], [], [], 0
    for qi, (q, kernel) in enumerate(queries_on):
        for x, y in contexts:
            target = att.min_ip_target((x, y, q))
            for sign, level in ((1, target - 0.5), (-1, target + 0.5)):
                coefs: dict = {}
                for z in (x, y, q):
                    coefs[P0 + qi * n + where[z]] = coefs.get(P0 + qi * n + where[z], 0) + sign
                    for k in kernel:
                        coefs[k * n + where[z]] = coefs.get(k * n + where[z], 0) - sign * level
                for j, v in coefs.items():
                    rows.append(r), cols.append(j), vals.append(-v)
                rows.append(r), cols.append(t_col), vals.append(1.0)
                r += 1
    A = sps.csr_matrix((vals, (rows, cols)), shape=(r, t_col + 1))
    A_eq = b_eq = None
    if equal is not None:
        plus, minus = equal
        er, ec, ev = [], [], []
        for i in range(n):
            for k in plus:
                er.append(i), ec.append(k * n + i), ev.append(1.0)
            for k in minus:
                er.append(i), ec.append(k * n + i), ev.append(-1.0)
        A_eq, b_eq = sps.csr_matrix((ev, (er, ec)), shape=(n, t_col + 1)), np.zeros(n)
    cost = np.zeros(t_col + 1)
    cost[t_col] = -1.0
    bounds = [(0.0, 1.0)] * P0 + [(-20.0, 20.0)] * (len(queries_on) * n) + [(None, 1.0)]
    res = linprog(cost, A_ub=A, b_ub=np.zeros(r), A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    return -res.fun if res.status == 0 else float("-inf")


def seven(m: int, four, tokens) -> dict:
    """The margins of the seven Radon problems of four queries: 'T a' (a inside) and 'X ac|bd' (crossing)."""
    out = {}
    for a in four:
        others = [x for x in four if x != a]
        out[f"T {att.bits(a, m)}"] = margin(tokens, [(o, [i]) for i, o in enumerate(others)] + [(a, [0, 1, 2])], 3)
    a = four[0]
    for c in four[1:]:
        b, d = (x for x in four[1:] if x != c)
        out[f"X {att.bits(a, m)} {att.bits(c, m)} | {att.bits(b, m)} {att.bits(d, m)}"] = margin(
            tokens, [(a, [0]), (c, [1]), (b, [2]), (d, [3])], 4, equal=([0, 1], [2, 3]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=6)
    parser.add_argument("--tuples", type=int, default=200)
    parser.add_argument("--alphabet", choices=("small", "all"), default="small")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    m, full = args.m, (1 << args.m) - 1
    rng = np.random.default_rng(args.seed)
    # queries of weight 2..m-1 (the m = 5 betweenness lived on weights 2 and 4; 0 and 1^m are easy rows)
    pool = [q for q in range(1 << m) if 2 <= att.weight(q) <= m - 1]
    start, load = time.process_time(), os.getloadavg()[0]
    histogram, most = Counter(), (0, None, None)
    for _ in range(args.tuples):
        four = [int(x) for x in rng.choice(pool, 4, replace=False)]
        tokens = sorted(set(four) | {full ^ x for x in four}) if args.alphabet == "small" else list(range(1 << m))
        margins = seven(m, four, tokens)
        excluded = [name for name, t in margins.items() if t <= 1e-9]
        histogram[len(excluded)] += 1
        if len(excluded) > most[0]:
            most = (len(excluded), [att.bits(x, m) for x in four], excluded)
    print(f"m = {m}, alphabet {args.alphabet}: {args.tuples} four-query sets, "
          f"{time.process_time() - start:.1f} s CPU (load {load:.1f})")
    print("infeasible problems of seven -> sets:", dict(sorted(histogram.items())))
    print("most excluded:", most)


if __name__ == "__main__":
    main()
