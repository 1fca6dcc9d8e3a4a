"""Bounded reading of JSON files: the first stage of the trusted checker.

Every file the checker reads goes through :func:`load`, which refuses, with
a one-line reason:

- anything that is not a regular file (a FIFO, ``/dev/zero``, a folder, a
  symbolic link: links are not followed);
- bytes that are not UTF-8, or not JSON;
- a duplicate key in an object (JSON leaves its meaning open);
- a float, ``NaN`` or ``Infinity`` (exact numbers are ints or strings "p/q").

The limits on size, values, digits and depth (:mod:`.limits`, which a reader
may skip: they only refuse) are checked before anything is built where they can be.
Standard library only.
"""

from __future__ import annotations

import errno
import json
import os
import stat

from solvers.trusted import limits
from solvers.trusted.limits import MAX_BYTES, MAX_DEPTH, MAX_DIGITS, MAX_VALUES, Refused  # noqa: F401  (their home is limits)


def _pairs(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise Refused(f"duplicate key {key[:40]!r} in a JSON object")
        out[key] = value
    return out


def _float(text: str):
    raise Refused(f"a float ({text[:40]}) in the file: exact numbers are ints or strings 'p/q'")


def _constant(text: str):
    raise Refused(f"the non-JSON constant {text}")


def loads(raw: bytes, floats: bool = False):
    """Parse bytes as bounded JSON; raise :class:`Refused` with the reason.

    ``floats`` lets an outcome record carry its wall-clock ``seconds``; they
    are kept as text, so nothing can compute with them.
    """
    limits.raw(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(f"not UTF-8 (byte {exc.start})") from None
    # floats=True keeps a float as its text (str of the text is the text): read, never computed with
    hooks = {"object_pairs_hook": _pairs, "parse_float": str if floats else _float, "parse_constant": _constant}
    try:
        value = limits.decode(text, hooks)  # json.loads(text, **hooks), or refused
    except json.JSONDecodeError as exc:
        raise Refused(f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    limits.depth(value)
    return value


def load(path: str, floats: bool = False):
    """Read ``path`` as bounded JSON: a regular file only, opened without blocking or following a link."""
    return loads(read(path), floats)


def read(path: str) -> bytes:
    """The bytes of ``path``: a regular file only, opened without blocking or following a link."""
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
        limits.opened(info.st_size)
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            limits.grown(total)
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)
