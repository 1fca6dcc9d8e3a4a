"""What the report says about each claim: its outcomes as the trusted checker judged them, and its standing.

The report shows what the trusted checker *established*, never what an
outcome file says of itself.  :func:`collect` runs
:func:`theorems.verification.verify` once over the outcomes folder (stage 1:
the isolated checker re-checks every certificate and discharges each
outcome's obligations; stage 2: the binding of each outcome to the installed
claim, its point and its obligations) and attaches to every point its
:class:`~theorems.verification.OutcomeCheck`.

The rung of a point is :func:`theorems.core.rung` of the *verified* status
and reach, and only when the outcome stands (both stages accept it);
otherwise it is "not established".  The rung of a claim combines its
points: "proved for every parameter" only when a standing verified point
reaches "all".  Steps that sympy carried out (facts named ``symbolic_*``) are
their own rung, "symbolic (sympy)", shown beside what the checker accepted
and never inside it.  Everything else an outcome file says (message,
coverage, other facts, counterexample) is shown as reported by the check,
unchecked.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from dataclasses import dataclass, field

from solvers.trusted import parse
from theorems.core import PAPERS, Claim, rung

CERT_SUFFIX = ".cert.json"
UNKNOWN_WHY = ("open", "budget", "undecided", "not established")  # the outcome format's unknown.why
RELATION_ORDER = ("reads it", "a finite step of an asymptotic", "a lemma toward it", "a tempting variant, refuted",
                  "an analogue", "a conjecture")
_MADE_AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_VERSION = re.compile(r"[0-9A-Za-z.+_-]{1,40}")
_CODE = re.compile(r"sha256:[0-9a-f]{64}")
OUTCOME = "outcome.json"
SYMBOLIC = "symbolic_"  # facts of this prefix rest on sympy: their own rung, never an obligation
NOT_ESTABLISHED = "not established"

# The rungs a report can show, in the order a reader meets them (the legend of the dashboard).
RUNGS = {
    "proved": ("proved for every parameter",
               "the trusted checker discharged every obligation, and together they imply the statement for every parameter"),
    "verified": ("verified up to …",
                 "the trusted checker discharged every obligation; they cover the sizes named, and nothing beyond"),
    "refuted": ("refuted with a certified counterexample",
                "the trusted checker discharged an obligation that contradicts the statement"),
    "open": ("open conjecture", "no verdict, as the claim expects of an open conjecture; nothing is established "
             "(what the checker discharged on the way is listed, each with its certificate)"),
    "budget": ("unknown: budget ran out", "the budget ran out before every obligation was discharged: partial, never "
               "verified; the obligations discharged so far are listed with their certificates"),
    "symbolic": ("symbolic (sympy)",
                 "a step sympy carried out (simplification, solve, assumptions): shown beside what the checker "
                 "accepted, never part of it"),
    "mismatch": ("DOES NOT STAND / NOT AS EXPECTED",
                 "an outcome the checker or the binding to the installed claim does not accept (its rung: not "
                 "established), or one not as the claim expects"),
    "unknown": ("not established", "no verdict: a solver gave up, or a step failed without a certified refutation"),
    "stale": ("STALE: made for an older statement", "the outcome was made for a statement (or obligations) other "
              "than the installed claim's: it establishes nothing about the claim as it now reads; check it again. "
              "Also said of a sentence written for another head than the one the claim now checks (a conjecture "
              "from the template whose kappa or value was edited): rewrite the sentence"),
    "not-run": ("not checked in this run", "the claim is registered but this report has no outcome for it"),
    "stated": ("stated, not checked", "the paper states it; no check is attached"),
}


@dataclass
class Certificate:
    """One certificate file of an outcome and the trusted checker's line about it (None: not seen)."""

    kind: str
    source: str  # absolute path of the file under the outcomes folder
    relpath: str  # path inside the report's data/ folder, '/'-separated
    size: int
    line: dict | None = None  # {"status", "summary", "judgment", "reason", ...} from stage 1

    @property
    def status(self) -> str:
        return str(self.line.get("status", "?")) if self.line else "not checked"

    @property
    def accepted(self) -> bool:
        return self.status == "accepted"

    @property
    def summary(self) -> str:
        """What the checker said it accepted (its own words), or why it did not."""
        if not self.line:
            return "the trusted checker did not see this file"
        if self.accepted:
            return str(self.line.get("summary", ""))
        return f"{self.status}: {self.line.get('reason', '')}"

    @property
    def judgment(self):
        return self.line.get("judgment") if self.line and self.accepted else None

    @property
    def name(self) -> str:
        return self.relpath.rsplit("/", 1)[1]


