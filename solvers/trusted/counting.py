"""Family: counting and decoding of the Min-IP target from limited information.

Tokens are bit strings of length m written as integers x in [0, 2^m)
(coordinate i of the token is bit i - 1 of x).  For a sequence X with last
token q the target is ``T(X) = min_{x in X} <x, q>`` (so ``T <= |q|``); for a
prefix P and a query q, ``T(P, q) = T(P + (q,))``.  ``N_m(n)`` is the number
of distinct functions ``q -> T(P, q)`` over prefixes P in ({0,1}^m)^(n-1).

Judgments (canonical data, fields exactly as listed):

* ``behaviour-counts {target, m, counts, bits}``: for each n = 2 .. len(counts)+1,
  ``N_m(n) = counts[n-2]`` exactly, and ``bits[n-2] = ceil(log2 N_m(n))``: if
  position n outputs T from q and a message S(P) that depends on the prefix
  alone, S takes at least ``N_m(n)`` values, i.e. at least ``bits[n-2]`` bits.  (The sets of
  functions are nested in n: equal consecutive counts mean constant from there.)
* ``behaviours-at-least-power {target, m, lengths: [2, n_max]}``: ``N_m(n) >= m^(n-1)``
  for every n with 2 <= n <= n_max, hence at least (n - 1) log2 m bits.
* ``bits-at-least {channel: "two-way-cut", target, m, n, bits}``: every
  deterministic protocol between a side holding a prefix P in ({0,1}^m)^(n-1)
  and a side holding q that outputs ``T(P, q)`` exchanges at least ``bits``
  bits on some input (rule: a larger ``bits`` implies a smaller one).
* ``decodes {target, values, m, lengths}``: with uniform weights (feature rank
  one) and scalar values v(x), ``h(X) = (1/n) sum_j v(x_j)``: any two sequences
  over {0,1}^m whose lengths are in ``lengths`` with the same last token and
  the same h have the same T, so one function of (q, h) returns T on all of
  them.  ``values`` is ``{"sqrt": [p_0, ..]}`` (v(x) = sqrt p_x, distinct primes)
  or ``{"power": B}`` (v(x) = B^x).
* ``no-decoder {target, values, m, max_length}``: with values ``{"power": B}``,
  two sequences over {0,1}^m of lengths <= max_length share q and h but not
  T: no function of (q, h) returns T on every sequence of every length
  1..max_length over {0,1}^m.

Primes are tested only below ``PRIME_BOUND`` (2^62, where the test is exact).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb, gcd

import flint

from solvers.trusted.core import CertificateError, integer, kind, listof, require

PRIME_BOUND = 2**62  # primality is decided (deterministically) only below this
MAX_BASE_BITS = 64  # a base B of at most this many bits (so B^x, x < 2^8, stays small)
TARGET = "min-ip"


def _len(value) -> int:
    return len(value) if isinstance(value, list) else 0


def _int(value, default: int = 0) -> int:
    """A size for a work estimate: the int itself, or ``default`` for anything else (the checker rejects it)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _ceil_log2(count: int) -> int:
    """``min{b >= 0 : 2^b >= count}`` for count >= 1."""
    return (count - 1).bit_length()


def _target(sequence) -> int:
    """``T(X) = min_{x in X} <x, q>``, q the last token (``<q, q> = |q|`` is among them)."""
    q = sequence[-1]
    return min((x & q).bit_count() for x in sequence)


def _tokens(values, name: str, m: int, low: int = 1, high: int | None = None) -> list[int]:
    """A list (``name``) of ``low..high`` tokens, each an int in [0, 2^m)."""
    return [integer(x, "token", 0, (1 << m) - 1) for x in listof(values, name, low, high)]


def _prime(value) -> int:
    """An int p with 2 <= p < 2^62 that is prime (larger ones are refused, not tested)."""
    require(isinstance(value, int) and not isinstance(value, bool), "a prime must be an integer")
    require(2 <= value < PRIME_BOUND, f"a prime must lie in [2, 2^62); got one of {value.bit_length()} bits")
    p = value
    require(flint.fmpz(p).is_prime(), f"{p} is not prime")
    return p


# ------------------------------------------------------------ behaviours


def _behaviours_work(data) -> int:
    m, counts = _int(data["m"]), data["counts"]
    if not 1 <= m <= 6 or not isinstance(counts, list):
        return 0
    return 4**m * (1 + sum(_int(c) for c in counts[:-1]))


