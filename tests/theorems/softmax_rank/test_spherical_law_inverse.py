"""S2 with ``inverse = 1``: lower bounds by the grouped matrix's inverse norm (kind ``approx-rank-lower-inverse``).

The float search proposes, the trusted checker decides: on the circle at beta = 16 the all-rows instance of 19
points (the margins stop at 18) is certified and discharges its obligations; on S^2 the dense instance at
beta = 16 gets at least 31 rows against the truncated SVD's 113 (ratio below 4); a search that overclaims leaves
the claim unestablished; every set the margins accept passes the inverse criterion too.
"""

from fractions import Fraction

import numpy as np
import pytest

from solvers import trusted
from solvers.trusted.core import discharges
from theorems.softmax_rank import _definitions as D
from theorems.softmax_rank import _laws, spherical_law
from theorems.softmax_rank.spherical_law import SphericalLaw
from tests.theorems.softmax_rank.test_spherical_law import fresh_plans, judgments  # noqa: F401 (a fixture)

EPS = Fraction(1, 10)


def test_the_circle_at_beta_16_gets_19_rows_where_the_margins_give_18(fresh_plans):
    claim = SphericalLaw()
    out = claim.check(claim.point({"beta": 16, "upper": 0, "inverse": 1}))
    assert out.status == "verified"
    found = judgments(out)
    assert all(any(discharges(j, o["judgment"]) for _, j in found) for o in out.obligations["verify"])
    assert out.facts["largest_certified_lower"][16] == {"n": 19, "lower": 19, "upper": 19}  # rank_eps = 19 exactly there
    inverse = [j for kind, j in found if kind == "approx-rank-lower-inverse"]
    assert [j["bound"] for j in inverse] == [19] and inverse[0]["sphere"] == 2
    # the default (inverse = 0) keeps the margins: 18 on 18 points, kind approx-rank-lower-points only
    plain = spherical_law.plan(16, claim.point({"beta": 16, "upper": 0}))["largest"]
    assert (len(plain.rows), plain.lower_kind) == (18, "approx-rank-lower-points")


def test_the_dense_instance_on_the_sphere_at_beta_16_is_within_4_of_its_svd_upper_bound():
    """128 Fibonacci points x 1000 copies: the margins certified 30 rows, the inverse norm at least 31; 113 above."""
    n, beta, m = 128, Fraction(16), [1000] * 128
    points = spherical_law.sphere_points(n, 3)
    inst = spherical_law._instance(points, m, beta, EPS, with_upper=False, inverse=True)
    assert inst.criterion == "inverse" and len(inst.rows) >= 31 and 113 <= 4 * len(inst.rows)
    cert = D.lower_certificate_points(points, beta, m, EPS, inst.rows, inst.groups)
    judgment = trusted.check(SphericalLaw().certificate("approx-rank-lower-inverse", SphericalLaw().point(), cert)).judgment
    assert judgment == {"judgment": "approx-rank-at-least", "instance": D.points_instance(points, beta, m), "n": 128000,
                        "epsilon": "1/10", "bound": len(inst.rows), "sphere": 3}


def test_a_search_that_overclaims_leaves_the_claim_unestablished(monkeypatch, fresh_plans):
    """Floats that pass one point too many (22 at beta = 16): the checker rejects the certificate, the outcome is
    unknown, never verified."""
    monkeypatch.setattr(spherical_law, "all_rows_pass", lambda A, eps, inverse: len(A) <= 22 if inverse else False)
    claim = SphericalLaw()
    out = claim.check(claim.point({"beta": 16, "upper": 0, "inverse": 1}))
    assert out.status == "unknown" and "rejected" in out.message
    assert "rejected the approx-rank-lower-inverse certificate" in out.message and "certainly false" in out.message
    assert "approx-rank-lower-inverse" not in [c["kind"] for c in out.certificates]  # a rejected one is not kept


@pytest.mark.parametrize("beta", [4, 16, 64])
def test_whatever_the_margins_accept_passes_the_inverse_criterion(beta):
    """Varah: margins > eps bound ||C^{-1}||_inf by 1/min margin, so the inverse search never certifies fewer rows."""
    n = 8 * spherical_law.root_ceil(beta)
    X = spherical_law.float_sphere_points(n, 2)
    A = spherical_law.float_attention(X, beta, [1000] * n)
    rows, groups = D.search_grouped(A, EPS)
    margin = min(D.grouped_margins(A, rows, groups))
    assert margin > float(EPS)
    assert _laws.inverse_norm(A, rows, groups, EPS) <= float(EPS) / margin * (1 + 1e-12)
    assert len(_laws.search_inverse(A, EPS)[0]) >= len(rows)
    assert _laws.inverse_norm(np.eye(3), [0, 1], [[0], [1]], EPS) == pytest.approx(0.1)  # C = I: eps ||I||_inf
    assert _laws.inverse_norm(np.ones((3, 3)) / 3, [0, 1], [[0], [1, 2]], EPS) == float("inf")  # singular C: infinite
