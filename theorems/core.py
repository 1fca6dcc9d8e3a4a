"""Claims, their parameters, the outcome of a check, and the registry.

A :class:`Claim` is one sentence of a paper made precise: a sympy
:class:`Statement` (hypotheses and conclusion, quantifiers in words beside
them), named :class:`Parameter` ranges with defaults small enough for the
default run, a cost estimate, an expectation, an explicit witness, and a
``check`` that returns an :class:`Outcome`.

An outcome is ``verified`` or ``refuted`` only with certificates that
:mod:`solvers.trusted` re-checks; ``unknown`` is the honest answer when a
budget runs out, never a proof.  Inside ``check`` a claim collects its work in
an :class:`Evidence` object, which turns into the outcome.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import pkgutil
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from solvers import certificates, lp, trusted
from solvers.lazy import sympy  # loaded on first use: `attnproof list` renders no statement
from solvers.trusted.core import discharges, encode
from theorems import registry as registration
from theorems.registry import BUILTIN_PACKAGES, ENTRY_POINT_GROUP, MODULES_VARIABLE, RegistrationError  # noqa: F401  (re-exported)

STATUSES = ("verified", "refuted", "unknown")

# The rungs a claim aims at, strongest first.  What an outcome *earned* is
# computed by :func:`rung` from its discharged obligations, never from this.
LADDER = {
    "proved": "proved for every parameter (the discharged obligations cover every parameter)",
    "verified": "verified exactly up to a stated size",
    "searched": "searched with no counterexample (exhaustive or seeded random)",
    "open": "open conjecture",
    "refuted": "refuted with a counterexample",
    "stated": "stated, not checked",
}
# How a claim serves its paper sentence (the report groups claims under their sentence by it).
RELATIONS = ("reads it", "a lemma toward it", "a tempting variant, refuted", "a finite step of an asymptotic",
             "an analogue, not the paper's data", "a conjecture")
PAPERS = {
    "2608.11427": "Three Tokens Force Exponential Feature Rank in Nonnegative Kernel Attention",
    "2608.28150": "The Approximation Rank of Softmax Attention",
}


_RATIONAL_TEXT = re.compile(r"-?[0-9]{1,40}(/[0-9]{1,40}|\.[0-9]{1,40})?")


class ParameterError(ValueError):
    """A parameter value outside its allowed range (a usage error: exit 2)."""


class Refused(ValueError):
    """A request whose cost estimate exceeds the budget; nothing was started."""


# ---------------------------------------------------------------- parameters


@dataclass(frozen=True)
class Parameter:
    """A named parameter: an integer or a rational in the range [low, high] (or [low, high) when
    ``high_open``: the advertised bounds are exactly what :meth:`parse` accepts).

    ``size`` says whether the parameter is a size the check covers (token bits,
    lengths, degrees, instance sizes): sizes are what "covered" shows.  By
    default an integer parameter is a size unless it is a 0/1 flag or named
    ``seed``; a rational is a setting (a temperature, a tolerance), not a size.
    Claims mark other settings (a search's rounds, a solver's seconds, a
    precision in bits) ``size=False``.

    **A size is bound**: ``claim.obligations(point)`` states its value, so a
    point with another value has other obligations and an outcome relabelled
    to it does not bind (``attnproof verify``, stage 2), and the certificates
    of one value do not discharge the judgments of a larger one.  A parameter
    that sizes work whose judgment no obligation can state is therefore a
    setting (``size=False``), shown as part of the point but never as covered:
    a sympy step, a computation no certificate checks (reported as an
    ``_unchecked`` fact), a statistic, or certified work whose judgment
    another obligation already implies (a direct refutation at m = 5 beside
    the one at m = 4 that covers every m >= 4).
    ``tests/theorems/test_parameters_bound.py`` holds every claim to this.
    """

    name: str
    default: Any
    low: Any
    high: Any
    doc: str
    kind: type = int
    high_open: bool = False
    size: bool | None = None

    @property
    def is_size(self) -> bool:
        if self.size is not None:
            return self.size
        return self.kind is int and self.name != "seed" and not (self.low == 0 and self.high == 1)

    def allowed(self) -> str:
        what = "an integer" if self.kind is int else "a rational"
        return f"{what} in [{self.low}, {self.high}{')' if self.high_open else ']'}"

    def bounds(self) -> dict:
        """The range as data (``list --json``): type, low, high, whether high is excluded, exact numbers encoded."""
        return {"type": "integer" if self.kind is int else "rational", "low": encode(self.low), "high": encode(self.high),
                "high_open": self.high_open, "size": self.is_size}

    def parse(self, value, claim_id: str = "") -> Any:
        where = f" of {claim_id}" if claim_id else ""
        try:
            if self.kind is int:
                if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                    raise ValueError
                parsed = int(value) if not isinstance(value, str) else int(value.strip(), 10)
            else:
                if isinstance(value, float):
                    raise ValueError
                # p/q or a plain decimal, bounded: never an exponent (Fraction("1e1000000000") computes 10^(10^9))
                text = value.strip() if isinstance(value, str) else str(value)
                if not _RATIONAL_TEXT.fullmatch(text):
                    raise ValueError
                parsed = Fraction(text)
        except (ValueError, TypeError, ZeroDivisionError):
            raise ParameterError(
                f"parameter {self.name}{where} must be {self.allowed()}, got {str(value)[:40]!r}"
            ) from None
        if not (self.low <= parsed <= self.high) or (self.high_open and parsed == self.high):
            raise ParameterError(
                f"parameter {self.name}{where} must be {self.allowed()}, got {str(value)[:40]!r}"
            )
        return parsed


# ----------------------------------------------------------------- statement


@dataclass(frozen=True)
class Statement:
    """Hypotheses and a conclusion as sympy objects, each with its words.

    The words carry the quantifiers ("for every m >= 1 and every sequence X
    of length 2"); the sympy objects carry the mathematics and render to LaTeX.
    """

    hypotheses: tuple[tuple[sympy.Basic, str], ...]
    conclusion: tuple[sympy.Basic, str]

    def __post_init__(self):
        # sympy evaluates e.g. Contains(m, Naturals) to True for a positive integer
        # symbol; a hypothesis that collapsed to a truth value says nothing.
        for expr, words in (*self.hypotheses, self.conclusion):
            if isinstance(expr, sympy.logic.boolalg.BooleanAtom):
                raise ValueError(f"the formula for {words!r} evaluated to {expr}; build it with evaluate=False")

    def render(self) -> str:
        lines = [f"assume  {sympy.latex(expr)}  ({words})" for expr, words in self.hypotheses]
        expr, words = self.conclusion
        lines.append(f"then    {sympy.latex(expr)}  ({words})")
        return "\n".join(lines)


# ---------------------------------------------------------------------- plot


@dataclass(frozen=True)
class Plot:
    """A figure as data; the report draws it.  Floats are fine here: plots show, never decide.

    ``series`` holds ``(label, xs, ys)`` triples; ``kind`` is "line", "scatter" or "step".
    """

    name: str
    title: str
    xlabel: str
    ylabel: str
    series: tuple[tuple[str, tuple, tuple], ...]
    logx: bool = False
    logy: bool = False
    kind: str = "line"
    note: str = ""


# --------------------------------------------------------------- obligations


def judgment(name: str, **fields) -> dict:
    """A judgment in the trusted checker's vocabulary (``solvers.trusted.core.RULES``), canonical."""
    return encode({"judgment": name, **fields})


@dataclass(frozen=True)
class Obligation:
    """One judgment a verdict needs, with the same in words."""

    judgment: dict
    words: str

    def to_json(self) -> dict:
        return {"judgment": encode(self.judgment), "words": self.words}


def obligation(words: str, name: str, **fields) -> Obligation:
    return Obligation(judgment(name, **fields), words)


@dataclass(frozen=True)
class Obligations:
    """What a verdict at one parameter point rests on, in the checker's terms.

    ``verify``: every one must be discharged for ``verified``; ``refute``:
    any one discharged makes ``refuted``.  ``reach`` says what the ``verify``
    obligations establish once discharged: ``"all"`` when together they
    imply the statement for every parameter (the rung "proved"), otherwise
    the sizes they cover, e.g. ``"m <= 3, length 3"`` ("verified up to").
    """

    verify: tuple[Obligation, ...] = ()
    refute: tuple[Obligation, ...] = ()
    reach: str = ""

    def to_json(self) -> dict:
        return {"verify": [o.to_json() for o in self.verify], "refute": [o.to_json() for o in self.refute], "reach": self.reach}


UNKNOWN_WHY = {  # why an outcome is unknown (the outcome file's "unknown.why"), in words
    "budget": "not established: the budget ran out",
    "open": "open conjecture: not established",
    "undecided": "not established: a solver gave up",
    "not established": "not established",
}


def rung(status: str, reach: str, unknown: dict | None = None, discharged: list | None = None) -> str:
    """The rung an outcome earned: from its status and what its discharged obligations reach.

    An unknown outcome earns no rung; it says why (``unknown["why"]``) and,
    when some obligations were discharged (``partial``), how many: partial,
    never verified.
    """
    if status == "verified":
        return "proved for every parameter" if reach == "all" else f"verified up to {reach}"
    if status == "unknown" and unknown:
        words = UNKNOWN_WHY.get(unknown.get("why"), "not established")
        if unknown.get("partial") and discharged is not None:
            verify = [d for d in discharged if d["side"] == "verify"]
            done = sum(1 for d in verify if d["certificate"])
            # an open conjecture's obligations are its cases up to the sizes checked: evidence, not a part of a proof
            words += (f" ({done} of {len(verify)} cases checked discharged)" if unknown.get("why") == "open"
                      else f" (partial: {done} of {len(verify)} verify obligations discharged)")
        return words
    return {"refuted": "refuted with a certified counterexample", "unknown": "not established"}.get(status, status)


def first_discharging(judgments: list[tuple[str, dict]], needed: Obligation) -> str | None:
    """The label of the first accepted judgment that discharges ``needed``, or None."""
    return next((label for label, j in judgments if discharges(j, needed.judgment)), None)


# ------------------------------------------------------------------- outcome

OUTCOME_FORMAT = "attnproof-outcome/1"  # the outcome file's "format"
CERT_SUFFIX = ".cert.json"
_CODE_SUFFIXES = (".py", ".in", ".json")  # the sources and package data a verdict's code consists of


def certificate_name(index: int, kind: str) -> str:
    """The file name of an outcome's ``index``-th certificate, in its point folder."""
    return f"{index:02d}-{kind}{CERT_SUFFIX}"


_CODE_DIGEST: list[str] = []


def code_digest() -> str:
    """``sha256:`` of the installed ``theorems`` and ``solvers`` sources (and package data), by relative path.

    Two outcomes with the same digest were made by the same code, whatever
    the version number says.
    """
    if _CODE_DIGEST:
        return _CODE_DIGEST[0]
    import hashlib

    import solvers
    import theorems

    digest = hashlib.sha256()
    for package in (solvers, theorems):
        root = os.path.dirname(os.path.abspath(package.__file__))
        found = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            found += [os.path.join(folder, n) for n in names if n.endswith(_CODE_SUFFIXES)]
        for path in sorted(found):
            rel = os.path.join(package.__name__, os.path.relpath(path, root)).replace(os.sep, "/")
            with open(path, "rb") as handle:
                digest.update(rel.encode() + b"\0" + handle.read() + b"\0")
    _CODE_DIGEST.append("sha256:" + digest.hexdigest())
    return _CODE_DIGEST[0]


def made_now() -> dict:
    """When and by which code an outcome was made: UTC to the second, package version, code digest."""
    from datetime import datetime, timezone

    from theorems import __version__

    at = datetime.now(timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"at": at, "version": __version__, "code": code_digest()}


@dataclass
class Outcome:
    """The result of checking one claim at one parameter point.

    ``unknown`` is None unless the status is unknown; then ``{"why", "partial"}``
    (why: "budget", "open", "undecided" or "not established"; partial: some
    obligation was discharged), and ``"error": {"type", "message", "where"}``
    when the claim's own code raised (:func:`raised`).  ``discharged`` has one
    entry per obligation of the claim at the point, ``{"side", "obligation",
    "certificate"}``, the certificate a file name in the point folder or None.
    ``traceback`` (the raised exception's, for ``check --debug``) travels with
    the object only: it is no part of the outcome file.
    """

    claim: str
    status: str
    expected: str
    parameters: dict
    covered: dict = field(default_factory=dict)
    seconds: float = 0.0
    certificates: list = field(default_factory=list)  # envelopes (dicts)
    facts: dict = field(default_factory=dict)
    message: str = ""
    counterexample: dict | None = None
    statement: str = ""
    obligations: dict = field(default_factory=lambda: Obligations().to_json())
    unknown: dict | None = None
    discharged: list = field(default_factory=list)
    made: dict = field(default_factory=made_now)
    traceback: str = field(default="", repr=False)

    @property
    def as_expected(self) -> bool:
        """The status the claim expects, reached by its check (a check whose code raised never is)."""
        return self.status == self.expected and not self.error

    @property
    def error(self) -> dict | None:
        """``{"type", "message", "where"}`` when the claim's code raised, else None."""
        return (self.unknown or {}).get("error") if self.status == "unknown" else None

    @property
    def certificate_names(self) -> list[str]:
        """The certificates' file names, relative to the point folder (where ``attnproof check`` writes them)."""
        return [certificate_name(k, cert["kind"]) for k, cert in enumerate(self.certificates)]

    def to_json(self) -> dict:
        """The outcome file and ``attnproof check --json`` (exact numbers as ints or "p/q"); see docs/cli.md."""
        exact = certificates.encode(
            {
                "claim": self.claim,
                "status": self.status,
                "expected": self.expected,
                "parameters": self.parameters,
                "covered": self.covered,
                "facts": self.facts,
                "message": self.message,
                "counterexample": self.counterexample,
                "statement": self.statement,
                "obligations": self.obligations,
                "rung": rung(self.status, self.obligations.get("reach", ""), self.unknown, self.discharged),
                "unknown": self.unknown if self.status == "unknown" else None,
                "discharged": self.discharged,
            }
        )
        return {"format": OUTCOME_FORMAT, **exact, "made": dict(self.made), "seconds": round(self.seconds, 3),
                "certificates": self.certificate_names}


class Budget:
    """A wall-clock allowance; loops poll :meth:`expired` and give up honestly."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.start = time.monotonic()

    def expired(self) -> bool:
        return self.seconds is not None and time.monotonic() - self.start > self.seconds

    def remaining(self) -> float | None:
        if self.seconds is None:
            return None
        return max(0.0, self.seconds - (time.monotonic() - self.start))


class OutOfBudget(Exception):
    """Raised inside a check when its budget runs out; the outcome is unknown."""


class Evidence:
    """What a check established: facts, coverage, certificates, a first failure.

    The outcome is decided by the obligations its certificates discharge
    (:meth:`outcome`); failures, undecided steps and a budget that ran out
    only explain an ``unknown``.
    """

    def __init__(self, claim: "Claim", point: dict, budget: Budget):
        self.claim, self.point, self.budget = claim, point, budget
        self.facts: dict = {}
        self.covered: dict = {}
        self.certificates: list[dict] = []
        self.judgments: list[tuple[str, dict]] = []  # (kind, judgment) of every accepted certificate
        self.failures: list[tuple[str, dict]] = []
        self.undecided: list[str] = []
        self.notes: list[str] = []

    def fact(self, name: str, value) -> None:
        self.facts[name] = value

    def cover(self, name: str, value) -> None:
        self.covered[name] = value

    def certify(self, kind: str, data: dict) -> dict:
        """Wrap ``data`` in an envelope and have the trusted checker accept it now.

        A verdict therefore never rests on the search code alone: a certificate
        the checker rejects turns into a failure of the check.
        """
        cert = self.claim.certificate(kind, self.point, data)
        try:
            accepted = trusted.check(cert, max_work=10**12)
        except certificates.CertificateError as exc:
            self.fail(f"the trusted checker rejected the {kind} certificate: {exc}", {"certificate": kind})
            return cert
        self.certificates.append(cert)
        self.judgments.append((kind, accepted.judgment))
        self.covered.setdefault("certificates", []).append(accepted.summary)
        return cert

    def fail(self, message: str, counterexample: dict) -> None:
        self.failures.append((message, counterexample))

    def note(self, text: str) -> None:
        self.notes.append(text)

    def settle(self, decision, wanted: type, message: str, counterexample: dict | None = None) -> bool:
        """Record a solver's answer; True when it is of type ``wanted``.

        An undecided answer (``solvers.lp.Unknown``) makes the outcome unknown —
        a solver giving up is not a refutation; any other answer is a failure.
        """
        if isinstance(decision, wanted):
            return True
        if isinstance(decision, lp.Unknown):
            self.unknown(f"{message}: {decision.reason}")
        else:
            self.fail(message, counterexample if counterexample is not None else {"answer": type(decision).__name__})
        return False

    def unknown(self, reason: str) -> None:
        """A step that could not be decided (a solver gave up): the outcome is ``unknown``, not a refutation."""
        self.undecided.append(reason)

    def poll(self) -> None:
        if self.budget.expired():
            raise OutOfBudget

    def outcome(self, seconds: float, out_of_budget: bool = False, error: dict | None = None) -> Outcome:
        """The verdict follows the obligations, never the search code's say-so.

        ``error`` (:func:`error_record`): the claim's own code raised; the
        outcome is ``unknown``, "not established", with the error beside the
        why (``unknown.error``), whatever was certified before it.

        The status is the strongest the discharges earn, as ``attnproof verify``
        requires: ``refuted`` when a refutation obligation is discharged by an
        accepted certificate (even if every verification obligation is too);
        otherwise ``unknown`` ("not established") after a failure without a
        certified refutation (a broken witness, a wrong symbolic step, a
        search that found a problem the checker did not confirm): the check
        went wrong somewhere, so it establishes nothing either way;
        otherwise ``verified`` when every verification obligation is
        discharged (there is at least one) — a budget that ran out or a step
        left undecided after that is said in the message; otherwise
        ``unknown``, saying what is missing.
        """
        needed = self.claim.obligations(self.point)
        refuted_by = [o for o in needed.refute if first_discharging(self.judgments, o)]
        missing = [o for o in needed.verify if not first_discharging(self.judgments, o)]
        # each obligation with the file of the first certificate that discharges it (names as check writes them)
        discharged = []
        for side, group in (("verify", needed.verify), ("refute", needed.refute)):
            for o in group:
                k = next((k for k, (_, j) in enumerate(self.judgments) if discharges(j, o.judgment)), None)
                name = None if k is None else certificate_name(k, self.certificates[k]["kind"])
                discharged.append({"side": side, "obligation": o.words, "certificate": name})
        partial = any(d["certificate"] for d in discharged)
        counterexample, unknown = None, None
        if error is not None:  # the check's own code raised: it establishes nothing, either way
            status, unknown = "unknown", "not established"
            message = f"not established: the check of {self.claim.id} stopped: {error_words(error)}"
        elif refuted_by:
            status = "refuted"
            message = self.failures[0][0] if self.failures else f"certified: {refuted_by[0].words}"
            counterexample = self.failures[0][1] if self.failures else None
        elif self.failures:  # a step of the check went wrong: nothing it says is established, whatever was certified
            status, message = "unknown", f"not established: {self.failures[0][0]} (no certified refutation)"
            counterexample, unknown = self.failures[0][1], "not established"
        elif needed.verify and not missing:
            status = "verified"
            beside = self.undecided + (["the budget ran out after every obligation was discharged"] if out_of_budget else [])
            message = "; ".join(self.notes + beside)
        elif out_of_budget or self.undecided:
            reasons = (["budget ran out before the check finished"] if out_of_budget else []) + self.undecided
            status, message = "unknown", "; ".join(reasons)
            unknown = "budget" if out_of_budget else "undecided"
            if partial:  # what was certified before the budget ran out is kept, and said
                done = sum(1 for d in discharged if d["certificate"])
                message += f" (partial: {done} of {len(needed.verify)} verify obligations discharged, each with its certificate)"
        else:
            status, unknown = "unknown", "not established"
            message = f"obligation not discharged: {missing[0].words}" if missing else "the claim states no obligations"
        return Outcome(
            claim=self.claim.id,
            status=status,
            expected=self.claim.expected,
            parameters=dict(self.point),
            covered=self.covered,
            seconds=seconds,
            certificates=self.certificates,
            facts=self.facts,
            message=message,
            counterexample=counterexample,
            statement=self.claim.statement_hash(),
            obligations=needed.to_json(),
            unknown=None if unknown is None else {"why": unknown, "partial": partial, **({"error": error} if error else {})},
            discharged=discharged,
        )


ERROR_MESSAGE_CHARS = 300  # of an exception's message, in the outcome file


def error_record(exc: BaseException, claim: "Claim | None" = None) -> dict:
    """What the outcome file says of an exception a claim's code raised: ``{"type", "message", "where"}``.

    ``message`` is the exception's text on one line (at most ``ERROR_MESSAGE_CHARS``);
    ``where`` is ``file:line`` of the innermost frame inside the claim's own module (the
    modules of its class and of the classes it inherits from, other than this package's
    ``Claim`` and ``Conjecture``), or of the innermost frame when none is; the file is
    relative to the working directory when it lies inside it.
    """
    import traceback

    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ is not None else []
    files = set()
    for cls in type(claim).__mro__ if claim is not None else ():
        module = sys.modules.get(cls.__module__)
        if module is None or cls.__module__ in ("builtins", __name__, "theorems.api"):
            continue
        path = getattr(module, "__file__", None)
        if path:
            files.add(os.path.realpath(path))
    ours = [f for f in frames if os.path.realpath(f.filename) in files]
    frame = (ours or frames or [None])[-1]
    where = ""
    if frame is not None:
        path = os.path.realpath(frame.filename)
        relative = os.path.relpath(path) if path.startswith(os.getcwd() + os.sep) else frame.filename
        where = f"{relative}:{frame.lineno}"
    text = " ".join(str(exc).split())
    if len(text) > ERROR_MESSAGE_CHARS:
        text = text[:ERROR_MESSAGE_CHARS] + " ..."
    return {"type": type(exc).__name__, "message": text, "where": where}


def error_words(error: dict) -> str:
    """An error record in one line: ``ZeroDivisionError: division by zero (at conjectures/boom.py:17)``."""
    said = f"{error.get('type', '?')}: {error['message']}" if error.get("message") else str(error.get("type", "?"))
    return said + (f" (at {error['where']})" if error.get("where") else "")


def raised(claim: "Claim", point: dict, exc: BaseException, seconds: float) -> Outcome:
    """The outcome of a point whose check raised ``exc``: ``unknown``, "not established", the error recorded.

    Nothing the check certified before it raised is kept (its code went wrong: what it would have
    said is unknown); the obligations are stated as usual, and if even they cannot be, the outcome
    lists none.  The traceback travels with the outcome object (``check --debug``).
    """
    import traceback

    error = error_record(exc, claim)
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        outcome = Evidence(claim, point, Budget(None)).outcome(seconds, error=error)
    except Exception:  # not even the obligations can be stated
        outcome = Outcome(claim=claim.id, status="unknown", expected=claim.expected, parameters=dict(point),
                          seconds=seconds, message=f"not established: the check of {claim.id} stopped: {error_words(error)}",
                          unknown={"why": "not established", "partial": False, "error": error})
    outcome.traceback = text
    return outcome


# --------------------------------------------------------------------- claim


class Claim(registration.Registrable):
    """One claim of a paper; subclasses fill in the class attributes and methods.

    ``expected`` is what a correct installation should report at the default
    point ("verified", "refuted" or "unknown" for an open conjecture).
    """

    id: str = ""
    paper: str = ""
    sentence: str = ""
    title: str = ""
    expected: str = "verified"
    established: str = "verified"  # "verified", "refuted" or "open": the kind of claim; the rung a run earns comes from its obligations
    parameters: tuple[Parameter, ...] = ()
    uses: tuple[str, ...] = ()
    relation: str = "reads it"  # how it serves its paper sentence: one of RELATIONS
    # the theorems of formal/KTheorems.v or STheorems.v that state this claim in Coq (shown verbatim by the report)
    formal: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        """Who states the claim (a subclass may set its own: "user conjecture", a citation); default its paper."""
        return f"arXiv {self.paper}" if self.paper else "unattributed"

    # -- to be provided by each claim
    def statement(self) -> Statement:
        raise NotImplementedError

    def cost(self, point: dict) -> float:
        """Estimated seconds to check ``point`` on one core (a rough model, not a promise)."""
        raise NotImplementedError

    def witness(self, point: dict):
        raise NotImplementedError

    def obligations(self, point: dict) -> Obligations:
        """The judgments a verdict at ``point`` needs, in the checker's vocabulary.

        With the statement, this is all a reader must trust of the claim: it is
        part of the statement hash, and ``attnproof verify`` recomputes it from
        the installed claim to bind each outcome to its claim and point.
        """
        raise NotImplementedError

    def run(self, point: dict, evidence: Evidence) -> None:
        """Do the checks, recording into ``evidence``; call ``evidence.poll()`` in long loops."""
        raise NotImplementedError

    def plots(self, record: dict) -> list[Plot]:
        """Figures for the report, drawn from an outcome record (its JSON form); none by default."""
        return []

    # -- shared mechanics
    def defaults(self) -> dict:
        return {p.name: p.default for p in self.parameters}

    def sizes(self, point: dict) -> dict:
        """The point's values of the parameters that are sizes (``Parameter.is_size``): what "covered" lists.

        Each is bound by the obligations (see :class:`Parameter`); settings are not listed."""
        return {p.name: point[p.name] for p in self.parameters if p.is_size and p.name in point}

    def point(self, overrides: dict | None = None) -> dict:
        """The default point with ``overrides`` parsed and range-checked."""
        by_name = {p.name: p for p in self.parameters}
        point = self.defaults()
        for name, value in (overrides or {}).items():
            if name not in by_name:
                allowed = ", ".join(by_name) or "none"
                raise ParameterError(f"{self.id} has no parameter {name!r} (its parameters: {allowed})")
            point[name] = by_name[name].parse(value, self.id)
        self.validate(point)
        return point

    def validate(self, point: dict) -> None:
        """Cross-parameter constraints; raise ParameterError naming the allowed range."""

    def statement_hash(self) -> str:
        """sha256 of the rendered statement and of the source of :meth:`obligations` (what a reader trusts)."""
        cached = self.__dict__.get("_statement_hash")
        if cached:
            return cached
        try:
            source = inspect.getsource(type(self).obligations)
        except (OSError, TypeError):
            source = repr(type(self).obligations.__code__.co_code)
        self._statement_hash = certificates.statement_hash(self.statement().render() + "\n" + source)
        return self._statement_hash

    def certificate(self, kind: str, point: dict, data: dict) -> dict:
        return certificates.make(kind, self.id, self.statement_hash(), point, data)

    def check(self, point: dict | None = None, budget: float | None = None) -> Outcome:
        point = self.point() if point is None else point
        evidence = Evidence(self, point, Budget(budget))
        start = time.monotonic()
        try:
            self.run(point, evidence)
            out_of_budget = False
        except OutOfBudget:
            out_of_budget = True
        outcome = evidence.outcome(time.monotonic() - start, out_of_budget)
        if self.established == "open" and outcome.status == "verified":
            # Evidence up to some size settles no open conjecture; its certificates
            # still prove what they say (e.g. a witness at each m checked).
            outcome.status, outcome.message = "unknown", f"open conjecture; {outcome.message}"
            outcome.unknown = {"why": "open", "partial": any(d["certificate"] for d in outcome.discharged)}
        return outcome


def slug(point: dict, claim: Claim) -> str:
    """A point's folder name: the parameters that differ from the claim's defaults, ``k=v`` joined by
    commas (a ``/`` as ``_``), or ``default``."""
    changed = [f"{k}={v}" for k, v in point.items() if claim.defaults().get(k) != v]
    return ",".join(changed).replace("/", "_") or "default"


# ------------------------------------------------------------------ registry

_REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    if claim.id in _REGISTRY and type(_REGISTRY[claim.id]) is not type(claim):
        raise ValueError(f"two claims share the id {claim.id!r}")
    _validate(claim)
    _REGISTRY[claim.id] = claim
    return claim


def _validate(claim: Claim) -> None:
    """A claim's own attributes are well formed (ValueError naming the first that is not)."""
    if not claim.id:
        raise ValueError(f"{type(claim).__name__} has no id")
    if claim.expected not in STATUSES:
        raise ValueError(f"{claim.id}: expected must be one of {STATUSES}")
    if claim.established not in LADDER:
        raise ValueError(f"{claim.id}: established must be one of {list(LADDER)}")
    if claim.relation not in RELATIONS:
        raise ValueError(f"{claim.id}: relation must be one of {list(RELATIONS)}")
    for p in claim.parameters:
        # a default the claim's own range refuses: `check` would run a point `--param` may not name
        try:
            p.parse(p.default, claim.id)
        except ParameterError:
            raise ValueError(f"{claim.id}: the default {p.name} = {str(p.default)[:40]} is outside its own range: "
                             f"{p.allowed()}") from None


def _discover() -> None:
    """Fill the registry from every source (see :mod:`theorems.registry`): all or nothing."""
    found = registration.discover(_validate)
    for claim in found:
        register(claim)


def registry() -> dict[str, Claim]:
    """Every claim: the built-in modules, the ``attnproof.claims`` entry points, the user's project
    (``conjectures/`` and ``[tool.attnproof]``), then ``$ATTNPROOF_CLAIMS`` (see :mod:`theorems.registry`)."""
    if not _REGISTRY:
        _discover()
    return dict(sorted(_REGISTRY.items()))


def get(claim_id: str) -> Claim:
    """A claim by its id, or by the unique id that ends with ``.claim_id`` (``softmax_three_tokens``);
    a short name two claims share is refused as ambiguous, naming their full ids."""
    claims = registry()
    if claim_id in claims:
        return claims[claim_id]
    matches = [c for name, c in claims.items() if name.endswith("." + claim_id)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ParameterError(f"claim {claim_id!r} is ambiguous: {', '.join(c.id for c in matches)}; give the full id")
    raise ParameterError(f"unknown claim {claim_id!r}; known claims: {', '.join(claims)}")

