"""Family: exact evaluation of explicit heads (witnesses)."""

from __future__ import annotations

import math
from itertools import combinations_with_replacement, product
from fractions import Fraction

import flint

from solvers.trusted.core import (
    CertificateError, fmpq_matrix, integer, kind as _register, lcm_denominator, matrix, rational, require, token,
)

# --- transitional aliases from the single-file checker (to be removed as this family is reworked)
_require, _int, _matrix, _token, _lcm_den, _fmpq_mat = require, integer, matrix, token, lcm_denominator, fmpq_matrix
TARGETS = ("min-ip",)


def kind(name, *fields):
    def register(function):
        def returning_a_judgment(data):
            return {"judgment": "unported:" + name}, function(data)
        _register(name, *fields, work=lambda data: 0)(returning_a_judgment)
        return function
    return register


def _bound(tolerance: Fraction) -> str:
    return "error exactly 0" if tolerance == 0 else f"error < {tolerance}"


def _within(error: Fraction, tolerance: Fraction) -> bool:
    return error == 0 if tolerance == 0 else abs(error) < tolerance


# ------------------------------------------------------- exhaustive (tables)


@kind("exhaustive", "m", "lengths", "phi", "psi", "readout", "target", "tolerance", "symmetry")
def _exhaustive(data: dict) -> str:
    """A kernel head given by tables solves the task on every sequence of the given lengths.

    Data: ``m``; ``lengths``; feature tables ``phi``, ``psi`` (2^m x r, entries
    >= 0) so ``kappa = phi psi^T`` has feature rank <= r; ``readout`` U
    (2^m x 2^m) with ``y = sum_j kappa(q,x_j) U[q][x_j] / sum_j kappa(q,x_j)``;
    ``target``; ``tolerance`` (strict; 0 asks for error exactly 0); ``symmetry`` "coordinates" (one
    sequence per joint type, after re-checking that kappa and U are invariant
    under a transposition and an m-cycle of the coordinates) or "none" (every
    sequence).
    """
    m = _int(data["m"], "m", 1, 12)
    size = 1 << m
    lengths = [_int(n, "length", 1, 6) for n in data["lengths"]]
    _require(data["target"] in TARGETS, f"unknown target {data['target']!r}")
    tolerance = rational(data["tolerance"])
    phi, psi = _matrix(data["phi"], "phi", size), _matrix(data["psi"], "psi", size)
    _require(len(phi[0]) == len(psi[0]), "phi and psi must have the same feature rank r")
    _require(all(v >= 0 for row in phi + psi for v in row), "feature maps must be nonnegative")
    U = _matrix(data["readout"], "readout", size, size)
    r = len(phi[0])
    K = [[sum((a * b for a, b in zip(phi[q], psi[x])), Fraction(0)) for x in range(size)] for q in range(size)]
    _require(all(K[q][q] > 0 for q in range(size)), "kappa(q, q) must be positive for every q")

    symmetry = data["symmetry"]
    _require(symmetry in ("coordinates", "none"), f"unknown symmetry {symmetry!r}")
    if symmetry == "coordinates" and m >= 2:
        swap = (1, 0) + tuple(range(2, m))
        cycle = tuple((i + 1) % m for i in range(m))
        for perm in (swap, cycle):
            image = [sum(1 << perm[i] for i in range(m) if x >> i & 1) for x in range(size)]
            for q in range(size):
                for x in range(size):
                    _require(
                        K[image[q]][image[x]] == K[q][x] and U[image[q]][image[x]] == U[q][x],
                        f"tables are not invariant under the coordinate permutation {perm} at q={q}, x={x}",
                    )
    count = 0
    for n in lengths:
        if symmetry == "coordinates":
            # one tuple per joint type: coordinate i carries column pattern cols[i]
            sequences = (
                tuple(sum(1 << i for i, p in enumerate(cols) if p >> j & 1) for j in range(n))
                for cols in combinations_with_replacement(range(1 << n), m)
            )
        else:
            sequences = product(range(size), repeat=n)
        for seq in sequences:
            q = seq[-1]
            weights = [K[q][x] for x in seq]
            total = sum(weights)
            target = min((x & q).bit_count() for x in seq)
            deviation = sum((w * (U[q][x] - target) for w, x in zip(weights, seq)), Fraction(0))
            _require(
                _within(deviation / total, tolerance),
                f"sequence {list(seq)} (m={m}): error {abs(deviation / total)} is not < {tolerance}",
            )
            count += 1
    return f"feature rank <= {r} head solves lengths {lengths} at m={m}: {count} sequences ({symmetry} symmetry), {_bound(tolerance)}"


