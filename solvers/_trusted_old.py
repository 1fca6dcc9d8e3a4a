"""The small trusted checker: re-checks a certificate from its data alone.

A reader who wants to trust a verdict reads this file and the certificate,
nothing else.  It imports only the standard library, python-flint and the
envelope module.  Each kind states what it proves; the checker refuses an
unknown kind, a statement hash that does not match the installed claim, and
any data field it does not use.

Tokens are ints (bit i = coordinate i); ``<x, y> = popcount(x & y)``; the
Min-IP target of a sequence is ``min_j <x_j, q>`` with q its final token.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations_with_replacement, product

import flint

from solvers.certificates import CertificateError, rational, validate_envelope

TARGETS = ("min-ip",)

# kind name -> (the data fields it reads, the function that checks them)
KINDS: dict = {}


def kind(name: str, *fields: str):
    """Register a checker for certificates of kind ``name`` reading exactly ``fields``."""

    def register(function):
        KINDS[name] = (fields, function)
        return function

    return register


def check(cert: dict, statement_hash: str | None = None) -> str:
    """Re-check ``cert``; return a one-line summary of what it proved, or raise CertificateError.

    ``statement_hash`` is the hash of the installed claim's statement; when
    given, a certificate made for another statement is refused.
    """
    validate_envelope(cert)
    if statement_hash is not None and cert["statement"] != statement_hash:
        raise CertificateError(
            f"statement hash {cert['statement'][:12]}... does not match the installed claim "
            f"{cert['claim']} ({statement_hash[:12]}...): the certificate proves another statement"
        )
    kind = cert["kind"]
    if kind not in KINDS:
        raise CertificateError(f"unknown certificate kind {kind!r}; known kinds: {sorted(KINDS)}")
    fields, checker = KINDS[kind]
    data = cert["data"]
    extra, missing = sorted(set(data) - set(fields)), sorted(set(fields) - set(data))
    if extra:
        raise CertificateError(f"{kind}: unused data field(s) {extra}; this kind reads exactly {sorted(fields)}")
    if missing:
        raise CertificateError(f"{kind}: missing data field(s) {missing}")
    return checker(data)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise CertificateError(message)


def _int(value, name: str, low: int = 0, high: int | None = None) -> int:
    _require(isinstance(value, int) and not isinstance(value, bool), f"{name} must be an integer")
    _require(value >= low and (high is None or value <= high), f"{name}={value} outside [{low}, {high}]")
    return value


def _matrix(rows, name: str, nrows: int | None = None, ncols: int | None = None) -> list[list[Fraction]]:
    _require(isinstance(rows, list) and all(isinstance(r, list) for r in rows), f"{name} must be a list of rows")
    out = [[rational(v) for v in r] for r in rows]
    _require(nrows is None or len(out) == nrows, f"{name} has {len(out)} rows, expected {nrows}")
    if out:
        width = len(out[0]) if ncols is None else ncols
        _require(all(len(r) == width for r in out), f"{name} rows must all have {width} entries")
    return out


def _bound(tolerance: Fraction) -> str:
    return "error exactly 0" if tolerance == 0 else f"error < {tolerance}"


def _within(error: Fraction, tolerance: Fraction) -> bool:
    """``|error| < tolerance``; a tolerance of 0 asks for an exact answer, ``error == 0``."""
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


# ---------------------------------------------------------------- ranks


def _integer_rows(matrix: list[list[Fraction]]) -> list[list[int]]:
    return [[int(v * _lcm_den(row)) for v in row] for row in matrix]


@kind("rank-lower", "matrix", "rows", "cols", "prime")
def _rank_lower(data: dict) -> str:
    """``rank A >= k``: the k x k minor on ``rows`` x ``cols`` is nonsingular modulo the prime."""
    A = _integer_rows(_matrix(data["matrix"], "matrix"))
    rows, cols = data["rows"], data["cols"]
    _require(len(rows) == len(cols) and len(set(rows)) == len(rows) and len(set(cols)) == len(cols), "rows and cols must be distinct and equally many")
    _require(all(0 <= i < len(A) for i in rows) and all(0 <= j < len(A[0]) for j in cols), "minor index out of range")
    prime = _int(data["prime"], "prime", 2)
    _require(flint.fmpz(prime).is_prime(), f"{prime} is not prime")
    k = len(rows)
    minor = flint.nmod_mat(k, k, [A[i][j] % prime for i in rows for j in cols], prime) if k else None
    _require(k == 0 or minor.rank() == k, f"the {k} x {k} minor is singular modulo {prime}")
    return f"rank >= {k} ({len(A)} x {len(A[0])} matrix; nonsingular minor mod {prime})"


@kind("rank-upper", "matrix", "left", "right")
def _rank_upper(data: dict) -> str:
    """``rank A <= k``: an exact factorisation ``A = F G`` with inner dimension k."""
    A = _matrix(data["matrix"], "matrix")
    F, G = _matrix(data["left"], "left", len(A)), _matrix(data["right"], "right")
    k = len(G)
    _require(all(len(row) == k for row in F), "left must have as many columns as right has rows")
    product_ = flint.fmpq_mat(len(F), k, [flint.fmpq(v.numerator, v.denominator) for row in F for v in row]) * flint.fmpq_mat(
        k, len(G[0]), [flint.fmpq(v.numerator, v.denominator) for row in G for v in row]
    )
    for i, row in enumerate(A):
        for j, v in enumerate(row):
            _require(Fraction(int(product_[i, j].p), int(product_[i, j].q)) == v, f"F G differs from A at ({i}, {j})")
    return f"rank <= {k} (exact factorisation of a {len(A)} x {len(A[0])} matrix)"


# ---------------------------------------------- fixed kernel rows (readout only)


@kind("readout-infeasible", "m", "query", "weights", "sequences", "multipliers", "tolerance")
def _readout_infeasible(data: dict) -> str:
    """For ONE fixed kernel row, no readout values make the head solve these sequences.

    ``weights`` gives ``K[q, x] > 0`` for the tokens used (bit strings); the
    readout values ``U[q, x]`` are the unknowns.  Each sequence (query last)
    gives, after multiplying by its positive denominator, the strict rows
    ``sum_j K_j U_j > (T - tol) sum_j K_j`` ("lo") and
    ``-sum_j K_j U_j > -(T + tol) sum_j K_j`` ("hi"); ``multipliers`` holds
    ``[y_lo, y_hi]`` per sequence, a Motzkin combination the checker verifies.
    Every affine readout of any values is such a U, so none solves them.
    """
    m = _int(data["m"], "m", 1, 64)
    q = _token(data["query"], m)
    weights = {_token(x, m): rational(k) for x, k in data["weights"].items()}
    _require(all(k > 0 for k in weights.values()), "weights must be positive")
    tolerance = rational(data["tolerance"])
    _require(len(data["sequences"]) == len(data["multipliers"]), "one pair of multipliers per sequence")
    rows, ys = [], []
    for seq_text, pair in zip(data["sequences"], data["multipliers"]):
        seq = [_token(x, m) for x in seq_text]
        _require(seq and seq[-1] == q, f"sequence {seq_text} must end with the query {data['query']}")
        _require(all(x in weights for x in seq), f"sequence {seq_text} uses a token without a weight")
        target = min((x & q).bit_count() for x in seq)
        total = sum(weights[x] for x in seq)
        coefs: dict = {}
        for x in seq:
            coefs[x] = coefs.get(x, 0) + weights[x]
        rows.append((coefs, ">", (target - tolerance) * total))
        rows.append(({x: -c for x, c in coefs.items()}, ">", -(target + tolerance) * total))
        _require(isinstance(pair, list) and len(pair) == 2, "multipliers come in pairs [y_lo, y_hi]")
        ys += [rational(y) for y in pair]
    _motzkin_refutes(rows, ys, f"readout rows of query {data['query']}")
    return f"no readout solves {len(rows) // 2} sequences for the fixed kernel row of q={data['query']} (m={m})"


# ------------------------------------------- paper K: linear feasibility (LP)
#
# Shared by every LP kind: `_motzkin_refutes(rows, multipliers)` checks a Motzkin
# combination exactly; `_ratio_row` builds the row of one sequence of the
# linearised problem.  Rows are built here from labelled data (tokens as bit
# strings, sides, sequences); a certificate never supplies a row itself.

_HALF = Fraction(1, 2)


def _motzkin_refutes(rows, multipliers, what: str = "system") -> None:
    """Raise CertificateError unless ``multipliers`` prove ``rows`` have no common solution.

    ``rows`` are ``(coefs, sense, rhs)`` read as ``sum_k coefs[k] x_k (sense) rhs``
    with sense ``">"``, ``">="`` or ``"="`` over real unknowns keyed by anything
    hashable.  Motzkin: if ``y_i >= 0`` (free on "=" rows), ``sum_i y_i coefs_i = 0``
    and either ``sum_i y_i rhs_i > 0``, or ``= 0`` with ``y_i > 0`` on some ">" row,
    then no x satisfies every row (a solution would give ``0 >= sum y_i rhs_i``,
    strictly when a strict row is used).
    """
    _require(len(rows) == len(multipliers), f"{what}: {len(rows)} rows but {len(multipliers)} multipliers")
    total: dict = {}
    bound, strict = Fraction(0), False
    for (coefs, sense, rhs), y in zip(rows, multipliers):
        _require(sense in (">", ">=", "="), f"{what}: unknown sense {sense!r}")
        _require(sense == "=" or y >= 0, f"{what}: negative multiplier {y} on an inequality")
        if y == 0:
            continue
        strict |= sense == ">"
        for key, c in coefs.items():
            total[key] = total.get(key, 0) + y * c
        bound += y * rhs
    left = sorted((str(k) for k, v in total.items() if v), key=len)[:3]
    _require(not left, f"{what}: the combination leaves the unknowns {left} (it must vanish)")
    _require(bound > 0 or (bound == 0 and strict), f"{what}: the combination gives no contradiction (sum {bound}, strict row used: {strict})")


def _token(text, m: int) -> int:
    """A token written as a bit string of length m, coordinate 1 first."""
    _require(isinstance(text, str) and len(text) == m and set(text) <= {"0", "1"}, f"token {text!r} is not a bit string of length {m}")
    return sum(1 << i for i, ch in enumerate(text) if ch == "1")


def _ratio_row(side: str, terms, target: int):
    """The row of one sequence in the linearised problem ``P = psi * U`` (homogeneous, strict).

    ``terms`` lists, per position, the unknowns ``(psi_key, p_key)`` of that token, so
    ``y = sum P / sum psi``.  With a positive denominator, side "lo" is
    ``y > T - 1/2`` i.e. ``sum P - (T - 1/2) sum psi > 0``, side "hi" is ``y < T + 1/2``.
    """
    _require(side in ("lo", "hi"), f"side must be 'lo' or 'hi', got {side!r}")
    sign, level = (1, target - _HALF) if side == "lo" else (-1, target + _HALF)
    coefs: dict = {}
    for psi_key, p_key in terms:
        coefs[p_key] = coefs.get(p_key, 0) + sign
        coefs[psi_key] = coefs.get(psi_key, 0) - sign * level
    return coefs, ">", Fraction(0)


def _multiplier(value) -> Fraction:
    y = rational(value)
    _require(y >= 0, f"multiplier {y} is negative")
    return y


@kind("rank-one-infeasible", "m", "positions", "rows", "nonnegative")
def _rank_one_infeasible(data: dict) -> str:
    """No rank-one head solves these sequences (so none solves exact length n, at any m' >= m).

    A rank-one head has ``kappa_j(q, x) = phi(q) psi_j(x)`` with ``psi >= 0``; ``phi(q) > 0``
    cancels, and with ``P_j[q, x] = psi_j(x) U_j[q, x]`` each sequence X (query last) gives
    two homogeneous strict rows (``_ratio_row``), so a Motzkin combination of them and of
    ``psi >= 0`` refutes every head.  ``positions`` false: one ``psi``, one ``U`` (the
    model of paper K); true: ``psi_j``, ``U_j`` per position j (position-dependent maps,
    query last, only the final position scored).  Data: ``rows`` = ``[side, multiplier,
    [token, ...]]`` with tokens as bit strings of length m; ``nonnegative`` =
    ``[position, token, multiplier]`` for rows ``psi_position(token) >= 0`` (position 0
    when ``positions`` is false).  The rows depend on the tokens only through their
    inner products, so zero-padded tokens give the same certificate for every m' >= m.
    """
    m = _int(data["m"], "m", 1, 64)
    positions = data["positions"]
    _require(isinstance(positions, bool), "positions must be true or false")
    rows, ys, lengths = [], [], set()
    for entry in data["rows"]:
        _require(isinstance(entry, list) and len(entry) == 3, "each row is [side, multiplier, sequence]")
        side, y, seq = entry
        seq = [_token(t, m) for t in seq]
        _require(len(seq) >= 1, "empty sequence")
        lengths.add(len(seq))
        q = seq[-1]
        terms = [(("psi", j if positions else 0, x), ("P", j if positions else 0, q, x)) for j, x in enumerate(seq, 1)]
        rows.append(_ratio_row(side, terms, min((x & q).bit_count() for x in seq)))
        ys.append(_multiplier(y))
    _require(len(lengths) == 1, f"all sequences must have one length, got {sorted(lengths)}")
    for entry in data["nonnegative"]:
        _require(isinstance(entry, list) and len(entry) == 3, "each nonnegative row is [position, token, multiplier]")
        j = _int(entry[0], "position", 0 if not positions else 1, max(lengths) if positions else 0)
        rows.append(({("psi", j, _token(entry[1], m)): 1}, ">=", Fraction(0)))
        ys.append(_multiplier(entry[2]))
    _motzkin_refutes(rows, ys, "rank-one-infeasible")
    n = lengths.pop()
    used = sum(1 for y in ys if y)
    model = "position-dependent maps" if positions else "one head"
    return f"no rank-one head ({model}) solves exact length {n} at any m >= {m}: Motzkin combination of {used} rows"


@kind("rank-one-reduced-infeasible", "m", "positions", "rows", "nonnegative")
def _rank_one_reduced_infeasible(data: dict) -> str:
    """No rank-one head solves exact length n at m, from the orbit-type reduced problem.

    The linearised problem is convex (an intersection of open half-spaces and ``psi >= 0``)
    and the coordinate permutations of ``{0,1}^m`` map its solution set to itself, so the
    average of a solution over the group is a solution depending on ``|x|`` (``psi``) and
    ``(|q|, |x|, <q,x>)`` (``P``) only.  For such invariant unknowns a sequence's row depends
    only on ``w = |q|`` and the types ``(v, s) = (|x_j|, <x_j, q>)``; every type with
    ``0 <= s <= min(w, v)``, ``v - s <= m - w`` is realised by some token, independently per
    position.  Data: ``rows`` = ``[side, multiplier, w, [[v, s], ...]]`` (the context types,
    in order; the query, of type ``(w, w)``, is appended last); ``nonnegative`` =
    ``[position, v, multiplier]``.  The rows do not depend on m once realisable, so the
    certificate holds for every m' >= the smallest m realising all of them.
    """
    m = _int(data["m"], "m", 1, 10**6)
    positions = data["positions"]
    _require(isinstance(positions, bool), "positions must be true or false")
    rows, ys, lengths, need = [], [], set(), 1
    for entry in data["rows"]:
        _require(isinstance(entry, list) and len(entry) == 4, "each row is [side, multiplier, w, context types]")
        side, y, w, context = entry
        w = _int(w, "w", 0, m)
        types = []
        for pair in context:
            _require(isinstance(pair, list) and len(pair) == 2, "a context type is [v, s]")
            v, s = _int(pair[0], "v", 0, m), _int(pair[1], "s", 0, m)
            _require(s <= min(w, v) and v - s <= m - w, f"type (v={v}, s={s}) is not realisable with |q|={w} at m={m}")
            need = max(need, w + v - s)
            types.append((v, s))
        types.append((w, w))
        need = max(need, w)
        lengths.add(len(types))
        terms = [(("psi", j if positions else 0, v), ("P", j if positions else 0, w, v, s)) for j, (v, s) in enumerate(types, 1)]
        rows.append(_ratio_row(side, terms, min(s for _, s in types)))
        ys.append(_multiplier(y))
    _require(len(lengths) == 1, f"all sequences must have one length, got {sorted(lengths)}")
    n = lengths.pop()
    for entry in data["nonnegative"]:
        _require(isinstance(entry, list) and len(entry) == 3, "each nonnegative row is [position, v, multiplier]")
        j = _int(entry[0], "position", 1 if positions else 0, n if positions else 0)
        rows.append(({("psi", j, _int(entry[1], "v", 0, m)): 1}, ">=", Fraction(0)))
        ys.append(_multiplier(entry[2]))
    _motzkin_refutes(rows, ys, "rank-one-reduced-infeasible")
    model = "position-dependent maps" if positions else "one head"
    return f"no rank-one head ({model}) solves exact length {n} for any m >= {need} (checked at m={m}): reduced Motzkin combination of {sum(1 for y in ys if y)} rows"


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


def _complement_degree(family: str) -> int:
    """0 for "free"; d for "complement-d" ("affine-complement" is d = 1)."""
    if family == "free":
        return 0
    if family == "affine-complement":
        return 1
    _require(family in ("complement-2", "complement-3"), f"unknown family {family!r}")
    return int(family[-1])


def _complement_subsets(m: int, d: int) -> list:
    """The feature index f of the family: the f-th subset S (by size, then lexicographic),
    feature value ``prod_{i in S} (1 - x_i)``; f = 0 is the constant, f = i + 1 is ``1 - x_i``."""
    from itertools import combinations

    return [S for k in range(d + 1) for S in combinations(range(m), k)]


def _kernel_row_case(case: dict, family: str) -> tuple[int, int, int]:
    """Check one refuted kernel row; return (m, |q|, n).  See ``kernel-row-infeasible``."""
    _require(isinstance(case, dict) and set(case) == {"m", "query", "rows", "nonnegative", "order"},
             "a case reads exactly m, query, rows, nonnegative, order")
    m = _int(case["m"], "m", 1, 64)
    q = _token(case["query"], m)
    degree = _complement_degree(family)
    subsets = _complement_subsets(m, degree) if degree else []

    def entry(x: int) -> dict:  # K[q, x] as a combination of the row's feature unknowns
        if not degree:
            return {("K", x): Fraction(1)}
        return {("phi", f): Fraction(1) for f, S in enumerate(subsets) if not any(x >> i & 1 for i in S)}

    rows, ys, lengths = [], [], set()
    for side, y, context in case["rows"]:
        seq = [_token(t, m) for t in context] + [q]
        lengths.add(len(seq))
        terms = [(("D", j), ("P", x)) for j, x in enumerate(seq)]
        coefs, sense, rhs = _ratio_row(side, terms, min((x & q).bit_count() for x in seq))
        expanded: dict = {}
        for key, c in coefs.items():  # the psi slot of position j is K[q, x_j]
            for k, e in (entry(seq[key[1]]).items() if key[0] == "D" else [(key, 1)]):
                expanded[k] = expanded.get(k, 0) + c * e
        rows.append((expanded, sense, rhs))
        ys.append(_multiplier(y))
    _require(len(lengths) == 1, f"all sequences must have one length, got {sorted(lengths)}")
    for key, y in case["nonnegative"]:
        unknown = ("K", _token(key, m)) if not degree else ("phi", _int(key, "feature", 0, len(subsets) - 1))
        rows.append(({unknown: Fraction(1)}, ">=", Fraction(0)))
        ys.append(_multiplier(y))
    for z, y in case["order"]:  # the negated conclusion K[q, q] >= K[q, z]
        diff = dict(entry(q))
        for k, e in entry(_token(z, m)).items():
            diff[k] = diff.get(k, 0) - e
        rows.append((diff, ">=", Fraction(0)))
        ys.append(_multiplier(y))
    _motzkin_refutes(rows, ys, f"kernel row q={case['query']}")
    return m, q.bit_count(), lengths.pop()


@kind("kernel-row-infeasible", "family", "cases")
def _kernel_row_infeasible(data: dict) -> str:
    """No kernel row ``K[q, .]`` of the family (with any readout row ``U[q, .]``) solves these rows.

    For one query q the output on a sequence (query last) is
    ``sum_j K[q,x_j] U[q,x_j] / sum_j K[q,x_j]``; with ``P[x] = K[q,x] U[q,x]`` each
    sequence gives two homogeneous strict rows, linear in ``(K[q,.], P)``.  ``family``:
    ``"free"`` (every ``K[q,x] >= 0`` its own unknown), ``"affine-complement"``
    (``K[q,x] = a(q) + sum_i b_i(q) (1 - x_i)``, unknowns ``a, b_i >= 0``; the features
    ``(1, 1 - x_1, ..., 1 - x_m)`` of x make it a feature-rank m+1 kernel) or
    ``"complement-d"`` (d = 2, 3: ``K[q,x] = sum_{|S| <= d} c_S(q) prod_{i in S} (1 - x_i)``,
    ``c_S >= 0``, feature index = position of S by size, then lexicographic).  A case is
    ``{m, query, rows: [[side, multiplier, context tokens]], nonnegative: [[unknown,
    multiplier]], order: [[z, multiplier]]}``; an ``order`` row adds ``K[q,q] >= K[q,z]``,
    so a case with order rows proves ``K[q,z] > K[q,q]`` for every row that solves the
    sequences.  Every case must be refuted.
    """
    family = data["family"]
    _complement_degree(family)  # refuses an unknown family
    _require(isinstance(data["cases"], list) and data["cases"], "cases must be a nonempty list")
    seen = [_kernel_row_case(case, family) for case in data["cases"]]
    ms = sorted({m for m, _, _ in seen})
    n = sorted({n for _, _, n in seen})
    return f"{len(seen)} kernel row case(s) refuted ({family} family; m in {ms}; lengths {n})"


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


def _box_row(H: int, query: int, corners, rest, sign: int):
    """The box condition of one labelled box, as a linear form in the monomials of psi.

    Positions 1..H+1 take ``corners[i][s_i]`` (s in {0,1}^{H+1}), then the tokens of
    ``rest``, then the query.  With rank-one heads ``K_h[q,x] = phi_h(q) psi_h(x)`` the
    product of the heads' denominators is ``prod_h phi_h(q) * D(s)``,
    ``D(s) = prod_h sum_j psi_h(x_j(s))``, a sum of monomials
    ``mu(u_1..u_H) = prod_h psi_h(u_h)``.  Returns the row
    ``1/2 sum_s D(s) - sign * sum_s (-1)^{|s|} T(s) D(s) > 0`` in the unknowns mu.
    """
    coefs: dict = {}
    for s in product((0, 1), repeat=H + 1):
        seq = [corners[i][b] for i, b in enumerate(s)] + list(rest) + [query]
        target = min((x & query).bit_count() for x in seq)
        weight = _HALF - sign * (-1) ** sum(s) * target
        if weight == 0:
            continue
        for choice in product(seq, repeat=H):  # one position per head: a monomial of D(s)
            coefs[choice] = coefs.get(choice, 0) + weight
    return coefs


@kind("box-refutation", "m", "heads", "length", "boxes")
def _box_refutation(data: dict) -> str:
    """No H heads of feature rank one (any values, affine mixing) solve exact length n at m.

    The box identity: with ``D = D_1 ... D_H`` (the heads' denominators), ``y D`` and
    ``D`` are sums of products of at most H one-position terms, so their alternating
    sums over a box ``{a_i, b_i}`` on H+1 positions (the other positions fixed) vanish.
    Writing ``y = T + e`` with ``|e| < 1/2`` and ``D > 0`` gives, for sign = +-1,
    ``1/2 sum_s D(s) - sign sum_s (-1)^{|s|} T(s) D(s) > 0`` — U eliminated.  For rank-one
    heads this is linear in the monomials ``mu(u) = prod_h psi_h(u_h) >= 0`` after
    dividing by ``prod_h phi_h(q) > 0`` (``_box_row``).  Data: ``heads`` H, ``length`` n
    (>= H+2), ``boxes``: ``[multiplier, sign, query, [[a_1, b_1], ..., [a_{H+1}, b_{H+1}]],
    [rest tokens]]`` (tokens as bit strings of length m, n - H - 2 rest tokens).  The
    checker builds each row, combines with the multipliers (>= 0, some > 0) and requires
    every monomial's coefficient to be <= 0: then ``mu >= 0`` rows close a Motzkin
    combination, so no rank-one heads satisfy every box condition.  The rows depend on
    the tokens only through inner products, so zero-padded tokens prove it for every m' >= m.
    """
    m = _int(data["m"], "m", 1, 64)
    H = _int(data["heads"], "heads", 1, 4)
    n = _int(data["length"], "length", H + 2, H + 6)
    _require(isinstance(data["boxes"], list) and data["boxes"], "boxes must be a nonempty list")
    rows, ys = [], []
    for entry in data["boxes"]:
        _require(isinstance(entry, list) and len(entry) == 5, "each box is [multiplier, sign, query, corners, rest]")
        y, sign, query, corners, rest = entry
        _require(sign in (1, -1), f"sign must be 1 or -1, got {sign!r}")
        _require(isinstance(corners, list) and len(corners) == H + 1 and all(isinstance(c, list) and len(c) == 2 for c in corners),
                 f"corners must list H+1 = {H + 1} pairs [a_i, b_i]")
        _require(isinstance(rest, list) and len(rest) == n - H - 2, f"rest must hold n - H - 2 = {n - H - 2} tokens")
        corners = [[_token(a, m), _token(b, m)] for a, b in corners]
        rows.append((_box_row(H, _token(query, m), corners, [_token(t, m) for t in rest], sign), ">", Fraction(0)))
        ys.append(_multiplier(y))
    total: dict = {}
    for (coefs, _, _), y in zip(rows, ys):
        for key, c in coefs.items():
            total[key] = total.get(key, 0) + y * c
    positive = sorted(key for key, c in total.items() if c > 0)[:3]
    _require(not positive, f"box-refutation: the combination leaves positive coefficients on the monomials {positive}")
    # each remaining coefficient is <= 0: cancel it with the row mu >= 0
    for key, c in total.items():
        if c < 0:
            rows.append(({key: Fraction(1)}, ">=", Fraction(0)))
            ys.append(-c)
    _motzkin_refutes(rows, ys, "box-refutation")
    used = sum(1 for e in data["boxes"] if rational(e[0]))
    return f"no {H} rank-one head(s) with affine mixing solve exact length {n} at any m >= {m}: {used} box condition(s) combine to a contradiction"


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


def _poly(coefficients) -> "flint.fmpq_poly":
    """A polynomial in rho from exact coefficients, constant first."""
    return flint.fmpq_poly([flint.fmpq(v.numerator, v.denominator) for v in (rational(c) for c in coefficients)])


def _sign_on_positive_reals(p) -> int:
    """+1 or -1 when all coefficients of p share that sign (p != 0): then p has that sign at every rho > 0."""
    coefficients = [c for c in p.coeffs() if c != 0]
    _require(bool(coefficients), "a polynomial that should have a sign is zero")
    if all(c > 0 for c in coefficients):
        return 1
    _require(all(c < 0 for c in coefficients), f"the sign of {p} on rho > 0 is not evident from its coefficients")
    return -1


def _extrapolation_constant(query: int, other: int, degree: int):
    """``Lambda(rho) = sum_k |l_k(0)|`` for query ``query`` and the sequences ``(other^k, query^(n-k))``.

    A rank-one head weighs token x by ``psi(x)`` (``phi(q) > 0`` cancels), so on
    ``(other^k, query^(n-k))`` the output h puts mass ``pi_k = k rho / (k rho + n - k)``
    on ``other`` and the rest on ``query``, ``rho = psi(other)/psi(query) > 0``.
    ``l_k`` are the Lagrange basis polynomials of the nodes ``pi_1..pi_{n-1}``.
    Returns (numerator, denominator) of Lambda as polynomials in rho, and the targets.
    """
    n = degree + 2
    x = flint.fmpq_poly([0, 1])
    N = {k: k * x for k in range(1, n)}  # pi_k = N_k / E_k
    E = {k: k * x + (n - k) for k in range(1, n)}
    targets = {}
    for k in range(n):
        seq = [other] * k + [query] * (n - k)
        targets[k] = min((t & query).bit_count() for t in seq)
    _require(all(targets[k] == targets[1] for k in range(1, n)), "the mixed sequences must share one target")
    num, den = flint.fmpq_poly([0]), flint.fmpq_poly([1])
    for k in range(1, n):
        # l_k(0) = prod_{j != k} (0 - pi_j) / (pi_k - pi_j) = prod_j (-N_j E_k) / (N_k E_j - N_j E_k)
        top, bottom = flint.fmpq_poly([1]), flint.fmpq_poly([1])
        for j in range(1, n):
            if j != k:
                top *= -N[j] * E[k]
                bottom *= N[k] * E[j] - N[j] * E[k]
        sign = _sign_on_positive_reals(top) * _sign_on_positive_reals(bottom)
        num, den = num * bottom + sign * top * den, den * bottom
    return num, den, targets


@kind("two-token-extrapolation", "m", "degree", "query", "other", "lambda")
def _two_token_extrapolation(data: dict) -> str:
    """No rank-one head with a degree-D readout has error < 1/2 on every sequence of length D + 2.

    Tokens ``query`` (q) and ``other`` (z) in {0,1}^m; n = D + 2.  For query q the
    sequences ``(z^k, q^(n-k))``, k = 0..n-1, give h on the segment between
    e_q and e_z at ``pi_k`` (pi_0 = 0), so y = g(pi_k) for one polynomial g of
    degree <= D (a degree-D readout restricted to a line).  Lagrange on the
    D + 1 distinct nodes pi_1..pi_{D+1}: ``g(0) - T_1 = sum_k l_k(0) (g(pi_k) - T_1)``,
    so error < 1/2 everywhere forces ``T_0 - T_1 - 1/2 < Lambda(rho)/2``.  The
    checker builds Lambda itself (equal to the given ``lambda``,
    numerator/denominator coefficients), proves it nondecreasing on rho > 0
    (derivative numerator with coefficients >= 0) and ``Lambda(1) <= 2 (T_0 - T_1) - 1``:
    so rho = psi(z)/psi(q) > 1.  The same for query z forces psi(q)/psi(z) > 1.
    """
    m = _int(data["m"], "m", 1, 4096)
    degree = _int(data["degree"], "degree", 1, 12)
    q, z = _int(data["query"], "query", 1, (1 << m) - 1), _int(data["other"], "other", 1, (1 << m) - 1)
    _require(q != z, "the two tokens must differ")
    given = data["lambda"]
    _require(isinstance(given, dict) and set(given) == {"numerator", "denominator"}, "lambda must give numerator and denominator")
    given_num, given_den = _poly(given["numerator"]), _poly(given["denominator"])
    for a, b in ((q, z), (z, q)):
        num, den, targets = _extrapolation_constant(a, b, degree)
        if a == q:
            _require(num * given_den == given_num * den, "the given Lambda differs from the one the nodes define")
        _sign_on_positive_reals(den)
        slope = num.derivative() * den - num * den.derivative()
        _require(all(c >= 0 for c in slope.coeffs()), "Lambda is not evidently nondecreasing on rho > 0")
        at_one = num(1) / den(1)
        gap = targets[0] - targets[1]
        _require(at_one <= 2 * gap - 1, f"Lambda(1) = {at_one} exceeds 2 (T_0 - T_1) - 1 = {2 * gap - 1}: no contradiction")
    return (f"no rank-one head with a readout of degree {degree} solves length {degree + 2} at m={m} "
            f"(tokens {q}, {z}; Lambda(1) = {at_one})")


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


# ------------------------------------------- paper S: approximation rank


def _epsilon(value) -> Fraction:
    eps = rational(value)
    _require(0 < eps < 1, f"epsilon={eps} must lie in (0, 1) (for epsilon >= 1 the rank is 0)")
    return eps


def _attention_rows(data: dict):
    """(n, N, row, m): the logits of row i as ``row(i)`` and the column multiplicities m.

    From ``logits`` (an explicit rational matrix) or from ``points`` X and a
    rational ``beta`` (self-attention ``L_ij = beta <x_i, x_j>``, computed here
    exactly, only for the rows a certificate uses).
    """
    if "logits" in data:
        L = _matrix(data["logits"], "logits")
        _require(bool(L) and bool(L[0]), "logits must be a nonempty matrix")
        n, N, row = len(L), len(L[0]), (lambda i: L[i])
    else:
        X = _matrix(data["points"], "points")
        _require(bool(X) and bool(X[0]), "points must be a nonempty list of vectors")
        beta = rational(data["beta"])
        _require(beta >= 0, "beta must be >= 0")
        n = N = len(X)

        def row(i):
            return [beta * sum((a * b for a, b in zip(X[i], y)), Fraction(0)) for y in X]

    _require(isinstance(data["multiplicities"], list), "multiplicities must be a list")
    m = [_int(v, "multiplicity", 1) for v in data["multiplicities"]]
    _require(len(m) == N, f"multiplicities must have one entry per column ({N})")
    return n, N, row, m


def _arb(q: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def _softmax(row: list[Fraction], weights: list[int]) -> list:
    """arb enclosures of ``w_j e^{l_j} / sum_k w_k e^{l_k}`` (largest logit subtracted exactly)."""
    top = max(row)
    terms = [w * _arb(v - top).exp() for v, w in zip(row, weights)]
    total = sum(terms[1:], terms[0])
    return [t / total for t in terms]


def _certainly_less(make, bound: Fraction) -> bool:
    """``make() < bound`` decided in arb, retried at 64 .. 1024 bits; False unless certain."""
    for bits in (64, 128, 256, 512, 1024):
        with flint.ctx.workprec(bits):
            value = make()
            if value < _arb(bound):
                return True
            if value >= _arb(bound):  # certainly not: no point refining
                return False
    return False


def _fmpq_mat(M: list[list[Fraction]]) -> flint.fmpq_mat:
    return flint.fmpq_mat(len(M), len(M[0]), [flint.fmpq(v.numerator, v.denominator) for r in M for v in r])


@kind("approx-rank-lower", "logits", "multiplicities", "epsilon", "rows", "groups")
def _approx_rank_lower(data: dict) -> str:
    """``rank_eps(A) >= |R|`` for ``A_ij = m_j e^{L_ij} / sum_k m_k e^{L_ik}`` (grouped columns).

    Data: rational logits L (n x N), multiplicities m (positive integers; all 1
    for plain row-softmax), eps in (0, 1), rows R (distinct), one column group
    per row (pairwise disjoint, nonempty).  The checker encloses the softmax of
    every row in R in arb and requires ``A_i(G_i) - sum_{k != i} A_i(G_k) > eps``
    *certainly* on each.  Then any B within eps in max-row-l1, with columns
    summed inside groups on rows R, is strictly diagonally dominant, so
    ``rank B >= |R|``.  With multiplicities this is also the bound for the full
    matrix with m_j copies of point j (multiplicity lemma).
    """
    return _grouped_lower(data)


@kind("approx-rank-lower-points", "points", "beta", "multiplicities", "epsilon", "rows", "groups")
def _approx_rank_lower_points(data: dict) -> str:
    """``rank_eps(A) >= |R|`` for self-attention ``L = beta X X^T``: as ``approx-rank-lower``, with
    the logits of the rows in R computed exactly from the rational points X and beta."""
    return _grouped_lower(data)


def _grouped_lower(data: dict) -> str:
    n, N, row, m = _attention_rows(data)
    eps = _epsilon(data["epsilon"])
    rows, groups = data["rows"], data["groups"]
    _require(isinstance(rows, list) and isinstance(groups, list) and len(rows) == len(groups), "one group per row")
    rows = [_int(i, "row", 0, n - 1) for i in rows]
    _require(len(set(rows)) == len(rows), "rows must be distinct")
    _require(all(isinstance(g, list) for g in groups), "each group must be a list of columns")
    groups = [[_int(j, "column", 0, N - 1) for j in g] for g in groups]
    _require(all(groups), "groups must be nonempty")
    flat = [j for g in groups for j in g]
    _require(len(set(flat)) == len(flat), "column groups must be pairwise disjoint")
    for i, group in zip(rows, groups):
        logits = row(i)
        others = [j for g in groups if g is not group for j in g]

        def slack(logits=logits, group=group, others=others):  # eps - margin < 0  <=>  margin > eps
            p = _softmax(logits, m)
            return sum((p[j] for j in others), _arb(Fraction(0))) - sum((p[j] for j in group), _arb(Fraction(0)))

        _require(_certainly_less(slack, -eps), f"row {i}: the margin A_i(G_i) - sum_k A_i(G_k) is not certainly > {eps}")
    return f"rank_eps >= {len(rows)} at eps = {eps} ({n} x {N} attention; {len(rows)} grouped rows decided in arb)"


@kind("approx-rank-upper", "logits", "multiplicities", "epsilon", "left", "right")
def _approx_rank_upper(data: dict) -> str:
    """``rank_eps(A) <= k``: an explicit ``B = F G`` (inner dimension k) within eps of A on every row.

    A as in ``approx-rank-lower``; F (n x k), G (k x N) rational.  The checker
    multiplies B exactly and requires ``sum_j |A_ij - B_ij| <= eps`` certainly
    (in arb, strictly below eps) for every row i.
    """
    return _explicit_upper(data)


@kind("approx-rank-upper-points", "points", "beta", "multiplicities", "epsilon", "left", "right")
def _approx_rank_upper_points(data: dict) -> str:
    """``rank_eps(A) <= k`` for self-attention ``L = beta X X^T``: as ``approx-rank-upper``, with
    the logits computed exactly from the rational points X and beta."""
    return _explicit_upper(data)


def _explicit_upper(data: dict) -> str:
    n, N, row, m = _attention_rows(data)
    eps = _epsilon(data["epsilon"])
    F, G = _matrix(data["left"], "left", n), _matrix(data["right"], "right", None, N)
    k = len(G)
    _require(k >= 1 and all(len(r) == k for r in F), "left must have as many columns as right has rows (k >= 1)")
    B = _fmpq_mat(F) * _fmpq_mat(G)
    for i in range(n):
        def error(i=i, logits=row(i)):
            p = _softmax(logits, m)
            return sum((abs(p[j] - flint.arb(B[i, j])) for j in range(len(p))), _arb(Fraction(0)))

        _require(_certainly_less(error, eps), f"row {i}: the error ||A_i - B_i||_1 is not certainly < {eps}")
    return f"rank_eps <= {k} at eps = {eps} (explicit B = F G, every row of {n} within eps in arb)"


@kind("residual-bound", "logits", "approximation")
def _residual_bound(data: dict) -> str:
    """``||rowsoftmax(L)_i - rowsoftmax(L')_i||_1 <= 2 tanh(osc_i / 4)`` on every row i.

    osc_i = max_j E_ij - min_j E_ij with E = L - L' (which equals the row
    range of ``L P - L'`` too: P only shifts rows).  Checked in arb (the
    difference of the two sides certainly < 0 when osc_i > 0; equality rows
    with osc_i = 0 are identical).
    """
    L, Lk = _matrix(data["logits"], "logits"), _matrix(data["approximation"], "approximation")
    _require(bool(L) and len(L) == len(Lk) and all(len(a) == len(b) for a, b in zip(L, Lk)), "shapes differ")
    ones = [1] * len(L[0])
    worst = Fraction(0)
    for a, b in zip(L, Lk):
        diff = [x - y for x, y in zip(a, b)]
        osc = max(diff) - min(diff)
        worst = max(worst, osc)
        if osc == 0:
            continue

        def gap(a=a, b=b, osc=osc):
            p, q = _softmax(a, ones), _softmax(b, ones)
            dist = sum((abs(x - y) for x, y in zip(p, q)), _arb(Fraction(0)))
            return dist - 2 * (_arb(osc) / 4).tanh()

        _require(_certainly_less(gap, Fraction(0)), f"a row with oscillation {osc} is not certainly within 2 tanh(osc/4)")
    return f"every row of a {len(L)} x {len(L[0])} softmax within 2 tanh(osc_i/4) of the approximation's (max osc {worst})"


_RESIDUAL_BOUNDS = {
    # t = e^delta: tanh(delta/2) = (t - 1)/(t + 1), tanh(delta) = (t^2 - 1)/(t^2 + 1)
    "2tanh(delta/2)": lambda t: 2 * (t - 1) / (t + 1),
    "tanh(delta)": lambda t: (t * t - 1) / (t * t + 1),
}


@kind("residual-two-point", "t", "row", "weights", "bound", "relation")
def _residual_two_point(data: dict) -> str:
    """One perturbation whose l1 effect exceeds or attains a candidate residual bound, exactly.

    ``t = e^delta > 1`` rational; a probability row p (rational, positive, sum
    1); weights ``w_j = e^{E_j}`` with ``1 <= w_j <= t^2`` (so E has row range
    <= 2 delta, i.e. ``||E - c||_max <= delta`` for the mid shift c);
    ``q_j = p_j w_j / sum_k p_k w_k`` is the softmax of the perturbed logits.
    ``relation`` "exceeds" proves ``||p - q||_1 > bound(t)`` (the bound is
    false); "attains" proves ``||p - q||_1 = bound(t)`` (it cannot be lowered).
    """
    t = rational(data["t"])
    _require(t > 1, "t = e^delta must be > 1")
    _require(isinstance(data["row"], list) and isinstance(data["weights"], list), "row and weights must be lists")
    p = [rational(v) for v in data["row"]]
    w = [rational(v) for v in data["weights"]]
    _require(len(p) == len(w) >= 2 and all(v > 0 for v in p) and sum(p) == 1, "row must be a positive probability vector")
    _require(all(1 <= v <= t * t for v in w), "weights must lie in [1, t^2]")
    _require(data["bound"] in _RESIDUAL_BOUNDS, f"unknown bound {data['bound']!r}")
    bound = _RESIDUAL_BOUNDS[data["bound"]](t)
    total = sum((a * b for a, b in zip(p, w)), Fraction(0))
    dist = sum((abs(a * b / total - a) for a, b in zip(p, w)), Fraction(0))
    relation = data["relation"]
    _require(relation in ("exceeds", "attains"), f"unknown relation {relation!r}")
    if relation == "exceeds":
        _require(dist > bound, f"||p - q||_1 = {dist} does not exceed {data['bound']} = {bound}")
    else:
        _require(dist == bound, f"||p - q||_1 = {dist} is not {data['bound']} = {bound}")
    return f"||p - q||_1 = {dist} {relation} {data['bound']} = {bound} at e^delta = {t}"


@kind("visible-dimension", "logits", "tau", "count")
def _visible_dimension(data: dict) -> str:
    """``#{i : sigma_i(L (I - 11^T/N)) > tau} = count``, exactly (tau = 0: the visible dimension).

    The checker centres each row of L exactly, forms ``G = (LP)^T (LP)`` and
    counts the roots of ``det(xI - G)`` above ``tau^2`` by Descartes' rule on
    the shifted characteristic polynomial — exact, because a symmetric
    matrix's characteristic polynomial has only real roots.
    """
    L = _matrix(data["logits"], "logits")
    _require(bool(L) and bool(L[0]), "logits must be a nonempty matrix")
    tau = rational(data["tau"])
    _require(tau >= 0, "tau must be >= 0")
    count = _int(data["count"], "count")
    centred = [[v - sum(r, Fraction(0)) / len(r) for v in r] for r in L]
    M = _fmpq_mat(centred)
    G = M.transpose() * M
    shifted = G.charpoly()(flint.fmpq_poly([flint.fmpq(tau.numerator**2, tau.denominator**2), 1]))
    signs = [1 if c > 0 else -1 for c in shifted.coeffs() if c != 0]
    above = sum(1 for a, b in zip(signs, signs[1:]) if a != b)
    _require(above == count, f"{above} singular values of L P exceed {tau}, not {count}")
    return f"#{{sigma_i(L P) > {tau}}} = {count} ({len(L)} x {len(L[0])} logits)"


@kind("row-shift", "logits", "shifted")
def _row_shift(data: dict) -> str:
    """``rowsoftmax(L') = rowsoftmax(L)`` because ``L' = L + c 1^T`` (each row shifted by a constant).

    ``e^{L_ij + c_i} / sum_k e^{L_ik + c_i} = e^{L_ij} / sum_k e^{L_ik}``; the
    checker verifies that every row of ``L' - L`` is constant, exactly.
    """
    L, S = _matrix(data["logits"], "logits"), _matrix(data["shifted"], "shifted")
    _require(bool(L) and len(L) == len(S) and all(len(a) == len(b) for a, b in zip(L, S)), "shapes differ")
    for i, (a, b) in enumerate(zip(L, S)):
        _require(len({y - x for x, y in zip(a, b)}) == 1, f"row {i} of L' - L is not constant")
    return f"L' = L + c 1^T on a {len(L)} x {len(L[0])} matrix: the same attention"


@kind("attention-differs", "logits", "other", "row", "column")
def _attention_differs(data: dict) -> str:
    """``rowsoftmax(L)_ij != rowsoftmax(L')_ij`` at the given entry, the two balls certainly apart."""
    L, S = _matrix(data["logits"], "logits"), _matrix(data["other"], "other")
    _require(bool(L) and len(L) == len(S) and all(len(a) == len(b) for a, b in zip(L, S)), "shapes differ")
    i, j = _int(data["row"], "row", 0, len(L) - 1), _int(data["column"], "column", 0, len(L[0]) - 1)
    ones = [1] * len(L[0])
    with flint.ctx.workprec(128):
        a, b = _softmax(L[i], ones)[j], _softmax(S[i], ones)[j]
        _require(a < b or a > b, f"attention entry ({i}, {j}) is not certainly different")
    return f"the two attentions differ at ({i}, {j})"


@kind("duality", "matrix")
def _duality(data: dict) -> str:
    """``max_i ||M_i||_1 = max_{v in [-1,1]^N} max_i |(M v)_i|`` for the given rational M.

    ``max_i |(Mv)_i|`` is convex in v, so its maximum over the cube is at a
    vertex; the checker enumerates all 2^N vertices (N <= 14), and also checks
    that ``v = sign(M_{i*})`` attains the row norm.
    """
    M = _matrix(data["matrix"], "matrix")
    _require(bool(M) and 1 <= len(M[0]) <= 14, "M must have between 1 and 14 columns")
    norm = max(sum(abs(v) for v in r) for r in M)
    best = max(abs(sum((a if s else -a for a, s in zip(r, signs)), Fraction(0)))
               for signs in product((True, False), repeat=len(M[0])) for r in M)
    _require(best == norm, f"the cube maximum {best} differs from the max row l1 norm {norm}")
    star = max(range(len(M)), key=lambda i: sum(abs(v) for v in M[i]))
    sign = [1 if v >= 0 else -1 for v in M[star]]
    _require(sum((a * s for a, s in zip(M[star], sign)), Fraction(0)) == norm, "sign(M_i*) does not attain the norm")
    return f"max row l1 norm {norm} = max over the 2^{len(M[0])} cube vertices of max |M v| ({len(M)} rows)"
