"""Coq export of paper S's instance certificates: rank_eps bounds, duality, row shifts.

Each exporter writes one certificate as a Coq file: its data as Coq terms, the theorem
``judgment`` (the statement the dispatcher passes in, written verbatim) and a proof that
applies a soundness theorem of ``formal/SInstances.v`` (or a general theorem of
``formal/SLemmas.v``, ``formal/SResidual.v``) to the data.  Side conditions that read only
the data (lengths, disjoint groups, ``B = F G``, ``|x|^2 = 1``, the logits ``beta X X^T``) are
computed in Q by ``vm_compute``; so are the numeric facts about exponentials — per chosen row of
a lower bound ``2 W(G_i) - W(flat) - eps T > 0``, per row of an upper bound
``sum_j |w_j e^{l_j} - B_ij T| - eps T <= 0`` on an enclosure of the row's total T, the sign of a
differing entry — by the checkers of ``formal/SExp.v`` (exp enclosed at rationals in integers,
proved sound once), so a file holds data and one ``vm_compute`` per fact, no per-row lemma.

The only number chosen here is the checkers' precision t (t squarings, 2t + 10 fractional bits):
the smallest of ``_PRECISIONS`` at which this module's exact replica of the checker (``_boxes``,
``_lower_ok``, ``_upper_ok``, ``_differs_sign``) accepts.  It is a hint: a wrong one makes the
file fail, never makes it say something false.

Data (as the trusted checker reads it, ``solvers/trusted/intervals.py``)::

    approx-rank-lower:         {logits, multiplicities, epsilon, rows, groups}
    approx-rank-lower-points:  {points, beta, multiplicities, epsilon, rows, groups}
    approx-rank-upper:         {logits, multiplicities, epsilon, left, right}
    approx-rank-upper-points:  {points, beta, multiplicities, epsilon, left, right}
    duality:                   {matrix}
    row-shift:                 {logits, shifted}
"""

from __future__ import annotations

import math
from fractions import Fraction

from theorems.formal import terms

__all__ = ["proposition", "approx_rank", "duality", "row_shift", "visible_dimension", "SIZE_LIMIT"]

# Squarings formal/SExp.v's checkers perform for one certificate at most: every exponential of a
# checked row costs t of them (t = the precision, 50 at first; ~0.4 ms of vm_compute per exponential
# at t = 50, so the limit is about a minute of Coq).  Larger instances are not exported, and say so.
SIZE_LIMIT = 8_000_000
# The exact checks around the exponentials cost more than they on large instances (measured under load on
# 2 cores: the 79 x 79 upper bound of certified_rank_bounds, n N k = 118,561 products, about 95 s with its
# logits; 64 x 64 x 37 about 140 s; 128 x 128 x 77 more than 4 minutes; a lower bound on 64 rows of 128
# points 3 minutes).  Beyond these, a certificate is not exported, and says so.
PRODUCT_LIMIT = 120_000  # n N k: the entries of B = F G times its inner dimension
GROUPED_LIMIT = 2_500  # chosen rows x columns of a lower bound


def _q(value: Fraction) -> str:
    return f"({value.numerator} # {value.denominator})"


def _qrow(row) -> str:
    return terms.bracket(_q(v) for v in row)


def _qtable(rows) -> str:
    return terms.bracket((_qrow(r) for r in rows), ";\n  ")


def _matrix(value, what: str) -> list[list[Fraction]]:
    rows = [[terms.number(v, what) for v in terms.listof(r, what)] for r in terms.listof(value, what, nonempty=True)]
    if not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError(f"{what} is not a nonempty rectangular matrix")
    return rows


def _shape_of(data: dict) -> tuple[list[list[Fraction]], list[int], dict]:
    """(exact logits, multiplicities, the Coq definitions naming the instance)."""
    m = [terms.nat(v, "multiplicity", 1) for v in terms.listof(data["multiplicities"], "multiplicities", nonempty=True)]
    if "points" in data:
        X = _matrix(data["points"], "points")
        beta = terms.number(data["beta"], "beta")
        L = [[beta * sum((a * b for a, b in zip(x, y)), Fraction(0)) for y in X] for x in X]
        defs = (f"Definition X : list (list Q) := ({_qtable(X)})%Q.\n"
                f"Definition beta : Q := {_q(beta)}%Q.\n")
    else:
        L = _matrix(data["logits"], "logits")
        defs = f"Definition L : list (list Q) := ({_qtable(L)})%Q.\n"
    if any(len(r) != len(m) for r in L):
        raise ValueError("multiplicities and columns differ in number")
    return L, m, defs


