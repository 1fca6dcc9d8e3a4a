"""Benchmarks of the geometric laws (S2 spherical, S3 ball, S5 visible dimension): the big runs.

    python bench/geometric_laws.py                      # the default points of the three laws
    python bench/geometric_laws.py --big                # the recorded big runs (beta = 10^4 on the circle, 400 on S^2, ...)
    python bench/geometric_laws.py CLAIM k=v,k=v ...    # one claim at the given points

For each point: the claim's cost estimate, the measured CPU and wall seconds
of the whole check, and per certificate, side by side, its instance size
(rows x columns), the trusted checker's time and that time per row (the arb
decision per row), with the headline facts.  Figures are printed, never
asserted; docs/performance.md and the claims' docs record runs.
"""

from __future__ import annotations

import argparse
import sys
import time

from solvers import trusted
from theorems.core import get

DEFAULTS = [("softmax_rank.spherical_law", {}), ("softmax_rank.ball_law", {}), ("softmax_rank.visible_law", {})]
BIG = [
    ("softmax_rank.spherical_law", {"beta": 10**4, "upper": 0}),  # the circle at beta = 10^4 (found: 455)
    ("softmax_rank.spherical_law", {"beta": 1000, "upper": 0}),  # (found: 144)
    ("softmax_rank.spherical_law", {"beta": 3000, "upper": 0}),  # (found: 249)
    ("softmax_rank.spherical_law", {"d": 3, "beta": 400, "upper": 0}),  # S^2 at beta = 400 (found: 1350)
    ("softmax_rank.spherical_law", {"d": 3, "step": 2, "beta_min": 64, "beta_max": 256, "upper": 0}),  # (found: 214, 428, 856)
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claim", nargs="?")
    parser.add_argument("points", nargs="*", help="k=v,k=v (one point each)")
    parser.add_argument("--big", action="store_true", help="the recorded big runs")
    args = parser.parse_args(argv)
    if args.claim:
        for text in args.points or [""]:
            run(args.claim, parse(text))
        return
    for claim_id, given in BIG if args.big else DEFAULTS:
        try:
            get(claim_id)
        except Exception:  # a law not installed yet
            print(f"\n{claim_id}: not installed")
            continue
        run(claim_id, {k: str(v) for k, v in given.items()})


if __name__ == "__main__":
    main()