# ------------------------------------------------------ score statistic


def _score_table(raw, m: int, name: str):
    """kappa or U as a function of (w, s): a list over s, or a triangular list of lists [w][s]."""
    if isinstance(raw, list) and raw and all(not isinstance(v, list) for v in raw):
        row = [rational(v) for v in raw]
        _require(len(row) == m + 1, f"{name} must have m+1 = {m + 1} entries")
        return lambda w, s: row[s]
    table = _matrix_tri(raw, m, name)
    return lambda w, s: table[w][s]


def _matrix_tri(raw, m: int, name: str) -> list[list[Fraction]]:
    _require(isinstance(raw, list) and len(raw) == m + 1, f"{name} must have m+1 = {m + 1} rows")
    table = [[rational(v) for v in row] for row in raw]
    _require(all(len(table[w]) == w + 1 for w in range(m + 1)), f"{name} row w must have w+1 entries")
    return table


def _score_setup(data: dict):
    m = _int(data["m"], "m", 1, 100000)
    _require(data["target"] in TARGETS, f"unknown target {data['target']!r}")
    kappa = _score_table(data["kappa"], m, "kappa")
    value = _score_table(data["value"], m, "value")
    for w in range(m + 1):
        _require(kappa(w, w) > 0, f"kappa(w={w}, s={w}) must be positive (the query's own weight)")
        _require(all(kappa(w, s) >= 0 for s in range(w + 1)), f"kappa(w={w}, .) must be nonnegative")
    return m, kappa, value, rational(data["tolerance"])


def _score_error(kappa, value, w: int, scores) -> Fraction:
    scores = list(scores) + [w]
    weights = [kappa(w, s) for s in scores]
    target = min(scores)
    return abs(sum((k * (value(w, s) - target) for k, s in zip(weights, scores)), Fraction(0)) / sum(weights))


@kind("score-statistic", "m", "lengths", "kappa", "value", "target", "tolerance")
def _score_statistic(data: dict) -> str:
    """A head whose weight and readout depend on (|q|, <q,x>) only solves every sequence.

    For such a head, y(X) and T(X) depend on X only through w = |q| and the
    multiset of context scores s_j = <x_j, q>, each of which ranges over all
    of [0, w] independently (x = any s-subset of q's ones).  So enumerating
    w in [0, m] and the multisets of n - 1 scores in [0, w] covers every
    sequence of length n over {0,1}^m.
    """
    m, kappa, value, tolerance = _score_setup(data)
    lengths = [_int(n, "length", 1, 8) for n in data["lengths"]]
    tol_num, tol_den = tolerance.numerator, tolerance.denominator
    count = 0
    for n in lengths:
        for w in range(m + 1):
            # clear denominators once per w: the test is then integer arithmetic
            k_row = [kappa(w, s) for s in range(w + 1)]
            u_row = [value(w, s) for s in range(w + 1)]
            scale_k = _lcm_den(k_row)
            scale_u = _lcm_den(u_row)
            K = [int(k * scale_k) for k in k_row]
            U = [int(u * scale_u) for u in u_row]
            for scores in combinations_with_replacement(range(w + 1), n - 1):
                target = scores[0] if scores else w
                total = K[w] + sum(K[s] for s in scores)
                deviation = K[w] * (U[w] - scale_u * target) + sum(K[s] * (U[s] - scale_u * target) for s in scores)
                # |deviation / (scale_u * total)| < tol_num / tol_den  (or == 0 when the tolerance is 0)
                if not (deviation == 0 if tol_num == 0 else abs(deviation) * tol_den < tol_num * scale_u * total):
                    raise CertificateError(
                        f"length {n}, |q|={w}, context scores {list(scores)}: error "
                        f"{Fraction(abs(deviation), scale_u * total)} is not < {tolerance}"
                    )
                count += 1
    return f"score-statistic head solves lengths {lengths} for every m' <= {m}: {count} statistic points, {_bound(tolerance)}"


