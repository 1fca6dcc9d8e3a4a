"""Cost estimates against measured time, claim by claim and point by point.

    python bench/estimates.py [--defaults] [--claims ID ...] [--max-estimate S] [--repeat K] [--verify] [--json FILE]

Each point (every claim's default, and the ``--param`` examples the docs
and the issue tracker cite, listed in ``POINTS``) is checked in a fresh
process; sympy, numpy, scipy and z3 are imported there *before* the clock
starts (a worker of ``attnproof check`` pays that once, not per claim: see
``bench/startup.py``).  Printed per point: the claim's own ``cost()``
estimate, the CPU seconds of the check (``resource.getrusage``, the process
and its children: robust on a shared machine), the wall seconds, and the
ratio estimate / CPU; ``!`` marks a ratio outside [1/2, 2].  With
``--repeat K`` the smallest CPU time of K runs is kept.

``--verify`` also checks every claim at its default into a scratch folder
and times ``attnproof verify`` on it (both stages; CPU of the child
processes), then each stage alone (``--jobs 1`` and the default
``theorems.verification.JOBS``).  ``--verify-only DIR`` times verify of the
outcomes already in DIR and checks nothing (issue 15: under 3 s of wall on
the default run's outcomes, on two idle cores).

Figures are printed, never asserted; docs/performance.md records a run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (claim, parameters): the defaults come from the registry; these are the documented examples.
POINTS = [
    ("kernel_rank.softmax_three_tokens", {"base": "2", "m": "20"}),  # README
    ("kernel_rank.softmax_three_tokens", {"m": "1000"}),
    # K2's tables, one point per m_tables up to the cap (issue 14: m = 10 within the default budget)
    *[("kernel_rank.softmax_three_tokens", {"m_tables": str(m)}) for m in range(6, 11)],
    ("kernel_rank.communication_bound", {"n_max_m5": "6"}),  # docs/kernel_rank.communication_bound.md
    ("kernel_rank.communication_bound", {"n_max_m5": "7"}),  # issue 15: refused at 10 min, ran in 3.7 s
    ("kernel_rank.communication_bound", {"m_fooling": "12"}),  # issue 26: 2.4x high, 1.05x after refitting
    ("kernel_rank.communication_bound", {"m_fooling": "14"}),  # issue 26: 7.3x high, 1.38x after refitting
    ("kernel_rank.feature_rank_table", {"m_max": "7", "m_degree2": "7"}),  # docs/kernel_rank.feature_rank_table.md
    ("kernel_rank.feature_rank_table", {"m_max": "8", "m_degree2": "8"}),  # docs: r*(8) <= 37 (issue 15: 97 s estimated)
    ("kernel_rank.rank_one_short", {"m_statistic": "1000"}),
    ("kernel_rank.rank_two", {"m": "5"}),  # docs/kernel_rank.rank_two.md
    ("kernel_rank.row_lemma", {"w_max": "40"}),
    ("kernel_rank.polynomial_readout_lower", {"m_small": "5"}),  # docs (~25 s)
    ("kernel_rank.polynomial_readout_lower", {"D_small": "3"}),
    ("kernel_rank.polynomial_readout_lower", {"D_max": "9"}),
    # K6's model, term by term (issue 15): orbits at D = 3, at D = 1 and 2, statistics, the selector table
    ("kernel_rank.polynomial_readout_upper", {"m_D3": "8"}),
    ("kernel_rank.polynomial_readout_upper", {"m_D1": "40", "m_D2": "14"}),
    ("kernel_rank.polynomial_readout_upper", {"m_statistic": "60"}),
    ("kernel_rank.polynomial_readout_upper", {"D_exact": "200"}),
    ("kernel_rank.position_and_causal", {"m_positions_full": "5"}),  # docs (~17 s)
    ("kernel_rank.position_and_causal", {"m_reduced": "20", "m_reduced_positions": "10"}),
    ("kernel_rank.position_and_causal", {"m_reduced": "26"}),  # issue 15: estimated 3.1 min, measured 4.5 min
    ("softmax_rank.spherical_law", {"beta_max": "1024"}),  # docs (19 s)
    ("softmax_rank.spherical_law", {"fourier": "1"}),  # docs (11.8 s)
    ("softmax_rank.spherical_law", {"d": "3", "step": "2", "beta_min": "8", "upper": "0"}),  # docs (with upper=0)
    ("softmax_rank.spherical_law", {"d": "3", "beta_max": "256", "density": "8"}),  # issue 15: estimated 6.5 min
    ("kernel_rank.multi_head", {"search_rounds": "10"}),  # docs/kernel_rank.multi_head.md
    ("kernel_rank.multi_head", {"search_rounds": "1"}),  # one round of the search (issue 15)
    ("kernel_rank.multi_head", {"H_identity": "4"}),
    ("kernel_rank.multi_head", {"m_types": "7"}),
    ("conjectures.multi_head_length", {"search_rounds": "10"}),
    ("conjectures.multi_head_length", {"H": "3"}),  # docs/conjectures.multi_head_length.md: H = 3 certified for m <= 4
    ("kernel_rank.communication_bound", {"n_max_m6": "5"}),  # docs: adds N(5) = 97,530 at m = 6
    ("kernel_rank.feature_rank_table", {"m_max": "7"}),  # docs: the rank-5 head at m = 7
    ("softmax_rank.ball_law", {"beta_max": "1024"}),  # docs/softmax_rank.ball_law.md
    ("softmax_rank.ball_law", {"beta": "1024", "dense": "0"}),
    ("softmax_rank.ball_law", {"d": "3"}),  # docs (30.5 s before issue 15)
    ("softmax_rank.ball_law", {"fourier": "1"}),
    ("softmax_rank.calibration", {"heads": "72", "sentences": "8"}),  # docs/softmax_rank.calibration.md (91 s)
]

CHILD = r"""
import json, resource, sys, time
import solvers  # first, as in a worker: it sets one BLAS thread before numpy loads
import numpy, scipy.optimize, scipy.sparse, scipy.special, sympy, z3  # the one-off library cost, outside the clock
from theorems.core import get
claim = get(sys.argv[1])
point = claim.point(json.loads(sys.argv[2]))
estimate = claim.cost(point)
if estimate > float(sys.argv[3]):
    print(json.dumps({"estimate": estimate, "skipped": True})); sys.exit(0)

