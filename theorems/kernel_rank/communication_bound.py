"""K9 — a causal model must move Omega(n log m) bits into the final position.

Model (our reading).  Positions 1..n hold tokens; every exchange between
positions goes over channels, each carrying one symbol of a finite alphabet;
the model is deterministic and causal (a position sends only to later
positions), so what the final position receives is a function of the prefix
``x_1..x_{n-1}`` alone, and its output is a function of its own token q and
what it received.  If the received symbols range over at most ``2^B``
combinations, correctness on Min-IP forces them to separate the ``N(n)``
distinct functions ``q -> T(prefix, q)``: ``B >= log2 N(n)``.

Bound: queries = k-subsets ``Q`` of [m], prefix tokens = complements of
k-subsets ``A_i``; ``T = k - max_i |Q ∩ A_i|`` vanishes exactly on ``{A_i}``, so
``N(n) >= C(C(m,k), n-1)``, which is ``>= m^{n-1}`` -- at least ``(n-1) log2 m``
bits -- while ``n - 1 <= C(m, m/2)/m`` (the ratio ``C(M,s)/m^s`` is unimodal).

Checks: N(n) exactly (closure under pointwise minimum) for m = 4, 5 and 6: the
claim computes the counts (``solvers.counting``) and states them, the trusted checker
rebuilds the closure and compares; the fooling family's zero pattern (diagonal, so
injective) at ``m_fooling`` with ``C(M, n-1) >= m^{n-1}`` for every n the
statement names there; for two-way channels across the cut (prefix | query)
the log-rank bound from an exact nonsingular minor of the prefix x query
matrix.  Unchecked (reported as such): the injectivity by enumeration at
small m and the range of n where ``C(M, n-1) >= m^{n-1}`` for m up to ``m_range``.
"""

from __future__ import annotations

import functools
from itertools import combinations
from math import comb

from solvers.lazy import sympy as sp

from solvers import counting, exact
from theorems import attention as att
from theorems.core import Claim, Obligations, Parameter, ParameterError, Plot, Statement, obligation
from theorems.kernel_rank import COMMUNICATION


@functools.cache
def _symbols() -> tuple:
    """This module's sympy symbols, made on first use (importing sympy is slow; `attnproof list` needs none)."""
    _m = sp.Symbol("m", integer=True, positive=True)
    _n = sp.Symbol("n", integer=True, positive=True)
    _B, _N = sp.Symbol("B", nonnegative=True), sp.Function("N")
    return _m, _n, _B, _N

# The rows of the table: N(n) is counted exactly at these m (n = 2 .. n_max_m<m>).
ROWS = (4, 5, 6)

# N(n) for n = 2, 3, ... as measured, for the cost estimate only (a guess of the work, never a verdict): the
# obligations state the counts the closure computes (:func:`closure_counts`), and the checker rebuilds them.
ESTIMATED_COUNTS = {4: (16, 71, 135, 160, 166, 167), 5: (32, 317, 1407, 3427, 5573, 6953, 7443, 7558, 7578, 7580),
                    6: (64, 1415, 15415, 97530)}


def estimated_counts(m: int, n_max: int) -> list[int]:
    """N(2), ..., N(n_max) at m from :data:`ESTIMATED_COUNTS` (its last value repeated beyond it): sizes for ``cost``."""
    table = ESTIMATED_COUNTS[m]
    return [table[min(n - 2, len(table) - 1)] for n in range(2, n_max + 1)]


