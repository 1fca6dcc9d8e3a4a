"""Worked example (a): "rank one solves exact length 3 for every m", refuted at the smallest m = 4."""

from __future__ import annotations

import copy

import pytest

from solvers import trusted
from solvers.certificates import CertificateError
from theorems.conjectures.rank_one_length_three import RankOneLengthThree
from theorems.core import first_discharging


@pytest.fixture(scope="module")
def outcome():
    return RankOneLengthThree().check()


def judgments(certs):
    return [(c["kind"], trusted.check(c).judgment) for c in certs]


def test_refuted_at_m_4_by_a_certificate_with_every_smaller_m_solved(outcome):
    claim = RankOneLengthThree()
    assert outcome.status == "refuted" == claim.expected
    needed = claim.obligations(claim.point())
    accepted = judgments(outcome.certificates)
    assert [k for k, _ in accepted] == ["exhaustive"] * 3 + ["rank-one-infeasible"]
    # m = 1, 2, 3: a rank-one head is certified on every sequence -- so m = 4 is the smallest counterexample
    assert [bool(first_discharging(accepted, o)) for o in needed.verify] == [True, True, True, False]
    assert [bool(first_discharging(accepted, o)) for o in needed.refute] == [False, False, False, True]
    assert outcome.covered["search"] == {"engine": "linear", "feasible": [1, 2, 3], "infeasible": 4}


def test_the_counterexample_is_a_few_sequences_over_two_tokens(outcome):
    example = outcome.counterexample
    assert example["m"] == 4 and len(example["tokens"]) == 2
    a, b = (int(t, 2) for t in example["tokens"])
    assert bin(a).count("1") == bin(b).count("1") == 2 and a & b == 0  # weight 2, disjoint supports
    assert len(example["sequences"]) <= 6 and all(len(s) == 3 for s in example["sequences"])


def test_below_4_nothing_is_refuted_and_nothing_is_verified():
    claim = RankOneLengthThree()
    short = claim.check(claim.point({"m_max": 3}))
    assert short.status == "unknown" and "open" in short.message  # a search that finds nothing proves nothing
    assert short.counterexample is None


def test_a_tampered_refutation_is_rejected(outcome):
    cert = copy.deepcopy(outcome.certificates[-1])
    cert["data"]["rows"][0][1] = cert["data"]["rows"][0][1] * 2 + 1  # one multiplier changed
    with pytest.raises(CertificateError):
        trusted.check(cert)


def test_attributed_to_attnproof_not_to_the_paper():
    claim = RankOneLengthThree()
    assert claim.source == "attnproof worked example" and claim.relation == "a conjecture"


def test_the_outcome_is_written_as_exact_json(outcome):
    record = outcome.to_json()  # refuses a float anywhere (coverage, facts, counterexample)
    assert record["claim"] == outcome.claim and record["status"] == outcome.status
