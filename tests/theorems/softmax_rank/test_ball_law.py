"""S3 ball law on the disk: multiplicity lattices certified, the unweighted contrast, points outside the ball."""

import copy
import math
from fractions import Fraction

import pytest

from solvers import certificates, trusted
from solvers.trusted.core import discharges
from theorems.core import ParameterError
from theorems.softmax_rank import ball_law
from theorems.softmax_rank.ball_law import BallLaw


@pytest.fixture(scope="module")
def outcome():
    claim = BallLaw()
    return claim, claim.check(claim.point({}))


@pytest.fixture
def fresh_plans():
    ball_law._plan.cache_clear()
    yield
    ball_law._plan.cache_clear()


def table(out):
    return next(v for k, v in out.facts.items() if k.startswith("certified_bounds"))


def test_verified_every_obligation_discharged_on_points_of_the_ball(outcome):
    _, out = outcome
    assert out.status == "verified", out.message
    js = [trusted.check(c).judgment for c in out.certificates]
    assert all(j["ball"] == 2 for j in js)
    assert not [o for o in out.obligations["verify"] if not any(discharges(j, o["judgment"]) for j in js)]
    assert "open" in out.obligations["reach"]


def test_found_lower_bounds_are_reproduced_or_beaten_and_the_slope_is_about_d_over_2(outcome):
    _, out = outcome
    t = table(out)
    # (found) disk 54, 210 at beta = 64, 256 (d = 2)
    assert t[64]["disk"]["lower"] >= 54 and t[256]["disk"]["lower"] >= 210
    slopes = next(v for k, v in out.facts.items() if k.startswith("fitted_slopes"))
    assert abs(float(slopes["disk lower"][0]) - 1.0) < 0.1 and slopes["law exponent d/2"] == 1


def test_without_multiplicities_the_certificate_stalls_and_the_annulus_caps_them(outcome):
    _, out = outcome
    for b, row in table(out).items():
        assert row["unweighted"]["lower"] <= 12 < row["disk"]["lower"] or b == 16  # (found) stalls at 12
        assert row["annulus"]["largest multiplicity"] <= row["annulus"]["cap ceil(64 e^{beta/8})"]
        if "dense" in row:
            assert row["dense"]["lower"] <= row["dense"]["upper"]


def test_the_hex_points_are_in_the_ball_exactly():
    for region in ("disk", "annulus"):
        pts = ball_law.hex_points(Fraction(41, 20) / 8, region)
        assert pts and all(x * x + y * y <= 1 for x, y in pts)
        if region == "annulus":
            assert all(x * x + y * y >= Fraction(3, 4) for x, y in pts)


@pytest.mark.parametrize("spacing", [Fraction(41, 20) / 8, Fraction(1, 4), Fraction(37, 20) / 16])
def test_the_lattices_decided_in_integers_are_the_definitions(spacing):
    """hex_points / fcc_points (membership decided on integers) against the lattice definitions walked in
    Fractions, point for point and in order; multiplicities against floats of the exact |x|^2."""
    h, ring = ball_law.HEX_HEIGHT, Fraction(3, 4)
    J = int(1 / (spacing * h)) + 1
    I = int(1 / spacing) + J + 1
    hexes = [(spacing * (i + Fraction(j, 2)), spacing * j * h) for j in range(-J, J + 1) for i in range(-I, I + 1)]
    a, K = spacing / 2, int(2 / spacing) + 1
    cubes = [(a * i, a * j, a * k) for i in range(-K, K + 1) for j in range(-K, K + 1) for k in range(-K, K + 1) if (i + j + k) % 2 == 0]
    for region in ("disk", "annulus"):
        def inside(x):
            r2 = sum(v * v for v in x)
            return r2 <= 1 and (region == "disk" or r2 >= ring)
        assert ball_law.hex_points(spacing, region) == [x for x in hexes if inside(x)]
        if spacing >= Fraction(1, 4):
            assert ball_law.fcc_points(spacing, region) == [x for x in cubes if inside(x)]
    points = ball_law.hex_points(spacing)
    assert ball_law.multiplicities(points, 64) == [math.ceil(64 * math.exp(64 * (1 - float(sum(v * v for v in x))) / 2)) for x in points]
    # the searches' floats, made from the same integers, are the floats of these Fractions, bit for bit
    for d in (2, 3) if spacing >= Fraction(1, 4) else (2,):
        for region in ("disk", "annulus"):
            exact = ball_law.lattice_points(d, spacing, region)
            X, squares = ball_law.lattice_floats(d, spacing, region)
            assert X.shape == (len(exact), d) and X.tolist() == [[float(v) for v in x] for x in exact]
            assert squares == [float(sum(v * v for v in x)) for x in exact]
            assert [ball_law._weight(q, 64) for q in squares] == ball_law.multiplicities(exact, 64)


