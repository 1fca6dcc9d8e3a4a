"""Bounded reading of JSON files: the first stage of the trusted checker.

Every file the checker reads goes through :func:`load`, which refuses, with
a one-line reason and before doing much work:

- anything that is not a regular file (a FIFO, ``/dev/zero``, a folder, a
  symbolic link: links are not followed);
- more than ``MAX_BYTES`` bytes, or bytes that are not UTF-8;
- more than ``MAX_VALUES`` commas and opening brackets, counted in the bytes
  before anything is built (every JSON value but the first follows one, so
  this bounds the values and containers the parse could make);
- a duplicate key in an object (JSON leaves its meaning open);
- a float, ``NaN`` or ``Infinity`` (exact numbers are ints or strings "p/q");
- an integer of more than ``MAX_DIGITS`` digits;
- nesting deeper than ``MAX_DEPTH``.

Standard library only.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys

MAX_BYTES = 64 * 1024 * 1024  # 50x the largest file of the default check (1.2 MB)
MAX_VALUES = 4_000_000  # 49x the most values in one (81 422); a file within both limits parses in about 1 GB at most
MAX_DIGITS = 2000
MAX_DEPTH = 32


class Refused(ValueError):
    """An input the checker will not look at (too large, not a regular file, malformed)."""


def _pairs(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise Refused(f"duplicate key {key[:40]!r} in a JSON object")
        out[key] = value
    return out


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise Refused(f"an integer of {len(text)} digits (at most {MAX_DIGITS})")
    return int(text)


def _float(text: str):
    raise Refused(f"a float ({text[:40]}) in the file: exact numbers are ints or strings 'p/q'")


def _constant(text: str):
    raise Refused(f"the non-JSON constant {text}")


def _depth(value) -> int:
    """Nesting depth: 1 for a scalar or an empty container, else 1 + the depth of its deepest element.
    Computed a level at a time without recursion (a level holds the elements at one depth, so each
    value is looked at twice, by a comprehension), stopping once past ``MAX_DEPTH``."""
    depth, level = 1, [value]
    while depth <= MAX_DEPTH:
        # the elements one level down: only containers have any (a dict's are its values)
        level = [v for item in level if type(item) in _CONTAINERS for v in (item.values() if type(item) is dict else item)]
        if not level:
            break
        depth += 1
    return depth


_CONTAINERS = (dict, list)  # what JSON decodes to (objects through _pairs, which makes dicts)


def _timing(text: str) -> str:
    return text  # kept as its text: a float is read, never computed with


def _decode(text: str, floats: bool, parse_int):
    """``json.loads`` with this module's hooks.  Without ``parse_int`` integers are read by the decoder
    itself (a Python call per integer cost more than the rest of the parse), under the interpreter's own
    digit limit set to ``MAX_DIGITS`` for the call: a longer one raises ValueError (and the caller reads
    the text again with :func:`_integer`, which refuses it by name)."""
    hooks = {"object_pairs_hook": _pairs, "parse_float": _timing if floats else _float, "parse_constant": _constant}
    limit = getattr(sys, "get_int_max_str_digits", None)
    if limit is None:  # an interpreter without the limit: every integer through the hook
        return json.loads(text, parse_int=parse_int or _integer, **hooks)
    if parse_int is not None:
        hooks["parse_int"] = parse_int
    previous = limit()
    sys.set_int_max_str_digits(MAX_DIGITS)  # also for the hook's int(): a lower limit of the interpreter's must not refuse first
    try:
        return json.loads(text, **hooks)
    finally:
        sys.set_int_max_str_digits(previous)


def loads(raw: bytes, floats: bool = False):
    """Parse bytes as bounded JSON; raise :class:`Refused` with the reason.

    ``floats`` lets an outcome record carry its wall-clock ``seconds``; they
    are kept as text, so nothing can compute with them.
    """
    if len(raw) > MAX_BYTES:
        raise Refused(f"{len(raw)} bytes (at most {MAX_BYTES})")
    marks = raw.count(b",") + raw.count(b"[") + raw.count(b"{")  # in strings too: an upper bound
    if marks > MAX_VALUES:
        raise Refused(f"{marks} commas and opening brackets, so up to as many JSON values (at most {MAX_VALUES})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(f"not UTF-8 (byte {exc.start})") from None
    try:
        try:
            value = _decode(text, floats, None)
        except ValueError as exc:
            if isinstance(exc, (Refused, json.JSONDecodeError)):
                raise
            # an integer past the interpreter's digit limit: read again, to say which and how long (a frame
            # deeper per integer, so this reading may meet the recursion limit where the first did not)
            value = _decode(text, floats, _integer)
    except RecursionError:
        raise Refused(f"nesting deeper than {MAX_DEPTH}") from None
    except json.JSONDecodeError as exc:
        raise Refused(f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if _depth(value) > MAX_DEPTH:
        raise Refused(f"nesting deeper than {MAX_DEPTH}")
    return value


def load(path: str, floats: bool = False):
    """Read ``path`` as bounded JSON: a regular file only, opened without blocking or following a link."""
    return loads(read(path), floats)


def read(path: str) -> bytes:
    """The bytes of ``path``, at most MAX_BYTES: a regular file only, opened without blocking or following a link."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # what O_NOFOLLOW says of a link
            raise Refused("not a regular file (a symbolic link, not followed)") from None
        raise Refused(f"cannot open: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused("not a regular file")
        if info.st_size > MAX_BYTES:
            raise Refused(f"{info.st_size} bytes (at most {MAX_BYTES})")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > MAX_BYTES:
                raise Refused(f"more than {MAX_BYTES} bytes")
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)