def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

c0, w0 = cpu(), time.perf_counter()
outcome = claim.check(point, budget=None)
print(json.dumps({"estimate": estimate, "cpu": cpu() - c0, "wall": time.perf_counter() - w0,
                  "status": outcome.status, "expected": claim.expected,
                  "certificates": len(outcome.certificates)}))
"""


def measure(claim: str, params: dict, max_estimate: float) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, claim, json.dumps(params), str(max_estimate)],
                          capture_output=True, text=True, cwd=HERE)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1][:120]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def time_verify() -> None:
    attnproof = os.path.join(os.path.dirname(sys.executable), "attnproof")
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "latest")
        c0, w0 = children_cpu(), time.perf_counter()
        subprocess.run([attnproof, "check", "--out", out, "--jobs", "2"], capture_output=True, cwd=HERE)
        print(f"\ndefault check (--jobs 2): {children_cpu() - c0:.1f} s CPU, {time.perf_counter() - w0:.1f} s wall")
        time_verify_of(out)


def time_verify_of(out: str, repeat: int = 3) -> None:
    """``attnproof verify OUT`` as a user runs it (the best of ``repeat``), then each stage alone at 1 and
    at the default number of jobs: CPU of the child processes (and theirs) and wall."""
    from theorems import verification

    # as a user runs it: compiled modules cached (PYTHONDONTWRITEBYTECODE made the binding compile every
    # claim module again on each run); one run first writes the caches
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    attnproof = os.path.join(os.path.dirname(sys.executable), "attnproof")
    subprocess.run([attnproof, "verify", out], capture_output=True, cwd=HERE)
    runs = []
    for _ in range(repeat):
        c0, w0 = children_cpu(), time.perf_counter()
        done = subprocess.run([attnproof, "verify", out], capture_output=True, text=True, cwd=HERE)
        runs.append((time.perf_counter() - w0, children_cpu() - c0))
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-200:]
    print(f"verify of its outcomes: {min(r[1] for r in runs):.2f} s CPU, {min(r[0] for r in runs):.2f} s wall "
          f"(best of {repeat}; {tail})")
    for jobs in sorted({1, verification.JOBS}):
        stages = {"stage 1 (checker)": [], "stage 2 (binding)": []}
        for _ in range(repeat):
            c0, w0 = children_cpu(), time.perf_counter()
            result = verification.run_checker([out], jobs=jobs)
            c1, w1 = children_cpu(), time.perf_counter()
            verification.run_binding(result.outcomes, jobs=jobs)
            stages["stage 1 (checker)"].append((w1 - w0, c1 - c0))
            stages["stage 2 (binding)"].append((time.perf_counter() - w1, children_cpu() - c1))
        for name, times in stages.items():
            print(f"  {name}, --jobs {jobs}: {min(t[1] for t in times):.2f} s CPU, {min(t[0] for t in times):.2f} s wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--defaults", action="store_true", help="only every claim's default point")
    parser.add_argument("--claims", nargs="*", default=None, help="only these claims (ids or suffixes)")
    parser.add_argument("--max-estimate", type=float, default=200.0, help="skip points estimated above this (s)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per point; the least CPU time is kept")
    parser.add_argument("--verify", action="store_true", help="also time the default check and verify of it")
    parser.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    parser.add_argument("--verify-only", metavar="DIR", help="only time verify of the outcomes in DIR (stage by stage)")
    args = parser.parse_args()
    if args.verify_only:
        sys.path.insert(0, HERE)
        time_verify_of(args.verify_only, max(args.repeat, 1))
        return

    sys.path.insert(0, HERE)
    from theorems.core import registry

    claims = registry()
    chosen = [c for c in claims if args.claims is None or any(c == a or c.endswith("." + a) for a in args.claims)]
    points = [(c, {}) for c in chosen]
    if not args.defaults:
        points += [(c, p) for c, p in POINTS if c in chosen]

    rows, total = [], 0.0
    print(f"{'claim':<42} {'point':<34} {'estimate':>8} {'cpu s':>7} {'wall s':>7} {'est/cpu':>7}  status")
    for claim, params in points:
        runs = [measure(claim, params, args.max_estimate) for _ in range(max(1, args.repeat))]
        best = min(runs, key=lambda r: r.get("cpu", float("inf")))
        label = ",".join(f"{k}={v}" for k, v in params.items()) or "default"
        if "error" in best:
            print(f"{claim:<42} {label:<34} error: {best['error']}")
        elif best.get("skipped"):
            print(f"{claim:<42} {label:<34} {best['estimate']:>8.1f}  (skipped: estimate above --max-estimate)")
        else:
            ratio = best["estimate"] / max(best["cpu"], 1e-3)
            mark = "" if 0.5 <= ratio <= 2 else " !"
            print(f"{claim:<42} {label:<34} {best['estimate']:>8.2f} {best['cpu']:>7.2f} {best['wall']:>7.2f} "
                  f"{ratio:>7.2f}{mark}  {best['status']}")
            if not params:
                total += best["cpu"]
        rows.append({"claim": claim, "parameters": params, **best})
        sys.stdout.flush()
    print(f"\ndefault points: {total:.1f} s CPU in all (one process per claim, libraries preloaded)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=1)
    if args.verify:
        time_verify()


if __name__ == "__main__":
    main()
