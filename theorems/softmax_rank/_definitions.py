"""Paper S definitions: row-softmax attention, the max-row-l1 approximation rank, its certificates.

* Logits ``L`` (n x N, rational), column multiplicities ``m`` (positive
  integers, default 1): attention ``A_ij = m_j e^{L_ij} / sum_k m_k e^{L_ik}``
  — that is ``rowsoftmax(L + 1 (log m)^T)``, kept exact by carrying m as
  weights instead of irrational logits.
* For ``epsilon in (0, 1)``:
  ``rank_eps(A) = min { rank B : B real n x N, max_i ||A_i - B_i||_1 <= eps }``
  (B unrestricted).  For ``eps >= 1`` the zero matrix is within eps of every
  row-stochastic A, so ``rank_eps = 0``: such eps are refused.
* **Visible interaction dimension** ``r = rank(L (I - 11^T/N))``: row-softmax
  is invariant under ``L + c 1^T``, and ``L P`` (P the centring projection)
  removes exactly the per-query part.

Certificates (re-checked by ``solvers.trusted``; see docs/softmax_rank.certificates.md):

* **lower** ``rank_eps(A) >= |R|`` — rows R, disjoint column groups ``G_i``
  (i in R) with margin ``A_i(G_i) - sum_{k != i} A_i(G_k) > eps`` for every
  i in R, decided in arb.  Why: for any B within eps, summing B's columns
  inside groups on rows R gives a |R| x |R| matrix C with ``rank C <= rank B``
  whose row i is within ``||A_i - B_i||_1 <= eps`` of the grouped row of A
  (summing never increases l1 errors), so ``C_ii - sum_{k != i} |C_ik| >=
  margin_i - eps > 0``: C is strictly diagonally dominant, hence nonsingular.
* **upper** ``rank_eps(A) <= k`` — an explicit ``B = F G`` (inner dimension k,
  rational), every row error ``||A_i - B_i||_1 <= eps`` decided in arb.
* **multiplicity lemma** (exact): if points repeat with multiplicities
  ``m_j``, the full matrix A (one row and one column per copy) and the
  weighted matrix W on the distinct points have ``rank_eps(A) = rank_eps(W)``:
  merging the copies of a column (summing) and of a row (keeping one) maps
  any B for A to one for W with no larger errors and no larger rank; splitting
  each column of a B' for W evenly over its ``m_j`` copies (``B'_ij / m_j``
  each) and repeating rows maps back with *equal* errors
  (``m_j |W_ij/m_j - B'_ij/m_j| = |W_ij - B'_ij|``) and equal rank.

Floats appear only in the *searches* (which rows and groups to try, which
low-rank B to propose); every verdict is an arb decision or exact.

**Instances and obligations.**  The trusted checker names the weighted
self-attention ``W = rowsoftmax(beta X X^T + 1 (log m)^T)`` by
``digest({"points": X, "beta": beta, "multiplicities": m})``
(:func:`points_instance`) and reports ``sphere: d`` when every point has
``|x|^2 = 1`` exactly; :func:`sandwich_obligations` states
``lower <= rank_eps(W) <= upper`` in those terms, so a bound certified on
another instance, another beta, a larger epsilon (for a lower bound) or
points off the sphere discharges nothing.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Sequence

from solvers.lazy import numpy as np
from flint import arb, arb_mat, fmpq, fmpq_mat

from solvers import exact, intervals
from solvers.arrangements import circle_unit
from solvers.trusted.core import digest
from theorems.core import Obligation, ParameterError, obligation

Matrix = Sequence[Sequence[Fraction]]


# --------------------------------------------------------------- epsilon


def check_epsilon(eps, where: str = "epsilon") -> Fraction:
    """epsilon as a Fraction in (0, 1), or a ParameterError saying why not."""
    eps = Fraction(eps)
    if eps >= 1:
        raise ParameterError(
            f"{where} must lie in (0, 1), got {eps}: for epsilon >= 1 the zero matrix is within "
            f"epsilon of every row-stochastic matrix (each row has l1 norm 1), so the approximation rank is 0"
        )
    if eps <= 0:
        raise ParameterError(f"{where} must lie in (0, 1), got {eps}")
    return eps


# ------------------------------------------------------------ the logits


def self_attention_logits(points: Sequence[Sequence[Fraction]], beta: Fraction) -> list[list[Fraction]]:
    """``L = beta X X^T`` exactly, for rational points X and a rational temperature beta."""
    X = exact.fmpq_matrix(points)
    L = (X * X.transpose()) * fmpq(Fraction(beta).numerator, Fraction(beta).denominator)
    return [[Fraction(int(v.p), int(v.q)) for v in row] for row in L.tolist()]


def rational_circle_points(n: int) -> list[tuple[Fraction, Fraction]]:
    """n points exactly on the unit circle near the angles 2 pi j / n (:func:`solvers.arrangements.circle_unit`)."""
    return list(circle_unit(n))


def centred(logits: Matrix) -> list[list[Fraction]]:
    """``L (I - 11^T/N)``: each row minus its mean, exactly."""
    out = []
    for row in logits:
        # over the row's common denominator q: v = a / q, the mean is sum(a) / (N q) and v - mean is
        # (N a - sum(a)) / (N q) -- the same numbers, one Fraction each instead of a Fraction sum and difference
        row = [v if type(v) is Fraction else Fraction(v) for v in row]
        q = lcm(*[v.denominator for v in row])
        ints = [v.numerator * (q // v.denominator) for v in row]
        total, size = sum(ints), len(ints)
        out.append([Fraction(size * a - total, size * q) for a in ints])
    return out


def visible_interaction_dimension(logits: Matrix) -> int:
    """``r = rank(L (I - 11^T/N))``, exactly over Q."""
    return exact.rank(centred(logits))


def is_row_shift(logits: Matrix, other: Matrix) -> bool:
    """Whether ``other = logits + c 1^T`` for some vector c (then their row-softmaxes agree)."""
    return all(
        len({Fraction(b) - Fraction(a) for a, b in zip(r, s)}) <= 1 for r, s in zip(logits, other)
    ) and len(logits) == len(other)


# ------------------------------------------------------------ attention


def attention(logits: Matrix, multiplicities: Sequence[int] | None = None, bits: int = intervals.DEFAULT_BITS):
    """Enclosures (arb) of ``A_ij = m_j e^{L_ij} / sum_k m_k e^{L_ik}``."""
    return intervals.softmax_rows(logits, multiplicities, bits)


def attention_floats(logits: Matrix, multiplicities: Sequence[int] | None = None) -> np.ndarray:
    """The same in floats — for searches only, never for a verdict."""
    L = np.array([[float(v) for v in row] for row in logits])
    m = np.ones(L.shape[1]) if multiplicities is None else np.array([float(v) for v in multiplicities])
    E = np.exp(L - L.max(axis=1, keepdims=True)) * m
    return E / E.sum(axis=1, keepdims=True)


def self_attention_floats(points, beta, multiplicities: Sequence[int] | None = None) -> np.ndarray:
    """Float attention of ``beta X X^T`` straight from the points (search only; no exact n x n logits)."""
    X = np.array([[float(v) for v in x] for x in points])
    L = float(beta) * X @ X.T
    m = np.ones(len(X)) if multiplicities is None else np.array([float(v) for v in multiplicities])
    E = np.exp(L - L.max(axis=1, keepdims=True)) * m
    return E / E.sum(axis=1, keepdims=True)


# --------------------------------------------------- lower: grouped columns


def grouped_margins(A: np.ndarray, rows: Sequence[int], groups: Sequence[Sequence[int]]) -> list[float]:
    """Float margins ``A_i(G_i) - sum_{k != i} A_i(G_k)`` (search only)."""
    label = np.full(A.shape[1], -1)
    for k, g in enumerate(groups):
        label[list(g)] = k
    return list(_labelled_margins(A, list(rows), label))


def _labelled_margins(A: np.ndarray, rows: list[int], label: np.ndarray) -> np.ndarray:
    """:func:`grouped_margins` with the groups given as a column labelling (``label[j] = k`` when column j is
    in group k, -1 outside every group): the same products in the same order, so the same floats."""
    inside = label >= 0
    onehot = np.zeros((int(inside.sum()), len(rows)))
    onehot[np.arange(onehot.shape[0]), label[inside]] = 1.0
    # mass[t, k] = A_{rows[t]}(G_k); the block taken C-ordered, as A[np.ix_(rows, cols)] is (the same product)
    mass = A[rows].take(np.nonzero(inside)[0], axis=1) @ onehot
    own = np.diag(mass)
    return 2 * own - mass.sum(axis=1)


class _Voronoi:
    """The chosen rows' owner of each column and the two largest masses on it, computed once for every
    gap ratio a search tries (:func:`voronoi_groups` at each ratio reads the same three arrays)."""

    def __init__(self, A: np.ndarray, rows: list[int]):
        S = A[rows, :]
        self.rows, self.owner = rows, np.argmax(S, axis=0)
        self.top2 = np.sort(S, axis=0)[-2:] if len(rows) > 1 else None

    def label(self, ratio: float) -> np.ndarray:
        """``label[j]``: the row index (into rows) owning column j, -1 where the column is left out at ratio."""
        if ratio > 1 and self.top2 is not None:
            return np.where(self.top2[1] >= ratio * self.top2[0], self.owner, -1)
        return self.owner

    def groups(self, ratio: float) -> list[list[int]]:
        # one stable sort instead of a scan per row: each group's columns stay in increasing order
        label = self.label(ratio)
        cols = np.nonzero(label >= 0)[0]
        by_owner = cols[np.argsort(label[cols], kind="stable")].tolist()
        ends = [0, *np.cumsum(np.bincount(label[cols], minlength=len(self.rows))).tolist()]
        return [by_owner[ends[t]:ends[t + 1]] for t in range(len(self.rows))]


def voronoi_groups(A: np.ndarray, rows: Sequence[int], ratio: float = 1.0) -> list[list[int]]:
    """Column j goes to the chosen row that puts the most mass on it (ties: the first).

    With ``ratio > 1`` a column is kept only if that mass is at least ``ratio``
    times the runner-up's: ambiguous boundary columns are left out of every
    group, which lowers the other rows' off-group mass more than it lowers
    their own (gaps between groups certify more rows).
    """
    return _Voronoi(A, list(rows)).groups(ratio)


GAP_RATIOS = (1.0, 1.1, 1.2, 1.3, 1.4, 1.5)


def search_grouped(A: np.ndarray, eps: Fraction, order: Sequence[int] | None = None, nested: bool = False,
                   ratios: Sequence[float] = GAP_RATIOS, accept=None):
    """Rows and Voronoi column groups whose float margins all exceed eps, as many rows as found.

    A is the attention in floats (``attention_floats`` or
    ``self_attention_floats``).  Tries k rows evenly spread along ``order`` (default: the row order; with
    ``nested``, the first k of ``order`` — for an order in which every prefix is spread out, such as
    :func:`farthest_point_order`) and
    bisects on k (more rows means smaller groups and smaller margins, so
    success is close to monotone in k), with Voronoi groups at each gap ratio
    of ``ratios`` (default ``GAP_RATIOS``); a float proposal only —
    ``grouped_lower`` decides it.  Returns (rows, groups), possibly empty.

    ``accept(rows, groups)``, when given, judges a proposal instead of the margins (e.g. the inverse-norm
    criterion of :func:`theorems.softmax_rank._laws.search_inverse`); the proposals and the bisection are the same.
    """
    order = list(range(A.shape[0])) if order is None else list(order)
    threshold = float(eps) + 1e-9

    def attempt(k):
        rows = sorted(order[:k]) if nested else sorted({order[(t * len(order)) // k] for t in range(k)})
        voronoi, tried = _Voronoi(A, rows), None
        for ratio in ratios:
            label = voronoi.label(ratio)
            if tried is not None and np.array_equal(label, tried):
                continue  # the groups of the ratio just refused (no column newly left out): refused again
            tried = label
            # every group nonempty (each row owns a kept column), then the margins from the labels directly
            if not np.bincount(label[label >= 0], minlength=len(rows)).all():
                continue
            if accept is None and min(_labelled_margins(A, rows, label).tolist()) > threshold:
                return rows, voronoi.groups(ratio)
            if accept is not None and accept(rows, voronoi.groups(ratio)):
                return rows, voronoi.groups(ratio)
        return None

    best, low, high = ([], []), 1, len(order)
    while low <= high:
        k = (low + high) // 2
        found = attempt(k)
        if found:
            best, low = found, k + 1
        else:
            high = k - 1
    return best


def farthest_point_order(X: np.ndarray, first: int = 0) -> list[int]:
    """The points' indices in farthest-point order (floats; for searches): from ``first``, each next index is a
    point farthest (Euclidean) from those before it, so every prefix of k indices is spread out — on a spiral
    of Fibonacci points on S^2, where k indices evenly spaced along the spiral bunch up, the prefixes do not."""
    X = np.asarray(X, dtype=float)
    order, nearest = [first], ((X - X[first]) ** 2).sum(axis=1)
    nearest[first] = -1.0  # chosen: never again, even beside a repeated point (distance 0)
    for _ in range(len(X) - 1):
        nxt = int(nearest.argmax())
        order.append(nxt)
        nearest = np.minimum(nearest, ((X - X[nxt]) ** 2).sum(axis=1))
        nearest[order] = -1.0
    return order


def _softmax_arb(row: Sequence[fmpq], m: Sequence[int]) -> list:
    """arb enclosures of ``m_j e^{l_j} / sum_k m_k e^{l_k}`` at the current precision (row max subtracted exactly)."""
    top = max(row)
    terms = [w * arb(v - top).exp() for v, w in zip(row, m)]
    total = sum(terms[1:], terms[0])
    return [t / total for t in terms]


def grouped_lower(logits: Matrix, multiplicities, eps: Fraction, rows: Sequence[int], groups) -> dict:
    """Decide each margin ``> eps`` in arb: {"certain": [rows], "not": [rows], "unknown": [rows]}.

    ``logits[i]`` is needed for the rows i in ``rows`` only (a dict of rows will do).
    """
    eps = Fraction(eps)
    verdicts: dict = {"certain": [], "not": [], "unknown": []}
    flat = [j for g in groups for j in g]
    for i, group in zip(rows, groups):
        row = [fmpq(Fraction(v).numerator, Fraction(v).denominator) for v in logits[i]]
        m = [1] * len(row) if multiplicities is None else list(multiplicities)

        def margin(row=row, m=m, group=group):
            p = _softmax_arb(row, m)
            own = sum((p[j] for j in group), arb(0))
            return 2 * own - sum((p[j] for j in flat), arb(0))
        answer = intervals.compare_refining(margin, eps)
        verdicts["certain" if answer == ">" else "not" if answer in ("<", "=") else "unknown"].append(i)
    return verdicts


def lower_certificate_data(logits: Matrix, multiplicities, eps, rows, groups) -> dict:
    """The data of an ``approx-rank-lower`` certificate."""
    return {
        "logits": [list(r) for r in logits],
        "multiplicities": list(multiplicities) if multiplicities is not None else [1] * len(logits[0]),
        "epsilon": Fraction(eps),
        "rows": list(rows),
        "groups": [list(g) for g in groups],
    }


def lower_certificate_points(points, beta, multiplicities, eps, rows, groups) -> dict:
    """The data of an ``approx-rank-lower-points`` certificate (self-attention ``beta X X^T``)."""
    return {
        "points": [list(x) for x in points],
        "beta": Fraction(beta),
        "multiplicities": list(multiplicities) if multiplicities is not None else [1] * len(points),
        "epsilon": Fraction(eps),
        "rows": list(rows),
        "groups": [list(g) for g in groups],
    }


# ------------------------------------------------------ upper: explicit B


def rational_matrix(M: np.ndarray, denominator: int) -> list[list[Fraction]]:
    """Round a float matrix to rationals with the given denominator (a proposal, then checked)."""
    return [[Fraction(round(float(v) * denominator), denominator) for v in row] for row in M]


def product(F: Matrix, G: Matrix) -> fmpq_mat:
    return exact.fmpq_matrix(F) * exact.fmpq_matrix(G)


def row_errors(logits: Matrix, multiplicities, B: fmpq_mat, bits: int = intervals.DEFAULT_BITS):
    """Enclosures of ``||A_i - B_i||_1`` for every row (arb matrices; a search step, the checker re-decides)."""
    m = [1] * len(logits[0]) if multiplicities is None else list(multiplicities)
    out = []
    with intervals.precision(bits):
        L, Ba = arb_mat(exact.fmpq_matrix(logits)), arb_mat(B)
        for i in range(L.nrows()):
            row = [L[i, j] for j in range(L.ncols())]
            c = max((v.mid() for v in row), key=float)  # any shift leaves the softmax unchanged
            terms = [w * (v - c).exp() for v, w in zip(row, m)]
            total = sum(terms[1:], terms[0])
            errors = [abs(t / total - Ba[i, j]) for j, t in enumerate(terms)]
            out.append(sum(errors[1:], errors[0]))
    return out


def _frac(q: fmpq) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def truncated_svd_proposal(logits: Matrix, multiplicities, k: int, denominator: int = 1 << 24):
    """A rank-k rational factorisation ``F G`` of the float truncated SVD of A (a proposal)."""
    A = attention_floats(logits, multiplicities)
    U, s, Vt = np.linalg.svd(A)
    return rational_matrix(U[:, :k] * s[:k], denominator), rational_matrix(Vt[:k, :], denominator)


def search_upper(logits: Matrix, multiplicities, eps: Fraction, denominator: int = 1 << 24):
    """The least k whose rounded truncated SVD is *certified* within eps; (k, F, G) or None.

    The float SVD proposes a k (the first whose float error is below eps);
    arb decides, and k grows until a proposal is certified.
    """
    A = attention_floats(logits, multiplicities)
    U, s, Vt = np.linalg.svd(A)
    n = min(A.shape)
    for k in range(1, n + 1):
        B = (U[:, :k] * s[:k]) @ Vt[:k, :]
        if np.abs(A - B).sum(axis=1).max() > float(eps) * (1 - 1e-6):
            continue
        F, G = rational_matrix(U[:, :k] * s[:k], denominator), rational_matrix(Vt[:k, :], denominator)
        errors = row_errors(logits, multiplicities, product(F, G))
        if all(intervals.compare(e, eps) == "<" for e in errors):
            return k, F, G
    return None


def upper_certificate_data(logits: Matrix, multiplicities, eps, F, G) -> dict:
    """The data of an ``approx-rank-upper`` certificate."""
    return {
        "logits": [list(r) for r in logits],
        "multiplicities": list(multiplicities) if multiplicities is not None else [1] * len(logits[0]),
        "epsilon": Fraction(eps),
        "left": [list(r) for r in F],
        "right": [list(r) for r in G],
    }


def upper_certificate_points(points, beta, multiplicities, eps, F, G) -> dict:
    """The data of an ``approx-rank-upper-points`` certificate (self-attention ``beta X X^T``)."""
    return {
        "points": [list(x) for x in points],
        "beta": Fraction(beta),
        "multiplicities": list(multiplicities) if multiplicities is not None else [1] * len(points),
        "epsilon": Fraction(eps),
        "left": [list(r) for r in F],
        "right": [list(r) for r in G],
    }


# ---------------------------------------------------- multiplicity lemma


def distinct_with_multiplicities(points: Sequence) -> tuple[list, list[int], list[int]]:
    """(distinct points in first-seen order, their multiplicities, index of each point's class)."""
    index: dict = {}
    distinct, counts, classes = [], [], []
    for p in points:
        key = tuple(p)
        if key not in index:
            index[key] = len(distinct)
            distinct.append(p)
            counts.append(0)
        counts[index[key]] += 1
        classes.append(index[key])
    return distinct, counts, classes


def expand(points: Sequence, multiplicities: Sequence[int]) -> list:
    """Each point repeated m_j times, in order (the full instance of a weighted one)."""
    return [p for p, m in zip(points, multiplicities) for _ in range(m)]


def split_rows(classes: Sequence[int], multiplicities: Sequence[int], left: Matrix) -> list[list[Fraction]]:
    """Left factor for the full instance: row i of the full matrix is row classes[i] of W's."""
    return [list(left[c]) for c in classes]


def split_columns(classes: Sequence[int], multiplicities: Sequence[int], right: Matrix) -> list[list[Fraction]]:
    """Right factor for the full instance: column j carries ``G[:, c] / m_c`` (c = its class)."""
    return [[Fraction(row[c]) / multiplicities[c] for c in classes] for row in right]


def merge_groups(classes: Sequence[int], groups: Sequence[Sequence[int]]) -> list[list[int]]:
    """Column groups on the distinct points lifted to every copy of each point."""
    return [[j for j, c in enumerate(classes) if c in set(g)] for g in groups]


def first_copies(classes: Sequence[int], rows: Sequence[int]) -> list[int]:
    """For each distinct row index, the index of its first copy in the full instance."""
    return [classes.index(r) for r in rows]


# ------------------------------------------- logits of chosen rows only


def self_attention_logit_rows(points: Sequence[Sequence[Fraction]], beta: Fraction, rows: Sequence[int]) -> dict:
    """``{i: L_i}`` with ``L_ij = beta <x_i, x_j>`` exactly, for the rows i given only.

    A grouped-column certificate reads only the rows in R: at n = 4096 points
    the full matrix would be 16.7 million rationals, these rows are |R| n.
    """
    rows = list(rows)
    if not rows:
        return {}
    X = exact.fmpq_matrix(points)
    R = exact.fmpq_matrix([points[i] for i in rows]) * X.transpose() * fmpq(Fraction(beta).numerator, Fraction(beta).denominator)
    return {i: [Fraction(int(v.p), int(v.q)) for v in row] for i, row in zip(rows, R.tolist())}


# --------------------------------------------- certified searches, obligations


def certified_grouped_points(points, beta, multiplicities, eps):
    """(rows, groups, verdicts): the float search's rows and groups on ``beta X X^T`` whose margins arb
    decides > eps (uncertain rows dropped); only the logits of the proposed rows are built."""
    rows, groups = search_grouped(self_attention_floats(points, beta, multiplicities), eps)
    verdicts = grouped_lower(self_attention_logit_rows(points, beta, rows), multiplicities, eps, rows, groups)
    keep = set(verdicts["certain"])
    return [i for i in rows if i in keep], [g for i, g in zip(rows, groups) if i in keep], verdicts


def integers_digest(value: dict) -> str:
    """``digest(value)`` (:func:`solvers.trusted.core.digest`), the same string, for a dict whose fields are
    exact values or tables of Python ints (rows of ints, of any lengths): such a table is its own canonical
    JSON data, so it goes to the JSON encoder as it is instead of being walked entry by entry (the walk
    dominates stating the obligations of large tables and instances)."""
    import hashlib
    import json

    from solvers.trusted.core import encode

    def canonical(v):
        if isinstance(v, (list, tuple)) and all(isinstance(row, (list, tuple)) and set(map(type, row)) <= {int} for row in v):
            return [list(row) for row in v]
        return encode(v)
    text = json.dumps({str(k): canonical(v) for k, v in value.items()}, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def points_instance(points, beta, multiplicities=None) -> str:
    """The digest naming ``rowsoftmax(beta X X^T + 1 (log m)^T)`` in the checker's judgments (m = 1 by default)."""
    m = [1] * len(points) if multiplicities is None else list(multiplicities)
    return digest({"points": [list(x) for x in points], "beta": Fraction(beta), "multiplicities": m})


def sandwich_obligations(what: str, points, beta, multiplicities, eps, lower: int, upper: int | None, d: int) -> list[Obligation]:
    """``lower <= rank_eps <= upper`` (upper None: the lower bound only) on the named instance, X on S^{d-1}.

    n is the size of the full instance (``sum m``): by the multiplicity lemma
    its rank_eps is that of the weighted matrix on the listed points.
    """
    m = [1] * len(points) if multiplicities is None else list(multiplicities)
    fields = dict(instance=points_instance(points, beta, m), n=sum(m), epsilon=Fraction(eps), sphere=d)
    copies = f", {sum(m)} with copies" if sum(m) != len(points) else ""
    where = f"{what} ({len(points)} points of S^{d - 1}{copies}; beta = {beta}, eps = {eps})"
    out = [obligation(f"{where}: rank_eps >= {lower}", "approx-rank-at-least", bound=lower, **fields)]
    if upper is not None:
        out.append(obligation(f"{where}: rank_eps <= {upper}", "approx-rank-at-most", bound=upper, **fields))
    return out