@dataclass
class Point:
    """One outcome (a claim at one parameter point), the checker's judgment of it, and its files."""

    record: dict  # the outcome file as read: shown only as "reported by the check"
    folder: str  # "<claim>/<slug>", '/'-separated
    expected: str = ""
    check: object = None  # theorems.verification.OutcomeCheck, or None when no checker judged this outcome
    problem: str = ""  # why there is no check, when there is none
    needed: list = field(default_factory=list)  # the installed claim's obligations here, when the checker listed none
    certificates: list[Certificate] = field(default_factory=list)
    installed: str = ""  # the installed claim's statement_hash() ('' when there is no installed claim)
    established: str = ""  # the installed claim's kind ("open" for an open conjecture)

    @property
    def slug(self) -> str:
        return self.folder.split("/", 1)[1] if "/" in self.folder else self.folder

    @property
    def anchor(self) -> str:
        return "point-" + safe(self.slug)

    @property
    def stands(self) -> bool:
        """Both stages accept it: the certificates discharge its obligations, which are the installed claim's."""
        return self.check is not None and self.check.ok

    @property
    def status(self) -> str:
        """The status the checker judged (the file's own word when no checker saw it)."""
        return self.check.status if self.check is not None else str(self.record.get("status", "?"))

    @property
    def reach(self) -> str:
        return self.check.reach if self.check is not None else ""

    @property
    def as_expected(self) -> bool:
        return self.stands and self.status == self.expected

    @property
    def rung(self) -> str:
        """:func:`theorems.core.rung` of the verified status and reach; "not established" unless it stands."""
        if not self.stands:
            return NOT_ESTABLISHED
        return rung(self.status, self.reach or "a size it does not state")

    @property
    def why_not(self) -> str:
        """Why the outcome does not stand, in one line ('' when it stands)."""
        if self.stands:
            return ""
        if self.check is None:
            return self.problem or "the trusted checker did not judge this outcome"
        if not self.check.checked:
            return f"the trusted checker rejects the verdict: {self.check.reason}"
        return f"the binding to the installed claim fails: {self.check.binding}"

    @property
    def obligations(self) -> list[dict]:
        """The checker's rows: {side, judgment, words, by} (by: the certificate file that discharged it).

        When the checker rejected the verdict before discharging anything, the
        installed claim's own obligations at this point, none discharged.
        """
        found = list(self.check.obligations) if self.check is not None else []
        return found or [dict(row, by=None) for row in self.needed]

    @property
    def bound(self) -> bool:
        """The obligations shown are the installed claim's own (stage 2 recomputed them)."""
        return self.check is not None and self.check.bound

    @property
    def facts(self) -> dict:
        facts = self.record.get("facts")
        return facts if isinstance(facts, dict) else {}

    @property
    def symbolic(self) -> dict:
        return {k: v for k, v in self.facts.items() if str(k).startswith(SYMBOLIC)}

    @property
    def made(self) -> dict | None:
        """When and with which code the outcome was made (``made`` of the outcome file), if well formed."""
        made = self.record.get("made")
        if not isinstance(made, dict):
            return None
        at, version, code = made.get("at"), made.get("version"), made.get("code")
        if not (isinstance(at, str) and _MADE_AT.fullmatch(at)):
            return None
        return {"at": at,
                "version": version if isinstance(version, str) and _VERSION.fullmatch(version) else "?",
                "code": code if isinstance(code, str) and _CODE.fullmatch(code) else ""}

    @property
    def made_text(self) -> str:
        made = self.made
        if made is None:
            return "made: not recorded (an outcome file from before the field existed)"
        code = f", code {made['code'][:len('sha256:') + 12]}…" if made["code"] else ""
        return f"made {made['at'].replace('T', ' ').replace('Z', ' UTC')} with attnproof {made['version']}{code}"

    @property
    def stale(self) -> bool:
        """Made for another statement than the installed claim's (its ``statement`` differs from ``statement_hash()``)."""
        return bool(self.installed) and self.record.get("statement") != self.installed

    @property
    def unknown_why(self) -> str:
        """Why an unknown outcome is unknown: "open", "budget", "undecided" or "not established" ('' unless unknown).

        The outcome file's ``unknown.why`` when it has one (a label, never a
        verdict); for older files, from the claim's kind and the message.
        """
        if self.status != "unknown":
            return ""
        unknown = self.record.get("unknown")
        why = unknown.get("why") if isinstance(unknown, dict) else None
        if why in UNKNOWN_WHY:
            return why
        if self.established == "open":
            return "open"
        return "budget" if "budget ran out" in str(self.record.get("message", "")) else "not established"

    @property
    def discharged(self) -> list[dict]:
        """The verify and refute rows the trusted checker discharged (each names its certificate)."""
        return [o for o in self.obligations if o.get("by")] if self.stands else []

    @property
    def reported_discharged(self) -> list[dict]:
        """The outcome file's own ``discharged`` list, well-typed rows only: {side, obligation, certificate}."""
        rows = self.record.get("discharged")
        found = []
        for row in rows if isinstance(rows, list) else []:
            if (isinstance(row, dict) and row.get("side") in ("verify", "refute") and isinstance(row.get("obligation"), str)
                    and (row.get("certificate") is None or isinstance(row.get("certificate"), str))):
                found.append({"side": row["side"], "obligation": row["obligation"], "certificate": row.get("certificate")})
        return found

    @property
    def disagreements(self) -> list[str]:
        """Where the outcome file claims a discharge the trusted checker does not find (empty when they agree, and
        when the checker never examined the obligations — a certificate refused first, say: then it found nothing
        either way, and :attr:`why_not` says why)."""
        if self.check is None or not self.check.obligations:
            return []
        checked = {(o.get("side"), str(o.get("words", ""))): o.get("by") for o in self.obligations}
        out = []
        for row in self.reported_discharged:
            by = checked.get((row["side"], row["obligation"]))
            if row["certificate"] and by != row["certificate"]:
                out.append(f"the outcome file says “{row['obligation']}” is discharged by {row['certificate']}; "
                           f"the trusted checker finds {('it discharged by ' + by) if by else 'it not discharged'}")
        return out

    @property
    def partial(self) -> bool:
        """Unknown, standing, with some obligation discharged: partial work, each piece certified, never verified."""
        return self.status == "unknown" and bool(self.discharged)

    @property
    def status_label(self) -> str:
        """The status as a reader needs it: "unknown" says why (open, budget ran out, ...) and whether partial."""
        if self.status != "unknown":
            return self.status
        label = {"open": "unknown: open", "budget": "unknown: budget ran out", "undecided": "unknown: undecided"}.get(
            self.unknown_why, "unknown: not established")
        return label + (" (partial)" if self.partial else "")

    @property
    def parameters(self) -> dict:
        found = self.check.parameters if self.check is not None else self.record.get("parameters")
        return found if isinstance(found, dict) else {}


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

    @property
    def symbolic(self) -> list[str]:
        """The names of the sympy steps reported at any point (their own rung)."""
        return sorted({k for p in self.points for k in p.symbolic})


