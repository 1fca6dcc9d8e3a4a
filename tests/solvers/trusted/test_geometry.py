"""The geometry family: all-instance upper bounds (anchor rows, interpolated anchors, tilted and Jeffreys chords), each kind
accepting the lemma's least bound and rejecting one below it, hostile data, and the instance kind."""

from fractions import Fraction
from math import ceil, floor, log, pi, sqrt

import numpy as np
import pytest

from solvers import certificates, softmax_enclosures, trusted
from solvers.trusted import geometry, intervals
from solvers.trusted.core import discharges, digest, encode


def make(kind, data):
    return certificates.make(kind, "test.claim", "sha256:0", {}, data)


def check(kind, data):
    return trusted.check(make(kind, data))


def least_circle(construction, beta, eps):
    """The lemmas' bounds in floats, written out independently of the checker."""
    if construction == "anchor-rows":
        return ceil(pi * sqrt(beta) / eps)
    if construction == "interpolated-anchors":
        return floor(pi * sqrt(2 * beta / eps)) + 1
    if construction == "tilted-chords":
        return floor(pi * sqrt(beta / log(1 + eps))) + 1
    x_star = eps / ((1 + eps) * 0.17)  # Jeffreys chords: floor(2 pi sqrt(beta/x*)) + 1, below 4 x* floor(2 pi + pi beta/(2 x*)) + 1
    return floor(2 * pi * sqrt(beta / x_star)) + 1 if beta >= 4 * x_star else floor(2 * pi + pi * beta / (2 * x_star)) + 1


@pytest.mark.parametrize("construction", geometry.CONSTRUCTIONS)
@pytest.mark.parametrize("beta", [1, 16, 64, 400, 10**4])
def test_circle_accepts_the_lemma_bound_and_rejects_one_below(construction, beta):
    eps = Fraction(1, 10)
    k = least_circle(construction, beta, 0.1)
    j = check("circle-anchors", {"construction": construction, "beta": beta, "epsilon": "1/10", "bound": k}).judgment
    assert j == {"judgment": "approx-rank-at-most-every", "family": "circle", "beta_up_to": beta, "epsilon": "1/10", "bound": k}
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        check("circle-anchors", {"construction": construction, "beta": beta, "epsilon": "1/10", "bound": k - 1})
    assert eps  # the bound is per epsilon: at eps = 1/20 the same k is too small
    with pytest.raises(certificates.CertificateError):
        check("circle-anchors", {"construction": construction, "beta": beta, "epsilon": "1/20", "bound": k})


def test_the_better_constant_is_better_below_one_and_the_issue_value_holds():
    # ceil(pi sqrt(beta)/eps) at beta = 64, eps = 1/10 is 252 (docs); the interpolated bound is 113
    assert least_circle("anchor-rows", 64, 0.1) == 252 and least_circle("interpolated-anchors", 64, 0.1) == 113
    for beta in (1, 4, 16, 256, 1024, 10**4):
        assert least_circle("interpolated-anchors", beta, 0.1) < least_circle("anchor-rows", beta, 0.1)
        assert least_circle("tilted-chords", beta, 0.1) < least_circle("interpolated-anchors", beta, 0.1)
    # the tilted chords at beta = 16 ... 16384 (docs/softmax_rank.spherical_law.md): 41, 82, 163, 326, 652, 1303
    assert [least_circle("tilted-chords", 4**k, 0.1) for k in range(2, 8)] == [41, 82, 163, 326, 652, 1303]
    # the Jeffreys chords (Lemma 4) there: 35, 69, 138, 275, 550, 1100; at beta = 1 (below 4 x* = 2.14) 10
    assert [least_circle("jeffreys-chords", 4**k, 0.1) for k in range(2, 8)] == [35, 69, 138, 275, 550, 1100]
    assert least_circle("jeffreys-chords", 1, 0.1) == 10 and least_circle("tilted-chords", 1, 0.1) == 11
    for beta in (1, 4, 16, 256, 10**4):
        assert least_circle("jeffreys-chords", beta, 0.1) < least_circle("tilted-chords", beta, 0.1)


