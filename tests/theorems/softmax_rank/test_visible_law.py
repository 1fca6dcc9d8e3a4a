"""S5 visible-dimension law: the r = 1 bound for every head, sharp lattice sandwiches, random contrast, slopes."""

import copy
from fractions import Fraction
from math import log

import numpy as np
import pytest

from solvers import certificates, softmax_enclosures as E, trusted
from solvers.trusted.core import discharges
from theorems.core import ParameterError
from theorems.softmax_rank import _laws, visible_law
from theorems.softmax_rank.visible_law import VisibleLaw
from tests.theorems.softmax_rank.test_spherical_law import greedy_arcs


@pytest.fixture(scope="module")
def outcome():
    claim = VisibleLaw()
    return claim, claim.check(claim.point({}))


def judgments(out):
    return [trusted.check(c).judgment for c in out.certificates]


def test_verified_with_every_obligation_discharged(outcome):
    _, out = outcome
    assert out.status == "verified", out.message
    js = judgments(out)
    missing = [o["words"] for o in out.obligations["verify"] if not any(discharges(j, o["judgment"]) for j in js)]
    assert not missing
    every = [o for o in out.obligations["verify"] if o["judgment"]["judgment"] == "approx-rank-at-most-every"]
    assert {o["judgment"]["family"] for o in every} == {"rank-one-interaction"}
    assert "C(r, eps) for r >= 2 is not checked" in out.obligations["reach"]


def test_sandwiches_and_the_found_slopes(outcome):
    _, out = outcome
    table = next(v for k, v in out.facts.items() if k.startswith("sandwiches"))
    for r, rows in table.items():
        for b, row in rows.items():
            assert row["lower"] <= row["upper"] and row["S"] == 4 * b
            assert row["random lower"] < row["lower"]  # random keys clump: the contrast
    slopes = next(v for k, v in out.facts.items() if k.startswith("fitted_slopes"))
    # (found) lattice slopes 0.498 (r = 1) and 1.010 (r = 2) against log S: about r/2
    assert abs(float(slopes["r = 2, lower"][0]) - 1.0) < 0.1
    assert abs(float(slopes["r = 1, lower"][0]) - 0.5) < 0.1
    assert float(slopes["r = 2, random lower"][0]) < 1.0  # random instances stay below r/2
    assert slopes["r = 2, law exponent r/2"] == 1
    assert "fitted on 1 + S = 257, 1025" in slopes["r = 2, lower"][1]


def test_the_rank_one_bound_is_independent_of_large_biases(outcome):
    claim, out = outcome
    big = claim.check(claim.point({"bias": 10**5, "r_max": 1, "random": 0, "beta_max": 64}))
    assert big.status == "verified"
    assert big.facts["large_biases"]["spread"] == out.facts["large_biases"]["spread"]  # biases change no double difference
    assert big.facts["large_biases"]["bound"] == out.facts["large_biases"]["bound"]


def test_a_slope_on_too_few_points_is_not_fitted():
    slope, why = _laws.fitted_slope([17, 65], [5, 11], 64, "1 + S")
    assert slope is None and "1 point(s)" in why and "1 + S >= 64" in why
    slope, why = _laws.fitted_slope([65, 257, 1025], [11, 23, 45], 64, "1 + S")
    assert slope is not None and abs(float(slope) - log(45 / 11) / log(1025 / 65)) < 0.05
    assert why == "fitted on 1 + S = 65, 257, 1025"  # the variable named, never an anonymous x


def test_a_lattice_lower_bound_one_too_high_is_rejected(outcome):
    _, out = outcome
    cert = copy.deepcopy(next(c for c in out.certificates if c["kind"] == "approx-rank-lower-scaled"))
    rows, groups = cert["data"]["rows"], cert["data"]["groups"]
    n = len(cert["data"]["integers"])
    if len(rows) == n:  # every key is a row: merge two groups' rows into one more claim than possible
        groups[0] = groups[0] + groups[1]
        del rows[1], groups[1]
        rows.append(rows[0])
        groups.append([groups[0].pop()])
    with pytest.raises(certificates.CertificateError):
        trusted.check(cert)


def test_an_upper_bound_measured_only_in_floats_is_rejected():
    """B = A (rounded) with one entry raised by eps + 2^-30: floats see an error of eps (within their
    tolerance), arb sees eps + 2^-30 - rounding > eps, and the checker rejects it."""
    inst = visible_law._sharp(2, 64, Fraction(1, 10))
    L = visible_law.kernel_logits(inst.Z, inst.scale)
    A = E.attention_floats(L.floats())
    n = len(inst.Z)
    B = E.integer_factor(A, 40)
    B[0][0] += (1 << 40) // 10 + (1 << 10)  # + eps + 2^-30 (over 2^40)
    float_error = np.abs(A - np.array(B, dtype=float) / 2**40).sum(axis=1).max()
    assert float_error <= 0.1 * (1 + 1e-6)  # floats would let it through
    claim = VisibleLaw()
    data = inst.data(Fraction(1, 10), left=[[int(i == j) for j in range(n)] for i in range(n)], right=E.fractions(B, 40))
    with pytest.raises(certificates.CertificateError, match="certainly false"):
        trusted.check(claim.certificate("approx-rank-upper-scaled", claim.point(), data))


