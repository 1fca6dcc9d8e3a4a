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
import json
import os

from solvers.trusted.core import MAX_WORK, Refused, discharges
from solvers.trusted.parse import loads, read

STATUSES = ("verified", "refuted", "unknown")
OUTCOME_KEYS = {"claim", "status", "parameters", "statement", "obligations", "certificates"}


def _obligations(raw) -> dict:
    """The ``obligations`` field: ``{"verify": [...], "refute": [...], "reach": str}``, each ``{"judgment", "words"}``."""
    if not (isinstance(raw, dict) and set(raw) == {"verify", "refute", "reach"} and isinstance(raw["reach"], str)):
        raise ValueError("obligations must be {verify, refute, reach}")
    for side in ("verify", "refute"):
        items = raw[side]
        if not isinstance(items, list) or not all(
            isinstance(o, dict) and set(o) == {"judgment", "words"} and isinstance(o["judgment"], dict)
            and isinstance(o["judgment"].get("judgment"), str) and isinstance(o["words"], str)
            for o in items
        ):
            raise ValueError(f"obligations.{side} must be a list of {{judgment, words}}")
    return raw


def verdict(path: str, record, results: dict, max_work: int = MAX_WORK) -> dict:
    """Check one outcome record read from ``path``; ``results`` maps certificate paths (the real folder,
    then the file's own name) to ``(status, envelope, judgment)`` as the certificate stage left them."""
    out = {"type": "outcome", "path": path, "ok": False, "reason": "", "obligations": []}
    if not (isinstance(record, dict) and OUTCOME_KEYS <= set(record)):
        out["reason"] = f"not an outcome record (needs {sorted(OUTCOME_KEYS)})"
        return out
    claim, status, point, statement = (record[k] for k in ("claim", "status", "parameters", "statement"))
    out.update(claim=claim, status=status, parameters=point, statement=statement)
    try:
        obligations = _obligations(record["obligations"])
    except ValueError as exc:
        out["reason"] = str(exc)
        return out
    if status not in STATUSES or not isinstance(record["certificates"], list):
        out["reason"] = f"status must be one of {STATUSES} and certificates a list"
        return out
    folder = os.path.realpath(os.path.dirname(path))
    names = []
    for name in record["certificates"]:
        if not isinstance(name, str) or "\x00" in name or len(name) > 4096:
            out["reason"] = "a certificate entry is not a file name"
            return out
        names.append(os.path.basename(name))
    files = dict.fromkeys(names)  # each file once, however often it is listed
    judgments, chars = {}, {}  # by judgment name: [(file, judgment)] in listed order, and their size in JSON
    for name in files:
        got = results.get(os.path.join(folder, name))
        if got is None:
            out["reason"] = f"certificate {name} is missing from {folder}"
            return out
        state, cert, judgment = got
        if state != "accepted":
            out["reason"] = f"certificate {name} was not accepted"
            return out
        if (cert["claim"], cert["statement"], cert["parameters"]) != (claim, statement, point):
            out["reason"] = f"certificate {name} was made for another claim, statement or point"
            return out
        judgments.setdefault(judgment["judgment"], []).append((name, judgment))
        chars[judgment["judgment"]] = chars.get(judgment["judgment"], 0) + len(json.dumps(judgment))
    # comparing an obligation with a judgment costs up to about 0.1 us per character of the two (JSON)
    wanted = [(side, o, o["judgment"]["judgment"]) for side in ("verify", "refute") for o in obligations[side]]
    work = sum(len(judgments.get(n, ())) * len(json.dumps(o["judgment"])) + chars.get(n, 0) for _, o, n in wanted) // 10
    if work > max_work:
        raise Refused(f"discharging {len(wanted)} obligation(s) with {len(files)} certificate(s) asks for "
                      f"about {work:.3g} operations, above the limit of {max_work:.3g} (raise --max-work)")

    def by(obligation, name):
        return next((file for file, j in judgments.get(name, ()) if discharges(j, obligation["judgment"])), None)

    rows = [dict(side=side, **o, by=by(o, n)) for side, o, n in wanted]
    out["obligations"], out["reach"] = rows, obligations["reach"]
    verify = [r for r in rows if r["side"] == "verify"]
    missing = [r["words"] for r in verify if r["by"] is None]
    refuted_by = [r["by"] for r in rows if r["side"] == "refute" and r["by"]]
    earned = "refuted" if refuted_by else "verified" if verify and not missing else "unknown"
    out["earned"] = earned
    if earned == "refuted" and status != "refuted":
        out["reason"] = f"a refute obligation is discharged by {refuted_by[0]}: the outcome must say refuted, not {status}"
    elif status == "verified":
        if not verify:
            out["reason"] = "a verified outcome with no obligations proves nothing"
        elif missing:
            out["reason"] = f"{len(missing)} obligation(s) not discharged, first: {missing[0][:200]}"
        else:
            out["ok"] = True
    elif status == "refuted":
        if refuted_by:
            out["ok"] = True
        else:
            out["reason"] = "no refutation obligation is discharged by a certificate"
    else:
        out["ok"] = True  # unknown claims nothing; where verified is earned, the binding asks whether the claim is open
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