def test_the_jeffreys_chords_below_and_above_four_x_star():
    """At eps = 1/10, x* = 0.5347... and 4 x* = 2.139...: above it the count is 2 pi sqrt(beta/x*), below it
    2 pi + pi beta/(2 x*) (the capped count's maximum); the two meet at 4 pi, so the bound covers every smaller beta."""
    x_star = Fraction(1, 10) / (Fraction(11, 10) * geometry.CHORD_CIRCLE)
    for beta, least in ((1, 10), (2, 13), (Fraction(2140, 1000), 13), (3, 15)):
        assert least_circle("jeffreys-chords", float(beta), 0.1) == least, beta
        assert check("circle-anchors", {"construction": "jeffreys-chords", "beta": beta, "epsilon": "1/10", "bound": least}).judgment["bound"] == least
        with pytest.raises(certificates.CertificateError, match="certainly false"):
            check("circle-anchors", {"construction": "jeffreys-chords", "beta": beta, "epsilon": "1/10", "bound": least - 1})
    assert 2 < 4 * x_star < Fraction(2140, 1000)  # 2 is below 4 x*, 2.14 above it
    # at 4 x* itself the two formulas agree: pi (2 + 4x*/(2x*)) = 4 pi = 2 pi sqrt(4 x*/x*), so 13 at beta = 4 x*
    assert check("circle-anchors", {"construction": "jeffreys-chords", "beta": 4 * x_star, "epsilon": "1/10", "bound": 13}).judgment["bound"] == 13
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        check("circle-anchors", {"construction": "jeffreys-chords", "beta": 4 * x_star, "epsilon": "1/10", "bound": 12})


def test_beta_zero_is_rank_one():
    j = check("circle-anchors", {"construction": "anchor-rows", "beta": 0, "epsilon": "1/2", "bound": 1}).judgment
    assert j["bound"] == 1


@pytest.mark.parametrize("data, message", [
    ({"construction": "anchor-rows", "beta": -1, "epsilon": "1/10", "bound": 5}, "beta must be >= 0"),
    ({"construction": "anchor-rows", "beta": 1, "epsilon": 1, "bound": 5}, "epsilon"),
    ({"construction": "anchor-rows", "beta": 1, "epsilon": "1/10", "bound": 0}, "bound"),
    ({"construction": "anchor-rows", "beta": 1, "epsilon": "1/10", "bound": True}, "bound"),
    ({"construction": "fourier", "beta": 1, "epsilon": "1/10", "bound": 50}, "construction"),
    ({"construction": "anchor-rows", "beta": "1e5", "epsilon": "1/10", "bound": 50}, "beta"),
])
def test_hostile_circle_data_is_rejected(data, message):
    with pytest.raises(certificates.CertificateError, match=message):
        check("circle-anchors", data)


def test_an_all_instance_judgment_discharges_by_the_rules():
    j = check("circle-anchors", {"construction": "interpolated-anchors", "beta": 64, "epsilon": "1/10", "bound": 113}).judgment
    need = {"judgment": "approx-rank-at-most-every", "family": "circle", "epsilon": "1/10"}
    assert discharges(j, {**need, "beta_up_to": 16, "bound": 126})  # smaller beta, larger bound
    assert discharges(j, {**need, "beta_up_to": 64, "bound": 113, "epsilon": "1/5"})  # a larger epsilon
    assert not discharges(j, {**need, "beta_up_to": 256, "bound": 500})  # a larger beta is not covered
    assert not discharges(j, {**need, "beta_up_to": 64, "bound": 112})
    assert not discharges(j, {**need, "beta_up_to": 64, "bound": 113, "epsilon": "1/20"})
    assert not discharges(j, {**need, "family": "rank-one-interaction", "beta_up_to": 64, "bound": 113})


