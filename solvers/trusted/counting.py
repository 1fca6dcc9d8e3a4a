"""Family: counting and decoding."""

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


def _behaviour(prefix, m: int) -> tuple[int, ...]:
    """``q -> T(prefix, q) = min(|q|, min_{x in prefix} <x, q>)`` over every query q in {0,1}^m."""
    return tuple(min([q.bit_count()] + [(x & q).bit_count() for x in prefix]) for q in range(1 << m))


def _ceil_log2_from(count: int, bits) -> int:
    """Check ``2^(b-1) < count``, i.e. ``log2 count > b - 1``: an integer number of bits >= log2 count is >= b."""
    b = _int(bits, "bits", 0, 1 << 20)
    _require(b == 0 or (1 << (b - 1)) < count, f"{b} bits is more than log2 {count} certifies")
    return b


@kind("prefix-behaviours", "m", "counts", "bits")
def _prefix_behaviours(data: dict) -> str:
    """Exact counts ``N(n)`` of the functions ``q -> T(prefix, q)`` over prefixes of length n - 1.

    The function of a prefix depends on its set of tokens only, and
    ``T(P + x, q) = min(T(P, q), <x, q>)``; so the functions of length-(n-1)
    prefixes are the functions of length-(n-2) prefixes and their pointwise
    minima with one more token's ``q -> <x, q>``.  The checker builds these sets
    level by level and compares their sizes with ``counts`` (n -> N(n)).  A
    receiver whose output depends on the prefix only through a message from
    a set of 2^B messages must separate the N(n) functions: ``B >= log2 N(n)``;
    ``bits`` (n -> b) is checked to satisfy ``2^(b-1) < N(n)``.
    """
    m = _int(data["m"], "m", 1, 6)
    counts = {int(n): _int(v, "count", 1) for n, v in data["counts"].items()}
    _require(set(data["bits"]) == set(data["counts"]), "bits and counts must name the same lengths")
    lengths = sorted(counts)
    _require(lengths == list(range(2, lengths[-1] + 1)), "counts must cover n = 2, 3, ... without gaps")
    tokens = [_behaviour([x], m) for x in range(1 << m)]
    level = set(tokens)
    for n in lengths:
        if n > 2:
            level = level | {tuple(map(min, f, g)) for f in level for g in tokens}
        _require(len(level) == counts[n], f"N({n}) = {len(level)} at m={m}, not {counts[n]}")
    bits = {int(n): _ceil_log2_from(counts[int(n)], b) for n, b in data["bits"].items()}
    return f"m={m}: N(n) = {[counts[n] for n in lengths]} for n = 2..{lengths[-1]}; bits received >= {[bits[n] for n in lengths]}"


@kind("fooling-family", "m", "queries", "tokens", "n_max")
def _fooling_family(data: dict) -> str:
    """``N(n) >= C(M, n-1) >= m^(n-1)`` for every n in 2..n_max: at least (n-1) log2 m bits.

    ``queries`` Q_1..Q_M and ``tokens`` t_1..t_M with ``|Q_j| >= 1`` and
    ``<t_i, Q_j> = 0`` iff ``i = j`` (checked for every pair).  A prefix made of
    n - 1 distinct tokens t_i, i in S, has ``T(prefix, Q_j) = 0`` iff j in S, so
    distinct S give distinct functions: ``N(n) >= C(M, n-1)``.  The checker
    then compares the integers ``C(M, n-1)`` and ``m^(n-1)``.
    """
    m = _int(data["m"], "m", 1, 16)
    Q = [_int(x, "query", 1, (1 << m) - 1) for x in data["queries"]]
    t = [_int(x, "token", 0, (1 << m) - 1) for x in data["tokens"]]
    M = len(Q)
    _require(M == len(t) and M >= 1, "queries and tokens must pair up")
    for i, x in enumerate(t):
        for j, y in enumerate(Q):
            _require(((x & y) == 0) == (i == j), f"<t_{i}, Q_{j}> = {(x & y).bit_count()}: the zero pattern is not diagonal")
    n_max = _int(data["n_max"], "n_max", 2, M + 1)
    binom, power = 1, 1
    for s in range(1, n_max):
        binom, power = binom * (M - s + 1) // s, power * m
        _require(binom >= power, f"C({M}, {s}) = {binom} < {m}^{s}")
    return f"m={m}: N(n) >= C({M}, n-1) >= {m}^(n-1) for n = 2..{n_max}: at least (n-1) log2 {m} bits"


@kind("behaviour-rank", "m", "n", "prefixes", "queries", "prime")
def _behaviour_rank(data: dict) -> str:
    """``rank [T(P, q)]_{P, q} >= k`` over prefixes P of length n - 1 and queries q.

    The checker builds the k x k matrix of Min-IP targets of the given
    prefixes and queries itself and checks it nonsingular modulo the prime.
    A two-way protocol across the cut (prefix | query) exchanging c bits
    splits the matrix into <= 2^c constant rectangles, each of rank <= 1, so
    ``c >= log2 k``.
    """
    m = _int(data["m"], "m", 1, 16)
    n = _int(data["n"], "n", 2, 64)
    prefixes = data["prefixes"]
    queries = [_int(q, "query", 0, (1 << m) - 1) for q in data["queries"]]
    k = len(queries)
    _require(len(prefixes) == k and len(set(queries)) == k, "need k prefixes and k distinct queries")
    rows = []
    for p in prefixes:
        tokens = [_int(x, "token", 0, (1 << m) - 1) for x in p]
        _require(len(tokens) == n - 1, f"a prefix has {len(tokens)} tokens, not n - 1 = {n - 1}")
        rows.append([min([q.bit_count()] + [(x & q).bit_count() for x in tokens]) for q in queries])
    prime = _int(data["prime"], "prime", 2)
    _require(flint.fmpz(prime).is_prime(), f"{prime} is not prime")
    _require(k == 0 or flint.nmod_mat(k, k, [v % prime for r in rows for v in r], prime).rank() == k,
             f"the {k} x {k} matrix of targets is singular modulo {prime}")
    return f"m={m}, n={n}: the prefix x query target matrix has rank >= {k}: two-way across the cut >= log2 {k} bits"


