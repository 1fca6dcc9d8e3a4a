"""Benchmarks of the geometric laws (S2 spherical, S3 ball, S5 visible dimension): the big runs.

    python bench/geometric_laws.py                      # the default points of the three laws
    python bench/geometric_laws.py --big                # the recorded big runs (beta = 10^4 on the circle, 400 on S^2, ...)
    python bench/geometric_laws.py --rim                # issue 25/26: rings from the rim, S^2's dense sandwich, the circle's worst case
    python bench/geometric_laws.py CLAIM k=v,k=v ...    # one claim at the given points
    python bench/geometric_laws.py --sweep CLAIM --param beta=16,64,256 [--param r_max=2] [--jobs 2] [--scheduler ADDR] [--out DIR]
                                                        # a grid in parallel (local pool, or Dask), JSON + CSV for plots

For each point: the claim's cost estimate, the measured CPU and wall seconds
of the whole check, and per certificate, side by side, its instance size
(rows x columns), the trusted checker's time and that time per row (the arb
decision per row), with the headline facts.  Figures are printed, never
asserted; docs/performance.md and the claims' docs record runs.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import sys
import time

from solvers import parallel, trusted
from solvers.certificates import encode
from theorems.core import get

DEFAULTS = [("softmax_rank.spherical_law", {}), ("softmax_rank.ball_law", {}), ("softmax_rank.visible_law", {})]
BIG = [
    ("softmax_rank.spherical_law", {"beta": 10**4, "upper": 0}),  # the circle at beta = 10^4 (found: 455)
    ("softmax_rank.spherical_law", {"beta": 1000, "upper": 0}),  # (found: 144)
    ("softmax_rank.spherical_law", {"beta": 3000, "upper": 0}),  # (found: 249)
    ("softmax_rank.spherical_law", {"d": 3, "beta": 400, "upper": 0}),  # S^2 at beta = 400 (found: 1350)
    ("softmax_rank.spherical_law", {"d": 3, "step": 2, "beta_min": 64, "beta_max": 256, "upper": 0}),  # (found: 214, 428, 856)
]

# issue 25 item 3 / issue 26 item 3 (docs/softmax_rank.ball_law.md, docs/softmax_rank.spherical_law.md record the figures)
RIM = [
    ("softmax_rank.ball_law", {"beta": 1024, "dense": 0}),  # rings from the rim on the disk: 963 (lattice 877)
    ("softmax_rank.ball_law", {"d": 3, "beta_max": 64}),  # shells from the rim in the ball: 59, 323 (lattice 19, 225)
    ("softmax_rank.spherical_law", {"d": 3, "beta_min": 16, "beta_max": 64}),  # S^2 dense sandwich: 29..113, 91..467
    ("softmax_rank.spherical_law", {"beta_min": 16, "beta_max": 16384, "upper": 0}),  # the circle's worst case per beta
]


def parse(text: str) -> dict:
    out = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        out[key] = value
    return out


def size(cert: dict) -> str:
    data = cert["data"]
    rows = data.get("points") or data.get("logits")
    if not rows:
        return "-"
    return f"{len(data.get('rows', rows))} x {len(rows)}"


def run(claim_id: str, given: dict) -> None:
    claim = get(claim_id)
    point = claim.point(given)
    estimate = claim.cost(point)
    cpu, wall = time.process_time(), time.perf_counter()
    out = claim.check(point)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"\n{claim_id} {given or '(default)'}: {out.status}; estimate {estimate:.1f} s, measured {cpu:.1f} s CPU, {wall:.1f} s wall")
    print(f"  {out.message[:400]}")
    print(f"  {'kind':28s} {'rows x cols':>12s} {'checker s':>10s} {'per row ms':>11s}")
    for cert in out.certificates:
        start = time.process_time()
        trusted.check(cert, max_work=10**13)
        spent = time.process_time() - start
        rows = cert["data"].get("rows") or cert["data"].get("points") or cert["data"].get("logits") or []
        per = f"{1000 * spent / len(rows):.2f}" if isinstance(rows, list) and rows else "-"
        print(f"  {cert['kind']:28s} {size(cert):>12s} {spent:10.2f} {per:>11s}")
    for name, value in out.facts.items():
        if not name.startswith(("dense_instances", "local_slopes")):
            print(f"  {name[:60]}: {str(value)[:600]}")
    sys.stdout.flush()


def sweep_point(claim_id: str, given: dict) -> dict:
    """One point of a sweep (module level: it runs in a worker): status, CPU seconds and facts, as JSON data."""
    claim = get(claim_id)
    point = claim.point(given)
    cpu = time.process_time()
    out = claim.check(point)
    return {"claim": claim_id, "parameters": given, "status": out.status, "estimate": claim.cost(point),
            "cpu_seconds": round(time.process_time() - cpu, 2), "facts": encode(out.facts), "message": out.message}


def flatten(value, prefix=()):
    """Nested facts as (path, leaf) pairs: the long format a plot reads."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(v, prefix + (str(k),))
    elif isinstance(value, (list, tuple)) and value and isinstance(value[0], (dict, list, tuple)):
        for i, v in enumerate(value):
            yield from flatten(v, prefix + (str(i),))
    else:
        yield "/".join(prefix), value if not isinstance(value, (list, tuple)) else json.dumps(value)


