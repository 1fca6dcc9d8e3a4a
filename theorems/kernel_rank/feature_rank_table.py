"""The table of r*(m): the least feature rank of one head solving exact length 3.

``r*(m)`` is the least r such that some head ``K = Phi Psi^T`` (``Phi, Psi >= 0`` of
width r, positive diagonal) with some readout table U has error < 1/2 on every sequence
of exact length 3 over ``{0,1}^m``.  Each cell of the table carries a certificate:

lower bounds
    * ``r*(m) >= 1`` always (``kappa(q, q) > 0``: nothing to certify);
    * ``r*(m) >= 2`` for m >= 4: the six-row Gordan certificate of K3 on the tokens
      ``1100, 0011``, zero-padded to m (restriction lemma), re-checked at every m.
upper bounds
    * ``r*(m) <= 1`` for m <= 3: the rank-one witness of K3;
    * searched rank-r heads: alternating LPs in floating point (for fixed Psi one LP per
      query row in ``(phi(q), P[q, .])``; for fixed Phi one LP in ``(Psi, P)``), then
      Phi and Psi — not K — are rationalised with generous denominators, K = Phi Psi^T is
      formed exactly, the readout rows are found by exact LPs
      (:func:`_linearised.fixed_kernel_readout`) and the head is re-evaluated exactly on
      every sequence;
    * the family ``K[q,x] = a(q) + sum_i b_i(q) (1 - x_i)`` (feature rank m + 1): decided
      exactly per query row (fixed features, so one LP per row) — a witness, or a
      certificate that some query row has no solution;
    * softmax: ``kappa = 4^{-<q,x>}``, ``U = <q,x>`` solves length 3 with error <= 1/3 for
      every m (a score-statistic certificate); its feature rank is ``2^m``.

A lower bound >= 3 at some m would be new (the rank-two problem is not convex, so the
LP machinery does not decide it); the table says so rather than guess.
"""

from __future__ import annotations

import json
import os
import sys
from fractions import Fraction

import numpy as np
import sympy as sp

from solvers import lp
from theorems import attention as att
from theorems.core import Claim, Parameter, Statement
from theorems.kernel_rank import _linearised as lin
from theorems.kernel_rank.restriction_lemma import base_certificate, pad
from theorems.kernel_rank import THREE_TOKENS

_WITNESS_FILE = os.path.join(os.path.dirname(__file__), "feature_rank_witnesses.json")


# ------------------------------------------------------------ float search


def _setup(m: int, n: int = 3):
    from itertools import combinations_with_replacement

    size = 1 << m
    contexts = list(combinations_with_replacement(range(size), n - 1))
    data = []
    for q in range(size):
        C = np.zeros((len(contexts), size))
        T = np.zeros(len(contexts))
        for i, c in enumerate(contexts):
            seq = c + (q,)
            for x in seq:
                C[i, x] += 1
            T[i] = att.min_ip_target(seq)
        data.append((C, T))
    return size, data


def _phi_step(size, data, Psi, kmax):
    """For fixed Psi, per query: max t with lo/hi rows >= t, K[q,q] = 1, K[q,.] <= kmax."""
    from scipy.optimize import linprog

    r = Psi.shape[1]
    Phi, margins = np.zeros((size, r)), []
    for q in range(size):
        C, T = data[q]
        CPsi = C @ Psi
        one = np.ones((len(T), 1))
        A = np.vstack([np.hstack([(T - 0.5)[:, None] * CPsi, -C, one]),
                       np.hstack([-(T + 0.5)[:, None] * CPsi, C, one]),
                       np.hstack([Psi, np.zeros((size, size + 1))])])
        b = np.concatenate([np.zeros(2 * len(T)), kmax * np.ones(size)])
        c = np.zeros(r + size + 1)
        c[-1] = -1
        res = linprog(c, A_ub=A, b_ub=b, A_eq=np.hstack([Psi[q], np.zeros(size + 1)])[None, :], b_eq=[1],
                      bounds=[(0, None)] * r + [(None, None)] * size + [(None, 1)], method="highs")
        if res.status != 0:
            return None, -np.inf
        Phi[q] = res.x[:r]
        margins.append(res.x[-1])
    return Phi, min(margins)