def _lcm_den(values) -> int:
    """The least common denominator of exact fractions."""
    return math.lcm(1, *(v.denominator for v in values))


@kind("score-counterexample", "m", "sequence", "kappa", "value", "target", "tolerance")
def _score_counterexample(data: dict) -> str:
    """One sequence on which a score-statistic head errs by at least the tolerance.

    Data: the head (``m``, ``kappa``, ``value``, ``target``, ``tolerance``) and
    the sequence as tokens; the checker recomputes |q|, the scores and the error.
    """
    m, kappa, value, tolerance = _score_setup(data)
    seq = [_int(x, "token", 0, (1 << m) - 1) for x in data["sequence"]]
    _require(len(seq) >= 1, "the sequence is empty")
    q = seq[-1]
    w = q.bit_count()
    scores = [(x & q).bit_count() for x in seq[:-1]]
    error = _score_error(kappa, value, w, scores)
    _require(not _within(error, tolerance), f"error {error} on {seq} is within the tolerance {tolerance}: not a counterexample")
    return f"sequence {seq} (m={m}) has error {error} >= {tolerance}"


@kind("rank-one-positional-witness", "m", "psi", "readout", "tolerance", "prefixes")
def _rank_one_positional_witness(data: dict) -> str:
    """A rank-one head with position-dependent maps solves every sequence of length n.

    ``psi`` is n x 2^m (``psi[j][x] = psi_{j+1}(x) >= 0``, ``psi_n(q) > 0``), ``readout``
    n x 2^m x 2^m (``U_j[q][x]``); ``phi = 1``; the output at the final position is
    ``y = sum_j psi_j(x_j) U_j[q][x_j] / sum_j psi_j(x_j)``.  Every sequence in
    ``({0,1}^m)^n`` is evaluated exactly.  With ``prefixes`` true, every prefix of length
    k <= n is scored too (query x_k, the same psi_j and U_j for j <= k, its own target),
    and ``psi_k(q) > 0`` is required for every k.
    """
    m = _int(data["m"], "m", 1, 4)
    size = 1 << m
    psi = _matrix(data["psi"], "psi", None, size)
    n = _int(len(psi), "length", 1, 5)
    prefixes = data["prefixes"]
    _require(isinstance(prefixes, bool), "prefixes must be true or false")
    _require(all(v >= 0 for row in psi for v in row), "psi must be nonnegative")
    for k in (range(1, n + 1) if prefixes else [n]):
        _require(all(psi[k - 1][q] > 0 for q in range(size)), f"psi_{k}(q) must be positive (kappa(q, q) > 0)")
    _require(isinstance(data["readout"], list) and len(data["readout"]) == n, f"readout must hold {n} tables")
    U = [_matrix(table, "readout", size, size) for table in data["readout"]]
    tolerance = rational(data["tolerance"])
    worst, count = Fraction(0), 0
    for k in (range(1, n + 1) if prefixes else [n]):
        for seq in product(range(size), repeat=k):
            q = seq[-1]
            target = min((x & q).bit_count() for x in seq)
            total = sum(psi[j][x] for j, x in enumerate(seq))
            error = abs(sum((psi[j][x] * (U[j][q][x] - target) for j, x in enumerate(seq)), Fraction(0)) / total)
            _require(_within(error, tolerance), f"sequence {list(seq)} (m={m}): error {error} is not < {tolerance}")
            worst = max(worst, error)
            count += 1
    scored = f"every prefix of length <= {n}" if prefixes else f"exact length {n}"
    return f"rank-one head with position-dependent maps solves {scored} at m={m}: {count} sequences, worst error {worst} < {tolerance}"


# ---- paper K: linear feasibility (LP) — several heads (K4)
#
# H tokenwise heads, head h with kernel K_h = phi_h psi_h^T and readout table U_h (one-hot
# values, the mixing a_h(q) and the bias b(q) folded into U_h): the output at the final
# position is  y(X) = sum_h sum_j K_h[q,x_j] U_h[q,x_j] / sum_j K_h[q,x_j].


