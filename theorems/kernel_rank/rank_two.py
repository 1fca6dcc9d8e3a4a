"""The rank-two frontier through query cones: r*(4) = 2 and r*(m) >= 3 for every m >= 5.

Cones (docs/kernel_rank.rank_two.md, Lemma 1).  For a query q over an alphabet A, the
kernel rows ``k`` in ``R^A_{>=0}`` that admit a readout row solving every sequence of exact
length n with query q form a convex cone ``G_q``: with ``P = k U`` the conditions are the strict
homogeneous rows

    lo:  sum_j P(x_j) - (T - 1/2) sum_j k(x_j) > 0,    hi:  (T + 1/2) sum_j k(x_j) - sum_j P(x_j) > 0

in ``(k, P)``, one pair per context multiset.  Every row ``K[q, .] = phi(q)^T Psi`` of a solving
head of feature rank r lies in ``G_q``; conversely, rows in every ``G_q`` give a solving head of
the same width once ``Psi`` is raised by a small eps (the rows are strict).  So a rank-r head
exists iff the cone spanned by r nonnegative generators ``Psi^T e_i`` meets every ``G_q``.

* r = 1: one ray meets every cone — one LP in ``(psi, P_q)``; at m = 4 it is infeasible (a
  Gordan certificate, the checker's ``rank-one-infeasible``, zero-padded to every m >= 4).
* r = 2, membership: for two given generators, "the cone meets ``G_q``" is one LP per query
  in ``(phi(q), P_q)``; at m = 4 it holds for every query (the generators :data:`GENERATORS_M4`, found
  by the float search of the r*(m) table; ``phi`` and the readout are decided here), so the
  assembled head is re-evaluated on every sequence (``exhaustive``): ``r*(4) = 2``.
* r = 2, impossibility (Lemmas 2, 3): of three rows of a rank-two head, the one with the
  middle angle is a nonnegative combination of the other two, so the LP ``M(a; b, c)`` (rows
  of b on ``k_b``, of c on ``k_c``, of a on ``k_b + k_c``) is feasible.  Each infeasible
  ``M(a; b, c)`` forbids a between b and c in the angular order; if no linear order of a
  query set avoids the forbidden betweennesses, no rank-two head exists.  At m = 5 ten
  exclusions on eight queries (found by ``bench/rank_two.py``, which scanned all 134 orbits
  of query triples under the coordinate permutations) admit no order: the checker's
  ``rank-two-betweenness`` re-checks the ten Motzkin certificates and searches the orders.

What the verdict rests on (:meth:`RankTwo.obligations`): at m = 4, ``unsolvable{rank 1, m
[4, null]}`` and ``solves{rank 2, m [4, 4]}``; at m = 5, ``unsolvable{rank 2, m [5, null]}``.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from itertools import combinations_with_replacement

from solvers.lazy import sympy as sp

from solvers import lp
from solvers.trusted.cones import order_avoiding
from theorems import attention as att
from theorems.kernel_rank import _linearised as lin
from theorems.core import Claim, Obligations, Parameter, Statement, obligation
from theorems.kernel_rank import THREE_TOKENS

HALF = Fraction(1, 2)
# The generators at m = 4: the two columns of Psi of a rank-2 head found by the float search of the r*(m)
# table (its Phi and readout are not used: phi(q) and the readout rows are decided here, per query, exactly).
# Kept here, not read from the table's stored heads, so that this claim rests on no file of the table: the
# table builds on this claim (its lower bound 3 is this claim's betweenness certificate), never the reverse.
GENERATORS_M4 = (
    ("1693/472", "2964/827", "329/95", "1747/888", "1235/387", "971/663", "2745/941", "326/377",
     "2133/577", "1293/952", "752/333", "623/843", "1162/849", "715/717", "751/965", "590/857"),
    ("745/898", "355/561", "1/1000", "1/1000", "712/851", "37/138", "1/1000", "19/968",
     "37/162", "8191/950", "131/988", "155/971", "4814/489", "217/785", "113/711", "1/1000"),
)

# The plan at m = 5 (bits, coordinate 1 first): "middle, end, end" — found by
# bench/rank_two.py; every exclusion is decided afresh and certified, never assumed.
EXCLUSIONS_M5 = (
    ("10010", "01100", "01111"), ("10001", "01100", "01111"), ("01100", "10010", "10111"),
    ("01001", "10010", "10111"), ("01001", "00110", "10111"), ("10001", "00110", "01111"),
    ("00110", "10001", "11011"), ("01100", "10001", "10111"), ("00110", "01001", "11011"),
    ("10010", "01001", "01111"),
)


def token(text: str) -> int:
    return sum(1 << i for i, ch in enumerate(text) if ch == "1")


class ConeSystem:
    """A linear system over named unknowns whose rows are the cone rows of some queries.

    ``labels[i]`` names row i: ``("seq", q, side, context)`` or ``("nonneg", key)``.
    """

    def __init__(self, keys):
        keys = list(dict.fromkeys(keys))
        self.index = {k: i for i, k in enumerate(keys)}
        self.system = lp.LinearSystem(len(keys))
        self.labels: list = []

    def add_query(self, q: int, tokens, kernel, n: int = 3) -> None:
        """The rows of ``G_q``'s lift: ``kernel(x)`` = the row entry ``k(x)`` as ``{unknown: coefficient}``,
        readout products ``("P", q, x)``; one pair per context multiset of ``n - 1`` tokens.

        Row ``sign (sum_j P(q, x_j) - level sum_j k(x_j)) > 0``: the kernel entries are summed over
        the sequence once, for both sides, and multiplied by the level once per unknown."""
        index = self.index
        entries = {x: [(index[key], c) for key, c in kernel(x).items()] for x in tokens}
        for context in combinations_with_replacement(tokens, n - 1):
            seq = tuple(context) + (q,)
            target = att.min_ip_target(seq)
            count: dict = {}  # P(q, x) -> occurrences of x
            total: dict = {}  # unknown -> its coefficient in sum_j k(x_j)
            for x in seq:
                p = index[("P", q, x)]
                count[p] = count.get(p, 0) + 1
                for j, c in entries[x]:
                    total[j] = total.get(j, 0) + c
            for side, sign, level in (("lo", 1, target - HALF), ("hi", -1, target + HALF)):
                coefs = {p: sign * k for p, k in count.items()}
                for j, c in total.items():
                    coefs[j] = coefs.get(j, 0) - sign * level * c
                self.system.add(coefs, ">", 0)
                self.labels.append(("seq", q, side, context))

    def add_nonnegative(self, key) -> None:
        self.system.add({self.index[key]: 1}, ">=", 0)
        self.labels.append(("nonneg", key))

    def decide(self, budget=None):
        return lp.decide(self.system, budget)

    def value(self, point, key) -> Fraction:
        return point[self.index[key]]


def ray_system(m: int, tokens=None, n: int = 3) -> ConeSystem:
    """One ray ``psi`` in every ``G_q`` (q over the tokens): the cone formulation of rank one."""
    tokens = list(range(1 << m)) if tokens is None else list(tokens)
    cone = ConeSystem([("psi", x) for x in tokens] + [("P", q, x) for q in tokens for x in tokens])
    for q in tokens:
        cone.add_query(q, tokens, lambda x: {("psi", x): 1}, n)
    for x in tokens:
        cone.add_nonnegative(("psi", x))
    return cone


def membership_system(m: int, q: int, generators, n: int = 3) -> ConeSystem:
    """``cone(generators)`` meets ``G_q``: unknowns ``phi_i >= 0`` and ``P(q, .)``."""
    tokens = list(range(1 << m))
    cone = ConeSystem([("phi", i) for i in range(len(generators))] + [("P", q, x) for x in tokens])
    cone.add_query(q, tokens, lambda x: {("phi", i): g[x] for i, g in enumerate(generators) if g[x]}, n)
    for i in range(len(generators)):
        cone.add_nonnegative(("phi", i))
    return cone


def middle_system(m: int, a: int, b: int, c: int, tokens=None, n: int = 3) -> ConeSystem:
    """``M(a; b, c)``: rows of b on ``k_b``, of c on ``k_c``, of a on ``k_b + k_c``; ``k_b, k_c >= 0``."""
    tokens = list(range(1 << m)) if tokens is None else list(tokens)
    keys = [("k", e, x) for e in (b, c) for x in tokens] + [("P", q, x) for q in (a, b, c) for x in tokens]
    cone = ConeSystem(keys)
    cone.add_query(b, tokens, lambda x: {("k", b, x): 1}, n)
    cone.add_query(c, tokens, lambda x: {("k", c, x): 1}, n)
    cone.add_query(a, tokens, lambda x: {("k", b, x): 1, ("k", c, x): 1}, n)
    for e in (b, c):
        for x in tokens:
            cone.add_nonnegative(("k", e, x))
    return cone


def _scaled(multipliers: dict) -> dict:
    """The same certificate with coprime integer multipliers (a positive scale keeps it)."""
    from math import gcd, lcm

    values = [Fraction(y) for y in multipliers.values() if y]
    den = lcm(*(v.denominator for v in values))
    g = gcd(*(int(v * den) for v in values))
    return {i: Fraction(y) * den / g for i, y in multipliers.items() if y}


def ray_certificate(cone: ConeSystem, multipliers: dict, m: int) -> dict:
    """``rank-one-infeasible`` data (its rows are exactly the cone rows of one ray)."""
    rows, nonneg = [], []
    for i, y in sorted(_scaled(multipliers).items()):
        label = cone.labels[i]
        if label[0] == "seq":
            _, q, side, context = label
            rows.append([side, y, [att.bits(x, m) for x in context + (q,)]])
        else:
            nonneg.append([0, att.bits(label[1][1], m), y])
    return {"m": m, "positions": False, "rows": rows, "nonnegative": nonneg}


def exclusion_certificate(cone: ConeSystem, multipliers: dict, m: int, a: int, b: int, c: int) -> dict:
    """One ``exclusions`` entry of ``rank-two-betweenness``."""
    rows, nonneg = [], []
    for i, y in sorted(_scaled(multipliers).items()):
        label = cone.labels[i]
        if label[0] == "seq":
            _, q, side, context = label
            rows.append([att.bits(q, m), side, y, [att.bits(x, m) for x in context]])
        else:
            _, (_, e, x) = label
            nonneg.append([att.bits(e, m), att.bits(x, m), y])
    return {"middle": att.bits(a, m), "ends": [att.bits(b, m), att.bits(c, m)], "rows": rows, "nonnegative": nonneg}


def generators_m4() -> list[list[Fraction]]:
    """The two generators ``psi_1, psi_2`` on ``{0,1}^4`` (token index = the bits read as a binary number,
    coordinate 1 the lowest bit) whose cone meets every ``G_q`` at m = 4 (:data:`GENERATORS_M4`)."""
    return [[Fraction(v) for v in g] for g in GENERATORS_M4]


def head_from_cones(m: int, generators, budget=None, poll=lambda: None):
    """``(phi, U)`` with every row ``phi(q)^T Psi`` in ``G_q``, decided per query; None if some query fails.

    A solution's ``phi`` may vanish where ``P`` does not; the rows are strict, so raising every
    ``phi_i(q)`` by a small eps keeps them (halved until they hold), and then ``U = P / K``.
    """
    size = 1 << m
    Phi, U = [], []
    for q in range(size):
        poll()
        cone = membership_system(m, q, generators)
        decision = cone.decide(budget)
        if not isinstance(decision, lp.Feasible):
            return None
        base = [cone.value(decision.point, ("phi", i)) for i in range(len(generators))]
        P = [cone.value(decision.point, ("P", q, x)) for x in range(size)]
        eps = max(base) or Fraction(1)
        for _ in range(64):  # the rows are strict: some eps works; a bounded search all the same
            phi = [v if v > 0 else eps for v in base]
            K = [sum((p * g[x] for p, g in zip(phi, generators)), Fraction(0)) for x in range(size)]
            row = [p / k if k else Fraction(0) for p, k in zip(P, K)]  # weight 0: the readout is never used
            if K[q] > 0 and _row_solves(q, K, row, m):
                break
            eps /= 2
        else:
            return None
        Phi.append(phi)
        U.append(row)
    return Phi, U


def _row_solves(q: int, K, U, m: int) -> bool:
    """Query q's row ``(K, U)`` has error < 1/2 on every sequence of exact length 3 with query q."""
    return lin.kernel_worst_error({q: K}, {q: U}, m, 3, queries=[q]) < HALF