@pytest.mark.parametrize("construction", geometry.CONSTRUCTIONS)
def test_rank_one_every_is_exact(construction):
    eps, S = Fraction(1, 10), Fraction(64)
    k = {"anchor-rows": max(1, ceil(sqrt(S) / (2 * eps))), "interpolated-anchors": floor(sqrt(S / (2 * eps))) + 2,
         "tilted-chords": floor(sqrt(float(S) / (4 * log(1.1)))) + 2, "jeffreys-chords": floor(sqrt(S * (1 + eps) / (8 * eps))) + 2}[construction]
    assert k == {"anchor-rows": 40, "interpolated-anchors": 19, "tilted-chords": 14, "jeffreys-chords": 11}[construction]
    j = check("visible-one-anchors-every", {"construction": construction, "spread": 64, "epsilon": "1/10", "bound": k}).judgment
    assert j["family"] == "rank-one-interaction" and j["spread_up_to"] == 64 and j["bound"] == k
    with pytest.raises(certificates.CertificateError, match="below"):
        check("visible-one-anchors-every", {"construction": construction, "spread": 64, "epsilon": "1/10", "bound": k - 1})


def rank_one_integers(n, bias):
    """(scale, N, S): L = N / n^2 = a 1^T + 1 b^T + q k^T with large row and key biases (+-bias), S its spread."""
    q = [4 * i for i in range(n)]  # over n
    k = [(-1) ** j * j for j in range(n)]  # over n
    N = [[n * n * bias * (-1) ** i + n * n * bias * ((j % 3) - 1) + q[i] * k[j] for j in range(n)] for i in range(n)]
    return Fraction(1, n * n), N, Fraction((max(q) - min(q)) * (max(k) - min(k)), n * n)


def test_the_instance_kind_computes_the_spread_exactly_with_large_biases():
    scale, N, S = rank_one_integers(9, 300)
    L = [[scale * v for v in r] for r in N]
    assert geometry.spread_of_rank_one(L) == S
    brute = max(abs(L[i][j] - L[i][jj] - L[ii][j] + L[ii][jj]) for i in range(9) for ii in range(9) for j in range(9) for jj in range(9))
    assert brute == S
    k = max(1, ceil(sqrt(S) / Fraction(2, 10)))
    data = {"construction": "anchor-rows", "scale": scale, "integers": N, "multiplicities": [1] * 9, "epsilon": "1/10", "bound": k}
    j = check("visible-one-anchors", data).judgment
    assert j["judgment"] == "approx-rank-at-most" and j["bound"] == k and j["n"] == 9
    assert j["instance"] == digest({"scale": scale, "integers": N, "multiplicities": [1] * 9})
    with pytest.raises(certificates.CertificateError, match="below"):
        check("visible-one-anchors", {**data, "bound": k - 1})


def fraction_calls(function) -> int:
    """Python-level calls into the fractions module while ``function()`` runs (a count, never a time)."""
    import sys
    import fractions
    calls = 0

    def profile(frame, event, arg):
        nonlocal calls
        if event == "call" and frame.f_code.co_filename == fractions.__file__:
            calls += 1

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return calls


def test_the_instance_kind_computes_the_spread_in_integers_not_per_entry_fractions():
    """The work estimate counts entries, not digits: the spread is computed on the integer matrix (scaled by
    n w, the scale applied once), so a long scale or long entries cost no fraction arithmetic per entry."""
    n = 40
    scale, N, S = rank_one_integers(n, 10**250)
    long_scale = Fraction(1, 7 * 10**1900 + 1)
    data = {"construction": "anchor-rows", "scale": long_scale * scale, "integers": N, "multiplicities": [1] * n,
            "epsilon": "1/10", "bound": 1}
    certificate = make("visible-one-anchors", data)
    from solvers.trusted import core
    calls = fraction_calls(lambda: core.check(certificate))
    assert calls <= 40 * n, f"{calls} calls into fractions for {n * n} entries"
    j = core.check(certificate).judgment  # the lemma's bound at the tiny spread is 1
    assert j["bound"] == 1 and geometry.spread_of_integers(N) * scale == S
    assert geometry.spread_of_rank_one([[scale * v for v in r] for r in N]) == S


def test_the_instance_kind_rejects_a_rank_two_interaction():
    scale, N, _ = rank_one_integers(6, 5)
    N[2][3] += 1  # breaks a 1^T + 1 b^T + q k^T
    with pytest.raises(certificates.CertificateError, match="rank >= 2"):
        check("visible-one-anchors", {"construction": "anchor-rows", "scale": scale, "integers": N, "multiplicities": [1] * 6, "epsilon": "1/10", "bound": 1000})


