"""The cones family: the rank-two betweenness certificate at m = 5 is accepted with its judgment,
every broken or forged variant is rejected, the order search agrees with brute force, and work
is refused above the limit."""

import copy
import random
from itertools import permutations

import pytest

from solvers import certificates as C
from solvers.trusted import cones
from solvers.trusted.core import CertificateError, Refused, check, discharges
from theorems.core import judgment
from theorems.kernel_rank import rank_two

KIND = "rank-two-betweenness"


def run(data, max_work=10**9):
    return check(C.make(KIND, "test.claim", "s" * 64, {}, data), max_work=max_work)


def rejected(data, match=None):
    with pytest.raises(CertificateError, match=match):
        run(data)


@pytest.fixture(scope="module")
def honest():
    data, open_, order = rank_two.betweenness_certificate()
    assert not open_ and order is None
    return C.encode(data)


def test_the_m5_certificate_proves_rank_two_unsolvable_at_every_m_from_5(honest):
    accepted = run(honest)
    assert accepted.judgment == {"judgment": "unsolvable", "model": "kernel", "rank": 2, "m": [5, None], "length": 3,
                                 "target": "min-ip", "tolerance": "1/2"}
    needed = lambda **f: judgment("unsolvable", **({"model": "kernel", "rank": 2, "m": [5, None], "length": 3,  # noqa: E731
                                                   "target": "min-ip", "tolerance": "1/2"} | f))
    assert discharges(accepted.judgment, needed())
    assert discharges(accepted.judgment, needed(m=[7, None], rank=1))  # padding, and rank one is rank two
    assert not discharges(accepted.judgment, needed(rank=3))
    assert not discharges(accepted.judgment, needed(m=[4, None]))
    assert not discharges(accepted.judgment, needed(length=4))


def test_a_broken_exclusion_is_rejected(honest):
    for mutate in (
        lambda e: e["rows"][0].__setitem__(2, 5),  # a multiplier changed
        lambda e: e["rows"][1].__setitem__(1, "lo"),  # a side flipped
        lambda e: e["rows"].pop(),  # a row dropped
        lambda e: e["rows"][0][3].__setitem__(0, "11111"),  # a context token changed
        lambda e: e.__setitem__("middle", e["ends"][0]) or e["ends"].__setitem__(0, honest["exclusions"][0]["middle"]),  # roles swapped
    ):
        data = copy.deepcopy(honest)
        mutate(data["exclusions"][0])
        rejected(data)


def test_without_any_one_exclusion_an_order_exists(honest):
    for i in range(len(honest["exclusions"])):
        data = copy.deepcopy(honest)
        del data["exclusions"][i]
        rejected(data, "avoids every excluded betweenness")


def test_malformed_data_is_rejected_with_a_reason(honest):
    rejected(honest | {"queries": honest["queries"][:2]}, "entries")
    rejected(honest | {"queries": honest["queries"] + [honest["queries"][0]]}, "distinct")
    rejected(honest | {"queries": [q for q in honest["queries"] if q != honest["exclusions"][0]["middle"]]}, "listed queries")
    rejected(honest | {"m": 6}, "bit string of length 6")
    rejected(honest | {"exclusions": [[1]]}, "reads exactly")
    bad = copy.deepcopy(honest)
    bad["exclusions"][0]["nonnegative"] = [[bad["exclusions"][0]["middle"], "00000", 1]]
    rejected(bad, "name an end")
    bad = copy.deepcopy(honest)
    bad["exclusions"][0]["rows"][0][3] = ["00000", "00000", "00000"]
    rejected(bad, "one length")
    bad = copy.deepcopy(honest)
    bad["exclusions"][0]["ends"][0] = bad["exclusions"][0]["middle"]
    rejected(bad, "three distinct")
    bad = copy.deepcopy(honest)
    bad["exclusions"][0]["rows"][0][0] = "11111"
    rejected(bad, "not the middle or an end")
    bad["exclusions"][0]["rows"][0][0] = ["01100"]  # not a token at all (unhashable): the same reason
    rejected(bad, "not the middle or an end")
    many = [format(x, "05b") for x in range(10)]
    rejected(honest | {"queries": many}, "entries")  # at most nine queries: the search is bounded


def test_work_is_estimated_and_refused_above_the_limit(honest):
    with pytest.raises(Refused, match="operations"):
        run(honest, max_work=100)
    assert cones._work_betweenness({"queries": "x", "exclusions": [1, {"rows": 3}]}) >= 0


def brute_force(queries, excluded):
    for order in permutations(queries):
        where = {q: i for i, q in enumerate(order)}
        if all(not (min(where[b], where[c]) < where[a] < max(where[b], where[c])) for a, (b, c) in
               ((a, tuple(ends)) for a, ends in excluded)):
            return True
    return False


def test_the_order_search_agrees_with_brute_force():
    rng = random.Random(0)
    for trial in range(150):
        n = rng.randint(3, 6)
        triples = [(a, b, c) for a in range(n) for b in range(n) for c in range(b + 1, n) if a not in (b, c)]
        excluded = {(a, frozenset((b, c))) for a, b, c in rng.sample(triples, rng.randint(1, min(len(triples), 3 * n)))}
        found = cones.order_avoiding(list(range(n)), excluded)
        assert (found is not None) == brute_force(range(n), excluded)
        if found is not None:
            assert sorted(found) == list(range(n))
            where = {q: i for i, q in enumerate(found)}
            assert all(not (min(where[b], where[c]) < where[a] < max(where[b], where[c])) for a, (b, c) in
                       ((a, tuple(e)) for a, e in excluded))


def test_many_long_rows_are_refused_before_any_work(honest):
    """Every sequence position of every row counts in the estimate: a single exclusion of 100,000
    rows with seven context tokens (minutes of Fraction arithmetic before the combination can be
    found wrong) is refused at the default limit, while the honest certificate stays far below it."""
    from solvers.trusted.core import KINDS, MAX_WORK

    exclusion = honest["exclusions"][0]
    row = [exclusion["ends"][0], "lo", 1, [exclusion["middle"]] * 7]
    data = honest | {"exclusions": [exclusion | {"rows": [row] * 100_000}]}
    estimate = KINDS[KIND][1]
    assert estimate(data) > MAX_WORK
    assert estimate(data) > 2 * estimate(honest | {"exclusions": [exclusion | {"rows": [row[:3] + [row[3][:2]]] * 100_000}]})
    assert estimate(honest) < MAX_WORK // 10
    with pytest.raises(Refused, match="operations"):
        check(C.make(KIND, "test.claim", "s" * 64, {}, data))
