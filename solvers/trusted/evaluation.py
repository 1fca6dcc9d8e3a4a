"""Family: exact evaluation of explicit heads (witnesses), target ``T(X) = min_j <x_j, q>`` (q = last token).

The table-driven kinds share one exact evaluator, :func:`evaluate`, over the
sequences of each length (all, or one per class of a symmetry the kind
justifies).  (Heads given by score statistics, whose walk covers every m' <= m at
once, are the family ``scores.py``.)  Tolerance ``t >= 0`` means "error < t"
("exactly 0" for t = 0) and the judgment carries it; heads are named by the
``digest`` of their parsed tables.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import chain, combinations_with_replacement, product

from solvers.trusted.core import CertificateError, digest, flag, integer, kind, listof, rational, require, token
from solvers.trusted.matrices import lcm_denominator, matrix
from solvers.trusted.minip import error_bound, read_lengths, read_tolerance

TARGET = "min-ip"


def _short(value) -> str:
    return repr(value[:40]) if isinstance(value, str) else type(value).__name__


def _choice(raw, options: tuple, name: str) -> str:
    require(isinstance(raw, str) and raw in options, f"{name} must be one of {list(options)}, got {_short(raw)}")
    return raw


def _width(rows) -> int:  # columns of a table, for work estimates
    return len(rows[0]) if isinstance(rows, list) and rows and isinstance(rows[0], list) else 0


def _solves(model, head, rank, m_range, lengths, tolerance, alphabet="all") -> dict:
    return {"judgment": "solves", "model": model, "head": head, "rank": rank, "alphabet": alphabet,
            "m": list(m_range), "lengths": lengths, "target": TARGET, "tolerance": tolerance}


# ------------------------------------------------ the shared exact evaluator


def _joint_types(m: int, n: int):
    """One tuple per orbit of S_m on sequences of n tokens over {0,1}^m: coordinate i carries the column
    pattern (bit i of each token) in {0,1}^n, so an orbit is a multiset of m patterns, each listed once."""
    for cols in combinations_with_replacement(range(1 << n), m):
        yield tuple(sum(1 << i for i, c in enumerate(cols) if c >> j & 1) for j in range(n))


def _sequences(size: int, n: int, order: str, m: int):
    """Sequences of length n, query last: all ("none"), one per context multiset, per joint type,
    or ("scores") one per w = |q| <= m and multiset of context scores in [0, w], realised by q = 1^w, x = 1^s."""
    if order == "scores":
        return (tuple((1 << s) - 1 for s in c) + ((1 << w) - 1,)
                for w in range(m + 1) for c in combinations_with_replacement(range(w + 1), n - 1))
    if order == "coordinates":
        return _joint_types(m, n)
    if order == "context":
        return (c + (q,) for q in range(size) for c in combinations_with_replacement(range(size), n - 1))
    return product(range(size), repeat=n)


def _count(size: int, n: int, order: str, m: int) -> int:
    """Work of :func:`evaluate` on :func:`_sequences`: sequences times n tokens, each an exact rational
    step of about ten elementary operations; a joint type costs m n more to build."""
    if order == "coordinates":
        return math.comb((1 << n) + m - 1, m) * (10 + m) * n
    count = {"context": size * math.comb(size + n - 2, n - 1), "scores": math.comb(m + n, n)}.get(order, size**n)
    return 10 * n * count


def evaluate(cases, output, tolerance: Fraction, m: int, tokens=None) -> tuple[int, Fraction]:
    """Check ``|y(X) - T(X)| < tolerance`` (``== 0`` when 0) for every X in ``cases`` (indices into
    ``tokens``, or tokens; query last), y = ``output(X)`` exactly.  Returns (count, worst error)."""
    ratio = getattr(output, "ratio", None)
    if ratio is not None:
        return _evaluate_ratio(cases, ratio, tolerance, m, tokens)
    count, worst = 0, Fraction(0)
    for seq in cases:
        xs = seq if tokens is None else [tokens[i] for i in seq]
        q = xs[-1]
        error = abs(output(seq) - min((x & q).bit_count() for x in xs))
        if not (error == 0 if tolerance == 0 else error < tolerance):
            raise CertificateError(f"sequence {list(xs)} (m={m}): error {error} is not {error_bound(tolerance)[6:]}")
        worst, count = max(worst, error), count + 1
    return count, worst


def _evaluate_ratio(cases, ratio, tolerance: Fraction, m: int, tokens=None) -> tuple[int, Fraction]:
    """:func:`evaluate` for an output given as an integer ratio ``y = num / den`` (den > 0): the error
    ``|num - T den| / den`` is compared with the tolerance by cross-multiplying, in integers."""
    t_num, t_den = tolerance.numerator, tolerance.denominator
    count, best_num, best_den = 0, 0, 1
    for seq in cases:
        xs = seq if tokens is None else [tokens[i] for i in seq]
        q = xs[-1]
        num, den = ratio(seq)
        gap = abs(num - min(map(int.bit_count, map(q.__and__, xs))) * den)  # T = min_j <x_j, q>
        if not (gap == 0 if t_num == 0 else gap * t_den < t_num * den):
            raise CertificateError(f"sequence {list(xs)} (m={m}): error {Fraction(gap, den)} is not {error_bound(tolerance)[6:]}")
        if gap * best_den > best_num * den:
            best_num, best_den = gap, den
        count += 1
    return count, Fraction(best_num, best_den)


def _attention(heads: list, positional: bool):
    """The output ``y(X) = sum_h sum_j W_hj[q][x_j] U_hj[q][x_j] / sum_j W_hj[q][x_j]`` of heads given
    as lists of (W, U) tables (exact numbers), one per position j (``positional``) or one for every position.

    In integers, row by row: a sequence with query q reads row q of each table only, so row q of a
    head's W tables is scaled by the lcm ``s_w(q)`` of its denominators, then divided by the gcd
    ``g(q)`` of the integers that gives, and of its U tables by ``s_u(q)``:
    ``y_h = sum_j (W s_w / g)(U s_u) / (s_u sum_j W s_w / g)`` (``s_w / g`` cancels).  (One scale
    for a whole table is the lcm of every row's: with distinct denominators a number of thousands
    of digits in every product.)  ``output.ratio`` gives y as one integer ratio (the heads' ratios
    added by cross-multiplying)."""
    cleared = []
    for tables in heads:
        ints, prods, scales = [[] for _ in tables], [[] for _ in tables], []
        for q in range(len(tables[0][0])):
            sw = lcm_denominator(v for W, _ in tables for v in W[q])
            su = lcm_denominator(v for _, U in tables for v in U[q])
            w_rows = [[v.numerator * (sw // v.denominator) for v in W[q]] for W, _ in tables]
            g = math.gcd(*chain.from_iterable(w_rows)) or 1  # a positive factor of row q of every W: it cancels too
            for j, ((W, U), w_row) in enumerate(zip(tables, w_rows)):
                w_row = [w // g for w in w_row]
                u_row = [v.numerator * (su // v.denominator) for v in U[q]]
                ints[j].append(w_row)
                prods[j].append([w * u for w, u in zip(w_row, u_row)])
            scales.append(su)
        cleared.append((ints, prods, scales))

    def ratio(seq) -> tuple[int, int]:
        q, num, den = seq[-1], 0, 1
        for W, P, scales in cleared:
            if positional:
                a, b = sum(P[j][q][x] for j, x in enumerate(seq)), scales[q] * sum(W[j][q][x] for j, x in enumerate(seq))
            else:
                a, b = sum(map(P[0][q].__getitem__, seq)), scales[q] * sum(map(W[0][q].__getitem__, seq))
            num, den = (a, b) if den == 1 and num == 0 else (num * b + a * den, den * b)  # b > 0: W(q, q) > 0
        return num, den

    def output(seq) -> Fraction:
        return Fraction(*ratio(seq))

    output.ratio = ratio
    return output


# ------------------------------------------------------------ kernel heads


def _task(data: dict, high: int) -> tuple[list[int], Fraction]:
    """The fields every solving kind with a table head shares: target, lengths, tolerance."""
    require(data["target"] == TARGET, f"unknown target {_short(data['target'])}")
    return read_lengths(data["lengths"], high), read_tolerance(data["tolerance"])


def _kernel_heads(raw: list, m: int, tokens: list, lengths: list, tolerance: Fraction, symmetry: str):
    """Kernel heads ``{phi, psi, readout}`` over ``tokens``, checked and evaluated.

    Each head: phi, psi (N x r, entries >= 0), kappa = phi psi^T with
    kappa(q, q) > 0, readout U (N x N); ``y = sum_h sum_j K_h[q,x_j] U_h[q,x_j] / sum_j K_h[q,x_j]``.
    ``symmetry``: "none" (every sequence); "context" (one per context multiset:
    each head's sums are symmetric in the context); "coordinates" (one per
    joint type, after checking every kappa and U invariant under a transposition
    and an m-cycle, which generate S_m: y and T are then constant on orbits).
    Returns [(phi, psi, U)], the number of sequences and the worst error.

    "none" is checked on the same walk as "context" and counts every sequence:
    y is a sum over the positions of each head's sums over the context, and T
    a minimum over them, so for every query, every ordering of a context has
    the error of its multiset's sorted ordering, which the walk evaluates;
    each of the ``N^n`` sequences is thus checked, none twice.
    """
    size, heads, kernels = len(tokens), [], []
    for h, head in enumerate(raw):
        require(isinstance(head, dict) and set(head) == {"phi", "psi", "readout"}, f"head {h} reads exactly phi, psi, readout")
        phi, psi = matrix(head["phi"], f"phi_{h}", size), matrix(head["psi"], f"psi_{h}", size)
        require(len(phi[0]) == len(psi[0]), f"head {h}: phi and psi must have the same feature rank r")
        # phi and psi each times the lcm of its denominators: K = kappa times a positive constant, which
        # changes no output y (a ratio of sums of K); signs and positivity are those of kappa
        phi_int, psi_int = _integers(phi), _integers(psi)
        require(all(v >= 0 for row in phi_int + psi_int for v in row), f"head {h}: feature maps must be nonnegative")
        # zero features skipped: one-hot features (softmax as a kernel) make this a lookup, not r products
        support = [[(k, a) for k, a in enumerate(row) if a] for row in phi_int]
        K = [[sum(a * row[k] for k, a in support[q]) for row in psi_int] for q in range(size)]
        require(all(K[q][q] > 0 for q in range(size)), f"head {h}: kappa(q, q) must be positive for every q")
        heads.append((phi, psi, matrix(head["readout"], f"readout_{h}", size, size)))
        kernels.append([(K, heads[-1][2])])
    generators = ((1, 0) + tuple(range(2, m)), tuple((i + 1) % m for i in range(m))) if m >= 2 else ()
    # U compared as integers (times the lcm of its denominators: the same equalities), a row at a time
    integer_tables = [(K, _integers(U)) for [(K, U)] in kernels] if symmetry == "coordinates" else []
    for perm in generators if symmetry == "coordinates" else ():
        image = [sum(1 << perm[i] for i in range(m) if x >> i & 1) for x in range(size)]
        for (K, U), q in product(integer_tables, range(size)):
            Kp, Up = K[image[q]], U[image[q]]
            if [Kp[j] for j in image] != K[q] or [Up[j] for j in image] != U[q]:
                x = next(x for x in range(size) if Kp[image[x]] != K[q][x] or Up[image[x]] != U[q][x])
                raise CertificateError(f"tables are not invariant under the coordinate permutation {perm} at q={q}, x={x}")
    cases = chain.from_iterable(_sequences(size, n, "context" if symmetry == "none" else symmetry, m) for n in lengths)
    every = tokens == list(range(size))  # then a sequence of indices is its own tokens
    count, worst = evaluate(cases, _attention(kernels, False), tolerance, m, None if every else tokens)
    return heads, sum(size**n for n in lengths) if symmetry == "none" else count, worst


def _integers(M: list[list[Fraction]]) -> list[list[int]]:
    """The matrix times the lcm of its denominators (a positive constant), entry by entry in integers."""
    scale = lcm_denominator(v for row in M for v in row)
    return [[v.numerator * (scale // v.denominator) for v in row] for row in M]


def _nonzero(rows) -> int:
    """Entries of a table not written as 0 (anything else counts, a malformed one too: an upper bound)."""
    return sum(1 for row in rows if isinstance(row, list) for v in row if v != 0 and v != "0") if isinstance(rows, list) else 0


def _heads_work(m: int, size: int, heads: list, lengths: list, order: str) -> int:
    # a table entry (read strictly, one kernel product) costs about 8 units of a walked sequence (bench/trusted_work.py):
    # phi and psi read (2 N r), kappa = phi psi^T a product per nonzero entry of phi and column of psi^T
    # (N nnz(phi): N^2 r when phi is dense, N^2 when one-hot), and 3 N^2 for the readout, kappa and the walk's tables
    tables = 8 * sum(size * (_nonzero(h.get("phi")) + 2 * _width(h.get("phi")) + 3 * size) for h in heads if isinstance(h, dict))
    return tables + len(heads) * sum(_count(size, n, order, m) for n in lengths)


def _exhaustive_work(data) -> int:
    m = integer(data["m"], "m", 1, 12)
    order = "coordinates" if data["symmetry"] == "coordinates" else "none"
    return _heads_work(m, 1 << m, [data], read_lengths(data["lengths"], 6), order)


@kind("exhaustive", "m", "lengths", "phi", "psi", "readout", "target", "tolerance", "symmetry", work=_exhaustive_work)
def _exhaustive(data: dict):
    """One kernel head (``phi``, ``psi``, ``readout`` over {0,1}^m) solves every sequence of the lengths at m.

    See :func:`_kernel_heads`; ``symmetry`` "coordinates" or "none".
    Judgment: ``solves{model "kernel", head digest({"phi","psi","readout"}), rank r, m [m, m]}``.
    """
    m = integer(data["m"], "m", 1, 12)
    lengths, tolerance = _task(data, 6)
    symmetry = _choice(data["symmetry"], ("coordinates", "none"), "symmetry")
    head = {key: data[key] for key in ("phi", "psi", "readout")}
    [(phi, psi, U)], count, worst = _kernel_heads([head], m, list(range(1 << m)), lengths, tolerance, symmetry)
    r = len(phi[0])
    return (_solves("kernel", digest({"phi": phi, "psi": psi, "readout": U}), r, (m, m), lengths, tolerance),
            f"feature rank <= {r} head, lengths {lengths} at m={m}: {count} sequences ({symmetry}), "
            f"worst error {worst}, {error_bound(tolerance)}")


def _alphabet(raw, m: int) -> list[int]:
    """``"all"`` (every token of {0,1}^m, in numeric order) or a nonempty list of distinct bit strings."""
    if raw == "all":
        return list(range(1 << m))
    tokens = [token(t, m) for t in listof(raw, "alphabet", 1, 1 << m)]
    require(len(set(tokens)) == len(tokens), "alphabet tokens must be distinct")
    return tokens


def _multi_head_work(data) -> int:
    m = integer(data["m"], "m", 1, 8)
    size = len(data["alphabet"]) if isinstance(data["alphabet"], list) else 1 << m
    order = "context" if data["symmetry"] == "context" else "none"
    return _heads_work(m, size, listof(data["heads"], "heads", 1, 8), read_lengths(data["lengths"], 6), order)


@kind("multi-head-exhaustive", "m", "lengths", "alphabet", "heads", "target", "tolerance", "symmetry", work=_multi_head_work)
def _multi_head_exhaustive(data: dict):
    """H <= 8 kernel heads, mixed affinely, solve every sequence of the given lengths over the alphabet.

    ``alphabet``: "all" or bit strings (tables indexed by alphabet position);
    affine mixing with one-hot values realises every readout U_h (see
    :func:`_kernel_heads`); ``symmetry`` "context" or "none".
    Judgment: ``solves{model "kernel-heads-H", head digest([{"phi","psi","readout"} per head]),
    rank max r_h, alphabet "all" or digest(the token strings as given), m [m, m]}``.
    """
    m = integer(data["m"], "m", 1, 8)
    tokens, (lengths, tolerance) = _alphabet(data["alphabet"], m), _task(data, 6)
    symmetry = _choice(data["symmetry"], ("context", "none"), "symmetry")
    heads, count, worst = _kernel_heads(listof(data["heads"], "heads", 1, 8), m, tokens, lengths, tolerance, symmetry)
    ranks = [len(phi[0]) for phi, _, _ in heads]
    head = digest([{"phi": phi, "psi": psi, "readout": U} for phi, psi, U in heads])
    alphabet = "all" if data["alphabet"] == "all" else digest(data["alphabet"])
    return (_solves(f"kernel-heads-{len(heads)}", head, max(ranks), (m, m), lengths, tolerance, alphabet),
            f"{len(heads)} heads of feature ranks {ranks}, lengths {lengths} over {len(tokens)} tokens at m={m}: "
            f"{count} sequences ({symmetry}), worst error {worst}, {error_bound(tolerance)}")


def _positional_work(data) -> int:
    m = integer(data["m"], "m", 1, 4)
    n = len(listof(data["psi"], "psi", 1, 5))
    return sum(_count(1 << m, k, "none", m) for k in range(1, n + 1)) + (3 * n << 2 * m)


@kind("rank-one-positional-witness", "m", "psi", "readout", "tolerance", "prefixes", work=_positional_work)
def _rank_one_positional_witness(data: dict):
    """A rank-one head with position-dependent maps solves every sequence of length n at m.

    ``psi`` n x 2^m (``psi[j][x] = psi_{j+1}(x) >= 0``), ``readout`` n tables U_j, phi = 1:
    ``y = sum_j psi_j(x_j) U_j[q][x_j] / sum_j psi_j(x_j)`` on every sequence of
    length n, or (``prefixes``) of every length k <= n, with ``psi_k(q) > 0``.
    Judgment: ``solves{model "kernel-positional" (lengths [n]) or "kernel-causal"
    (lengths [1..n]), head digest({"psi","readout"}), rank 1, m [m, m]}``.
    """
    m = integer(data["m"], "m", 1, 4)
    size = 1 << m
    psi = matrix(data["psi"], "psi", None, size)
    n = integer(len(psi), "length", 1, 5)
    prefixes, tolerance = flag(data["prefixes"], "prefixes"), read_tolerance(data["tolerance"])
    require(all(v >= 0 for row in psi for v in row), "psi must be nonnegative")
    lengths = list(range(1, n + 1)) if prefixes else [n]
    for k in lengths:
        require(all(psi[k - 1][q] > 0 for q in range(size)), f"psi_{k}(q) must be positive (kappa(q, q) > 0)")
    U = [matrix(table, "readout", size, size) for table in listof(data["readout"], "readout", n, n)]
    tables = [([psi[j]] * size, U[j]) for j in range(n)]
    cases = chain.from_iterable(_sequences(size, k, "none", m) for k in lengths)
    count, worst = evaluate(cases, _attention([tables], True), tolerance, m)
    model = "kernel-causal" if prefixes else "kernel-positional"
    scored = f"every prefix of length <= {n}" if prefixes else f"exact length {n}"
    return (_solves(model, digest({"psi": psi, "readout": U}), 1, (m, m), lengths, tolerance),
            f"rank-one head with position-dependent maps solves {scored} at m={m}: {count} sequences, "
            f"worst error {worst}, {error_bound(tolerance)}")


# ------------------------------------------------------- polynomial readouts


def _threshold_work(data) -> int:
    m, n = integer(data["m"], "m", 1, 1000), integer(data["length"], "length", 1, 6)
    # the orbits are walked as score points (see the kind); an unknown symmetry is estimated as "none" (then rejected)
    walk = "scores" if data["symmetry"] in ("scores", "coordinates-and-context") else "none"
    return _count(1 << min(m, 64), n, walk, m)


@kind("threshold-polynomial", "m", "length", "coefficients", "symmetry", work=_threshold_work)
def _threshold_polynomial(data: dict):
    """Rank one with the readout ``sum_{t<=|q|} g(h(S_t))`` is exact on every sequence of one length n.

    ``phi = psi = 1``, one-hot values: ``h(x) = #{j : x_j = x} / n``; readout
    ``P_q(h) = sum_{t=1}^{|q|} g(h(S_t))``, ``S_t = {x : <x,q> < t}``,
    ``g(u) = sum_i c_i u^i`` (``coefficients``, constant first).  ``symmetry``:
    "none" (every tuple, m <= 8); "coordinates-and-context" (one per orbit: P
    reads |q| and <x,q>, h the token multiset; m <= 64); "scores" (as in
    ``score-statistic``: every m' <= m).

    **The orbits are walked as score points.**  y (the readout, below) and T
    read a sequence X only through ``w = |q|`` and the multiset of context
    scores ``<x_j, q>``.  For every sequence over {0,1}^m that pair is a point
    of the "scores" walk at m (``w <= m``, each score in [0, w]); and every
    such point is the pair of a sequence over {0,1}^m (q = 1^w, x = 1^s),
    which is the representative the walk evaluates.  So y = T on every
    sequence at m iff y = T on every score point of m: "coordinates-and-context"
    checks those points (its count is theirs) and keeps its judgment, m [m, m].
    Judgment: ``solves{model "threshold-polynomial", head digest(coefficients), rank 1,
    m [1, m] ("scores") or [m, m], lengths [n], tolerance 0}``.
    """
    m, n = integer(data["m"], "m", 1, 1000), integer(data["length"], "length", 1, 6)
    c = [rational(v, "coefficient") for v in listof(data["coefficients"], "coefficients", 1, 64)]
    symmetry = _choice(data["symmetry"], ("coordinates-and-context", "none", "scores"), "symmetry")
    require(symmetry != "none" or m <= 8, "symmetry 'none' enumerates 2^(m n) sequences: m <= 8")
    require(symmetry == "scores" or m <= 64, "tables of tuples need m <= 64")
    g_at = [sum((ci * Fraction(k, n) ** i for i, ci in enumerate(c)), Fraction(0)) for k in range(n + 1)]

    scale = lcm_denominator(g_at)
    g_int = [int(g * scale) for g in g_at]

    def readout(w: int, context: list) -> int:
        # scale * sum_{t=1}^{w} g(k_t / n), k_t = #{context scores < t} = i for t in (s_(i), s_(i+1)]
        bounds = [0] + sorted(context) + [w]
        return sum(g_int[i] * (bounds[i + 1] - bounds[i]) for i in range(n))

    def output(s) -> Fraction:
        return Fraction(*ratio(s))

    def ratio(s) -> tuple[int, int]:  # y = readout / scale, in integers
        return readout(s[-1].bit_count(), [(x & s[-1]).bit_count() for x in s[:-1]]), scale

    output.ratio = ratio
    cases = _sequences(1 << min(m, 64), n, "none" if symmetry == "none" else "scores", m)  # see the docstring
    count, _ = evaluate(cases, output, Fraction(0), m)
    where, m_range = (f"every m' <= {m}", (1, m)) if symmetry == "scores" else (f"m={m}", (m, m))
    return (_solves("threshold-polynomial", digest(c), 1, m_range, [n], Fraction(0)),
            f"rank one, threshold readout of degree {len(c) - 1}: y = T exactly on every sequence of length {n} "
            f"at {where} ({count} {'sequences' if symmetry == 'none' else 'score points'}, symmetry {symmetry})")


def _table_readout_work(data) -> int:
    m, n = integer(data["m"], "m", 1, 5), integer(data["length"], "length", 1, 6)
    monomials = listof(data["monomials"], "monomials")
    size, degree = 1 << m, max((len(mono) for mono in monomials if isinstance(mono, list)), default=0)
    per_sequence = n + sum(math.comb(n + d - 1, d) * d for d in range(degree + 1))
    return size * _width(data["coefficients"]) + _count(1 << m, n, "context", m) * per_sequence


@kind("polynomial-readout-table", "m", "length", "psi", "monomials", "coefficients", work=_table_readout_work)
def _polynomial_readout_table(data: dict):
    """A rank-one head with a tabled readout of degree D has error < 1/2 on every sequence of length n.

    ``kappa(q, x) = phi(q) psi(x)`` (phi cancels), ``psi > 0``, one-hot values:
    ``h(x) = psi(x) #x / sum_j psi(x_j)``; ``P_q(h) = sum_j c[q][j] prod_{a in mono_j} h(a)``
    (``monomials``: distinct nondecreasing token tuples, D the longest), every
    context multiset evaluated (h ignores order).  Zero padding keeps inner
    products: the head restricted to padded tokens solves every m' <= m.
    Judgment: ``solves{model "polynomial-readout-D", head digest({"psi","monomials","coefficients"}),
    rank 1, m [1, m], lengths [n], tolerance 1/2}``.
    """
    m, n = integer(data["m"], "m", 1, 5), integer(data["length"], "length", 1, 6)
    size = 1 << m
    psi = [rational(v, "psi") for v in listof(data["psi"], "psi", size, size)]
    require(all(v > 0 for v in psi), "psi must be positive")
    monomials = [tuple(integer(a, "token", 0, size - 1) for a in listof(mono, "monomial"))
                 for mono in listof(data["monomials"], "monomials", 1)]
    require(all(list(mono) == sorted(mono) for mono in monomials), "monomials must list their tokens in order")
    index = {mono: j for j, mono in enumerate(monomials)}
    require(len(index) == len(monomials), "a monomial is listed twice")
    C = matrix(data["coefficients"], "coefficients", size, len(monomials))
    degree = max(len(mono) for mono in monomials)

    # In integers: psi scaled to p = psi * lcm (h is unchanged: h(x) = p(x) #x / sum_j p(x_j)), each row of C
    # to integers (times L_q); then y = N / (L_q P^D) with P = sum_j p(x_j) and
    # N = sum_j C_int[q][j] prod_{a in mono_j} (p(a) #a) P^(D - |mono_j|).
    p_scale = lcm_denominator(psi)
    p_int = [int(v * p_scale) for v in psi]
    row_scale = [lcm_denominator(row) for row in C]
    C_int = [[int(v * L) for v in row] for row, L in zip(C, row_scale)]

    def ratio(seq) -> tuple[int, int]:
        q, total, mass = seq[-1], sum(p_int[x] for x in seq), {}
        for x in seq:
            mass[x] = mass.get(x, 0) + p_int[x]
        support, row = sorted(mass), C_int[q]
        # N = sum_d S_d P^(D - d), S_d the sum over the monomials of degree d (only those over the support
        # of h are nonzero), by Horner in P; each level lists its monomials with prod_a p(a) #a
        num, level = 0, [((), 1)]
        for d in range(degree + 1):
            num = num * total + sum(row[j] * value for mono, value in level if (j := index.get(mono)) is not None)
            if d < degree:
                level = [(mono + (a,), value * mass[a]) for mono, value in level for a in support if not mono or a >= mono[-1]]
        return num, row_scale[q] * total**degree

    def output(seq) -> Fraction:
        return Fraction(*ratio(seq))

    output.ratio = ratio
    count, worst = evaluate(_sequences(size, n, "context", m), output, Fraction(1, 2), m)
    head = digest({"psi": psi, "monomials": [list(mono) for mono in monomials], "coefficients": C})
    return (_solves(f"polynomial-readout-{degree}", head, 1, (1, m), [n], Fraction(1, 2)),
            f"rank one, tabled readout of degree {degree}: worst error {worst} < 1/2 on {count} context multisets "
            f"of length {n} at m={m}, hence at every m' <= {m}")
