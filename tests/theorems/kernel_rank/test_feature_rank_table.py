from fractions import Fraction

import pytest

from solvers import certificates as C
from solvers import trusted
from solvers.certificates import CertificateError
from solvers.trusted import linear
from solvers.trusted.core import discharges
from theorems.core import first_discharging
from theorems.kernel_rank import feature_rank_table as frt
from theorems.kernel_rank.rank_two import EXCLUSIONS_M5, betweenness_certificate


def check(kind, data):
    return trusted.check(C.make(kind, "test", "s" * 64, {}, data))


@pytest.fixture(scope="module")
def outcome():
    claim = frt.FeatureRankTable()
    return claim.check(claim.point({"m_max": 5}))


def test_the_table(outcome):
    assert outcome.status == "verified", outcome.message
    table = outcome.facts["r_star"]
    assert [table[m]["upper"] for m in (1, 2, 3)] == [1, 1, 1]
    assert table[4]["lower"] == 2 and table[5]["lower"] == 3
    assert table[4]["upper"] == 2 and table[4]["exact"]
    assert table[5]["upper"] == 3
    witnesses = outcome.facts["r_star_witnesses_unchecked"]
    assert all(witnesses[m]["worst_error"] < Fraction(1, 2) for m in witnesses if "worst_error" in witnesses[m])
    assert outcome.facts["affine_family_fails_at"] == {}


def test_every_cell_is_an_obligation_and_discharged(outcome):
    claim = frt.FeatureRankTable()
    needed = claim.obligations(claim.point({"m_max": 5}))
    accepted = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    assert [first_discharging(accepted, o) for o in needed.verify] == \
        ["exhaustive"] * 5 + ["rank-one-infeasible", "rank-two-betweenness"]
    assert needed.reach == "m <= 5, length 3"
    # each cell's upper bound needs a head of at most that rank: the affine family's rank 5 at m = 4 is not enough
    affine = next(j for k, j in accepted if k == "exhaustive" and j["m"] == [4, 4] and j["rank"] == 5)
    assert not discharges(affine, needed.verify[3].judgment)


def test_the_default_table_covers_the_family_failure_and_softmax():
    claim = frt.FeatureRankTable()
    bounds = frt.claimed_bounds(claim.point())
    assert bounds[6] == (3, 4)  # the stored rank-4 head (was 22, the degree-2 family)
    needed = claim.obligations(claim.point())
    assert any(o.judgment["judgment"] == "kernel-row-infeasible" for o in needed.verify)
    # m = 7: the stored searched head; m = 8: the degree-2 family (rank 37) where it is tried, else softmax's 2^8
    assert frt.claimed_bounds(claim.point({"m_max": 7}))[7] == (3, frt.SEARCHED[7])
    assert frt.claimed_bounds(claim.point({"m_max": 8, "m_degree2": 8}))[8] == (3, 37)
    point = claim.point({"m_max": 8, "m_degree2": 7})
    assert frt.claimed_bounds(point)[8] == (3, 256)
    assert any(o.judgment["judgment"] == "solves" and o.judgment["model"] == "score-statistic"
               for o in claim.obligations(point).verify)


@pytest.fixture(scope="module")
def default_outcome():
    claim = frt.FeatureRankTable()
    return claim.check(claim.point())


def test_r_star_6_is_at_most_four_by_the_stored_head(default_outcome):
    """r*(6) <= 4: the stored rank-4 head, re-evaluated exactly on all 133,120 sequences (symmetry none)."""
    assert default_outcome.status == "verified", default_outcome.message
    table = default_outcome.facts["r_star"]
    assert (table[6]["lower"], table[6]["upper"]) == (3, 4)
    claim = frt.FeatureRankTable()
    cell = next(o for o in claim.obligations(claim.point()).verify
                if o.judgment["judgment"] == "solves" and o.judgment["m"] == [6, 6])
    assert cell.judgment["rank"] == 4
    accepted = [(c, trusted.check(c).judgment) for c in default_outcome.certificates]
    head = next(c for c, j in accepted if discharges(j, cell.judgment))
    assert head["kind"] == "exhaustive" and head["data"]["symmetry"] == "none" and len(head["data"]["psi"][0]) == 4
    # the degree-2 family's head (rank 22) is still checked, and does not discharge the rank-4 cell
    family = next(j for c, j in accepted if c["kind"] == "exhaustive" and j["m"] == [6, 6] and j["rank"] == 22)
    assert not discharges(family, cell.judgment)
    assert float(default_outcome.facts["r_star_witnesses_unchecked"][6]["worst_error"]) < 0.5


def test_a_tampered_m6_head_is_rejected(default_outcome):
    cert = next(c for c in default_outcome.certificates
                if c["kind"] == "exhaustive" and c["data"]["m"] == 6 and c["data"]["symmetry"] == "none")
    readout = [row[:] for row in cert["data"]["readout"]]
    readout[63][63] = str(Fraction(readout[63][63]) + 1)  # the query 111111 on itself: (q, q, q) now errs by more than 1/2
    with pytest.raises(CertificateError, match="error"):
        trusted.check({**cert, "data": {**cert["data"], "readout": readout}})


