"""Limits: what the trusted checker will not look at.  **A reader of a verdict may skip this module.**

It decides nothing a verdict rests on.  Each limit is a check that either lets the run go on
unchanged or raises :class:`Refused` (the file ends ``REFUSED``, or an outcome does not stand),
so a limit can only turn an acceptance into a refusal, never anything into an acceptance:

- :func:`raw`, :func:`opened`, :func:`grown`, :func:`depth`, :func:`work` and :func:`discharge`
  return nothing: the core calls them as statements, before or after the step they bound, and
  their only possible effect is to raise ``Refused``;
- :func:`decode` returns ``json.loads(text, **hooks)`` itself — the same value, integers read by
  ``int`` either way — or raises ``Refused`` (an integer of more than ``MAX_DIGITS`` digits, nesting
  past the interpreter's recursion limit), so the core's hooks decide every value;
- :func:`scaled`, :func:`discharge_work` and the sizes below (``length_of``, ``width_of``, ``digits_of``,
  ``lcm_digits``, ``number_size``) only make the numbers a work estimate is compared with; an estimate decides nothing but
  :func:`work`'s refusal, and a size read off hostile data survives it (0 for what is malformed).

``tests/solvers/trusted/test_limits.py`` shows this on the default run: with every limit here
replaced by one that lets everything through, the core's lines for every certificate and outcome
are the same, and with limits tightened each line is the same or a refusal.  Standard library only.
"""

from __future__ import annotations

import json
import math
import re
import sys

MAX_BYTES = 64 * 1024 * 1024  # 50x the largest file of the default check (1.2 MB)
MAX_VALUES = 4_000_000  # 49x the most values in one (81 422); a file within both limits parses in about 1 GB at most
MAX_DIGITS = 2000  # decimal digits of an integer in a file, and of each part of a string "p/q" (core.rational)
MAX_DEPTH = 32
MAX_WORK = 2 * 10**8  # elementary exact operations a certificate (or an outcome's discharge) may ask for by default
memory = 8 * 1024**3  # the address space a process of the checker may use, as the runner capped it (for messages)


class Refused(ValueError):
    """An input the checker will not look at (too large, not a regular file, malformed)."""


# ------------------------------------------------------------ bounded reading (parse.py)

def opened(size: int) -> None:
    """A file whose size (``fstat``) is above MAX_BYTES is refused before a byte is read."""
    if size > MAX_BYTES:
        raise Refused(f"{size} bytes (at most {MAX_BYTES})")


def grown(total: int) -> None:
    """The bytes read so far, checked after each read (a file may grow, or ``fstat`` may say 0, as in /proc)."""
    if total > MAX_BYTES:
        raise Refused(f"more than {MAX_BYTES} bytes")


def raw(data: bytes) -> None:
    """At most MAX_BYTES bytes and MAX_VALUES commas and opening brackets, counted before anything is built:
    every JSON value but the first follows one, so this bounds the values and containers a parse can make."""
    if len(data) > MAX_BYTES:
        raise Refused(f"{len(data)} bytes (at most {MAX_BYTES})")
    marks = data.count(b",") + data.count(b"[") + data.count(b"{")  # in strings too: an upper bound
    if marks > MAX_VALUES:
        raise Refused(f"{marks} commas and opening brackets, so up to as many JSON values (at most {MAX_VALUES})")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise Refused(f"an integer of {len(text)} digits (at most {MAX_DIGITS})")
    return int(text)


def _loads(text: str, hooks: dict):
    """``json.loads`` with the core's hooks.  Integers are read by the decoder itself (a Python call per
    integer cost more than the rest of the parse), under the interpreter's own digit limit set to
    ``MAX_DIGITS`` for the call: a longer one raises ValueError (and :func:`decode` reads the text again
    with :func:`_integer`, which refuses it by name)."""
    limit = getattr(sys, "get_int_max_str_digits", None)
    if limit is None:  # an interpreter without the limit: every integer through the hook
        return json.loads(text, **{"parse_int": _integer, **hooks})
    previous = limit()
    sys.set_int_max_str_digits(MAX_DIGITS)  # also for the hook's int(): a lower limit of the interpreter's must not refuse first
    try:
        return json.loads(text, **hooks)
    finally:
        sys.set_int_max_str_digits(previous)


def decode(text: str, hooks: dict):
    """``json.loads(text, **hooks)``, or :class:`Refused` for an integer of more than MAX_DIGITS digits or
    nesting past the recursion limit (``json.JSONDecodeError`` and the hooks' own refusals pass through)."""
    try:
        try:
            return _loads(text, hooks)
        except ValueError as exc:
            if isinstance(exc, (Refused, json.JSONDecodeError)):
                raise
            # an integer past the interpreter's digit limit: read again, to say which and how long (a frame
            # deeper per integer, so this reading may meet the recursion limit where the first did not)
            return _loads(text, {**hooks, "parse_int": _integer})
    except RecursionError:
        raise Refused(f"nesting deeper than {MAX_DEPTH}") from None