def safe(text: str) -> str:
    """A file-name- and anchor-safe form of a parameter slug."""
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in text)


def reading_of(claim: Claim) -> str:
    """The claim module's docstring: the reading chosen, as installed with the package."""
    module = sys.modules.get(type(claim).__module__)
    doc = (getattr(module, "__doc__", None) or type(claim).__doc__ or "").strip()
    return doc


def _load(path: str):
    """An outcome file through the checker's bounded parser: (record, problem)."""
    try:
        record = parse.load(path, floats=True)  # its wall-clock seconds, kept as text
    except parse.Refused as exc:
        return {}, f"the outcome file cannot be read: {exc}"
    return (record, "") if isinstance(record, dict) else ({}, "the outcome file is not a JSON object")


def read_outcomes(folder: str) -> list[Point]:
    """Every outcome of the check in ``folder``: each ``<claim>/<slug>/outcome.json`` (what the checker
    judges), then any record listed in ``outcomes.json`` that has no such file (it cannot stand)."""
    points, seen = [], set()
    for claim_dir in sorted(os.listdir(folder)):
        base = os.path.join(folder, claim_dir)
        if not os.path.isdir(base) or os.path.islink(base):
            continue
        for slug in sorted(os.listdir(base)):
            path = os.path.join(base, slug, OUTCOME)
            if os.path.isfile(path):
                record, problem = _load(path)
                points.append(Point(record, f"{claim_dir}/{slug}", problem=problem))
                seen.add(_identity(record))
    listed, _ = _load_list(os.path.join(folder, "outcomes.json"))
    by_folder = {p.folder: p for p in points}
    for record in listed:
        if _identity(record) in seen:
            continue
        where = f"{record.get('claim')}/{_slug_of(record)}"
        if where in by_folder and not by_folder[where].record:  # its own file is unreadable: name it by the listing
            by_folder[where].record = record
        else:
            points.append(Point(record, where, problem=f"outcomes.json lists it, but there is no {where}/{OUTCOME}"))
        seen.add(_identity(record))
    return points


