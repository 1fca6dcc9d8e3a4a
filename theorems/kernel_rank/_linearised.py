"""The linearised rank-one problem of paper K, and its kernel-row relatives, as exact LPs.

Rank one at exact length n.  A head ``kappa(q, x) = phi(q) psi(x)`` (``phi, psi >= 0``,
``kappa(q, q) > 0``) with readout table ``U`` outputs
``y(X) = sum_j psi(x_j) U[q, x_j] / sum_j psi(x_j)`` on ``X = (x_1, ..., x_n)``, query
``q = x_n`` (``phi(q)`` cancels).  Substituting ``P[q, x] = psi(x) U[q, x]`` and
multiplying by the positive denominator, "error < 1/2 on X" is the pair of rows

    lo:  sum_j P[q, x_j] - (T(X) - 1/2) sum_j psi(x_j) > 0,
    hi:  (T(X) + 1/2) sum_j psi(x_j) - sum_j P[q, x_j] > 0,

linear, homogeneous and strict in ``(psi, P)``, with ``psi >= 0`` (the LP holds them times
2, with integer coefficients, and searches with ``psi > 0``, which is equivalent).  Every head gives a
solution; conversely a solution gives a head: the rows are strict, so raising every
``psi(x)`` by a small ``eps > 0`` (P fixed) keeps them, and then ``U = P / psi``.  Without
positions the rows depend on the context only through its multiset, so one row pair per
(query, context multiset).  With positions (``psi_j``, ``U_j`` per position j, the query
last and only the final position scored) the unknowns carry the position and the rows
range over ordered sequences.

Orbit-type reduction.  The single-head problem is convex (open half-spaces and
``psi >= 0``) and the coordinate permutations of ``{0,1}^m`` permute its rows, so they map
the solution set to itself; averaging a solution over the group gives a solution that is
invariant: ``psi`` depends on ``|x|`` only and ``P`` on ``(|q|, |x|, <q,x>)`` only.  So the
problem is feasible iff its reduced form (unknowns ``psi_v``, ``P_{w,v,s}``; one row pair
per query weight w and multiset, or tuple with positions, of context types ``(v, s)``) is
feasible — polynomial instead of exponential in m.  This is valid for ONE head, where the
problem is convex; for a joint search over several heads the problem is not convex, and
averaging is a restriction, not without loss of generality.

Kernel rows.  For a fixed query q, the row ``K[q, .]`` and ``U[q, .]`` solve the sequences
with query q iff the same rows hold with ``psi`` replaced by ``K[q, .]``: linear in
``(K[q, .], P)`` when the row is free (``K[q,x] >= 0`` each) or a nonnegative combination
of fixed features (the family ``a(q) + sum_i b_i(q) (1 - x_i)``).

Everything is decided by :func:`solvers.lp.decide`: an exact point, or an exact Motzkin
certificate keyed by row index, which :func:`certificate_rows` turns into the labelled
data the trusted checker reads (it rebuilds the rows itself).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations_with_replacement, product

from solvers import lp
from theorems import attention as att

HALF = Fraction(1, 2)


@dataclass
class Problem:
    """A linear system with its unknowns and rows named.

    ``labels[i]`` names row i: ``("seq", side, sequence)`` (tokens or types, query last),
    ``("nonneg", position, key)`` or ``("order", z)``.
    """

    system: lp.LinearSystem
    index: dict = field(default_factory=dict)  # unknown key -> column
    labels: list = field(default_factory=list)
    tolerance: Fraction = HALF  # each sequence's rows say error < tolerance

    def decide(self, budget: float | None = None):
        return lp.decide(self.system, budget)

    def value(self, point, key) -> Fraction:
        return point[self.index[key]] if key in self.index else Fraction(0)


def _builder(keys) -> Problem:
    keys = list(dict.fromkeys(keys))
    return Problem(lp.LinearSystem(len(keys)), {k: i for i, k in enumerate(keys)}, [])


def _add_sequence(problem: Problem, terms, target: int, label) -> None:
    """Both rows of one sequence, ``T - t < P/D < T + t`` with ``t = a/b`` the problem's tolerance, times b
    (integer coefficients, as the LP is homogeneous: at t = 1/2, ``2P - (2T - 1) D > 0`` and
    ``(2T + 1) D - 2P > 0``); ``terms`` = per position ``(denominator key, numerator key)``."""
    a, b = problem.tolerance.numerator, problem.tolerance.denominator
    for side in ("lo", "hi"):
        sign = 1 if side == "lo" else -1
        level = b * target - sign * a  # lo: b P - (b T - a) D > 0; hi: (b T + a) D - b P > 0
        coefs: dict[int, int] = {}
        for d_key, p_key in terms:
            for key, c in ((p_key, sign * b), (d_key, -sign * level)):
                coefs[problem.index[key]] = coefs.get(problem.index[key], 0) + c
        problem.system.add(coefs, ">", 0)
        problem.labels.append(("seq", side, label))


def sequences(tokens, queries, n: int, positions: bool):
    """Sequences of exact length n, query last: context multisets, or tuples with positions."""
    contexts = product(tokens, repeat=n - 1) if positions else combinations_with_replacement(tokens, n - 1)
    contexts = list(contexts)
    for q in queries:
        for context in contexts:
            yield tuple(context) + (q,)


def rank_one(m: int, n: int, tokens=None, queries=None, positions: bool = False, poll=lambda: None,
             prefixes: bool = False, tolerance: Fraction = HALF) -> Problem:
    """The linearised rank-one problem at exact length n over the given tokens (default all): a head
    with error < ``tolerance`` (in (0, 1/2]) on every such sequence.

    Restricting the tokens keeps only some rows (and the unknowns they use): an
    infeasible restriction refutes the whole problem, which is how small certificates
    are found.  ``prefixes`` (with positions): every prefix of length k <= n is scored
    too, against its own minimum, with the same ``psi_j`` and ``U_j`` (the query of a
    prefix is its last token) — the stronger reading of a causal query.
    """
    tokens = list(range(1 << m)) if tokens is None else list(tokens)
    queries = tokens if queries is None else list(queries)
    pos = range(1, n + 1) if positions else [0]
    keys = [("psi", j, x) for j in pos for x in tokens]
    keys += [("P", j, q, x) for j in pos for q in queries for x in tokens]
    tolerance = Fraction(tolerance)
    if not 0 < tolerance <= HALF:
        raise ValueError(f"tolerance {tolerance} must lie in (0, 1/2]: above 1/2 an error bound does not solve Min-IP")
    problem = _builder(keys)
    problem.tolerance = tolerance
    lengths = range(1, n + 1) if prefixes and positions else [n]
    every = (seq for k in lengths for seq in sequences(tokens, queries, k, positions))
    for count, seq in enumerate(every):
        if count % 2048 == 0:
            poll()
        q = seq[-1]
        terms = [(("psi", j if positions else 0, x), ("P", j if positions else 0, q, x)) for j, x in enumerate(seq, 1)]
        _add_sequence(problem, terms, att.min_ip_target(seq), seq)
    for j in pos:
        for x in tokens:
            problem.system.add({problem.index[("psi", j, x)]: 1}, ">", 0)
            problem.labels.append(("nonneg", j, x))
    return problem


def realisable_types(m: int, w: int):
    """Context types ``(v, s) = (|x|, <x,q>)`` realisable with ``|q| = w`` in ``{0,1}^m``."""
    return [(v, s) for s in range(w + 1) for v in range(s, s + m - w + 1)]


def reduced_rank_one(m: int, n: int, positions: bool = False, poll=lambda: None) -> Problem:
    """The orbit-type reduced rank-one problem (module docstring): feasible iff the full one is."""
    pos = range(1, n + 1) if positions else [0]
    keys = [("psi", j, v) for j in pos for v in range(m + 1)]
    keys += [("P", j, w, v, s) for j in pos for w in range(m + 1) for v, s in realisable_types(m, w)]
    problem = _builder(keys)
    count = 0
    for w in range(m + 1):
        types = realisable_types(m, w)
        contexts = product(types, repeat=n - 1) if positions else combinations_with_replacement(types, n - 1)
        for context in contexts:
            count += 1
            if count % 2048 == 0:
                poll()
            full = tuple(context) + ((w, w),)
            terms = [(("psi", j if positions else 0, v), ("P", j if positions else 0, w, v, s)) for j, (v, s) in enumerate(full, 1)]
            _add_sequence(problem, terms, min(s for _, s in full), (w, tuple(context)))
    for j in pos:
        for v in range(m + 1):
            problem.system.add({problem.index[("psi", j, v)]: 1}, ">", 0)
            problem.labels.append(("nonneg", j, v))
    return problem


def reduced_size(m: int, n: int, positions: bool = False) -> int:
    """Number of rows of :func:`reduced_rank_one` (for cost estimates)."""
    from math import comb

    total = 0
    for w in range(m + 1):
        k = (w + 1) * (m - w + 1)
        total += k ** (n - 1) if positions else comb(k + n - 2, n - 1)
    return 2 * total


def reduced_cost(m: int, n: int, positions: bool = False) -> float:
    """Seconds of CPU (an estimate, for the budget) to decide the reduced LP at m by row
    generation in a sweep that passes each certificate on as the next m's hint (fitted on
    the m <= 64 sweep of all four problems, 98 s of CPU against an estimate of 174 s, and
    on the default sweeps, 1.3 s: ``bench/estimates.py``, docs/performance.md; a margin
    for loaded machines; the generated rows grow like the types, ``~m^3``)."""
    return (0.005 + 9e-7 * (m + 1) ** 3) * (n - 1) ** 2 * (2 if positions else 1)


def complement_subsets(m: int, degree: int) -> list:
    """Feature index -> subset S (by size, then lexicographic); the feature is ``prod_{i in S} (1 - x_i)``."""
    from itertools import combinations

    return [S for k in range(degree + 1) for S in combinations(range(m), k)]


def complement_degree(family: str) -> int:
    """0 for "free"; d for "complement-d" ("affine-complement" is d = 1)."""
    if family in ("free", "affine-complement"):
        return {"free": 0, "affine-complement": 1}[family]
    return int(family.split("-")[1])


def _row_pairs(problem: Problem, E, scores, query: int, n: int, items) -> None:
    """The sequence rows of a kernel row (:func:`kernel_row`), added to ``problem`` at once.

    Items (tokens, or token types) i have ``K[q, i] = E[i] . c`` over the feature unknowns
    c (the first ``E.shape[1]`` columns; the next ``len(items)`` are ``P``) and score
    ``<i, q>``; one row pair per multiset of n - 1 items, the query item appended, in the
    order of ``combinations_with_replacement``.  Row ``c``: with ``C[c, i]`` the number of
    occurrences of item i and ``T`` the least score, ``lo = 2 C P - (2T - 1) C E c`` and
    ``hi = (2T + 1) C E c - 2 C P`` (both ``> 0``; times 2 as in :func:`_add_sequence`),
    built as one integer matrix.
    """
    import numpy as np

    size, nf = len(items), E.shape[1]
    contexts = list(combinations_with_replacement(range(size), n - 1))
    at = np.array(contexts, dtype=np.int64).reshape(len(contexts), n - 1)
    C = np.zeros((len(contexts), size), dtype=np.int64)  # C[c, i]: occurrences of item i in sequence c
    for j in range(n - 1):
        np.add.at(C, (np.arange(len(contexts)), at[:, j]), 1)
    C[:, query] += 1
    target = scores[at].min(axis=1, initial=scores[query])[:, None]  # T = min_j <x_j, q>, the query included
    CE = C @ E
    rows = np.empty((len(contexts), 2, nf + size), dtype=np.int64)  # lo, hi per context
    rows[:, 0, :nf], rows[:, 0, nf:] = -(2 * target - 1) * CE, 2 * C
    rows[:, 1, :nf], rows[:, 1, nf:] = (2 * target + 1) * CE, -2 * C
    problem.system.add_integer_rows(rows.reshape(2 * len(contexts), nf + size), ">")
    for context in contexts:
        label = tuple(items[i] for i in context)
        problem.labels += [("seq", "lo", label), ("seq", "hi", label)]


def kernel_row(m: int, q: int, n: int, family: str = "free", tokens=None, order=()) -> Problem:
    """One query's row: unknowns ``K[q, .]`` (``family="free"``) or the coefficients of a
    family — ``"affine-complement"``: ``K[q,x] = a + sum_i b_i (1 - x_i)``; ``"complement-d"``:
    ``sum_{|S| <= d} c_S prod_{i in S} (1 - x_i)`` — and ``P[x]``; rows for every context
    multiset of the tokens (query appended); ``order`` adds ``K[q,q] >= K[q,z]``."""
    import numpy as np

    tokens = list(range(1 << m)) if tokens is None else list(tokens)
    if q not in tokens:
        tokens.append(q)
    degree = complement_degree(family)
    subsets = complement_subsets(m, degree) if degree else []
    feats = [("K", x) for x in tokens] if not degree else [("phi", f) for f in range(len(subsets))]
    problem = _builder(feats + [("P", x) for x in tokens])
    # E[i, f]: K[q, tokens[i]] as integer coefficients over the feature unknowns
    if degree:
        E = np.array([[int(not any(x >> i & 1 for i in S)) for S in subsets] for x in tokens], dtype=np.int64)
    else:
        E = np.eye(len(tokens), dtype=np.int64)
    scores = np.array([att.inner(x, q) for x in tokens], dtype=np.int64)
    _row_pairs(problem, E, scores, tokens.index(q), n, tokens)
    for key in feats:
        problem.system.add({problem.index[key]: 1}, ">=", 0)
        problem.labels.append(("nonneg", None, att.bits(key[1], m) if family == "free" else key[1]))

    def entry(x):  # K[q, x] as integer coefficients over the feature unknowns
        return {k: int(e) for k, e in enumerate(E[tokens.index(x)]) if e}

    for z in order:
        coefs = entry(q)
        for k, e in entry(z).items():
            coefs[k] = coefs.get(k, 0) - e
        problem.system.add(coefs, ">=", 0)
        problem.labels.append(("order", z))
    return problem


def feature_classes(m: int, w: int, degree: int) -> list:
    """The orbits ``(a, b)`` of the subsets S of size <= degree under the coordinate
    permutations fixing ``q = 1^w 0^(m-w)``: ``a = |S ∩ ones(q)|``, ``b = |S|``
    (``a <= w``, ``b - a <= m - w``)."""
    return [(a, b) for b in range(degree + 1) for a in range(min(w, b) + 1) if b - a <= m - w]


def feature_class(S, w: int) -> tuple:
    """The orbit (:func:`feature_classes`) of the subset S; q's ones are the coordinates below w."""
    return sum(1 for i in S if i < w), len(S)


