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
    assert outcome.facts["N"][6] == {2: 64, 3: 1415, 4: 15415}  # the third row (issue 25)
    assert outcome.facts["log_rank_two_way"][6] == {"n": 4, "rank": 63, "bits": 6}
    assert outcome.facts["constant_from_m4"] == {"n": 7, "N": 167}
    assert outcome.facts["bits_one_way"][4][3] == 7  # 2^6 < 71 <= 2^7


def test_every_obligation_is_discharged_and_the_reach_is_finite(outcome):
    needed = CommunicationBound().obligations(CommunicationBound().point(SMALL))
    judgments = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    assert [first_discharging(judgments, o) for o in needed.verify] == [
        "prefix-behaviours", "behaviour-rank", "prefix-behaviours", "behaviour-rank", "prefix-behaviours", "behaviour-rank",
        "fooling-family"]
    assert needed.reach == ("N(n) exactly at m = 4 (n <= 8), m = 5 (n <= 4) and m = 6 (n <= 4); "
                            "N(n) >= m^(n-1) at m = 6 for n <= 4")
    assert outcome.obligations == needed.to_json()


def test_certificates_of_another_point_do_not_discharge(outcome):
    claim = CommunicationBound()
    judgments = [(c["kind"], trusted.check(c).judgment) for c in outcome.certificates]
    for other in ({"n_max_m4": 9}, {"n_max_m5": 5}, {"n_max_m6": 3}, {"m_fooling": 8}):
        needed = claim.obligations(claim.point(SMALL | other))
        assert any(first_discharging(judgments, o) is None for o in needed.verify), other


def test_the_counts_the_obligations_name_are_the_closure_and_the_planning_values():
    # THEOREMS.md's (found) values as oracles: computed by the closure, never stated by hand
    assert k9.closure_counts(4, 9) == [16, 71, 135, 160, 166, 167, 167, 167]
    assert k9.closure_counts(5, 5) == [32, 317, 1407, 3427]
    assert k9.closure_counts(6, 4) == [64, 1415, 15415]
    # m = 5 to its fixed point (n = 11 on): the estimate table of the cost model agrees
    assert k9.closure_counts(5, 14) == k9.estimated_counts(5, 14)
    needed = CommunicationBound().obligations(CommunicationBound().point(SMALL))
    assert [o.judgment["counts"] for o in needed.verify if o.judgment["judgment"] == "behaviour-counts"] == [
        k9.closure_counts(4, 8), k9.closure_counts(5, 4), k9.closure_counts(6, 4)]


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


def test_a_wrong_statement_of_the_counts_is_not_verified(monkeypatch):
    honest = k9.closure_counts
    monkeypatch.setattr(k9, "closure_counts", lambda m, n: [c + (m == 6 and i == 2) for i, c in enumerate(honest(m, n))])
    claim = CommunicationBound()
    outcome = claim.check(claim.point(SMALL | {"n_max_m5": 2}))
    assert outcome.status == "unknown" and "obligation not discharged: at m = 6" in outcome.message


def test_a_wrong_closure_is_rejected_by_the_checker(monkeypatch):
    # the claim's closure loses one function at m = 6, n = 4: it states 15414 and certifies it; the checker's
    # own closure counts 15415, rejects the certificate, and the obligation stays undischarged
    honest = k9._levels

    def lossy(m, n_max):
        levels = honest(m, n_max)
        if m != 6:
            return levels
        last = dict(levels[-1])
        last.pop(next(reversed(last)))
        return levels[:-1] + [last]

    monkeypatch.setattr(k9, "_levels", lossy)
    claim = CommunicationBound()
    outcome = claim.check(claim.point(SMALL | {"n_max_m5": 2}))
    assert outcome.status == "unknown" and "N(4) = 15415 at m=6, not 15414" in outcome.message, outcome.message


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
    assert [s[0] for s in plot.series if s[0].startswith("log2")] == ["log2 N(n), m = 4", "log2 N(n), m = 5", "log2 N(n), m = 6"]
