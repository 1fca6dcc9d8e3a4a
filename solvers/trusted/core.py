"""The core of the trusted checker: envelope, readers, judgments and their implication rules, dispatch.

A certificate is a JSON envelope (format, version, kind, claim, statement,
parameters, data).  Its kind names a checker in one family module (imported
only when a certificate of one of its kinds is read, see :data:`FAMILIES`);
the checker re-checks ``data`` exactly and, when it accepts, returns the
**judgment** the data proves, as data in the checker's own vocabulary, e.g.::

    {"judgment": "solves", "model": "kernel", "head": "any", "rank": 1,
     "m": [3, 3], "lengths": [3], "target": "min-ip", "tolerance": "1/2"}

A claim states, per parameter point, the judgments its verdict needs (its
*obligations*).  An obligation is discharged by an accepted judgment of the
same name whose every field **implies** the obligation's field: equal, or
by one of the rules in :data:`RULES` (a smaller tolerance implies a larger
one; "every m >= 4" covers m = 5; a rank lower bound at a larger epsilon
holds at a smaller one).  Nothing else discharges anything.

Before a kind does any work it estimates the work the data asks for; above
``max_work`` the certificate is refused with the estimate (:mod:`.limits`,
which a reader may skip: a limit only refuses).  Numbers are read strictly:
ints (never booleans) or strings ``"p/q"`` of bounded length.
:func:`certificate` is the whole path of one file: bounded read, parse,
envelope, dispatch, judgment.  Standard library only.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from fractions import Fraction
from typing import NamedTuple

from solvers.trusted import limits
from solvers.trusted.limits import MAX_DIGITS, MAX_WORK, Refused  # noqa: F401  (MAX_WORK: the default, read here by callers)
from solvers.trusted.parse import loads, read

FORMAT = "attnproof-certificate"
VERSION = 1
ENVELOPE_KEYS = ("format", "version", "kind", "claim", "statement", "parameters", "data")

# The family module of each kind.  A family imports the core, limits.py (sizes for its work estimates) and
# shared modules (motzkin.py, matrices.py, minip.py), never another family, and is imported the first time a certificate
# of one of its kinds is read: a run reads no family it does not use.
FAMILIES = {family: tuple(kinds.split()) for family, kinds in {
    "cones": "rank-two-betweenness",
    "counting": "base-decoding behaviour-rank decoding-collision fooling-family prefix-behaviours surd-decoding",
    "evaluation": "exhaustive multi-head-exhaustive polynomial-readout-table rank-one-positional-witness threshold-polynomial",
    "scores": "score-counterexample score-statistic",
    "extrapolation": "two-token-extrapolation",
    "geometry": "circle-anchors visible-one-anchors visible-one-anchors-every",
    "intervals": "approx-rank-lower approx-rank-lower-ball approx-rank-lower-inverse approx-rank-lower-points approx-rank-lower-scaled approx-rank-upper "
                 "approx-rank-upper-ball approx-rank-upper-points approx-rank-upper-scaled attention-differs residual-bound residual-two-point",
    "linear": "box-refutation kernel-row-infeasible rank-one-infeasible rank-one-reduced-infeasible readout-infeasible",
    "ranks": "duality rank-lower rank-upper row-shift visible-dimension",
}.items()}
FAMILY_OF = {name: family for family, names in FAMILIES.items() for name in names}


class CertificateError(ValueError):
    """A certificate that is malformed or does not prove what it says (REJECTED)."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise CertificateError(message)


# ------------------------------------------------------------------ readers

_RATIONAL = re.compile(r"-?[0-9]{1,%d}(/[0-9]{1,%d})?" % (MAX_DIGITS, MAX_DIGITS))
_SMALL = {i: Fraction(i) for i in range(-1024, 1025)}  # a Fraction is immutable: one serves every equal entry


def rational(value, name: str = "number") -> Fraction:
    """An int (not a boolean) or a string ``"p"`` / ``"p/q"`` with q > 0 — nothing else."""
    # the reader of every number in every table: messages are built only on failure
    if type(value) is int or isinstance(value, int) and not isinstance(value, bool):
        return _SMALL[value] if -1024 <= value <= 1024 else Fraction(value)
    if not (isinstance(value, str) and _RATIONAL.fullmatch(value)):
        raise CertificateError(f"{name} must be an int or a string 'p/q', got {shown(value)!r}")
    p, _, q = value.partition("/")
    if q and int(q) == 0:
        raise CertificateError(f"{name} has a zero denominator")
    return Fraction(int(p), int(q or 1))


def shown(value) -> str:
    """A value for a message: long integers by their size (printing one can itself fail)."""
    if isinstance(value, int) and value.bit_length() > 64:
        return f"<an integer of {value.bit_length()} bits>"
    return str(value)[:60]


def integer(value, name: str, low: int = 0, high: int | None = None) -> int:
    require(isinstance(value, int) and not isinstance(value, bool), f"{name} must be an integer")
    require(value >= low and (high is None or value <= high), f"{name}={shown(value)} outside [{low}, {high}]")
    return value