def _psi_step(size, data, Phi, kmax):
    """For fixed Phi, one LP in (Psi, P, t): rows >= t, K[q,q] >= 1, K <= kmax."""
    import scipy.sparse as sps
    from scipy.optimize import linprog

    r = Phi.shape[1]
    blocks = []
    for q in range(size):
        C, T = data[q]
        CK = np.kron(C, Phi[q][None, :])
        P = sps.hstack([sps.csr_matrix((len(T), q * size)), sps.csr_matrix(C), sps.csr_matrix((len(T), (size - q - 1) * size))])
        one = sps.csr_matrix(np.ones((len(T), 1)))
        blocks += [sps.hstack([sps.csr_matrix((T - 0.5)[:, None] * CK), -P, one]),
                   sps.hstack([sps.csr_matrix(-(T + 0.5)[:, None] * CK), P, one])]
    cap = sps.hstack([sps.kron(sps.identity(size), sps.csr_matrix(Phi)), sps.csr_matrix((size * size, size * size + 1))])
    diag = np.zeros((size, size * r))
    for q in range(size):
        diag[q, q * r:(q + 1) * r] = -Phi[q]
    diag = sps.hstack([sps.csr_matrix(diag), sps.csr_matrix((size, size * size + 1))])
    A = sps.vstack(blocks + [cap, diag]).tocsr()
    nb = A.shape[0] - size * size - size
    b = np.concatenate([np.zeros(nb), kmax * np.ones(size * size), -np.ones(size)])
    c = np.zeros(A.shape[1])
    c[-1] = -1
    res = linprog(c, A_ub=A, b_ub=b, bounds=[(0, None)] * (size * r) + [(None, None)] * (size * size) + [(None, 1)], method="highs")
    if res.status != 0:
        return None, -np.inf
    return res.x[:size * r].reshape(size, r), res.x[-1]


def search_rank(m: int, r: int, seeds=range(20), iterations: int = 20, kmax: float = 100.0, poll=lambda: None, say=lambda s: None):
    """Alternating LPs from random starts; (Phi, Psi) as floats with a positive margin, or None.

    Floats only search: whatever is found is rationalised and re-checked exactly.
    """
    size, data = _setup(m)
    for seed in seeds:
        rng = np.random.default_rng(seed)
        Psi, best = rng.random((size, r)), -np.inf
        for it in range(iterations):
            poll()
            Phi, _ = _phi_step(size, data, Psi, kmax)
            if Phi is None:
                break
            Psi, t = _psi_step(size, data, Phi, kmax)
            say(f"rank {r}, m={m}: seed {seed} iteration {it} margin {t:.5f}")
            if Psi is None:
                break
            if t > 1e-3:
                return Phi, Psi
            if t < best + 1e-7:
                break
            best = t
    return None


# ------------------------------------------------------------ exact checks


def rationalise(matrix, denominator: int) -> list[list[Fraction]]:
    """Positive rationals near the floats, each with denominator <= ``denominator``.

    Entries are floored at ``1/denominator``: a zero feature can make ``K[q, x] = 0``
    where the float search used ``P[q, x] != 0``, which no readout realises; the rows
    are strict, so a small positive perturbation of the features keeps them.
    """
    floor = Fraction(1, denominator)
    return [[max(Fraction(float(v)).limit_denominator(denominator), floor) for v in row] for row in matrix]


def exact_head(Phi, Psi, m: int, budget=None):
    """(K, U, worst error) of the exact head with the given rational features, or None."""
    size = 1 << m
    K = [[sum((a * b for a, b in zip(Phi[q], Psi[x])), Fraction(0)) for x in range(size)] for q in range(size)]
    if any(K[q][q] <= 0 for q in range(size)):
        return None
    U, failed = lin.fixed_kernel_readout(K, m, 3, budget)
    if U is None:
        return None
    return K, U, lin.kernel_worst_error(K, U, m)


def stored_head(entry: dict, m: int):
    """(K, U, worst error) of a stored head; None when its readout does not solve length 3."""
    size = 1 << m
    Phi, Psi, U = entry["phi"], entry["psi"], entry["readout"]
    K = [[sum((a * b for a, b in zip(Phi[q], Psi[x])), Fraction(0)) for x in range(size)] for q in range(size)]
    if any(K[q][q] <= 0 for q in range(size)):
        return None
    worst = lin.kernel_worst_error(K, U, m)
    return (K, U, worst) if worst < Fraction(1, 2) else None


def save_witnesses(entries: dict) -> None:
    """Write searched heads ``{"m5_r3": {"phi", "psi", "readout"}}`` (exact, as strings)."""
    from solvers.certificates import write_atomic

    text = {key: {k: [[str(v) for v in row] for row in value] for k, value in entry.items()} for key, entry in entries.items()}
    write_atomic(_WITNESS_FILE, json.dumps(text, indent=0, sort_keys=True) + "\n")