@kind("prefix-behaviours", "m", "counts", work=_behaviours_work)
def _prefix_behaviours(data: dict):
    """``N_m(n) = counts[n-2]`` for n = 2 .. len(counts) + 1, by building the sets of functions.

    ``q -> T(P, q)`` depends on the set of tokens of P only, and
    ``T(P + (x,), q) = min(T(P, q), <x, q>)``; so the functions of length-(n-1)
    prefixes are those of length-(n-2) prefixes together with their pointwise
    minima with one more ``q -> <x, q>`` (for n = 2: the ``q -> <x, q>`` themselves,
    as ``<x, q> <= |q|``).  Each level is compared with its count before the
    next is built, so the work is ``4^m (1 + sum of the counts but the last)``
    (m <= 6: at m = 6, n = 5 that is 6.9e7, within the default bound; n = 6 is refused).

    Only the functions new at a level need combining: writing ``L_n`` for
    the level of length-(n-1) prefixes and ``G`` for the generators,
    ``L_{n+1} = L_n ∪ min(L_n, G)``, and for f in ``L_{n-1}``,
    ``min(f, g)`` lies in ``L_n`` already; so
    ``L_{n+1} = L_n ∪ min(L_n ∖ L_{n-1}, G)`` (and ``L_3 = L_2 ∪ min(L_2, G)``).

    A function f is held as one integer, its **thermometer code**
    ``sum_q (2^{f(q)} - 1) 2^{m q}`` (value ``v <= m`` as v low ones in an
    m-bit field per q): the code is injective, and for values ``u, v <= m``
    ``(2^u - 1) & (2^v - 1) = 2^{min(u, v)} - 1``, so the pointwise minimum
    of two functions is the bitwise and of their codes.
    """
    m = integer(data["m"], "m", 1, 6)  # codes of m 2^m bits: 384 at m = 6
    counts = [integer(c, "count", 1) for c in listof(data["counts"], "counts", 1, 64)]
    generators = [sum(((1 << (x & q).bit_count()) - 1) << (m * q) for q in range(1 << m)) for x in range(1 << m)]
    level, new = set(generators), set(generators)
    for n, wanted in enumerate(counts, start=2):
        if n > 2:
            grown = level | {f & g for f in new for g in generators}
            level, new = grown, grown - level
        require(len(level) == wanted, f"N({n}) = {len(level)} at m={m}, not {wanted}")
    bits = [_ceil_log2(c) for c in counts]
    judgment = {"judgment": "behaviour-counts", "target": TARGET, "m": m, "counts": counts, "bits": bits}
    return judgment, f"m={m}: N(n) = {counts} for n = 2..{len(counts) + 1}; at least {bits} bits into position n"


