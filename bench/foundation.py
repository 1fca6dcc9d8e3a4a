"""Benchmarks of the foundation: symmetry reduction and exact rank.

    python bench/foundation.py [--full] [--sympy-timeout SECONDS]

1. K2's exhaustive check of the softmax head at beta = ln 4, length 3: one
   sequence per orbit of (coordinate permutations x context permutations)
   against the naive enumeration of all 8^m token triples, m = 4..8.  Both
   use the same exact evaluator.  Without ``--full`` the naive time for
   m >= 7 is extrapolated from a timed sample of triples (marked "est.").
2. Exact rank of the 2^m x 2^m softmax kernel b^{-<q,x>}: ``solvers.exact.rank``
   (rows scaled to integers, python-flint's fmpz_mat.rank) against sympy's
   ``DomainMatrix.rank`` over QQ (flint underneath when sympy's ground types are
   flint; timed with its conversion from the same Fractions, and alone) and
   sympy's Matrix.rank, m = 5..8; Matrix.rank runs in a subprocess under a
   timeout and is reported as "> T s" when it runs out.  CPU seconds, least of 3.

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


def cpu_least(function, *args, repeat: int = 3):
    """The least CPU seconds (time.process_time) of ``repeat`` calls, and the result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        result = function(*args)
        best = min(best, time.process_time() - start)
    return best, result


def domain_matrix(matrix):
    from sympy import QQ
    from sympy.polys.matrices import DomainMatrix

    return DomainMatrix([[QQ(v.numerator, v.denominator) for v in row] for row in matrix],
                        (len(matrix), len(matrix[0])), QQ)


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
    from sympy.external.gmpy import GROUND_TYPES

    print(f"\nexact rank of the 2^m x 2^m softmax kernel 4^-<q,x> (CPU s, least of 3; sympy's ground types: {GROUND_TYPES};"
          f" Matrix.rank timeout {timeout:g} s)")
    print(f"{'m':>3} {'size':>5} {'rank':>5} {'exact.rank':>10} {'of it rows':>10} {'mod-p':>8} {'DM+conv':>8} {'DM rank':>8}"
          f" {'DM/exact':>8} {'Matrix.rank':>11} {'ratio':>8}")
    for m in range(5, 9):
        K = att.softmax_kernel_matrix(m, 4)
        t_flint, r = cpu_least(exact.rank, K)
        t_rows, _ = cpu_least(exact.integer_rows, K)
        t_modp, _ = cpu_least(exact.rank_mod_p, K)
        t_dm, r_dm = cpu_least(lambda: domain_matrix(K).rank())
        D = domain_matrix(K)
        t_dm_alone, _ = cpu_least(D.rank)
        assert r_dm == r, (m, r, r_dm)
        sympy_text, ratio = "not run", "-"
        if m <= 7:
            try:
                done = subprocess.run([sys.executable, "-c", SYMPY_RANK, str(m)], capture_output=True, text=True, timeout=timeout)
                r_sympy, t_sympy = done.stdout.split()
                sympy_text, ratio = f"{float(t_sympy):11.2f}", f"{float(t_sympy) / t_flint:8.0f}"
            except subprocess.TimeoutExpired:
                sympy_text, ratio = f"> {timeout:g}", f"> {timeout / t_flint:.0f}"
        print(f"{m:>3} {1 << m:>5} {r:>5} {t_flint:>10.4f} {t_rows:>10.4f} {t_modp:>8.4f} {t_dm:>8.4f} {t_dm_alone:>8.4f}"
              f" {t_dm / t_flint:>8.1f} {sympy_text:>11} {ratio:>8}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="run the naive enumeration for m = 7, 8 too (minutes)")
    parser.add_argument("--sympy-timeout", type=float, default=120.0)
    args = parser.parse_args()
    bench_orbits(args.full)
    bench_rank(args.sympy_timeout)


if __name__ == "__main__":
    main()