FAMILIES = {1: "affine-complement", 2: "complement-2"}


def affine_family_row(m: int, q: int, degree: int = 1):
    """Decide one query row of the family ``a + sum_i b_i (1 - x_i)`` (degree 1) or
    ``sum_{|S| <= degree} c_S prod_{i in S} (1 - x_i)``."""
    problem = lin.kernel_row(m, q, 3, FAMILIES[degree])
    return problem, problem.decide()


def family_features(m: int, degree: int = 1) -> list[list[Fraction]]:
    """``Psi[x] = (prod_{i in S} (1 - x_i))_S`` over the subsets of size <= degree
    (degree 1: ``(1, 1 - x_1, ..., 1 - x_m)``)."""
    subsets = lin.complement_subsets(m, degree)
    return [[Fraction(int(not any(x >> i & 1 for i in S))) for S in subsets] for x in range(1 << m)]


def family_rank(m: int, degree: int) -> int:
    return len(lin.complement_subsets(m, degree))


def load_witnesses() -> dict:
    """Stored rational features of searched heads (re-checked exactly before any use)."""
    if not os.path.exists(_WITNESS_FILE):
        return {}
    with open(_WITNESS_FILE) as handle:
        raw = json.load(handle)
    return {key: {k: [[Fraction(v) for v in row] for row in value] for k, value in entry.items()} for key, entry in raw.items()}