def _fooling_work(data) -> int:
    M, n_max = _len(data["queries"]), _int(data["n_max"])
    return M * M + n_max * (1 + (M + 5 * n_max) // 64) if 0 <= n_max <= M + 1 else 0


@kind("fooling-family", "m", "queries", "tokens", "n_max", work=_fooling_work)
def _fooling_family(data: dict):
    """``N_m(n) >= C(M, n-1) >= m^(n-1)`` for every n in 2..n_max.

    ``queries`` Q_1..Q_M (nonzero) and ``tokens`` t_1..t_M with
    ``<t_i, Q_j> = 0`` iff i = j, checked on every pair.  A prefix of n - 1
    distinct tokens t_i, i in S, has ``T(P, Q_j) = 0`` iff j in S, so distinct
    sets S give distinct functions: ``N_m(n) >= C(M, n-1)`` for n - 1 <= M.
    Then ``C(M, s) >= m^s`` is compared in integers for s = 1 .. n_max - 1.
    """
    m = integer(data["m"], "m", 1, 24)
    Q = [integer(x, "query", 1, (1 << m) - 1) for x in listof(data["queries"], "queries", 1)]
    t = _tokens(data["tokens"], "tokens", m, len(Q), len(Q))
    M = len(Q)
    n_max = integer(data["n_max"], "n_max", 2, M + 1)
    for i, x in enumerate(t):
        if [j for j, y in enumerate(Q) if not x & y] != [i]:  # the queries orthogonal to t_i: Q_i alone
            j = next(j for j, y in enumerate(Q) if ((x & y) == 0) != (i == j))
            raise CertificateError(f"<t_{i}, Q_{j}> = {(x & Q[j]).bit_count()}: the zero pattern is not diagonal")
    binom, power = 1, 1
    for s in range(1, n_max):
        binom, power = binom * (M - s + 1) // s, power * m
        require(binom >= power, f"C({M}, {s}) = {binom} < {m}^{s}")
    judgment = {"judgment": "behaviours-at-least-power", "target": TARGET, "m": m, "lengths": [2, n_max]}
    return judgment, f"m={m}: N(n) >= C({M}, n-1) >= {m}^(n-1) for n = 2..{n_max}: at least (n-1) log2 {m} bits"


def _rank_work(data) -> int:
    k = _len(data["queries"])
    return k**3 + k * k * _int(data["n"])


@kind("behaviour-rank", "m", "n", "prefixes", "queries", "prime", work=_rank_work)
def _behaviour_rank(data: dict):
    """Two-way across the cut (prefix | query): at least ``ceil(log2 k)`` bits.

    The checker builds the k x k matrix ``T(P_i, q_j)`` of the given prefixes
    (each of n - 1 tokens) and distinct queries and checks it nonsingular
    modulo a prime p < 2^62, so the prefix x query matrix has rank >= k over Q.
    The transcripts of a c-bit protocol cut that matrix into at most 2^c
    rectangles on each of which the output depends on q alone (rank <= 1),
    so ``2^c >= k``.
    """
    m = integer(data["m"], "m", 1, 24)
    n = integer(data["n"], "n", 2, 64)
    queries = _tokens(data["queries"], "queries", m)
    k = len(queries)
    require(len(set(queries)) == k, "the queries must be distinct")
    prefixes = [_tokens(p, "prefix", m, n - 1, n - 1) for p in listof(data["prefixes"], "prefixes", k, k)]
    prime = _prime(data["prime"])
    entries = [_target(p + [q]) % prime for p in prefixes for q in queries]
    require(flint.nmod_mat(k, k, entries, prime).rank() == k, f"the {k} x {k} matrix of targets is singular modulo {prime}")
    bits = _ceil_log2(k)
    judgment = {"judgment": "bits-at-least", "channel": "two-way-cut", "target": TARGET, "m": m, "n": n, "bits": bits}
    return judgment, f"m={m}, n={n}: the prefix x query target matrix has rank >= {k}: two-way across the cut >= {bits} bits"


# --------------------------------------------------------------- decoding


def _sequences(m: int, lengths):
    """Every sequence of the given lengths, one per context multiset (h and T ignore the context order)."""
    for n in lengths:
        for q in range(1 << m):
            for context in combinations_with_replacement(range(1 << m), n - 1):
                yield context + (q,)


def _count_sequences(m: int, lengths) -> int:
    """How many :func:`_sequences` yields: 2^m multisets of n - 1 among 2^m tokens, per length n."""
    return sum((1 << m) * comb(n - 2 + (1 << m), n - 1) for n in lengths)


def _surd_work(data) -> int:
    m, L, precision = _int(data["m"]), _int(data["max_length"]), _int(data["precision"])
    if not (1 <= m <= 8 and 1 <= L <= 64):
        return 0
    return _count_sequences(m, range(1, L + 1)) * (1 << m) * (L + 1 + precision // 64)


@kind("surd-decoding", "m", "primes", "max_length", "precision", work=_surd_work)
def _surd_decoding(data: dict):
    """Values ``sqrt p_x`` (distinct primes): (q, h) determines T on every sequence of length 1..L.

    ``h(X) = sum_x (c_x / n) sqrt p_x``, c_x the multiplicity of x.  Per query
    the checker collects the distinct coefficient vectors ``(c_x / n)_x`` over
    every sequence of length 1..L (as the primitive integer vector ``c / gcd(c)``,
    equal exactly when the proportions are); one vector fixes the support of
    X, hence T.
    It encloses each vector's real value in a ball (arb, ``precision`` bits;
    endpoints compared exactly, as integers times one power of two) and checks the balls pairwise
    disjoint (sorted by left end, each ends before the next begins): distinct
    vectors are distinct reals -- without the linear independence of square
    roots of primes.
    """
    m = integer(data["m"], "m", 1, 8)
    L = integer(data["max_length"], "max_length", 1, 64)
    primes = [_prime(p) for p in listof(data["primes"], "primes", 1 << m, 1 << m)]
    require(len(set(primes)) == len(primes), "the primes must be distinct")
    precision = integer(data["precision"], "precision", 53, 1 << 16)
    by_query: dict = {}
    for seq in _sequences(m, range(1, L + 1)):
        counts = [0] * (1 << m)
        for x in seq:
            counts[x] += 1
        g = gcd(*counts)
        vector = tuple(c // g for c in counts)  # proportional counts <=> equal proportions c_x / n
        require(by_query.setdefault(seq[-1], {}).setdefault(vector, _target(seq)) == _target(seq), "one coefficient vector with two targets")
    old = flint.ctx.prec
    flint.ctx.prec = precision
    try:
        roots = [flint.arb(p).sqrt() for p in primes]
        for q, vectors in by_query.items():
            ends = []  # (centre, radius) of each value as dyadic numbers (mantissa, exponent)
            for vector in vectors:
                value = sum((c * r for c, r in zip(vector, roots) if c), flint.arb(0)) / sum(vector)
                ends.append(tuple(tuple(int(v) for v in part.man_exp()) for part in (value.mid(), value.rad())))
            E = min(min(e, f) for (_, e), (_, f) in ends)  # exact integers at the common scale 2^E
            balls = sorted(((a << (e - E)) - (r << (f - E)), (a << (e - E)) + (r << (f - E))) for (a, e), (r, f) in ends)
            for (_, hi), (lo, _) in zip(balls, balls[1:]):
                require(hi < lo, f"query {q}: two values of h are not separated at {precision} bits")
    finally:
        flint.ctx.prec = old
    classes = sum(len(v) for v in by_query.values())
    judgment = {"judgment": "decodes", "target": TARGET, "values": {"sqrt": primes}, "m": m, "lengths": list(range(1, L + 1))}
    return judgment, f"values sqrt(p_x), p = {primes}, m={m}: (q, h) determines T on every sequence of length 1..{L} ({classes} values of h, all separated)"


def _base(value) -> int:
    B = integer(value, "base", 2)
    require(B.bit_length() <= MAX_BASE_BITS, f"the base has more than {MAX_BASE_BITS} bits")
    return B


def _power_size(m: int, base) -> int:
    """Machine words of the largest value B^(2^m - 1), for a work estimate."""
    return 1 + ((1 << m) * _int(base).bit_length()) // 64


def _base_work(data) -> int:
    m, lengths = _int(data["m"]), data["lengths"]
    if not (1 <= m <= 8 and isinstance(lengths, list) and 1 <= len(lengths) <= 64 and all(1 <= _int(n) <= 64 for n in lengths)):
        return 0
    return _count_sequences(m, lengths) * max(lengths) * _power_size(m, data["base"]) + (1 << m) * _power_size(m, data["base"])


@kind("base-decoding", "m", "base", "lengths", work=lambda d: 2 * _base_work(d))
def _base_decoding(data: dict):
    """Values ``B^x``: (q, h) determines T on every sequence whose length is in ``lengths``.

    ``h(X) = sum_j B^{x_j} / n`` exactly; the checker groups every sequence of
    the given lengths (context as a multiset) by ``(q, h)`` and requires one
    target per group: one decoder serves all these lengths at once.
    """
    m = integer(data["m"], "m", 1, 8)
    B = _base(data["base"])
    lengths = [integer(n, "length", 1, 64) for n in listof(data["lengths"], "lengths", 1, 64)]
    require(lengths == sorted(set(lengths)), "lengths must be strictly increasing")
    power = [B**x for x in range(1 << m)]
    seen: dict = {}
    for seq in _sequences(m, lengths):
        key = (seq[-1], Fraction(sum(power[x] for x in seq), len(seq)))
        first = seen.setdefault(key, seq)
        if first is not seq and _target(first) != _target(seq):  # the message is built only on failure
            raise CertificateError(f"sequences {list(first)} and {list(seq)} collide")
    judgment = {"judgment": "decodes", "target": TARGET, "values": {"power": B}, "m": m, "lengths": lengths}
    return judgment, f"values {B}^x, m={m}: (q, h) determines T on every sequence of lengths {lengths} ({len(seen)} values of (q, h))"


def _collision_work(data) -> int:
    m, seqs = _int(data["m"]), data["sequences"]
    if not (1 <= m <= 8 and isinstance(seqs, list)):
        return 0
    return sum(_len(s) for s in seqs) * _power_size(m, data["base"])


@kind("decoding-collision", "m", "base", "max_length", "sequences", work=lambda d: 8 * _collision_work(d))
def _decoding_collision(data: dict):
    """Two sequences of lengths <= max_length, one query, one ``h = sum_j B^{x_j} / n``, two targets.

    No function of (q, h) returns T on both: values ``B^x`` admit no decoder
    for every length 1..max_length at this m.
    """
    m = integer(data["m"], "m", 1, 8)
    B = _base(data["base"])
    L = integer(data["max_length"], "max_length", 1, 10**6)
    X, Y = (_tokens(s, "sequence", m, 1, L) for s in listof(data["sequences"], "sequences", 2, 2))
    require(X[-1] == Y[-1], "the two sequences must end with the same query")
    hX, hY = Fraction(sum(B**x for x in X), len(X)), Fraction(sum(B**x for x in Y), len(Y))
    require(hX == hY, f"h differs: {hX} vs {hY}")
    require(_target(X) != _target(Y), "the targets agree: not a collision")
    judgment = {"judgment": "no-decoder", "target": TARGET, "values": {"power": B}, "m": m, "max_length": L}
    return judgment, f"values {B}^x, m={m}: {X} and {Y} share q and h = {hX} but T = {_target(X)} vs {_target(Y)}: no decoder for lengths 1..{L}"