def class_kernel(m: int, w: int, cls, tau) -> int:
    """``sum_{S in class (a, b)} prod_{i in S} (1 - x_i)`` for any token x of type
    ``tau = (v, s) = (|x|, <x, q>)``: the number of subsets of the class that miss x,
    ``C(w - s, a) C(m - w - (v - s), b - a)`` (q's ones outside x, then its zeros outside x)."""
    from math import comb

    (a, b), (v, s) = cls, tau
    return comb(w - s, a) * comb(m - w - (v - s), b - a)


def type_token(w: int, tau) -> int:
    """A token of type ``tau = (v, s)`` for ``q = 1^w 0^(m-w)``: s of q's ones, then ``v - s`` of its zeros."""
    v, s = tau
    return (1 << s) - 1 | ((1 << (v - s)) - 1) << w


def invariant_kernel_row(m: int, w: int, n: int, family: str) -> Problem:
    """:func:`kernel_row` of a complement family at ``q = 1^w 0^(m-w)`` over the solutions
    invariant under the coordinate permutations fixing q (``S_w x S_(m-w)``): feasible iff
    :func:`kernel_row` is.

    Those permutations permute the row's sequence rows (``<x, q>`` is kept), its features
    and its tokens, so they map solutions to solutions; the problem is convex, so the
    average of a solution over them is an invariant solution: ``c_S`` depends on S only
    through its class ``(a, b)`` (:func:`feature_classes`) and ``P[x]`` on x only through
    its type ``(v, s) = (|x|, <x, q>)`` (:func:`realisable_types`).  On invariant unknowns,
    context multisets with the same multiset of types give the same row, and every
    multiset of types is realised; so the unknowns are ``("phi", (a, b))`` and
    ``("P", (v, s))``, with ``K[q, x] = sum_(a, b) c_(a, b) class_kernel(a, b; v, s)``, and
    there is one row pair per multiset of n - 1 types.  ``c_S = c_(a, b)`` is then a
    solution of :func:`kernel_row`.
    """
    import numpy as np

    degree = complement_degree(family)
    if not degree:
        raise ValueError("the invariant row is for the complement families")
    classes, types = feature_classes(m, w, degree), realisable_types(m, w)
    problem = _builder([("phi", c) for c in classes] + [("P", t) for t in types])
    E = np.array([[class_kernel(m, w, c, t) for c in classes] for t in types], dtype=np.int64)
    scores = np.array([s for _, s in types], dtype=np.int64)
    _row_pairs(problem, E, scores, types.index((w, w)), n, types)
    for c in classes:
        problem.system.add({problem.index[("phi", c)]: 1}, ">=", 0)
        problem.labels.append(("nonneg", None, c))
    return problem