def _alphabet(raw, m: int) -> list[int]:
    """``"all"`` (every token of {0,1}^m, in numeric order) or a list of distinct bit strings."""
    if raw == "all":
        return list(range(1 << m))
    _require(isinstance(raw, list) and raw, "alphabet must be \"all\" or a nonempty list of tokens")
    tokens = [_token(t, m) for t in raw]
    _require(len(set(tokens)) == len(tokens), "alphabet tokens must be distinct")
    return tokens


@kind("multi-head-exhaustive", "m", "lengths", "alphabet", "heads", "target", "tolerance", "symmetry")
def _multi_head_exhaustive(data: dict) -> str:
    """H kernel heads given by tables, mixed affinely, solve every sequence over the alphabet.

    Data: ``m``; ``lengths``; ``alphabet`` (``"all"`` or a list of tokens as bit strings;
    tables are indexed by alphabet position); ``heads``: a list of ``{phi, psi, readout}``
    with ``phi_h, psi_h >= 0`` (N x r_h), so ``K_h = phi_h psi_h^T`` has feature rank
    <= r_h, ``K_h[q,q] > 0``, and ``readout`` ``U_h`` (N x N); the output is
    ``y = sum_h sum_j K_h[q,x_j] U_h[q,x_j] / sum_j K_h[q,x_j]`` (affine mixing
    ``sum_h <a_h(q), h_h> + b(q)`` with one-hot values ``v_h(x) = e_x`` realises every
    ``U_h``).  ``symmetry``: ``"none"`` (every tuple) or ``"context"`` (one sequence per
    multiset of the n-1 context tokens, the query last: each head's numerator and
    denominator are sums over positions, so y is a symmetric function of the context).
    Proves ``|y - T| < tolerance`` on every sequence of each length over the alphabet.
    """
    m = _int(data["m"], "m", 1, 8)
    tokens = _alphabet(data["alphabet"], m)
    size = len(tokens)
    lengths = [_int(n, "length", 1, 6) for n in data["lengths"]]
    _require(data["target"] in TARGETS, f"unknown target {data['target']!r}")
    tolerance = rational(data["tolerance"])
    symmetry = data["symmetry"]
    _require(symmetry in ("context", "none"), f"unknown symmetry {symmetry!r}")
    heads = data["heads"]
    _require(isinstance(heads, list) and 1 <= len(heads) <= 8, "heads must be a list of 1 to 8 heads")
    kernels, readouts, ranks = [], [], []
    for h, head in enumerate(heads):
        _require(isinstance(head, dict) and set(head) == {"phi", "psi", "readout"}, f"head {h} reads exactly phi, psi, readout")
        phi, psi = _matrix(head["phi"], f"phi_{h}", size), _matrix(head["psi"], f"psi_{h}", size)
        _require(len(phi[0]) == len(psi[0]), f"head {h}: phi and psi must have one feature rank")
        _require(all(v >= 0 for row in phi + psi for v in row), f"head {h}: feature maps must be nonnegative")
        K = [[sum((a * b for a, b in zip(phi[i], psi[k])), Fraction(0)) for k in range(size)] for i in range(size)]
        _require(all(K[i][i] > 0 for i in range(size)), f"head {h}: kappa(q, q) must be positive for every q")
        kernels.append(K)
        readouts.append(_matrix(head["readout"], f"readout_{h}", size, size))
        ranks.append(len(phi[0]))
    count, worst = 0, Fraction(0)
    for n in lengths:
        for qi in range(size):
            q = tokens[qi]
            contexts = combinations_with_replacement(range(size), n - 1) if symmetry == "context" else product(range(size), repeat=n - 1)
            for context in contexts:
                seq = context + (qi,)
                target = min((tokens[i] & q).bit_count() for i in seq)
                y = Fraction(0)
                for K, U in zip(kernels, readouts):
                    y += sum((K[qi][i] * U[qi][i] for i in seq), Fraction(0)) / sum((K[qi][i] for i in seq), Fraction(0))
                error = abs(y - target)
                _require(_within(error, tolerance), f"sequence {[tokens[i] for i in seq]} (m={m}): error {error} is not < {tolerance}")
                worst = max(worst, error)
                count += 1
    where = f"every token of {{0,1}}^{m}" if data["alphabet"] == "all" else f"the {size} tokens {data['alphabet']}"
    evaluated = "context multisets (each covering its permutations)" if symmetry == "context" else "sequences"
    return (f"{len(heads)} heads of feature ranks {ranks} (total {sum(ranks)}) solve lengths {lengths} over {where}: "
            f"{count} {evaluated}, worst error {worst}, {_bound(tolerance)}")