def fooling_top(m: int) -> int:
    """The largest n the statement names at m: ``n - 1 <= C(m, m/2) / m``."""
    return comb(m, m // 2) // m + 1


@functools.cache
def _scores(m: int) -> list[tuple[int, ...]]:
    """Row x: ``q -> <x, q>`` for every query q in {0,1}^m (made once per m)."""
    return [tuple(att.inner(x, q) for q in range(1 << m)) for x in range(1 << m)]


def behaviour(prefix, m: int) -> tuple[int, ...]:
    """``q -> T(prefix + (q,)) = min_j <x_j, q>`` for every query q in {0,1}^m: the least of the
    prefix tokens' score rows (the query's own score ``<q, q> = |q|`` is never below ``<x, q>``)."""
    rows = [_scores(m)[x] for x in prefix]
    return rows[0] if len(rows) == 1 else tuple(map(min, *rows))


def behaviour_levels(m: int, n_max: int, poll=lambda: None) -> list[dict]:
    """Level s (s = 1..n_max-1): the distinct behaviours of prefixes of length s, each with one token set:
    the levels of :func:`solvers.counting.min_closure` on the score rows."""
    poll()
    return _levels(m, n_max)


@functools.lru_cache(maxsize=len(ROWS) + 1)
def _levels(m: int, n_max: int) -> list[dict]:
    # kept: the obligations and the run of one point ask for the same levels (at most ~1.5 s each, m = 6, n = 5)
    return counting.min_closure(_scores(m), n_max - 1)


def closure_counts(m: int, n_max: int) -> list[int]:
    """``N(2), ..., N(n_max)`` at m, computed: the sizes of the closure's levels (:func:`behaviour_levels`).

    The obligations state these numbers; the trusted checker rebuilds the closure itself and
    compares each, so a wrong count here leaves the obligation undischarged (never verified)."""
    return [len(level) for level in behaviour_levels(m, n_max)]


def padded(indices: tuple[int, ...], length: int) -> list[int]:
    """A prefix of exactly ``length`` tokens with the given token set (repeat the last one)."""
    tokens = list(indices)
    return tokens + [tokens[-1]] * (length - len(tokens))


def fooling_family(m: int) -> tuple[list[int], list[int]]:
    """Queries = the k-subsets of [m] (k = m // 2), prefix tokens = their complements, in the same order."""
    k = m // 2
    full = (1 << m) - 1
    queries = [sum(1 << i for i in c) for c in combinations(range(m), k)]
    return queries, [full ^ Q for Q in queries]


class CommunicationBound(Claim):
    id = "kernel_rank.communication_bound"
    paper = "2608.11427"
    sentence = COMMUNICATION
    title = "Causal finite-alphabet channels need Omega(n log m) bits"
    relation = "a finite step of an asymptotic"
    expected = "verified"
    established = "verified"
    parameters = (
        Parameter("n_max_m4", 8, 2, 20, "exact counts N(n) at m = 4 for n = 2..n_max_m4"),
        Parameter("n_max_m5", 5, 2, 20, "exact counts N(n) at m = 5 for n = 2..n_max_m5 (constant from n = 11 on)"),
        Parameter("n_max_m6", 4, 2, 5, "exact counts N(n) at m = 6 for n = 2..n_max_m6 (n = 5: 97,530 functions, ~1.5 s)"),
        Parameter("m_fooling", 10, 2, 14, "bits of the fooling family checked pair by pair (C(m, m/2)^2 pairs)"),
        # settings: both size computations no certificate checks (facts fooling_range_unchecked, fooling_injective_unchecked)
        Parameter("m_range", 18, 2, 24, "the range of n where C(C(m,m/2), n-1) >= m^(n-1), for m = 2..m_range (m = 24: ~1 min); "
                  "unchecked, a setting", size=False),
        Parameter("m_injective", 6, 2, 8, "fooling family injectivity by enumerating families of up to 3 prefix tokens; "
                  "unchecked, a setting", size=False),
    )

    def statement(self) -> Statement:
        _m, _n, _B, _N = _symbols()
        return Statement(
            hypotheses=(
                (sp.Contains(_m, sp.Naturals, evaluate=False), "for every number of bits m and length n"),
                (sp.Symbol("causal"), "a deterministic causal model, tokens exchanging symbols of finite alphabets; "
                                      "B = log2 of the number of symbol combinations the final position can receive"),
            ),
            conclusion=(
                sp.And(sp.Ge(_B, sp.log(_N(_n), 2)), sp.Ge(sp.log(_N(_n), 2), (_n - 1) * sp.log(_m, 2))),
                "B >= log2 N(n), N(n) = number of functions q -> T(prefix, q); N(n) >= m^(n-1) while n - 1 <= C(m, m/2)/m",
            ),
        )

    def validate(self, point: dict) -> None:
        if point["m_fooling"] > point["m_range"]:
            raise ParameterError(f"m_fooling ({point['m_fooling']}) must be at most m_range ({point['m_range']})")

    def cost(self, point: dict) -> float:
        # seconds on one core, measured by bench/estimates.py (0.32-0.42 s at the default, 0.39 s at
        # n_max_m5 = 6, 0.54 s at 7, after the checker's prefix-behaviours became bitwise): the closure in
        # numpy and the checker's walk, ~2.5e-5 s per function of the last level at m = 5, and the unions
        # of whole levels, ~1e-5 s per function of every level; at m = 6 (measured here, load 10: +0.3 s
        # at n_max_m6 = 4, +0.7 s at 5) ~6e-6 and ~1e-6 s
        rows = 0.0
        for m, last, every in ((5, 2.5e-5, 1e-5), (6, 6e-6, 1e-6)):
            sizes = estimated_counts(m, point[f"n_max_m{m}"])
            rows += last * sizes[-1] + every * sum(sizes)
        # the range table: binomial_beats_power walks s up to M/m with integers of ~s log2 M bits
        ranged = sum((comb(mm, mm // 2) // mm) ** 2 * 4.2e-9 for mm in range(2, point["m_range"] + 1))
        # the fooling family: ~6e-8 s per (query, prefix token) pair of k-subsets (measured at m_fooling = 12
        # and 14: 0.42 and 1.02 s, load ~10; 7e-7 made 14 8.5x high)
        return rows + 0.01 * point["n_max_m4"] + comb(point["m_fooling"], point["m_fooling"] // 2) ** 2 * 6e-8 + ranged + 0.05

    def obligations(self, point: dict) -> Obligations:
        """Exact counts at m = 4, 5, 6 (with the bits they force), the log-rank bits across the cut there,
        and the fooling family's ``N(n) >= m^(n-1)`` at m_fooling for every n the statement names.

        The counts are the closure's (:func:`closure_counts`), computed here, not a table: the
        statement is "N_m(n) equals the number this closure finds", and the trusted checker
        rebuilds the closure from the tokens and compares.

        The two-way bound: the prefix x query matrix has rank m at n = 2 (``<x, q>``) and
        2^m - 1 from n = 3 on, so at least ceil(log2 m), resp. m, bits across the cut.
        """
        verify = []
        for m in ROWS:
            n_max = point[f"n_max_m{m}"]
            N = closure_counts(m, n_max)
            bits = [(c - 1).bit_length() for c in N]
            verify.append(obligation(f"at m = {m}, exactly N(n) = {N} functions q -> T(P, q) for n = 2..{n_max}, "
                                     f"so at least {bits} bits into position n", "behaviour-counts",
                                     target="min-ip", m=m, counts=N, bits=bits))
            cut = m if n_max >= 3 else (m - 1).bit_length()
            verify.append(obligation(f"two-way across the cut at m = {m}, n = {n_max}: at least {cut} bits (log-rank)",
                                     "bits-at-least", channel="two-way-cut", target="min-ip", m=m, n=n_max, bits=cut))
        mf = point["m_fooling"]
        top = fooling_top(mf)
        verify.append(obligation(f"N(n) >= {mf}^(n-1) at m = {mf} for every n <= C({mf}, {mf // 2})/{mf} + 1 = {top}",
                                 "behaviours-at-least-power", target="min-ip", m=mf, lengths=[2, top]))
        reach = (f"N(n) exactly at m = 4 (n <= {point['n_max_m4']}), m = 5 (n <= {point['n_max_m5']}) "
                 f"and m = 6 (n <= {point['n_max_m6']}); "
                 f"N(n) >= m^(n-1) at m = {mf} for n <= {top}")
        return Obligations(verify=tuple(verify), reach=reach)

    def witness(self, point: dict) -> tuple[list[int], list[int]]:
        return fooling_family(point["m_fooling"])

    def run(self, point: dict, ev) -> None:
        self._counts(point, ev)
        self._fooling(point, ev)
        ev.note("bits into the final position >= log2 N(n) >= (n-1) log2 m where n - 1 <= C(m, m/2)/m; "
                "two-way across the cut only log2 rank, at most m bits")

    def _counts(self, point: dict, ev) -> None:
        table, bits, beats, ranks = {}, {}, {}, {}
        for m in ROWS:
            n_max = point[f"n_max_m{m}"]
            levels = behaviour_levels(m, n_max, ev.poll)
            counts = {n: len(levels[n - 2]) for n in range(2, n_max + 1)}
            table[m] = counts
            bits[m] = {n: counting.ceil_log2(N) for n, N in counts.items()}
            beats[m] = {n: N >= m ** (n - 1) for n, N in counts.items()}
            fixed = [n for n in range(3, n_max + 1) if counts[n] == counts[n - 1]]
            if fixed:
                ev.fact(f"constant_from_m{m}", {"n": fixed[0] - 1, "N": counts[fixed[0]]})
            ev.certify("prefix-behaviours", {"m": m, "counts": [counts[n] for n in range(2, n_max + 1)]})
            # two-way channels across the cut: log-rank of the (distinct behaviours) x queries matrix
            n = n_max
            rows = list(levels[n - 2].items())
            matrix = [list(f) for f, _ in rows]
            # a minor of M^T is one of M: row-reducing the wide transpose is far cheaper than the tall M, and
            # the first 1024 behaviours already reach the largest possible rank 2^m - 1 (the query-0 column is
            # zero) at m <= 6; only if they do not are all rows reduced
            for cap in (1024, len(matrix)):
                r_cols, r_rows = exact.nonsingular_minor([list(col) for col in zip(*matrix[:cap])])
                if len(r_rows) == (1 << m) - 1:
                    break
            ranks[m] = {"n": n, "rank": len(r_rows), "bits": counting.ceil_log2(len(r_rows))}
            ev.certify("behaviour-rank", {
                "m": m, "n": n, "prefixes": [padded(rows[i][1], n - 1) for i in r_rows],
                "queries": r_cols, "prime": exact.DEFAULT_PRIME,
            })
            ev.cover(f"counts_m{m}", {"n": [2, n_max], "behaviours": counts[n_max]})
        ev.fact("N", table)
        ev.fact("bits_one_way", bits)
        ev.fact("N_at_least_m_to_the_n_minus_1", beats)
        ev.fact("log_rank_two_way", ranks)

    def _fooling(self, point: dict, ev) -> None:
        m = point["m_fooling"]
        queries, tokens = self.witness(point)
        M = len(queries)
        top = fooling_top(m)
        ev.certify("fooling-family", {"m": m, "queries": queries, "tokens": tokens, "n_max": top})
        ev.cover("fooling_family", {"m": m, "M": M, "pairs": M * M})
        # injectivity by enumeration: every family of up to s distinct prefix tokens, full behaviours
        injective = {}
        for mm, s_top in ((4, 6), (point["m_injective"], 3)):
            qs, ts = fooling_family(mm)
            seen: dict = {}
            for s in range(1, min(s_top, len(ts)) + 1):
                for family in combinations(range(len(ts)), s):
                    ev.poll()
                    f = behaviour(padded(tuple(ts[i] for i in family), s), mm)
                    if f in seen:
                        ev.fail("two fooling families have the same behaviour",
                                {"m": mm, "families": [[att.bits(ts[i], mm) for i in seen[f]], [att.bits(ts[i], mm) for i in family]]})
                        return
                    seen[f] = family
            injective[mm] = {"families": len(seen), "sizes": [1, min(s_top, len(ts))]}
        ev.fact("fooling_injective_unchecked", injective)
        # where the family beats (n-1) log2 m: s* with C(M, s) >= m^s exactly for s <= s*, against floor(M/m)
        table = {}
        for mm in range(2, point["m_range"] + 1):
            ev.poll()
            MM = comb(mm, mm // 2)
            star = counting.binomial_beats_power(MM, mm)
            table[mm] = {"M": MM, "n_max": star + 1, "guaranteed_n_max": MM // mm + 1}
            if star < MM // mm:
                ev.fail("C(M, s) < m^s for some s <= M/m", {"m": mm, "s": star + 1})
        ev.fact("fooling_range_unchecked", table)
        ev.fact("fooling_bits_certified", {"m": m, "n": [2, top], "bits_at_least": "(n-1) log2 m",
                                           "at_n_max": counting.ceil_log2(comb(M, top - 1))})


    # -- figures for the report (floats for display only)

    def plots(self, record: dict) -> list[Plot]:
        """log2 N(n) against n for m = 4, 5, 6, beside (n - 1) log2 m."""
        import math

        table = (record.get("facts") or {}).get("N") or {}
        series = []
        for m, raw in sorted(table.items(), key=lambda kv: int(kv[0])):
            row = {int(n): int(N) for n, N in raw.items()}
            ns = sorted(row)
            series.append((f"log2 N(n), m = {m}", tuple(ns), tuple(math.log2(row[n]) for n in ns)))
            applies = [n for n in ns if (n - 1) * int(m) <= math.comb(int(m), int(m) // 2)]  # the fooling family's range
            if applies:  # the bound holds only there: drawn beyond, it would look violated by the saturating counts
                series.append((f"(n - 1) log2 {m}, for n - 1 <= C({m}, {int(m) // 2})/{m}", tuple(applies),
                               tuple((n - 1) * math.log2(int(m)) for n in applies)))
        if not series:
            return []
        return [Plot(
            name="bits-into-final-position",
            title="bits the final position must receive: log2 N(n) (exact counts)",
            xlabel="sequence length n",
            ylabel="bits",
            series=tuple(series),
            note="N(n) counted exactly; at small m it saturates (m = 4: 167 from n = 7), the fooling family gives (n-1) log2 m for n - 1 <= C(m, m/2)/m",
        )]

CLAIM = CommunicationBound()