# ------------------------------------------------------------ certificates


def certificate_rows(problem: Problem, multipliers: dict, m: int, reduced: bool = False):
    """The labelled data of an exact certificate: ``(rows, nonnegative, order)``.

    Tokens become bit strings (coordinate 1 first); reduced rows carry ``w`` and the
    context types.  Only rows with a nonzero multiplier are kept.  The LP's sequence rows
    are the checker's rows times 2, so their multipliers are doubled here; the LP's
    ``psi > 0`` rows are the checker's ``psi >= 0`` rows (a certificate cannot draw its
    strictness from them alone: nonnegative multiples of coordinate vectors never cancel).
    """
    rows, nonneg, order = [], [], []
    for i, y in sorted(multipliers.items()):
        if not y:
            continue
        label = problem.labels[i]
        if label[0] == "seq" and reduced:
            w, context = label[2]
            rows.append([label[1], 2 * y, w, [list(t) for t in context]])
        elif label[0] == "seq":
            rows.append([label[1], 2 * y, [att.bits(x, m) for x in label[2]]])
        elif label[0] == "nonneg":
            _, j, key = label
            nonneg.append([key, y] if j is None else [j, key if reduced else att.bits(key, m), y])
        else:
            order.append([att.bits(label[1], m), y])
    # a positive common factor keeps a certificate: print the smallest integer multipliers
    from math import gcd, lcm

    values = [r[1] for r in rows] + [r[-1] for r in nonneg] + [r[-1] for r in order]
    den = lcm(*(Fraction(v).denominator for v in values)) if values else 1
    g = gcd(*(int(Fraction(v) * den) for v in values)) if values else 1
    scale = Fraction(den, g or 1)
    for r in rows:
        r[1] = Fraction(r[1]) * scale
    for r in nonneg + order:
        r[-1] = Fraction(r[-1]) * scale
    return rows, nonneg, order


