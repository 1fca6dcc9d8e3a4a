"""S2 spherical law on the circle: sandwiches, found values, obligations, forgeries, tampered bounds."""

import copy
from fractions import Fraction

import numpy as np
import pytest
from math import floor, log, pi, sqrt
from hypothesis import given, settings, strategies as st

from solvers import certificates, trusted
from solvers.trusted.core import discharges
from theorems.core import ParameterError
from theorems.softmax_rank import _definitions as D
from theorems.softmax_rank import spherical_law
from theorems.softmax_rank.spherical_law import SphericalLaw

SMALL = {"beta_max": 64, "density": 8}
FAILS = "not certain|certainly false"


@pytest.fixture(scope="module")
def outcome():
    claim = SphericalLaw()
    return claim, claim.check(claim.point(SMALL))


@pytest.fixture
def fresh_plans():
    """Searches patched by a test must not leak into (or come from) the cache of plans."""
    spherical_law._plan.cache_clear()
    yield
    spherical_law._plan.cache_clear()


def judgments(out):
    return [(c["kind"], trusted.check(c).judgment) for c in out.certificates]


def undischarged(out):
    js = [j for _, j in judgments(out)]
    return [o["words"] for o in out.obligations["verify"] if not any(discharges(j, o["judgment"]) for j in js)]



def greedy_arcs(bound, h: float, eps) -> list[int]:
    """The interpolated-anchor lemma's greedy cut of a grid of step h: close an arc J once
    |J| * int_J bound >= 4 eps (bound dominates ||p''||_1); the knots, ends included."""
    knots, start, mass = [0], 0, 0.0
    for i in range(len(bound)):
        mass += bound[i] * h
        if (i + 1 - start) * h * mass >= 4 * eps:
            knots.append(i + 1)
            start, mass = i + 1, 0.0
    if knots[-1] < len(bound):
        knots.append(len(bound))
    return knots

def test_every_obligation_is_discharged_and_names_the_claims_instances(outcome):
    claim, out = outcome
    assert out.status == "verified" and not undischarged(out)
    verify = out.obligations["verify"]
    assert len(verify) == 4 * 8  # per beta: largest lower and upper, dense lower and upper, four all-instance bounds
    every = [o for o in verify if o["judgment"]["judgment"] == "approx-rank-at-most-every"]
    assert len(every) == 16 and all(o["judgment"]["family"] == "circle" for o in every)
    instances = [o for o in verify if o not in every]
    assert all(o["judgment"]["sphere"] == 2 and o["judgment"]["epsilon"] == "1/10" for o in instances)
    n = out.facts["largest_certified_lower"][16]["n"]
    named = D.points_instance(spherical_law.sphere_points(n, 2), 16)
    assert any(o["judgment"]["instance"] == named and o["judgment"]["bound"] == 18 for o in instances)
    assert "the Theta law is not checked" in out.obligations["reach"]


def test_a_bound_at_a_smaller_epsilon_does_not_discharge(monkeypatch, fresh_plans):
    """The forgery that certified its lower bounds at eps = 1/20 while reporting eps = 1/10."""
    real = D.lower_certificate_points
    monkeypatch.setattr(spherical_law.D, "lower_certificate_points",
                        lambda points, beta, m, eps, rows, groups: real(points, beta, m, eps / 2, rows, groups))
    claim = SphericalLaw()
    out = claim.check(claim.point({"beta_min": 16, "beta_max": 16, "density": 8}))
    assert out.status == "unknown" and "obligation not discharged" in out.message
    assert all(c["data"]["epsilon"] == "1/20" for c in out.certificates if c["kind"] == "approx-rank-lower-points")


def test_eight_copies_of_one_point_discharge_nothing(outcome):
    """rank_eps <= 1 for eight copies of one point (B = J/8) is true, and about another instance."""
    _, out = outcome
    points = [[1, 0]] * 8
    forged = {"points": points, "beta": 16, "multiplicities": [1] * 8, "epsilon": "1/10",
              "left": [[1]] * 8, "right": [["1/8"] * 8]}
    judgment = trusted.check(certificates.make("approx-rank-upper-points", out.claim, out.statement, out.parameters, forged)).judgment
    assert judgment["bound"] == 1 and judgment["sphere"] == 2 and judgment["n"] == 8
    assert not any(discharges(judgment, o["judgment"]) for o in out.obligations["verify"])


def test_a_certificate_of_another_beta_discharges_nothing_there(outcome):
    _, out = outcome
    by_beta = {}
    for o in out.obligations["verify"]:
        by_beta.setdefault(o["words"].split(",")[0], []).append(o["judgment"])
    at16 = [j for _, j in judgments(out) if "instance" in j and any(discharges(j, o) for o in by_beta["beta = 16"])]
    assert at16 and not any(discharges(j, o) for j in at16 for o in by_beta["beta = 64"])


