"""Verdicts: does an outcome's status follow from its obligations and its certificates?

An outcome file (``outcome.json``, written by ``attnproof check``) names a
claim, a parameter point, the claim's statement hash, a status, the
claim's **obligations** at that point and its certificate files (beside
it).  The checker, knowing nothing of the claim, confirms:

1. every certificate listed is accepted and was made for this claim, this
   statement and this point (its envelope says so; nothing is moved);
2. the status is the strongest the discharges **earn** (``core.discharges``
   decides each obligation):

   * ``refuted`` when some ``refute`` obligation is discharged — it wins even
     when every ``verify`` obligation is discharged too, as the check decides;
   * otherwise ``verified`` when every ``verify`` obligation is discharged
     and there is at least one;
   * otherwise ``unknown``.

   An outcome saying more than it earns does not stand, nor one saying less:
   ``unknown`` with a refute obligation discharged hides a refutation.  The
   one status that may be weaker is ``unknown`` where ``verified`` is earned —
   an open conjecture's, which this process cannot tell from another claim's,
   so it reports ``earned`` and the binding stage decides.

An obligation is compared only with the listed certificates' judgments of
its name (each file once, however often it is listed), and the work that
asks for is estimated first, from sizes alone, as a kind's is: above
``max_work`` the outcome is refused with the estimate.

That the obligations are the claim's own (recomputed from the installed
claim at the point) is checked afterwards, outside this process.
"""

from __future__ import annotations

import hashlib
import os

from solvers.trusted import limits
from solvers.trusted.core import MAX_WORK, RULES, Refused, discharges
from solvers.trusted.parse import loads, read

STATUSES = ("verified", "refuted", "unknown")
OUTCOME_KEYS = {"claim", "status", "parameters", "statement", "obligations", "certificates"}


class _Fails(Exception):
    """The reason an outcome does not stand."""


def _need(condition, reason: str) -> None:
    if not condition:
        raise _Fails(reason)


def _obligations(raw) -> dict:
    """The ``obligations`` field: ``{"verify": [...], "refute": [...], "reach": str}``, each ``{"judgment", "words"}``."""
    _need(isinstance(raw, dict) and set(raw) == {"verify", "refute", "reach"} and isinstance(raw["reach"], str),
          "obligations must be {verify, refute, reach}")
    for side in ("verify", "refute"):
        _need(isinstance(raw[side], list) and all(
            isinstance(o, dict) and set(o) == {"judgment", "words"} and isinstance(o["judgment"], dict)
            and isinstance(o["judgment"].get("judgment"), str) and isinstance(o["words"], str) for o in raw[side]
        ), f"obligations.{side} must be a list of {{judgment, words}}")
    return raw


def verdict(path: str, record, results: dict, max_work: int = MAX_WORK) -> dict:
    """Check one outcome record read from ``path``; ``results`` maps certificate paths (the real folder,
    then the file's own name) to ``(status, envelope, judgment)`` as the certificate stage left them."""
    out = {"type": "outcome", "path": path, "ok": False, "reason": "", "obligations": []}
    try:
        _need(isinstance(record, dict) and OUTCOME_KEYS <= set(record), f"not an outcome record (needs {sorted(OUTCOME_KEYS)})")
        claim, status, point, statement = (record[k] for k in ("claim", "status", "parameters", "statement"))
        out.update(claim=claim, status=status, parameters=point, statement=statement)
        obligations = _obligations(record["obligations"])
        _need(status in STATUSES and isinstance(record["certificates"], list), f"status must be one of {STATUSES} and certificates a list")
        folder = os.path.realpath(os.path.dirname(path))
        for name in record["certificates"]:
            _need(isinstance(name, str) and "\x00" not in name and len(name) <= 4096, "a certificate entry is not a file name")
        files = dict.fromkeys(os.path.basename(name) for name in record["certificates"])  # each file once, however often listed
        judgments = {}  # by judgment name: [(file, judgment)] in listed order
        for name in files:
            got = results.get(os.path.join(folder, name))
            _need(got is not None, f"certificate {name} is missing from {folder}")
            state, cert, judgment = got
            _need(state == "accepted", f"certificate {name} was not accepted")
            _need((cert["claim"], cert["statement"], cert["parameters"]) == (claim, statement, point),
                  f"certificate {name} was made for another claim, statement or point")
            judgments.setdefault(judgment["judgment"], []).append((name, judgment))
        wanted = [(side, o, o["judgment"]["judgment"]) for side in ("verify", "refute") for o in obligations[side]]
        limits.discharge(wanted, judgments, len(files), max_work, RULES)  # refused above max_work, before comparing

        def by(obligation, name):
            return next((file for file, j in judgments.get(name, ()) if discharges(j, obligation["judgment"])), None)

        rows = [dict(side=side, **o, by=by(o, n)) for side, o, n in wanted]
        out["obligations"], out["reach"] = rows, obligations["reach"]
        verify = [r for r in rows if r["side"] == "verify"]
        missing = [r["words"] for r in verify if r["by"] is None]
        refuted_by = [r["by"] for r in rows if r["side"] == "refute" and r["by"]]
        out["earned"] = "refuted" if refuted_by else "verified" if verify and not missing else "unknown"
        _need(status == "refuted" or not refuted_by,
              f"a refute obligation is discharged by {(refuted_by or [''])[0]}: the outcome must say refuted, not {status}")
        _need(status != "verified" or verify, "a verified outcome with no obligations proves nothing")
        _need(status != "verified" or not missing, f"{len(missing)} obligation(s) not discharged, first: {(missing or [''])[0][:200]}")
        _need(status != "refuted" or refuted_by, "no refutation obligation is discharged by a certificate")
        out["ok"] = True  # unknown claims nothing; where verified is earned, the binding asks whether the claim is open
    except _Fails as exc:
        out["reason"] = str(exc)
    return out


def outcome(path: str, results: dict, max_work: int = MAX_WORK) -> dict:
    """Judge the outcome file at ``path`` (:func:`verdict`, with the sha256 of the bytes judged); never raises."""
    try:
        raw = read(path)
        record = loads(raw, floats=True)  # its wall-clock seconds
        return verdict(path, record, results, max_work) | {"sha256": hashlib.sha256(raw).hexdigest()}
    except Refused as exc:
        return {"type": "outcome", "path": path, "ok": False, "reason": f"REFUSED: {exc}", "obligations": []}
    except (MemoryError, Exception) as exc:  # a malformed record never ends the run
        return {"type": "outcome", "path": path, "ok": False, "obligations": [],
                "reason": f"REFUSED: the checker failed on this record ({type(exc).__name__})"}