def proposition(judgment: dict) -> str | None:
    """The Coq statement of one of paper S's judgments, in the words of ``formal/SDefs.v``, about the
    data its certificate file defines (``X``, ``beta``, ``w``, ``L``, ``M``, ``A``, ``Sh``, ``Lk``; an
    obligation file imports that file), or None when it has no Coq counterpart here.

    * ``approx-rank-at-least`` / ``-at-most {instance, n, epsilon, bound[, sphere]}``: for points,
      ``[on_sphere d (QR X) /\\] approx_rank_ge (attention w (gram_logits (Q2R beta) (QR X))) (Q2R eps) k``;
      for logits, ``approx_rank_ge (attention w (QR L)) (Q2R eps) k`` (``approx_rank_le`` for at-most).
      The judgment's ``n`` (the size of the full instance, every point repeated by its multiplicity) is
      not in the statement: the matrix stated is W, the weighted attention on the listed points, and
      ``rank_eps`` of the full instance equals ``rank_eps(W)`` by the multiplicity lemma;
    * ``duality {matrix}``: ``duality_holds (QR M)``;
    * ``same-attention {logits, other}``: ``rowsoftmax (QR Sh) = rowsoftmax (QR L)``;
    * ``attention-differs {logits, other}``: ``rowsoftmax (QR L) <> rowsoftmax (QR Sh)``;
    * ``rank-at-most`` / ``rank-at-least {matrix, rows, cols, bound}``: ``rank_le k (QR A)`` / ``rank_ge k (QR A)``;
    * ``residual-within {logits, approximation}``: ``residual_within (QR L) (QR Lk)``;
    * ``residual-two-point {t, bound, relation}``: the perturbation the certificate exhibits, e.g.
      ``exists l e : list R, length e = length l /\\ Forall (fun x => Rabs x <= ln (Q2R t)) e /\\
      l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) > tanh (ln (Q2R t))``;
    * ``singular-values-above {logits, tau, count}``: ``sv_count (centered (QR L)) (Q2R tau) count``
      (``#{i : sigma_i(L P) > tau} = count``, P = I - 11^T/N, by Courant-Fischer: formal/SDefs.v).

    Judgments name their matrices by digest: that the file's data is the matrix the digest names is
    the Python checker's word, as for paper K's heads."""
    if not isinstance(judgment, dict):
        return None
    name = judgment.get("judgment")
    if name in ("approx-rank-at-least", "approx-rank-at-most"):
        return _approx_statement(judgment)
    if name == "duality" and set(judgment) == {"judgment", "matrix"}:
        return "duality_holds (QR M)"
    if name == "same-attention" and set(judgment) == {"judgment", "logits", "other"}:
        return "rowsoftmax (QR Sh) = rowsoftmax (QR L)"
    if name == "attention-differs" and set(judgment) == {"judgment", "logits", "other"}:
        return "rowsoftmax (QR L) <> rowsoftmax (QR Sh)"
    if name in ("rank-at-most", "rank-at-least") and type(judgment.get("bound")) is int and judgment["bound"] >= 0:
        return f"{'rank_le' if name == 'rank-at-most' else 'rank_ge'} {judgment['bound']} (QR A)"
    if name == "residual-within" and set(judgment) == {"judgment", "logits", "approximation"}:
        return "residual_within (QR L) (QR Lk)"
    if name == "residual-two-point":
        return _two_point_statement(judgment)
    if name == "singular-values-above":
        return _sv_statement(judgment)
    return None


TWO_POINT = {  # (bound, relation) -> (the bound as a Coq term of T := Q2R t, the comparison, the theorem)
    ("tanh(delta)", "exceeds"): ("tanh (ln T)", ">", "two_point_exceeds_tanh_sound"),
    ("2tanh(delta/2)", "attains"): ("2 * tanh (ln T / 2)", "=", "two_point_attains_sound"),
    ("2tanh(delta/2)", "exceeds"): ("2 * tanh (ln T / 2)", ">", "two_point_exceeds_2tanh_half_sound"),
    ("tanh(delta)", "attains"): ("tanh (ln T)", "=", "two_point_attains_tanh_sound"),
}


