"""What each built-in claim states is pinned: its obligations' judgments and reach, against reviewed files.

``attnproof verify`` recomputes ``claim.obligations(point)`` from the installed claim and discharges
exactly those judgments, and the other tests compare outcomes with obligations computed by the same code.
So little held *what* a claim states: ``lengths [1, 2]`` -> ``[1]`` in rank_one_short's obligations
passed every test that runs without Coq while its words still said "lengths 1 and 2".  Here the
judgments of every ``verify`` and ``refute`` obligation (in order; the words are not pinned, they are
rendered for readers) and the ``reach`` of every built-in claim, at its default point and at one other
point (``regenerate.OTHER``: a size moved, the judgments different from the default's), must equal
``tests/obligations/<claim id>.json``.  The point itself is pinned too (the defaults, and the other
point as the claim parses it), and digests in the judgments pin the heads, matrices and instances they
name (some come from a float computation rounded to exact data: a machine where they differ states
other obligations, and ``verify`` would not bind outcomes across the two either).  A deliberate change
is made by writing the files again (``python -m tests.obligations.regenerate``) and reviewing
``git diff tests/obligations/``.  Only obligations are computed, no check: a few seconds.

The claims with a Coq statement (a non-empty ``formal``: rank_one_short, three_token_lower_bound,
position_and_causal, rank_two, feature_rank_table) are pinned here too.  ``tests/formal/test_formal.py``
proves the verify obligations of the first four from their Coq theorems (only where ``coqc`` is installed):
that shows each obligation is *true*, not that it is the whole statement — a weaker obligation follows
from the theorems too (the planted ``[1]`` fails there only because its tactic matches each obligation's
exact shape, and is skipped without Coq) — so the two tests hold different things, and both stay.

That every size parameter is stated by the obligations is ``tests/theorems/test_parameters_bound.py``
(a size that changes no obligation fails there); it is not repeated here.
"""

from __future__ import annotations

import json
import os

import pytest

from solvers import encoder

from .regenerate import HERE, OTHER, builtin_claims, dump, path, plain

CLAIMS = builtin_claims()
REGENERATE = ("if the change is deliberate: python -m tests.obligations.regenerate {}, "
              "then review git diff tests/obligations/")
# Without the model, calibration states no obligation (reach "none: the model is not installed"): skipped, except
# under CI=true, where .ci/run installs the model.
NO_MODEL = encoder.available() is not None and os.environ.get("CI") != "true"


def load(claim_id: str) -> dict:
    with open(path(claim_id), encoding="utf-8") as handle:
        return json.load(handle)


def cases():
    for cid in CLAIMS:
        calibration = cid == "softmax_rank.calibration"
        marks = [pytest.mark.skipif(NO_MODEL, reason="the model is not installed")] if calibration else []
        for index, label in enumerate(("default", "other")):
            yield pytest.param(cid, index, id=f"{cid}:{label}", marks=marks)


def test_one_golden_file_per_built_in_claim():
    files = {name[:-len(".json")] for name in os.listdir(HERE) if name.endswith(".json")}
    assert files == set(CLAIMS), (f"claims without a golden file: {sorted(set(CLAIMS) - files)}; "
                                  f"files of no claim: {sorted(files - set(CLAIMS))}; " + REGENERATE.format(""))


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_the_golden_file_is_canonical_and_pins_two_points(claim_id):
    """Sorted keys, the canonical layout (so a diff is a reviewed change of judgments), the default point and
    the point of OTHER, which states other judgments than the default."""
    with open(path(claim_id), encoding="utf-8") as handle:
        text = handle.read()
    content = json.loads(text)
    assert text == dump(content), f"{path(claim_id)} is not in canonical form; " + REGENERATE.format(claim_id)
    assert content["claim"] == claim_id
    default, other = content["points"]
    assert default["overrides"] == {}
    assert other["overrides"] == plain(OTHER[claim_id]) != {}, "the second point is not regenerate.OTHER's"
    assert [other[k] for k in ("verify", "refute", "reach")] != [default[k] for k in ("verify", "refute", "reach")]


def _difference(side: str, want: list, got: list) -> str:
    dropped = [j for j in want if j not in got]
    added = [j for j in got if j not in want]
    if not dropped and not added:
        return f"{side}: the same judgments in another order"
    return (f"{side}: {len(dropped)} pinned judgment(s) no longer stated, {len(added)} stated and not pinned\n"
            + "".join(f"  - {json.dumps(j, sort_keys=True)}\n" for j in dropped)
            + "".join(f"  + {json.dumps(j, sort_keys=True)}\n" for j in added))


@pytest.mark.parametrize("claim_id, index", list(cases()))
def test_the_obligations_are_the_pinned_ones(claim_id, index):
    claim = CLAIMS[claim_id]
    pinned = load(claim_id)["points"][index]
    point = claim.point(pinned["overrides"])
    assert plain(point) == pinned["point"], f"{claim_id}: the point moved; " + REGENERATE.format(claim_id)
    obligations = claim.obligations(point).to_json()
    stated = {side: [plain(o["judgment"]) for o in obligations[side]] for side in ("verify", "refute")}
    problems = [_difference(side, pinned[side], stated[side])
                for side in ("verify", "refute") if stated[side] != pinned[side]]
    if obligations["reach"] != pinned["reach"]:
        problems.append(f"reach: pinned {pinned['reach']!r}, stated {obligations['reach']!r}")
    where = pinned["overrides"] or "its default point"
    assert not problems, (f"{claim_id} at {where} states other obligations than {os.path.relpath(path(claim_id))}:\n"
                          + "\n".join(problems) + "\n" + REGENERATE.format(claim_id))