_CONTAINERS = (dict, list)  # what JSON decodes to (objects through the core's hook, which makes dicts)


def depth(value) -> None:
    """Nesting at most MAX_DEPTH: 1 for a scalar or an empty container, else 1 + the depth of its deepest
    element.  Computed a level at a time without recursion (a level holds the elements at one depth, so
    each value is looked at twice, by a comprehension), stopping once past ``MAX_DEPTH``."""
    deepest, level = 1, [value]
    while deepest <= MAX_DEPTH:
        # the elements one level down: only containers have any (a dict's are its values)
        level = [v for item in level if type(item) in _CONTAINERS for v in (item.values() if type(item) is dict else item)]
        if not level:
            return
        deepest += 1
    raise Refused(f"nesting deeper than {MAX_DEPTH}")


# ------------------------------------------------------------ work estimates (core.py, verdicts.py)

def work(name: str, estimate, max_work: int) -> None:
    """A kind's estimate (from sizes alone, before anything is computed) above ``max_work`` is refused."""
    if estimate > max_work:
        raise Refused(f"{name}: asks for about {estimate:.3g} operations, above the limit of {max_work:.3g} (raise --max-work)")


def discharge(wanted: list, judgments: dict, files: int, max_work: int, rules: dict) -> None:
    """Discharging ``wanted`` (``(side, obligation, name)``) with ``judgments`` (name -> [(file, judgment)]):
    above ``max_work`` (:func:`discharge_work`) the outcome is refused with the estimate."""
    estimate = discharge_work(wanted, judgments, rules)
    if estimate > max_work:
        raise Refused(f"discharging {len(wanted)} obligation(s) with {files} certificate(s) asks for "
                      f"about {estimate:.3g} operations, above the limit of {max_work:.3g} (raise --max-work)")


def discharge_work(wanted: list, judgments: dict, rules: dict) -> int:
    """Each obligation is compared with every judgment of its name, at worst (``core.discharges``: the key
    sets, then field by field, stopping at the first that fails); one comparison is charged :func:`_weight` of
    the obligation plus that of the judgment.  ``rules`` maps a judgment name to the fields it compares by a
    rule (``core.RULES``)."""
    weights = {name: sum(_weight(j, rules.get(name, ())) for _, j in listed) for name, listed in judgments.items()}
    return sum(len(judgments.get(n, ())) * _weight(o["judgment"], rules.get(n, ())) + weights.get(n, 0)
               for _, o, n in wanted) // 20


def _weight(judgment, ruled) -> int:
    """Twentieths of a unit (about 1 us) that one comparison may spend on one side's ``judgment``:

    - 5 per JSON value (up to 0.1 us each: a key hashed into a set, or one element compared; equality of
      lists and strings stops at a length that differs);
    - 10 per field compared by a rule, and 1 per character of its value (the rule reads it: up to 1 us for
      a short rational made a Fraction, 0.04 us per element or character the superset rule makes a string);
    - 1 per 50 characters in all (strings compared equal up to their last character, memcmp)."""
    text = json.dumps(judgment)
    values = 1 + text.count(",") + text.count("[") + text.count("{")  # in strings too: an upper bound
    read = [len(json.dumps(v)) for f, v in judgment.items() if f in ruled] if isinstance(judgment, dict) else []
    return 5 * values + 10 * len(read) + sum(read) + len(text) // 50


def scaled(estimate):
    """A kind's estimate counting entries, scaled by the size of the numbers (:func:`size_factor`)."""
    return lambda data: estimate(data) * size_factor(data)


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


def lcm_digits(lines, cap: int = 10**5) -> int:
    """Decimal digits of the least common denominator of the most demanding line (a row, or a column) of
    entries, each denominator read off the text of a ``"p/q"`` (an int's is 1, a malformed entry's 1; one of
    more than ``MAX_DIGITS`` digits, which ``core.rational`` rejects, gives ``cap``); each lcm stops above
    ``cap`` digits."""
    most = 1
    for line in lines:
        common = 1
        # each distinct denominator once: a line of dyadic entries has a few (read as text: no Fraction per entry)
        for q in {v.partition("/")[2] for v in line if type(v) is str} if isinstance(line, (list, tuple)) else ():
            if len(q) > MAX_DIGITS:
                return cap
            if q.isascii() and q.isdigit() and int(q):
                common = math.lcm(common, int(q))
                if common.bit_length() > cap * 10 // 3:
                    return cap
        most = max(most, common.bit_length() * 3 // 10 + 1)
    return most


_RATIONAL = re.compile(r"-?[0-9]{1,%d}(/[0-9]{1,%d})?" % (MAX_DIGITS, MAX_DIGITS))  # core.rational's grammar


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


def size_factor(data) -> int:
    """1 for numbers of up to 100 digits; quadratic beyond (a product of two d-digit numbers)."""
    return max(1, number_size(data) // 100) ** 2
