"""The rank-two claim: r*(4) = 2 from the query cones alone, and no rank-two head at m >= 5."""

from fractions import Fraction
from itertools import combinations

import pytest

from solvers import lp, trusted
from theorems.core import first_discharging
from theorems import attention as att
from theorems.kernel_rank import rank_two
from theorems.kernel_rank.rank_two import RankTwo, token


@pytest.fixture(scope="module")
def m4():
    claim = RankTwo()
    return claim.check(claim.point())


@pytest.fixture(scope="module")
def m5():
    claim = RankTwo()
    return claim.check(claim.point({"m": "5"}))


def judgments(outcome):
    return [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]


def test_r_star_4_is_two_from_the_cones(m4):
    assert m4.status == "verified", m4.message
    needed = RankTwo().obligations(RankTwo().point()).verify
    assert [first_discharging(judgments(m4), o) for o in needed] == ["rank-one-infeasible", "exhaustive"]


def test_one_ray_misses_the_cones_on_every_token_at_m4_and_meets_them_at_m3():
    assert isinstance(rank_two.ray_system(4).decide(), lp.Infeasible)
    assert isinstance(rank_two.ray_system(3).decide(), lp.Feasible)


def test_each_stored_generator_alone_misses_some_cone_and_together_they_meet_all():
    generators = rank_two.generators_m4()
    for g in generators:
        assert rank_two.head_from_cones(4, [g]) is None
    Phi, U = rank_two.head_from_cones(4, generators)
    assert all(len(row) == 2 and min(row) >= 0 for row in Phi)


def test_the_middle_angle_row_is_a_nonnegative_combination_of_the_others():
    """Lemma 2 on the m = 4 head: for every triple, the row of the middle angle is
    alpha K[b] + beta K[c] with alpha, beta >= 0 (so its M(a; b, c) must be feasible)."""
    generators = rank_two.generators_m4()
    Phi, _ = rank_two.head_from_cones(4, generators)
    K = [[sum((p * g[x] for p, g in zip(Phi[q], generators)), Fraction(0)) for x in range(16)] for q in range(16)]
    slope = lambda q: Phi[q][1] / (Phi[q][0] + Phi[q][1])  # noqa: E731  (monotone in the angle)
    for triple in combinations(range(16), 3):
        b, a, c = sorted(triple, key=slope)
        det = Phi[b][0] * Phi[c][1] - Phi[b][1] * Phi[c][0]
        if det == 0:
            continue
        alpha = (Phi[a][0] * Phi[c][1] - Phi[a][1] * Phi[c][0]) / det
        beta = (Phi[b][0] * Phi[a][1] - Phi[b][1] * Phi[a][0]) / det
        assert alpha >= 0 and beta >= 0
        assert all(K[a][x] == alpha * K[b][x] + beta * K[c][x] for x in range(16))


def test_no_rank_two_head_at_any_m_from_5(m5):
    assert m5.status == "verified", m5.message
    needed = RankTwo().obligations(RankTwo().point({"m": "5"})).verify
    assert needed[0].judgment["rank"] == 2 and needed[0].judgment["m"] == [5, None]
    assert [first_discharging(judgments(m5), o) for o in needed] == ["rank-two-betweenness"]
    assert m5.facts["exclusions_certified"] == len(rank_two.EXCLUSIONS_M5)


def test_each_exclusion_is_a_two_token_preference():
    """The certificates found use the middle a and its complement only: one lo/hi/lo box per query."""
    data, _, _ = rank_two.betweenness_certificate()
    for entry in data["exclusions"]:
        complement = att.bits(31 ^ token(entry["middle"]), 5)
        assert {t for row in entry["rows"] for t in row[3]} == {entry["middle"], complement}
        assert len(entry["rows"]) == 9 and not entry["nonnegative"]


def test_a_wrong_plan_leaves_the_outcome_unknown(monkeypatch):
    a, b, c = rank_two.EXCLUSIONS_M5[0]
    # 01100 is not excluded from between 10010 and 01111 at m = 5: that M is feasible
    monkeypatch.setattr(rank_two, "EXCLUSIONS_M5", ((b, a, c),) + rank_two.EXCLUSIONS_M5[1:])
    data, open_, order = rank_two.betweenness_certificate(rank_two.EXCLUSIONS_M5)
    assert [middle for middle, _ in open_] == [b]
    claim = RankTwo()
    outcome = claim.check(claim.point({"m": "5"}))
    assert outcome.status != "verified"
    assert not any(c["kind"] == "rank-two-betweenness" for c in outcome.certificates)


def test_stored_heads_prefer_the_lower_score_at_a_gap_of_two():
    """Lemma 4 on real heads: <v,q> - <u,q> = 2 forces K[q,u] > K[q,v] (the m = 4 rank-2 head
    from the cones, and the table's stored rank-3 head at m = 5)."""
    from theorems.kernel_rank.feature_rank_table import load_witnesses

    stored = load_witnesses()["m5_r3"]
    Phi5, Psi5 = stored["phi"], stored["psi"]
    generators = rank_two.generators_m4()
    Phi4, _ = rank_two.head_from_cones(4, generators)
    Psi4 = [[g[x] for g in generators] for x in range(16)]
    checked = 0
    for m, Phi, Psi in ((4, Phi4, Psi4), (5, Phi5, Psi5)):
        size = 1 << m
        K = [[sum((a * b for a, b in zip(Phi[q], Psi[x])), Fraction(0)) for x in range(size)] for q in range(size)]
        for q in range(size):
            for u in range(size):
                for v in range(size):
                    if att.inner(v, q) - att.inner(u, q) == 2:
                        assert K[q][u] > K[q][v], (m, q, u, v)
                        checked += 1
    assert checked == 220 + 2280


def test_the_dependency_on_the_table_is_one_way():
    """The r*(m) table builds on this claim (its lower bound 3); this claim reads nothing of the table: no import,
    no stored file (its generators are its own), no ``uses`` edge back."""
    import inspect

    from theorems.kernel_rank import feature_rank_table

    source = inspect.getsource(rank_two)
    assert "feature_rank" not in source.replace("feature rank", "")
    assert "kernel_rank.feature_rank_table" not in RankTwo.uses
    assert "kernel_rank.rank_two" in feature_rank_table.FeatureRankTable.uses
    assert [len(g) for g in rank_two.generators_m4()] == [16, 16]