def rank_one_witness(problem: Problem, point, tokens, n: int, positions: bool = False):
    """``(psi, U)`` from an exact solution: ``psi`` raised by a small eps where it is 0, ``U = P/psi``.

    ``psi`` is a dict (position, token) -> value and ``U`` a dict (position, q, x) -> value;
    position 0 when ``positions`` is false.
    """
    pos = range(1, n + 1) if positions else [0]
    base = {(j, x): problem.value(point, ("psi", j, x)) for j in pos for x in tokens}
    P = {(j, q, x): problem.value(point, ("P", j, q, x)) for j in pos for q in tokens for x in tokens}
    eps = max(base.values()) or Fraction(1)
    while True:
        psi = {k: v if v > 0 else eps for k, v in base.items()}
        U = {(j, q, x): P[j, q, x] / psi[j, x] for (j, q, x) in P}
        if all(v > 0 for v in base.values()) or _solves(psi, U, tokens, n, positions, problem.tolerance):
            return psi, U
        eps /= 2


def _solves(psi, U, tokens, n, positions, tolerance: Fraction) -> bool:
    return worst_error(psi, U, tokens, n, positions) < tolerance


def worst_error(psi, U, tokens, n: int, positions: bool = False, poll=lambda: None):
    """The largest ``|y - T|`` over every sequence of exact length n of the tokens (exact).

    ``psi`` and ``U`` are scaled to integers once (a common positive scale changes no
    error), so each sequence costs integer operations only.
    """
    from math import lcm

    dp = lcm(*(v.denominator for v in psi.values()))
    du = lcm(*(v.denominator for v in U.values()))
    ip = {k: int(v * dp) for k, v in psi.items()}
    iu = {k: int(v * du) for k, v in U.items()}
    best_num, best_den = 0, 1
    for count, seq in enumerate(sequences(tokens, tokens, n, positions)):
        if count % 4096 == 0:
            poll()
        q = seq[-1]
        target = du * att.min_ip_target(seq)
        keys = [(j if positions else 0, x) for j, x in enumerate(seq, 1)]
        num = abs(sum(ip[k] * (iu[k[0], q, k[1]] - target) for k in keys))
        den = du * sum(ip[k] for k in keys)
        if num * best_den > best_num * den:
            best_num, best_den = num, den
    return Fraction(best_num, best_den)