class FeatureRankTable(Claim):
    id = "kernel_rank.feature_rank_table"
    paper = "2608.11427"
    sentence = THREE_TOKENS
    title = "Certified bounds on r*(m) at exact length 3"
    expected = "verified"
    established = "verified"
    uses = ("kernel_rank.three_token_lower_bound", "kernel_rank.restriction_lemma", "kernel_rank.softmax_three_tokens")
    parameters = (
        Parameter("m_max", 6, 1, 8, "the table covers m = 1..m_max"),
        Parameter("m_degree2", 6, 0, 8, "the degree-2 complement family is tried where the affine one fails, up to this m"),
        Parameter("search", 0, 0, 1, "1: search rank-r heads afresh (floats, then exact) instead of re-checking the stored ones"),
        Parameter("denominator", 10**6, 10, 10**12, "largest denominator when rationalising searched features"),
    )

    def statement(self) -> Statement:
        m, r = sp.symbols("m r", integer=True, positive=True)
        rstar = sp.Function("r^*")
        return Statement(
            hypotheses=(
                (sp.Le(m, sp.Symbol("m_max")), "for each m = 1..m_max"),
                (sp.Eq(sp.Symbol("n"), 3), "one nonnegative kernel head K = Phi Psi^T of feature rank r, any readout table, exact length 3"),
            ),
            conclusion=(sp.And(sp.Le(sp.Symbol("lower"), rstar(m)), sp.Le(rstar(m), sp.Symbol("upper"))),
                        "each table cell's lower and upper bound holds, with its certificate"),
        )

    def cost(self, point: dict) -> float:
        m = point["m_max"]
        base = 0.4 + 0.3 * (m >= 4) + 2.5 * (m >= 5) + 1.0 * (m >= 6) + 4.0 * max(0, m - 6)
        base += sum({6: 4.0, 7: 25.0, 8: 150.0}.get(k, 0.0) for k in range(6, min(m, point["m_degree2"]) + 1))
        return base + (120.0 if point["search"] and m >= 5 else 2.0 * point["search"])

    def witness(self, point: dict):
        return load_witnesses()

    def run(self, point: dict, ev) -> None:
        say = lambda text: print(f"[{self.id}] {text}", file=sys.stderr)
        table: dict = {}
        m_max = point["m_max"]

        def cell(m, **kw):
            table.setdefault(m, {"lower": None, "upper": None}).update(kw)

        # Lower bounds, and the rank-one upper bounds for m <= 3.
        found = base_certificate()
        if found is None:
            ev.fail("no rank-one certificate on 1100, 0011 at m = 4", {"m": 4})
            return
        rows, nonneg = found
        for m in range(1, m_max + 1):
            ev.poll()
            if m <= 3:
                problem = lin.rank_one(m, 3)
                decision = problem.decide()
                if not ev.settle(decision, lp.Feasible, f"no rank-one witness at m = {m}", {"m": m}):
                    continue
                size = 1 << m
                psi, U = lin.rank_one_witness(problem, decision.point, range(size), 3)
                ev.certify("exhaustive", {
                    "m": m, "lengths": [3], "phi": [[1]] * size, "psi": [[psi[0, x]] for x in range(size)],
                    "readout": [[U[0, q, x] for x in range(size)] for q in range(size)],
                    "target": "min-ip", "tolerance": Fraction(1, 2), "symmetry": "none",
                })
                cell(m, lower=1, lower_by="kappa(q,q) > 0", upper=1, upper_by="rank-one witness (exhaustive)",
                     worst_error=lin.worst_error(psi, U, range(size), 3))
            else:
                ev.certify("rank-one-infeasible", {
                    "m": m, "positions": False, "rows": [[s, y, [pad(t, m) for t in seq]] for s, y, seq in rows],
                    "nonnegative": [[j, pad(t, m), y] for j, t, y in nonneg]})
                cell(m, lower=2, lower_by="rank-one-infeasible (1100, 0011 zero-padded)")

        # Softmax: feature rank 2^m, every m <= m_max at once.
        ev.certify("score-statistic", {"m": m_max, "lengths": [3], "kappa": [Fraction(1, 4**s) for s in range(m_max + 1)],
                                       "value": list(range(m_max + 1)), "target": "min-ip", "tolerance": Fraction(1, 2)})
        for m in range(4, m_max + 1):
            cell(m, upper=2**m, upper_by="softmax 4^-<q,x> (score-statistic), feature rank 2^m")

        # The family a(q) + sum_i b_i(q)(1 - x_i), rank m + 1; where it fails, the
        # degree-2 family (products of two complements too), rank 1 + m + C(m, 2).
        family, family2 = {}, {}
        for m in range(4, m_max + 1):
            ev.poll()
            say(f"family a + sum b_i (1 - x_i) at m={m}")
            family[m] = self._family(m, ev)
            if family[m] and m + 1 < table[m]["upper"]:
                cell(m, upper=m + 1, upper_by="family a(q) + sum_i b_i(q)(1 - x_i) (exhaustive)", worst_error=family[m])
            if not family[m] and m <= point["m_degree2"]:
                say(f"degree-2 complement family at m={m}")
                family2[m] = self._family(m, ev, degree=2)
                rank = family_rank(m, 2)
                if family2[m] and rank < table[m]["upper"]:
                    cell(m, upper=rank, upper_by="family sum_{|S|<=2} c_S(q) prod_{i in S}(1 - x_i) (exhaustive)", worst_error=family2[m])
        ev.fact("family_works", {m: bool(w) for m, w in family.items()})
        ev.fact("family_worst_error", {m: f"{float(w):.5f}" for m, w in family.items() if w})
        ev.fact("degree2_family_works", {m: bool(w) for m, w in family2.items()})
        ev.fact("degree2_family_worst_error", {m: f"{float(w):.5f}" for m, w in family2.items() if w})

        # Searched rank-r heads.
        stored = self.witness(point)
        for m, r in ((4, 2), (5, 3), (5, 2)):
            if m > m_max:
                continue
            ev.poll()
            features = None
            if point["search"]:
                say(f"searching rank {r} at m={m}")
                floats = search_rank(m, r, seeds=range(8), poll=ev.poll, say=say)
                if floats is not None:
                    features = (rationalise(floats[0], point["denominator"]), rationalise(floats[1], point["denominator"]))
            elif f"m{m}_r{r}" in stored:
                features = (stored[f"m{m}_r{r}"]["phi"], stored[f"m{m}_r{r}"]["psi"])
            if features is None:
                continue
            # a stored readout is used as it is (the head is re-evaluated exactly below);
            # otherwise the readout rows come from exact LPs
            head = (stored_head(stored[f"m{m}_r{r}"], m) if not point["search"] and "readout" in stored.get(f"m{m}_r{r}", {})
                    else exact_head(*features, m))
            if head is None:
                ev.note(f"the rank-{r} features at m = {m} did not give an exact head")
                continue
            K, U, worst = head
            ev.certify("exhaustive", {"m": m, "lengths": [3], "phi": features[0], "psi": features[1], "readout": U,
                                      "target": "min-ip", "tolerance": Fraction(1, 2), "symmetry": "none"})
            if r < table[m]["upper"]:
                cell(m, upper=r, upper_by=f"searched rank-{r} head, rational Phi, Psi (exhaustive)", worst_error=worst)

        for m in sorted(table):
            table[m]["exact"] = table[m]["lower"] == table[m]["upper"]
            if "worst_error" in table[m]:
                table[m]["worst_error_decimal"] = f"{float(table[m]['worst_error']):.5f}"
        ev.fact("r_star", table)
        ev.cover("table", {"m": [1, m_max], "length": 3})
        ev.note("r*(m) bounds: " + ", ".join(f"m={m}: [{c['lower']}, {c['upper']}]" for m, c in sorted(table.items())))

    def _family(self, m: int, ev, degree: int = 1):
        """The family's exact head (worst error) if every query row works, else record a
        certificate and return None.

        A row's problem for q is mapped to the one for sigma(q) by any coordinate
        permutation sigma (the features permute with the coordinates), so one query per
        weight is decided, averaged over the permutations fixing it (the row problem is
        convex and invariant under them) and transported to the other queries; the
        assembled head is invariant and is re-evaluated exactly, so the symmetry is
        used to search only.
        """
        size = 1 << m
        family = FAMILIES[degree]
        subsets = lin.complement_subsets(m, degree)
        where = {S: f for f, S in enumerate(subsets)}
        Psi = family_features(m, degree)
        reps = {}
        for w in range(m, -1, -1):  # heavy queries first: that is where a row fails, if one does
            ev.poll()
            q = (1 << w) - 1
            problem, decision = affine_family_row(m, q, degree)
            if isinstance(decision, lp.Infeasible):
                rows, nonneg, _ = lin.certificate_rows(problem, decision.multipliers, m)
                ev.certify("kernel-row-infeasible", {"family": family, "cases": [
                    {"m": m, "query": att.bits(q, m), "rows": rows, "nonnegative": nonneg, "order": []}]})
                ev.fact(f"{family}_m{m}_failing_query", {"query": att.bits(q, m), "certificate_rows": len(rows) + len(nonneg)})
                return None
            if not isinstance(decision, lp.Feasible):
                ev.note(f"{family} at m = {m}: query {att.bits(q, m)} undecided ({decision.reason})")
                return None
            coefs = [problem.value(decision.point, ("phi", f)) for f in range(len(subsets))]
            classes: dict = {}
            for f, S in enumerate(subsets):  # orbit of S under the permutations fixing q
                classes.setdefault((sum(1 for i in S if i < w), len(S)), []).append(f)
            for members in classes.values():
                mean = sum((coefs[f] for f in members), Fraction(0)) / len(members)
                for f in members:
                    coefs[f] = mean
            reps[w] = coefs
        Phi = [None] * size
        sigmas = {}
        for q in range(size):
            w = att.weight(q)
            # sigma maps coordinate i of the representative 1^w 0^(m-w) to the i-th one / zero of q
            sigma = [i for i in range(m) if q >> i & 1] + [i for i in range(m) if not q >> i & 1]
            sigmas[q] = sigma
            row = [Fraction(0)] * len(subsets)
            for f, S in enumerate(subsets):
                row[where[tuple(sorted(sigma[i] for i in S))]] = reps[w][f]
            Phi[q] = row
        K = [[sum((a * c for a, c in zip(Phi[q], Psi[x]) if a and c), Fraction(0)) for x in range(size)] for q in range(size)]
        U_rep, failed = lin.fixed_kernel_readout(K, m, 3, queries=[(1 << w) - 1 for w in range(m + 1)])
        if U_rep is None:
            ev.note(f"{family} at m = {m}: no exact readout for the representative rows")
            return None
        for w in range(m + 1):
            # average U over the orbits of the permutations fixing q (the row of K is
            # invariant, so the readout problem is convex and invariant): an invariant head
            q, row = (1 << w) - 1, U_rep[(1 << w) - 1]
            classes = {}
            for x in range(size):
                classes.setdefault((att.inner(x, q), att.weight(x)), []).append(x)
            for members in classes.values():
                mean = sum((row[x] for x in members), Fraction(0)) / len(members)
                for x in members:
                    row[x] = mean
        U = []
        for q in range(size):
            rep, sigma = U_rep[(1 << att.weight(q)) - 1], sigmas[q]
            row = [Fraction(0)] * size
            for x in range(size):
                row[sum(1 << sigma[i] for i in range(m) if x >> i & 1)] = rep[x]
            U.append(row)
        # invariant head (the checker re-checks the invariance): one query per weight suffices
        worst = lin.kernel_worst_error(K, U, m, poll=ev.poll, queries=[(1 << w) - 1 for w in range(m + 1)])
        ev.certify("exhaustive", {"m": m, "lengths": [3], "phi": Phi, "psi": Psi, "readout": U,
                                  "target": "min-ip", "tolerance": Fraction(1, 2), "symmetry": "coordinates"})
        return worst


CLAIM = FeatureRankTable()