@pytest.mark.parametrize("integers, multiplicities, message", [
    ([[0, 1], [2]], [1, 1], "entries"),
    ([[0, 1], [2, 3]], [1, 0], "multiplicit"),
    ([[0, True], [2, 3]], [1, 1], "integers"),
    ([[0, "1/2"], [2, 3]], [1, 1], "integers"),
    ([[0, 2**2000], [2, 3]], [1, 1], "bits"),
])
def test_scaled_instances_refuse_hostile_shapes(integers, multiplicities, message):
    with pytest.raises(certificates.CertificateError, match=message):
        check("approx-rank-lower-scaled", {"scale": "1/2", "integers": integers, "multiplicities": multiplicities,
                                           "epsilon": "1/10", "rows": [0], "groups": [[0]]})


def gaussian(n, spacing_over_sqrt_beta=3):
    """Keys at 0, 2, 4, ... (over sqrt(beta) = 1): a Gaussian kernel whose every row dominates its own column."""
    z = list(range(n))
    scale = Fraction(spacing_over_sqrt_beta**2, 2)
    return scale, [[2 * a * b - b * b for b in z] for a in z]


def test_scaled_lower_and_upper_accept_and_reject_broken_witnesses():
    scale, N = gaussian(6)
    base = {"scale": scale, "integers": N, "multiplicities": [1] * 6, "epsilon": "1/10"}
    j = check("approx-rank-lower-scaled", {**base, "rows": list(range(6)), "groups": [[i] for i in range(6)]}).judgment
    assert j["bound"] == 6 and j["instance"] == digest({"scale": scale, "integers": N, "multiplicities": [1] * 6})
    with pytest.raises(certificates.CertificateError, match="certainly false|not certain"):  # groups swapped: no margin
        check("approx-rank-lower-scaled", {**base, "rows": [0, 1], "groups": [[1], [0]]})
    identity = [[int(i == j) for j in range(6)] for i in range(6)]
    assert check("approx-rank-upper-scaled", {**base, "left": identity, "right": identity}).judgment["bound"] == 6  # B = I: error 2(1 - A_ii) < 1/10
    with pytest.raises(certificates.CertificateError, match="certainly false|not certain"):
        check("approx-rank-upper-scaled", {**base, "left": [[1]] * 6, "right": [[1, 0, 0, 0, 0, 0]]})  # rank one: far off


def test_scaled_exponentials_agree_with_the_logits_for_either_sign_of_the_scale():
    # one exp per distinct integer gap of a row: the same rows as the logits scale * N entry by entry,
    # with the row shifted by its largest logit whether scale is positive (largest N) or negative (smallest)
    scale, N = gaussian(6)
    for s, M in ((scale, N), (-scale, [[-v for v in r] for r in N])):
        data = {"scale": s, "integers": M, "multiplicities": [1, 2, 3, 1, 2, 3], "epsilon": "1/10"}
        lower = {"rows": list(range(6)), "groups": [[i] for i in range(6)]}
        assert check("approx-rank-lower-scaled", {**data, **lower}).judgment["bound"] == 6
        logits = [[s * v for v in r] for r in M]
        assert check("approx-rank-lower", {"logits": logits, "multiplicities": data["multiplicities"], "epsilon": "1/10", **lower}).judgment["bound"] == 6
        _, exps_of, m, _ = intervals._scaled_instance(encode(data))
        weights = intervals._weights(m)
        for i, exps in enumerate(exps_of(range(6))):
            want = intervals._softmax([intervals._arb(v) for v in logits[i]], weights)
            assert all(a.overlaps(b) and a.rad() < 1e-12 for a, b in zip(intervals._normalised(exps, weights), want))
        with pytest.raises(certificates.CertificateError, match="certainly false|not certain"):
            check("approx-rank-lower-scaled", {**data, "rows": [0, 1], "groups": [[1], [0]]})