def _load_list(path: str) -> tuple[list[dict], str]:
    try:
        listed = parse.load(path, floats=True)
    except parse.Refused as exc:
        return [], str(exc)
    return ([r for r in listed if isinstance(r, dict)], "") if isinstance(listed, list) else ([], "not a list")


def _identity(record: dict) -> str:
    return json.dumps([record.get("claim"), record.get("parameters")], sort_keys=True)


def _slug_of(record: dict) -> str:
    paths = record.get("certificates") or []
    if paths and isinstance(paths[0], str):
        return os.path.basename(os.path.dirname(paths[0])) or "default"
    return "default"


def attach_certificates(point: Point, folder: str, lines: dict[str, dict]) -> None:
    """The certificate files the outcome lists, each with the checker's line about it (by real path)."""
    paths = point.record.get("certificates")
    for recorded in paths if isinstance(paths, list) else []:
        name = os.path.basename(str(recorded))
        source = os.path.join(folder, *point.folder.split("/"), name)
        kind = name[3:-len(CERT_SUFFIX)] if name.endswith(CERT_SUFFIX) and name[2:3] == "-" else name
        line = lines.get(os.path.realpath(source))
        if line and line.get("status") == "accepted":
            kind = str(line.get("kind", kind))
        size = os.path.getsize(source) if os.path.isfile(source) else 0
        point.certificates.append(Certificate(kind, source, f"data/{point.folder}/{name}", size, line))


