"""Family: feature rank two through the query cones (Motzkin certificates and a betweenness search).

Cones.  For a query q, let ``G_q`` be the set of kernel rows ``k`` (``k >= 0`` on the tokens)
for which some readout row solves every sequence of exact length n with query q: with
``P = k U`` the conditions ``|sum_j P(x_j) / sum_j k(x_j) - T| < 1/2`` are the strict
homogeneous rows of :func:`solvers.trusted.core.ratio_row` in ``(k, P)``, so ``G_q`` is a
convex cone (the projection of a polyhedral one), and every row ``K[q, .]`` of a head
``K = Phi Psi^T`` solving the task lies in ``G_q`` (the direction used here).

Middles.  In a head of feature rank two, ``K[q, .] = phi(q)^T Psi`` with ``phi(q)`` in the
closed quarter-plane ``R^2_{>=0}`` (nonzero: ``K[q, q] > 0``).  Of three queries, the one whose
``phi`` has the middle angle (ties included) has ``phi(a) = alpha phi(b) + beta phi(c)``,
``alpha, beta >= 0``, hence ``K[a, .] = alpha K[b, .] + beta K[c, .]``.  Then the linear system
``M(a; b, c)`` in ``(k_b, P_b, k_c, P_c, P_a)``: the rows of query b on ``(k_b, P_b)``, of c on
``(k_c, P_c)``, of a on ``(k_b + k_c, P_a)``, ``k_b, k_c >= 0``, has a solution (scale the three
rows; if alpha or beta is 0, add a small multiple of the other row: the rows are strict).
A Motzkin certificate of ``M(a; b, c)`` therefore proves: in every rank-two head, the angle
of ``phi(a)`` lies strictly outside the closed interval spanned by those of ``phi(b), phi(c)``.

Betweenness.  Any linear order of the queries refining the order of their angles then puts
no excluded a between its b and c.  If no linear order of the listed queries avoids every
excluded betweenness, no head of feature rank <= 2 solves the task (rank one is rank two
with a zero feature).  The checker rebuilds every row from the tokens, checks each
combination exactly, and runs the search over linear orders itself.

The rows see tokens only through inner products: tokens padded with zeros keep them, so
a certificate at m holds at every m' >= m (restrict a head at m' to the padded tokens).
"""

from __future__ import annotations

import math
from fractions import Fraction

from solvers.trusted.core import integer, kind, listof, require, token
from solvers.trusted.motzkin import entry as _entry, min_ip as _target, motzkin_refutes as _motzkin_refutes
from solvers.trusted.motzkin import multiplier as _multiplier, ratio_row as _ratio_row

HALF = Fraction(1, 2)
TARGET = "min-ip"

MAX_QUERIES = 9  # the search over linear orders is at most 9!/2 insertions deep


def _n(value) -> int:
    return len(value) if isinstance(value, list) else 0


def _positions(row) -> int:
    """The sequence positions a row asks for (its context and the query); 1 for a malformed row."""
    return _n(row[3]) + 1 if isinstance(row, list) and len(row) == 4 else 1


def _work_betweenness(data) -> int:
    m = data.get("m") if type(data.get("m")) is int else 1
    exclusions = data.get("exclusions") if isinstance(data.get("exclusions"), list) else []
    positions = sum(sum(_positions(r) for r in e["rows"]) if isinstance(e.get("rows"), list) else 0
                    for e in exclusions if isinstance(e, dict))
    positions += sum(_n(e.get("nonnegative")) for e in exclusions if isinstance(e, dict))
    q = min(_n(data.get("queries")), MAX_QUERIES)
    # the insertion tree has fewer than e * q! nodes, each testing O(q^2) triples by set lookup
    search = 3 * math.factorial(q) * q * q
    # one unit is about one set lookup of that search; a sequence position costs a token read
    # (m) and a handful of Fraction products and sums, measured at 40-50 us, i.e. about 40 (m + 16)
    # units — every position counts, so a certificate of many long rows is refused before any work
    return positions * 40 * (min(max(m, 1), 64) + 16) + search


