"""The full S7 sweep: all 72 heads of all-MiniLM-L6-v2 x the 8 corpus sentences x the multipliers 1/2, 1, 2, 4.

    nice -n 10 python bench/calibration.py [--out DIR] [--jobs N] [--sentences K] [--no-verify]

Runs ``attnproof check softmax_rank.calibration`` at ``heads=72`` and the four
temperature multipliers (one point each, on ``--jobs`` processes), then
``attnproof verify`` on what it wrote, and prints:

1. per point: its cost estimate, its measured time, its status and the
   number of obligations discharged;
2. the per-temperature table: mean r, mean r_tau per tau, mean certified
   lower and upper bound, head-sentences whose r is capped by the head
   dimension, and how many have upper < r ("effective-dimension reduction");
3. the association (Spearman's rho across heads with its bootstrap
   interval) per temperature — statistics, as the claim reports them;
4. the heads furthest from the law.

Figures are printed (Markdown), never asserted; docs/softmax_rank.calibration.md
and docs/performance.md record a run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ATTNPROOF = [sys.executable, "-m", "theorems.cli"]
MULTIPLIERS = ("1/2", "1", "2", "4")


def run(command: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    return time.perf_counter() - start, done


def mean(values) -> float:
    values = [float(Fraction(v)) for v in values]
    return sum(values) / len(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="reports/calibration", help="where the outcomes go (default reports/calibration)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sentences", type=int, default=8)
    parser.add_argument("--no-verify", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="read the outcomes already in --out instead of checking again")
    args = parser.parse_args(argv)

    from theorems.softmax_rank import calibration as C
    from theorems.softmax_rank.calibration import CLAIM, TAUS

    estimates = {c: CLAIM.cost(CLAIM.point({"heads": 72, "sentences": args.sentences, "multiplier": c})) for c in MULTIPLIERS}
    print(f"estimates (s, one core each): {', '.join(f'c = {c}: {e:.0f}' for c, e in estimates.items())}; "
          f"{args.jobs} job(s): about {sum(estimates.values()) / max(1, args.jobs):.0f} s")
    if not args.reuse:
        before = os.times()
        seconds, done = run([*ATTNPROOF, "check", "softmax_rank.calibration", "--param", "heads=72",
                             "--param", f"sentences={args.sentences}", "--param", f"multiplier={','.join(MULTIPLIERS)}",
                             "--jobs", str(args.jobs), "--out", args.out])
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        print(f"check: {seconds:.0f} s wall, {cpu:.0f} s CPU (all processes), exit {done.returncode}; "
              f"load average at the end {os.getloadavg()[0]:.1f}")
        if done.returncode not in (0, 1):
            print(done.stderr[-2000:], file=sys.stderr)
            return 1
    records = []
    for path in sorted((ROOT / args.out / "softmax_rank.calibration").glob("*/outcome.json")):
        records.append(json.loads(path.read_text()))
    records.sort(key=lambda r: Fraction(r["parameters"]["multiplier"]))

    print("\n| c | estimate (s) | measured (s) | status | obligations discharged | certificates |")
    print("|---|---:|---:|---|---:|---:|")
    for r in records:
        c = str(r["parameters"]["multiplier"])
        discharged = sum(1 for d in r.get("discharged", []) if d.get("certificate"))
        print(f"| {c} | {estimates.get(c, float('nan')):.0f} | {float(r['seconds']):.0f} | {r['status']} | "
              f"{discharged} of {len(r['obligations']['verify'])} | {len(r['certificates'])} |")

    taus = [str(t) for t in TAUS]
    print("\n| c | head-sentences | mean r | " + " | ".join(f"mean r_tau, tau = {t}" for t in taus)
          + " | mean lower | mean upper | upper < r | r capped by d = 32 | mean subspace residual (tau = 1) |")
    print("|---|---:|---:|" + "---:|" * len(taus) + "---:|---:|---:|---:|---:|")
    for r in records:
        heads = r["facts"]["heads"]
        residual_key = next(k for k in heads[0] if k.startswith("residual of"))
        print(f"| {r['parameters']['multiplier']} | {len(heads)} | {mean(h['r'] for h in heads):.2f} | "
              + " | ".join(f"{mean(h['r_tau'][t] for h in heads):.2f}" for t in taus)
              + f" | {mean(h['lower'] for h in heads):.2f} | {mean(h['upper'] for h in heads):.2f} | "
              f"{sum(h['upper'] < h['r'] for h in heads)} | {sum(h['n'] - 1 > 32 for h in heads)} | "
              f"{mean(h[residual_key] for h in heads):.3f} |")

    print("\nassociation across the 72 heads (Spearman's rho, 95% bootstrap interval; statistics, not verdicts):\n")
    keys = [k for k in records[0]["facts"]["association_statistics"] if " vs " in k] if records else []
    print("| c | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    for r in records:
        stats = r["facts"]["association_statistics"]
        cells = []
        for k in keys:
            v = stats[k]
            cells.append("undefined" if v["rho"] == "undefined" else f"{v['rho']} {v['95% interval']}")
        print(f"| {r['parameters']['multiplier']} | " + " | ".join(cells) + " |")

    if len(records) > 1 and any(Fraction(r["parameters"]["multiplier"]) == 1 for r in records):
        # pooled over head-temperature settings (each a head's means over the sentences at one c), against the
        # certified upper bound: r_tau with tau fixed in logit units of c L, and with tau scaled by c (which is
        # r_tau of the c = 1 logits, since sigma(c L P) = c sigma(L P))
        base = C.per_head(next(r for r in records if Fraction(r["parameters"]["multiplier"]) == 1)["facts"]["heads"])
        tau = C.r_tau_key(C.PLOT_TAU)
        fixed, scaled, upper = [], [], []
        for r in records:
            for key, row in C.per_head(r["facts"]["heads"]).items():
                fixed.append(row[tau])
                scaled.append(base[key][tau])
                upper.append(row["upper"])
        for name, xs in ((f"tau = {C.PLOT_TAU} fixed", fixed), (f"tau = {C.PLOT_TAU} x c", scaled)):
            low, high, used = C.bootstrap(xs, upper, 1000, 0)
            print(f"\npooled over the {len(upper)} head-temperature settings, r_tau ({name}) vs upper: Spearman's rho = "
                  f"{C.spearman(xs, upper):.3f}, 95% interval [{low:.3f}, {high:.3f}] ({used} resamples of settings)")

    print("\nfurthest from the law (upper bound's rank against r_tau's, tau = 1):\n")
    for r in records:
        for far in C.far_from_law(r["facts"]["heads"]):
            print(f"- c = {r['parameters']['multiplier']}: {far['head']} (r_tau {far[C.r_tau_key(C.PLOT_TAU)]}, upper {far['upper']}, "
                  f"gap {far['rank gap']}): {far['why']}")

    if not args.no_verify:
        before = os.times()
        seconds, done = run([*ATTNPROOF, "verify", args.out])  # the default limits (--max-work, memory)
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        tail = [line for line in done.stdout.splitlines() if "certificate(s) accepted" in line or "outcome" in line]
        print(f"\nverify: {seconds:.0f} s wall, {cpu:.0f} s CPU (all processes), exit {done.returncode}; load average at the end "
              f"{os.getloadavg()[0]:.1f}: {' / '.join(tail[-2:]) if tail else done.stdout[-300:]}")
    size = sum(p.stat().st_size for p in (ROOT / args.out).rglob("*") if p.is_file())
    print(f"outcomes and certificates: {size / 1e6:.0f} MB under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