def _two_point_statement(judgment: dict) -> str | None:
    key = (judgment.get("bound"), judgment.get("relation"))
    if set(judgment) != {"judgment", "t", "bound", "relation"} or key not in TWO_POINT:
        return None
    try:
        t = judgment["t"] if isinstance(judgment["t"], Fraction) else terms.number(judgment["t"], "t")
    except ValueError:
        return None
    T = f"(Q2R {_q(t)}%Q)"
    bound, relation, _ = TWO_POINT[key]
    return (f"exists l e : list R, length e = length l /\\ Forall (fun x => Rabs x <= ln {T}) e /\\ "
            f"l1 (softmax (ones (length l)) l) (softmax (ones (length l)) (vadd l e)) {relation} {bound.replace('T', T)}")


def _approx_statement(judgment: dict) -> str | None:
    keys = set(judgment) - {"judgment", "instance", "n", "epsilon", "bound"}
    bound = judgment.get("bound")
    if keys - {"sphere"} or type(bound) is not int or bound < 0:
        return None
    try:
        eps = judgment["epsilon"] if isinstance(judgment.get("epsilon"), Fraction) else terms.number(judgment.get("epsilon"), "epsilon")
    except ValueError:
        return None
    relation = "approx_rank_ge" if judgment["judgment"] == "approx-rank-at-least" else "approx_rank_le"
    if "sphere" in judgment:
        d = judgment["sphere"]
        if not (d is False or (type(d) is int and d >= 1)):
            return None
        head = f"on_sphere {d} (QR X) /\\ " if d is not False else ""
        matrix = "attention w (gram_logits (Q2R beta) (QR X))"
    else:
        head, matrix = "", "attention w (QR L)"
    return f"{head}{relation} ({matrix}) (Q2R {_q(eps)}%Q) {bound}"


HEADER = ("From Coq Require Import Reals List QArith.\n"
          "From AttnProof Require Import SDefs SLemmas SResidual SInstances.\n"
          "Import ListNotations.\nOpen Scope R_scope.\n\n")


REFLECT = "From AttnProof Require Import SExp.\n\n"  # the exponentials' checkers: only where exponentials are evaluated

# The checkers' precisions t tried in turn (formal/SExp.v: sq_count t = t squarings, frac_bits t = 2t + 10).
_PRECISIONS = (50, 100, 200)


def _header() -> str:
    return HEADER


def _sphere_step(data: dict, statement: str) -> str:
    return "split; [apply sphere_Q; vm_compute; reflexivity|]. " if statement.startswith("on_sphere") else ""


