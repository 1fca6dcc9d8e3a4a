"""What the report says about each claim: its outcomes read back from disk, and its standing.

The standing separates what a paper *states* (the claim's sentence) from what
a check *established* (a rung of :data:`theorems.core.LADDER`), combining the
rung a passing check earns with what the outcomes actually say: an outcome
that is not as its claim expects, or a certificate bound to an older statement,
is shown loudly rather than folded into the rung.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field

from solvers import certificates as envelope
from theorems.core import LADDER, PAPERS, Claim

CERT_SUFFIX = ".cert.json"


# short labels for badges; LADDER holds the full sentence
SHORT = {
    "proved": "proved for all parameters",
    "verified": "verified exactly up to a size",
    "searched": "searched, no counterexample",
    "open": "open conjecture",
    "refuted": "refuted with a counterexample",
    "stated": "stated, not checked",
}


@dataclass
class Certificate:
    """One certificate of an outcome: where it is, what the check said of it, and its binding."""

    kind: str
    source: str  # absolute path of the file under the outcomes folder
    relpath: str  # path inside the report's data/ folder, '/'-separated
    summary: str
    size: int
    current: bool  # bound to the installed claim's statement
    problem: str = ""


@dataclass
class Point:
    """One outcome record (a claim at one parameter point) and where its files are."""

    record: dict
    folder: str  # "<claim>/<slug>", '/'-separated
    certificates: list[Certificate] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return self.folder.split("/", 1)[1] if "/" in self.folder else self.folder

    @property
    def anchor(self) -> str:
        return "point-" + safe(self.slug)

    @property
    def as_expected(self) -> bool:
        return self.record.get("status") == self.record.get("expected")


@dataclass
class Standing:
    """The dashboard's verdict on a claim: a css key, a short label, a sentence, loud or not."""

    key: str
    label: str
    detail: str
    loud: bool = False


@dataclass
class Entry:
    """A claim with its points, its reading (module docstring) and its standing."""

    claim: Claim
    points: list[Point]
    standing: Standing
    reading: str

    @property
    def id(self) -> str:
        return self.claim.id


def safe(text: str) -> str:
    """A file-name- and anchor-safe form of a parameter slug."""
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in text)


def reading_of(claim: Claim) -> str:
    """The claim module's docstring: the reading chosen, as installed with the package."""
    module = sys.modules.get(type(claim).__module__)
    doc = (getattr(module, "__doc__", None) or type(claim).__doc__ or "").strip()
    return doc


def read_outcomes(folder: str) -> list[Point]:
    """The records of the last ``attnproof check`` written into ``folder``, each with its files.

    ``outcomes.json`` gives the list; each record's own folder is the one whose
    ``outcome.json`` holds the same record (found by content, since the record
    does not name its folder).
    """
    with open(os.path.join(folder, "outcomes.json"), encoding="utf-8") as handle:
        records = json.load(handle)
    by_content: dict[str, str] = {}
    for claim_dir in sorted(os.listdir(folder)):
        base = os.path.join(folder, claim_dir)
        if not os.path.isdir(base):
            continue
        for slug in sorted(os.listdir(base)):
            path = os.path.join(base, slug, "outcome.json")
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as handle:
                    by_content.setdefault(json.dumps(json.load(handle), sort_keys=True), f"{claim_dir}/{slug}")
    points = []
    for record in records:
        found = by_content.get(json.dumps(record, sort_keys=True))
        if found is None:  # fall back on the certificate paths: <out>/<claim>/<slug>/<file>
            paths = record.get("certificates") or []
            parts = os.path.normpath(paths[0]).split(os.sep)[-3:-1] if paths else [record["claim"], "default"]
            found = "/".join(parts)
        points.append(Point(record, found))
    return points


