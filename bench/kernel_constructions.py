"""Benchmark of K6: orbit-reduced exhaustive check against naive enumeration.

    python bench/kernel_constructions.py [--full]

The rank-one head with one-hot values and the degree-D readout
``P_q(h) = sum_{t<=|q|} g_D(h(S_t))`` at exact length D + 1, evaluated exactly
on one sequence per orbit of coordinate permutations x context permutations
(``attention.sweep_orbits``) against every sequence (``attention.sweep_all``),
with the same evaluator, for D = 1..3.  Without ``--full`` the naive time is
measured where it takes under a minute and extrapolated from 20,000 timed
random sequences elsewhere (marked "e").  The trusted checker's re-check
(``threshold-polynomial``, its own orbit enumeration) is timed beside it.

Figures are printed, never asserted; docs/performance.md records a run.
"""

from __future__ import annotations

import argparse
import random
import time

from solvers import certificates, trusted
from theorems import attention as att
from theorems.kernel_rank import polynomial_readout_upper as k6

POINTS = {1: (4, 6, 8, 10, 16), 2: (3, 4, 5, 7, 9), 3: (2, 3, 4, 5, 6)}
NAIVE_LIMIT = 2_000_000  # sequences; beyond this the naive time is extrapolated unless --full


def layer(D: int) -> att.AttentionLayer:
    return att.AttentionLayer((att.UniformOneHotHead(),), k6.readout(k6.selector_coefficients(D), D))


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def naive_estimate(model: att.AttentionLayer, m: int, n: int, sample: int = 20000) -> float:
    rng = random.Random(0)
    seqs = [tuple(rng.randrange(1 << m) for _ in range(n)) for _ in range(sample)]
    start = time.perf_counter()
    for seq in seqs:
        model.error(seq)
    return (time.perf_counter() - start) / sample * 2 ** (m * n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="run every naive enumeration (hours at the largest points)")
    args = parser.parse_args()
    print("K6: rank one, degree-D readout, exact length D + 1 (same exact evaluator)")
    print(f"{'D':>2} {'m':>3} {'sequences':>14} {'orbits':>7} {'orbit s':>8} {'trusted s':>9} {'naive s':>12} {'ratio':>9}  worst errors")
    for D, ms in POINTS.items():
        model, n = layer(D), D + 1
        for m in ms:
            t_orbit, orbit = timed(att.sweep_orbits, model, m, n)
            cert = certificates.make("threshold-polynomial", "bench", "s" * 64, {}, {
                "m": m, "length": n, "coefficients": k6.selector_coefficients(D), "symmetry": "coordinates-and-context"})
            t_trusted, _ = timed(trusted.check, cert)
            if args.full or 2 ** (m * n) <= NAIVE_LIMIT:
                t_naive, naive = timed(att.sweep_all, model, m, n)
                naive_text, agree = f"{t_naive:10.2f}  ", f"agree ({naive.worst})" if naive.worst == orbit.worst else "DIFFER"
            else:
                t_naive = naive_estimate(model, m, n)
                naive_text, agree = f"{t_naive:10.0f} e", f"orbit {orbit.worst} (naive not run; --full)"
            print(f"{D:>2} {m:>3} {2 ** (m * n):>14,} {orbit.points:>7} {t_orbit:>8.3f} {t_trusted:>9.3f} {naive_text:>12} {t_naive / t_orbit:>9.0f}  {agree}")


if __name__ == "__main__":
    main()
