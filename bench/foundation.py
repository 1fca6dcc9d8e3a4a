"""Benchmarks of the foundation: symmetry reduction and exact rank.

    python bench/foundation.py [--full] [--sympy-timeout SECONDS]

1. K2's exhaustive check of the softmax head at beta = ln 4, length 3: one
   sequence per orbit of (coordinate permutations x context permutations)
   against the naive enumeration of all 8^m token triples, m = 4..8.  Both
   use the same exact evaluator.  Without ``--full`` the naive time for
   m >= 7 is extrapolated from a timed sample of triples (marked "est.").
2. Exact rank of the 2^m x 2^m softmax kernel b^{-<q,x>}: python-flint
   (fmpq_mat.rank) against sympy's Matrix.rank, m = 5..7; sympy runs in a
   subprocess under a timeout and is reported as "> T s" when it runs out.

Figures are printed, never asserted; docs/performance.md records a run.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time

from solvers import exact
from theorems import attention as att


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def naive_estimate(layer, m: int, sample: int = 20000) -> float:
    """Seconds for all 8^m triples, extrapolated from ``sample`` random triples."""
    rng = random.Random(0)
    triples = [tuple(rng.randrange(1 << m) for _ in range(3)) for _ in range(sample)]
    start = time.perf_counter()
    for seq in triples:
        layer.error(seq)
    return (time.perf_counter() - start) / sample * 8**m


def bench_orbits(full: bool) -> None:
    print("K2 exhaustive check, beta = ln 4, length 3 (same exact evaluator)")
    print(f"{'m':>3} {'triples':>10} {'orbits':>7} {'orbit s':>9} {'naive s':>12} {'ratio':>8}  worst errors agree")
    for m in range(4, 9):
        layer = att.softmax_witness(m, 4).layer()
        t_orbit, orbit = timed(att.sweep_orbits, layer, m, 3)
        if full or m <= 6:
            t_naive, naive = timed(att.sweep_all, layer, m, 3)
            naive_text, agree = f"{t_naive:10.2f}  ", str(naive.worst == orbit.worst)
        else:
            t_naive = naive_estimate(layer, m)
            naive_text, agree = f"{t_naive:10.1f} e", "(naive not run; --full)"
        print(f"{m:>3} {8**m:>10} {orbit.points:>7} {t_orbit:>9.3f} {naive_text:>12} {t_naive / t_orbit:>8.0f}  {agree}")


SYMPY_RANK = """
import sys, time, sympy
m = int(sys.argv[1])
K = sympy.Matrix(1 << m, 1 << m, lambda q, x: sympy.Rational(1, 4 ** bin(q & x).count("1")))
t = time.perf_counter(); r = K.rank(); print(r, time.perf_counter() - t)
"""


def bench_rank(timeout: float) -> None:
    print(f"\nexact rank of the 2^m x 2^m softmax kernel 4^-<q,x> (sympy timeout {timeout:g} s)")
    print(f"{'m':>3} {'size':>5} {'flint rank':>10} {'flint s':>9} {'mod-p s':>9} {'sympy rank':>10} {'sympy s':>10} {'ratio':>8}")
    for m in range(5, 8):
        K = att.softmax_kernel_matrix(m, 4)
        t_flint, r = timed(exact.rank, K)
        t_modp, _ = timed(exact.rank_mod_p, K)
        try:
            done = subprocess.run([sys.executable, "-c", SYMPY_RANK, str(m)], capture_output=True, text=True, timeout=timeout)
            r_sympy, t_sympy = done.stdout.split()
            t_sympy = float(t_sympy)
            sympy_text, ratio = f"{t_sympy:10.2f}", f"{t_sympy / t_flint:8.0f}"
        except subprocess.TimeoutExpired:
            r_sympy, sympy_text, ratio = "-", f"> {timeout:g}", f"> {timeout / t_flint:.0f}"
        print(f"{m:>3} {1 << m:>5} {r:>10} {t_flint:>9.4f} {t_modp:>9.4f} {r_sympy:>10} {sympy_text:>10} {ratio:>8}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="run the naive enumeration for m = 7, 8 too (minutes)")
    parser.add_argument("--sympy-timeout", type=float, default=120.0)
    args = parser.parse_args()
    bench_orbits(args.full)
    bench_rank(args.sympy_timeout)


if __name__ == "__main__":
    main()