def _sequences_up_to_context_order(m: int, lengths):
    """Every sequence of the given lengths, one per context multiset (h ignores the context order)."""
    for n in lengths:
        for q in range(1 << m):
            for context in combinations_with_replacement(range(1 << m), n - 1):
                yield context + (q,)


def _target(seq) -> int:
    q = seq[-1]
    return min((x & q).bit_count() for x in seq)


@kind("surd-decoding", "m", "primes", "max_length", "precision")
def _surd_decoding(data: dict) -> str:
    """With values ``sqrt p_x`` (distinct primes), ``(q, h)`` determines T on every sequence of length <= L.

    Uniform weights (rank one) give ``h(X) = sum_x (c_x / n) sqrt p_x``, c_x the
    multiplicity of token x.  Per query the checker collects the distinct
    coefficient vectors over every sequence of length 1..L, reads T off each
    vector's support (min over it of <x, q>), encloses each vector's real value
    in a ball (arb, ``precision`` bits, endpoints compared as exact rationals)
    and checks the balls pairwise disjoint: distinct vectors are distinct reals,
    so T is a function of (q, h) on these sequences -- shown without the
    linear independence of square roots of primes.
    """
    m = _int(data["m"], "m", 1, 4)
    L = _int(data["max_length"], "max_length", 1, 12)
    primes = [_int(p, "prime", 2) for p in data["primes"]]
    _require(len(primes) == 1 << m, f"need one prime per token: {1 << m}")
    _require(len(set(primes)) == len(primes), "the primes must be distinct")
    _require(all(flint.fmpz(p).is_prime() for p in primes), "every value must be the square root of a prime")
    precision = _int(data["precision"], "precision", 53, 1 << 16)
    by_query: dict = {}
    for seq in _sequences_up_to_context_order(m, range(1, L + 1)):
        n = len(seq)
        vector = tuple(Fraction(seq.count(x), n) for x in range(1 << m))
        T = _target(seq)
        _require(by_query.setdefault(seq[-1], {}).setdefault(vector, T) == T, "one coefficient vector with two targets")
    old = flint.ctx.prec
    flint.ctx.prec = precision
    try:
        roots = [flint.arb(p).sqrt() for p in primes]
        for q, vectors in by_query.items():
            balls = []
            for vector in vectors:
                value = sum((flint.arb(flint.fmpq(c.numerator, c.denominator)) * r for c, r in zip(vector, roots) if c), flint.arb(0))
                mid, rad = value.mid().man_exp(), value.rad().man_exp()
                centre = Fraction(int(mid[0])) * Fraction(2) ** int(mid[1])
                radius = Fraction(int(rad[0])) * Fraction(2) ** int(rad[1])
                balls.append((centre - radius, centre + radius))
            balls.sort()
            for (_, hi), (lo, _) in zip(balls, balls[1:]):
                _require(hi < lo, f"query {q}: two values of h are not separated at {precision} bits")
    finally:
        flint.ctx.prec = old
    classes = sum(len(v) for v in by_query.values())
    return f"values sqrt(p_x), m={m}: (q, h) determines T on every sequence of length <= {L} ({classes} distinct h, all separated)"


@kind("base-decoding", "m", "base", "lengths")
def _base_decoding(data: dict) -> str:
    """With values ``B^x`` (uniform weights), ``(q, h)`` determines T on every sequence of the given lengths.

    ``h(X) = sum_j B^{x_j} / n`` exactly; the checker groups every sequence of
    the given lengths (context as a multiset) by ``(q, h)`` and checks each
    group has one target: one decoder serves all these lengths at once.
    """
    m = _int(data["m"], "m", 1, 5)
    B = _int(data["base"], "base", 2)
    lengths = sorted({_int(n, "length", 1, 10) for n in data["lengths"]})
    seen: dict = {}
    for seq in _sequences_up_to_context_order(m, lengths):
        key = (seq[-1], Fraction(sum(B**x for x in seq), len(seq)))
        T = _target(seq)
        _require(seen.setdefault(key, (T, seq))[0] == T, f"sequences {list(seen[key][1])} and {list(seq)} collide")
    return f"values {B}^x, m={m}: (q, h) determines T on every sequence of lengths {lengths} ({len(seen)} values of (q, h))"


@kind("decoding-collision", "m", "base", "sequences")
def _decoding_collision(data: dict) -> str:
    """Two sequences with the same query and the same ``h = sum_j B^{x_j} / n`` but different targets.

    So no function of (q, h) returns T on both: values ``B^x`` do not serve both lengths.
    """
    m = _int(data["m"], "m", 1, 16)
    B = _int(data["base"], "base", 2)
    seqs = data["sequences"]
    _require(isinstance(seqs, list) and len(seqs) == 2, "give exactly two sequences")
    X, Y = ([_int(x, "token", 0, (1 << m) - 1) for x in s] for s in seqs)
    _require(X and Y and X[-1] == Y[-1], "the two sequences must end with the same query")
    hX, hY = Fraction(sum(B**x for x in X), len(X)), Fraction(sum(B**x for x in Y), len(Y))
    _require(hX == hY, f"h differs: {hX} vs {hY}")
    _require(_target(X) != _target(Y), "the targets agree: not a collision")
    return f"values {B}^x, m={m}: {X} and {Y} share q and h = {hX} but T = {_target(X)} vs {_target(Y)}"