def expand_reduced(problem: Problem, point, m: int, n: int, positions: bool = False):
    """A solution of the reduced problem as a full ``(psi, U)`` (same conventions as
    :func:`rank_one_witness`): ``psi_j(x) = psi_{j,|x|}``, ``P_j[q,x] = P_{j,|q|,|x|,<q,x>}``."""
    pos = range(1, n + 1) if positions else [0]
    tokens = range(1 << m)
    full = Problem(problem.system, {}, problem.labels)
    values = {}
    for j in pos:
        for x in tokens:
            values[("psi", j, x)] = problem.value(point, ("psi", j, att.weight(x)))
            for q in tokens:
                values[("P", j, q, x)] = problem.value(point, ("P", j, att.weight(q), att.weight(x), att.inner(q, x)))
    keys = list(values)
    full.index = {k: i for i, k in enumerate(keys)}
    return rank_one_witness(full, [values[k] for k in keys], tokens, n, positions)


def _readout_decision(weights, scores, query: int, n: int, budget=None):
    """One query's readout LP over items (tokens, or token types) i with ``K[q, i] = weights[i]``
    and score ``<i, q> = scores[i]``: unknowns ``U[i]``, one row pair per multiset of n - 1
    items (the query item appended), ``-1/2 sum_j K_j < sum_j K_j (U_j - T) < 1/2 sum_j K_j``
    times ``2 / K[q, q]`` (so that the coefficients stay of moderate size as floats, which the
    LP's search needs)."""
    row = [2 * v / weights[query] for v in weights]
    system = lp.LinearSystem(len(weights))
    for context in combinations_with_replacement(range(len(weights)), n - 1):
        seq = tuple(context) + (query,)
        target = min(scores[x] for x in seq)
        coefs: dict[int, Fraction] = {}
        for x in seq:
            coefs[x] = coefs.get(x, 0) + row[x]
        total = sum(row[x] for x in seq)
        system.add(coefs, ">", total * target - total / 2)
        system.add(coefs, "<", total * target + total / 2)
    return lp.decide(system, budget)


def fixed_kernel_readout(K, m: int, n: int = 3, budget=None, queries=None):
    """For a fixed exact kernel ``K`` (2^m x 2^m, ``K >= 0``, positive diagonal), readout rows
    ``U[q, .]`` with error < 1/2 on every sequence of exact length n, one LP per query
    (``queries``, default all; the other rows are None; :func:`_readout_decision`).

    Returns ``(U, None)`` or ``(None, (q, decision))`` for the first query whose LP is not
    feasible.
    """
    size = 1 << m
    U = [None] * size
    for q in (range(size) if queries is None else queries):
        decision = _readout_decision(K[q], [att.inner(x, q) for x in range(size)], q, n, budget)
        if not isinstance(decision, lp.Feasible):
            return None, (q, decision)
        U[q] = decision.point
    return U, None


def invariant_readout(row, m: int, w: int, n: int = 3, budget=None):
    """For ``q = 1^w 0^(m-w)`` and a kernel row ``row = K[q, .]`` invariant under the coordinate
    permutations fixing q (it depends on x only through its type ``(|x|, <x, q>)``; checked),
    an invariant readout row ``U[q, .]`` with error < 1/2 on every sequence of exact length n:
    ``(U row, None)``, or ``(None, decision)`` when there is none.

    The readout LP of :func:`fixed_kernel_readout` at q is convex and those permutations
    permute its rows and unknowns, so it is feasible iff it has an invariant solution
    (average any solution); on invariant ``U`` the rows depend on the context only through
    its multiset of types, all of which are realised: one LP over the types.
    """
    types = realisable_types(m, w)
    where = {t: i for i, t in enumerate(types)}
    kind = [where[(att.weight(x), att.inner(x, (1 << w) - 1))] for x in range(1 << m)]
    weights = [row[type_token(w, t)] for t in types]
    if any(row[x] != weights[kind[x]] for x in range(1 << m)):
        raise ValueError(f"the kernel row of 1^{w} 0^{m - w} is not invariant under the permutations fixing it")
    decision = _readout_decision(weights, [s for _, s in types], where[(w, w)], n, budget)
    if not isinstance(decision, lp.Feasible):
        return None, decision
    return [decision.point[kind[x]] for x in range(1 << m)], None