def test_ball_kinds_name_points_in_the_ball_and_flag_points_outside():
    points = [[0, 0], ["1/2", 0], [0, "-1/2"], ["3/5", "4/5"]]
    data = {"points": points, "beta": 64, "multiplicities": [1, 2, 3, 4], "epsilon": "1/10", "rows": [2, 3], "groups": [[2], [3]]}
    j = check("approx-rank-lower-ball", data).judgment
    assert j["ball"] == 2 and "sphere" not in j and j["bound"] == 2
    outside = {**data, "points": [[0, 0], ["1/2", 0], [0, "-1/2"], ["3/5", "81/100"]]}
    assert check("approx-rank-lower-ball", outside).judgment["ball"] is False
    need = {**j}
    assert not discharges(check("approx-rank-lower-ball", outside).judgment, need)
    with pytest.raises(certificates.CertificateError, match="certainly false|not certain"):
        check("approx-rank-lower-ball", {**data, "groups": [[3], [2]]})
    identity = [[int(i == k) for k in range(4)] for i in range(4)]
    X = np.array([[float(Fraction(v)) for v in x] for x in points])
    A = softmax_enclosures.attention_floats(64 * X @ X.T, [1, 2, 3, 4])
    B = softmax_enclosures.fractions(softmax_enclosures.integer_factor(A, 40), 40)  # A rounded: rank 4, error ~2^-40
    base = {k: v for k, v in data.items() if k not in ("rows", "groups")}
    up = check("approx-rank-upper-ball", {**base, "left": identity, "right": B})
    assert up.judgment["ball"] == 2 and up.judgment["bound"] == 4
    with pytest.raises(certificates.CertificateError, match="certainly false|not certain"):
        check("approx-rank-upper-ball", {**base, "left": identity, "right": identity})  # the origin's row is far from e_0


def test_rank_one_lemma_boundaries_are_exact():
    """anchor rows: S = 4 eps^2 k^2 is enough (ceil of an integer); interpolated: S = 2 eps (k - 1)^2 is not
    (floor(sqrt(S/(2 eps))) + 2 = k + 1 there)."""
    eps = Fraction(1, 10)
    S = 4 * eps * eps * 7 * 7  # sqrt(S)/(2 eps) = 7 exactly
    assert check("visible-one-anchors-every", {"construction": "anchor-rows", "spread": S, "epsilon": eps, "bound": 7}).judgment["bound"] == 7
    with pytest.raises(certificates.CertificateError):
        check("visible-one-anchors-every", {"construction": "anchor-rows", "spread": S + Fraction(1, 10**9), "epsilon": eps, "bound": 7})
    S = 2 * eps * 6 * 6  # sqrt(S/(2 eps)) = 6 exactly: the bound is 8, not 7
    with pytest.raises(certificates.CertificateError):
        check("visible-one-anchors-every", {"construction": "interpolated-anchors", "spread": S, "epsilon": eps, "bound": 7})
    assert check("visible-one-anchors-every", {"construction": "interpolated-anchors", "spread": S, "epsilon": eps, "bound": 8}).judgment["bound"] == 8
    assert check("visible-one-anchors-every", {"construction": "interpolated-anchors", "spread": 0, "epsilon": eps, "bound": 2}).judgment["bound"] == 2
    with pytest.raises(certificates.CertificateError):
        check("visible-one-anchors-every", {"construction": "interpolated-anchors", "spread": 0, "epsilon": eps, "bound": 1})
    with pytest.raises(certificates.CertificateError, match="spread"):
        check("visible-one-anchors-every", {"construction": "anchor-rows", "spread": -1, "epsilon": eps, "bound": 7})
    # tilted chords: S < 4 log(1 + eps) (k - 1)^2 in arb; 4 log(1.1) = 0.3812..., so at k = 8 the limit is 18.68...
    assert check("visible-one-anchors-every", {"construction": "tilted-chords", "spread": Fraction(1868, 100), "epsilon": eps, "bound": 8}).judgment["bound"] == 8
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        check("visible-one-anchors-every", {"construction": "tilted-chords", "spread": Fraction(1869, 100), "epsilon": eps, "bound": 8})
    assert check("visible-one-anchors-every", {"construction": "tilted-chords", "spread": 0, "epsilon": eps, "bound": 2}).judgment["bound"] == 2
    with pytest.raises(certificates.CertificateError, match="below"):
        check("visible-one-anchors-every", {"construction": "tilted-chords", "spread": 0, "epsilon": eps, "bound": 1})
    # Jeffreys chords: S (1 + eps)/8 < eps (k - 1)^2 exactly; at eps = 1/10, k = 12 the limit is S = 88 (refused: equality)
    assert check("visible-one-anchors-every", {"construction": "jeffreys-chords", "spread": Fraction(87999, 1000), "epsilon": eps, "bound": 12}).judgment["bound"] == 12
    with pytest.raises(certificates.CertificateError, match="below the Jeffreys"):
        check("visible-one-anchors-every", {"construction": "jeffreys-chords", "spread": 88, "epsilon": eps, "bound": 12})
    assert check("visible-one-anchors-every", {"construction": "jeffreys-chords", "spread": 0, "epsilon": eps, "bound": 2}).judgment["bound"] == 2
    with pytest.raises(certificates.CertificateError, match="below"):
        check("visible-one-anchors-every", {"construction": "jeffreys-chords", "spread": 0, "epsilon": eps, "bound": 1})


