"""The intervals family: approximation ranks and residuals of softmax attention, decided in arb.

Per kind: an honest certificate is accepted with the documented judgment,
broken data is rejected, at least one semantic forgery does not discharge
the obligation it imitates, and oversized work is refused before it starts.
"""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from solvers.trusted import core
from solvers.trusted.core import CertificateError, Refused, digest, discharges, encode

EPS = Fraction(1, 10)
CROSS = [[1, 0], [0, 1], [-1, 0], [0, -1]]  # four points of the unit circle


def cert(kind, data):
    return {"format": core.FORMAT, "version": core.VERSION, "kind": kind, "claim": "test.claim",
            "statement": "0" * 64, "parameters": {}, "data": encode(data)}


def accepts(kind, data, **kw):
    return core.check(cert(kind, data), **kw)


def rejects(kind, data, match=None):
    with pytest.raises(CertificateError, match=match):
        core.check(cert(kind, data))


def softmax(row, m):
    top = max(row)
    e = [w * math.exp(float(v - top)) for v, w in zip(row, m)]
    return [x / sum(e) for x in e]


def rounded(M, bits=40):
    return [[Fraction(round(v * 2**bits), 2**bits) for v in r] for r in M]


def logits_of(points, beta):
    return [[beta * sum(Fraction(a) * b for a, b in zip(x, y)) for y in points] for x in points]


def lower_points(points=CROSS, beta=16, m=None, eps=EPS):
    return {"points": points, "beta": beta, "multiplicities": m or [1] * len(points), "epsilon": eps,
            "rows": list(range(len(points))), "groups": [[j] for j in range(len(points))]}


def upper_points(points=CROSS, beta=16, m=None, eps=EPS):
    m = m or [1] * len(points)
    A = [softmax(r, m) for r in logits_of(points, beta)]
    identity = [[int(i == j) for j in range(len(points))] for i in range(len(points))]
    return {"points": points, "beta": beta, "multiplicities": m, "epsilon": eps, "left": identity, "right": rounded(A)}


# ----------------------------------------------------------- lower bounds


def test_lower_from_logits_states_its_instance():
    L = [[0, -10, -10], [-10, 0, -10], [-10, -10, 0]]
    data = {"logits": L, "multiplicities": [1, 1, 1], "epsilon": EPS, "rows": [0, 1, 2], "groups": [[0], [1], [2]]}
    judgment, summary = accepts("approx-rank-lower", data)
    assert judgment == {"judgment": "approx-rank-at-least", "instance": digest({"logits": L, "multiplicities": [1, 1, 1]}),
                        "n": 3, "epsilon": "1/10", "bound": 3}
    assert "rank_eps >= 3" in summary


def test_lower_from_points_counts_copies_and_reports_the_sphere():
    judgment, _ = accepts("approx-rank-lower-points", lower_points(m=[1, 2, 3, 4]))
    assert judgment == {"judgment": "approx-rank-at-least", "n": 10, "sphere": 2, "epsilon": "1/10", "bound": 4,
                        "instance": digest({"points": CROSS, "beta": 16, "multiplicities": [1, 2, 3, 4]})}
    pythagorean = [[Fraction(3, 5), Fraction(4, 5)], [Fraction(-4, 5), Fraction(3, 5)], [-1, 0], [0, -1]]
    assert accepts("approx-rank-lower-points", lower_points(pythagorean))[0]["sphere"] == 2
    sphere3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, 0, 0]]
    assert accepts("approx-rank-lower-points", lower_points(sphere3))[0]["sphere"] == 3


def test_points_off_the_sphere_cannot_discharge_a_sphere_obligation():
    off = [[2 * a for a in x] for x in CROSS]  # radius 2: the same rank bound, not the same theorem
    forged, _ = accepts("approx-rank-lower-points", lower_points(off, beta=4))
    assert forged["sphere"] is False
    needed = dict(forged, sphere=2)
    assert not discharges(forged, needed)
    assert discharges(accepts("approx-rank-lower-points", lower_points(CROSS, beta=16))[0],
                      dict(forged, sphere=2, instance=digest({"points": CROSS, "beta": 16, "multiplicities": [1] * 4})))


def test_lower_bound_epsilon_goes_only_the_sound_way():
    # a bound proved at eps = 1/20 says nothing at eps = 1/10 (rank_eps falls as eps grows); at 1/5 it does
    small, _ = accepts("approx-rank-lower-points", lower_points(eps=Fraction(1, 20)))
    large, _ = accepts("approx-rank-lower-points", lower_points(eps=Fraction(1, 5)))
    needed = dict(small, epsilon="1/10")
    assert not discharges(small, needed)
    assert discharges(large, needed)
    assert discharges(large, dict(needed, bound=3)) and not discharges(large, dict(needed, bound=5))