def test_an_all_instance_bound_covers_smaller_betas_only(outcome):
    """beta_up_to: a bound proved up to beta = 64 holds at 16 (the lemmas' bounds grow with beta), never the converse."""
    _, out = outcome
    every = {(j["beta_up_to"], j["bound"]): j for _, j in judgments(out) if j["judgment"] == "approx-rank-at-most-every"}
    needs = [o["judgment"] for o in out.obligations["verify"] if o["judgment"]["judgment"] == "approx-rank-at-most-every"]
    at16 = [o for o in needs if o["beta_up_to"] == 16]
    at64 = [o for o in needs if o["beta_up_to"] == 64]
    assert all(any(discharges(j, o) for j in every.values() if j["beta_up_to"] == 64) for o in at16 if o["bound"] >= 113)
    assert not any(discharges(j, o) for j in every.values() if j["beta_up_to"] == 16 for o in at64)
    cert = next(c for c in out.certificates if c["kind"] == "circle-anchors" and c["data"]["beta"] == 16)
    forged = copy.deepcopy(cert)
    forged["data"]["beta"] = 64  # the same bound claimed at a larger beta
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        trusted.check(forged)


def test_points_off_the_sphere_leave_the_claim_unestablished(monkeypatch, fresh_plans):
    real = spherical_law.sphere_points
    monkeypatch.setattr(spherical_law, "sphere_points", lambda n, d: [tuple(Fraction(11, 10) * c for c in x) for x in real(n, d)])
    claim = SphericalLaw()
    out = claim.check(claim.point({"beta_min": 16, "beta_max": 16, "density": 8}))
    assert out.status == "unknown" and "obligation not discharged" in out.message
    assert all(j["sphere"] is False for _, j in judgments(out) if "sphere" in j)


def test_sandwiches_hold_and_are_certified(outcome):
    claim, out = outcome
    assert out.status == "verified", out.message
    sandwich = out.facts["sandwich"]
    assert sorted(sandwich) == [1, 4, 16, 64]
    for b, s in sandwich.items():
        assert 1 <= s["lower"] <= s["upper"]
    for b, s in out.facts["largest_certified_lower"].items():
        assert s["lower"] <= s["upper"] <= s["n"]
    kinds = [c["kind"] for c in out.certificates]
    assert kinds.count("approx-rank-lower-points") == kinds.count("approx-rank-upper-points") == 8
    assert kinds.count("circle-anchors") == 16  # four all-instance bounds per beta
    for cert in out.certificates:  # every certificate stands alone
        trusted.check(cert)


def test_found_lower_bounds_reproduce(outcome):
    _, out = outcome
    largest = out.facts["largest_certified_lower"]
    # (found): certified lower 3, 18, 36 at beta = 1, 16, 64 on the circle, eps = 1/10
    assert [largest[b]["lower"] for b in (1, 16, 64)] == [3, 18, 36]
    slopes = next(v for k, v in out.facts.items() if k.startswith("local_slopes_unchecked"))
    assert slopes["law exponent (d-1)/2"] == Fraction(1, 2)
    assert abs(float(slopes["largest lower"]["16-64"]) - 0.5) < 0.05


def test_plot_is_log_log_with_reference_line(outcome):
    claim, out = outcome
    plots = claim.plots(out.to_json())
    assert len(plots) == 1 and plots[0].logx and plots[0].logy
    labels = [label for label, _, _ in plots[0].series]
    assert "slope 1/2 reference (shifted down)" in labels and "dense instance: certified upper" in labels
    _, xs, ys = plots[0].series[-1]
    assert abs((ys[-1] / ys[0]) ** 2 - xs[-1] / xs[0]) < 1e-9  # slope exactly 1/2 in log-log


def _lower_cert(outcome):
    claim, out = outcome
    lowers = [c for c in out.certificates if c["kind"] == "approx-rank-lower-points"]
    return claim, copy.deepcopy(lowers[-1])  # the dense instance of the last beta


def test_a_wrong_grouping_is_rejected(outcome):
    claim, cert = _lower_cert(outcome)
    groups = cert["data"]["groups"]
    groups[0], groups[1] = groups[1], groups[0]  # each row now owns its neighbour's columns
    with pytest.raises(certificates.CertificateError, match=FAILS):
        trusted.check(cert)
    claim, cert = _lower_cert(outcome)
    cert["data"]["groups"][1].append(cert["data"]["groups"][0][0])  # overlapping groups
    with pytest.raises(certificates.CertificateError, match="disjoint"):
        trusted.check(cert)


