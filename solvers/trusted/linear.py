"""Family: linear certificates (Motzkin / Gordan combinations) that no head solves a task.

Each kind builds its rows itself from labelled data (tokens as bit strings, sides
"lo"/"hi", sequences with the query q last) and checks one exact combination
(:func:`solvers.trusted.core.motzkin_refutes`).  Min-IP: ``T(X) = min_j <x_j, q>``.  Linearisation: a head
outputs ``y = sum_j k_j U_j / sum_j k_j`` (weights ``k_j >= 0``, positive sum); with
``P_j = k_j U_j``, ``|y - T| < 1/2`` is the pair of strict homogeneous rows
``lo: sum P - (T - 1/2) sum k > 0``, ``hi: (T + 1/2) sum k - sum P > 0`` (:func:`_ratio_row`),
so every head solving the sequences solves the rows, and a Motzkin combination refutes both.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations, product

from solvers.trusted.core import digest, flag, integer, kind, listof, rational, require, token
from solvers.trusted.motzkin import entry as _entry, min_ip as _target, motzkin_refutes as _motzkin_refutes
from solvers.trusted.motzkin import multiplier as _multiplier, ratio_row as _ratio_row

HALF = Fraction(1, 2)
TARGET = "min-ip"


def _n(value) -> int:  # work estimates read sizes only and survive hostile data
    return len(value) if isinstance(value, list) else 0


def _int_or(value, default: int, high: int) -> int:
    return min(max(value, 1), high) if type(value) is int else default


def _unsolvable(model: str, low: int, n: int) -> dict:
    return {"judgment": "unsolvable", "model": model, "rank": 1, "m": [low, None], "length": n,
            "target": TARGET, "tolerance": HALF}


# ---------------------------------------------- a fixed kernel row (readout only)


def _work_readout(data) -> int:
    sequences = data["sequences"] if isinstance(data.get("sequences"), list) else []
    return sum(_n(s) for s in sequences) * (_int_or(data.get("m"), 1, 64) + 4)


@kind("readout-infeasible", "m", "query", "weights", "sequences", "multipliers", "tolerance", work=lambda d: 3 * _work_readout(d))
def _readout_infeasible(data: dict):
    """Judgment ``no-readout{m, row, lengths, target, tolerance}``: for ONE fixed kernel row
    ``row = digest({"query": q, "weights": {x: K[q,x]}})`` (bit strings, K > 0), no readout
    values ``U[q,x]`` give error < tolerance on every listed sequence (query last), all of
    which have a length in ``lengths`` (sorted, distinct).  Rows
    ``sum_j K_j U_j > (T - tol) sum_j K_j`` and ``-sum_j K_j U_j > -(T + tol) sum_j K_j``,
    multipliers ``[y_lo, y_hi]`` per sequence.  ``tolerance > 0`` is required: at
    ``tol <= 0`` the two rows of one sequence contradict each other by themselves."""
    m = integer(data["m"], "m", 1, 64)
    q = token(data["query"], m)
    require(isinstance(data["weights"], dict) and data["weights"], "weights must be a nonempty object {token: weight}")
    weights = {token(x, m): rational(k, "weight") for x, k in data["weights"].items()}
    require(all(k > 0 for k in weights.values()), "weights must be positive")
    tolerance = rational(data["tolerance"], "tolerance")
    require(tolerance > 0, f"tolerance must be > 0 (at {tolerance} a sequence contradicts itself), got {tolerance}")
    sequences = listof(data["sequences"], "sequences", 1)
    multipliers = listof(data["multipliers"], "multipliers", len(sequences), len(sequences))
    rows, ys = [], []
    for seq_text, pair in zip(sequences, multipliers):
        seq = [token(x, m) for x in listof(seq_text, "a sequence", 1)]
        require(seq[-1] == q, f"sequence {str(seq_text)[:80]} must end with the query {data['query']}")
        require(all(x in weights for x in seq), f"sequence {str(seq_text)[:80]} uses a token without a weight")
        target, total = _target(seq, q), sum(weights[x] for x in seq)
        coefs: dict = {}
        for x in seq:
            coefs[x] = coefs.get(x, 0) + weights[x]
        rows.append((coefs, ">", (target - tolerance) * total))
        rows.append(({x: -c for x, c in coefs.items()}, ">", -(target + tolerance) * total))
        ys += [_multiplier(y) for y in _entry(pair, 2, "multiplier is a pair [y_lo, y_hi]")]
    _motzkin_refutes(rows, ys, f"readout rows of query {data['query']}")
    row = digest({"query": data["query"], "weights": {x: rational(k) for x, k in data["weights"].items()}})
    lengths = sorted({len(s) for s in sequences})
    judgment = {"judgment": "no-readout", "m": m, "row": row, "lengths": lengths, "target": TARGET, "tolerance": tolerance}
    return judgment, f"no readout has error < {tolerance} on {len(sequences)} sequences for the fixed kernel row of q={data['query']} (m={m}, row {row[:19]})"


# ------------------------------------------------------- rank one, exact length n


def _work_rank_one(data) -> int:
    rows = data["rows"] if isinstance(data.get("rows"), list) else []
    size = sum(_n(r[-1]) + 1 for r in rows if isinstance(r, list) and r)
    return (size + _n(data.get("nonnegative"))) * (_int_or(data.get("m"), 1, 64) + 8)


@kind("rank-one-infeasible", "m", "positions", "rows", "nonnegative", work=lambda d: 5 * _work_rank_one(d))
def _rank_one_infeasible(data: dict):
    """Judgment ``unsolvable{model, rank 1, m [m, null], length n, min-ip, 1/2}``: no head of
    feature rank one has error < 1/2 on every sequence of exact length n, at any m' >= m.

    ``kappa_j(q, x) = phi(q) psi_j(x) >= 0``, ``phi(q) > 0`` cancels; unknowns ``psi_j(x)`` and
    ``P_j[q, x] = psi_j(x) U_j[q, x]``.  ``positions`` false: one ``psi``, ``U`` (model
    "kernel", j = 0); true: per position j (model "kernel-positional", query last, only the
    final position scored).  ``rows`` = ``[side, multiplier, tokens]`` (one length n);
    ``nonnegative`` = ``[position, token, multiplier]`` for ``psi_position(token) >= 0``.
    The rows see the tokens only through inner products: zero padding gives every m' >= m.
    """
    m = integer(data["m"], "m", 1, 64)
    positions = flag(data["positions"], "positions")
    rows, ys, lengths = [], [], set()
    for entry in listof(data["rows"], "rows", 1):
        side, y, seq = _entry(entry, 3, "row is [side, multiplier, sequence]")
        seq = [token(t, m) for t in listof(seq, "a sequence", 1, 64)]
        lengths.add(len(seq))
        q = seq[-1]
        terms = [(("psi", j if positions else 0, x), ("P", j if positions else 0, q, x)) for j, x in enumerate(seq, 1)]
        rows.append(_ratio_row(side, terms, _target(seq, q)))
        ys.append(_multiplier(y))
    return _rank_one_close(rows, ys, lengths, data["nonnegative"], positions, m, lambda x: token(x, m))


def _rank_one_close(rows, ys, lengths, nonnegative, positions: bool, low: int, key):
    """Add the rows ``psi_j(key) >= 0``, check the combination, return (judgment, summary)."""
    require(len(lengths) == 1, f"all sequences must have one length, got {sorted(lengths)}")
    n = lengths.pop()
    for entry in listof(nonnegative, "nonnegative"):
        j, x, y = _entry(entry, 3, "nonnegative row is [position, token or v, multiplier]")
        j = integer(j, "position", 1 if positions else 0, n if positions else 0)
        rows.append(({("psi", j, key(x)): 1}, ">=", Fraction(0)))
        ys.append(_multiplier(y))
    _motzkin_refutes(rows, ys, "rank-one certificate")
    model = "kernel-positional" if positions else "kernel"
    return _unsolvable(model, low, n), f"no rank-one head ({model}) solves exact length {n} at any m >= {low}: Motzkin combination of {sum(1 for y in ys if y)} rows"


def _work_reduced(data) -> int:
    rows = data["rows"] if isinstance(data.get("rows"), list) else []
    return 8 * (sum(_n(r[-1]) + 1 for r in rows if isinstance(r, list) and r) + _n(data.get("nonnegative")))


@kind("rank-one-reduced-infeasible", "m", "positions", "rows", "nonnegative", work=lambda d: 4 * _work_reduced(d))
def _rank_one_reduced_infeasible(data: dict):
    """Judgment ``unsolvable{model, rank 1, m [need, null], length n, min-ip, 1/2}``, need =
    the least m realising every row (<= the given m); as ``rank-one-infeasible``, reduced.

    The reduction (why rows over types refute heads over tokens).  Fix m' >= need and
    suppose a head solves every sequence of exact length n over ``{0,1}^m'``; its
    linearisation ``(psi_j, P_j)`` (see the module docstring) satisfies every full row.
    (1) Invariance: a coordinate permutation sigma maps the full row of ``(q, x_1..x_n)``
    to that of ``(sigma q, sigma x_1..)`` with the same target (inner products are
    preserved), so ``(psi_j o sigma, P_j o sigma)`` satisfies every full row too.
    (2) Convexity: the rows are open half-spaces through 0 and ``psi >= 0`` a closed cone,
    so the average over all ``m'!`` permutations satisfies every row.  (3) The average is
    invariant: ``psi_j(x)`` depends on ``|x|`` only and ``P_j[q, x]`` on
    ``(|q|, |x|, <q,x>)`` only; write them ``psi_{j,v}``, ``P_{j,w,v,s}``.  (4) Then the
    full row of a sequence equals the reduced row of its types: ``w = |q|`` and
    ``(v, s) = (|x_j|, <x_j, q>)``, target ``min_j s_j`` (with the query's ``s = w``).  A
    type is realised at m' by some token iff ``s <= min(w, v)`` and ``w + v - s <= m'``
    (ones shared with q, ones of q only, ones of x only), which the checker tests.  So
    the reduced rows listed are rows of an invariant solution, and a Motzkin combination
    of them contradicts it: no head at any m' >= need.  (One head only: for several heads
    the problem is not convex and (2) fails.)

    ``rows`` = ``[side, multiplier, w, [[v, s], ...]]`` (the query, type ``(w, w)``, is
    appended); ``nonnegative`` = ``[position, v, multiplier]``.  Work: linear in the data —
    m is only compared with, never enumerated, so a certificate at m = 64 (or 10^6) costs
    what its rows cost (polynomial in m: at most one row per type tuple).
    """
    m = integer(data["m"], "m", 1, 10**6)
    positions = flag(data["positions"], "positions")
    rows, ys, lengths, need = [], [], set(), 1
    for entry in listof(data["rows"], "rows", 1):
        side, y, w, context = _entry(entry, 4, "row is [side, multiplier, w, context types]")
        w = integer(w, "w", 0, m)
        types = []
        for pair in listof(context, "context types", 0, 63):
            v, s = (integer(t, "v, s", 0, m) for t in _entry(pair, 2, "context type is [v, s]"))
            require(s <= min(w, v) and w + v - s <= m, f"type (v={v}, s={s}) is not realisable with |q|={w} at m={m}")
            need = max(need, w + v - s)
            types.append((v, s))
        types.append((w, w))
        need = max(need, w)
        lengths.add(len(types))
        terms = [(("psi", j if positions else 0, v), ("P", j if positions else 0, w, v, s)) for j, (v, s) in enumerate(types, 1)]
        rows.append(_ratio_row(side, terms, min(s for _, s in types)))
        ys.append(_multiplier(y))
    return _rank_one_close(rows, ys, lengths, data["nonnegative"], positions, need, lambda v: integer(v, "v", 0, m))


# ------------------------------------------------------------ one kernel row

FAMILIES = {"free": 0, "affine-complement": 1, "complement-2": 2, "complement-3": 3}
CASE_FIELDS = {"m", "query", "tokens", "rows", "nonnegative", "order"}


def _features(m: int, degree: int) -> int:
    return sum(math.comb(m, k) for k in range(degree + 1))


def _work_kernel_row(data) -> int:
    degree = FAMILIES.get(data.get("family"), 0) if isinstance(data.get("family"), str) else 0
    total = 0
    for case in data["cases"] if isinstance(data.get("cases"), list) else []:
        if isinstance(case, dict):
            m = _int_or(case.get("m"), 1, 64)
            rows = case.get("rows") if isinstance(case.get("rows"), list) else []
            size = sum(_n(r[-1]) + 1 for r in rows if isinstance(r, list) and r) + _n(case.get("order")) + 1
            total += size * (_features(m, degree) + 1) * (degree + 1) + _n(case.get("nonnegative")) + _n(case.get("tokens")) * m
    return total


def _kernel_row_case(case, family: str, n: int):
    """Check one case; return its judgment entry (see ``kernel-row-infeasible``)."""
    require(isinstance(case, dict) and set(case) == CASE_FIELDS, f"a case reads exactly {sorted(CASE_FIELDS)}")
    m = integer(case["m"], "m", 1, 64)
    q, degree = token(case["query"], m), FAMILIES[family]
    subsets = [S for k in range(degree + 1) for S in combinations(range(m), k)] if degree else []
    if case["tokens"] == "all":
        require(degree > 0, "the free family lists its tokens (not 'all')")
        alphabet = None
    else:
        alphabet = {token(x, m) for x in listof(case["tokens"], "tokens", 1)}
        require(len(alphabet) == len(case["tokens"]) and q not in alphabet, "tokens must be distinct and other than the query")
        inner = sorted((x & q).bit_count() for x in alphabet)
        require(degree or len(set(inner)) == len(inner), "free family: the tokens' inner products with the query must differ")

    def entry(x: int) -> dict:  # K[q, x] as a combination of the row's unknowns
        if not degree:
            return {("K", x): Fraction(1)}
        return {("phi", f): Fraction(1) for f, S in enumerate(subsets) if not any(x >> i & 1 for i in S)}

    def known(text) -> int:
        x = token(text, m)
        require(alphabet is None or x == q or x in alphabet, f"token {text} is outside the case's tokens")
        return x

    rows, ys = [], []
    for row in listof(case["rows"], "rows", 1):
        side, y, context = _entry(row, 3, "row is [side, multiplier, context tokens]")
        seq = [known(t) for t in listof(context, "context", n - 1, n - 1)] + [q]
        coefs, sense, rhs = _ratio_row(side, [(("D", j), ("P", x)) for j, x in enumerate(seq)], _target(seq, q))
        expanded: dict = {}
        for key, c in coefs.items():  # the weight slot of position j is K[q, x_j]
            for k, e in (entry(seq[key[1]]).items() if key[0] == "D" else [(key, 1)]):
                expanded[k] = expanded.get(k, 0) + c * e
        rows.append((expanded, sense, rhs))
        ys.append(_multiplier(y))
    for key, y in (_entry(e, 2, "nonnegative row is [unknown, multiplier]") for e in listof(case["nonnegative"], "nonnegative")):
        unknown = ("K", known(key)) if not degree else ("phi", integer(key, "feature", 0, len(subsets) - 1))
        rows.append(({unknown: Fraction(1)}, ">=", Fraction(0)))
        ys.append(_multiplier(y))
    order = []
    for z, y in (_entry(e, 2, "order row is [token, multiplier]") for e in listof(case["order"], "order")):
        z = known(z)  # the negated conclusion K[q, q] >= K[q, z]
        require(z != q, "an order token differs from the query")
        diff = dict(entry(q))
        for k, e in entry(z).items():
            diff[k] = diff.get(k, 0) - e
        rows.append((diff, ">=", Fraction(0)))
        ys.append(_multiplier(y))
        order.append(z)
    require(len(set(order)) == len(order), "order tokens must be distinct")
    _motzkin_refutes(rows, ys, f"kernel row q={case['query']}")
    if not degree:
        return {"weight": q.bit_count(), "inner": inner, "order": sorted((z & q).bit_count() for z in order)}
    bits = lambda x: "".join("1" if x >> i & 1 else "0" for i in range(m))  # noqa: E731
    return {"m": m, "query": case["query"], "tokens": "all" if alphabet is None else sorted(bits(x) for x in alphabet),
            "order": sorted(bits(z) for z in order)}


@kind("kernel-row-infeasible", "family", "length", "cases", work=lambda d: 10 * _work_kernel_row(d))
def _kernel_row_infeasible(data: dict):
    """Judgment ``kernel-row-infeasible{family, length n, cases}`` (every field equal): for each
    case, no kernel row ``K[q, .]`` of the family with any readout row ``U[q, .]`` has error
    < 1/2 on every sequence of exact length n over the case's tokens and q (query last)
    while ``K[q, q] >= K[q, z]`` for every z in ``order`` — so with one order token z, every
    row solving them has ``K[q, z] > K[q, q]``; with none, no row solves them.

    Rows linear in ``(K[q, .], P = K U)``.  Families: ``"free"`` (each ``K[q, x] >= 0``),
    ``"affine-complement"`` (``a + sum_i b_i (1 - x_i)``, ``a, b >= 0``), ``"complement-d"``
    (d = 2, 3: ``sum_{|S| <= d} c_S prod_{i in S} (1 - x_i)``, ``c >= 0``, feature f = the f-th
    S by size, then lexicographic).  Data case ``{m, query, tokens ("all" or the others),
    rows: [[side, multiplier, n-1 context tokens]], nonnegative: [[token or feature,
    multiplier]], order: [[z, multiplier]]}``.  Judgment entry: free family ``{weight: |q|,
    inner: sorted <x,q> of the tokens (distinct), order: sorted <z,q>}`` — free rows see the
    tokens only through these, so it holds at EVERY m for every such q and tokens; other
    families ``{m, query, tokens: "all" or sorted bit strings, order: sorted bit strings}``.
    """
    family = data["family"]
    require(isinstance(family, str) and family in FAMILIES, f"unknown family {str(family)[:40]!r}; known: {sorted(FAMILIES)}")
    n = integer(data["length"], "length", 2, 8)
    cases = [_kernel_row_case(case, family, n) for case in listof(data["cases"], "cases", 1)]
    judgment = {"judgment": "kernel-row-infeasible", "family": family, "length": n, "cases": cases}
    return judgment, f"{len(cases)} kernel row case(s) refuted ({family} family, exact length {n}; first {cases[0]})"


# ------------------------------------------------- several rank-one heads (box)


def _box_row(H: int, query: int, corners, rest, sign: int):
    """``1/2 sum_s D(s) - sign sum_s (-1)^{|s|} T(s) D(s)`` in the monomials
    ``mu(u_1..u_H) = prod_h psi_h(u_h)`` of ``D(s) = prod_h sum_j psi_h(x_j(s))``; position i <= H+1
    holds ``corners[i][s_i]``, then ``rest``, then the query."""
    coefs: dict = {}
    for s in product((0, 1), repeat=H + 1):
        seq = [corners[i][b] for i, b in enumerate(s)] + list(rest) + [query]
        weight = HALF - sign * (-1) ** sum(s) * _target(seq, query)
        if weight:
            for choice in product(seq, repeat=H):  # one position per head: a monomial of D(s)
                coefs[choice] = coefs.get(choice, 0) + weight
    return coefs


def _work_box(data) -> int:
    H, n, m = (_int_or(data.get(k), 1, high) for k, high in (("heads", 4), ("length", 10), ("m", 64)))
    return _n(data.get("boxes")) * 2 ** (H + 1) * (n ** H + n * m)


@kind("box-refutation", "m", "heads", "length", "boxes", work=lambda d: 2 * _work_box(d))
def _box_refutation(data: dict):
    """Judgment ``unsolvable{model "kernel-heads-H", rank 1, m [m, null], length n, min-ip, 1/2}``:
    no H rank-one heads (any readouts, affine mixing) solve exact length n at any m' >= m.

    With ``D = D_1 ... D_H`` (the heads' denominators) ``y D`` and ``D`` are sums of products
    of at most H one-position terms, so their alternating sums over a box ``{a_i, b_i}`` on
    H+1 positions vanish; ``y = T + e``, ``|e| < 1/2``, ``D > 0`` give :func:`_box_row` ``> 0``
    for sign = +-1, linear in the monomials ``mu >= 0`` once ``prod_h phi_h(q) > 0`` is
    divided out.  ``boxes``: ``[multiplier, sign, query, [[a_i, b_i] x (H+1)], [n - H - 2
    rest tokens]]``; the combination must leave every monomial a coefficient <= 0 (closed
    by ``mu >= 0``).  Inner products only: zero padding gives every m' >= m.
    """
    m = integer(data["m"], "m", 1, 64)
    H = integer(data["heads"], "heads", 1, 4)
    n = integer(data["length"], "length", H + 2, H + 6)
    rows, ys = [], []
    for entry in listof(data["boxes"], "boxes", 1):
        y, sign, query, corners, rest = _entry(entry, 5, "box is [multiplier, sign, query, corners, rest]")
        require(type(sign) is int and sign in (1, -1), f"sign must be 1 or -1, got {str(sign)[:20]!r}")
        corners = [[token(t, m) for t in _entry(c, 2, "corner is a pair [a_i, b_i]")] for c in listof(corners, "corners", H + 1, H + 1)]
        rest = [token(t, m) for t in listof(rest, "rest", n - H - 2, n - H - 2)]
        rows.append((_box_row(H, token(query, m), corners, rest, sign), ">", Fraction(0)))
        ys.append(_multiplier(y))
    total: dict = {}
    for (coefs, _, _), y in zip(rows, ys):
        for key, c in coefs.items():
            total[key] = total.get(key, 0) + y * c
    positive = sorted(key for key, c in total.items() if c > 0)[:3]
    require(not positive, f"box-refutation: the combination leaves positive coefficients on the monomials {positive}")
    for key, c in total.items():  # each remaining coefficient is <= 0: cancel it with mu >= 0
        if c < 0:
            rows.append(({key: Fraction(1)}, ">=", Fraction(0)))
            ys.append(-c)
    _motzkin_refutes(rows, ys, "box-refutation")
    judgment = _unsolvable(f"kernel-heads-{H}", m, n)
    return judgment, f"no {H} rank-one head(s) with affine mixing solve exact length {n} at any m >= {m}: {sum(1 for y in ys[:len(data['boxes'])] if y)} box condition(s) combine to a contradiction"