def kernel_worst_error(K, U, m: int, n: int = 3, poll=lambda: None, queries=None) -> Fraction:
    """The largest ``|y - T|`` of the head ``(K, U)`` over every sequence of exact length n
    (one per context multiset: the output depends on the context only through it).

    ``queries`` restricts the queries — enough for a head invariant under the coordinate
    permutations when they hold one query per weight.  Each row is scaled to integers
    once (a positive scale per query changes no error).
    """
    from math import lcm

    size = 1 << m
    best_num, best_den = 0, 1
    for q in (range(size) if queries is None else queries):
        poll()
        dk, du = lcm(*(v.denominator for v in K[q])), lcm(*(v.denominator for v in U[q]))
        k = [int(v * dk) for v in K[q]]
        u = [int(v * du) for v in U[q]]
        for context in combinations_with_replacement(range(size), n - 1):
            seq = tuple(context) + (q,)
            target = du * att.min_ip_target(seq)
            num = abs(sum(k[x] * (u[x] - target) for x in seq))
            den = du * sum(k[x] for x in seq)
            if num * best_den > best_num * den:
                best_num, best_den = num, den
    return Fraction(best_num, best_den)


# ------------------------------------------- the reduced LP at scale (by type counts)


class ReducedTypes:
    """The reduced rank-one LP of :func:`reduced_rank_one`, held as arrays of types.

    For query weight w the realisable context types are ``(v, s)`` with ``s <= w``,
    ``s <= v <= s + m - w`` (:func:`realisable_types`, in that order; ``k_w = (w+1)(m-w+1)``
    of them).  Columns: ``psi_{j,v}`` then ``P_{j,w,v,s}`` (j over the positions, one
    position 0 without positions), the same keys as :func:`reduced_rank_one`.  A row is
    named by ``(side, w, context)`` with ``context`` a tuple of type indices (sorted
    without positions: a multiset).

    **The least row, in closed form.**  Write a row of query weight w and target
    ``t = min(s_1, .., s_{n-1}, w)`` (times 2, as in :func:`_add_sequence`) as
    ``sum_{j <= n} a_{j,t}(tau_j)`` with ``a_{j,t}(v, s) = sign (2 P_{j,w,v,s} - l psi_{j,v})``,
    ``l = 2t - 1`` (lo, sign +1) or ``2t + 1`` (hi, sign -1), and ``tau_n = (w, w)`` the
    query.  For each t <= w the rows with target t are exactly the contexts with every
    ``s_j >= t`` and some ``s_j = t`` (when t = w, ``s_j >= w`` forces ``s_j = w``, so the
    second condition holds by itself).  The terms are separate in the positions, so the
    least such row is

        a_{n,t}(w, w) + sum_{j<n} L_j(t) + min_{j*<n} (M_{j*}(t) - L_{j*}(t)),

    ``L_j(t) = min_{s >= t} a_{j,t}``, ``M_j(t) = min_{s = t} a_{j,t}`` (``M >= L``; put the
    one position with s = t where it costs least).  Without positions every j shares
    ``a`` and the least row is ``a(w,w) + M(t) + (n-2) L(t)``, a multiset.  So "every row
    holds" is ``(m+1)(m+2)`` inequalities, each a minimum over ``O(m^2)`` types: work
    ``O(n m^4)`` instead of the ``~m^{2n-1}`` rows — and a row attaining each minimum is
    read off the argmins.
    """

    def __init__(self, m: int, n: int, positions: bool = False):
        import numpy as np

        self.m, self.n, self.positions = m, n, positions
        self.npos = n if positions else 1
        self.v, self.s, self.base = [], [], []
        self.psi_cols = self.npos * (m + 1)
        offset = self.psi_cols
        for w in range(m + 1):
            types = realisable_types(m, w)
            self.v.append(np.array([v for v, _ in types], dtype=np.int64))
            self.s.append(np.array([s for _, s in types], dtype=np.int64))
            self.base.append(offset)
            offset += len(types)
        self.per_position = offset - self.psi_cols
        self.nvars = self.psi_cols + self.npos * self.per_position
        self.query = [realisable_types(m, w).index((w, w)) for w in range(m + 1)]

    # columns
    def psi_col(self, j: int, v: int) -> int:
        return j * (self.m + 1) + v

    def p_col(self, j: int, w: int, tau: int) -> int:
        return self.base[w] + j * self.per_position + tau

    def key_of(self, col: int):
        """The :func:`reduced_rank_one` key of a column."""
        if col < self.psi_cols:
            j, v = divmod(col, self.m + 1)
            return ("psi", j + 1 if self.positions else 0, v)
        j, rest = divmod(col - self.psi_cols, self.per_position)
        w = max(w for w in range(self.m + 1) if self.base[w] - self.psi_cols <= rest)
        tau = rest - (self.base[w] - self.psi_cols)
        return ("P", j + 1 if self.positions else 0, w, int(self.v[w][tau]), int(self.s[w][tau]))

    def key_from_types(self, side: str, w: int, context):
        """The key of the row with query weight w and context types ``[(v, s), ...]``, or None
        when a type is not realisable at this m (``s <= min(w, v)``, ``v - s <= m - w``)."""
        if not 0 <= w <= self.m or len(context) != self.n - 1:
            return None
        taus = []
        for v, s in context:
            if not (0 <= s <= min(w, v) and v - s <= self.m - w):
                return None
            taus.append(s * (self.m - w + 1) + (v - s))
        return (side, w, tuple(taus if self.positions else sorted(taus)))

    def rows_count(self) -> int:
        return reduced_size(self.m, self.n, self.positions)

    def row(self, key) -> dict:
        """Integer coefficients of row ``(side, w, context)`` (times 2, as in :func:`_add_sequence`)."""
        side, w, context = key
        full = tuple(context) + (self.query[w],)
        t = min(int(self.s[w][tau]) for tau in full)
        sign, level = (1, 2 * t - 1) if side == "lo" else (-1, 2 * t + 1)
        coefs: dict[int, int] = {}
        for j, tau in enumerate(full):
            jp = j if self.positions else 0
            for col, c in ((self.p_col(jp, w, tau), 2 * sign), (self.psi_col(jp, int(self.v[w][tau])), -sign * level)):
                coefs[col] = coefs.get(col, 0) + c
        return {c: v for c, v in coefs.items() if v}

    def label(self, key):
        """The :func:`reduced_rank_one` label ``("seq", side, (w, context types))`` of a row."""
        side, w, context = key
        return ("seq", side, (w, tuple((int(self.v[w][tau]), int(self.s[w][tau])) for tau in context)))

    def least_rows(self, x, exact: bool = False):
        """For every (w, t, side): the least row value at ``x`` and the row attaining it
        (with positions, the least for each position j* that holds s = t; their minimum is
        the least row).

        ``x`` is a float array over the columns, or (``exact``) a list of integers, in
        which case the arithmetic is on Python integers.  Yields ``(value, key)``.
        """
        import numpy as np

        dtype = object if exact else float
        X = np.array(x, dtype=dtype)
        m, n = self.m, self.n
        for w in range(m + 1):
            v, s = self.v[w], self.s[w]
            ts = np.arange(w + 1)
            ge, eq = s[None, :] >= ts[:, None], s[None, :] == ts[:, None]
            for side, sign, shift in (("lo", 1, -1), ("hi", -1, 1)):
                level = (2 * ts + shift).astype(dtype)[:, None]
                terms = []
                for j in range(self.npos):
                    P = X[self.base[w] + j * self.per_position: self.base[w] + j * self.per_position + len(v)]
                    psi = X[j * (m + 1): (j + 1) * (m + 1)][v]
                    terms.append(sign * (2 * P[None, :] - level * psi[None, :]))
                big = (max(abs(int(e)) for e in X) * 2 * (2 * m + 2) + 1) if exact else np.inf
                query = terms[-1][:, self.query[w]]
                context = list(range(n - 1)) if self.positions else [0] * (n - 1)
                L, Lat, M, Mat = {}, {}, {}, {}
                for j in set(context):
                    a = terms[j]
                    masked = np.where(ge, a, big)
                    Lat[j] = masked.argmin(axis=1)
                    L[j] = masked[ts, Lat[j]]
                    masked = np.where(eq, a, big)
                    Mat[j] = masked.argmin(axis=1)
                    M[j] = masked[ts, Mat[j]]
                base = query + sum(L[j] for j in context)
                gaps = np.stack([M[j] - L[j] for j in context])
                # every choice of the position j* holding s = t (one without positions): the
                # least is the least row; the others are rows too, and cut more per round
                for t in ts:
                    for i in range(len(context) if self.positions else 1):
                        taus = [int(Mat[context[i]][t]) if k == i else int(Lat[context[k]][t]) for k in range(n - 1)]
                        yield base[t] + gaps[i, t], (side, w, tuple(taus if self.positions else sorted(taus)))

    def implicit(self):
        """The LP as a :class:`solvers.cutting.Implicit` (strict rows; ``psi > 0`` fixed)."""
        import numpy as np

        from solvers import cutting

        def violated(x, below):
            return [key for value, key in self.least_rows(x) if value < below]

        def violated_exact(point):
            from math import lcm

            den = lcm(*(p.denominator for p in point))
            ints = [int(p * den) for p in point]
            return [key for value, key in self.least_rows(ints, exact=True) if value <= 0]

        # The float search only (solvers.cutting: never a verdict).  Scale: sum psi = the
        # number of psi's (psi > 0 in every solution).  Box: every solution of the whole LP
        # so normalised has |P| <= (m + 1) sum psi (bounding below), so 2 (m + 2) sum psi
        # cuts off none of them; it keeps the LP compact where the rows generated so far
        # leave P free.  Pinned: with positions, adding c_j to every P_{j,w,.} with
        # sum_j c_j = 0 changes no row (each row has one P_{j,w,.} per position, all with
        # the same coefficient), so P_{j,w,q} = 0 for j < n (q the query's type) loses no
        # solution and removes those lines, on which HiGHS stalled.
        normal = list(range(self.psi_cols))
        m = self.m
        bound = 2.0 * (m + 2) * len(normal)
        lower = np.concatenate([np.zeros(self.psi_cols), np.full(self.nvars - self.psi_cols, -bound)])
        upper = np.concatenate([np.full(self.psi_cols, np.inf), np.full(self.nvars - self.psi_cols, bound)])
        for j in range(self.npos - 1):
            for w in range(m + 1):
                lower[self.p_col(j, w, self.query[w])] = upper[self.p_col(j, w, self.query[w])] = 0.0
        fixed = [(("nonneg", j, v), {self.psi_col(j, v): 1}, ">") for j in range(self.npos) for v in range(self.m + 1)]
        return cutting.Implicit(self.nvars, self.row, violated, violated_exact, lower, upper, fixed, normal, self.bounding)

    def bounding(self, col: int, upper: bool) -> list:
        """The rows that bound ``P_{j,w,tau}`` (column ``col``, type ``tau = (v, s)``) above or
        below, weakly, by ``(m + 1) sum psi``: the context holding tau at position j and the
        query's type q elsewhere (tau at every context position without positions), with
        the all-q row of the other side.  E.g. below, positions: ``lo`` gives
        ``2 P_{j,tau} + 2 P_{n,q} >= (2s - 1)(psi_{j,v} + sum_{i != j} psi_{i,w})`` (the pinned
        ``P_{i,q} = 0``), ``hi`` of all q gives ``2 P_{n,q} <= (2w + 1) sum_i psi_{i,w}``, so
        ``P_{j,tau} >= -(w + 1) sum psi``; without positions the same with ``n - 1`` copies.
        ``[]`` for a psi, and for ``P_{n,w,tau}``, tau not q, which no row holds."""
        if col < self.psi_cols:
            return []
        m, n = self.m, self.n
        j, rest = divmod(col - self.psi_cols, self.per_position)
        w = max(w for w in range(m + 1) if self.base[w] - self.psi_cols <= rest)
        tau, q = rest - (self.base[w] - self.psi_cols), self.query[w]
        near, far = ("hi", "lo") if upper else ("lo", "hi")
        queries = (near if tau == q else far, w, (q,) * (n - 1))
        if self.positions and j == self.npos - 1:
            return [queries] if tau == q else []
        context = tuple(tau if k == j or not self.positions else q for k in range(n - 1))
        return [(near, w, context), queries]

    def initial_rows(self) -> list:
        """A start: the least rows at ``psi = 1, P = 0`` (one per (w, t, side))."""
        import numpy as np

        x = np.concatenate([np.ones(self.psi_cols), np.zeros(self.nvars - self.psi_cols)])
        return [key for _, key in self.least_rows(x)]