def sentence_written_for_another(claim: Claim) -> str:
    """Why the claim's sentence no longer describes its witness ('' when it does, or when the claim does not say).

    A conjecture made from the template records beside its sentence the digest of the head the sentence was
    written for (``sentence_head``) and computes the digest of the head it now has (``head_digest()``): a head
    edited without the sentence leaves a sentence about another head, which the report says loudly."""
    recorded = getattr(claim, "sentence_head", None)
    compute = getattr(claim, "head_digest", None)
    if not isinstance(recorded, str) or not recorded or not callable(compute):
        return ""
    try:
        now = compute()
    except Exception as exc:  # a head that cannot be digested cannot be said to match its sentence
        return f"the head's digest cannot be computed ({type(exc).__name__}: {exc}); the sentence is unchecked"
    if now == recorded:
        return ""
    return (f"the sentence was written for the head {recorded[:19]}…, but the head is now {now}: rewrite the sentence "
            f"(and the title) for the new head, then set SENTENCE_HEAD = \"{now}\" in the claim's module")


def standing(claim: Claim, points: list[Point]) -> Standing:
    """The claim's rung from its points: what the checker accepted, never the class attribute.

    Loud when any outcome does not stand (with the reason) or is not what the
    claim expects.  Otherwise: every point refuted -> refuted; every point
    unknown -> open conjecture (for an open conjecture) or not established;
    every point verified -> "proved for every parameter" when some point's
    discharged obligations reach every parameter, else "verified up to" the
    reach of each point.
    """
    written_for = sentence_written_for_another(claim)
    if written_for:
        return Standing("stale", "STALE SENTENCE: written for another head", written_for, loud=True)
    if not points:
        if claim.established == "stated":
            return Standing("stated", RUNGS["stated"][0], "the paper states it; no check is attached")
        return Standing("not-run", RUNGS["not-run"][0], "no outcome in this report: nothing is established here")

    def many(some: list) -> str:
        return f" ({len(some)} of {len(points)} points)" if len(points) > 1 else ""

    stale = [p for p in points if p.stale]
    if stale:
        p = stale[0]
        return Standing("stale", RUNGS["stale"][0],
                        f"at {p.slug}: the outcome was made for another statement than the installed claim's "
                        f"({p.made_text}); check it again: attnproof check {claim.id}" + many(stale), loud=True)
    fallen = [p for p in points if not p.stands]
    if fallen:
        p = fallen[0]
        return Standing("mismatch", "DOES NOT STAND: not established",
                        f"at {p.slug}: {p.why_not}" + many(fallen), loud=True)
    wrong = [p for p in points if p.status != p.expected]
    if wrong:
        p = wrong[0]
        if p.status == "refuted":
            found = [o["words"] for o in p.obligations if o["side"] == "refute" and o["by"]]
            text = f"refuted at {p.slug}: certified that {found[0]}" if found else f"refuted at {p.slug}"
        elif p.status == "unknown":
            text = f"{p.status_label} at {p.slug}: " + _partial_text(p)
        else:
            text = f"{p.status} at {p.slug}, although the claim expects {p.expected}"
        return Standing("mismatch", f"NOT AS EXPECTED: expected {p.expected}, got {p.status_label}",
                        text + many(wrong), loud=True)
    statuses = {p.status for p in points}
    if statuses == {"refuted"}:
        certified = [next((o["words"] for o in p.obligations if o["side"] == "refute" and o["by"]), "") for p in points]
        return Standing("refuted", RUNGS["refuted"][0], "; ".join(f"at {p.slug}: {w}" for p, w in zip(points, certified)))
    if statuses == {"unknown"}:
        partial = "; ".join(f"at {p.slug}: {_partial_text(p)}" for p in points if p.partial)
        if claim.established == "open":
            return Standing("open", RUNGS["open"][0], "no verdict, as expected of an open conjecture"
                            + (f"; on the way, {partial}" if partial else ""))
        if all(p.unknown_why == "budget" for p in points):
            return Standing("budget", RUNGS["budget"][0], partial or "nothing was discharged before it ran out")
        return Standing("unknown", NOT_ESTABLISHED, "no verdict, as the claim expects" + (f"; {partial}" if partial else ""))
    full = [p for p in points if p.reach == "all"]
    if full:
        return Standing("proved", RUNGS["proved"][0],
                        f"the obligations discharged at {', '.join(p.slug for p in full)} cover every parameter")
    reaches = list(dict.fromkeys(p.reach or "a size it does not state" for p in points))
    return Standing("verified", "verified up to " + "; ".join(reaches), "checked at " + ", ".join(p.slug for p in points))


