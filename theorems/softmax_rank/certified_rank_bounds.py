"""Certified approximation-rank bounds on an explicit instance, with repeated points.

For self-attention ``L = beta X X^T`` on n distinct rational points of the
unit circle, the point j repeated ``m_j`` times, and ``eps in (0, 1)``:

    lower  <=  rank_eps(A_full) = rank_eps(W)  <=  upper,

``W = rowsoftmax(L + 1 (log m)^T)`` on the distinct points (multiplicity lemma).
The lower bound is a grouped-column certificate (margins decided in arb), the
upper bound an explicit rational ``B = F G`` whose every row error is enclosed
in arb.  Both are certified on W, and — to exercise the lemma — mapped to
the full instance with ``sum m_j`` points (groups lifted to every copy, B's
columns split evenly over the copies) and certified there again.

The verdict rests on the obligations (:meth:`CertifiedRankBounds.obligations`):
both bounds on W, named by its digest, with every point exactly on S^1, at
the point's epsilon; with ``full``, the same bounds on the full instance.
The bounds themselves come from the searches (:func:`plan`), run once per
point and shared by ``run`` and ``obligations``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from theorems.core import Claim, Obligations, Parameter, ParameterError, Statement
from theorems.softmax_rank import _definitions as D

from solvers.lazy import sympy as sp
from theorems.softmax_rank import APPROXIMATION_RANK


def multiplicities(n: int, spread: int) -> list[int]:
    """A fixed repeating pattern 1, 2, ..., spread of multiplicities."""
    return [1 + j % spread for j in range(n)]


class Plan(NamedTuple):
    points: list
    multiplicities: list[int]
    rows: list[int]  # certified rows of the grouped lower bound
    groups: list[list[int]]
    verdicts: dict  # arb's verdicts on every proposed row
    upper: tuple | None  # (k, F, G): B = F G certified within eps, or None if none was found


@lru_cache(maxsize=8)
def _plan(n: int, beta: Fraction, eps: Fraction, spread: int) -> Plan:
    points, m = D.rational_circle_points(n), multiplicities(n, spread)
    rows, groups, verdicts = D.certified_grouped_points(points, beta, m, eps)
    return Plan(points, m, rows, groups, verdicts, D.search_upper(D.self_attention_logits(points, beta), m, eps))


def plan(point: dict) -> Plan:
    """The instance and its bounds, found by the float searches with arb deciding (cached per point)."""
    return _plan(point["n"], Fraction(point["beta"]), Fraction(point["epsilon"]), point["spread"])


class CertifiedRankBounds(Claim):
    id = "softmax_rank.certified_rank_bounds"
    paper = "2608.28150"
    sentence = APPROXIMATION_RANK
    title = "Certified lower (grouped columns) and upper (explicit B) bounds on rank_eps, with the multiplicity lemma"
    relation = "a lemma toward it"
    expected = "verified"
    established = "verified"
    uses = ("softmax_rank.duality",)
    formal = ("grouped_lower_bound", "multiplicity_lemma")
    parameters = (
        Parameter("n", 40, 2, 400, "distinct points on the unit circle"),
        Parameter("beta", Fraction(16), Fraction(1, 10), Fraction(10**4), "inverse temperature", kind=Fraction),
        Parameter("epsilon", Fraction(1, 10), Fraction(1, 10**6), Fraction(1), "epsilon, in (0, 1)", kind=Fraction, high_open=True),
        Parameter("spread", 3, 1, 50, "multiplicities cycle through 1..spread"),
        Parameter("full", 1, 0, 1, "also certify the full instance with repeated points (1) or not (0)"),
    )

    def statement(self) -> Statement:
        lo, hi = sp.symbols("lower upper", integer=True)
        r = sp.Symbol(r"\operatorname{rank}_\varepsilon(A)")
        return Statement(
            hypotheses=(
                (sp.Symbol(r"A=\operatorname{rowsoftmax}(\beta XX^\top),\ X\subset S^1"), "self-attention on points of the circle, repeated with multiplicities m_j"),
                (sp.And(sp.Gt(sp.Symbol("varepsilon"), 0), sp.Lt(sp.Symbol("varepsilon"), 1)), "for the given epsilon in (0, 1)"),
            ),
            conclusion=(sp.And(sp.Le(lo, r), sp.Le(r, hi)), "certified sandwich; rank_eps(A_full) = rank_eps(W) on the distinct points"),
        )

    def validate(self, point: dict) -> None:
        D.check_epsilon(point["epsilon"], f"epsilon of {self.id}")

    def cost(self, point: dict) -> float:
        # arb exponentials: n^2 per certificate on W, copies^2 on the full instance; SVD search n^3
        n = point["n"]
        copies = sum(multiplicities(n, point["spread"])) if point["full"] else 0
        # coefficients fitted on n = 40, 100, 200, 400 (full = 0 and 1) and n = 20 with spread 50: within 2x
        return 0.1 + n * n * 2e-5 + copies * copies * 2.5e-6 + n**3 * 1.5e-8

    def witness(self, point: dict):
        points = D.rational_circle_points(point["n"])
        return points, multiplicities(point["n"], point["spread"])

    def obligations(self, point: dict) -> Obligations:
        """lower <= rank_eps <= upper on W (the distinct points of S^1 with their multiplicities) and, with
        ``full``, on the full instance (every copy its own point); the bounds are the ones :func:`plan` found
        (upper: n when no B was found, which fails the run)."""
        p, eps, beta = plan(point), point["epsilon"], point["beta"]
        lower, upper = len(p.rows), p.upper[0] if p.upper else point["n"]
        verify = D.sandwich_obligations("W on the distinct points", p.points, beta, p.multiplicities, eps, lower, upper, 2)
        if point["full"]:
            verify += D.sandwich_obligations("the full instance", D.expand(p.points, p.multiplicities), beta, None, eps, lower, upper, 2)
        reach = f"one instance: {point['n']} distinct points of S^1, {sum(p.multiplicities)} with copies, beta = {beta}, eps = {eps}"
        return Obligations(verify=tuple(verify), reach=reach)

    def run(self, point: dict, ev) -> None:
        self._lemma_identity(ev)
        eps, beta = point["epsilon"], point["beta"]
        p = plan(point)
        points, m, rows_c, groups_c = p.points, p.multiplicities, p.rows, p.groups
        ev.fact("lower_search_unchecked", {"proposed": len(p.verdicts["certain"]) + len(p.verdicts["unknown"]) + len(p.verdicts["not"]),
                                           "certified": len(rows_c), "undecided": p.verdicts["unknown"], "false in arb": p.verdicts["not"]})
        ev.certify("approx-rank-lower-points", D.lower_certificate_points(points, beta, m, eps, rows_c, groups_c))
        ev.poll()
        if p.upper is None:
            ev.fail("no upper certificate found (the full-rank B = A should always be found)", {"n": point["n"]})
            return
        k, F, G = p.upper
        ev.certify("approx-rank-upper-points", D.upper_certificate_points(points, beta, m, eps, F, G))
        ev.fact("rank_eps", {"lower": len(rows_c), "upper": k, "n distinct": point["n"], "points with copies": sum(m)})
        if len(rows_c) > k:
            ev.fail("the certified lower bound exceeds the certified upper bound", {"lower": len(rows_c), "upper": k})
            return
        ev.poll()
        if point["full"]:
            self._full_instance(points, m, rows_c, groups_c, F, G, point, ev)
        ev.cover("instance", {"n": point["n"], "copies": sum(m), "beta": beta, "epsilon": eps})
        ev.note(f"{len(rows_c)} <= rank_eps <= {k} at beta = {beta}, eps = {eps} ({point['n']} distinct points, {sum(m)} with copies)")

    @staticmethod
    def _lemma_identity(ev) -> None:
        """Merging m equal columns of a softmax row is the softmax with a log m key bias: symbolic (sympy),
        beside the verdict (the full-instance certificates check the lemma on the instance itself)."""
        l1, l2 = sp.symbols("l1 l2", real=True)
        m1, m2 = sp.symbols("m1 m2", positive=True, integer=True)
        Z_full = m1 * sp.exp(l1) + m2 * sp.exp(l2)  # m1 copies of column 1, m2 of column 2
        merged = m1 * sp.exp(l1) / Z_full  # the m1 copies' entries summed
        biased = sp.exp(l1 + sp.log(m1)) / (sp.exp(l1 + sp.log(m1)) + sp.exp(l2 + sp.log(m2)))
        holds = sp.simplify(merged - biased) == 0
        ev.fact("symbolic_multiplicity_identity", {"rests on": "symbolic (sympy)", "sum of m_j copies = softmax(L + 1 log m^T)": holds})
        if not holds:
            ev.unknown("the multiplicity identity did not simplify")  # a symbolic step that does not go through proves nothing either way

    def _full_instance(self, points, m, rows, groups, F, G, point, ev) -> None:
        """The same bounds on the full instance, by the maps of the multiplicity lemma."""
        full = D.expand(points, m)
        _, counts, classes = D.distinct_with_multiplicities(full)
        beta, eps = point["beta"], point["epsilon"]
        ev.certify("approx-rank-lower-points", D.lower_certificate_points(
            full, beta, None, eps, D.first_copies(classes, rows), D.merge_groups(classes, groups)))
        ev.certify("approx-rank-upper-points", D.upper_certificate_points(
            full, beta, None, eps, D.split_rows(classes, counts, F), D.split_columns(classes, counts, G)))
        ev.fact("multiplicity_lemma", {"full size": len(full), "same lower": len(rows), "same upper": len(G)})


CLAIM = CertifiedRankBounds()