def one_more_row(rows, groups, N):
    """rows and groups with one row too many: a new row at a column no group holds (owning it), or else
    at the last column of the largest group (taken from it)."""
    rows, groups = list(rows), [list(g) for g in groups]
    used = {j for g in groups for j in g}
    free = [j for j in range(N) if j not in used and j not in rows]
    if free:
        extra = free[0]
    else:
        big = max(range(len(groups)), key=lambda t: len(groups[t]))
        extra = groups[big].pop()
    return rows + [extra], groups + [[extra]]


def test_a_lower_bound_one_too_high_is_rejected(outcome):
    claim, cert = _lower_cert(outcome)
    data = cert["data"]
    data["rows"], data["groups"] = one_more_row(data["rows"], data["groups"], len(data["points"]))
    assert len(set(data["rows"])) == len(data["rows"])
    with pytest.raises(certificates.CertificateError, match=FAILS):
        trusted.check(cert)


def test_a_tampered_upper_certificate_is_rejected(outcome):
    claim, out = outcome
    cert = copy.deepcopy([c for c in out.certificates if c["kind"] == "approx-rank-upper-points"][-1])
    cert["data"]["right"] = cert["data"]["right"][:-1]  # drop the last rank-one term
    cert["data"]["left"] = [r[:-1] for r in cert["data"]["left"]]
    with pytest.raises(certificates.CertificateError, match=FAILS):
        trusted.check(cert)


def test_a_search_that_overclaims_leaves_the_claim_unestablished(monkeypatch, fresh_plans):
    """If the search and arb filter let an uncertified row through, the trusted checker rejects it:
    a failure without a certified refutation, so the outcome is unknown (never verified)."""
    real_search = D.search_grouped

    def everything_certain(L, m, eps, rows, groups, local=None, floats=None):
        return {"certain": list(rows), "not": [], "unknown": []}

    def overclaiming(A, eps, order=None):
        rows, groups = real_search(A, eps, order)
        return one_more_row(rows, groups, A.shape[0]) if len(rows) < A.shape[0] else (rows, groups)

    monkeypatch.setattr(spherical_law.D, "search_grouped", overclaiming)
    monkeypatch.setattr(spherical_law.E, "grouped_margins", everything_certain)
    claim = SphericalLaw()
    out = claim.check(claim.point({"beta_min": 16, "beta_max": 16, "density": 8, "upper": 0}))
    assert out.status == "unknown"
    assert "rejected" in out.message


def test_bad_parameters_are_refused_with_the_reason():
    claim = SphericalLaw()
    with pytest.raises(ParameterError, match="epsilon"):
        claim.check(claim.point({"epsilon": 1}))
    with pytest.raises(ParameterError, match="beta_min"):
        claim.check(claim.point({"beta_min": 64, "beta_max": 16}))
    with pytest.raises(ParameterError, match="power of 4"):
        claim.check(claim.point({"beta_min": 17, "beta_max": 63}))
    with pytest.raises(ParameterError, match="density"):
        claim.point({"density": 1})


@settings(max_examples=12, deadline=None)
@given(beta=st.fractions(min_value=Fraction(1, 4), max_value=Fraction(12), max_denominator=8), n=st.integers(4, 24))
def test_lower_never_exceeds_upper_at_small_random_betas(beta, n):
    eps = Fraction(1, 10)
    points = D.rational_circle_points(n)
    L = D.self_attention_logits(points, beta)
    rows, groups = D.search_grouped(D.self_attention_floats(points, beta), eps)
    certain = set(D.grouped_lower(L, None, eps, rows, groups)["certain"])
    k, F, G = D.search_upper(L, None, eps)
    lower = len(certain)
    assert 1 <= lower <= k <= n
    claim = SphericalLaw()
    cert = claim.certificate("approx-rank-upper-points", claim.point(), D.upper_certificate_points(points, beta, None, eps, F, G))
    assert trusted.check(cert).judgment["bound"] == k


def test_sphere_points_are_exactly_on_the_sphere_and_the_found_d3_value_reproduces():
    for x in spherical_law.rational_sphere_points(40):
        assert sum(c * c for c in x) == 1
    claim = SphericalLaw()
    out = claim.check(claim.point({"d": 3, "step": 2, "beta_min": 8, "beta_max": 8, "density": 4}))
    assert out.status == "verified", out.message
    assert out.facts["largest_certified_lower"][8]["lower"] == 27  # (found): 27 at beta = 8 on S^2
    s = out.facts["sandwich"][8]
    assert s["lower"] <= s["upper"]


