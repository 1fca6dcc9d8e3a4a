"""attnproof's exact LP pipeline side by side with a peer exact solver (the Parma Polyhedra Library).

    .venv/bin/pip install 'attnproof[peer]'      # passagemath-ppl: PPL's exact MIP_Problem
    nice -n 10 .venv/bin/python bench/peer_lp.py [--timeout SECONDS] [--quick] [--reduced-only]

The problems (all homogeneous and strict, ``a_i . x > 0`` with ``psi >= 0``):

* K3, the full linearised rank-one LP at exact length 3 (``_linearised.rank_one``), m = 4, 5;
* the orbit-type reduced LP (``_linearised.reduced_rank_one``), n = 3, m = 8, 16 written whole;
* the reduced LP at m = 8, 16, 32 (n = 3 and 4, with and without positions) as attnproof decides it, by row generation
  (``_linearised.decide_reduced``), against PPL on every row it generated (PPL has no
  separation oracle; the whole LP has millions of rows).

attnproof: HiGHS in floats, then an exact point or an exact Motzkin certificate
(``solvers.lp.decide``; ``solvers.cutting`` for row generation).  PPL: exact rational
simplex (``MIP_Problem.is_satisfiable``) on ``a_i . x >= 1`` (the strict homogeneous rows
scaled, an equivalent system), in a child process with a time limit.  Both answers are
printed (they must agree: feasible / infeasible), with both times and their ratio.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from solvers import lp  # noqa: E402
from theorems.kernel_rank import _linearised as lin  # noqa: E402


def ppl_decide(system: lp.LinearSystem, queue) -> None:
    """PPL on the system, strict homogeneous rows as ``>= 1`` and weak ones as ``>= 0``: (answer, build s, solve s)."""
    import ppl

    start = time.perf_counter()
    xs = [ppl.Variable(j) for j in range(system.nvars)]
    cs = ppl.Constraint_System()
    for row in system.rows:
        assert row.rhs == 0 and row.sense in (">", ">=")
        scale = math.lcm(*(c.denominator for c in row.coefs.values()))
        expr = ppl.Linear_Expression(0)
        for j, c in row.coefs.items():
            expr += int(c * scale) * xs[j]
        cs.insert(expr >= (1 if row.sense == ">" else 0))
    built = time.perf_counter()
    answer = ppl.MIP_Problem(system.nvars, cs, ppl.Linear_Expression(0)).is_satisfiable()
    queue.put(("feasible" if answer else "infeasible", built - start, time.perf_counter() - built))


def run_ppl(system: lp.LinearSystem, timeout: float):
    queue = mp.get_context("fork").Queue()
    child = mp.get_context("fork").Process(target=ppl_decide, args=(system, queue))
    start = time.perf_counter()
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.kill()
        child.join()
        return "timeout", None, time.perf_counter() - start
    return queue.get() if not queue.empty() else ("failed", None, None)


def answer(decision) -> str:
    return {lp.Feasible: "feasible", lp.Infeasible: "infeasible"}.get(type(decision), "unknown")


def line(name, rows, cols, ours, ours_s, peer, peer_build, peer_s):
    ratio = f"{peer_s / ours_s:.1f}" if peer_s is not None and peer != "timeout" else f"> {peer_s / ours_s:.0f}"
    agree = "yes" if ours == peer else ("-" if peer in ("timeout", "failed") else "NO")
    build = f"{peer_build:.2f}" if peer_build is not None else "-"
    print(f"| {name} | {rows:,} | {cols:,} | {ours} | {ours_s:.2f} | {peer} | {build} | "
          f"{peer_s:.2f}{'+' if peer == 'timeout' else ''} | {ratio} | {agree} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, default=120.0, help="PPL's limit per problem (seconds)")
    parser.add_argument("--quick", action="store_true", help="only the small problems")
    parser.add_argument("--reduced-only", action="store_true", help="only the reduced LP by row generation")
    args = parser.parse_args()
    try:
        import ppl  # noqa: F401
    except ImportError:
        sys.exit("bench/peer_lp.py needs PPL: .venv/bin/pip install 'attnproof[peer]' (passagemath-ppl)")
    print("| problem | rows | columns | attnproof | attnproof s | PPL | PPL build s | PPL solve s | ratio PPL / attnproof | agree |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    whole = [("K3 full LP, m = 4", lambda: lin.rank_one(4, 3)), ("K3 full LP, m = 5", lambda: lin.rank_one(5, 3)),
             ("reduced n = 3, m = 8 (whole)", lambda: lin.reduced_rank_one(8, 3)),
             ("reduced n = 3, m = 16 (whole)", lambda: lin.reduced_rank_one(16, 3))]
    if args.quick:
        whole = whole[:1] + whole[2:3]
    if args.reduced_only:
        whole = []
    for name, build in whole:
        problem = build()
        start = time.perf_counter()
        decision = problem.decide()
        ours_s = time.perf_counter() - start
        peer, peer_build, peer_s = run_ppl(problem.system, args.timeout)
        line(name, len(problem.system.rows), problem.system.nvars, answer(decision), ours_s, peer, peer_build, peer_s)
    for m in (8, 16) if args.quick else (8, 16, 32):
        for n, positions in ((3, False), (3, True), (4, False), (4, True)):
            start = time.perf_counter()
            found = lin.decide_reduced(m, n, positions)
            ours_s = time.perf_counter() - start
            # PPL on every row the search generated (and psi > 0), the system attnproof settled
            types = lin.ReducedTypes(m, n, positions)
            rows = [coefs for _, coefs, _ in types.implicit().fixed] + [types.row(k) for k in found.every]
            used = lp.LinearSystem(types.nvars)
            for coefs in rows:
                used.add(coefs, ">", 0)
            peer, peer_build, peer_s = run_ppl(used, args.timeout)
            tag = f"reduced n = {n}{' positions' if positions else ''}, m = {m} (generated rows of {found.rows:,})"
            line(tag, len(used.rows), used.nvars, answer(found.decision), ours_s, peer, peer_build, peer_s)


if __name__ == "__main__":
    main()
