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
``max_work`` the certificate is refused with the estimate.  Numbers are
read strictly: ints (never booleans) or strings ``"p/q"`` of bounded length.
:func:`certificate` is the whole path of one file: bounded read, parse,
envelope, dispatch, judgment.  Standard library and python-flint only.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import re
from fractions import Fraction
from typing import NamedTuple

import flint

from solvers.trusted.parse import MAX_DIGITS, Refused, loads, read

FORMAT = "attnproof-certificate"
VERSION = 1
ENVELOPE_KEYS = ("format", "version", "kind", "claim", "statement", "parameters", "data")
MAX_WORK = 2 * 10**8  # elementary exact operations a certificate may ask for by default
memory = 8 * 1024**3  # the address space a process of the checker may use, as the runner capped it (for messages)

# The family module of each kind.  A family imports the core only (never another family), and is
# imported the first time a certificate of one of its kinds is read: a run reads no family it does not use.
FAMILIES = {
    "cones": ("rank-two-betweenness",),
    "counting": ("base-decoding", "behaviour-rank", "decoding-collision", "fooling-family", "prefix-behaviours", "surd-decoding"),
    "evaluation": ("exhaustive", "multi-head-exhaustive", "polynomial-readout-table", "rank-one-positional-witness",
                   "threshold-polynomial"),
    "scores": ("score-counterexample", "score-statistic"),
    "extrapolation": ("two-token-extrapolation",),
    "geometry": ("circle-anchors", "visible-one-anchors", "visible-one-anchors-every"),
    "intervals": ("approx-rank-lower", "approx-rank-lower-ball", "approx-rank-lower-points", "approx-rank-lower-scaled",
                  "approx-rank-upper", "approx-rank-upper-ball", "approx-rank-upper-points", "approx-rank-upper-scaled",
                  "attention-differs", "residual-bound", "residual-two-point"),
    "linear": ("box-refutation", "kernel-row-infeasible", "rank-one-infeasible", "rank-one-reduced-infeasible",
               "readout-infeasible"),
    "ranks": ("duality", "rank-lower", "rank-upper", "row-shift", "visible-dimension"),
}
FAMILY_OF = {name: family for family, names in FAMILIES.items() for name in names}


class CertificateError(ValueError):
    """A certificate that is malformed or does not prove what it says (REJECTED)."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise CertificateError(message)


# ------------------------------------------------------------------ readers

def lcm_denominator(values) -> int:
    """The least common denominator of exact fractions."""
    return math.lcm(1, *(v.denominator for v in values))


def fmpq_matrix(M: list[list[Fraction]]) -> "flint.fmpq_mat":
    return flint.fmpq_mat(len(M), len(M[0]), [flint.fmpq(v.numerator, v.denominator) for r in M for v in r])


_RATIONAL = re.compile(r"-?[0-9]{1,%d}(/[0-9]{1,%d})?" % (MAX_DIGITS, MAX_DIGITS))
_SMALL: dict[int, Fraction] = {}  # |i| <= 1024, filled as read: a Fraction is immutable, so one serves every equal entry


def rational(value, name: str = "number") -> Fraction:
    """An int (not a boolean) or a string ``"p"`` / ``"p/q"`` with q > 0 — nothing else."""
    # the reader of every number in every table: messages are built only on failure
    if type(value) is int:
        small = _SMALL.get(value)
        if small is None:
            small = Fraction(value)
            if -1024 <= value <= 1024:
                _SMALL[value] = small
        return small
    if isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if not (isinstance(value, str) and _RATIONAL.fullmatch(value) is not None):
        raise CertificateError(f"{name} must be an int or a string 'p/q', got {shown(value)!r}")
    p, _, q = value.partition("/")
    if not q:
        return Fraction(int(p))
    denominator = int(q)
    if denominator == 0:
        raise CertificateError(f"{name} has a zero denominator")
    return Fraction(int(p), denominator)


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


def matrix(rows, name: str, nrows: int | None = None, ncols: int | None = None) -> list[list[Fraction]]:
    """A rectangular list of rows of exact numbers (``nrows`` / ``ncols`` when given)."""
    listof(rows, name, 1)
    require(all(isinstance(r, list) for r in rows), f"{name} must be a list of rows")
    require(nrows is None or len(rows) == nrows, f"{name} has {len(rows)} rows, expected {nrows}")
    width = len(rows[0]) if ncols is None else ncols
    require(width >= 1 and all(len(r) == width for r in rows), f"{name} rows must all have {width} >= 1 entries")
    known: dict[str, Fraction] = {}  # each distinct "p/q" parsed once: a matrix repeats its entries

    def read(v) -> Fraction:
        if type(v) is not str:
            return rational(v, name)
        value = known.get(v)
        if value is None:
            value = known[v] = rational(v, name)
        return value

    return [[read(v) for v in r] for r in rows]


def token(text, m: int) -> int:
    """A token written as a bit string of length m, coordinate 1 first."""
    require(isinstance(text, str) and len(text) == m and set(text) <= {"0", "1"}, f"token {str(text)[:40]!r} is not a bit string of length {m}")
    return sum(1 << i for i, ch in enumerate(text) if ch == "1")


# ------------------------------------------------ sizes, for work estimates

def length_of(value) -> int:
    """len of a list, 0 for anything else (work estimates read sizes only and survive hostile data)."""
    return len(value) if isinstance(value, list) else 0


def width_of(value) -> int:
    """The length of a list's first row, 0 when malformed."""
    return length_of(value[0]) if length_of(value) else 0


