"""lp.decide keeps its budget on a problem that reaches the exact fallback by itself.

The fallback tests in test_lp.py reach z3 by switching the float stages off; here nothing
is patched: a slab a·x ∈ (c, c + 10^-12] (thinner than HiGHS resolves, so no float point
rounds to an exact one and no float certificate is exact — the slab is feasible) beside
400 strict rows in 40 other unknowns.  Every float stage fails, z3's exact simplex is the
last resort, and z3 does not settle it in 120 s (measured: timeout after 120.3 s of wall,
55 s of CPU at load 9.8).  With a budget of 2 s, decide must say ``unknown`` — and say it
in about the budget, not after z3 has run on.
"""

import random
import time
from fractions import Fraction

from solvers import lp
from solvers.lp import LinearSystem, Unknown, decide


def _slab_beside_planted_rows(nvars=40, nrows=400, seed=3) -> LinearSystem:
    s = LinearSystem(6 + nvars)
    a = {0: -4, 1: 3, 2: -9, 3: 1, 4: -9, 5: 1}
    s.add(a, ">", Fraction(15, 7))
    s.add(a, "<=", Fraction(15, 7) + Fraction(1, 10**12))
    s.add({1: 3, 2: 3, 3: 1, 4: 2, 5: 1}, "=", -19)
    rng = random.Random(seed)
    hidden = [rng.randint(-5, 5) for _ in range(nvars)]
    while len(s.rows) < nrows + 3:
        row = {j: rng.randint(-9, 9) for j in range(nvars) if rng.random() < 0.5}
        value = sum(c * hidden[j] for j, c in row.items())
        if value:  # oriented to hold at the hidden point: the block is feasible on its own
            s.add({6 + j: c if value > 0 else -c for j, c in row.items()}, ">", 0)
    return s


def test_a_problem_that_reaches_the_exact_fallback_ends_unknown_within_its_budget(monkeypatch):
    reached = []
    exact = lp._exact_arithmetic

    def recorded(system, time_limit):  # records, changes nothing
        reached.append(time_limit)
        return exact(system, time_limit)

    monkeypatch.setattr(lp, "_exact_arithmetic", recorded)
    s = _slab_beside_planted_rows()
    budget = 2.0
    start = time.monotonic()
    result = decide(s, budget=budget)
    elapsed = time.monotonic() - start
    assert reached and 0 < reached[0] <= budget, "the float stages decided it: the test no longer reaches z3"
    assert isinstance(result, Unknown), result
    assert "z3" in result.reason and ("timeout" in result.reason or "budget" in result.reason), result.reason
    # 2.0-3.1 s measured at load 1-10; z3 unbounded would run past 120 s.  The bound only catches that
    # hang: 10x the slowest measured (issue 28: no wall-clock bound tighter than 10x its measured time).
    assert elapsed < 32.0, f"decide ran {elapsed:.1f}s on a budget of {budget}s"