def _partial_text(point: Point) -> str:
    """How much of an unknown outcome the checker discharged: "2 of 5 obligations discharged" or "nothing"."""
    rows = [o for o in point.obligations if o.get("side") == "verify"]
    done = [o for o in rows if o.get("by")]
    if not done:
        return "nothing is established"
    return f"partial: {len(done)} of {len(rows)} obligation(s) discharged, each by its certificate; never verified"


def needed(claim: Claim, parameters: dict) -> list[dict]:
    """The installed claim's obligations at ``parameters`` as rows {side, judgment, words}; [] if it cannot say."""
    try:
        stated = claim.obligations(claim.point(parameters)).to_json()
    except Exception:  # a claim under construction, or parameters that are not a point of it
        return []
    return [dict(o, side=side) for side in ("verify", "refute") for o in stated[side]]


def _statement_hash(claim: Claim) -> str:
    try:
        return claim.statement_hash()
    except Exception:  # a claim whose statement cannot be built: no outcome can be bound to it anyway
        return "(the installed statement cannot be built)"


def point_text(parameters: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in sorted(parameters.items())) or "no parameters"


def paper_title(paper: str) -> str:
    return PAPERS.get(paper, "")


def collect(outcomes_folder: str, claims: dict[str, Claim], verification) -> tuple[list[Entry], list[Point]]:
    """Every registered claim as an entry (sorted by id), and the points of claims not installed.

    ``verification`` is what :func:`theorems.verification.verify` returned for
    ``outcomes_folder``: each point gets its outcome check and each
    certificate the checker's line about it.
    """
    root = os.path.realpath(outcomes_folder)
    prefixes = sorted({root + os.sep, os.path.abspath(outcomes_folder) + os.sep}, key=len, reverse=True)

    def relative(text) -> str:
        for prefix in prefixes:
            text = str(text).replace(prefix, "")
        return text

    lines = {os.path.realpath(c["path"]): c for c in verification.certificates if isinstance(c.get("path"), str)}
    checks = {os.path.realpath(o.path): o for o in verification.outcomes}
    grouped: dict[str, list[Point]] = {}
    orphans = []
    for point in read_outcomes(outcomes_folder):
        point.check = checks.get(os.path.realpath(os.path.join(root, *point.folder.split("/"), OUTCOME)))
        if point.check is not None:  # paths in reasons are shown relative to the outcomes folder
            point.check.reason, point.check.binding = relative(point.check.reason), relative(point.check.binding)
        elif not point.problem:
            point.problem = verification.error or "the trusted checker did not judge this outcome"
        attach_certificates(point, outcomes_folder, lines)
        name = point.check.claim if point.check is not None and point.check.claim else point.record.get("claim")
        claim = claims.get(name) if isinstance(name, str) else None
        if claim is None:
            orphans.append(point)
        else:
            point.expected, point.needed = claim.expected, needed(claim, point.parameters)
            point.installed, point.established = _statement_hash(claim), claim.established
            grouped.setdefault(claim.id, []).append(point)
    entries = []
    for claim_id in sorted(claims):
        claim = claims[claim_id]
        mine = sorted(grouped.get(claim_id, []), key=lambda p: p.folder)
        entries.append(Entry(claim, mine, standing(claim, mine), reading_of(claim)))
    return entries, orphans


@dataclass
class Sentence:
    """One sentence of a paper (or of a conjecture's author) and the claims that serve it, each by its relation."""

    text: str
    source: str
    paper: str
    entries: list[Entry]

    @property
    def anchor(self) -> str:
        return "sentence-" + safe(self.entries[0].id)


