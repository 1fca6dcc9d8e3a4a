"""The reduced rank-one LP at scale: per m, rows, columns, build, solve and check time, and the growth exponent.

    nice -n 10 .venv/bin/python bench/scale.py [--m 4,8,16,32,48,64] [--cap SECONDS] [--budget SECONDS]

For exact lengths n = 3, 4, with and without positions, and each m: the rows of the
whole reduced LP (never written down), the rows row generation used, the columns; the
time to build the type tables and the start rows, to decide (row generation, then the
exact certificate), and for the trusted checker to re-check the certificate in reduced
form (``rank-one-reduced-infeasible``, in process).  Cold: no hint from a smaller m.
A problem stops growing m once one of its points takes more than ``--cap`` seconds; each
point is decided within ``--budget`` seconds of wall clock (the claim's budget: past it the
answer is "unknown", and its reason is printed to stderr).
Times are CPU seconds of this process (time.process_time: the load of a shared machine
hardly enters).  The growth exponent is the least-squares slope of log(build + solve) against log m
over the points with m >= 8.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from solvers import certificates, lp, trusted  # noqa: E402
from theorems.kernel_rank import _linearised as lin  # noqa: E402


def point(m: int, n: int, positions: bool, budget: float | None = None):
    start = time.process_time()
    types = lin.ReducedTypes(m, n, positions)
    types.initial_rows()
    build = time.process_time() - start
    start = time.process_time()
    found = lin.decide_reduced(m, n, positions, budget)
    solve = time.process_time() - start - build  # decide_reduced builds the tables again
    check, rows_cert = None, None
    if isinstance(found.decision, lp.Infeasible):
        rows, nonneg, _ = lin.certificate_rows(found.problem, found.decision.multipliers, m, reduced=True)
        cert = certificates.make("rank-one-reduced-infeasible", "bench", "0" * 64, {},
                                 {"m": m, "positions": positions, "rows": rows, "nonnegative": nonneg})
        start = time.process_time()
        trusted.check(cert)
        check, rows_cert = time.process_time() - start, len(rows)
    return found, types.nvars, build, max(solve, 0.0), check, rows_cert


def slope(points):
    xs = [math.log(m) for m, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", default="4,8,16,24,32,48,64")
    parser.add_argument("--cap", type=float, default=150.0)
    parser.add_argument("--budget", type=float, default=600.0, help="wall-clock seconds per point (0: none)")
    parser.add_argument("--problems", default="3,3p,4,4p", help="n, with p for positions")
    args = parser.parse_args()
    sizes = [int(v) for v in args.m.split(",")]
    lin.decide_reduced(2, 3)  # imports and first calls, outside the timings
    print("| n | positions | m | rows (whole LP) | rows generated | columns | answer | certificate rows | build s | solve s | check s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    fits = {}
    for tag in args.problems.split(","):
        n, positions = int(tag[0]), tag.endswith("p")
        timed = []
        for m in sizes:
            found, cols, build, solve, check, cert_rows = point(m, n, positions, args.budget or None)
            answer = type(found.decision).__name__.lower()
            if isinstance(found.decision, lp.Unknown):
                print(f"n = {n}, positions {positions}, m = {m}: unknown: {found.decision.reason}", file=sys.stderr)
            print(f"| {n} | {'yes' if positions else 'no'} | {m} | {found.rows:,} | {found.used:,} | {cols:,} | {answer} | "
                  f"{cert_rows if cert_rows is not None else '-'} | {build:.3f} | {solve:.2f} | "
                  + (f"{check:.3f} |" if check is not None else "- |"), flush=True)
            if m >= 8:
                timed.append((m, build + solve))
            if build + solve > args.cap:
                break
        if len(timed) >= 2:
            fits[tag] = slope(timed)
    for tag, value in fits.items():
        print(f"n = {tag[0]}{' with positions' if tag.endswith('p') else ''}: time ~ m^{value:.2f} (least squares over m >= 8)")


if __name__ == "__main__":
    main()