def flag(value, name: str) -> bool:
    require(isinstance(value, bool), f"{name} must be true or false")
    return value


def listof(value, name: str, low: int = 0, high: int | None = None) -> list:
    require(isinstance(value, list), f"{name} must be a list")
    require(len(value) >= low and (high is None or len(value) <= high), f"{name} has {len(value)} entries, outside [{low}, {high}]")
    return value


def token(text, m: int) -> int:
    """A token written as a bit string of length m, coordinate 1 first."""
    require(isinstance(text, str) and len(text) == m and set(text) <= {"0", "1"}, f"token {str(text)[:40]!r} is not a bit string of length {m}")
    return sum(1 << i for i, ch in enumerate(text) if ch == "1")


# -------------------------------------------------------------- judgments


def encode(value):
    """Exact values as canonical JSON data: a Fraction is an int or ``"p/q"`` in lowest terms."""
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        # a table's integer entries inline (most of every digest): the same data, without a call each
        return [v if type(v) is int else v.numerator if type(v) is Fraction and v.denominator == 1 else encode(v)
                for v in value]
    return value


def digest(value) -> str:
    """``sha256:`` of the canonical JSON of exact data: how a judgment names a matrix, a head, an instance."""
    text = json.dumps(encode(value), sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _number(a) -> Fraction:
    return rational(a, "judgment value")


def _covers(j, o) -> bool:
    """Ranges ``[low, high]`` (high ``null`` = unbounded): the judgment's contains the obligation's."""
    (jl, jh), (ol, oh) = j, o
    return jl <= ol and (jh is None or (oh is not None and oh <= jh))


def _inside(j, o) -> bool:
    """The judgment's single value lies in the obligation's range ``[low, high]``."""
    low, high = o
    return low <= j and (high is None or j <= high)


AT_MOST = ("the proved value is at most the one needed", lambda j, o: _number(j) <= _number(o))
AT_LEAST = ("the proved value is at least the one needed", lambda j, o: _number(j) >= _number(o))
SUPERSET = ("every value needed is among those proved", lambda j, o: set(map(str, o)) <= set(map(str, j)))
COVERS = ("the proved range contains the range needed", _covers)
INSIDE = ("the proved value lies in the range needed", _inside)
ANY_OR_SAME = ("equal, or the obligation accepts any", lambda j, o: o == "any" or j == o)

# The implication rules: judgment -> {field: rule}.  Every other field must be equal.
RULES = {
    # a head solves the task: a smaller tolerance, more lengths, a wider m range, a smaller rank imply the needed one
    "solves": {"head": ANY_OR_SAME, "rank": AT_MOST, "heads": AT_MOST, "m": COVERS, "lengths": SUPERSET, "tolerance": AT_MOST},
    # no head of rank <= r solves exact length n: it then fails for smaller ranks and tolerances too
    "unsolvable": {"rank": AT_LEAST, "heads": AT_LEAST, "m": COVERS, "tolerance": AT_LEAST},
    # one head errs by >= tolerance on one sequence at some m in the range
    "fails": {"m": INSIDE, "tolerance": AT_LEAST},
    "no-readout": {"tolerance": AT_LEAST},
    # exact and approximate ranks
    "rank-at-least": {"bound": AT_LEAST},
    "rank-at-most": {"bound": AT_MOST},
    "approx-rank-at-least": {"bound": AT_LEAST, "epsilon": AT_LEAST},
    "approx-rank-at-most": {"bound": AT_MOST, "epsilon": AT_MOST},
    # for every instance of a geometry: proved up to a larger beta or spread, at a smaller epsilon, a smaller bound
    "approx-rank-at-most-every": {"bound": AT_MOST, "epsilon": AT_MOST, "beta_up_to": AT_LEAST, "spread_up_to": AT_LEAST},
    # communication
    "bits-at-least": {"bits": AT_LEAST},
}


def _implies(name, field: str, proved, needed) -> bool:
    """One field: equal, or implied by its rule (a value that is not a number where one is needed implies nothing)."""
    try:
        rule = RULES.get(name, {}).get(field)
        return proved == needed or (rule is not None and rule[1](proved, needed))
    except (CertificateError, TypeError, ValueError):
        return False


def discharges(judgment: dict, obligation: dict) -> bool:
    """True when the accepted ``judgment`` implies ``obligation`` field by field (see :data:`RULES`)."""
    if not (isinstance(judgment, dict) and isinstance(obligation, dict)):
        return False
    name = obligation.get("judgment")
    return judgment.get("judgment") == name and set(judgment) == set(obligation) and all(
        _implies(name, field, judgment[field], wanted) for field, wanted in obligation.items())


# ------------------------------------------------------------------ dispatch

# kind name -> (the data fields it reads, its work estimate, its checker), filled as the families are imported
KINDS: dict = {}


class Accepted(NamedTuple):
    judgment: dict  # canonical data, see RULES
    summary: str  # the same in one line of words


def kind(name: str, *fields: str, work, digits: bool = True):
    """Register the checker of kind ``name``, reading exactly ``fields``.

    ``work(data)`` estimates the elementary exact operations the data asks
    for, from sizes alone, before anything is computed; the checker returns
    ``(judgment, summary)``.  With ``digits`` (kinds whose estimate counts
    entries, not digits) the core scales the estimate by the size of the
    numbers (:func:`.limits.scaled`).  A kind of :data:`FAMILIES` is registered
    by the family it names, once.
    """

    def register(function):
        family = function.__module__.rpartition(".")[2]
        if name in FAMILY_OF and (FAMILY_OF[name] != family or name in KINDS):  # the table and the module agree
            raise ValueError(f"kind {name!r} registered by {family}, but FAMILIES says {FAMILY_OF[name]}")
        KINDS[name] = (fields, limits.scaled(work) if digits else work, function)
        return function

    return register


def envelope(cert) -> None:
    """Refuse anything that is not exactly a version-1 envelope (no extra keys)."""
    require(isinstance(cert, dict), "a certificate is a JSON object")
    extra = sorted(set(cert) - set(ENVELOPE_KEYS))
    missing = [k for k in ENVELOPE_KEYS if k not in cert]
    require(not extra, f"unknown envelope field(s) {extra}: a certificate carries only {list(ENVELOPE_KEYS)}")
    require(not missing, f"missing envelope field(s) {missing}")
    require(cert["format"] == FORMAT, f"unknown format {str(cert['format'])[:40]!r}, expected {FORMAT!r}")
    version = cert["version"]
    require(type(version) is int and version == VERSION, f"unsupported version {str(version)[:20]!r}, this checker reads version {VERSION}")
    for key in ("kind", "claim", "statement"):
        require(isinstance(cert[key], str) and len(cert[key]) <= 200, f"field {key!r} must be a short string")
    require(isinstance(cert["parameters"], dict) and isinstance(cert["data"], dict), "fields 'parameters' and 'data' must be JSON objects")


def check(cert, max_work: int = MAX_WORK) -> Accepted:
    """Re-check ``cert`` from its data alone; return what it proves, or raise.

    Raises :class:`CertificateError` (REJECTED) when the data does not prove
    its judgment, :class:`Refused` when it asks for more than ``max_work``.
    """
    envelope(cert)
    name = cert["kind"]
    require(name in FAMILY_OF or name in KINDS, f"unknown certificate kind {name[:40]!r}; known kinds: {sorted({*FAMILY_OF, *KINDS})}")
    if name not in KINDS:  # its family's first certificate: importing the module registers its kinds
        importlib.import_module(f"solvers.trusted.{FAMILY_OF[name]}")
    fields, work, function = KINDS[name]
    data = cert["data"]
    extra, missing = sorted(set(data) - set(fields)), sorted(set(fields) - set(data))
    require(not extra, f"{name}: unused data field(s) {extra}; this kind reads exactly {sorted(fields)}")
    require(not missing, f"{name}: missing data field(s) {missing}")
    try:
        limits.work(name, work(data), max_work)  # refused above max_work, before anything is computed
        judgment, summary = function(data)
    except (CertificateError, Refused):
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError, OverflowError, RecursionError) as exc:
        # a safety net: each kind validates its data, so reaching this is a malformed file, never an acceptance
        raise CertificateError(f"{name}: malformed data ({type(exc).__name__}: {str(exc)[:80]})") from None
    return Accepted(encode(judgment), summary)


