"""Worked example (c): does the visible dimension bound rank_eps for every head of a random small transformer?

A reader of paper S (arXiv 2608.28150) meets two dimensions of a softmax head with logits
``L`` (n x n): the **visible interaction dimension** ``v = rank(L P)``, ``P = I - 11^T/n``
(softmax ignores row shifts, so only ``L P`` is seen), and the **approximation rank**
``rank_eps(A)`` of the attention ``A = rowsoftmax(L)`` in the max-row-l1 norm.  The tempting
conjecture: ``rank_eps(A) <= v`` at ``eps = 1/10`` for every head of a small transformer
with random weights — i.e. softmax adds no dimension beyond what the logits show.

The instance, regenerated from ``seed``: token embeddings ``X`` (n x d) and per head
``W_h = Q_h K_h^T`` (d x d_head factors), rational entries in [-1, 1] (denominator 4),
logits ``L_h = scale * X W_h X^T``; so ``v_h <= d_head``.

Per head: ``v_h`` exactly (``visible-dimension``, tau = 0); an upper bound on
``rank_eps`` by an explicit ``B = F G`` (rounded truncated SVD, certified in arb:
``approx-rank-upper``); a lower bound by rows with disjoint column groups whose margins
exceed eps (``approx-rank-lower``).  A head with a certified ``rank_eps >= v_h + 1``
refutes the conjecture; every head certified ``<= v_h`` leaves it open (a random sample
proves nothing for every head).

What the default run finds (seed 0, four heads of dimension one, so ``v_h = 1``): head 1
has ``rank_1/10(A) = 2`` exactly (two rows, attending to opposite ends of the keys,
certified apart in arb; and an explicit rank-2 B) — refuted.  Why: with ``L = s a b^T``
a query with ``a_i > 0`` looks at the largest ``b_j`` and one with ``a_i < 0`` at the
smallest, two different rows, while ``L P`` has rank one; even at ``L = 0`` the uniform
attention has rank one with ``v = 0``.  The constant row the logits cannot show is the
``+1``: ``rank_eps <= v + 1`` is the conjecture a reader should ask next.
"""

from __future__ import annotations

import random
from fractions import Fraction

from theorems.api import Conjecture, Obligations, Parameter, Statement, digest, obligation, sp

EPSILON = Fraction(1, 10)


def transformer(point: dict) -> list[list[list[Fraction]]]:
    """The logits ``L_h = scale * X Q_h K_h^T X^T`` of every head, exactly, from the seed."""
    rng = random.Random(point["seed"])
    n, d, dh = point["n"], point["d"], point["d_head"]

    def matrix(rows, cols):
        return [[Fraction(rng.randint(-4, 4), 4) for _ in range(cols)] for _ in range(rows)]

    X = matrix(n, d)
    heads = []
    for _ in range(point["heads"]):
        Q, K = matrix(d, dh), matrix(d, dh)
        XQ = [[sum((x[a] * Q[a][c] for a in range(d)), Fraction(0)) for c in range(dh)] for x in X]
        XK = [[sum((x[a] * K[a][c] for a in range(d)), Fraction(0)) for c in range(dh)] for x in X]
        heads.append([[point["scale"] * sum((XQ[i][c] * XK[j][c] for c in range(dh)), Fraction(0)) for j in range(n)]
                      for i in range(n)])
    return heads


def visible(logits) -> int:
    """``rank(L P)`` exactly (python-flint), the same number the ``visible-dimension`` kind counts."""
    from theorems.api import visible_interaction_dimension

    return visible_interaction_dimension(logits)


# The transformer the sentence was written for, named by the digest of its heads' logits at the default point
# (seed 0: 4 heads, n = 8, d = 4, d_head = 1).  The statement names this digest too, so editing ``transformer``
# (its weights, its sizes, how logits are formed) changes the statement's hash (outcomes made before are stale),
# and until the sentence is rewritten and SENTENCE_HEAD set to the digest the report then shows, the report
# marks the sentence STALE: written for another head.
SENTENCE_HEAD = "sha256:17239a23bd20226128fe395e35202573556b4672c23dcc79876b11d506410903"