def test_the_descent_finds_an_exact_rank_two_head_at_m4():
    found = frt.search_features(4, 2, seeds=[0], steps=2000)
    assert found is not None
    Phi, Psi, U, worst = found
    assert all(v >= 0 for row in Phi + Psi for v in row) and len(Phi[0]) == 2
    assert worst < Fraction(1, 2)
    data = {"m": 4, "lengths": [3], "phi": Phi, "psi": Psi, "readout": U, "target": "min-ip",
            "tolerance": Fraction(1, 2), "symmetry": "none"}
    assert check("exhaustive", data).judgment["rank"] == 2


def test_the_plot_draws_the_certified_interval_against_the_references(default_outcome):
    from solvers.trusted.core import encode

    (plot,) = frt.FeatureRankTable().plots({"facts": encode(default_outcome.facts)})
    lower, upper, half, full = plot.series
    assert plot.kind == "interval" and plot.logy
    assert lower[1] == upper[1] == (1, 2, 3, 4, 5, 6)
    assert lower[2] == (1, 1, 1, 2, 3, 3) and upper[2] == (1, 1, 1, 2, 3, 4)
    assert "reference" in half[0] and "reference" in full[0] and full[2][-1] == 64


def test_the_table_says_r_star_5_is_three(outcome):
    """r*(5) = 3: the stored rank-3 head above, rank two refuted at every m >= 5 below."""
    table = outcome.facts["r_star"]
    assert (table[5]["lower"], table[5]["upper"], table[5]["exact"]) == (3, 3, True)
    assert "m=5: [3, 3]" in outcome.message
    lower_three = next(o for o in frt.FeatureRankTable().obligations(frt.FeatureRankTable().point({"m_max": 5})).verify
                       if o.judgment["judgment"] == "unsolvable" and o.judgment["rank"] == 2)
    cert = next(c for c in outcome.certificates if c["kind"] == "rank-two-betweenness")
    judgment = trusted.check(cert).judgment
    assert discharges(judgment, lower_three.judgment)
    # it says nothing at m = 4 (there r*(4) = 2) and nothing about rank three
    assert not discharges(judgment, lower_three.judgment | {"m": [4, None]})
    assert not discharges(judgment, lower_three.judgment | {"rank": 3})
    # tables reaching only m = 4 state no rank-two obligation; m = 6 and beyond rest on the same one
    assert frt.claimed_bounds(frt.FeatureRankTable().point({"m_max": 4}))[4] == (2, 2)
    assert not any(o.judgment.get("rank") == 2 and o.judgment["judgment"] == "unsolvable"
                   for o in frt.FeatureRankTable().obligations(frt.FeatureRankTable().point({"m_max": 4})).verify)
    assert all(lo == 3 for m, (lo, _) in frt.claimed_bounds(frt.FeatureRankTable().point({"m_max": 8})).items() if m >= 5)


def _broken_betweenness(**kwargs):
    """The real certificate with one multiplier of its first exclusion doubled."""
    data, open_, order = betweenness_certificate(**kwargs)
    first = data["exclusions"][0]
    rows = [row[:] for row in first["rows"]]
    rows[0][2] = 2 * rows[0][2]
    return {**data, "exclusions": [{**first, "rows": rows}] + data["exclusions"][1:]}, open_, order


def _rank_two_obligation(result):
    return next(d for d in result.discharged if d["obligation"] == "r*(m) >= 3 for every m >= 5")


def test_a_broken_betweenness_certificate_leaves_the_lower_bound_at_two(monkeypatch):
    monkeypatch.setattr(frt, "betweenness_certificate", _broken_betweenness)
    claim = frt.FeatureRankTable()
    result = claim.check(claim.point({"m_max": 5}))
    assert result.status == "unknown" and "rank-two-betweenness" in result.message
    assert not any(c["kind"] == "rank-two-betweenness" for c in result.certificates)
    assert _rank_two_obligation(result)["certificate"] is None
    # every other cell stands: the rank-one bound (2) still holds for m >= 4
    others = [d for d in result.discharged if d["obligation"] != "r*(m) >= 3 for every m >= 5"]
    assert others and all(d["certificate"] is not None for d in others)
    assert result.facts["r_star_witnesses_unchecked"][5]["lower_by"].startswith("rank-one-infeasible")


def test_a_plan_with_an_avoiding_order_certifies_nothing(monkeypatch):
    real = betweenness_certificate
    monkeypatch.setattr(frt, "betweenness_certificate", lambda **kw: real(EXCLUSIONS_M5[1:], **kw))
    claim = frt.FeatureRankTable()
    result = claim.check(claim.point({"m_max": 5}))
    assert result.status == "unknown" and "avoids them" in result.message
    assert not any(c["kind"] == "rank-two-betweenness" for c in result.certificates)
    assert _rank_two_obligation(result)["certificate"] is None