def test_circle_lemma_margins_are_decided_in_arb_on_both_sides():
    # pi^2 beta < eps^2 k^2: at beta = 1, eps = 1/10, k = 32 holds (pi^2 = 9.87 < 10.24), k = 31 fails (9.61)
    assert check("circle-anchors", {"construction": "anchor-rows", "beta": 1, "epsilon": "1/10", "bound": 32}).judgment["bound"] == 32
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        check("circle-anchors", {"construction": "anchor-rows", "beta": 1, "epsilon": "1/10", "bound": 31})
    # 2 pi^2 beta < eps k^2: beta = 1, eps = 1/10: k^2 > 197.4, so 15 holds (225) and 14 fails (196)
    assert check("circle-anchors", {"construction": "interpolated-anchors", "beta": 1, "epsilon": "1/10", "bound": 15}).judgment["bound"] == 15
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        check("circle-anchors", {"construction": "interpolated-anchors", "beta": 1, "epsilon": "1/10", "bound": 14})
    # pi^2 beta < log(1 + eps) k^2: beta = 1, eps = 1/10: k^2 > 103.55, so 11 holds (121) and 10 fails (100)
    assert check("circle-anchors", {"construction": "tilted-chords", "beta": 1, "epsilon": "1/10", "bound": 11}).judgment["bound"] == 11
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        check("circle-anchors", {"construction": "tilted-chords", "beta": 1, "epsilon": "1/10", "bound": 10})
    # close to the edge: beta just above k^2 log(1.1) / pi^2 at k = 100 (decided in arb, not in floats)
    edge = 100**2 * log(1.1) / pi**2
    with pytest.raises(certificates.CertificateError):
        check("circle-anchors", {"construction": "tilted-chords", "beta": Fraction(round(edge * 10**12) + 1, 10**12), "epsilon": "1/10", "bound": 100})
    assert check("circle-anchors", {"construction": "tilted-chords", "beta": Fraction(round(edge * 10**12) - 1, 10**12), "epsilon": "1/10",
                                    "bound": 100}).judgment["bound"] == 100
    # a bound just above pi sqrt(beta)/eps at a beta that makes the comparison close: beta = k^2 eps^2 / pi^2 rounded up
    beta = Fraction(round(10**12 * 0.01 * 100**2 / pi**2) + 1, 10**12)
    with pytest.raises(certificates.CertificateError):
        check("circle-anchors", {"construction": "anchor-rows", "beta": beta, "epsilon": "1/10", "bound": 100})