class VisibleDimensionBoundsRank(Conjecture):
    id = "conjectures.visible_dimension_bounds_rank"
    paper = "2608.28150"
    source = "attnproof worked example"
    sentence = ("(conjecture) for every head of a small transformer with random weights, "
                "rank_eps(rowsoftmax(L)) <= rank(L P) at eps = 1/10.")
    sentence_head = SENTENCE_HEAD  # the heads this sentence was written for (see above)
    title = "The visible dimension bounds rank_1/10 of every random head (refuted)"
    expected = "refuted"
    uses = ("softmax_rank.row_scalar_quotient", "softmax_rank.residual_error")
    parameters = (
        Parameter("seed", 0, 0, 10**6, "seed of the random weights"),
        Parameter("heads", 4, 1, 8, "heads of the transformer"),
        Parameter("n", 8, 2, 16, "tokens"),
        Parameter("d", 4, 1, 8, "embedding dimension"),
        Parameter("d_head", 1, 1, 4, "head dimension (the visible dimension is at most this)"),
        Parameter("scale", Fraction(1), Fraction(0), Fraction(8), "logit scale (1/sqrt(d_head) in practice)", kind=Fraction),
    )

    def statement(self) -> Statement:
        h = sp.Symbol("h")
        r, v = sp.Function("r_eps"), sp.Function("v")
        return Statement(
            hypotheses=((sp.Eq(sp.Symbol("epsilon"), sp.Rational(1, 10)),
                         f"eps = 1/10; the seeded transformer {self.head_digest()} (its heads' logits at the default point)"),),
            conclusion=(sp.Le(r(h), v(h)), "r_eps(h) = rank_eps(rowsoftmax(L_h)) <= v(h) = rank(L_h P) for every head h"),
        )

    def head_digest(self) -> str:
        """The digest of every head's logits at the default point: the witness the statement names."""
        return digest(transformer(self.point()))

    def obligations(self, point: dict) -> Obligations:
        """Per head h (logits regenerated from the seed, named by digest; v_h = rank(L_h P) exactly):
        verify: #{sigma_i(L_h P) > 0} = v_h and rank_eps(A_h) <= v_h; refute: rank_eps(A_h) >= v_h + 1."""
        verify, refute = [], []
        for h, L in enumerate(transformer(point)):
            n, v = len(L), visible(L)
            instance = digest({"logits": L, "multiplicities": [1] * n})
            verify.append(obligation(f"head {h}: rank(L P) = {v}", "singular-values-above", logits=digest(L), tau=0, count=v))
            verify.append(obligation(f"head {h}: rank_1/10(A) <= {v}", "approx-rank-at-most", instance=instance, n=n,
                                     epsilon=EPSILON, bound=v))
            refute.append(obligation(f"head {h}: rank_1/10(A) >= {v + 1} > rank(L P) = {v}", "approx-rank-at-least",
                                     instance=instance, n=n, epsilon=EPSILON, bound=v + 1))
        return Obligations(verify=tuple(verify), refute=tuple(refute), reach=f"the {point['heads']} heads of seed {point['seed']}")

    def cost(self, point: dict) -> float:
        # CPU seconds fitted by bench/estimates.py (issue 15): 0.08 s at the default (4 heads, n = 8),
        # 0.14 s at n = 12, 0.21 s at 8 heads and n = 16: about linear in heads x n at these sizes
        return 0.04 + 0.01 * point["heads"] * point["n"] / 8

    def witness(self, point: dict):
        return transformer(point)

    def run(self, point: dict, ev) -> None:
        from theorems.api import (
            attention_floats, grouped_lower, lower_certificate_data, search_grouped, search_upper, upper_certificate_data,
        )

        ranks = {}
        for h, L in enumerate(self.witness(point)):
            ev.poll()
            n, v = len(L), visible(L)
            ev.certify("visible-dimension", {"logits": L, "tau": 0, "count": v})
            upper = search_upper(L, None, EPSILON)
            rows, groups = search_grouped(attention_floats(L, None), EPSILON)
            low = 0
            if rows and all(i in grouped_lower(L, None, EPSILON, rows, groups)["certain"] for i in rows):
                low = len(rows)
                ev.certify("approx-rank-lower", lower_certificate_data(L, None, EPSILON, rows, groups))
            if upper is not None:
                k, F, G = upper
                ev.certify("approx-rank-upper", upper_certificate_data(L, None, EPSILON, F, G))
            ranks[h] = {"visible": v, "rank_eps_at_least": low, "rank_eps_at_most": upper[0] if upper else None}
            if low > v:
                ev.fail(f"head {h}: rank_1/10(A) >= {low} > {v} = rank(L P) (certified in arb)",
                        {"head": h, "visible_dimension": v, "rank_eps_at_least": low, "rows": rows, "groups": groups})
        ev.cover("heads", {"decided": len(ranks), "epsilon": EPSILON})
        ev.fact("ranks_unchecked", ranks)
        if all(r["rank_eps_at_most"] is not None and r["rank_eps_at_most"] <= r["visible"] for r in ranks.values()):
            ev.note(f"every head of seed {point['seed']}: rank_1/10 <= rank(L P); open for other transformers")


CLAIM = VisibleDimensionBoundsRank()