class _BrokenStore(frt.FeatureRankTable):
    """A stored witness whose readout was damaged: the cell must not stay verified."""

    def witness(self, point):
        stored = super().witness(point)
        U = stored["m4_r2"]["readout"]
        U[15][15] += 5
        return stored


def test_a_failing_stored_witness_makes_the_outcome_fail():
    claim = _BrokenStore()
    result = claim.check(claim.point({"m_max": 4}))
    assert result.status == "unknown" and "stored rank-2 head" in result.message


def test_the_family_fails_at_m6_with_a_certificate():
    problem, decision = frt.affine_family_row(6, 0b111111)
    assert type(decision).__name__ == "Infeasible"
    rows, nonneg, _ = frt.lin.certificate_rows(problem, decision.multipliers, 6)
    case = {"m": 6, "query": "111111", "tokens": "all", "rows": rows, "nonnegative": nonneg, "order": []}
    judgment = check("kernel-row-infeasible", {"family": "affine-complement", "length": 3, "cases": [case]}).judgment
    wanted = frt.FeatureRankTable().obligations(frt.FeatureRankTable().point())
    assert any(discharges(judgment, o.judgment) for o in wanted.verify)
    with pytest.raises(CertificateError):  # the degree-2 family has more freedom: the rows no longer refute it
        check("kernel-row-infeasible", {"family": "complement-2", "length": 3, "cases": [case]})


def test_rationalised_features_are_rechecked_exactly():
    floats = frt.search_rank(4, 2, seeds=range(3))
    assert floats is not None, "no rank-2 features found from 3 seeds"
    assert [tuple(f.shape) for f in floats] == [(16, 2), (16, 2)]  # (Phi, Psi): one row per token of {0,1}^4
    assert all((f >= 0).all() for f in floats)  # nonnegative features
    head = frt.exact_head(frt.rationalise(floats[0], 10**6), frt.rationalise(floats[1], 10**6), 4)
    assert head is not None and head[2] < Fraction(1, 2)
    # a rank-one head (second feature dropped) cannot work at m = 4
    assert frt.exact_head([row[:1] for row in frt.rationalise(floats[0], 10**6)],
                          [row[:1] for row in frt.rationalise(floats[1], 10**6)], 4) is None


def test_a_tampered_rank_two_witness_is_rejected(outcome):
    cert = next(c for c in outcome.certificates if c["kind"] == "exhaustive" and c["data"]["m"] == 4 and len(c["data"]["psi"][0]) == 2)
    trusted.check(cert)
    psi = [row[:] for row in cert["data"]["psi"]]
    psi[3] = ["1000", "1000"]
    with pytest.raises(CertificateError, match="error"):
        trusted.check({**cert, "data": {**cert["data"], "psi": psi}})


def test_an_exhausted_budget_is_unknown():
    claim = frt.FeatureRankTable()
    result = claim.check(claim.point(), budget=0.001)
    assert result.status == "unknown" and result.certificates == []


def test_family_features_agree_with_the_checker():
    for m, d in [(4, 1), (5, 2), (6, 2)]:
        assert len(frt.lin.complement_subsets(m, d)) == linear._features(m, d)
        assert frt.family_rank(m, d) == len(frt.family_features(m, d)[0])
        assert frt.lin.complement_degree(frt.FAMILIES[d]) == linear.FAMILIES[frt.FAMILIES[d]]
    # degree 1 is the affine family: (1, 1 - x_1, ..., 1 - x_m)
    assert frt.family_features(3, 1)[0b101] == [1, 0, 1, 0]
    with pytest.raises(CertificateError, match="unknown family"):
        check("kernel-row-infeasible", {"family": "complement-9", "length": 3, "cases": [{}]})


def test_the_stored_m7_head_is_accepted_with_its_rank():
    """r*(7) <= SEARCHED[7] (was 29, the degree-2 family): the stored head, re-checked by the checker on every
    sequence of length 3 over {0,1}^7 (the table's cell at --param m_max=7)."""
    r = frt.SEARCHED[7]
    head = frt.load_witnesses()[f"m7_r{r}"]
    data = {"m": 7, "lengths": [3], "phi": head["phi"], "psi": head["psi"], "readout": head["readout"],
            "target": "min-ip", "tolerance": Fraction(1, 2), "symmetry": "none"}
    judgment = check("exhaustive", data).judgment
    claim = frt.FeatureRankTable()
    cell = next(o for o in claim.obligations(claim.point({"m_max": 7})).verify
                if o.judgment["judgment"] == "solves" and o.judgment["m"] == [7, 7])
    assert cell.judgment["rank"] == r < 29 and discharges(judgment, cell.judgment)