class RankTwo(Claim):
    id = "kernel_rank.rank_two"
    paper = "2608.11427"
    sentence = THREE_TOKENS
    title = "Feature rank two through query cones: r*(4) = 2 (point m = 4); r*(m) >= 3 at every m >= 5, from the point m = 5"
    relation = "a finite step of an asymptotic"
    formal = ('r_star_4_is_2', 'r_star_5_is_3', 'rank_two_fails_from_5')
    expected = "verified"
    established = "verified"
    # the table of r*(m) builds on this claim (its m = 5 cell is this betweenness certificate), not the reverse
    uses = ("kernel_rank.three_token_lower_bound", "kernel_rank.restriction_lemma")
    parameters = (
        Parameter("m", 4, 4, 5, "4: r*(4) = 2 from the cones alone; 5: no rank-2 head at any m >= 5 (betweenness)"),
    )

    def statement(self) -> Statement:
        m = sp.Symbol("m", integer=True, positive=True)
        rstar = sp.Function("r^*")
        return Statement(
            hypotheses=(),
            conclusion=(sp.And(sp.Eq(rstar(4), 2), sp.Implies(sp.Ge(m, 5), sp.Ge(rstar(m), 3))),
                        "r*(m) is the least feature rank of one nonnegative kernel head K = Phi Psi^T, with any readout "
                        "table, that has error < 1/2 on every sequence of exact length 3 over {0,1}^m: r*(4) = 2 (rank "
                        "one fails, rank two solves), and for every m >= 5 no head of feature rank 2 solves (the point "
                        "m = 4 checks the first part, the point m = 5 the second)"),
        )

    def cost(self, point: dict) -> float:
        # CPU seconds measured by bench/estimates.py (issue 15): m = 4 about 0.8 s (16 membership LPs and the
        # exhaustive re-check), m = 5 about 0.2 s (ten middle LPs on 4-token alphabets)
        return 0.8 if point["m"] == 4 else 0.25

    def obligations(self, point: dict) -> Obligations:
        """m = 4: rank one fails at every m >= 4 and rank two solves at m = 4; m = 5: rank two fails at every m >= 5."""
        half = Fraction(1, 2)
        if point["m"] == 4:
            verify = (
                obligation("no rank-one head solves exact length 3 at any m >= 4 (one ray meets every query cone)",
                           "unsolvable", model="kernel", rank=1, m=[4, None], length=3, target="min-ip", tolerance=half),
                obligation("a head of feature rank <= 2 solves every sequence of length 3 over {0,1}^4 with error < 1/2",
                           "solves", model="kernel", head="any", rank=2, alphabet="all", m=[4, 4], lengths=[3],
                           target="min-ip", tolerance=half),
            )
            return Obligations(verify=verify, reach="m = 4, length 3")
        verify = (obligation("no head of feature rank <= 2 solves exact length 3 with error < 1/2 at any m >= 5",
                             "unsolvable", model="kernel", rank=2, m=[5, None], length=3, target="min-ip", tolerance=half),)
        return Obligations(verify=verify, reach="every m >= 5, length 3")

    def run(self, point: dict, ev) -> None:
        say = lambda text: print(f"[{self.id}] {text}", file=sys.stderr)  # noqa: E731
        if point["m"] == 4:
            self._m4(ev, say)
        else:
            self._m5(ev, say)

    def _m4(self, ev, say) -> None:
        m = 4
        # rank one: a single ray in every cone — here on the two tokens of K3's certificate
        # (restricting the alphabet only drops rows: an infeasible restriction refutes the whole)
        tokens = [token("1100"), token("0011")]
        cone = ray_system(m, tokens)
        decision = cone.decide(ev.budget.remaining())
        if ev.settle(decision, lp.Infeasible, "one ray meets every query cone on 1100, 0011", {"m": m}):
            data = ray_certificate(cone, decision.multipliers, m)
            ev.fact("ray_certificate_rows_unchecked", len(data["rows"]) + len(data["nonnegative"]))
            ev.certify("rank-one-infeasible", data)
        # rank two: the cone of two generators meets every G_q (one exact LP per query)
        generators = generators_m4()
        say("membership of cone(psi_1, psi_2) in G_q for the 16 queries")
        head = head_from_cones(m, generators, ev.budget.remaining(), ev.poll)
        if head is None:
            ev.fail("the cone of the stored generators misses some G_q at m = 4", {"m": m})
            return
        Phi, U = head
        psi = [[g[x] for g in generators] for x in range(1 << m)]
        ev.certify("exhaustive", {"m": m, "lengths": [3], "phi": Phi, "psi": psi, "readout": U,
                                  "target": "min-ip", "tolerance": HALF, "symmetry": "none"})
        ev.cover("cones", {"m": m, "queries": 16, "rank one": "1100, 0011", "rank two": "every query"})
        ev.note("r*(4) = 2 from the cones: one ray misses (Gordan, every m >= 4); two generators meet all 16 cones")

    def _m5(self, ev, say) -> None:
        say("deciding the ten middle problems at m = 5")
        data, open_, order = betweenness_certificate(EXCLUSIONS_M5, budget=ev.budget.remaining(), poll=ev.poll)
        entries = data["exclusions"]
        ev.fact("exclusions_certified", len(entries))
        ev.fact("exclusion_rows_unchecked", [len(e["rows"]) + len(e["nonnegative"]) for e in entries])
        ev.cover("betweenness", {"m": 5, "queries": data["queries"], "exclusions": len(entries)})
        if open_ or order is not None:
            # a feasible middle problem refutes nothing: the plan, not the claim, is wrong
            ev.fact("exclusions_not_certified", [f"{middle}: {type(decision).__name__}" for middle, decision in open_])
            ev.unknown(f"{len(entries)} of {len(EXCLUSIONS_M5)} exclusions certified; "
                       + (f"the order {order} avoids them" if order is not None else "no order was searched"))
            return
        ev.certify("rank-two-betweenness", data)
        ev.note(f"r*(m) >= 3 for every m >= 5: {len(entries)} middles excluded on {len(data['queries'])} "
                "queries leave no angular order")