# ------------------------------------------- paper K: constructions


def _context_orbits(m: int, n: int):
    """One token tuple of length n per orbit of S_m (coordinates) x S_{n-1} (context positions).

    Coordinate i of a tuple carries a column pattern in {0,1}^n; an orbit of
    S_m is a multiset of m patterns (its joint type).  Permuting the context
    positions relabels the patterns; of each such class the type whose count
    vector is lexicographically largest is kept, so every orbit is met.
    """
    from itertools import permutations

    relabel = []
    for perm in permutations(range(n - 1)):
        perm = perm + (n - 1,)
        relabel.append([sum(1 << perm[j] for j in range(n) if p >> j & 1) for p in range(1 << n)])
    for cols in combinations_with_replacement(range(1 << n), m):
        counts = [0] * (1 << n)
        for p in cols:
            counts[p] += 1
        key = tuple(counts)
        canonical = True
        for image in relabel:
            moved = [0] * (1 << n)
            for p, c in enumerate(counts):
                moved[image[p]] += c
            if tuple(moved) > key:
                canonical = False
                break
        if canonical:
            yield tuple(sum(1 << i for i, p in enumerate(cols) if p >> j & 1) for j in range(n))


def _polynomial_value(coefficients: list[Fraction], u: Fraction) -> Fraction:
    value = Fraction(0)
    for c in reversed(coefficients):
        value = value * u + c
    return value


@kind("threshold-polynomial", "m", "length", "coefficients", "symmetry")
def _threshold_polynomial(data: dict) -> str:
    """Rank one with the readout ``sum_{t<=|q|} g(h(S_t))`` is exact on every sequence of one length.

    Head: ``phi = psi = 1`` (feature rank one) with one-hot values, so
    ``h(X)`` is the empirical distribution, ``h(x) = #{j : x_j = x} / n``.
    Readout: ``P_q(h) = sum_{t=1}^{|q|} g(h(S_t))`` with ``S_t = {x : <x,q> < t}``
    and ``g(u) = sum_i c_i u^i`` (``coefficients``, constant first): a
    polynomial of degree ``len(c) - 1`` in h.  Proves ``P_q(h(X)) = T(X)``
    exactly for every X of length ``length`` over ``{0,1}^m``.  With symmetry
    "coordinates-and-context" one tuple per orbit of coordinate x context
    permutations is evaluated: the readout is built from ``|q|`` and ``<x,q>``
    only (invariant under coordinate permutations) and h from the multiset of
    tokens (invariant under context permutations).  "none" evaluates all.
    "scores": y and T depend on X only through ``w = |q|`` and the multiset of
    context scores ``<x_j, q>``, each of which ranges over all of [0, w]
    independently (x = any s-subset of q's ones); enumerating w <= m and those
    multisets covers every sequence over ``{0,1}^{m'}`` for every m' <= m.
    """
    m = _int(data["m"], "m", 1, 1000)
    n = _int(data["length"], "length", 1, 6)
    c = [rational(v) for v in data["coefficients"]]
    _require(len(c) >= 1, "coefficients must not be empty")
    symmetry = data["symmetry"]
    _require(symmetry in ("coordinates-and-context", "none", "scores"), f"unknown symmetry {symmetry!r}")
    _require(symmetry != "none" or m <= 8, "symmetry 'none' enumerates 2^(m n) sequences: m <= 8")
    _require(symmetry == "scores" or m <= 64, "tables of tuples need m <= 64")
    # (D+1) h(S_t) = k is an integer count of positions, so g is only read at k/n
    g_at = [_polynomial_value(c, Fraction(k, n)) for k in range(n + 1)]
    if symmetry == "scores":  # (|q|, context scores); the query's own score is |q|
        cases = ((w, context + (w,)) for w in range(m + 1) for context in combinations_with_replacement(range(w + 1), n - 1))
    else:
        sequences = _context_orbits(m, n) if symmetry != "none" else product(range(1 << m), repeat=n)
        cases = ((seq[-1].bit_count(), [(x & seq[-1]).bit_count() for x in seq]) for seq in sequences)
    count = 0
    for w, scores in cases:
        # sum_{t=1}^{w} g(k_t/n), k_t = #{context scores < t}: k_t = i exactly for t in (s_(i), s_(i+1)]
        # (context scores sorted, s_(0) = 0, s_(n) = w; the query's own score w is never < t)
        bounds = [0] + sorted(scores[:-1]) + [w]
        y = sum((g_at[i] * (bounds[i + 1] - bounds[i]) for i in range(n)), Fraction(0))
        _require(y == min(scores), f"|q| = {w}, scores {list(scores)} (m={m}): readout {y} != T = {min(scores)}")
        count += 1
    where = f"every m' <= {m} ({count} statistic points)" if symmetry == "scores" else f"m={m} ({count} tuples, symmetry {symmetry})"
    return f"rank one, readout of degree {len(c) - 1}: y = T exactly on every sequence of length {n} at {where}"