def _exclusion(entry, m: int, queries: set):
    """Check one certificate of ``M(a; b, c)``; return ``(a, frozenset({b, c}), length)``."""
    require(isinstance(entry, dict) and set(entry) == {"middle", "ends", "rows", "nonnegative"},
            "an exclusion reads exactly middle, ends, rows, nonnegative")
    a = token(entry["middle"], m)
    b, c = (token(t, m) for t in _entry(entry["ends"], 2, "ends is a pair of tokens"))
    require(len({a, b, c}) == 3 and {a, b, c} <= queries, "middle and ends must be three distinct listed queries")
    names = {entry["middle"]: a, entry["ends"][0]: b, entry["ends"][1]: c}
    rows, ys, lengths = [], [], set()
    for row in listof(entry["rows"], "rows", 1):
        q_text, side, y, context = _entry(row, 4, "row is [query, side, multiplier, context tokens]")
        require(isinstance(q_text, str) and q_text in names, f"row query {str(q_text)[:40]!r} is not the middle or an end")
        q = names[q_text]
        seq = [token(t, m) for t in listof(context, "context", 1, 7)] + [q]
        lengths.add(len(seq))
        # the kernel slot of token x in query q's row: k_b(x), k_c(x), or k_b(x) + k_c(x) for the middle
        first = b if q == a else q
        terms = [(("k", first, x), ("P", q, x)) for x in seq]
        coefs, sense, rhs = _ratio_row(side, terms, _target(seq, q))
        if q == a:  # add the second end's kernel slot with the same coefficients as the first
            for (_, _, x), v in [(key, v) for key, v in coefs.items() if key[0] == "k"]:
                coefs[("k", c, x)] = v
        rows.append((coefs, sense, rhs))
        ys.append(_multiplier(y))
    require(len(lengths) == 1, f"all sequences must have one length, got {sorted(lengths)}")
    for e_text, x_text, y in (_entry(e, 3, "nonnegative row is [end, token, multiplier]") for e in listof(entry["nonnegative"], "nonnegative")):
        require(e_text in entry["ends"] and e_text != entry["middle"], f"nonnegative rows name an end, got {str(e_text)[:40]!r}")
        rows.append(({("k", names[e_text], token(x_text, m)): 1}, ">=", 0))
        ys.append(_multiplier(y))
    _motzkin_refutes(rows, ys, f"middle {entry['middle']} between {entry['ends'][0]} and {entry['ends'][1]}")
    return a, frozenset((b, c)), lengths.pop()


def order_avoiding(queries: list, excluded: set):
    """A linear order of ``queries`` in which no excluded ``(a, {b, c})`` has a between b and c,
    or None.  Orders are built by inserting the queries one by one; the relative order of the
    placed ones never changes afterwards, so a partial order with a violated triple is final.
    Reversal maps avoiding orders to avoiding orders: the first query precedes the second."""
    if len(queries) < 3:
        return list(queries)

    def bad(order: list, pos: int) -> bool:
        e = order[pos]
        for i, x in enumerate(order):
            for j in range(i + 1, len(order)):
                y = order[j]
                if e in (x, y):
                    continue
                middle, ends = (x, (e, y)) if pos < i else (y, (x, e)) if pos > j else (e, (x, y))
                if (middle, frozenset(ends)) in excluded:
                    return True
        return False

    def grow(order: list, k: int):
        if k == len(queries):
            return order
        for pos in range(len(order) + 1):
            if k == 1 and pos == 0:
                continue
            new = order[:pos] + [queries[k]] + order[pos:]
            if not bad(new, pos) and (found := grow(new, k + 1)) is not None:
                return found
        return None

    return grow([], 0)


@kind("rank-two-betweenness", "m", "queries", "exclusions", work=_work_betweenness)
def _rank_two_betweenness(data: dict):
    """Judgment ``unsolvable{model "kernel", rank 2, m [m, null], length n, min-ip, 1/2}``: no head of
    feature rank <= 2 has error < 1/2 on every sequence of exact length n, at any m' >= m.

    ``queries``: 3..9 distinct tokens; ``exclusions``: ``{middle a, ends [b, c], rows: [[query
    (a, b or c), side, multiplier, n-1 context tokens]], nonnegative: [[end, token,
    multiplier]]}``, each a Motzkin certificate of ``M(a; b, c)`` (module docstring); then no
    linear order of the queries avoids every excluded betweenness (searched here).
    """
    m = integer(data["m"], "m", 1, 64)
    texts = listof(data["queries"], "queries", 3, MAX_QUERIES)
    queries = [token(t, m) for t in texts]
    require(len(set(queries)) == len(queries), "queries must be distinct")
    excluded, lengths = set(), set()
    for entry in listof(data["exclusions"], "exclusions", 1):
        a, ends, n = _exclusion(entry, m, set(queries))
        excluded.add((a, ends))
        lengths.add(n)
    require(len(lengths) == 1, f"all exclusions must be at one length, got {sorted(lengths)}")
    n = lengths.pop()
    found = order_avoiding(queries, excluded)
    require(found is None, "a linear order of the queries avoids every excluded betweenness: "
            + " ".join(t for t in ("".join("1" if x >> i & 1 else "0" for i in range(m)) for x in (found or []))))
    judgment = {"judgment": "unsolvable", "model": "kernel", "rank": 2, "m": [m, None], "length": n,
                "target": TARGET, "tolerance": HALF}
    return judgment, (f"no head of feature rank <= 2 solves exact length {n} at any m >= {m}: {len(excluded)} "
                      f"certified exclusions leave no linear order of {len(queries)} queries")