def test_points_outside_the_ball_leave_the_claim_unestablished(monkeypatch, fresh_plans):
    real = ball_law._hex_integers

    def stretched(spacing, region):  # every point times 11/10, in the lattice's integers (the searches and the instances)
        points, (dx, dy), squares, one = real(spacing, region)
        return [(11 * a, 11 * b) for a, b in points], (10 * dx, 10 * dy), [121 * r2 for r2 in squares], 100 * one
    monkeypatch.setattr(ball_law, "_hex_integers", stretched)
    claim = BallLaw()
    out = claim.check(claim.point({"beta_min": 16, "beta_max": 16, "dense": 0}))
    assert out.status == "unknown" and "obligation not discharged" in out.message
    for c in out.certificates:  # ball: 2 exactly when every point of the certificate lies in the closed disk
        inside = all(sum(Fraction(v) ** 2 for v in x) <= 1 for x in c["data"]["points"])
        assert trusted.check(c).judgment["ball"] == (2 if inside else False)
    assert any(trusted.check(c).judgment["ball"] is False for c in out.certificates)


def test_a_certificate_of_another_beta_or_a_tampered_grouping_is_refused(outcome):
    _, out = outcome
    certs = [c for c in out.certificates if c["kind"] == "approx-rank-lower-ball"]
    at16 = [trusted.check(c).judgment for c in certs if c["data"]["beta"] == 16]
    needs64 = [o["judgment"] for o in out.obligations["verify"] if o["words"].startswith("beta = 64")]
    assert at16 and needs64 and not any(discharges(j, o) for j in at16 for o in needs64)
    cert = copy.deepcopy(certs[0])
    groups = cert["data"]["groups"]
    groups[0], groups[1] = groups[1], groups[0]
    with pytest.raises(certificates.CertificateError, match="certainly false|not certain"):
        trusted.check(cert)


def test_parameters_are_refused_with_the_reason():
    claim = BallLaw()
    with pytest.raises(ParameterError, match="perfect square"):
        claim.check(claim.point({"step": 8, "beta_min": 64, "beta_max": 512}))
    with pytest.raises(ParameterError, match="epsilon"):
        claim.point({"epsilon": 2})


def test_plot_has_separate_lower_and_upper_series_and_the_exponent(outcome):
    claim, out = outcome
    [plot] = claim.plots(out.to_json())
    labels = [s[0] for s in plot.series]
    assert plot.logx and plot.logy and "disk: certified lower" in labels and "dense instance: certified upper" in labels
    assert labels[-1] == "slope 1 reference (shifted down)"


def test_the_three_dimensional_ball_is_certified_with_ball_three():
    claim = BallLaw()
    out = claim.check(claim.point({"d": 3, "beta_max": 64}))
    assert out.status == "verified", out.message
    assert all(trusted.check(c).judgment["ball"] == 3 for c in out.certificates)
    t = table(out)
    assert t[64]["disk"]["lower"] > 8 * t[16]["disk"]["lower"] // 2  # grows faster than beta (d/2 = 3/2)
    for x in ball_law.fcc_points(Fraction(67, 20) / 8):
        assert sum(v * v for v in x) <= 1
    with pytest.raises(ParameterError, match="d = 3"):
        claim.check(claim.point({"d": 3, "beta_max": 1024}))


