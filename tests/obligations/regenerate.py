"""Write the golden obligations of every built-in claim: ``python -m tests.obligations.regenerate [claim id ...]``.

One file per claim, ``tests/obligations/<claim id>.json``: the judgments of its ``verify`` and ``refute``
obligations and their ``reach`` (not the words) at the default point and at the point of :data:`OTHER`,
canonical JSON (:func:`dump`).  ``tests/obligations/test_golden.py`` compares the installed claims with
these files, so a change of what a claim states fails there until the file is written again on purpose.

After a deliberate change of a claim's obligations (or of its defaults, or of :data:`OTHER`), run this
from the project root, then review ``git diff tests/obligations/``: every judgment added, dropped or
changed is a change of what a ``verified`` of that claim means.  With claim ids it writes only those
files; without, it writes every built-in claim's and removes the files of claims no longer registered.
Only obligations are computed (no check runs): a few seconds.
"""

from __future__ import annotations

import json
import os
import sys

from solvers.trusted.core import encode
from theorems.core import BUILTIN_PACKAGES, registry

HERE = os.path.dirname(os.path.abspath(__file__))

# The second point of each claim: a size (or two) moved from its default, chosen so that the judgments differ from the
# default's and stating them stays cheap (each well under 2 s; none runs a check).
OTHER = {
    "conjectures.multi_head_length": {"m_max": 3},
    "conjectures.rank_one_length_three": {"m_max": 3},
    "conjectures.softmax_temperature_length": {"n_max": 4},
    "conjectures.visible_dimension_bounds_rank": {"n": 6},
    "kernel_rank.communication_bound": {"m_fooling": 8},
    "kernel_rank.exact_real_decoding": {"L": 5},
    "kernel_rank.feature_rank_table": {"m_max": 5},
    "kernel_rank.multi_head": {"m_types": 3},
    "kernel_rank.polynomial_readout_lower": {"D_max": 4},
    "kernel_rank.polynomial_readout_upper": {"m_D1": 8},
    "kernel_rank.position_and_causal": {"n_paper": 6},
    "kernel_rank.rank_one_short": {"m": 5, "m_statistic": 100},
    "kernel_rank.rank_two": {"m": 5},
    "kernel_rank.rational_decoding_collision": {"L_max": 5},
    "kernel_rank.restriction_lemma": {"m_max": 8},
    "kernel_rank.row_lemma": {"w_max": 6},
    "kernel_rank.softmax_three_tokens": {"m": 50},
    "kernel_rank.three_token_lower_bound": {"m_feasible": 2},
    "softmax_rank.ball_law": {"beta_max": 64},
    "softmax_rank.calibration": {"heads": 2},
    "softmax_rank.certified_rank_bounds": {"n": 20},
    "softmax_rank.duality": {"n_vertices": 6},
    "softmax_rank.residual_error": {"n": 8},
    "softmax_rank.residual_error_tanh": {"t": 2},  # no size: its one stated value is the temperature ratio
    "softmax_rank.row_scalar_quotient": {"n": 5},
    "softmax_rank.spherical_law": {"beta_max": 64},
    "softmax_rank.visible_law": {"r_max": 1},
}


def builtin_claims() -> dict:
    """The registry's claims whose code is in the built-in packages (no plugin, no user project)."""
    return {cid: c for cid, c in registry().items() if type(c).__module__.startswith(BUILTIN_PACKAGES)}


def path(claim_id: str) -> str:
    return os.path.join(HERE, f"{claim_id}.json")


def plain(value):
    """JSON data as ``json.load`` gives it back (tuples as lists, exact numbers encoded)."""
    return json.loads(json.dumps(encode(value), sort_keys=True))


def pinned(claim, overrides: dict) -> dict:
    """What the golden file pins at one point: the point, its judgments (verify, refute, in order) and reach."""
    point = claim.point(overrides)
    obligations = claim.obligations(point).to_json()
    return plain({
        "overrides": overrides,
        "point": point,
        "verify": [o["judgment"] for o in obligations["verify"]],
        "refute": [o["judgment"] for o in obligations["refute"]],
        "reach": obligations["reach"],
    })


def golden(claim) -> dict:
    """A claim's golden file as data: the default point, then the point of :data:`OTHER`."""
    return {"claim": claim.id, "points": [pinned(claim, {}), pinned(claim, OTHER[claim.id])]}


def dump(content: dict) -> str:
    """The canonical text of a golden file: UTF-8, keys sorted at every level, two-space indent down to the
    lists of judgments, each judgment (and nothing deeper) on one line, one final newline — so a diff shows
    whole judgments added, dropped or changed."""
    return _render(content, 0) + "\n"


JUDGMENT_DEPTH = 4  # file -> points -> point -> verify/refute -> judgment: compact from here down


def _render(value, depth: int) -> str:
    if depth >= JUDGMENT_DEPTH or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
    pad = "  " * (depth + 1)
    if isinstance(value, dict):
        lines = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_render(value[k], depth + 1)}" for k in sorted(value)]
        return "{\n" + ",\n".join(lines) + "\n" + "  " * depth + "}"
    return "[\n" + ",\n".join(pad + _render(v, depth + 1) for v in value) + "\n" + "  " * depth + "]"


def main(argv: list[str]) -> int:
    claims = builtin_claims()
    unknown = [cid for cid in argv if cid not in claims]
    if unknown:
        print(f"not a built-in claim: {', '.join(unknown)}", file=sys.stderr)
        return 2
    missing = [cid for cid in claims if cid not in OTHER]
    if missing:
        print(f"no second point in OTHER for: {', '.join(missing)} (add one to {__file__})", file=sys.stderr)
        return 2
    for cid in argv or claims:
        text = dump(golden(claims[cid]))
        old = open(path(cid), encoding="utf-8").read() if os.path.exists(path(cid)) else None
        if old != text:
            with open(path(cid), "w", encoding="utf-8") as handle:
                handle.write(text)
        print(f"{'unchanged' if old == text else 'written  '} {os.path.relpath(path(cid))}")
    if not argv:
        for name in sorted(os.listdir(HERE)):
            if name.endswith(".json") and name[:-len(".json")] not in claims:
                os.remove(os.path.join(HERE, name))
                print(f"removed   {os.path.relpath(os.path.join(HERE, name))} (no such claim)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