def certificate(path: str, max_work: int = MAX_WORK) -> tuple[dict, tuple]:
    """Check one file; never raises.  Returns its line (``accepted``, ``REJECTED`` or ``REFUSED``, with
    the sha256 of the bytes judged) and ``(status, envelope, judgment)``, the envelope reduced to what a
    verdict compares (claim, statement, parameters)."""
    line = {"type": "certificate", "path": path}
    try:
        raw = read(path)
        line["sha256"] = hashlib.sha256(raw).hexdigest()  # the bytes judged: verify refuses them changed later
        cert = loads(raw)
        accepted = check(cert, max_work)
    except (Refused, MemoryError) as exc:  # the checker will not look at it
        reason = str(exc) if isinstance(exc, Refused) else f"needs more than {limits.memory / 2**30:.1f} GiB"
        return line | {"status": "REFUSED", "reason": reason}, ("refused", None, None)
    except Exception as exc:  # it does not prove what it says, or a kind failed to validate its input: the run goes on
        reason = str(exc) if isinstance(exc, CertificateError) else f"the checker failed on this input ({type(exc).__name__})"
        return line | {"status": "REJECTED", "reason": reason}, ("rejected", None, None)
    line |= {"status": "accepted", "summary": accepted.summary, "judgment": accepted.judgment, "kind": cert["kind"], "claim": cert["claim"]}
    return line, ("accepted", {key: cert[key] for key in ("claim", "statement", "parameters")}, accepted.judgment)