def test_a_bound_on_another_instance_does_not_discharge():
    other, _ = accepts("approx-rank-lower-points", lower_points(beta=17))
    mine, _ = accepts("approx-rank-lower-points", lower_points(beta=16))
    assert other["instance"] != mine["instance"] and not discharges(other, mine)
    copies, _ = accepts("approx-rank-lower-points", lower_points(m=[2, 1, 1, 1]))
    assert copies["instance"] != mine["instance"] and not discharges(copies, mine)


def test_a_margin_true_only_in_floats_is_rejected():
    # row 0: logits 0, multiplicities (3, 1, 2): A_0 = (1/2, 1/6, 1/3), margin 1/2 - 1/6 = 1/3 exactly
    L, m = [[0, 0, 0], [0, 100, 0]], [3, 1, 2]
    data = {"logits": L, "multiplicities": m, "epsilon": Fraction(1, 3), "rows": [0, 1], "groups": [[0], [1]]}
    rejects("approx-rank-lower", data, match="row 0")
    accepts("approx-rank-lower", data | {"epsilon": Fraction(1, 3) - Fraction(1, 10**30)})


@pytest.mark.parametrize("change", [
    {"groups": [[1], [2], [3], [0]]},  # groups rotated against rows
    {"groups": [[0, 1], [1], [2], [3]]},  # overlapping
    {"rows": [0, 0, 2, 3]},  # repeated row
    {"rows": [], "groups": []},  # vacuous
    {"groups": [[0], [1], [2], []]},  # empty group
    {"epsilon": 1}, {"epsilon": 0}, {"epsilon": "-1/10"}, {"epsilon": "0.1"}, {"epsilon": True},
    {"multiplicities": [1, 1, 1]}, {"multiplicities": [1, 1, 1, 0]}, {"multiplicities": [1, 1, 1, True]},
    {"multiplicities": 1}, {"beta": "-1"}, {"beta": [1]}, {"rows": [0, 1, 2, 4]}, {"groups": [0, 1, 2, 3]},
    {"points": [[1, 0], [0, 1], [-1, 0], [0]]}, {"points": []}, {"points": "x"},
])
def test_broken_lower_bounds_are_rejected(change):
    rejects("approx-rank-lower-points", lower_points() | change)


# ----------------------------------------------------------- upper bounds


def test_upper_from_points_and_logits():
    judgment, summary = accepts("approx-rank-upper-points", upper_points(m=[1, 1, 2, 1]))
    assert judgment == {"judgment": "approx-rank-at-most", "n": 5, "sphere": 2, "epsilon": "1/10", "bound": 4,
                        "instance": digest({"points": CROSS, "beta": 16, "multiplicities": [1, 1, 2, 1]})}
    assert "rank_eps <= 4" in summary
    # uniform attention is exactly rank one
    L = [[0, 0, 0], [5, 5, 5]]
    judgment, _ = accepts("approx-rank-upper", {"logits": L, "multiplicities": [1, 1, 1], "epsilon": EPS,
                                                 "left": [[1], [1]], "right": [["1/3", "1/3", "1/3"]]})
    assert judgment == {"judgment": "approx-rank-at-most", "instance": digest({"logits": L, "multiplicities": [1, 1, 1]}),
                        "n": 2, "epsilon": "1/10", "bound": 1}


def test_upper_bound_epsilon_goes_only_the_sound_way():
    loose, _ = accepts("approx-rank-upper-points", upper_points(eps=Fraction(1, 5)))
    tight, _ = accepts("approx-rank-upper-points", upper_points(eps=Fraction(1, 20)))
    needed = dict(loose, epsilon="1/10")
    assert not discharges(loose, needed) and discharges(tight, needed)
    assert discharges(tight, dict(needed, bound=5)) and not discharges(tight, dict(needed, bound=3))


def test_broken_upper_bounds_are_rejected():
    data = upper_points()
    shifted = [[v + Fraction(1, 2) for v in data["right"][0]]] + data["right"][1:]
    rejects("approx-rank-upper-points", data | {"right": shifted}, match="row 0")
    rejects("approx-rank-upper-points", data | {"epsilon": Fraction(1, 10**15)}, match="row 0")
    rejects("approx-rank-upper-points", data | {"left": [r[:-1] for r in data["left"]]})  # shapes disagree
    rejects("approx-rank-upper-points", data | {"multiplicities": [1, 1, 1, 10**9]})  # B is not W's any more
    rejects("approx-rank-upper-points", data | {"right": data["right"][:3]})


# -------------------------------------------------------------- residuals

L3 = [[0, 1, 2], [2, 0, 1], [1, 1, 0]]
K3 = [[0, 1, 1], [2, 0, 0], [1, 1, 1]]


def test_residual_bound():
    judgment, _ = accepts("residual-bound", {"logits": L3, "approximation": K3})
    assert judgment == {"judgment": "residual-within", "logits": digest(L3), "approximation": digest(K3)}
    assert not discharges(judgment, dict(judgment, approximation=digest(L3)))  # another approximation
    rejects("residual-bound", {"logits": L3, "approximation": K3[:2]}, match="shapes")
    rejects("residual-bound", {"logits": L3, "approximation": [r[:2] for r in K3]}, match="shapes")
    huge = [[10**1999, 0]]  # a huge oscillation: certainly within 2 tanh(osc/4) ~ 2
    accepts("residual-bound", {"logits": huge, "approximation": [[0, 0]]})