@pytest.mark.parametrize("seed", range(6))
def test_the_integer_spread_is_the_largest_double_difference_on_rectangles(seed):
    """Random rank-one interactions with biases on n x w rectangles (w = 1 and n = 1 included): the spread
    in integers equals the brute-force largest |N_ij - N_ij' - N_i'j + N_i'j'|; one changed entry (n, w >= 3) is refused."""
    import random
    rng = random.Random(seed)
    n, w = rng.choice([1, 2, 5, 7]), rng.choice([1, 3, 6])
    a = [rng.randint(-10**6, 10**6) for _ in range(n)]
    b = [rng.randint(-10**6, 10**6) for _ in range(w)]
    q = [rng.randint(-50, 50) for _ in range(n)]
    k = [rng.randint(-50, 50) for _ in range(w)]
    N = [[a[i] + b[j] + q[i] * k[j] for j in range(w)] for i in range(n)]
    brute = max(abs(N[i][j] - N[i][jj] - N[ii][j] + N[ii][jj]) for i in range(n) for ii in range(n) for j in range(w) for jj in range(w))
    assert geometry.spread_of_integers(N) == brute == (max(q) - min(q)) * (max(k) - min(k))
    if n >= 3 and w >= 3 and brute:  # (with two rows or two columns every matrix has that form)
        N[n - 1][w - 1] += 1
        with pytest.raises(certificates.CertificateError, match="rank >= 2"):
            geometry.spread_of_integers(N)


def test_between_four_and_five_x_star_the_square_root_form_decides():
    """Just above 4x* the Jeffreys count is 2 pi sqrt(beta/x*), smaller than the form below 4x*,
    pi (2 + beta/(2x*)) (by (sqrt b - 2)^2 pi/2): at beta = 2.64 (4.94 x*) the first is 13.96, the second 14.04,
    so 14 is accepted (a checker using the lower form past 4x* would refuse it) and 13 refused."""
    assert check("circle-anchors", {"construction": "jeffreys-chords", "beta": "264/100", "epsilon": "1/10", "bound": 14}).judgment["bound"] == 14
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        check("circle-anchors", {"construction": "jeffreys-chords", "beta": "264/100", "epsilon": "1/10", "bound": 13})


def test_the_tilted_chords_small_positive_spread_is_decided_too():
    """S = 1/2 at k = 2: the tilted chords need S < 4 log(1.1) = 0.381, so 2 is refused (the arb test runs for every
    S > 0, not only for S > 1), while the Jeffreys chords (S (1.1)/8 = 0.069 < 0.1) accept it."""
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        geometry.visible_one_bound_holds("tilted-chords", Fraction(1, 2), Fraction(1, 10), 2)
    geometry.visible_one_bound_holds("jeffreys-chords", Fraction(1, 2), Fraction(1, 10), 2)


@pytest.mark.parametrize("construction, spread, bound, message", [
    ("anchor-rows", 64, 39, "bound < sqrt(S)/(2 eps): below the anchor-row lemma"),
    ("interpolated-anchors", 64, 18, "bound < floor(sqrt(S/(2 eps))) + 2: below the interpolated-anchor lemma"),
    ("tilted-chords", 64, 1, "bound < 2: below the tilted-chord lemma (floor(sqrt(S/(4 log(1 + eps)))) + 2 >= 2)"),
    ("jeffreys-chords", 64, 10, "bound < floor(sqrt(S (1 + eps)/(8 eps))) + 2: below the Jeffreys-chord lemma"),
])
def test_the_rank_one_refusals_say_which_lemma_in_full(construction, spread, bound, message):
    with pytest.raises(certificates.CertificateError) as refused:
        geometry.visible_one_bound_holds(construction, Fraction(spread), Fraction(1, 10), bound)
    assert str(refused.value) == message


