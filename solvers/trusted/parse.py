"""Bounded reading of JSON files: the first stage of the trusted checker.

Every file the checker reads goes through :func:`load`, which refuses, with
a one-line reason and before doing much work:

- anything that is not a regular file (a FIFO, ``/dev/zero``, a folder);
- more than ``MAX_BYTES`` bytes, or bytes that are not UTF-8;
- a duplicate key in an object (JSON leaves its meaning open);
- a float, ``NaN`` or ``Infinity`` (exact numbers are ints or strings "p/q");
- an integer of more than ``MAX_DIGITS`` digits;
- nesting deeper than ``MAX_DEPTH``.

Standard library only.
"""

from __future__ import annotations

import json
import os
import stat

MAX_BYTES = 256 * 1024 * 1024
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
    """Nesting depth, computed without recursion; memory grows with the depth, not the size."""
    deepest, stack = 1, [iter([value])]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
        elif isinstance(item, (dict, list)):
            stack.append(iter(item.values() if isinstance(item, dict) else item))
            deepest = max(deepest, len(stack) if item else len(stack) - 1)  # the level of its elements
            if deepest > MAX_DEPTH:
                break
    return deepest


_END = object()


def _timing(text: str) -> str:
    return text  # kept as its text: a float is read, never computed with


def loads(raw: bytes, floats: bool = False):
    """Parse bytes as bounded JSON; raise :class:`Refused` with the reason.

    ``floats`` lets an outcome record carry its wall-clock ``seconds``; they
    are kept as text, so nothing can compute with them.
    """
    if len(raw) > MAX_BYTES:
        raise Refused(f"{len(raw)} bytes (at most {MAX_BYTES})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(f"not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_int=_integer, parse_float=_timing if floats else _float, parse_constant=_constant)
    except RecursionError:
        raise Refused(f"nesting deeper than {MAX_DEPTH}") from None
    except json.JSONDecodeError as exc:
        raise Refused(f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if _depth(value) > MAX_DEPTH:
        raise Refused(f"nesting deeper than {MAX_DEPTH}")
    return value


def load(path: str, floats: bool = False):
    """Read ``path`` as bounded JSON: a regular file only, opened without blocking."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
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
    return loads(b"".join(chunks), floats)