def relation_of(claim: Claim) -> str:
    """How the claim serves its sentence: ``Claim.relation``, or, for a claim that repeats the sentence's
    experiment on other data, its ``analogue`` ("an analogue on all-MiniLM-L6-v2 ..., not the paper's ... set")."""
    analogue = getattr(claim, "analogue", "")
    if isinstance(analogue, str) and analogue:
        return analogue
    relation = getattr(claim, "relation", "reads it")
    return relation if isinstance(relation, str) and relation else "reads it"


def source_of(claim: Claim) -> str:
    """Who states the claim: ``Claim.source`` when the claim has one, else its paper."""
    try:
        source = getattr(claim, "source", "")
    except Exception:  # a source property that fails: fall back to the paper
        source = ""
    if isinstance(source, str) and source:
        return source
    return f"arXiv {claim.paper}" if claim.paper else "unattributed"


def stated_by_paper(claim: Claim) -> bool:
    """True when the claim's sentence is its paper's own: the source is that paper (``arXiv P``) and the claim
    is not a conjecture.  A user's conjecture about a paper is never shown as something the paper states."""
    source = " ".join(source_of(claim).replace("arXiv:", "arXiv ").split())
    return bool(claim.paper) and source == f"arXiv {claim.paper}" and relation_of(claim) != "a conjecture"


def attribution(claim: Claim) -> tuple[str, str]:
    """How a claim page names its sentence: ``(heading, what the paper is to it)``.

    A paper's sentence: "What the paper states" and the paper; anyone else's: "Stated by <source>" and the
    paper only as what the sentence is about ("about arXiv:P"), after who states it."""
    if stated_by_paper(claim):
        return "What the paper states", f"arXiv:{claim.paper}"
    source = source_of(claim)
    heading = "The sentence (its source is not given)" if source == "unattributed" else f"Stated by {source}"
    return heading, f"about arXiv:{claim.paper}" if claim.paper else ""


def _abstract_order() -> dict[str, int]:
    """Where each sentence stands in its abstract: the order of the string constants of the claim packages
    (``theorems.kernel_rank``, ``theorems.softmax_rank`` hold the abstracts' sentences verbatim, in order)."""
    order: dict[str, int] = {}
    for name in ("theorems.kernel_rank", "theorems.softmax_rank"):
        module = sys.modules.get(name)
        for key, value in vars(module).items() if module else ():
            if key.isupper() and isinstance(value, str) and value not in order:
                order[value] = len(order)
    return order


def sentences(entries: list[Entry]) -> list[Sentence]:
    """Each sentence once, in the abstracts' order (papers in turn, then sentences of no abstract, by text);
    beneath it its claims, by relation (reads it, finite steps, lemmas, refuted variants, conjectures), then id."""
    order = _abstract_order()
    grouped: dict[tuple[str, str], list[Entry]] = {}
    for e in entries:
        grouped.setdefault((e.claim.paper, e.claim.sentence), []).append(e)
    found = []
    for (paper, text), mine in grouped.items():
        mine.sort(key=lambda e: (RELATION_ORDER.index(relation_of(e.claim)) if relation_of(e.claim) in RELATION_ORDER
                                 else len(RELATION_ORDER), e.id))
        sources = list(dict.fromkeys(source_of(e.claim) for e in mine))
        found.append(Sentence(text, "; ".join(sources), paper, mine))
    return sorted(found, key=lambda s: (not s.paper, s.paper, s.text not in order, order.get(s.text, 0), s.text,
                                        s.entries[0].id))  # sentences of no paper (a user's conjectures) last


# ------------------------------------------------------------ the first screen