def test_fourier_construction_is_certified_and_a_shorter_series_is_rejected():
    claim = SphericalLaw()
    out = claim.check(claim.point({"beta_max": 16, "density": 8, "fourier": 1}))
    assert out.status == "verified", out.message
    fourier = next(v for k, v in out.facts.items() if k.startswith("fourier_upper"))
    for b, k in fourier.items():
        assert k % 2 == 1 and out.facts["sandwich"][b]["lower"] <= k
    cert = copy.deepcopy([c for c in out.certificates if c["kind"] == "approx-rank-upper-points"][-1])  # the Fourier B at beta = 16
    assert len(cert["data"]["right"]) == fourier[16]
    cert["data"]["right"] = cert["data"]["right"][:-2]  # drop the top frequency (cos and sin)
    cert["data"]["left"] = [r[:-2] for r in cert["data"]["left"]]
    with pytest.raises(certificates.CertificateError, match=FAILS):
        trusted.check(cert)
    with pytest.raises(ParameterError, match="d = 2"):
        claim.check(claim.point({"d": 3, "fourier": 1}))


def _curve(t, tj, w, beta):
    L = beta * np.cos(t[:, None] - tj[None, :])
    P = np.exp(L - L.max(axis=1, keepdims=True)) * w
    return P / P.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("beta", [16, 64])