@kind("polynomial-readout-table", "m", "length", "psi", "monomials", "coefficients")
def _polynomial_readout_table(data: dict) -> str:
    """A rank-one head with a tabled polynomial readout has error < 1/2 on every sequence of one length.

    Head: ``kappa(q, x) = phi(q) psi(x)`` (feature rank one; ``phi(q) > 0``
    cancels), ``psi`` > 0 given per token, one-hot values, so
    ``h(x) = psi(x) #x / sum_j psi(x_j)``.  Readout:
    ``P_q(h) = sum_j c[q][j] prod_{a in mono_j} h(a)`` (``monomials``: sorted
    tuples of tokens, each once; ``coefficients``: one row per query q); its
    degree is the longest monomial.  The checker evaluates every sequence of
    length ``length`` (context as a multiset: h ignores the order) exactly --
    only monomials over the support of h are nonzero -- and requires
    ``|P_q(h) - T| < 1/2``.  It also holds at every m' <= m: padding tokens
    with zeros keeps every inner product.
    """
    m = _int(data["m"], "m", 1, 5)
    n = _int(data["length"], "length", 1, 6)
    size = 1 << m
    psi = [rational(v) for v in data["psi"]]
    _require(len(psi) == size and all(v > 0 for v in psi), f"psi must give {size} positive weights")
    monomials = [tuple(_int(a, "token", 0, size - 1) for a in mono) for mono in data["monomials"]]
    _require(all(list(mono) == sorted(mono) for mono in monomials), "monomials must list their tokens in order")
    index = {mono: j for j, mono in enumerate(monomials)}
    _require(len(index) == len(monomials), "a monomial is listed twice")
    C = _matrix(data["coefficients"], "coefficients", size, len(monomials))
    degree = max((len(mono) for mono in monomials), default=0)
    worst = Fraction(0)
    for seq in _sequences_up_to_context_order(m, [n]):
        q = seq[-1]
        total = sum(psi[x] for x in seq)
        h = {}
        for x in seq:
            h[x] = h.get(x, 0) + psi[x] / total
        y = Fraction(0)
        for d in range(degree + 1):
            for mono in combinations_with_replacement(sorted(h), d):
                j = index.get(mono)
                if j is not None and C[q][j]:
                    term = C[q][j]
                    for a in mono:
                        term *= h[a]
                    y += term
        error = abs(y - _target(seq))
        _require(error < Fraction(1, 2), f"sequence {list(seq)} (m={m}): error {error} is not < 1/2")
        worst = max(worst, error)
    return f"rank one, tabled readout of degree {degree}: error <= {worst} < 1/2 on every sequence of length {n} at every m' <= {m}"


