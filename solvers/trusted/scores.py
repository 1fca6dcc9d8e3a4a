"""Family: heads whose weight and readout depend on (|q|, <q,x>) only (score statistics), target Min-IP.

``T(X) = min_j <x_j, q>`` (q = the last token).  A score-statistic head is given by two tables
over ``(w, s)``, ``s <= w``: ``kappa(w, s) >= 0`` (``kappa(w, w) > 0``) and ``value(w, s)``, with
``w = |q|`` and ``s = <x, q>``; its output on X is
``y(X) = sum_j kappa(w, s_j) value(w, s_j) / sum_j kappa(w, s_j)``.  ``score-statistic`` walks
(w, multiset of context scores), which covers every sequence at every m' <= m at once;
``score-counterexample`` recomputes one sequence's error exactly.  Tolerance ``t >= 0`` means
"error < t" ("exactly 0" for t = 0); heads are named by the ``digest`` of their parsed tables.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import chain, combinations_with_replacement

from solvers.trusted.core import CertificateError, digest, integer, kind, listof, rational, require
from solvers.trusted.matrices import lcm_denominator
from solvers.trusted.minip import error_bound, read_lengths, read_tolerance

TARGET = "min-ip"


def _short(value) -> str:
    return repr(value[:40]) if isinstance(value, str) else type(value).__name__


def _score_table(raw, m: int, name: str):
    """A table over (w, s), s <= w <= m: a flat list over s or triangular rows [w][s].
    Returns the parsed table (shape kept, for the digest), its entries and its lookup."""
    listof(raw, name, m + 1, m + 1)
    if not any(isinstance(v, list) for v in raw):
        flat = [rational(v, name) for v in raw]
        return flat, flat, (lambda w, s: flat[s])
    require(all(isinstance(row, list) and len(row) == w + 1 for w, row in enumerate(raw)), f"{name} row w must list w+1 entries")
    rows = [[rational(v, name) for v in row] for row in raw]
    return rows, [v for row in rows for v in row], (lambda w, s: rows[w][s])


def _score_head(data: dict, parsed: list | None = None):
    """kappa(w, s) >= 0 with kappa(w, w) > 0 and value(w, s); w = |q|, s = <x, q>.  Returns (m, kappa, value, head digest);
    ``parsed``, when given, receives the parsed tables (kappa, value)."""
    m = integer(data["m"], "m", 1, 100000)
    require(data["target"] == TARGET, f"unknown target {_short(data['target'])}")
    kappa_table, kappa_all, kappa = _score_table(data["kappa"], m, "kappa")
    value_table, _, value = _score_table(data["value"], m, "value")
    require(all(v >= 0 for v in kappa_all), "kappa must be nonnegative")
    require(all(kappa(w, w) > 0 for w in range(m + 1)), "kappa(w, w) must be positive (the query's own weight)")
    if parsed is not None:
        parsed += [kappa_table, value_table]
    return m, kappa, value, digest({"kappa": kappa_table, "value": value_table})


def _table_work(raw, m: int) -> int:  # entries of a flat or triangular score table
    return (m + 1) if isinstance(raw, list) and raw and not isinstance(raw[0], list) else (m + 1) * (m + 2) // 2


def _score_work(data) -> int:
    m = integer(data["m"], "m", 1, 100000)
    lengths = read_lengths(data["lengths"], 8)
    # the rows of each w (m^2 / 2 entries, twice), then C(w+n-1, n-1) score multisets of n terms for each w and n;
    # with the gap form (read off the tables, a walk over their entries) only those with a score 0: C(w+n-2, n-2)
    tables = _table_work(data["kappa"], m) + (m + 1) ** 2
    walk = sum(n * math.comb(m + n, n) for n in lengths)
    if walk > tables:
        try:
            form = _gap_form(*(_score_table(data[key], m, key)[0] for key in ("kappa", "value")))
        except CertificateError:  # malformed tables: the kind itself rejects them, after this estimate
            form = None
        if form is not None:
            walk = sum(n * math.comb(m + n - 1, n - 1) for n in lengths)
    return tables + walk


def _gap_form(kappa_table: list, value_table: list) -> tuple[Fraction, Fraction, Fraction] | None:
    """``(r, alpha, c)`` when ``kappa(w, s) = a_w r^s`` (a_w > 0, r > 0) and
    ``value(w, s) = alpha s + (1 - alpha) w + c`` for every s <= w <= m, read off the parsed tables
    (a flat table is the same row for every w: its full row decides, each w reading a prefix);
    None otherwise (then no reduction applies)."""
    kappa_rows = [kappa_table] if not isinstance(kappa_table[0], list) else kappa_table
    flat = not isinstance(value_table[0], list)
    value_rows = [value_table] if flat else value_table
    longest = max(len(row) for row in value_rows)
    if longest < 2:
        return None
    alpha = value_rows[-1][1] - value_rows[-1][0]
    c = value_rows[0][0] if flat else value_rows[-1][-1] - (len(value_rows[-1]) - 1)  # value(w, w) = w + c
    if flat and alpha != 1:  # a flat value table does not depend on w: the form needs alpha = 1
        return None
    # value(w, s) = alpha s + (1 - alpha) w + c compared in integers: times L, the lcm of the denominators
    scale = math.lcm(alpha.denominator, c.denominator)
    a_int, c_int = int(alpha * scale), int(c * scale)
    for row in value_rows:
        base = (scale - a_int) * (len(row) - 1) + c_int  # (1 - alpha) w + c, times L (alpha = 1 when flat)
        wanted = [a_int * s + base for s in range(len(row))]  # value(w, s) times L
        if (row != wanted if scale == 1 else  # integer values: the Fractions compared with the ints at once
                any(v.numerator * scale != u * v.denominator for v, u in zip(row, wanted))):
            return None
    r = None
    for row in kappa_rows:
        if row[0] <= 0:
            return None
        if len(row) > 1:
            r = row[1] / row[0] if r is None else r
            if any(row[s + 1] != r * row[s] for s in range(len(row) - 1)):
                return None
    # r > 0: kappa(w, w) > 0 (checked) on a geometric row with kappa(w, 0) > 0; m >= 1 gives a row of two
    return r, alpha, c


@kind("score-statistic", "m", "lengths", "kappa", "value", "target", "tolerance", work=lambda d: 4 * _score_work(d))
def _score_statistic(data: dict):
    """A head whose weight and readout depend on (|q|, <q,x>) only solves every sequence, every m' <= m.

    y(X) and T(X) depend on X only through w = |q| <= m' and the multiset of
    context scores <x_j, q>, each ranging over all of [0, w] independently
    (x = any s-subset of q's ones): enumerating w <= m and those multisets
    covers every sequence of length n over {0,1}^m' for every m' <= m.

    **Reduction to the gaps.**  Suppose (checked first, exactly, on the
    tables: :func:`_gap_form`) that ``kappa(w, s) = a_w r^s`` with
    ``a_w > 0`` and one ``r = P/Q > 0``, and
    ``value(w, s) = alpha s + (1 - alpha) w + c`` with constants alpha, c,
    for all s <= w <= m.  Write the scores of X as ``s_1..s_{n-1}``
    (context) and ``s_n = w`` (the query's own), ``T = min_j s_j``,
    ``d_j = s_j - T >= 0`` and ``D = w - T``.  Dividing the numerator and the
    denominator of y by ``a_w r^T > 0``, and as
    ``alpha s_j + (1 - alpha) w + c - T = alpha d_j + (1 - alpha) D + c``,

        y - T = sum_j a_w r^{s_j} (value(w, s_j) - T) / sum_j a_w r^{s_j}
              = sum_j r^{d_j} (alpha d_j + (1 - alpha) D + c) / sum_j r^{d_j},

    a function of the gaps ``d_j`` and D alone.  For every point ``(w, S)``
    of the enumeration (``T = min S`` when n >= 2, as every s <= w; ``T = w``
    when n = 1), the point ``(w - T, S - T)`` has ``w - T <= m``, scores in
    ``[0, w - T]`` and the same gaps, hence the same error; and it has
    minimum score 0.  So every error of the full enumeration is the error
    of a point with ``T = 0`` — the points whose smallest context score is 0
    (n >= 2), or w = 0 (n = 1) — and enumerating those alone checks the same
    inequality on every sequence.  At such a point the weights are taken as
    ``P^s Q^(w-s) = (Q^w / a_w) kappa(w, s)``, a positive scale per w, which
    changes no error, and the values times the lcm of the denominators of
    alpha and c: integers, so each point costs a few integer operations.
    Without the form, every point is walked with the table rows scaled to
    integers.
    Judgment: ``solves{model "score-statistic", head digest({"kappa","value"}), rank "any", m [1, m]}``.
    """
    tables = []
    m, kappa, value, head = _score_head(data, tables)
    lengths, tolerance = read_lengths(data["lengths"], 8), read_tolerance(data["tolerance"])
    tol_num, tol_den = tolerance.numerator, tolerance.denominator
    form = _gap_form(*tables)
    if form is not None:
        (p, q), alpha, c = (form[0].numerator, form[0].denominator), form[1], form[2]
        scale_u = math.lcm(alpha.denominator, c.denominator)
        a_int, c_int = int(alpha * scale_u), int(c * scale_u)
        powers_p, powers_q = [1], [1]
        for _ in range(m):
            powers_p.append(powers_p[-1] * p)
            powers_q.append(powers_q[-1] * q)
    count = 0
    for w in range(m + 1):
        if form is not None:
            K = [powers_p[s] * powers_q[w - s] for s in range(w + 1)]
            U = [a_int * s + (scale_u - a_int) * w + c_int for s in range(w + 1)]
            # minimum score 0: a context score 0 first (n >= 2), or w = 0 (n = 1)
            walks = [((0,) + rest for rest in combinations_with_replacement(range(w + 1), n - 2)) if n >= 2
                     else iter([()] if w == 0 else []) for n in lengths]
        else:
            k_row, u_row = [kappa(w, s) for s in range(w + 1)], [value(w, s) for s in range(w + 1)]
            scale_k, scale_u = lcm_denominator(k_row), lcm_denominator(u_row)
            K, U = [int(k * scale_k) for k in k_row], [int(u * scale_u) for u in u_row]
            walks = [combinations_with_replacement(range(w + 1), n - 1) for n in lengths]
        KU = [k * u for k, u in zip(K, U)]
        for scores in chain.from_iterable(walks):
            target = scores[0] if scores else w
            total = K[w] + sum(map(K.__getitem__, scores))
            # sum_j K(s_j) (U(s_j) - scale_u T) over the context and the query's own score w
            deviation = KU[w] + sum(map(KU.__getitem__, scores)) - scale_u * target * total
            # |deviation / (scale_u * total)| < tolerance, or == 0 when the tolerance is 0, in integers
            if not (deviation == 0 if tol_num == 0 else abs(deviation) * tol_den < tol_num * scale_u * total):
                raise CertificateError(f"length {len(scores) + 1}, |q|={w}, context scores {list(scores)}: error "
                                       f"{Fraction(abs(deviation), scale_u * total)} is not {error_bound(tolerance)[6:]}")
            count += 1
    how = "statistic points with minimum score 0 (the error depends only on the gaps above it)" if form else "statistic points"
    judgment = {"judgment": "solves", "model": "score-statistic", "head": head, "rank": "any", "alphabet": "all",
                "m": [1, m], "lengths": lengths, "target": TARGET, "tolerance": tolerance}
    return (judgment,
            f"score-statistic head solves lengths {lengths} for every m' <= {m}: {count} {how}, {error_bound(tolerance)}")


def _counterexample_work(data) -> int:
    m = integer(data["m"], "m", 1, 100000)
    return _table_work(data["kappa"], m) + _table_work(data["value"], m) + 64 * (m + 1)


@kind("score-counterexample", "m", "sequence", "kappa", "value", "target", "tolerance", work=_counterexample_work)
def _score_counterexample(data: dict):
    """One sequence over {0,1}^m (tokens as integers, query last) on which a score-statistic
    head errs by at least the tolerance (> 0), recomputed exactly.
    Judgment: ``fails{model "score-statistic", head digest({"kappa","value"}), m, length}``.
    """
    m, kappa, value, head = _score_head(data)
    tolerance = read_tolerance(data["tolerance"], positive=True)
    seq = [integer(x, "token", 0, (1 << m) - 1) for x in listof(data["sequence"], "sequence", 1, 64)]
    q = seq[-1]
    w = q.bit_count()
    scores = [(x & q).bit_count() for x in seq]
    error = abs(sum((kappa(w, s) * (value(w, s) - min(scores)) for s in scores), Fraction(0)) / sum(kappa(w, s) for s in scores))
    require(error >= tolerance, f"error {error} on {seq} is below the tolerance {tolerance}: not a counterexample")
    return ({"judgment": "fails", "model": "score-statistic", "head": head, "m": m, "length": len(seq),
             "target": TARGET, "tolerance": tolerance},
            f"sequence {seq} (m={m}) has error {error} >= {tolerance}")
