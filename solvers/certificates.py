"""The certificate envelope: one JSON shape for every kind of evidence.

A certificate is the data that lets :mod:`solvers.trusted` re-check a verdict
without the code that found it::

    {"format": "attnproof-certificate", "version": 1,
     "kind": "gordan" | "rational-point" | "exhaustive" | ...,
     "claim": "kernel_rank.softmax_three_tokens",
     "statement": "<sha256 of the claim's rendered statement>",
     "parameters": {"m": 4},
     "data": {...}}

Exact numbers travel as ints or as strings ``"p/q"``; floats are refused, so
that nothing decided exactly is re-read approximately.  This module is the
writing side (and imports the trusted checker's envelope and parser); the
checker itself, :mod:`solvers.trusted`, never imports it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from fractions import Fraction

from solvers.trusted import parse
from solvers.trusted.core import ENVELOPE_KEYS, FORMAT, VERSION, CertificateError, envelope  # noqa: F401


def statement_hash(rendered: str) -> str:
    """The sha256 of a claim's rendered statement, binding a certificate to it."""
    return hashlib.sha256(rendered.encode("utf-8")).hexdigest()


def rational(value) -> Fraction:
    """Read an exact number: an int or a string ``"p/q"`` / ``"p"`` (never a float)."""
    if isinstance(value, bool):
        raise CertificateError(f"expected an exact number, got the boolean {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, str):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError) as exc:
            raise CertificateError(f"not an exact rational: {value!r}") from exc
    raise CertificateError(f"expected an int or a string 'p/q', got {type(value).__name__} {value!r}")


def encode(value):
    """Turn exact Python values (Fraction, int, nested lists/dicts) into JSON-safe data."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, float):
        raise CertificateError(f"a float ({value!r}) cannot go into a certificate: give it exactly")
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    # python-flint numbers (fmpq, fmpz) and sympy Rationals print as p/q
    text = str(value)
    try:
        Fraction(text)
    except (ValueError, ZeroDivisionError) as exc:
        raise CertificateError(f"cannot encode {type(value).__name__} {value!r} exactly") from exc
    return encode(Fraction(text))


def make(kind: str, claim: str, statement: str, parameters: dict, data: dict) -> dict:
    """Build an envelope; ``statement`` is the sha256 from :func:`statement_hash`."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "kind": kind,
        "claim": claim,
        "statement": statement,
        "parameters": encode(parameters),
        "data": encode(data),
    }


def validate_envelope(cert) -> None:
    """Refuse anything that is not exactly a version-1 envelope (no extra keys)."""
    envelope(cert)


def dumps(cert: dict) -> str:
    """Canonical text: sorted keys, so the same certificate is the same bytes."""
    return json.dumps(cert, sort_keys=True, separators=(",", ":")) + "\n"


def umask() -> int:
    """The process's umask (read without changing it where the system says it: Linux's /proc)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str, text: str) -> None:
    """Write a file so that readers see either the old content or the new, never half.

    The file gets ``0666`` less the umask, as a plainly created file would
    (a temporary file is created ``0600``).
    """
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        os.fchmod(fd, 0o666 & ~umask())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def staged_folder(out: str, prefix: str = ".attnproof-stage-"):
    """Yield a fresh folder beside ``out`` to fill; on success it replaces ``out`` whole.

    Readers see the old folder or the new one, never half of either; on an
    error the stage is removed and ``out`` is left as it was.
    """
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=prefix, dir=parent)
    os.chmod(stage, 0o777 & ~umask())  # as a plainly made folder would be (mkdtemp makes it 0700)
    try:
        yield stage
        if os.path.exists(out):
            trash = tempfile.mkdtemp(prefix=".attnproof-old-", dir=parent)
            os.replace(out, os.path.join(trash, "old"))
            os.replace(stage, out)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(stage, out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def write(path: str, cert: dict) -> None:
    validate_envelope(cert)
    write_atomic(path, dumps(cert))


def read(path: str) -> dict:
    """Read a certificate with the trusted checker's bounded parser."""
    try:
        cert = parse.load(path)
    except parse.Refused as exc:
        raise CertificateError(f"{path}: {exc}") from None
    validate_envelope(cert)
    return cert
