"""Attention models of paper K, evaluated exactly, and the Min-IP task.

Tokens are ``x in {0,1}^m``, stored as ints (bit i = coordinate i);
``|x|`` is the weight and ``<x, y> = |x AND y|``.  A sequence
``X = (x_1, ..., x_n)`` ends with its **query** ``q = x_n``.

* **Min-IP target** ``T(X) = min_{1<=j<=n} <x_j, q>`` (the query's own
  ``<q, q> = |q|`` is an upper bound of the others, so including it only
  makes ``n = 1`` defined).
* **Kernel head** of feature rank r: ``phi, psi : {0,1}^m -> R^r_{>=0}``,
  ``kappa(q, x) = <phi(q), psi(x)>`` with ``kappa(q, q) > 0``; its output at the
  final position is the normalised average
  ``h(X) = sum_j kappa(q, x_j) v(x_j) / sum_j kappa(q, x_j)``.
  Position-dependent heads take the position j (1-based) as well.
* **Readouts**: affine ``y = sum_h <a_h(q), h_h(X)> + b(q)`` over the heads
  (one head: ``y = <a(q), h> + b(q)``), or a polynomial ``y = P_q(h_1, ...)``.
* **Softmax head** at temperature ``beta = ln b`` with rational base ``b``:
  scores ``-beta <q, x>``, so weights ``b^{-<q,x>}`` are rational; values
  ``v(x) = x``; readout ``<q, h>``.

Everything is exact (``fractions.Fraction``); a float anywhere is refused.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

Vector = tuple[Fraction, ...]


def weight(x: int) -> int:
    """``|x|``, the number of ones."""
    return x.bit_count()


def inner(x: int, y: int) -> int:
    """``<x, y> = |x AND y|``."""
    return (x & y).bit_count()


def min_ip_target(sequence: Sequence[int]) -> int:
    """``T(X) = min_j <x_j, q>`` with ``q`` the final token."""
    q = sequence[-1]
    return min(inner(x, q) for x in sequence)


def bits(x: int, m: int) -> str:
    """Token as a bit string, coordinate 1 first (``0b0011`` with m = 4 prints ``1100``)."""
    return "".join("1" if x >> i & 1 else "0" for i in range(m))


def _exact(values) -> Vector:
    values = tuple(values)
    if set(map(type, values)) <= {Fraction}:  # the common case, checked at C speed: already exact
        return values
    out = []
    for v in values:
        if isinstance(v, float):
            raise TypeError(f"refusing the float {v!r}: attention models are evaluated exactly")
        out.append(v if isinstance(v, Fraction) else Fraction(v))
    return tuple(out)


@dataclass(frozen=True)
class KernelHead:
    """A normalised nonnegative kernel-attention head.

    ``kernel(j, q, x) = <phi_j(q), psi_j(x)> >= 0`` and ``value(j, x)`` may
    depend on the position ``j`` (1-based); tokenwise heads ignore it.
    ``rank`` is the feature rank r of the factorisation the head was built from.
    """

    kernel: Callable[[int, int, int], Fraction]
    value: Callable[[int, int], Vector]
    rank: int

    @classmethod
    def from_features(cls, phi, psi, value, positional: bool = False) -> "KernelHead":
        """Build ``kappa = <phi, psi>`` from nonnegative feature maps of one length r."""

        def features(f, j, x):
            vec = _exact(f(j, x) if positional else f(x))
            if any(c < 0 for c in vec):
                raise ValueError(f"feature map has a negative entry at token {x}: {vec}")
            return vec

        def kernel(j, q, x):
            return sum((a * b for a, b in zip(features(phi, j, q), features(psi, j, x))), Fraction(0))

        def val(j, x):
            return _exact(value(j, x) if positional else value(x))

        r = len(_exact(phi(1, 0) if positional else phi(0)))
        return cls(kernel, val, r)

    def attend(self, sequence: Sequence[int]) -> Vector:
        """``h(X) = sum_j kappa(q, x_j) v(x_j) / sum_j kappa(q, x_j)`` at the final position."""
        q = sequence[-1]
        weights = [self.kernel(j, q, x) for j, x in enumerate(sequence, start=1)]
        total = sum(weights, Fraction(0))
        if total <= 0:
            raise ZeroDivisionError(f"kernel weights of query {q} sum to {total}: kappa(q, q) must be > 0")
        values = [self.value(j, x) for j, x in enumerate(sequence, start=1)]
        dim, zero = len(values[0]), Fraction(0)
        # zero value entries skipped (one-hot values have 2^m coordinates, n of them nonzero)
        sums = (sum((w * v[i] for w, v in zip(weights, values) if v[i]), zero) for i in range(dim))
        return tuple(s / total if s else zero for s in sums)


@dataclass(frozen=True)
class AffineReadout:
    """``y = sum_h <a_h(q), h_h> + b(q)``; ``a(q)`` returns one vector per head."""

    a: Callable[[int], Sequence[Sequence[Fraction]]]
    b: Callable[[int], Fraction]

    def __call__(self, q: int, outputs: Sequence[Vector]) -> Fraction:
        coefficients = self.a(q)
        total = Fraction(self.b(q))
        for a_h, h in zip(coefficients, outputs, strict=True):
            total += sum((Fraction(c) * x for c, x in zip(a_h, h, strict=True) if x), Fraction(0))
        return total


@dataclass(frozen=True)
class PolynomialReadout:
    """``y = P_q(h_1, ..., h_H)``: any exact function, polynomial of degree <= ``degree`` in h."""

    polynomial: Callable[[int, Sequence[Vector]], Fraction]
    degree: int

    def __call__(self, q: int, outputs: Sequence[Vector]) -> Fraction:
        return Fraction(self.polynomial(q, outputs))


@dataclass(frozen=True)
class AttentionLayer:
    """One attention layer: heads read at the final position, then a readout.

    Its total feature rank is the sum of the heads' ranks.
    """

    heads: tuple[KernelHead, ...]
    readout: Callable[[int, Sequence[Vector]], Fraction]

    @property
    def feature_rank(self) -> int:
        return sum(h.rank for h in self.heads)

    def __call__(self, sequence: Sequence[int]) -> Fraction:
        return self.readout(sequence[-1], [h.attend(sequence) for h in self.heads])

    def error(self, sequence: Sequence[int]) -> Fraction:
        """``|y(X) - T(X)|``; the layer solves exact length n when this is < 1/2 on every X."""
        return abs(self(sequence) - min_ip_target(sequence))


@dataclass(frozen=True)
class TokenwiseHead:
    """One position-independent head with an affine readout, given by its features.

    ``kappa(q, x) = <phi(q), psi(x)>`` (``phi, psi >= 0`` of length r),
    values ``v(x)``, readout ``y = <a(q), h> + b(q)``.  ``kernel`` is an
    optional fast formula for ``kappa``; :meth:`tables` checks it against the
    features before anything is certified.
    """

    m: int
    phi: Callable[[int], Sequence]
    psi: Callable[[int], Sequence]
    value: Callable[[int], Sequence]
    a: Callable[[int], Sequence]
    b: Callable[[int], Fraction]
    kernel: Callable[[int, int], Fraction] | None = None

    @property
    def rank(self) -> int:
        return len(self.phi(0))

    def layer(self) -> AttentionLayer:
        if self.kernel is not None:
            kernel = self.kernel
            head = KernelHead(lambda j, q, x: kernel(q, x), lambda j, x: _exact(self.value(x)), self.rank)
        else:
            head = KernelHead.from_features(self.phi, self.psi, self.value)
        readout = AffineReadout(a=lambda q: [_exact(self.a(q))], b=lambda q: Fraction(self.b(q)))
        return AttentionLayer((head,), readout)

    def tables(self) -> tuple[list[Vector], list[Vector], list[list[Fraction]]]:
        """``phi``, ``psi`` (2^m x r) and ``U[q][x] = <a(q), v(x)> + b(q)`` (2^m x 2^m).

        With U, ``y = sum_j kappa(q,x_j) U[q][x_j] / sum_j kappa(q,x_j)``: the
        readout is affine, so it passes through the normalised average.
        """
        size = 1 << self.m
        phi = [_exact(self.phi(x)) for x in range(size)]
        psi = [_exact(self.psi(x)) for x in range(size)]
        if any(v < 0 for row in phi + psi for v in row):
            raise ValueError("feature maps must be nonnegative")
        if self.kernel is not None:
            for q in range(size):
                for x in range(size):
                    if sum((a * b for a, b in zip(phi[q], psi[x]) if a and b), Fraction(0)) != self.kernel(q, x):
                        raise ValueError(f"kernel formula differs from <phi, psi> at q={q}, x={x}")
        values = [_exact(self.value(x)) for x in range(size)]
        dim = len(values[0])
        # values are often one-hot: multiply only the nonzero entries
        support = [[(i, v) for i, v in enumerate(vec) if v.numerator] for vec in values]
        # integer values (one-hot ones are): rows with an integer a(q) and b(q) are summed in int arithmetic,
        # the same numbers, made into one Fraction per distinct entry (a Fraction sum per entry costs ~10x)
        integer_support = ([[(i, v.numerator) for i, v in row] for row in support]
                           if all(v.denominator == 1 for row in support for _, v in row) else None)
        made: dict[int, Fraction] = {}
        U = []
        for q in range(size):
            a, b = _exact(self.a(q)), Fraction(self.b(q))
            if len(a) != dim:
                raise ValueError(f"a(q) has length {len(a)}, values have length {dim}")
            if integer_support is not None and b.denominator == 1 and {c.denominator for c in a} <= {1}:
                ints, start = [c.numerator for c in a], b.numerator
                row = [start + sum(ints[i] * v for i, v in pairs) for pairs in integer_support]
                U.append([made[v] if v in made else made.setdefault(v, Fraction(v)) for v in row])
            else:
                U.append([sum((a[i] * v for i, v in support[x]), b) for x in range(size)])
        return phi, psi, U


@functools.lru_cache(maxsize=4096)
def softmax_weight(base: Fraction, score: int) -> Fraction:
    """``e^{-beta s}`` with ``beta = ln base``: exactly ``base^{-s}`` (cached: tables ask for the same few)."""
    return Fraction(1) / Fraction(base) ** score


def softmax_witness(m: int, base: Fraction) -> TokenwiseHead:
    """Dense softmax at ``beta = ln base``: scores ``-beta<q,x>``, values ``x``, readout ``<q, h>``.

    Its kernel ``base^{-<q,x>}`` is the Kronecker product of m copies of
    ``[[1, 1], [1, 1/base]]``; as features, ``phi(q)`` = one-hot of q and
    ``psi(x)`` = column x of the kernel (feature rank 2^m, which is its exact rank).
    """
    base = Fraction(base)
    size = 1 << m
    return TokenwiseHead(
        m=m,
        phi=lambda q: tuple(Fraction(int(i == q)) for i in range(size)),
        psi=lambda x: tuple(softmax_weight(base, inner(i, x)) for i in range(size)),
        value=lambda x: tuple(Fraction(x >> i & 1) for i in range(m)),
        a=lambda q: tuple(Fraction(q >> i & 1) for i in range(m)),
        b=lambda q: Fraction(0),
        kernel=lambda q, x: softmax_weight(base, inner(q, x)),
    )


def softmax_kernel_matrix(m: int, base: Fraction) -> list[list[Fraction]]:
    """The ``2^m x 2^m`` matrix ``K[q, x] = base^{-<q,x>}``."""
    return [[softmax_weight(base, inner(q, x)) for x in range(1 << m)] for q in range(1 << m)]


# ------------------------------------------------------------ score statistic
#
# A head whose weight and readout value depend on the query and a token only
# through ``(|q|, <q, x>)`` has ``y(X)`` and ``T(X)`` depending on X only through
# ``|q|`` and the multiset of context scores ``<x_j, q>``.  Every score in
# [0, |q|] is achievable by some token, independently for each position, so
# enumerating these statistics checks every input.


@dataclass(frozen=True)
class ScoreHead:
    """A head given by ``kappa(w, s)`` and ``U(w, s)``, with ``w = |q|``, ``s = <q, x>``.

    Output ``y = sum_j kappa(w, s_j) U(w, s_j) / sum_j kappa(w, s_j)``.
    """

    kappa: Callable[[int, int], Fraction]
    value: Callable[[int, int], Fraction]

    def output(self, w: int, context_scores: Sequence[int]) -> Fraction:
        scores = list(context_scores) + [w]  # the query attends to itself with score |q|
        weights = [Fraction(self.kappa(w, s)) for s in scores]
        total = sum(weights, Fraction(0))
        return sum((k * Fraction(self.value(w, s)) for k, s in zip(weights, scores)), Fraction(0)) / total

    def error(self, w: int, context_scores: Sequence[int]) -> Fraction:
        return abs(self.output(w, context_scores) - min(list(context_scores) + [w]))

    def tables(self, m: int) -> tuple[list[list[Fraction]], list[list[Fraction]]]:
        """``kappa`` and ``U`` as triangular tables ``[w][s]``, 0 <= s <= w <= m."""
        def exact(v):
            return v if type(v) is Fraction else Fraction(v)

        return (
            [[exact(self.kappa(w, s)) for s in range(w + 1)] for w in range(m + 1)],
            [[exact(self.value(w, s)) for s in range(w + 1)] for w in range(m + 1)],
        )


# ------------------------------------------------------------------- sweeps


@dataclass
class Sweep:
    """The result of evaluating a model on every input of a family.

    ``inputs`` counts the sequences covered (orbit sizes summed), ``points``
    the evaluations actually made; ``worst`` is the largest error and
    ``worst_input`` where it occurs; ``failure`` is the first input with error
    >= the tolerance (None when every input passed).
    """

    inputs: int = 0
    points: int = 0
    worst: Fraction = Fraction(0)
    worst_input: tuple | None = None
    failure: tuple | None = None

    def record(self, error: Fraction, where: tuple, multiplicity: int, tolerance: Fraction) -> None:
        self.inputs += multiplicity
        self.points += 1
        if self.worst_input is None or error > self.worst:
            self.worst, self.worst_input = error, where
        if self.failure is None and error >= tolerance:
            self.failure = where


HALF = Fraction(1, 2)


def sweep_orbits(layer: AttentionLayer, m: int, n: int, poll=lambda: None, tolerance: Fraction = HALF) -> Sweep:
    """Evaluate ``layer`` on one sequence per orbit of ``S_m`` x (context permutations).

    Valid only for a layer invariant under coordinate permutations — check
    that first (:func:`solvers.orbits.invariant_under_coordinates`); the
    output of a kernel head is always invariant under permuting the context.
    """
    from solvers.orbits import tuples_up_to_symmetry

    sweep = Sweep()
    for seq, size in tuples_up_to_symmetry(m, n):
        poll()
        sweep.record(layer.error(seq), seq, size, tolerance)
    return sweep


def sweep_all(layer: AttentionLayer, m: int, n: int, poll=lambda: None, tolerance: Fraction = HALF) -> Sweep:
    """Evaluate ``layer`` on every sequence of length n (the naive enumeration)."""
    from itertools import product

    sweep = Sweep()
    for seq in product(range(1 << m), repeat=n):
        poll()
        sweep.record(layer.error(seq), seq, 1, tolerance)
    return sweep


def sweep_rank_one_tables(psis, readouts, tokens, n: int, poll=lambda: None, tolerance: Fraction = HALF) -> Sweep:
    """Rank-one heads given by tables, on every sequence of length n over ``tokens`` (query last).

    Head h has ``phi_h = 1``, ``kappa_h(q, x) = psi_h(x) >= 0`` and one-hot values read by
    the row ``U_h[q]``, so for ``X = (x_1, ..., x_n)``, ``q = x_n``,

        y(X) = sum_h N_h / D_h,   N_h = sum_j psi_h(x_j) U_h[q, x_j],   D_h = sum_j psi_h(x_j)

    (``psis[h][i]`` and ``readouts[h][qi][i]`` indexed by position in ``tokens``): the
    layer of :class:`KernelHead` with these features, one-hot values and an affine
    readout.  Each ``N_h / D_h`` is symmetric in the context, so one sequence per
    context multiset is evaluated and stands for its multinomial count of
    sequences; the walk (queries in token order, contexts as
    ``combinations_with_replacement``), the counts, the worst error, the worst
    input and the first failure are those of evaluating that layer on each.

    In integers: ``psi_h`` is scaled by the lcm ``s_h`` of its denominators and each row
    ``U_h[q]`` by the lcm ``t_hq`` of its own (positive scales: ``N_h / D_h`` is the
    scaled numerator over ``t_hq`` times the scaled denominator), so
    ``y - T = num / den`` with ``num, den`` integers, ``den > 0``, compared by
    cross-multiplication; a Fraction is made only for a new worst error.
    """
    from itertools import combinations_with_replacement
    from math import factorial, lcm

    size = len(tokens)
    scaled_psi, scaled_u = [], []
    for psi, rows in zip(psis, readouts, strict=True):
        psi = _exact(psi)
        if len(psi) != size or any(v < 0 for v in psi):
            raise ValueError("psi must have one nonnegative entry per token")
        s = lcm(*(v.denominator for v in psi))
        p = [v.numerator * (s // v.denominator) for v in psi]
        per_query = []
        for row in rows:
            row = _exact(row)
            t = lcm(*(v.denominator for v in row))
            per_query.append((t, [pi * v.numerator * (t // v.denominator) for pi, v in zip(p, row, strict=True)]))
        scaled_psi.append(p)
        scaled_u.append(per_query)
    heads = range(len(scaled_psi))
    targets = [[inner(x, q) for x in tokens] for q in tokens]
    tol_num, tol_den = tolerance.numerator, tolerance.denominator
    sweep = Sweep()
    best_num, best_den = -1, 1
    for qi, q in enumerate(tokens):
        rows = [(scaled_psi[h], scaled_u[h][qi][0], scaled_u[h][qi][1]) for h in heads]
        to_q = targets[qi]
        for context in combinations_with_replacement(range(size), n - 1):
            poll()
            seq = context + (qi,)
            num, den = 0, 1
            for p, t, pu in rows:  # y = sum_h N_h / (t D_h), summed as one fraction num / den
                D = t * sum(p[i] for i in seq)
                if D <= 0:
                    raise ZeroDivisionError(f"kernel weights of query {q} sum to 0: kappa(q, q) must be > 0")
                num, den = num * D + sum(pu[i] for i in seq) * den, den * D
            num = abs(num - min(to_q[i] for i in seq) * den)
            count = factorial(n - 1)
            for i in set(context):
                count //= factorial(context.count(i))
            sweep.inputs += count
            sweep.points += 1
            if num * best_den > best_num * den:
                best_num, best_den = num, den
                sweep.worst, sweep.worst_input = Fraction(num, den), tuple(tokens[i] for i in seq)
            if sweep.failure is None and num * tol_den >= tol_num * den:
                sweep.failure = tuple(tokens[i] for i in seq)
    return sweep


def score_statistics(m: int, n: int):
    """Every achievable ``(|q|, sorted context scores)`` at length n over ``{0,1}^m``."""
    from itertools import combinations_with_replacement

    for w in range(m + 1):
        for scores in combinations_with_replacement(range(w + 1), n - 1):
            yield w, scores


def token_sequence(w: int, scores: Sequence[int]) -> tuple[int, ...]:
    """Tokens realising a statistic: ``q = 1^w 0...``, context token j = first s_j ones of q."""
    q = (1 << w) - 1
    return tuple((1 << s) - 1 for s in scores) + (q,)


def gap_form(kappa_rows, value_rows) -> tuple[Fraction, Fraction, Fraction] | None:
    """(r, alpha, c) when ``kappa(w, s) = a_w r^s`` (a_w, r > 0) and ``U(w, s) = alpha s + (1 - alpha) w + c``
    on the tables (rows ``[w][s]``, w = 0..m, m >= 1); else None.

    Then, with the gaps ``d_j = s_j - T`` and ``D = w - T``,
    ``y - T = sum_j r^{d_j} (alpha d_j + (1 - alpha) D + c) / sum_j r^{d_j}``:
    the error depends on the gaps above the minimum only (the trusted
    ``score-statistic`` check proves this in its docstring).
    """
    from math import lcm

    m = len(value_rows) - 1
    if m < 1:
        return None
    alpha, c, r = value_rows[m][1] - value_rows[m][0], value_rows[m][m] - m, None
    scale = lcm(alpha.denominator, c.denominator)  # U compared in integers, times this
    a_int, c_int = int(alpha * scale), int(c * scale)
    geometric = {}  # a_w -> a_w r^s, s <= m
    for w, (k, u) in enumerate(zip(kappa_rows, value_rows)):
        base = (scale - a_int) * w + c_int
        if k[0] <= 0 or any(v.numerator * scale != (a_int * s + base) * v.denominator for s, v in enumerate(u)):
            return None
        if w >= 1:
            r = k[1] / k[0] if r is None else r
            if k[0] not in geometric:
                powers = [k[0]]
                for _ in range(m):  # r = 1 keeps the very object: a table of one shared weight compares by identity
                    powers.append(powers[-1] * r if r != 1 else powers[-1])
                geometric[k[0]] = powers
            if k != geometric[k[0]][:w + 1]:
                return None
    return (r, alpha, c) if r is not None and r > 0 else None


def sweep_scores(head: ScoreHead, m: int, n: int, poll=lambda: None, tolerance: Fraction = HALF,
                 reduce: bool = True) -> Sweep:
    """Evaluate a score-statistic head on every achievable statistic (see :class:`ScoreHead`).

    Exact: per ``w`` the rows ``kappa(w, .)`` and ``U(w, .)`` are scaled to
    integers (a positive scale changes no error), so each point costs a few
    integer operations; the worst error is kept as an exact fraction.

    When the head has the gap form (:func:`gap_form`, e.g. softmax with values
    ``<q,x>``), a statistic ``(w, S)`` with minimum T has the error of
    ``(w - T, S - T)``, so only the statistics with minimum 0 are evaluated,
    each standing for the ``m - w + 1`` statistics ``(w + T, S + T)``: ``inputs``
    still counts every statistic, ``points`` the evaluations.  The worst error,
    the worst input and the first failure are those of the full walk (in the
    walk's order the first statistic with a given error has minimum 0).
    ``reduce=False`` walks every statistic.
    """
    from itertools import combinations_with_replacement
    from math import lcm

    sweep = Sweep()
    kappa_rows, value_rows = head.tables(m)
    form = gap_form(kappa_rows, value_rows) if reduce else None
    gaps = form is not None
    if gaps:  # weights r^s = P^s / Q^s, as P^s Q^(w-s) per w (a positive scale); values scaled to integers
        (p, q), alpha, c = (form[0].numerator, form[0].denominator), form[1], form[2]
        powers_p, powers_q = [p**s for s in range(m + 1)], [q**s for s in range(m + 1)]
        scale_u = lcm(alpha.denominator, c.denominator)
        a_int, c_int = int(alpha * scale_u), int(c * scale_u)
    for w in range(m + 1):
        poll()
        if gaps:
            K = [powers_p[s] * powers_q[w - s] for s in range(w + 1)]
            U = [a_int * s + (scale_u - a_int) * w + c_int for s in range(w + 1)]
        else:
            scale_k = lcm(*(k.denominator for k in kappa_rows[w]))
            scale_u = lcm(*(u.denominator for u in value_rows[w]))
            K = [int(k * scale_k) for k in kappa_rows[w]]
            U = [int(u * scale_u) for u in value_rows[w]]
        best_num, best_den = (sweep.worst.numerator, sweep.worst.denominator) if sweep.points else (-1, 1)
        if not gaps:
            walk, stands_for = combinations_with_replacement(range(w + 1), n - 1), 1
        elif n >= 2:
            walk, stands_for = ((0,) + rest for rest in combinations_with_replacement(range(w + 1), n - 2)), m - w + 1
        else:
            walk, stands_for = iter([()] if w == 0 else []), m + 1
        for scores in walk:
            target = scale_u * (scores[0] if scores else w)
            total = K[w] + sum(K[s] for s in scores)
            num = abs(K[w] * (U[w] - target) + sum(K[s] * (U[s] - target) for s in scores))
            den = scale_u * total
            sweep.points += 1
            sweep.inputs += stands_for
            # error = num/den; compare by cross-multiplying, build a Fraction only when needed
            if num * best_den > best_num * den:
                best_num, best_den = num, den
                sweep.worst, sweep.worst_input = Fraction(num, den), (w, scores)
            if sweep.failure is None and (num * tolerance.denominator >= tolerance.numerator * den if tolerance else num):
                sweep.failure = (w, scores)
    return sweep


# ------------------------------------------------- paper K: constructions


@dataclass(frozen=True)
class UniformOneHotHead:
    """The rank-one head ``phi = psi = 1`` with one-hot values ``v(x) = e_x``, its output kept sparse.

    Uniform weights make ``h(X)`` the empirical distribution of the tokens of X,
    ``h(x) = #{j : x_j = x} / n``: the same vector as :class:`KernelHead` built
    from these features, returned as a dict of its (at most n) nonzero entries
    instead of 2^m dense ones.
    """

    rank: int = 1

    def attend(self, sequence: Sequence[int]) -> dict[int, Fraction]:
        counts: dict[int, int] = {}
        for x in sequence:
            counts[x] = counts.get(x, 0) + 1
        n = len(sequence)
        return {x: _share(c, n) for x, c in counts.items()}


@functools.cache
def _share(count: int, n: int) -> Fraction:
    """``count / n``, made once per pair: a sweep meets the same few shares millions of times (Fractions
    are immutable, so sharing one object is safe)."""
    return Fraction(count, n)


def uniform_one_hot_kernel_head(m: int) -> KernelHead:
    """The dense twin of :class:`UniformOneHotHead` (2^m-dimensional one-hot values), for cross-checks."""
    size = 1 << m
    return KernelHead.from_features(lambda q: (1,), lambda x: (1,), lambda x: tuple(int(i == x) for i in range(size)))