@pytest.mark.parametrize("integers, multiplicities, scale, message", [
    ([[0, 1], [2]], [1, 1], "1/2", "integers rows must all have 2 >= 1 entries"),  # ragged
    ([[], []], [], "1/2", "integers rows must all have 0 >= 1 entries"),  # no column
    ([[0, 1], 5], [1, 1], "1/2", "integers must be a list of rows"),
    ([[0, 1], [2, 3]], [1, 0], "1/2", "multiplicity"),  # a multiplicity below 1
    ([[0, 1], [2, 3]], [1, 1, 1], "1/2", "multiplicities"),  # one more than the columns
    ([[0, 1], [2, 3]], [1], "1/2", "multiplicities"),  # one fewer
    ([[0, True], [2, 3]], [1, 1], "1/2", "integers entries must be integers"),
    ([[0, "1/2"], [2, 3]], [1, 1], "1/2", "integers entries must be integers"),
    ([[0, 2**1000], [2, 3]], [1, 1], "1/2", "an integers entry has more than 1000 bits"),
    ([[0, -(2**1000)], [2, 3]], [1, 1], "1/2", "an integers entry has more than 1000 bits"),  # the sign does not hide it
    ([], [1], "1/2", "integers"),
    ([[0, 1], [2, 3]], [1, 1], "one half", "scale"),
])
def test_the_rank_one_instance_kind_refuses_hostile_shapes(integers, multiplicities, scale, message):
    data = {"construction": "jeffreys-chords", "scale": scale, "integers": integers, "multiplicities": multiplicities,
            "epsilon": "1/10", "bound": 10**6}
    with pytest.raises(certificates.CertificateError, match=message):
        check("visible-one-anchors", data)


def test_the_rank_one_instance_kind_takes_one_row_one_column_and_a_thousand_bit_entry():
    """The edges the refusals above must not reach: one row, one column, an entry of exactly 1000 bits."""
    for integers in ([[5, 7, 9]], [[4], [6]], [[2**999, 2**999], [0, 0]]):  # the last: a row bias, spread 0
        j = check("visible-one-anchors", {"construction": "jeffreys-chords", "scale": "1/2", "integers": integers,
                                          "multiplicities": [1] * len(integers[0]), "epsilon": "1/10", "bound": 10**6}).judgment
        assert j["n"] == len(integers)


def _near_the_tilted_edge(digits: int) -> Fraction:
    """A rational beta at relative distance 10^-|digits| below (digits < 0) or above the tilted chords' edge
    ``k^2 log(1.1)/pi^2`` at k = 100, eps = 1/10 (mpmath only places beta; the checker decides)."""
    import mpmath
    with mpmath.workdps(abs(digits) + 60):
        edge = mpmath.mpf(100) ** 2 * mpmath.log(mpmath.mpf(11) / 10) / mpmath.pi**2
        scale = 10 ** (abs(digits) + 40)
        return Fraction(int(edge * (1 + mpmath.sign(digits) * mpmath.mpf(10) ** -abs(digits)) * scale), scale)


def test_a_margin_beyond_sixty_four_bits_is_decided_at_a_higher_precision():
    """beta within 10^-25 (relative) of the tilted chords' edge k^2 log(1.1)/pi^2 at k = 100: 64 bits cannot tell
    the sides apart, so the checker must go on to 128 bits (not refuse at the first undecided precision) —
    accepting just below the edge and refusing just above it."""
    below, above = _near_the_tilted_edge(-25), _near_the_tilted_edge(25)
    assert check("circle-anchors", {"construction": "tilted-chords", "beta": below, "epsilon": "1/10", "bound": 100}).judgment["bound"] == 100
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        check("circle-anchors", {"construction": "tilted-chords", "beta": above, "epsilon": "1/10", "bound": 100})


@pytest.mark.parametrize("epsilon, message", [
    (0, "epsilon must lie in \\(0, 1\\)"),
    ("1/0", "epsilon"),
    ("ten percent", "epsilon"),
])
def test_an_epsilon_that_is_not_in_the_open_interval_or_not_a_number_is_refused(epsilon, message):
    with pytest.raises(certificates.CertificateError, match=message):
        check("circle-anchors", {"construction": "jeffreys-chords", "beta": 16, "epsilon": epsilon, "bound": 100})


def test_a_margin_beyond_every_precision_is_refused_not_guessed():
    """beta within 10^-200 (relative) of the same edge, below it: true, but not decidable at 512 bits (~154 digits),
    the checker's last precision — a refusal that says so, never an acceptance on a guess."""
    below = _near_the_tilted_edge(-200)
    with pytest.raises(certificates.CertificateError) as refused:
        check("circle-anchors", {"construction": "tilted-chords", "beta": below, "epsilon": "1/10", "bound": 100})
    assert f"the bound is not certainly above the lemma's even at {geometry.PRECISIONS[-1]} bits" in str(refused.value)