def attach_certificates(point: Point, folder: str, claim: Claim | None) -> None:
    """Read each certificate of ``point`` (kind, size, statement binding) from ``folder``."""
    summaries = (point.record.get("covered") or {}).get("certificates") or []
    paths = point.record.get("certificates") or []
    try:
        current_hash = claim.statement_hash() if claim is not None else None
    except Exception:  # shown on the claim's page; here every certificate just counts as unbound
        current_hash = None
    for k, recorded in enumerate(paths):
        name = os.path.basename(recorded)
        source = os.path.join(folder, *point.folder.split("/"), name)
        kind = name[3:-len(CERT_SUFFIX)] if name.endswith(CERT_SUFFIX) and name[2:3] == "-" else name
        summary = summaries[k] if len(summaries) == len(paths) and isinstance(summaries[k], str) else ""
        problem, current, size = "", False, 0
        try:
            size = os.path.getsize(source)
            cert = envelope.read(source)
            kind = cert.get("kind", kind)
            current = current_hash is not None and cert.get("statement") == current_hash
            if not current:
                problem = "bound to another statement than the installed claim's (the claim changed since the check)"
        except (OSError, envelope.CertificateError, ValueError) as exc:
            problem = f"unreadable: {exc}"
        point.certificates.append(Certificate(kind, source, f"data/{point.folder}/{name}", summary, size, current, problem))


def standing(claim: Claim, points: list[Point]) -> Standing:
    """Combine the rung a passing check earns with what the outcomes say."""
    rung = claim.established
    if not points:
        if rung == "stated":
            return Standing("stated", SHORT["stated"], "the paper states it; no check is attached")
        return Standing("not-run", "not checked in this run",
                        f"no outcome in this report; a passing check would establish: {SHORT[rung]}")
    stale = [c for p in points for c in p.certificates if c.problem]
    wrong = [p for p in points if not p.as_expected]
    if wrong:
        p = wrong[0]
        got, expected = p.record.get("status"), p.record.get("expected")
        where = f"at {p.slug}"
        if got == "refuted":
            text = f"refuted {where}: {p.record.get('message', '')}"
        elif got == "unknown":
            text = f"unknown {where}: the budget ran out, nothing is established"
        else:
            text = f"{got} {where}, although the claim expects {expected}"
        more = f" ({len(wrong)} of {len(points)} points)" if len(points) > 1 else ""
        return Standing("mismatch", f"NOT AS EXPECTED: expected {expected}, got {got}", text + more, loud=True)
    if stale:
        return Standing("mismatch", "STALE: certificates do not match the installed statement",
                        f"{len(stale)} certificate(s) {stale[0].problem}", loud=True)
    statuses = {p.record.get("status") for p in points}
    if statuses == {"refuted"}:
        return Standing("refuted", SHORT["refuted"], points[0].record.get("message", ""))
    if statuses == {"unknown"}:
        return Standing("open", SHORT["open"], "no verdict within the budget, as expected of an open conjecture")
    sizes = "; ".join(point_text(p.record.get("parameters") or {}) for p in points)
    if rung == "proved":
        return Standing("proved", SHORT["proved"], f"symbolic argument, and checked exactly at {sizes}")
    if rung in ("verified", "searched"):
        return Standing(rung, SHORT[rung], f"up to {sizes}")
    return Standing(rung, SHORT[rung], f"checked at {sizes}")


def point_text(parameters: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in sorted(parameters.items())) or "no parameters"


def paper_title(paper: str) -> str:
    return PAPERS.get(paper, "")


def collect(outcomes_folder: str, claims: dict[str, Claim]) -> tuple[list[Entry], list[Point]]:
    """Every registered claim as an entry (sorted by id), and the points of claims not installed."""
    points = read_outcomes(outcomes_folder)
    grouped: dict[str, list[Point]] = {}
    orphans = []
    for point in points:
        claim = claims.get(point.record.get("claim"))
        attach_certificates(point, outcomes_folder, claim)
        if claim is None:
            orphans.append(point)
        else:
            grouped.setdefault(claim.id, []).append(point)
    entries = []
    for claim_id in sorted(claims):
        claim = claims[claim_id]
        mine = sorted(grouped.get(claim_id, []), key=lambda p: p.folder)
        entries.append(Entry(claim, mine, standing(claim, mine), reading_of(claim)))
    return entries, orphans
