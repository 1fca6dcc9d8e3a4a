"""Family: linear certificates (Motzkin / Gordan combinations) that no head solves a task."""

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