def sweep(claim_id: str, params: list[str], jobs: int, scheduler: str | None, out_dir: str) -> None:
    names = [p.partition("=")[0] for p in params]
    grids = [p.partition("=")[2].split(",") for p in params]
    tasks = [(claim_id, dict(zip(names, values))) for values in itertools.product(*grids)] or [(claim_id, {})]
    claim = get(claim_id)
    total = sum(claim.cost(claim.point(g)) for _, g in tasks)
    print(f"{claim_id}: {len(tasks)} point(s), estimated {total:.0f} s on one core (about {total / max(1, jobs):.0f} s with --jobs {jobs})")
    results = [None] * len(tasks)
    start = time.perf_counter()
    for done, (index, result) in enumerate(parallel.run(sweep_point, tasks, jobs, scheduler), 1):
        results[index] = result
        print(f"  [{done}/{len(tasks)}] {result['parameters']}: {result['status']}, {result['cpu_seconds']} s CPU "
              f"(estimate {result['estimate']:.1f} s; {time.perf_counter() - start:.0f} s elapsed)")
        sys.stdout.flush()
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, claim_id.rsplit(".", 1)[-1])
    with open(stem + ".json.tmp", "w") as handle:
        json.dump(results, handle, indent=1)
    os.replace(stem + ".json.tmp", stem + ".json")
    with open(stem + ".csv.tmp", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["claim", "parameters", "status", "cpu_seconds", "fact", "value"])
        for r in results:
            for path, leaf in flatten(r["facts"]):
                writer.writerow([r["claim"], json.dumps(r["parameters"]), r["status"], r["cpu_seconds"], path, leaf])
    os.replace(stem + ".csv.tmp", stem + ".csv")
    print(f"written {stem}.json and {stem}.csv")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claim", nargs="?")
    parser.add_argument("points", nargs="*", help="k=v,k=v (one point each)")
    parser.add_argument("--big", action="store_true", help="the recorded big runs")
    parser.add_argument("--rim", action="store_true", help="the runs of issue 25/26 (rings from the rim, S^2's dense sandwich, the circle)")
    parser.add_argument("--sweep", metavar="CLAIM", help="run CLAIM over the grid of --param values")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=V1,V2", help="a grid axis of the sweep")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--scheduler", default=None, help="a dask.distributed scheduler address")
    parser.add_argument("--out", default="reports/sweeps")
    args = parser.parse_args(argv)
    if args.sweep:
        sweep(args.sweep, args.param, args.jobs, args.scheduler, args.out)
        return
    if args.claim:
        for text in args.points or [""]:
            run(args.claim, parse(text))
        return
    for claim_id, given in BIG if args.big else RIM if args.rim else DEFAULTS:
        try:
            get(claim_id)
        except Exception:  # a law not installed yet
            print(f"\n{claim_id}: not installed")
            continue
        run(claim_id, {k: str(v) for k, v in given.items()})


if __name__ == "__main__":
    main()