@dataclass
class ReducedDecision:
    """The reduced LP decided by row generation: the decision, and a :class:`Problem` over the rows used."""

    decision: object
    problem: Problem
    rows: int  # rows of the whole reduced LP
    used: int  # rows generated
    rounds: int
    every: list = field(default_factory=list)  # the keys of every row generated (ReducedTypes.row)


def decide_reduced(m: int, n: int, positions: bool = False, budget: float | None = None, poll=lambda: None,
                   hint=()) -> ReducedDecision:
    """Decide the reduced rank-one LP exactly without writing it down (:mod:`solvers.cutting`).

    An infeasible subset of its rows refutes it (the certificate names reduced rows, which
    the trusted kind rebuilds); a point is accepted only after the closed-form least row
    (:class:`ReducedTypes`) is positive for every (w, t, side), exactly.  The returned
    :class:`Problem` carries the rows used with the labels of :func:`reduced_rank_one`, so
    :func:`certificate_rows` (``reduced=True``) and :func:`expand_reduced` read it as before.

    ``hint``: reduced rows ``[side, y, w, [[v, s], ...]]`` (a certificate at a smaller m, as
    :func:`certificate_rows` prints it) to start from; those realisable at m are rows of
    this LP too, so they only speed the search, never change its answer.
    """
    from solvers import cutting

    types = ReducedTypes(m, n, positions)
    start = [types.key_from_types(side, w, context) for side, _, w, context in hint]
    start = [key for key in start if key is not None]
    result = cutting.decide(types.implicit(), start + types.initial_rows(), budget, poll)
    # A Problem over all columns, rows in the order the result names them.
    index = {types.key_of(c): c for c in range(types.nvars)}
    problem = Problem(lp.LinearSystem(types.nvars), index, [])
    multipliers = {}
    fixed = {key: (coefs, sense) for key, coefs, sense in types.implicit().fixed}
    for i, key in enumerate(result.keys):
        if key in fixed:
            coefs, sense = fixed[key]
            problem.system.add(coefs, sense, 0)
            problem.labels.append(("nonneg", key[1] + 1 if positions else 0, key[2]))
        else:
            problem.system.add(types.row(key), ">", 0)
            problem.labels.append(types.label(key))
        if isinstance(result.decision, lp.Infeasible) and key in result.decision.multipliers:
            multipliers[i] = result.decision.multipliers[key]
    decision = lp.Infeasible(multipliers) if isinstance(result.decision, lp.Infeasible) else result.decision
    return ReducedDecision(decision, problem, types.rows_count(), result.generated, result.rounds, result.every)