def _box(t: int, x: Fraction) -> tuple[int, int]:
    """``zexp (frac_bits t) (sq_count t)`` of formal/SExp.v at ``x <= 0``, exactly: integers (lo, hi) with
    ``lo / 2^P <= exp(x) <= hi / 2^P``."""
    P, k = 2 * t + 10, t
    n, d = x.numerator, x.denominator
    D = d << k
    lo, hi = max(0, ((D + n) << P) // D), -((-(D << P)) // (D - n))
    for _ in range(k):
        lo, hi = (lo * lo) >> P, -((-(hi * hi)) >> P)
    return lo, hi


def _boxes(t: int, w, row) -> list[tuple[int, int]]:
    """``eencl``: the enclosures of ``w_c e^{l_c - M}``, M the row's largest entry."""
    top = max(row)
    return [(c * lo, c * hi) for c, (lo, hi) in ((c, _box(t, v - top)) for c, v in zip(w, row))]


def _at(E, c):
    return E[c] if c < len(E) else (0, 0)


def _lower_ok(t: int, w, row, own, flat, eps: Fraction) -> bool:
    """``lower_row``: ``2 W(own) - W(flat) - eps T > 0`` from the enclosures."""
    E = _boxes(t, w, row)
    own_lo, flat_hi = sum(_at(E, c)[0] for c in own), sum(_at(E, c)[1] for c in flat)
    return eps >= 0 and eps.numerator * sum(h for _, h in E) < (2 * own_lo - flat_hi) * eps.denominator


def _upper_ok(t: int, w, row, b, eps: Fraction) -> bool:
    """``upper_row``: every ``|w_j e_j - b_j T|`` bounded at the corners of its box, the sum at most ``eps T``."""
    E = _boxes(t, w, row)
    tlo, thi = sum(lo for lo, _ in E), sum(hi for _, hi in E)
    total = 0
    for (lo, hi), q in zip(E, b):
        bn, bd = q.numerator, q.denominator
        z = max(hi * bd - bn * tlo, hi * bd - bn * thi, bn * tlo - lo * bd, bn * thi - lo * bd)
        total += -((-z) // bd)
    return eps >= 0 and total * eps.denominator <= eps.numerator * tlo


def _differs_sign(t: int, l, s, j: int) -> int:
    """``differs_sides``: 1 (-1) when ``e_j(l) T(s) - e_j(s) T(l)`` is certainly positive (negative), else 0."""
    El, Es = _boxes(t, [1] * len(l), l), _boxes(t, [1] * len(s), s)
    a, c = _at(El, j), _at(Es, j)
    if c[1] * sum(h for _, h in El) < a[0] * sum(lo for lo, _ in Es):
        return 1
    if a[1] * sum(h for _, h in Es) < c[0] * sum(lo for lo, _ in El):
        return -1
    return 0


def _precision(ok, exponentials: int, what: str) -> int:
    """The first precision of ``_PRECISIONS`` at which ``ok(t)`` holds (the work within ``SIZE_LIMIT``)."""
    for t in _PRECISIONS:
        if exponentials * t > SIZE_LIMIT:
            raise ValueError(f"{exponentials} exponentials at precision {t}: {exponentials * t} squarings, more than {SIZE_LIMIT}")
        if ok(t):
            return t
    raise ValueError(f"{what}: not decided by formal/SExp.v's checkers at precisions {_PRECISIONS}")


def approx_rank(data: dict, statement: str) -> str:
    """The file of an ``approx-rank-lower[-points]`` or ``approx-rank-upper[-points]`` certificate."""
    statement = terms.proposition(statement)
    L, m, defs = _shape_of(data)
    eps = terms.number(data["epsilon"], "epsilon")
    n, N = len(L), len(m)
    lower = "rows" in data
    out = [_header(), REFLECT, defs,
           f"Definition w : list nat := {terms.nats(m)}.\n",
           f"Definition eps : Q := {_q(eps)}%Q.\n",
           (f"Definition Lq : list (list Q) := ({_qtable(L)})%Q.\n\n" if "points" in data
            else "Definition Lq : list (list Q) := L.\n\n")]
    if "points" in data:
        out.append("Lemma logits : gram_logits (Q2R beta) (QR X) = QR Lq.\n"
                   "Proof. apply logits_Q; vm_compute; reflexivity. Qed.\n\n")
        rewrite = "rewrite logits. "
    else:
        rewrite = ""
    if lower:
        rows = [terms.nat(r, "row") for r in terms.listof(data["rows"], "rows", nonempty=True)]
        groups = [[terms.nat(c, "column") for c in terms.listof(g, "group", nonempty=True)]
                  for g in terms.listof(data["groups"], "groups")]
        if len(groups) != len(rows) or max(rows) >= n:
            raise ValueError("rows and groups do not match the instance")
        if len(rows) * N > GROUPED_LIMIT:
            raise ValueError(f"{len(rows)} chosen rows x {N} columns = {len(rows) * N}, more than {GROUPED_LIMIT} "
                             "(the largest lower bound Coq is asked about by default)")
        flat = [c for g in groups for c in g]
        t = _precision(lambda t: all(_lower_ok(t, m, L[r], g, flat, eps) for r, g in zip(rows, groups)),
                       len(rows) * N, "a chosen row's margin")
        out.append(f"Definition rows : list nat := {terms.nats(rows)}.\n"
                   f"Definition groups : list (list nat) := {terms.bracket(terms.nats(g) for g in groups)}.\n\n")
        proof = (f"(lower_sound_Q Lq w eps rows groups (ltac:(vm_compute; reflexivity)) "
                 f"(lower_rows_sound BigZints {t} w Lq rows groups eps (ltac:(vm_compute; reflexivity))))")
    else:
        F, G = _matrix(data["left"], "left"), _matrix(data["right"], "right")
        if len(F) != n or len(G[0]) != N or any(len(f) != len(G) for f in F):
            raise ValueError("left and right do not multiply to the instance's shape")
        if n * N * len(G) > PRODUCT_LIMIT:
            raise ValueError(f"B = F G of {n} x {len(G)} x {N} = {n * N * len(G)} products, more than {PRODUCT_LIMIT} "
                             "(the largest upper bound Coq is asked about by default)")
        B = [[sum((f[t] * G[t][j] for t in range(len(G))), Fraction(0)) for j in range(N)] for f in F]
        t = _precision(lambda t: all(_upper_ok(t, m, L[i], B[i], eps) for i in range(n)), n * N, "a row's error")
        out.append(f"Definition F : list (list Q) := ({_qtable(F)})%Q.\n"
                   f"Definition G : list (list Q) := ({_qtable(G)})%Q.\n"
                   f"Definition Bq : list (list Q) := ({_qtable(B)})%Q.\n\n")
        proof = (f"(upper_sound_Q Lq F G Bq w eps (ltac:(vm_compute; reflexivity)) "
                 f"(upper_rows_sound BigZints {t} w Lq Bq eps (ltac:(vm_compute; reflexivity))))")
    out.append(f"\nTheorem judgment : {statement}.\n"
               f"Proof. {_sphere_step(data, statement)}{rewrite}exact {proof}. Qed.\n")
    return "".join(out)


def duality(data: dict, statement: str) -> str:
    """The file of a ``duality`` certificate: S1 for its matrix, by the general theorem."""
    statement = terms.proposition(statement)
    M = _matrix(data["matrix"], "matrix")
    return (_header() +
            f"Definition M : list (list Q) := ({_qtable(M)})%Q.\n\n"
            f"Theorem judgment : {statement}.\nProof. apply duality_sound. Qed.\n")


def row_shift(data: dict, statement: str) -> str:
    """The file of a ``row-shift`` certificate: the same attention, by S4 and a check in Q that every
    row of ``L' - L`` is constant."""
    statement = terms.proposition(statement)
    L, S = _matrix(data["logits"], "logits"), _matrix(data["shifted"], "shifted")
    return (_header() +
            f"Definition L : list (list Q) := ({_qtable(L)})%Q.\n"
            f"Definition Sh : list (list Q) := ({_qtable(S)})%Q.\n\n"
            f"Theorem judgment : {statement}.\nProof. apply row_shift_sound; vm_compute; reflexivity. Qed.\n")


def rank_upper(data: dict, statement: str) -> str:
    """The file of a ``rank-upper`` certificate: ``A = F G`` checked in Q gives ``rank A <= |G|``."""
    statement = terms.proposition(statement)
    A, F, G = _matrix(data["matrix"], "matrix"), _matrix(data["left"], "left"), _matrix(data["right"], "right")
    return (_header() +
            f"Definition A : list (list Q) := ({_qtable(A)})%Q.\n"
            f"Definition F : list (list Q) := ({_qtable(F)})%Q.\n"
            f"Definition G : list (list Q) := ({_qtable(G)})%Q.\n\n"
            f"Theorem judgment : {statement}.\n"
            f"Proof. exact (rank_upper_sound A F G {len(A[0])} (ltac:(vm_compute; reflexivity))). Qed.\n")


def _inverse(C: list[list[Fraction]]) -> list[list[Fraction]]:
    """The exact inverse of a square rational matrix (Gauss-Jordan), or ValueError when singular."""
    k = len(C)
    M = [list(r) + [Fraction(int(i == j)) for j in range(k)] for i, r in enumerate(C)]
    for c in range(k):
        p = next((r for r in range(c, k) if M[r][c] != 0), None)
        if p is None:
            raise ValueError("the minor is singular")
        M[c], M[p] = M[p], M[c]
        M[c] = [v / M[c][c] for v in M[c]]
        for r in range(k):
            if r != c and M[r][c] != 0:
                M[r] = [a - M[r][c] * b for a, b in zip(M[r], M[c])]
    return [r[k:] for r in M]


def rank_lower(data: dict, statement: str) -> str:
    """The file of a ``rank-lower`` certificate: Coq checks that the minor on ``rows`` x ``cols`` has the
    right inverse Y written here (computed exactly; a hint Coq checks, ``C Y = I`` in Q), and
    ``rank_lower_sound`` gives ``rank A >= k`` (the certificate's prime is not needed)."""
    statement = terms.proposition(statement)
    A = _matrix(data["matrix"], "matrix")
    rows = [terms.nat(r, "row") for r in terms.listof(data["rows"], "rows", nonempty=True)]
    cols = [terms.nat(c, "column") for c in terms.listof(data["cols"], "cols", nonempty=True)]
    if len(rows) != len(cols) or max(rows) >= len(A) or max(cols) >= len(A[0]):
        raise ValueError("rows and cols do not name a square minor of the matrix")
    Y = _inverse([[A[i][j] for j in cols] for i in rows])
    return (_header() +
            f"Definition A : list (list Q) := ({_qtable(A)})%Q.\n"
            f"Definition Y : list (list Q) := ({_qtable(Y)})%Q.\n\n"
            f"Theorem judgment : {statement}.\n"
            f"Proof. exact (rank_lower_sound A Y {terms.nats(rows)} {terms.nats(cols)} (ltac:(vm_compute; reflexivity))). Qed.\n")


def residual_bound(data: dict, statement: str) -> str:
    """The file of a ``residual-bound`` certificate: every row within ``2 tanh(osc_i/4)``, by S6
    (``residual_within_sound``) for any two logit matrices of one shape; no number is evaluated."""
    statement = terms.proposition(statement)
    L, Lk = _matrix(data["logits"], "logits"), _matrix(data["approximation"], "approximation")
    return (_header() +
            f"Definition L : list (list Q) := ({_qtable(L)})%Q.\n"
            f"Definition Lk : list (list Q) := ({_qtable(Lk)})%Q.\n\n"
            f"Theorem judgment : {statement}.\n"
            "Proof. apply residual_within_sound; vm_compute; reflexivity. Qed.\n")


def two_point(data: dict, statement: str) -> str:
    """The file of a ``residual-two-point`` certificate: the checker of ``formal/SResidual.v`` over Q
    (``check_two_point``) and its soundness theorem for the certificate's bound and relation."""
    statement = terms.proposition(statement)
    key = (data.get("bound"), data.get("relation"))
    if key not in TWO_POINT:
        raise ValueError(f"no Coq theorem for bound {key[0]!r} with relation {key[1]!r}")
    t = terms.number(data["t"], "t")
    p = [terms.number(v, "row") for v in terms.listof(data["row"], "row", nonempty=True)]
    w = [terms.number(v, "weight") for v in terms.listof(data["weights"], "weights", nonempty=True)]
    return (_header() +
            f"Theorem judgment : {statement}.\n"
            f"Proof. apply ({TWO_POINT[key][2]} {_q(t)}%Q ({_qrow(p)})%Q ({_qrow(w)})%Q); vm_compute; reflexivity. Qed.\n")


def attention_differs(data: dict, statement: str) -> str:
    """The file of an ``attention-differs`` certificate: at the named entry, the cross-multiplied
    difference of the two softmax entries is certainly nonzero (its sign decided by formal/SExp.v's
    checker, ``differs_pos_sound`` / ``differs_neg_sound``), and ``differs_sound`` concludes."""
    statement = terms.proposition(statement)
    L, S = _matrix(data["logits"], "logits"), _matrix(data["other"], "other")
    i, j = terms.nat(data["row"], "row"), terms.nat(data["column"], "column")
    if i >= len(L) or i >= len(S) or j >= len(L[i]) or len(L[i]) != len(S[i]):
        raise ValueError("the entry is outside the matrices")
    t = _precision(lambda t: _differs_sign(t, L[i], S[i], j) != 0, 2 * len(L[i]), "the entry's sign")
    positive = _differs_sign(t, L[i], S[i], j) > 0
    expr = f"differ_expr (nth {i} (QR L) []) (nth {i} (QR Sh) []) {j}"
    fact, sound = (f"0 < {expr}", "differs_pos_sound") if positive else (f"{expr} < 0", "differs_neg_sound")
    return (_header() + REFLECT +
            f"Definition L : list (list Q) := ({_qtable(L)})%Q.\n"
            f"Definition Sh : list (list Q) := ({_qtable(S)})%Q.\n\n"
            f"Lemma entry : {fact}.\n"
            f"Proof. exact ({sound} BigZints {t} L Sh {i} {j} (ltac:(vm_compute; reflexivity))). Qed.\n\n"
            f"Theorem judgment : {statement}.\n"
            f"Proof. exact (differs_sound (QR L) (QR Sh) {i} {j} (or_intro{'l' if positive else 'r'} entry)). Qed.\n")


# --- singular values above tau (formal/SSpectral.v) -------------------------------------------------------------

SPECTRAL_HEADER = ("From Coq Require Import Reals List QArith.\n"
                   "From AttnProof Require Import SDefs SInstances SSpectral.\n"
                   "Import ListNotations.\nOpen Scope R_scope.\n\n")

SPECTRAL_LIMIT = 100  # entries of the logits of a visible-dimension certificate Coq is asked about
_BITS = (8, 12, 16, 24, 32, 44, 52)  # the binary digits a rounded singular vector keeps, tried in turn (fewest first: short numbers for Coq)


def _sv_statement(judgment: dict) -> str | None:
    if set(judgment) != {"judgment", "logits", "tau", "count"}:
        return None
    count = judgment["count"]
    if type(count) is not int or count < 0:
        return None
    try:
        tau = judgment["tau"] if isinstance(judgment["tau"], Fraction) else terms.number(judgment["tau"], "tau")
    except ValueError:
        return None
    return f"sv_count (centered (QR L)) (Q2R {_q(tau)}%Q) {count}"


def _null_space(M: list[list[Fraction]], N: int) -> list[list[Fraction]]:
    """An exact basis of ``{x in Q^N : M x = 0}`` (reduced row echelon form)."""
    rows, pivots = [list(r) for r in M], []
    for c in range(N):
        r = next((i for i in range(len(pivots), len(rows)) if rows[i][c] != 0), None)
        if r is None:
            continue
        p = len(pivots)
        rows[p], rows[r] = rows[r], rows[p]
        rows[p] = [v / rows[p][c] for v in rows[p]]
        for i in range(len(rows)):
            if i != p and rows[i][c] != 0:
                rows[i] = [a - rows[i][c] * b for a, b in zip(rows[i], rows[p])]
        pivots.append(c)
    basis = []
    for f in (c for c in range(N) if c not in pivots):
        x = [Fraction(0)] * N
        x[f] = Fraction(1)
        for p, c in enumerate(pivots):
            x[c] = -rows[p][f]
        basis.append(x)
    return basis


def _form(M, vectors, tau2: Fraction) -> list[list[Fraction]]:
    """``G_st = <M v_s, M v_t> - tau^2 <v_s, v_t>``, exactly (as ``qform`` of SSpectral.v)."""
    images = [[sum((a * b for a, b in zip(r, v)), Fraction(0)) for r in M] for v in vectors]
    dot = lambda x, y: sum((a * b for a, b in zip(x, y)), Fraction(0))  # noqa: E731
    return [[dot(images[s], images[t]) - tau2 * dot(vectors[s], vectors[t]) for t in range(len(vectors))]
            for s in range(len(vectors))]


def _psd_squares(H: list[list[Fraction]]) -> tuple[list[list[Fraction]], list[Fraction]] | None:
    """``H = sum_i d_i l_i l_i^T`` with every ``d_i > 0`` and ``l_i`` zero before its pivot, one at it (symmetric
    elimination, zero pivots skipped), exactly; None when H is not positive semidefinite."""
    k = len(H)
    A = [list(r) for r in H]
    ls, ds = [], []
    for j in range(k):
        p = A[j][j]
        if p < 0:
            return None
        if p == 0:
            if any(A[i][j] != 0 for i in range(j, k)):
                return None
            continue
        col = [Fraction(0)] * j + [A[i][j] / p for i in range(j, k)]
        for s in range(j, k):
            for t in range(j, k):
                A[s][t] -= p * col[s] * col[t]
        ls.append(col)
        ds.append(p)
    return ls, ds


def _rounded(vector, bits: int) -> list[Fraction]:
    """A float vector rounded to ``bits`` binary digits and scaled to integers (a scale changes no sign)."""
    return _integral([Fraction(round(float(x) * (1 << bits))) for x in vector])


def _integral(vector: list[Fraction]) -> list[Fraction]:
    """The vector scaled to coprime integers: the numbers Coq multiplies stay short."""
    scale = math.lcm(*(v.denominator for v in vector))
    ints = [int(v * scale) for v in vector]
    g = math.gcd(*ints) or 1
    return [Fraction(n // g) for n in ints]


def _left_inverse(W: list[list[Fraction]], N: int) -> list[list[Fraction]]:
    """Rows Z with ``sum_j Z_sj W_t[j] = [s = t]``: the inverse of a nonsingular minor of the vectors W, placed
    at the minor's coordinates (ValueError when W is dependent)."""
    m = len(W)
    if m == 0:
        return []
    chosen, rows = [], [list(w) for w in W]  # eliminate on W (m x N) to find m independent coordinates
    for c in range(N):
        r = next((i for i in range(len(chosen), m) if rows[i][c] != 0), None)
        if r is None:
            continue
        p = len(chosen)
        rows[p], rows[r] = rows[r], rows[p]
        for i in range(p + 1, m):
            if rows[i][c] != 0:
                f = rows[i][c] / rows[p][c]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[p])]
        chosen.append(c)
        if len(chosen) == m:
            break
    if len(chosen) < m:
        raise ValueError("the vectors of the upper bound are dependent")
    Y = _inverse([[W[t][j] for t in range(m)] for j in chosen])  # C[a][t] = W_t[j_a]; Y = C^{-1}
    Z = [[Fraction(0)] * N for _ in range(m)]
    for s in range(m):
        for a, j in enumerate(chosen):
            Z[s][j] = Y[s][a]
    return Z


def visible_dimension(data: dict, statement: str) -> str:
    """The file of a ``visible-dimension`` certificate: ``#{i : sigma_i(L P) > tau} = count`` by ``sv_count_sound``
    (formal/SSpectral.v).  The hints are found here and checked by Coq in Q: the top ``count`` right singular
    vectors of ``L P`` (numpy, rounded to dyadic rationals) with an exact ``L D L^T`` of the form
    ``V^T ((L P)^T (L P) - tau^2 I) V``, D > 0; for the rest an exact basis of the null space of ``L P`` and the
    remaining singular vectors rounded, a left inverse of them, and the negated form as an exact sum of squares.
    More digits are tried when the rounded form is not definite enough; ValueError when none works."""
    import numpy as np

    statement = terms.proposition(statement)
    L = _matrix(data["logits"], "logits")
    tau = terms.number(data["tau"], "tau")
    count = terms.nat(data["count"], "count")
    if tau < 0:
        raise ValueError("tau must be >= 0")
    N = len(L[0])
    if len(L) * N > SPECTRAL_LIMIT:
        raise ValueError(f"{len(L)} x {N} logits: more than {SPECTRAL_LIMIT} entries, beyond what Coq checks in "
                         "seconds (a 10 x 10 instance takes about 12 s, a 13 x 13 one minutes)")
    M = [[v - sum(r, Fraction(0)) / N for v in r] for r in L]
    if count > N:
        raise ValueError(f"count {count} exceeds the {N} columns")
    null = [_integral(x) for x in _null_space(M, N)]
    rank = N - len(null)
    if count > rank:
        raise ValueError(f"count {count} exceeds the rank {rank} of L P")
    _, _, Vh = np.linalg.svd(np.array([[float(v) for v in r] for r in M]))
    tau2 = tau * tau
    for bits in _BITS:
        V = [_rounded(Vh[i], bits) for i in range(count)]
        W = null + [_rounded(Vh[i], bits) for i in range(count, rank)]
        ge = _psd_squares(_form(M, V, tau2))
        le = _psd_squares([[-g for g in r] for r in _form(M, W, tau2)])
        if ge is not None and len(ge[1]) == count and le is not None:
            try:
                Z = _left_inverse(W, N)
            except ValueError:
                continue
            break
    else:
        raise ValueError(f"no rounding of the singular vectors to {_BITS[-1]} bits certifies the count")
    (LV, DV), (LW, DW) = ge, le
    return (SPECTRAL_HEADER +
            f"Definition L : list (list Q) := ({_qtable(L)})%Q.\n"
            f"Definition Vs : list (list Q) := ({_qtable(V)})%Q.\n"
            f"Definition LV : list (list Q) := ({_qtable(LV)})%Q.\n"
            f"Definition DV : list Q := ({_qrow(DV)})%Q.\n"
            f"Definition Ws : list (list Q) := ({_qtable(W)})%Q.\n"
            f"Definition Zs : list (list Q) := ({_qtable(Z)})%Q.\n"
            f"Definition LW : list (list Q) := ({_qtable(LW)})%Q.\n"
            f"Definition DW : list Q := ({_qrow(DW)})%Q.\n\n"
            f"Theorem judgment : {statement}.\n"
            f"Proof. exact (sv_count_sound L {_q(tau)}%Q {count} Vs LV DV Ws Zs LW DW "
            "(ltac:(vm_compute; reflexivity))). Qed.\n")
