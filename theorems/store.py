"""The outcome folder: where ``attnproof check`` keeps outcomes, one folder per claim and point.

Layout of an outcome folder ``OUT``::

    OUT/.attnproof-outcomes              the marker: this folder is attnproof's to write
    OUT/outcomes.json                    every outcome below, as a list (remade by each run)
    OUT/<claim id>/<point slug>/outcome.json
    OUT/<claim id>/<point slug>/NN-<kind>.cert.json

Rules, each decided before any work starts (:func:`prepare`) or while writing
(:func:`write`):

* **Never another's folder.**  An existing ``OUT`` must be an outcome folder
  (it holds the marker, or is empty, or is a folder written before the
  marker existed: ``outcomes.json`` and folders only); anything else — a
  folder with ``notes.txt``, a regular file, the working directory — is
  refused with exit status 2, and nothing is written.
* **Writable, checked first.**  ``OUT`` (or, if it does not exist yet, its
  nearest existing parent) must accept a file now: a read-only mount,
  ``/proc``, a folder without write permission (mode bits without any ``w``
  count as read-only even for root: the owner said so) are refused before
  the check runs, not after it.
* **Runs accumulate.**  A run replaces only the (claim, point) folders it
  re-ran; every other outcome stays.  ``outcomes.json`` is remade from the
  outcome files present.
* **Atomic per point.**  Points are written into a stage folder inside
  ``OUT``; each point folder is then swapped in by a rename (a reader sees
  the old point or the new one, never half).  Ctrl-C during a run leaves
  every point in ``OUT`` whole (``attnproof check`` writes each point as it
  finishes); Ctrl-C during a swap (a few renames) is held until it is done.
* **The user's umask.**  Files and folders get ``0666``/``0777`` less the
  umask, as any other program's output would.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import threading
from contextlib import contextmanager

from solvers import certificates
from solvers.trusted import parse

MARKER = ".attnproof-outcomes"
MARKER_TEXT = "attnproof-outcomes/1\nwritten by attnproof check: outcomes per claim and point; each run replaces the points it re-ran\n"
LIST = "outcomes.json"
OUTCOME = "outcome.json"
STAGE_PREFIX = ".attnproof-stage-"
CHECK_FORMAT = "attnproof-check/1"  # the format of ``attnproof check --json``


class OutputError(Exception):
    """``--out`` cannot be used (a usage error: exit status 2); nothing was written."""


# ------------------------------------------------------------------ refusing


def is_outcome_folder(path: str) -> bool:
    """True for a folder attnproof may write outcomes into: marked, empty, or an unmarked earlier outcome folder."""
    names = os.listdir(path)
    if MARKER in names or not names:
        return True
    # written by a version before the marker: outcomes.json beside claim folders and nothing else of anyone's
    return LIST in names and all(
        n == LIST or n.startswith(".attnproof-") or (os.path.isdir(os.path.join(path, n)) and not os.path.islink(os.path.join(path, n)))
        for n in names
    )


def _unwritable(folder: str) -> str:
    """Why ``folder`` cannot take a new file now, or "" if it can (tried, not guessed)."""
    mode = os.stat(folder).st_mode
    if not mode & 0o222:
        return f"{folder} is read-only (mode {mode & 0o777:o})"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} is not writable by this user"
    try:
        fd, probe = tempfile.mkstemp(prefix=".attnproof-probe-", dir=folder)
    except OSError as exc:
        return f"cannot write into {folder}: {exc.strerror or exc}"
    os.close(fd)
    os.unlink(probe)
    return ""


def prepare(out: str) -> None:
    """Refuse ``out`` now, before any work, if a run could not write its outcomes there (raises OutputError)."""
    path = os.path.abspath(out)
    try:
        if os.path.lexists(path):
            if not os.path.isdir(path):
                raise OutputError(f"--out {out} exists and is not a folder; choose another --out")
            if not is_outcome_folder(path):
                raise OutputError(f"--out {out} exists and is not an attnproof outcome folder (it has no {MARKER}); "
                                  "choose another --out (a new or empty folder, or one a check wrote)")
            why = _unwritable(path)
        else:
            parent = os.path.dirname(path)
            while not os.path.lexists(parent):
                parent = os.path.dirname(parent)
            if not os.path.isdir(parent):
                raise OutputError(f"--out {out} cannot be made: {parent} is not a folder")
            why = _unwritable(parent)
    except OSError as exc:  # a folder we may not even list
        raise OutputError(f"--out {out} cannot be used: {exc.strerror or exc}") from None
    if why:
        raise OutputError(f"--out {out} cannot be written: {why}")


def check_names(points: list[tuple[str, str]]) -> None:
    """Each (claim id, point slug) must be one plain folder name: never a path, never hidden (raises OutputError)."""
    for pair in points:
        for name in pair:
            if not name or name.startswith(".") or "/" in name or os.sep in name or "\0" in name:
                raise OutputError(f"cannot name a folder {name[:80]!r}: a claim id or point must be one plain folder name")


# ------------------------------------------------------------------- writing


def umask() -> int:
    return certificates.umask()


@contextmanager
def _interrupts_held():
    """Hold Ctrl-C while the point folders are swapped in (a few renames), then raise it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _remove_stale_stages(out: str) -> None:
    """Stage folders of runs that were killed (their process is gone)."""
    for name in os.listdir(out):
        if not name.startswith(STAGE_PREFIX):
            continue
        pid = name[len(STAGE_PREFIX):].partition("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(os.path.join(out, name), ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def write(out: str, points: list[tuple[str, str, dict, list[dict]]], relist: bool = True) -> None:
    """Write each ``(claim id, point slug, outcome record, certificate envelopes)`` and swap it in.

    The certificate envelopes are written as the record's ``certificates``
    names them, beside ``outcome.json``.  Other points of ``out`` are kept.
    ``relist``: remake ``outcomes.json`` too (a run of many points passes False
    and remakes it once when it ends: each remake reads and writes every record).
    """
    check_names([(claim_id, slug) for claim_id, slug, _, _ in points])
    os.makedirs(out, exist_ok=True)
    if not os.path.exists(os.path.join(out, MARKER)):
        certificates.write_atomic(os.path.join(out, MARKER), MARKER_TEXT)
    _remove_stale_stages(out)
    stage = tempfile.mkdtemp(prefix=f"{STAGE_PREFIX}{os.getpid()}-", dir=out)
    os.chmod(stage, 0o777 & ~umask())
    try:
        for claim_id, slug, record, envelopes in points:
            folder = os.path.join(stage, claim_id, slug)
            for name, envelope in zip(record["certificates"], envelopes, strict=True):
                certificates.write(os.path.join(folder, name), envelope)
            certificates.write_atomic(os.path.join(folder, OUTCOME), json.dumps(record, indent=1, sort_keys=True) + "\n")
        with _interrupts_held():
            for claim_id, slug, _, _ in points:
                target = os.path.join(out, claim_id, slug)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                if os.path.lexists(target):
                    os.replace(target, os.path.join(stage, f".old-{claim_id}-{slug}"))
                os.replace(os.path.join(stage, claim_id, slug), target)
            if relist:
                write_list(out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def read_all(out: str) -> list[dict]:
    """Every readable ``<claim>/<point>/outcome.json`` in ``out``, sorted by claim and point folder."""
    records = []
    for claim_dir in sorted(os.listdir(out)):
        base = os.path.join(out, claim_dir)
        if claim_dir.startswith(".") or not os.path.isdir(base) or os.path.islink(base):
            continue
        for slug in sorted(os.listdir(base)):
            path = os.path.join(base, slug, OUTCOME)
            if not os.path.isfile(path):
                continue
            try:
                if os.path.getsize(path) > parse.MAX_BYTES:
                    continue
                with open(path, encoding="utf-8") as handle:
                    record = json.load(handle)
            except (OSError, ValueError, RecursionError):
                continue  # an unreadable outcome is the report's and verify's to name; the list omits it
            if isinstance(record, dict):
                records.append(record)
    return records


def write_list(out: str) -> list[dict]:
    """Remake ``outcomes.json``: every outcome in the folder, this run's and earlier runs' alike."""
    records = read_all(out)
    certificates.write_atomic(os.path.join(out, LIST), json.dumps(records, indent=1, sort_keys=True) + "\n")
    return records
