"""The reduced rank-one LP at scale: per m, rows, columns, build, solve and check time, and the growth exponent.

    nice -n 10 .venv/bin/python bench/scale.py [--m 4,8,16,32,48,64] [--cap SECONDS] [--budget SECONDS]
                                               [--check [FILE]] [--record FILE]

For exact lengths n = 3, 4, with and without positions, and each m: the rows of the
whole reduced LP (never written down), the rows row generation used, the columns; the
time to build the type tables and the start rows, to decide (row generation, then the
exact certificate), and for the trusted checker to re-check the certificate in reduced
form (``rank-one-reduced-infeasible``, in process).  Cold: no hint from a smaller m.
A problem stops growing m once one of its points takes more than ``--cap`` seconds; each
point is decided within ``--budget`` seconds of wall clock (the claim's budget: past it the
answer is "unknown", and its reason is printed to stderr; 1,200 s by default: n = 4 with
positions takes 37-55 s of CPU at m = 48 (load 7) and 246 s at m = 64 (5 minutes of wall at load 1-3)).
Times are CPU seconds of this process (time.process_time: the load of a shared machine
hardly enters).  The growth exponent is the least-squares slope of log(build + solve) against log m
over the points with m >= 8.

**The fence** (``--check``): each point's figures are compared with the ones recorded in
``bench/scale_figures.json`` (``--record`` writes them, atomically): the verdict and the
rows of the whole LP exactly, the rows generated within 10 % and the certificate rows
within 25 % (+2) — the search is deterministic for one HiGHS, so a change there is a
change of the search —, and CPU only loosely (3x the recorded + 0.5 s: the machine is
shared, and the budget fences a hang anyway).  A point recorded but not run is not
compared; a point run but not recorded is reported, not failed.  Exit 1 on a regression,
with one line per figure that moved.  ``tests/bench/test_scale.py`` runs it at m <= 16.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
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


RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scale_figures.json")
ROW_TOLERANCE, CERTIFICATE_TOLERANCE, CPU_FACTOR, CPU_SLACK = 0.10, 0.25, 3.0, 0.5


def _key(n: int, positions: bool, m: int) -> str:
    return f"n={n}{'p' if positions else ''},m={m}"


def regressions(figures: dict, recorded: dict) -> list[str]:
    """One line per figure of ``figures`` that moved past its tolerance from ``recorded``."""
    out = []
    for key, got in figures.items():
        was = recorded.get(key)
        if was is None:
            continue
        if got["answer"] != was["answer"]:
            out.append(f"{key}: answer {got['answer']}, recorded {was['answer']}")
        if got["rows"] != was["rows"]:
            out.append(f"{key}: the whole LP has {got['rows']} rows, recorded {was['rows']}")
        if abs(got["generated"] - was["generated"]) > ROW_TOLERANCE * was["generated"]:
            out.append(f"{key}: {got['generated']} rows generated, recorded {was['generated']} (tolerance 10 %)")
        if (got["certificate"] is None) != (was["certificate"] is None) or (
                got["certificate"] is not None
                and abs(got["certificate"] - was["certificate"]) > CERTIFICATE_TOLERANCE * was["certificate"] + 2):
            out.append(f"{key}: {got['certificate']} certificate rows, recorded {was['certificate']} (tolerance 25 % + 2)")
        if got["cpu"] > CPU_FACTOR * was["cpu"] + CPU_SLACK:
            out.append(f"{key}: {got['cpu']:.2f} s of CPU, recorded {was['cpu']:.2f} s (allowed {CPU_FACTOR:g}x + {CPU_SLACK} s)")
    return out


def _write_atomically(path: str, data: dict) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as out:
            json.dump(data, out, indent=1, sort_keys=True)
            out.write("\n")
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def slope(points):
    xs = [math.log(m) for m, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", default="4,8,16,24,32,48,64")
    parser.add_argument("--cap", type=float, default=150.0)
    parser.add_argument("--budget", type=float, default=1200.0, help="wall-clock seconds per point (0: none)")
    parser.add_argument("--problems", default="3,3p,4,4p", help="n, with p for positions")
    parser.add_argument("--check", nargs="?", const=RECORDED, metavar="FILE",
                        help="compare each point with the recorded figures (default bench/scale_figures.json); exit 1 on a regression")
    parser.add_argument("--record", metavar="FILE", help="write the figures of this run (merged into FILE's)")
    args = parser.parse_args()
    recorded = {}
    if args.check:
        try:
            with open(args.check) as handle:
                recorded = json.load(handle)
        except (OSError, ValueError) as err:
            sys.exit(f"scale.py: cannot read the recorded figures {args.check}: {err}")
    figures = {}
    try:
        sizes = [int(v) for v in args.m.split(",")]
    except ValueError:
        sys.exit(f"scale.py: --m takes sizes separated by commas, not {args.m[:40]!r}")
    if any(not (2 <= m <= 256) for m in sizes) or any(t not in ("3", "3p", "4", "4p") for t in args.problems.split(",")):
        sys.exit("scale.py: sizes 2..256 and problems among 3, 3p, 4, 4p")
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
            figures[_key(n, positions, m)] = {"answer": answer, "rows": found.rows, "generated": found.used,
                                              "certificate": cert_rows, "cpu": round(build + solve, 3)}
            if m >= 8:
                timed.append((m, build + solve))
            if build + solve > args.cap:
                break
        if len(timed) >= 2:
            fits[tag] = slope(timed)
    for tag, value in fits.items():
        print(f"n = {tag[0]}{' with positions' if tag.endswith('p') else ''}: time ~ m^{value:.2f} (least squares over m >= 8)")
    if args.record:
        merged = {}
        if os.path.exists(args.record):
            with open(args.record) as handle:
                merged = json.load(handle)
        merged.update(figures)
        _write_atomically(args.record, merged)
        print(f"recorded {len(figures)} point(s) in {args.record}")
    if args.check:
        unrecorded = [key for key in figures if key not in recorded]
        if unrecorded:
            print(f"not recorded, not compared: {', '.join(unrecorded)}")
        moved = regressions(figures, recorded)
        for line in moved:
            print(f"REGRESSION {line}")
        compared = len(figures) - len(unrecorded)
        print(f"checked {compared} point(s) against {args.check}: {len(moved)} figure(s) moved")
        if moved:
            sys.exit(1)


if __name__ == "__main__":
    main()