READING = ("reads it", "a finite step of an asymptotic")  # the claims whose badge speaks to the sentence
ROLES = {  # how the first screen groups the claims: the papers' own claims apart from everything else
    "paper": "the papers' claims (each reads a sentence of its paper, or checks a finite step of it)",
    "lemma": "lemmas toward them",
    "variant": "tempting variants (refuting one says nothing against its paper)",
    "analogue": "analogues (a sentence's experiment repeated on other data, not the paper's)",
    "conjecture": "conjectures (worked examples and open questions, not the papers' statements)",
}


def role_of(claim: Claim) -> str:
    """The claim's group on the first screen: 'paper', 'lemma', 'variant' or 'conjecture'."""
    relation = relation_of(claim)
    if relation == "a conjecture" or not stated_by_paper(claim):
        return "conjecture"
    if relation.startswith("an analogue"):
        return "analogue"
    if relation == "a tempting variant, refuted":
        return "variant"
    if relation == "a lemma toward it":
        return "lemma"
    return "paper"


def headline(sentence: Sentence) -> Standing:
    """One badge for a paper's sentence, summarising only the claims that read it (or check a finite step of it):
    lemmas, tempting variants and conjectures under it never colour it."""
    readers = [e for e in sentence.entries if relation_of(e.claim) in READING and stated_by_paper(e.claim)]
    if not readers:
        if any(role_of(e.claim) == "analogue" for e in sentence.entries):
            return Standing("not-run", "not checked on the paper's data: an analogue only",
                            "an analogue repeats the experiment on other data; its badge is its own")
        return Standing("not-run", "no claim reads it directly", "only lemmas, variants or conjectures serve it")
    n = len(readers)
    loud = [e for e in readers if e.standing.loud]
    if loud:
        return Standing("mismatch", f"NOT ESTABLISHED: {len(loud)} of {n} reading claim(s) do not stand as expected",
                        ", ".join(e.id for e in loud), loud=True)
    refuted = [e for e in readers if e.standing.key == "refuted"]
    if refuted:
        return Standing("refuted", f"refuted: {len(refuted)} of {n} reading claim(s)", ", ".join(e.id for e in refuted))
    proved = [e for e in readers if e.standing.key == "proved"]
    verified = [e for e in readers if e.standing.key == "verified"]
    if len(proved) == n:
        return Standing("proved", "proved for every parameter" + (f" ({n} claims)" if n > 1 else ""), "")
    if len(proved) + len(verified) == n:
        label = (f"verified at finite sizes ({n} claim{'s' if n > 1 else ''}"
                 + (f", {len(proved)} proved for every parameter" if proved else "") + ")")
        return Standing("verified", label, "")
    checked = len(proved) + len(verified)
    return Standing("unknown", f"{checked} of {n} reading claim(s) verified; the rest not established here",
                    ", ".join(e.id for e in readers if e.standing.key not in ("proved", "verified")))


# ------------------------------------------------------------ the checker's words, for a reader

# How an exhaustive certificate enumerated its sequences, in the checker's one-word code.
_ENUMERATION = {"none": "each evaluated, no symmetry used", "coordinates": "up to permutations of the coordinates",
                "context": "up to the order of the context"}


def checker_words(text: str) -> str:
    """The trusted checker's summary of a certificate as a reader reads it: its one-word codes in words
    ("4096 sequences (none)" reads "4096 sequences (each evaluated, no symmetry used)") and a Python dict it
    prints as ``name = value`` pairs.  Only words change: every number and judgment stays as the checker said."""
    text = re.sub(r"(\d+ sequences) \((none|coordinates|context)\)",
                  lambda m: f"{m.group(1)} ({_ENUMERATION[m.group(2)]})", str(text))

    def pairs(match) -> str:
        try:
            value = ast.literal_eval(match.group())
        except (ValueError, SyntaxError):
            return match.group()
        if not isinstance(value, dict):
            return match.group()
        return "(" + ", ".join(f"{k} = {v}" for k, v in value.items()) + ")"

    return re.sub(r"\{'[^{}]*\}", pairs, text)