def test_residual_two_point():
    documented = {"t": 3, "row": ["1/8", "7/8"], "weights": [8, "33/32"]}
    judgment, summary = accepts("residual-two-point", documented | {"bound": "tanh(delta)", "relation": "exceeds"})
    assert judgment == {"judgment": "residual-two-point", "t": 3, "bound": "tanh(delta)", "relation": "exceeds"}
    assert "tanh(delta) = 4/5" in summary
    rejects("residual-two-point", documented | {"bound": "2tanh(delta/2)", "relation": "exceeds"})
    sharp = {"t": 3, "row": ["1/4", "3/4"], "weights": [9, 1]}
    attains, _ = accepts("residual-two-point", sharp | {"bound": "2tanh(delta/2)", "relation": "attains"})
    assert not discharges(attains, dict(attains, relation="exceeds"))  # attaining is not exceeding
    assert not discharges(attains, dict(attains, t=2))  # another delta
    rejects("residual-two-point", sharp | {"bound": "tanh(delta)", "relation": "attains"})
    rejects("residual-two-point", sharp | {"weights": [10, 1], "bound": "2tanh(delta/2)", "relation": "exceeds"})  # w > t^2
    rejects("residual-two-point", sharp | {"t": 1, "bound": "2tanh(delta/2)", "relation": "attains"})
    rejects("residual-two-point", sharp | {"row": ["1/2"], "weights": [1], "bound": "tanh(delta)", "relation": "exceeds"})
    rejects("residual-two-point", sharp | {"bound": ["tanh(delta)"], "relation": "exceeds"})


def test_attention_differs():
    judgment, _ = accepts("attention-differs", {"logits": L3, "other": K3, "row": 0, "column": 2})
    assert judgment == {"judgment": "attention-differs", "logits": digest(L3), "other": digest(K3)}
    shifted = [[v + 5 for v in r] for r in L3]  # the same attention
    rejects("attention-differs", {"logits": L3, "other": shifted, "row": 0, "column": 2}, match="not certain")
    rejects("attention-differs", {"logits": L3, "other": K3, "row": 3, "column": 0})
    rejects("attention-differs", {"logits": L3, "other": K3, "row": True, "column": 0})


# ------------------------------------------------------------------- work


def test_work_is_estimated_from_sizes_and_refused_before_it_starts():
    with pytest.raises(Refused, match="operations"):
        accepts("approx-rank-upper-points", upper_points(), max_work=10)
    big = f"{10**1999 + 1}/{10**1999}"  # every coordinate a 2000-digit fraction, 200 dimensions
    points = [[big] * 200 for _ in range(4)]
    with pytest.raises(Refused, match="operations"):
        accepts("approx-rank-lower-points", lower_points(points))
    with pytest.raises(Refused):
        accepts("residual-bound", {"logits": [[0] * 300] * 300, "approximation": [[0] * 300] * 300}, max_work=10**5)


@pytest.mark.parametrize("kind", ["approx-rank-lower", "approx-rank-lower-points", "approx-rank-upper",
                                  "approx-rank-upper-points", "residual-bound", "residual-two-point", "attention-differs"])
def test_wrong_types_everywhere_are_rejected_cleanly(kind):
    fields = core.KINDS[kind][0]
    for junk in (None, True, "x", {"a": 1}, [[]], [["x"]], -1, [1, [2]]):
        with pytest.raises((CertificateError, Refused)):
            core.check(cert(kind, {f: junk for f in fields}))


# --------------------------------------------------------------- property

logit = st.fractions(min_value=-6, max_value=6, max_denominator=8)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(2, 5), st.data())
def test_residual_bound_holds_on_random_perturbations(n, N, data):
    """S6 as a property: every random perturbation is within 2 tanh(osc_i/4), row by row."""
    L = [[data.draw(logit) for _ in range(N)] for _ in range(n)]
    E = [[data.draw(logit) for _ in range(N)] for _ in range(n)]
    S = [[a - e for a, e in zip(r, s)] for r, s in zip(L, E)]
    judgment, summary = accepts("residual-bound", {"logits": L, "approximation": S})
    assert judgment == {"judgment": "residual-within", "logits": digest(L), "approximation": digest(S)}
    assert summary.startswith(f"every row of a {n} x {N} softmax within 2 tanh(osc_i/4)")
    for r, s, e in zip(L, S, E):  # what was accepted holds, in floats, row by row
        distance = sum(abs(a - b) for a, b in zip(softmax(r, [1] * N), softmax(s, [1] * N)))
        assert distance <= 2 * math.tanh(float(max(e) - min(e)) / 4) + 1e-12
