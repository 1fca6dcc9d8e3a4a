"""The trusted checker accepts honest certificates and rejects broken ones."""

import copy
from fractions import Fraction

import pytest

from solvers import certificates as C
from solvers import exact, trusted


def envelope(kind, data, statement="s" * 64):
    return C.make(kind, "test.claim", statement, {}, data)


def rank_one_tables(m, perturb=None):
    size = 1 << m
    U = [[2 * (q & x).bit_count() - q.bit_count() for x in range(size)] for q in range(size)]
    if perturb:
        q, x, delta = perturb
        U[q][x] += delta
    return {
        "m": m, "lengths": [1, 2], "phi": [[1]] * size, "psi": [[1]] * size, "readout": U,
        "target": "min-ip", "tolerance": 0, "symmetry": "coordinates",
    }


def test_exhaustive_accepts_the_rank_one_witness():
    assert "error exactly 0" in trusted.check(envelope("exhaustive", rank_one_tables(3)))


def test_exhaustive_rejects_a_perturbed_readout():
    # a perturbation invariant under the symmetry, so only evaluation can catch it
    data = rank_one_tables(3)
    for q in range(8):
        data["readout"][q][q] = C.encode(Fraction(data["readout"][q][q]) + Fraction(1, 4))
    with pytest.raises(C.CertificateError, match="error"):
        trusted.check(envelope("exhaustive", data))


def test_exhaustive_rejects_tables_that_break_the_symmetry():
    with pytest.raises(C.CertificateError, match="not invariant"):
        trusted.check(envelope("exhaustive", rank_one_tables(3, perturb=(1, 1, 0)) | {"readout": _asym(3)}))


def _asym(m):
    size = 1 << m
    U = [[2 * (q & x).bit_count() - q.bit_count() for x in range(size)] for q in range(size)]
    U[1][1] += 0  # coordinate 0 alone: still symmetric; now break it
    U[1][0] = 99
    return U


def test_exhaustive_rejects_negative_features_and_zero_diagonal():
    data = rank_one_tables(2)
    data["phi"] = [[-1]] + [[1]] * 3
    with pytest.raises(C.CertificateError, match="nonnegative"):
        trusted.check(envelope("exhaustive", data))
    data = rank_one_tables(2)
    data["psi"] = [[0]] + [[1]] * 3
    with pytest.raises(C.CertificateError, match="positive"):
        trusted.check(envelope("exhaustive", data))


def softmax_scores(m, base):
    return {
        "m": m, "lengths": [3], "kappa": [C.encode(Fraction(1, base**s)) for s in range(m + 1)],
        "value": [[s for s in range(w + 1)] for w in range(m + 1)], "target": "min-ip", "tolerance": "1/2",
    }


def test_score_statistic_accepts_softmax_at_ln4_and_rejects_ln2():
    assert "error < 1/2" in trusted.check(envelope("score-statistic", softmax_scores(12, 4)))
    with pytest.raises(C.CertificateError, match="is not < 1/2"):
        trusted.check(envelope("score-statistic", softmax_scores(12, 2)))


def test_counterexample_must_really_fail():
    data = softmax_scores(2, 2)
    data.pop("lengths")
    trusted.check(envelope("score-counterexample", data | {"sequence": [0b00, 0b11, 0b11]}))
    with pytest.raises(C.CertificateError, match="not a counterexample"):
        trusted.check(envelope("score-counterexample", data | {"sequence": [0b11, 0b11, 0b11]}))


def test_rank_certificates():
    A = [[1, 1, 1, 1], [1, Fraction(1, 4), 1, Fraction(1, 4)], [1, 1, Fraction(1, 4), Fraction(1, 4)], [1, Fraction(1, 4), Fraction(1, 4), Fraction(1, 16)]]
    rows, cols = exact.nonsingular_minor(A)
    good = {"matrix": C.encode(A), "rows": rows, "cols": cols, "prime": exact.DEFAULT_PRIME}
    assert "rank >= 4" in trusted.check(envelope("rank-lower", good))
    with pytest.raises(C.CertificateError, match="not prime"):
        trusted.check(envelope("rank-lower", good | {"prime": exact.DEFAULT_PRIME + 1}))
    singular = [[1, 2], [2, 4]]
    with pytest.raises(C.CertificateError, match="singular"):
        trusted.check(envelope("rank-lower", {"matrix": singular, "rows": [0, 1], "cols": [0, 1], "prime": 101}))
    F, G = exact.factorisation(singular)
    assert "rank <= 1" in trusted.check(envelope("rank-upper", C.encode({"matrix": singular, "left": F, "right": G})))
    with pytest.raises(C.CertificateError, match="differs"):
        trusted.check(envelope("rank-upper", C.encode({"matrix": [[1, 2], [2, 5]], "left": F, "right": G})))


def test_unknown_kind_extra_field_and_wrong_statement_are_refused():
    good = envelope("score-statistic", softmax_scores(3, 4))
    with pytest.raises(C.CertificateError, match="unknown certificate kind"):
        trusted.check(good | {"kind": "magic"})
    bad = copy.deepcopy(good)
    bad["data"]["comment"] = "checked by hand"
    with pytest.raises(C.CertificateError, match="unused data field"):
        trusted.check(bad)
    with pytest.raises(C.CertificateError, match="does not match"):
        trusted.check(good, statement_hash="t" * 64)
