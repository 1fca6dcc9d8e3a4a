"""The kind ``approx-rank-lower-inverse``: ``rank_eps >= |R|`` when ``eps ||C^{-1}||_inf < 1`` for the grouped matrix.

An honest certificate that the margins cannot give (19 points of the circle at beta = 16: the diagonal margins
fail, the inverse norm passes) is accepted with the judgment the ``-points`` kinds give; forgeries — a row set
whose inverse norm is too large, two groups sharing a column, a singular grouped matrix, another instance's
obligation, a larger epsilon — are rejected or discharge nothing; oversized work is refused up front.
"""

from fractions import Fraction

import pytest

from solvers import arrangements
from solvers.trusted import core
from solvers.trusted.core import CertificateError, Refused, digest, discharges, encode

EPS = Fraction(1, 10)
KIND = "approx-rank-lower-inverse"


def cert(data, kind=KIND):
    return {"format": core.FORMAT, "version": core.VERSION, "kind": kind, "claim": "test.claim",
            "statement": "0" * 64, "parameters": {}, "data": encode(data)}


def circle(n, beta=16, eps=EPS, rows=None, groups=None):
    """n rational points exactly on the unit circle, every point a row with its own column (unless given)."""
    points = [list(p) for p in arrangements.circle_unit(n)]
    rows = list(range(n)) if rows is None else rows
    return {"points": points, "beta": beta, "multiplicities": [1] * n, "epsilon": eps,
            "rows": rows, "groups": [[i] for i in rows] if groups is None else groups}


def test_the_inverse_norm_certifies_19_points_at_beta_16_where_the_margins_stop_at_18():
    data = circle(19)
    done = core.check(cert(data))
    points = [[Fraction(v) for v in p] for p in data["points"]]
    assert done.judgment == encode({"judgment": "approx-rank-at-least", "n": 19, "sphere": 2, "epsilon": EPS, "bound": 19,
                                    "instance": digest({"points": points, "beta": Fraction(16), "multiplicities": [1] * 19})})
    assert "19 x 19 grouped matrix" in done.summary
    with pytest.raises(CertificateError, match="margin"):  # the diagonal-dominance kind refuses the same rows
        core.check(cert(data, "approx-rank-lower-points"))


def test_what_the_margins_prove_the_inverse_proves_too():
    """Varah: margins > eps give ||C^{-1}||_inf < 1/eps; the same judgment from both kinds."""
    data = circle(18)
    assert core.check(cert(data)).judgment == core.check(cert(data, "approx-rank-lower-points")).judgment


def test_a_row_set_whose_inverse_norm_is_too_large_is_rejected():
    # 22 points at beta = 16: eps ||A^{-1}||_inf is about 2.6 in floats
    with pytest.raises(CertificateError, match="inverse norm"):
        core.check(cert(circle(22)))


def test_groups_sharing_a_column_are_rejected():
    data = circle(19)
    data["groups"][1] = [1, 0]  # column 0 is also row 0's group
    with pytest.raises(CertificateError, match="pairwise disjoint"):
        core.check(cert(data))


def test_a_singular_grouped_matrix_is_rejected_never_accepted():
    """Two rows at the same point have equal grouped rows: C is singular; arb_mat.inv cannot prove otherwise."""
    data = circle(8, beta=1)
    data["points"][1] = data["points"][0]
    with pytest.raises(CertificateError, match="not certain|certainly false"):
        core.check(cert(data))


def test_rows_and_groups_are_read_strictly():
    for rows, groups, match in (([0, 0], [[0], [1]], "distinct"), ([0, 19], [[0], [1]], "row=19"),
                                ([0, 1], [[0], []], "group has 0 entries"), ([0, 1], [[0]], "groups has 1 entries")):
        with pytest.raises(CertificateError, match=match):
            core.check(cert(circle(19, rows=rows, groups=groups)))


def test_its_judgment_discharges_only_its_own_instance_and_epsilon():
    done = core.check(cert(circle(19))).judgment
    assert discharges(done, dict(done, bound=18))  # a weaker bound
    assert not discharges(done, dict(done, bound=20))
    assert not discharges(done, dict(done, epsilon="1/5"))  # rank_eps grows as eps shrinks, not the other way
    other = core.check(cert(circle(19, beta=17))).judgment  # another beta: another instance
    assert other["instance"] != done["instance"] and not discharges(other, done)
    forged = dict(done, instance=digest({"points": [[1, 0]], "beta": 16, "multiplicities": [1]}))  # a wrong digest
    assert not discharges(done, forged)


def test_a_larger_epsilon_is_not_proved_by_the_same_rows():
    with pytest.raises(CertificateError, match="inverse norm"):
        core.check(cert(circle(19, eps=Fraction(1, 2))))


def test_the_work_is_estimated_from_sizes_and_refused_before_anything_is_computed():
    data = circle(19)
    estimate = core.KINDS[KIND][1](encode(data))
    assert estimate >= 19**3 // 2  # the r x r inverse is counted
    with pytest.raises(Refused, match="work"):
        core.check(cert(data), max_work=estimate - 1)


def test_the_estimate_grows_with_the_inverse_it_counts():
    """Structural (as tests/solvers/trusted/test_work.py): accepted certificates of 19, 39 and 78 rows; the
    estimate covers the arb entries of the rows at the five precisions (``5 r N (dim + 2)``) and the r^3 of the
    inverse, and its inverse term grows as r^3."""
    from solvers.trusted import intervals

    previous = None
    for beta, n in {16: 19, 64: 39, 256: 78}.items():
        data = encode(circle(n, beta=beta))
        assert core.check(cert(data)).judgment["bound"] == n
        estimate = core.KINDS[KIND][1](data)
        assert estimate >= 5 * n * n * 4 + n**3 // 2
        assert estimate - intervals._lower_work(data) == n**3 // 2  # the inverse, counted on top of the margins' work
        assert previous is None or estimate > previous * (n / previous_n) ** 2  # at least as fast as the entries
        previous, previous_n = estimate, n