def betweenness_certificate(exclusions=EXCLUSIONS_M5, m: int = 5, budget=None, poll=lambda: None):
    """``(data, open, order)``: ``rank-two-betweenness`` data for the planned exclusions, the ones
    not certified (``(middle, decision)``), and a linear order avoiding the certified ones (None
    when there is none — then the data proves that no rank-two head exists at any m' >= m).

    Each ``M(a; b, c)`` is decided first on the alphabet ``{a, b, c, complement of a}`` (a
    restriction only drops rows, so its infeasibility is that of ``M`` on every token; the
    certificates found at m = 5 use the tokens a and its complement only), then on every token.
    """
    entries, open_ = [], []
    full = (1 << m) - 1
    for middle, b_text, c_text in exclusions:
        poll()
        a, b, c = token(middle), token(b_text), token(c_text)
        for tokens in ([a, b, c, full ^ a] if full ^ a not in (b, c) else [a, b, c], None):
            cone = middle_system(m, a, b, c, tokens)
            decision = cone.decide(budget)
            if isinstance(decision, lp.Infeasible):
                entries.append(exclusion_certificate(cone, decision.multipliers, m, a, b, c))
                break
        else:
            open_.append((middle, decision))
    queries = sorted({t for triple in exclusions for t in triple})
    excluded = {(token(e["middle"]), frozenset(map(token, e["ends"]))) for e in entries}
    order = order_avoiding([token(t) for t in queries], excluded)
    data = {"m": m, "queries": queries, "exclusions": entries}
    return data, open_, None if order is None else [att.bits(x, m) for x in order]


CLAIM = RankTwo()