@pytest.mark.parametrize("weights", ["uniform", "one heavy point", "blocks"])
def test_the_interpolated_anchor_lemma_in_floats(beta, weights):
    """Floats, not a certificate: the curvature bound ||p''||_1 <= 2 I + 2 beta (1 - c), the greedy arcs'
    count <= floor(pi sqrt(2 beta/eps)) + 1 and every chord error <= eps (docs, Lemma 2)."""
    n, M, eps = 200, 6000, 0.1
    tj = np.linspace(0, 2 * np.pi, n, endpoint=False)
    w = {"uniform": np.ones(n), "one heavy point": np.r_[1e6, np.ones(n - 1)], "blocks": np.repeat([1, 1e3, 1, 1e5], n // 4)}[weights]
    t = np.linspace(0, 2 * np.pi, M, endpoint=False)
    h = t[1] - t[0]
    P = _curve(t, tj, w, beta)
    Y = -beta * np.sin(t[:, None] - tj[None, :])
    I = (P * Y**2).sum(axis=1) - (P * Y).sum(axis=1) ** 2
    c = (P * np.cos(t[:, None] - tj[None, :])).sum(axis=1)
    bound = 2 * I + 2 * beta * (1 - c)
    second = np.abs(np.roll(P, -1, axis=0) - 2 * P + np.roll(P, 1, axis=0)).sum(axis=1) / h**2
    assert (second <= 1.01 * bound + 1e-6).all()
    assert abs(I.sum() * h - beta * c.sum() * h) < 1e-6 * beta  # int I = beta int c (f'' integrates to 0)
    knots = greedy_arcs(bound, h, eps)
    assert len(knots) - 1 <= floor(pi * sqrt(2 * beta / eps)) + 1
    worst = max(np.abs(P[i] - ((b - i) * P[a] + (i - a) * P[b % M]) / (b - a)).sum()
                for a, b in zip(knots, knots[1:]) for i in range(a, b, 5))
    assert worst <= eps


def _tilted_chords(beta, w, level=True):
    """Floats: the tilted-chord construction (docs, Lemma 3) on a grid of the circle.  phi = log Z + beta t^2/2 is
    convex; arcs are cut greedily where ``|J| (phi'(b) - phi'(a))`` first reaches ``4 log(1 + eps)`` (at the first
    grid point past it, so every full arc has at least that product); on each arc the rows are replaced by
    ``B_t = ((1 - s) r_a + s r_b) / r-scale(t)`` with ``r_u = p_u e^{phi(u) + lam u}``, lam levelling the ends
    (``level=False``: lam = 0).  Returns (arcs, per-arc worst row error and the lemma's ``e^{|J| Delta/4} - 1``)."""
    n, M, eps = len(w), 6000, 0.1
    tj = np.linspace(0, 2 * np.pi, n, endpoint=False)
    t = np.linspace(0, 2 * np.pi, M + 1)
    P = _curve(t, tj, w, beta)
    L = beta * np.cos(t[:, None] - tj[None, :])
    top = L.max(axis=1)
    phi = top + np.log((np.exp(L - top[:, None]) * w).sum(axis=1)) + beta * t**2 / 2
    dphi = (P * (-beta * np.sin(t[:, None] - tj[None, :]))).sum(axis=1) + beta * t  # phi' = E_t Y + beta t
    knots = [0]
    while True:
        a = knots[-1]
        over = np.nonzero((t[a:] - t[a]) * (dphi[a:] - dphi[a]) >= 4 * log(1 + eps))[0]
        if len(over) == 0 or a + over[0] == M:
            break
        knots.append(a + over[0])
    knots.append(M)
    arcs = []
    for a, b in zip(knots, knots[1:]):
        s = np.arange(a, b + 1)
        lam = -(phi[b] - phi[a]) / (t[b] - t[a]) if level else 0.0
        lev = phi + lam * t
        x = ((t[s] - t[a]) / (t[b] - t[a]))[:, None]
        B = (1 - x) * P[a] * np.exp(lev[a] - lev[s])[:, None] + x * P[b] * np.exp(lev[b] - lev[s])[:, None]
        arcs.append((np.abs(P[s] - B).sum(axis=1).max(), np.expm1((t[b] - t[a]) * (dphi[b] - dphi[a]) / 4)))
    return len(knots) - 1, arcs


@pytest.mark.parametrize("beta", [16, 64])
@pytest.mark.parametrize("weights", ["uniform", "one heavy point", "blocks", "far heavy points"])
def test_the_tilted_chord_lemma_in_floats(beta, weights):
    """Floats, not a certificate: on each arc the row error is at most the lemma's ``e^{|J| Delta phi'/4} - 1``
    (so at most eps on the lemma's arcs), the arcs number at most ``floor(pi sqrt(beta/log(1 + eps))) + 1``, and
    without the levelling tilt the same chords are far off (the tilt is what makes the error the chord gap)."""
    n = 200
    w = {"uniform": np.ones(n), "one heavy point": np.r_[1e6, np.ones(n - 1)], "blocks": np.repeat([1, 1e3, 1, 1e5], n // 4),
         "far heavy points": np.where(np.arange(n) % 50 == 0, 1e12, 1.0)}[weights]
    count, arcs = _tilted_chords(beta, w)
    assert count <= floor(pi * sqrt(beta / log(1.1))) + 1
    assert all(err <= lemma + 1e-9 for err, lemma in arcs)
    assert max(err for err, _ in arcs) <= 0.1 * 1.02  # the last grid step may overshoot the budget by a hair
    _, untilted = _tilted_chords(beta, w, level=False)
    assert max(err for err, _ in untilted) > 0.5


def test_a_certificate_checked_on_one_row_only_discharges_nothing(outcome):
    """The checker accepts a grouped certificate of one row (rank_eps >= 1 is true), but it proves 1, not the bound needed."""
    claim, cert = _lower_cert(outcome)
    _, out = outcome
    cert["data"]["rows"], cert["data"]["groups"] = cert["data"]["rows"][:1], cert["data"]["groups"][:1]
    j = trusted.check(cert).judgment
    assert j["bound"] == 1
    assert not any(discharges(j, o["judgment"]) for o in out.obligations["verify"] if o["judgment"].get("bound", 0) > 1)


def test_farthest_point_prefixes_are_spread_and_certify_more_rows_on_the_sphere():
    """On S^2 the Fibonacci numbering is a spiral: rows evenly spaced in it bunch up; prefixes of the
    farthest-point order do not.  The dense instance at beta = 16 (128 points x 1000 copies): the evenly
    spaced proposal certifies 9 rows (the record before), the farthest-point prefixes at least 20."""
    X = spherical_law.float_sphere_points(128, 3)
    order = D.farthest_point_order(X)
    assert sorted(order) == list(range(128))
    gaps = lambda rows: min(np.linalg.norm(X[a] - X[b]) for i, a in enumerate(rows) for b in rows[:i])
    assert gaps(order[:20]) > gaps([(t * 128) // 20 for t in range(20)])  # the spiral's evenly spaced rows are closer
    assert D.farthest_point_order(np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]))[:2] == [0, 2]  # a repeated point comes last
    beta, eps, m = Fraction(16), Fraction(1, 10), [1000] * 128
    points = spherical_law.sphere_points(128, 3)
    rows, groups = spherical_law.certified_grouped(points, X, beta, m, eps)
    assert len(rows) >= 20
    cert = D.lower_certificate_points(points, beta, m, eps, rows, groups)
    assert trusted.check(SphericalLaw().certificate("approx-rank-lower-points", SphericalLaw().point(), cert)).judgment == {
        "judgment": "approx-rank-at-least", "instance": D.points_instance(points, beta, m), "n": 128000, "epsilon": "1/10",
        "bound": len(rows), "sphere": 3}