def test_a_bound_at_another_epsilon_or_beta_discharges_nothing(outcome):
    _, out = outcome
    obligations = [o["judgment"] for o in out.obligations["verify"]]
    cert = next(c for c in out.certificates if c["kind"] == "visible-one-anchors-every")
    forged = copy.deepcopy(cert)
    forged["data"]["epsilon"] = "1/5"  # a weaker epsilon: still a true judgment, but not the one needed
    forged["data"]["bound"] = cert["data"]["bound"] // 2 + 1
    j = trusted.check(forged).judgment
    assert not any(discharges(j, o) for o in obligations if o["judgment"] == "approx-rank-at-most-every")
    small = visible_law._sharp(1, 64, Fraction(1, 10))
    at64 = [o for o in obligations if o.get("instance") == visible_law._instance_obligations("", small.scale, small.integers, Fraction(1, 10), 1, None)[0].judgment["instance"]]
    lowers256 = [trusted.check(c).judgment for c in out.certificates if c["kind"] == "approx-rank-lower-scaled"]
    assert at64 and not any(discharges(j, o) for j in lowers256 if j["instance"] != at64[0]["instance"] for o in at64)


def test_parameters_are_refused_with_the_reason():
    claim = VisibleLaw()
    with pytest.raises(ParameterError, match="epsilon"):
        claim.check(claim.point({"epsilon": 1}))
    with pytest.raises(ParameterError, match="perfect square"):
        claim.check(claim.point({"step": 8, "beta_min": 64, "beta_max": 512}))
    with pytest.raises(ParameterError, match="r = 3"):
        claim.check(claim.point({"r_max": 3, "beta_max": 1024}))


def test_plots_are_log_log_per_r_with_separate_lower_and_upper(outcome):
    claim, out = outcome
    plots = claim.plots(out.to_json())
    assert [p.name for p in plots] == ["visible_law_r1", "visible_law_r2"]
    for p in plots:
        labels = [s[0] for s in p.series]
        assert p.logx and p.logy and any("lower" in x for x in labels) and any("upper" in x for x in labels)
        assert labels[-1].startswith("slope")


def test_the_dense_lattice_upper_construction_is_certified():
    claim = VisibleLaw()
    out = claim.check(claim.point({"r_max": 2, "beta": 16, "random": 0, "dense": 1}))
    assert out.status == "verified", out.message
    table = next(v for k, v in out.facts.items() if k.startswith("sandwiches"))
    for r in (1, 2):
        row = table[r][16]
        assert row["dense lower"] <= row["dense upper"] < row["dense keys"]
    assert sum(c["kind"] == "approx-rank-upper-scaled" for c in out.certificates) == 2


@pytest.mark.parametrize("DQ", [64.0, 256.0])
@pytest.mark.parametrize("biases", ["none", "large", "one heavy key"])
def test_the_rank_one_lemmas_in_floats(DQ, biases):
    """Floats, not a certificate: for rows ``p_t(j) ∝ e^{b_j + t k_j}``, t in [0, D_Q], keys in [-1, 1]
    (D_K <= 2): the Fisher length is <= sqrt(S), ||p''||_1 <= 2 Var_t(k), the greedy arcs leave at most
    floor(sqrt(S/(2 eps))) + 2 anchors, and every chord error is <= eps (docs/softmax_rank.visible_law.md)."""
    import numpy as np
    from math import floor, sqrt

    rng = np.random.default_rng(1)
    N, M, eps = 120, 20000, 0.1
    k = np.sort(rng.uniform(-1, 1, N))
    b = {"none": np.zeros(N), "large": rng.uniform(-30, 30, N), "one heavy key": np.r_[40.0, np.zeros(N - 1)]}[biases]
    S = DQ * (k.max() - k.min())
    t = np.linspace(0, DQ, M + 1)
    h = t[1] - t[0]
    L = b[None, :] + t[:, None] * k[None, :]
    P = np.exp(L - L.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    mean = P @ k
    var = P @ k**2 - mean**2
    assert np.sqrt(np.maximum(var, 0)).sum() * h <= sqrt(S) * 1.001  # Fisher length (Cauchy-Schwarz)
    second = np.abs(P[2:] - 2 * P[1:-1] + P[:-2]).sum(axis=1) / h**2
    assert (second <= 1.01 * 2 * var[1:-1] + 1e-6).all()
    bound = 2 * var
    knots = greedy_arcs(bound[:M], h, eps)  # M intervals between the M + 1 grid points
    assert len(knots) <= floor(sqrt(S / (2 * eps))) + 2  # anchors: the arcs' ends
    worst = max(np.abs(P[i] - ((bb - i) * P[a] + (i - a) * P[bb]) / (bb - a)).sum()
                for a, bb in zip(knots, knots[1:]) for i in range(a, bb, 7))
    assert worst <= eps