def test_the_periodised_fourier_construction_is_certified_and_a_shorter_series_is_rejected():
    claim = BallLaw()
    out = claim.check(claim.point({"beta": 16, "fourier": 1}))
    assert out.status == "verified", out.message
    row = table(out)[16]
    for name in ("disk", "dense"):
        assert row[name]["lower"] <= row[name]["periodised-Fourier upper"]
    cert = copy.deepcopy([c for c in out.certificates if c["kind"] == "approx-rank-upper-ball"][-1])
    assert len(cert["data"]["right"]) == row["dense"]["periodised-Fourier upper"]
    half = len(cert["data"]["right"]) // 2  # half of the frequencies left out
    cert["data"]["right"] = cert["data"]["right"][:half]
    cert["data"]["left"] = [r[:half] for r in cert["data"]["left"]]
    with pytest.raises(certificates.CertificateError, match="certainly false|not certain"):
        trusted.check(cert)


def test_statement_and_reach_name_the_ball_of_the_point_dimension():
    """At d = 3 the instances lie in B^3: the reach says so, and the statement is about B^d, not the disk alone."""
    claim = BallLaw()
    assert "B^3" in claim.obligations(claim.point({"d": 3})).reach
    assert "B^2" in claim.obligations(claim.point({})).reach
    hypothesis = claim.statement().hypotheses[0]
    assert "B^d" in str(hypothesis[0]) and "B^d" in hypothesis[1]


def test_a_single_beta_below_16_is_refused_its_annulus_would_be_empty():
    """At beta = 1 and 4 the densest annulus grid holds no lattice point: obligations() raised on an accepted
    point.  A single beta is now held to beta_min's bound, 16, where every instance has points."""
    claim = BallLaw()
    for beta in (1, 4, 9):
        with pytest.raises(ParameterError, match="at least 16"):
            claim.point({"beta": beta})
    point = claim.point({"beta": 16})
    assert ball_law.point_betas(point) == [16] and claim.obligations(point).verify


def test_rings_from_the_rim_certify_at_least_21_at_beta_16_and_beat_the_lattice(outcome):
    """Issue 25: at beta = 16 the disk is four kernel widths across and the rim dominates: the lattice gives 13,
    rings from the rim (the rim spaced closer than the interior) at least 21 — each point a certified row."""
    _, out = outcome
    t = table(out)
    assert t[16]["rim"]["lower"] >= 21 > t[16]["disk"]["lower"]
    assert all(t[b]["rim"]["lower"] >= t[b]["disk"]["lower"] for b in t)
    cert = next(c for c in out.certificates if c["kind"] == "approx-rank-lower-ball" and c["data"]["beta"] == 16
                and len(c["data"]["rows"]) == t[16]["rim"]["lower"])
    judgment = trusted.check(cert).judgment
    assert judgment["bound"] >= 21 and judgment["ball"] == 2
    needs = [o["judgment"] for o in out.obligations["verify"] if o["words"].startswith("beta = 16, rings from the rim")]
    assert len(needs) == 1 and discharges(judgment, needs[0])
    # one point pushed off the rim (times 11/10): the same rows are certified, on points outside the disk
    forged = copy.deepcopy(cert)
    forged["data"]["points"][0] = [Fraction(11, 10) * Fraction(v) for v in forged["data"]["points"][0]]
    try:
        off = trusted.check(forged).judgment
    except certificates.CertificateError:
        return  # refused outright: discharges nothing either
    assert off["ball"] is False and not discharges(off, needs[0])


@pytest.mark.parametrize("d", [2, 3])
def test_the_rings_are_rational_points_at_exact_radii_in_the_ball(d):
    from solvers import arrangements

    a = arrangements.Arrangement(Fraction(3, 2), Fraction(9, 5), Fraction(2))
    rings = arrangements.rings(d, 4, a)
    assert rings[0][0] == 1 and rings[-1][0] == 0  # the rim first, the centre last
    for r, unit in rings:
        assert all(sum(v * v for v in x) == (1 if r else 0) for x in unit)  # unit points exactly on S^{d-1}
    points = arrangements.concentric(d, 4, a)
    assert len(points) == sum(len(u) for _, u in rings) and all(sum(v * v for v in x) <= 1 for x in points)
    assert arrangements.concentric_floats(d, 4, a).shape == (len(points), d)