def digits_of(rows) -> int:
    """The longest number in a list of rows, in decimal digits, read off the text (no arithmetic)."""
    longest = 1
    for row in rows if isinstance(rows, list) else ():
        for v in row if isinstance(row, list) else ():
            longest = max(longest, len(v) if isinstance(v, str) else v.bit_length() * 3 // 10 + 1 if isinstance(v, int) else 1)
    return longest


# ------------------------------------------- Motzkin combinations (shared by the linear families)

def multiplier(value) -> Fraction:
    """A Motzkin multiplier: an exact number >= 0."""
    y = rational(value, "multiplier")
    require(y >= 0, f"multiplier {y} is negative")
    return y


def entry(value, size: int, what: str) -> list:
    """A list of exactly ``size`` items (a row of a certificate), or a rejection saying what it should be."""
    require(isinstance(value, list) and len(value) == size, f"each {what}")
    return value


def min_ip(seq: list[int], q: int) -> int:
    """The Min-IP target ``T(X) = min_j <x_j, q>`` of a sequence of tokens (as integers), query q."""
    return min((x & q).bit_count() for x in seq)


def motzkin_refutes(rows, multipliers, what: str) -> None:
    """Raise unless ``multipliers`` prove the rows ``sum_k coefs[k] x_k (> or >=) rhs`` have no
    common real solution.  Motzkin: every ``y_i >= 0``, ``sum_i y_i coefs_i = 0`` and either
    ``sum_i y_i rhs_i > 0``, or ``= 0`` with ``y_i > 0`` on a strict row (a solution would
    give ``0 >= sum_i y_i rhs_i``, strictly when a strict row is used)."""
    require(len(rows) == len(multipliers), f"{what}: {len(rows)} rows but {len(multipliers)} multipliers")
    total: dict = {}
    bound, strict = Fraction(0), False
    for (coefs, sense, rhs), y in zip(rows, multipliers):
        require(y >= 0, f"{what}: negative multiplier {y}")
        if y == 0:
            continue
        strict |= sense == ">"
        for key, c in coefs.items():
            total[key] = total.get(key, 0) + y * c
        bound += y * rhs
    left = sorted((str(k) for k, v in total.items() if v), key=len)[:3]
    require(not left, f"{what}: the combination leaves the unknowns {left} (it must vanish)")
    require(bound > 0 or (bound == 0 and strict), f"{what}: the combination gives no contradiction (sum {bound}, strict row used: {strict})")


def ratio_row(side, terms, target: int):
    """The strict row of one side of one sequence; ``terms`` = per position ``(weight key, P key)``.

    A head outputs ``y = sum_j k_j U_j / sum_j k_j`` (weights ``k_j >= 0``, positive sum); with
    ``P_j = k_j U_j``, ``|y - T| < 1/2`` is the pair of strict homogeneous rows
    ``lo: sum P - (T - 1/2) sum k > 0`` and ``hi: (T + 1/2) sum k - sum P > 0``, so every head
    solving a sequence satisfies both rows of it, and a Motzkin combination of rows refutes every head."""
    require(side in ("lo", "hi"), f"side must be 'lo' or 'hi', got {str(side)[:20]!r}")
    sign, level = (1, target - Fraction(1, 2)) if side == "lo" else (-1, target + Fraction(1, 2))
    coefs: dict = {}
    for k_key, p_key in terms:
        coefs[p_key] = coefs.get(p_key, 0) + sign
        coefs[k_key] = coefs.get(k_key, 0) - sign * level
    return coefs, ">", Fraction(0)


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

# The implication rules: (judgment, field) -> rule.  Every other field must be equal.
RULES = {
    # a head solves the task: a smaller tolerance, more lengths, a wider m range, a smaller rank imply the needed one
    ("solves", "head"): ANY_OR_SAME,
    ("solves", "rank"): AT_MOST,
    ("solves", "heads"): AT_MOST,
    ("solves", "m"): COVERS,
    ("solves", "lengths"): SUPERSET,
    ("solves", "tolerance"): AT_MOST,
    # no head of rank <= r solves exact length n: it then fails for smaller ranks and tolerances too
    ("unsolvable", "rank"): AT_LEAST,
    ("unsolvable", "heads"): AT_LEAST,
    ("unsolvable", "m"): COVERS,
    ("unsolvable", "tolerance"): AT_LEAST,
    # one head errs by >= tolerance on one sequence at some m in the range
    ("fails", "m"): INSIDE,
    ("fails", "tolerance"): AT_LEAST,
    ("no-readout", "tolerance"): AT_LEAST,
    # exact and approximate ranks
    ("rank-at-least", "bound"): AT_LEAST,
    ("rank-at-most", "bound"): AT_MOST,
    ("approx-rank-at-least", "bound"): AT_LEAST,
    ("approx-rank-at-least", "epsilon"): AT_LEAST,
    ("approx-rank-at-most", "bound"): AT_MOST,
    ("approx-rank-at-most", "epsilon"): AT_MOST,
    # for every instance of a geometry: proved up to a larger beta or spread, at a smaller epsilon, a smaller bound
    ("approx-rank-at-most-every", "bound"): AT_MOST,
    ("approx-rank-at-most-every", "epsilon"): AT_MOST,
    ("approx-rank-at-most-every", "beta_up_to"): AT_LEAST,
    ("approx-rank-at-most-every", "spread_up_to"): AT_LEAST,
    # communication
    ("bits-at-least", "bits"): AT_LEAST,
}


def discharges(judgment: dict, obligation: dict) -> bool:
    """True when the accepted ``judgment`` implies ``obligation`` field by field (see :data:`RULES`)."""
    if not isinstance(judgment, dict) or not isinstance(obligation, dict):
        return False
    name = obligation.get("judgment")
    if judgment.get("judgment") != name or set(judgment) != set(obligation):
        return False
    for field, wanted in obligation.items():
        rule = RULES.get((name, field))
        try:
            if not (judgment[field] == wanted or (rule is not None and rule[1](judgment[field], wanted))):
                return False
        except (CertificateError, TypeError, ValueError):
            return False
    return True


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
    numbers, see :func:`number_size`.  A kind of :data:`FAMILIES` is registered
    by the family it names, once.
    """

    def register(function):
        family = function.__module__.rpartition(".")[2]
        if name in FAMILY_OF and (FAMILY_OF[name] != family or name in KINDS):  # the table and the module agree
            raise ValueError(f"kind {name!r} registered by {family}, but FAMILIES says {FAMILY_OF[name]}")
        KINDS[name] = (fields, (lambda data: work(data) * _size_factor(data)) if digits else work, function)
        return function

    return register


def number_size(data, cap: int = 10**5) -> int:
    """Digits of the largest number exact arithmetic on ``data`` can build: the longest numerator,
    or the least common denominator of every ``p/q`` (sums of fractions grow to it), at most ``cap``."""
    longest, common, stack = 1, 1, [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            # a list's plain ints at once (most of a table): the largest in absolute value is the longest
            ints = [v for v in item if type(v) is int]
            if ints:
                longest = max(longest, max(max(ints), -min(ints)).bit_length() // 3 + 1)
            if len(ints) < len(item):
                stack.extend(v for v in item if type(v) is not int)
        elif isinstance(item, str) and _RATIONAL.fullmatch(item):
            p, _, q = item.partition("/")
            longest = max(longest, len(p))
            if q and int(q) > 0 and common.bit_length() < 4 * cap:
                common = math.lcm(common, int(q))
        elif isinstance(item, int) and not isinstance(item, bool):
            longest = max(longest, item.bit_length() // 3 + 1)
    return min(cap, max(longest, common.bit_length() * 3 // 10 + 1))


def _size_factor(data) -> int:
    """1 for numbers of up to 100 digits; quadratic beyond (a product of two d-digit numbers)."""
    return max(1, number_size(data) // 100) ** 2


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
        estimate = work(data)
        if estimate > max_work:
            raise Refused(f"{name}: asks for about {estimate:.3g} operations, above the limit of {max_work:.3g} (raise --max-work)")
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
    except Refused as exc:
        return line | {"status": "REFUSED", "reason": str(exc)}, ("refused", None, None)
    except CertificateError as exc:
        return line | {"status": "REJECTED", "reason": str(exc)}, ("rejected", None, None)
    except MemoryError:
        return line | {"status": "REFUSED", "reason": f"needs more than {memory / 2**30:.1f} GiB"}, ("refused", None, None)
    except Exception as exc:  # a kind that failed to validate its input: rejected, and the run goes on
        return line | {"status": "REJECTED", "reason": f"the checker failed on this input ({type(exc).__name__})"}, ("rejected", None, None)
    line |= {"status": "accepted", "summary": accepted.summary, "judgment": accepted.judgment, "kind": cert["kind"], "claim": cert["claim"]}
    return line, ("accepted", {key: cert[key] for key in ("claim", "statement", "parameters")}, accepted.judgment)
