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
    out = 1
    for v in values:
        d = v.denominator
        out = out * d // _gcd(out, d)
    return out


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


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


# ------------------------------------------- paper K: linear feasibility (LP)


# ------------------------------------------- paper K: constructions


# ------------------------------------------- paper S: approximation rank
