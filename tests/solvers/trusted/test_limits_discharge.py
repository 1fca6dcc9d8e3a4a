"""The discharge's work estimate (``limits.discharge``): what it charges, that it keeps pace with what a comparison
does on hostile obligations, and that a full-size S7 point (4608 obligations, 2304 of one name) is not refused.

Structural, never timed: the seconds per unit are measured by ``bench/trusted_work.py --discharge`` (docs/performance.md).
"""

import json
import os
import re

import pytest

from solvers.trusted import core, limits, verdicts

CLAIM, STATEMENT = "test.claim", "s" * 64
ENVELOPE = {"claim": CLAIM, "statement": STATEMENT, "parameters": {}}
DIGEST = "sha256:" + "0123456789abcdef" * 4


def record(certificates, verify=(), refute=()):
    return {"claim": CLAIM, "status": "verified", "parameters": {}, "statement": STATEMENT, "certificates": list(certificates),
            "obligations": {"verify": list(verify), "refute": list(refute), "reach": "finite"}}


def need(judgment, words="w"):
    return {"judgment": judgment, "words": words}


def weight(judgment) -> int:
    """The documented weight, in twentieths of a unit: 5 per JSON value, 10 per ruled field and 1 per character
    of its value, 1 per 50 characters in all."""
    text = json.dumps(judgment)
    values = 1 + sum(text.count(c) for c in ",[{")
    ruled = [len(json.dumps(v)) for f, v in judgment.items() if f in core.RULES.get(judgment["judgment"], {})]
    return 5 * values + 10 * len(ruled) + sum(ruled) + len(text) // 50


def by_name(judgments) -> dict:
    out = {}
    for i, j in enumerate(judgments):
        out.setdefault(j["judgment"], []).append((f"{i:05}.cert.json", j))
    return out


def estimate(obligations, judgments) -> int:
    """One comparison per (obligation, judgment of its name), each charged both sides' weights."""
    listed = {name: (len(js), sum(weight(j) for _, j in js)) for name, js in by_name(judgments).items()}
    return sum(n * weight(o) + total for o in obligations for n, total in [listed.get(o["judgment"], (0, 0))]) // 20


def verdict(tmp_path, obligations, judgments, max_work):
    folder = os.path.realpath(tmp_path)
    names = [f"{i:05}.cert.json" for i in range(len(judgments))]
    results = {os.path.join(folder, n): ("accepted", ENVELOPE, j) for n, j in zip(names, judgments)}
    return verdicts.verdict(str(tmp_path / "outcome.json"), record(names, verify=[need(o) for o in obligations]), results, max_work)


def test_the_estimate_is_the_documented_sum_and_refuses_one_unit_above(tmp_path):
    at_most = {"judgment": "rank-at-most", "matrix": DIGEST, "rows": 3, "cols": 4, "bound": 2}  # bound is ruled
    svd = {"judgment": "singular-values-above", "logits": DIGEST, "tau": "1/4", "count": 3}  # no rule
    judgments = [at_most, at_most | {"bound": 1}, svd, {"judgment": "bits-at-least", "bits": 1}]
    obligations = [at_most | {"bound": 3}, svd, {"judgment": "fails", "m": 3, "tolerance": "1/2"}]  # "fails": none compared
    work = estimate(obligations, judgments)
    assert work == (2 * weight(at_most | {"bound": 3}) + weight(at_most) + weight(at_most | {"bound": 1})
                    + weight(svd) + weight(svd)) // 20
    assert verdict(tmp_path, obligations, judgments, max_work=work)["obligations"]
    with pytest.raises(core.Refused, match=rf"^discharging 3 obligation\(s\) with 4 certificate\(s\) asks for about {re.escape(f'{work:.3g}')} "
                                           rf"operations, above the limit of {re.escape(f'{work - 1:.3g}')} \(raise --max-work\)$"):
        verdict(tmp_path, obligations, judgments, max_work=work - 1)


def test_every_comparison_is_charged_at_least_one_unit():
    """The smallest judgment there is, {"judgment": name}, weighs 10 twentieths: a comparison of two, one unit."""
    assert weight({"judgment": "fails"}) == 10
    assert estimate([{"judgment": "fails"}] * 300, [{"judgment": "fails"}] * 200) == 300 * 200


HOSTILE = {
    # (obligation of size n, what one comparison may walk in it): the superset rule makes a string of every
    # element of the obligation's list (or character of its string) and hashes it; a ruled rational's digits are
    # parsed (each part at most MAX_DIGITS); the key sets are built and compared
    "a long list read by a rule": lambda n: (SOLVES | {"lengths": list(range(n))}, n),
    "a long string read by a rule": lambda n: (SOLVES | {"lengths": "9" * n}, n),
    "a long rational read by a rule": lambda n: ({"judgment": "rank-at-most", "matrix": DIGEST, "bound": "7" * n}, n),
    "many keys": lambda n: ({"judgment": "fails", **{f"k{i}": i for i in range(n)}}, n),
}
SOLVES = {"judgment": "solves", "head": "any", "rank": 1, "heads": 1, "m": [2, None], "lengths": [3], "tolerance": "1/2"}


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_a_grown_obligation_is_charged_at_least_what_a_comparison_walks(shape):
    """Each element, character or key a comparison may walk is charged at least 1/20 of a unit, and growing the
    obligation grows its weight by at least as much as it grows the walk."""
    (small, walked_small), (large, walked_large) = HOSTILE[shape](100), HOSTILE[shape](2000)
    for o, walked in ((small, walked_small), (large, walked_large)):
        assert limits._weight(o, core.RULES.get(o["judgment"], {})) == weight(o)  # the documented formula
        assert weight(o) >= walked
    assert weight(large) - weight(small) >= walked_large - walked_small


def test_a_full_size_calibration_point_is_within_the_default_limit(tmp_path):
    """S7 at full size: 576 head-sentences, 4 singular-value obligations each (2304 of one name) and one of each of
    four other names.  Before, every comparison was charged 0.1 us per character of both sides (about 2e8 units:
    refused at c = 2 and 4); each comparison costs 1.4 us here, measured, and is charged about 3 units."""
    judgments, obligations = [], []
    for i in range(576):
        logits, instance = f"sha256:{i:064x}", f"sha256:{i + 10**6:064x}"
        svd = [{"judgment": "singular-values-above", "logits": logits, "tau": tau, "count": 12} for tau in (0, "1/4", 1, 4)]
        rest = [{"judgment": "approx-rank-at-most", "instance": instance, "n": 48, "epsilon": "1/10", "bound": 9},
                {"judgment": "approx-rank-at-least", "instance": instance, "n": 48, "epsilon": "1/10", "bound": 2},
                {"judgment": "rank-at-most", "matrix": instance, "rows": 48, "cols": 48, "bound": 12},
                {"judgment": "residual-within", "logits": logits, "approximation": instance}]
        judgments += svd + rest
        obligations += svd + rest
    work = estimate(obligations, judgments)
    assert 1.5 * 10**7 < work < limits.MAX_WORK // 5
    wanted = [("verify", need(o), o["judgment"]) for o in obligations]
    limits.discharge(wanted, by_name(judgments), len(judgments), work, core.RULES)  # at the estimate: not refused
    with pytest.raises(core.Refused, match=rf"^discharging 4608 obligation\(s\) with 4608 certificate\(s\) asks for about {re.escape(f'{work:.3g}')} "):
        limits.discharge(wanted, by_name(judgments), len(judgments), work - 1, core.RULES)
