"""S1 — bounded outputs: the max-row-l1 norm is the worst output error over bounded values.

For every real n x N matrix M and every p >= 1,

    max_i ||M_i||_1  =  sup_{V in [-1,1]^{N x p}}  max_{i,c} |(M V)_{ic}|,

p = 1 suffices and the supremum is attained at ``v = sign(M_{i*})`` with
``i*`` a row of largest l1 norm.  Proof: ``|sum_j M_ij v_j| <= sum_j |M_ij|``
for ``|v_j| <= 1`` (triangle inequality), with equality at ``v_j =
sign(M_ij)`` since ``x sign(x) = |x|``; each column of V is a p = 1 problem.
Applied to ``M = A - B``: ``rank_eps(A)`` is exactly the least rank of a B
whose outputs ``B V`` stay within eps of ``A V`` for *every* value matrix V
with entries in [-1, 1].

What a verdict rests on: one ``duality`` judgment of the trusted checker per
seeded random rational 3 x N matrix, N <= n_vertices (the checker enumerates
all 2^N cube vertices; a convex function's maximum over the cube is at a
vertex).  The matrices are regenerated from the seed by :meth:`obligations`,
so a certificate about another matrix discharges nothing.  The identity for
*every* M rests on the two symbolic (sympy) halves of the proof, reported as
a ``symbolic_`` fact, so the rung is "verified up to" the sizes checked,
never "proved".  The maximiser ``sign(M_{i*})`` on larger N is checked by
the search code only (labelled unchecked).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import product

from solvers.lazy import numpy as np
from solvers.lazy import sympy as sp

from solvers.trusted.core import digest
from theorems.core import Claim, Obligations, Parameter, ParameterError, Statement, obligation
from theorems.softmax_rank import APPROXIMATION_RANK



def max_row_l1(M) -> Fraction:
    return max(sum((abs(Fraction(v)) for v in row), Fraction(0)) for row in M)


def cube_maximum(M) -> Fraction:
    """``max_{v in {-1,1}^N} max_i |(M v)_i|``, by enumerating every vertex.

    Exact in integers: row i times the lcm L_i of its denominators, ``max_v |(L_i M_i) v|`` over
    the 2^N sign vectors as one int64 product (|entries| <= L_i * max |M_ij| * N, far below 2^63 at
    the sizes the parameters allow: checked), then divided by L_i as a Fraction.
    """
    N = len(M[0])
    signs = np.array(list(product((1, -1), repeat=N)), dtype=np.int64)  # 2^N x N
    best = Fraction(0)
    for row in M:
        row = [Fraction(v) for v in row]
        scale = math.lcm(*(v.denominator for v in row))
        integers = [int(v * scale) for v in row]
        if sum(abs(a) for a in integers) >= 1 << 62:  # int64 would not be exact: the slow exact walk
            top = max(abs(sum(a * s for a, s in zip(integers, sv))) for sv in product((1, -1), repeat=N))
        else:
            top = int(np.abs(signs @ np.array(integers, dtype=np.int64)).max())
        best = max(best, Fraction(top, scale))
    return best


def zero_by_signs(expr, variables) -> bool:
    """``expr == 0`` for every real value of ``variables``, by cases: each variable is a positive
    symbol, minus one, or 0 (the reals are the union of the three); in every case sympy evaluates
    sign and Abs exactly and ``cancel`` must give 0 (``simplify`` finds the same at several times
    the cost, and loads sympy.physics on its first call)."""
    for choice in product(range(3), repeat=len(variables)):
        substitution = {}
        for var, k in zip(variables, choice):
            positive = sp.Dummy(positive=True)
            substitution[var] = positive if k == 0 else -positive if k == 1 else sp.Integer(0)
        if sp.cancel(expr.subs(substitution, simultaneous=True)) != 0:
            return False
    return True


def maximiser(M) -> list[int]:
    """``sign(M_{i*})`` for a row i* of largest l1 norm (sign 0 read as +1)."""
    star = max(range(len(M)), key=lambda i: sum(abs(v) for v in M[i]))
    return [1 if v >= 0 else -1 for v in M[star]]


def random_matrix(rng: random.Random, n: int, N: int, height: int = 9) -> list[list[Fraction]]:
    return [[Fraction(rng.randint(-height, height), rng.randint(1, height)) for _ in range(N)] for _ in range(n)]


def seeded_matrices(point: dict, with_large: bool = True) -> tuple[list, list]:
    """(vertex, large): the seeded matrices, a function of the point alone (``large`` empty unless asked).

    ``vertex``: ``samples`` random 3 x N matrices for each N = 1..n_vertices
    (checked on every cube vertex); ``large``: ``samples`` random 4 x N
    matrices for N from n_vertices + 1 to n_large in about 8 steps (the
    maximiser check).
    """
    rng = random.Random(point["seed"])
    vertex = [random_matrix(rng, 3, N) for N in range(1, point["n_vertices"] + 1) for _ in range(point["samples"])]
    if not with_large:
        return vertex, []
    step = max(1, (point["n_large"] - point["n_vertices"]) // 8)
    large = [random_matrix(rng, 4, N) for N in range(point["n_vertices"] + 1, point["n_large"] + 1, step) for _ in range(point["samples"])]
    return vertex, large


class Duality(Claim):
    id = "softmax_rank.duality"
    paper = "2608.28150"
    sentence = APPROXIMATION_RANK
    title = "S1: max row l1 norm = sup over bounded values of the output error"
    relation = "reads it"
    expected = "verified"
    established = "verified"
    formal = ("S1_duality",)
    parameters = (
        Parameter("n_vertices", 8, 1, 14, "largest N checked on every vertex of [-1,1]^N"),
        Parameter("samples", 6, 1, 200, "random rational matrices per size"),
        Parameter("n_large", 40, 1, 400, "largest N checked through the maximiser sign(M_i*) (by the search code, "
                  "no certificate: a setting)", size=False),
        Parameter("seed", 0, 0, 10**9, "random seed"),
    )

    def statement(self) -> Statement:
        i, j = sp.symbols("i j", integer=True)
        lhs = sp.Symbol(r"\max_i") * sp.Sum(sp.Abs(sp.Indexed("M", i, j)), (j, 1, sp.Symbol("N")))
        rhs = sp.Symbol(r"\sup_{V\in[-1,1]^{N\times p}}\max|MV|")
        return Statement(
            hypotheses=((sp.Symbol(r"M \in \mathbb{R}^{n\times N}"), "for every real n x N matrix M and every p >= 1"),),
            conclusion=(sp.Eq(lhs, rhs), "max_i ||M_i||_1 equals the worst bounded output error; p = 1 and v = sign(M_i*) attain it"),
        )

    def validate(self, point: dict) -> None:
        if point["n_large"] < point["n_vertices"]:
            raise ParameterError(f"n_large of {self.id} must be >= n_vertices ({point['n_vertices']}), got {point['n_large']}")

    def cost(self, point: dict) -> float:
        # CPU seconds fitted by bench/estimates.py (issue 15): default 0.19 s, n_vertices = 11 0.31 s,
        # n_vertices = 13 with 2 samples 0.30 s, samples = 20 with n_large = 100 0.63 s; the vertex sweep
        # (one int64 product per row) and the large maximisers (exact Fractions)
        vertices = sum(2**N * N * 3 for N in range(1, point["n_vertices"] + 1)) * point["samples"] * 1.8e-7
        return vertices + point["samples"] * point["n_large"] ** 2 * 2.2e-6 + 0.15

    def witness(self, point: dict):
        return maximiser

    def obligations(self, point: dict) -> Obligations:
        """For each seeded 3 x N matrix M (N <= n_vertices, regenerated from the seed):
        ``max_i ||M_i||_1 = max_{v in [-1,1]^N} max_i |(M v)_i|`` (judgment ``duality``, digest of M)."""
        vertex, _ = seeded_matrices(point, with_large=False)
        return Obligations(
            verify=tuple(
                obligation(f"seeded matrix #{k} (3 x {len(M[0])}): max row l1 norm = max of |M v| over the 2^{len(M[0])} cube vertices",
                           "duality", matrix=digest(M))
                for k, M in enumerate(vertex)
            ),
            reach=f"3 x N matrices, N <= {point['n_vertices']}",
        )

    def run(self, point: dict, ev) -> None:
        vertex, large = seeded_matrices(point)
        self._symbolic(ev)
        for M in vertex:
            norm, best = max_row_l1(M), cube_maximum(M)
            if norm != best:
                ev.fail(f"cube maximum {best} != max row l1 norm {norm}", {"matrix": M})
                return
            ev.certify("duality", {"matrix": M})  # the checker enumerates the vertices itself
            ev.poll()
        ev.cover("every_vertex", {"N_max": point["n_vertices"], "matrices": len(vertex)})
        for M in large:
            v = self.witness(point)(M)
            attained = max(abs(sum((a * s for a, s in zip(row, v)), Fraction(0))) for row in M)
            if attained != max_row_l1(M):
                ev.fail("sign(M_i*) does not attain the max row l1 norm", {"matrix": M, "v": v})
                return
            ev.poll()
        ev.cover("maximiser_unchecked", {"N_max": point["n_large"], "matrices": len(large), "checked by": "the search code, exactly (no certificate)"})
        ev.note(f"every cube vertex on {len(vertex)} certified matrices (N <= {point['n_vertices']}); "
                f"maximiser attains on {len(large)} larger ones (search code only)")

    def _symbolic(self, ev) -> None:
        """x sign(x) = |x| for real x, and |a v| <= |a| on |v| <= 1: the two halves of the proof."""
        x, v = sp.Symbol("x", real=True), sp.Symbol("v", real=True)
        equality = zero_by_signs(x * sp.sign(x) - sp.Abs(x), (x,))
        # |x v| = |x| |v| <= |x| for |v| <= 1; summed over j this is the triangle bound
        bound = zero_by_signs(sp.Abs(x * v) - sp.Abs(x) * sp.Abs(v), (x, v))
        ev.fact("symbolic_proof", {"rests on": "symbolic (sympy)", "x*sign(x) == |x|": equality, "|x v| == |x||v|": bound})
        if not (equality and bound):
            ev.unknown("the symbolic identities did not simplify")  # a symbolic step that does not go through proves nothing either way


CLAIM = Duality()
