import copy
from itertools import combinations
from math import comb

import pytest

from solvers import certificates as C
from solvers import trusted
from theorems import attention as att
from theorems.kernel_rank import communication_bound as k9
from theorems.kernel_rank.communication_bound import CommunicationBound

SMALL = {"n_max_m4": 8, "n_max_m5": 4, "m_fooling": 6, "m_range": 12, "m_injective": 5}


def envelope(kind, data):
    return C.make(kind, "test.claim", "s" * 64, {}, data)


@pytest.fixture(scope="module")
def outcome():
    claim = CommunicationBound()
    return claim.check(claim.point(SMALL))


def test_verified_with_the_planning_counts(outcome):
    assert outcome.status == "verified", outcome.message
    assert outcome.facts["N"][4] == {2: 16, 3: 71, 4: 135, 5: 160, 6: 166, 7: 167, 8: 167}
    assert outcome.facts["N"][5] == {2: 32, 3: 317, 4: 1407}
    assert outcome.facts["constant_from_m4"] == {"n": 7, "N": 167}
    assert outcome.facts["bits_one_way"][4][3] == 7  # 2^6 < 71 <= 2^7


def test_counts_agree_with_brute_force_over_prefixes():
    m = 3
    levels = k9.behaviour_levels(m, 4)
    for s in (1, 2, 3):
        brute = {k9.behaviour(prefix, m) for prefix in _prefixes(m, s)}
        assert set(levels[s - 1]) == brute


def _prefixes(m, s):
    from itertools import product

    return product(range(1 << m), repeat=s)


def test_the_fooling_range_covers_m_over_mm(outcome):
    for m, row in outcome.facts["fooling_range"].items():
        M = comb(m, m // 2)
        assert row["n_max"] >= row["guaranteed_n_max"] == M // m + 1
        s = row["n_max"] - 1
        assert comb(M, s) >= m**s and comb(M, s + 1) < m ** (s + 1)


def test_the_checker_rejects_a_non_injective_family():
    queries, tokens = k9.fooling_family(4)
    data = {"m": 4, "queries": queries, "tokens": tokens, "n_max": 2}
    assert "N(n) >= C(6, n-1)" in trusted.check(envelope("fooling-family", data))
    # the k-subsets themselves as prefix tokens: <Q, Q> = k, never 0 -- the zero pattern is lost
    with pytest.raises(C.CertificateError, match="diagonal"):
        trusted.check(envelope("fooling-family", data | {"tokens": queries}))
    # two prefix tokens with the same zero set
    broken = list(tokens)
    broken[1] = broken[0]
    with pytest.raises(C.CertificateError, match="diagonal"):
        trusted.check(envelope("fooling-family", data | {"tokens": broken}))
    # beyond the range where C(M, n-1) >= m^(n-1)
    with pytest.raises(C.CertificateError, match="<"):
        trusted.check(envelope("fooling-family", data | {"n_max": 3}))


def test_a_non_injective_family_is_refuted(monkeypatch):
    honest = k9.fooling_family
    monkeypatch.setattr(k9, "fooling_family", lambda m: (honest(m)[0], honest(m)[0]))
    claim = CommunicationBound()
    assert claim.check(claim.point(SMALL | {"n_max_m5": 2})).status == "refuted"


def test_the_checker_rejects_wrong_counts_and_bits(outcome):
    cert = next(c for c in outcome.certificates if c["kind"] == "prefix-behaviours")
    assert "N(n) = [16, 71" in trusted.check(cert)
    tampered = copy.deepcopy(cert)
    tampered["data"]["counts"]["5"] = 161
    with pytest.raises(C.CertificateError, match="N\\(5\\)"):
        trusted.check(tampered)
    tampered = copy.deepcopy(cert)
    tampered["data"]["bits"]["2"] = 5  # 16 = 2^4 functions need only 4 bits
    with pytest.raises(C.CertificateError, match="more than log2"):
        trusted.check(tampered)


def test_the_checker_rejects_a_singular_minor(outcome):
    cert = next(c for c in outcome.certificates if c["kind"] == "behaviour-rank")
    assert "rank >=" in trusted.check(cert)
    tampered = copy.deepcopy(cert)
    tampered["data"]["prefixes"][1] = tampered["data"]["prefixes"][0]
    with pytest.raises(C.CertificateError, match="singular"):
        trusted.check(tampered)


def test_fooling_families_give_distinct_behaviours_by_enumeration():
    m = 4
    queries, tokens = k9.fooling_family(m)
    seen = set()
    for s in range(1, len(tokens) + 1):
        for family in combinations(tokens, s):
            f = k9.behaviour(family, m)
            zero_set = {Q for Q in queries if f[Q] == 0}
            assert zero_set == {(1 << m) - 1 ^ t for t in family}
            seen.add(f)
    assert len(seen) == 2 ** len(tokens) - 1
    assert att.min_ip_target((tokens[0], queries[0])) == 0


def test_the_plot_draws_the_counts(outcome):
    import json

    record = json.loads(json.dumps(outcome.to_json()))
    (plot,) = CommunicationBound().plots(record)
    label, xs, ys = plot.series[0]
    assert label == "log2 N(n), m = 4" and xs == (2, 3, 4, 5, 6, 7, 8) and ys[0] == 4.0
