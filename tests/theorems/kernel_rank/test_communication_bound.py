import copy
from itertools import combinations
from math import comb

import pytest

from solvers import certificates as C
from solvers import trusted
from theorems import attention as att
from theorems.core import first_discharging
from theorems.kernel_rank import communication_bound as k9
from theorems.kernel_rank.communication_bound import CommunicationBound

SMALL = {"n_max_m4": 8, "n_max_m5": 4, "m_fooling": 6, "m_range": 12, "m_injective": 5}


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


def test_every_obligation_is_discharged_and_the_reach_is_finite(outcome):
    needed = CommunicationBound().obligations(CommunicationBound().point(SMALL))
    judgments = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    assert [first_discharging(judgments, o) for o in needed.verify] == [
        "prefix-behaviours", "behaviour-rank", "prefix-behaviours", "behaviour-rank", "fooling-family"]
    assert needed.reach == "N(n) exactly at m = 4 (n <= 8) and m = 5 (n <= 4); N(n) >= m^(n-1) at m = 6 for n <= 4"
    assert outcome.obligations == needed.to_json()


def test_certificates_of_another_point_do_not_discharge(outcome):
    claim = CommunicationBound()
    judgments = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    for other in ({"n_max_m4": 9}, {"n_max_m5": 5}, {"m_fooling": 8}):
        needed = claim.obligations(claim.point(SMALL | other))
        assert any(first_discharging(judgments, o) is None for o in needed.verify), other


def test_the_table_the_obligations_name_is_the_closure():
    assert [len(level) for level in k9.behaviour_levels(4, 7)] == list(k9.N_TABLE[4])
    assert [len(level) for level in k9.behaviour_levels(5, 4)] == list(k9.N_TABLE[5][:3])
    # m = 5 to its fixed point: the stated table, then its last value (n = 11 on)
    assert [len(level) for level in k9.behaviour_levels(5, 14)] == k9.known_counts(5, 14)
    assert k9.known_counts(5, 14)[-4:] == [k9.N_TABLE[5][-1]] * 4
    assert k9.known_counts(4, 9) == [16, 71, 135, 160, 166, 167, 167, 167]


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
    for m, row in outcome.facts["fooling_range_unchecked"].items():
        M = comb(m, m // 2)
        assert row["n_max"] >= row["guaranteed_n_max"] == M // m + 1
        s = row["n_max"] - 1
        assert comb(M, s) >= m**s and comb(M, s + 1) < m ** (s + 1)


def test_a_non_injective_family_is_not_verified(monkeypatch):
    honest = k9.fooling_family
    monkeypatch.setattr(k9, "fooling_family", lambda m: (honest(m)[0], honest(m)[0]))
    claim = CommunicationBound()
    outcome = claim.check(claim.point(SMALL | {"n_max_m5": 2}))
    assert outcome.status == "unknown" and "rejected the fooling-family" in outcome.message


def test_a_wrong_table_is_not_verified(monkeypatch):
    monkeypatch.setattr(k9, "N_TABLE", {4: (16, 71, 135, 161, 166, 167), 5: k9.N_TABLE[5]})
    claim = CommunicationBound()
    outcome = claim.check(claim.point(SMALL | {"n_max_m5": 2}))
    assert outcome.status == "unknown" and "obligation not discharged: at m = 4" in outcome.message


def test_the_checker_rejects_a_wrong_count(outcome):
    cert = next(c for c in outcome.certificates if c["kind"] == "prefix-behaviours")
    assert "N(n) = [16, 71" in trusted.check(cert).summary
    tampered = copy.deepcopy(cert)
    tampered["data"]["counts"][3] = 161
    with pytest.raises(C.CertificateError, match="N\\(5\\)"):
        trusted.check(tampered)


def test_the_checker_rejects_a_singular_minor(outcome):
    cert = next(c for c in outcome.certificates if c["kind"] == "behaviour-rank")
    assert "rank >=" in trusted.check(cert).summary
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
