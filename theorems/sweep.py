"""A sweep's memory: which points of a run are already done in the outcome folder.

A point is *done* when ``OUT/<claim>/<point slug>/outcome.json`` holds an outcome of the
same claim whose

* ``statement`` is the installed claim's :meth:`~theorems.core.Claim.statement_hash`,
* ``parameters`` are the point's (as exact JSON),
* ``made.code`` is the installed code's digest (:func:`theorems.core.code_digest`),
* ``obligations`` are those the installed claim states at the point (a user's conjecture
  is outside the code digest: editing its head changes the digests its obligations name),

and whose verdict a re-run could not improve at the same parameters: every status except
``unknown`` with why ``"budget"`` (a larger ``--budget`` may finish it) or ``"not
established"`` (a failure, e.g. a worker that died — :data:`LOST` — is worth another
try).  ``attnproof check`` skips done points and says so; ``--force`` recomputes them.
Each point is written as soon as it finishes (``theorems.store``, atomically per
point), so a sweep that is stopped keeps what it finished and resumes from there.
"""

from __future__ import annotations

import json
import os

from solvers import certificates
from theorems.core import code_digest
from theorems.store import OUTCOME

LOST = "lost"  # the fact naming why a point has no result (its worker died twice)
RETRY = ("budget", "not established")


def _obligations(claim, point: dict):
    """The obligations the installed claim states at ``point`` (as binding recomputes them): a user's
    conjecture lives outside the code digest, and an edited head changes the digests they name."""
    try:
        return claim.obligations(point).to_json()
    except Exception:  # a claim that cannot state them is never "done"
        return None


def done(out: str, claim, point: dict, slug: str) -> dict | None:
    """The stored outcome record of ``claim`` at ``point`` if it is done (module docstring), else None."""
    path = os.path.join(out, claim.id, slug, OUTCOME)
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("made"), dict):
        return None
    same = (record.get("claim") == claim.id and record.get("statement") == claim.statement_hash()
            and record.get("parameters") == certificates.encode(dict(point))
            and record["made"].get("code") == code_digest()
            # last (the claim's own code runs); None when the claim cannot state them: never a record's
            and (stated := _obligations(claim, point)) is not None and record.get("obligations") == stated)
    unknown = record.get("unknown") if isinstance(record.get("unknown"), dict) else {}
    if not same or (record.get("status") == "unknown" and unknown.get("why") in RETRY):
        return None
    # every certificate the record names must be there (a point folder is swapped in whole,
    # so this fails only if someone removed a file by hand)
    names = record.get("certificates")
    folder = os.path.dirname(path)
    if not isinstance(names, list) or not all(isinstance(n, str) and os.path.isfile(os.path.join(folder, n)) for n in names):
        return None
    return record
