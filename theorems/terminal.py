"""What ``attnproof check`` shows on the terminal: the outcome table, the estimates, progress.

The table has one row per claim and point: the point, the status (and what
the claim expected, when it differs), the rung earned, the sizes covered
(the point's size parameters only: ``Parameter.is_size``; flags and seeds
are no sizes), the seconds and the result (:func:`result_text`): the
judgments the check discharged, rendered from their data
(:func:`theorems.judgments.words`), never from the claim's free text; the
claim's own message follows, labelled "remark:".  Wrapped, never cut.

Every name and message printed passes through :func:`printable`: a claim id,
folder or message holding terminal control codes is shown, escaped, and
never rewrites the screen.

Progress is drawn (by rich, on standard error) only when standard error is a
terminal; otherwise each finished point is one plain line there, so pipes,
logs and tests get text, not control codes.

rich is imported when something is drawn, not with this module (``cli``
imports :func:`printable` and :func:`format_seconds` for every command).
"""

from __future__ import annotations

import os
import shutil
import sys
import unicodedata
from contextlib import contextmanager

WIDTH = 150  # columns of the table when standard output is not a terminal (a pipe, a file, a test)
STYLE = {"verified": "green", "refuted": "red", "unknown": "yellow"}
SHOWN = 3  # discharged obligations listed per row; the others are counted (verify --details lists each)


def printable(text, newlines: bool = False) -> str:
    """``text`` with every character that is not printable escaped (``\\x1b``, ``\\u202e``): C0 and C1
    control codes (escape sequences, carriage return, backspace, bell), bidirectional overrides, line
    separators, format and unassigned characters.  Spaces stay; newlines too when ``newlines``.

    The one helper for every name and message the terminal shows: a claim id, a folder or a claim's
    message cannot move the cursor, clear the screen or restyle the terminal.
    """
    text = str(text)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or (ch == "\n" and newlines) or unicodedata.category(ch) == "Zs":
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def format_seconds(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def console(stream=None):
    from rich.console import Console

    stream = stream or sys.stdout
    tty = stream.isatty()
    width = shutil.get_terminal_size((WIDTH, 24)).columns if tty else _columns()
    return Console(file=stream, width=width, force_terminal=tty, no_color=not tty, highlight=False, soft_wrap=False)


def _columns() -> int:
    try:
        return max(60, int(os.environ.get("COLUMNS", WIDTH)))
    except ValueError:
        return WIDTH


def covered_text(sizes: dict, between: str = ", ") -> str:
    return between.join(f"{k}={v}" for k, v in sizes.items()) or "-"


def _obligations(record: dict) -> list[tuple[str, dict, bool]]:
    """(side, judgment, discharged) for each obligation of an outcome record, verify first.

    Whether it is discharged is read from ``discharged`` (one entry per obligation, in the same
    order); a record whose entries do not line up with its obligations counts none as discharged.
    """
    obligations = record.get("obligations") if isinstance(record.get("obligations"), dict) else {}
    rows = [(side, o.get("judgment") if isinstance(o, dict) else o)
            for side in ("verify", "refute") for o in (obligations.get(side) or [])]
    marks = record.get("discharged") if isinstance(record.get("discharged"), list) else []
    lined_up = len(marks) == len(rows) and all(isinstance(d, dict) and d.get("side") == side for d, (side, _) in zip(marks, rows))
    return [(side, judgment, bool(lined_up and marks[k].get("certificate"))) for k, (side, judgment) in enumerate(rows)]


def _chosen(judgments: list) -> list:
    """At most ``SHOWN`` of ``judgments``, one of each judgment name first (a rank bound is not hidden behind
    three witnesses of one kind), in their own order."""
    names: dict = {}
    for k, j in enumerate(judgments):
        names.setdefault(j.get("judgment") if isinstance(j, dict) else None, []).append(k)
    picked: list[int] = []
    queues = list(names.values())
    while len(picked) < min(SHOWN, len(judgments)):
        for queue in queues:
            if queue and len(picked) < SHOWN:
                picked.append(queue.pop(0))
    return [judgments[k] for k in sorted(picked)]


def _listed(judgments: list, label: str = "") -> list[str]:
    from theorems.judgments import words

    shown = [label + printable(words(j)) for j in _chosen(judgments)]
    if len(judgments) > SHOWN:
        shown.append(f"and {len(judgments) - SHOWN} more{' ' + label.rstrip(': ') if label else ''} "
                     "(attnproof verify --details lists each)")
    return shown


def result_text(record: dict) -> str:
    """What a point's check established, from the judgments it discharged, then the claim's message as a remark.

    ``verified``: the verify obligations (each discharged); ``refuted``: the refute obligations
    discharged; ``unknown``: the error if the claim's code raised, otherwise the verify obligations
    discharged and the first not discharged.  Each judgment is rendered from its data
    (:func:`theorems.judgments.words`), at most ``SHOWN`` of a kind, the others counted; the
    claim's free-text ``message`` comes last, as "remark: ...", and never in place of a judgment.
    """
    from theorems.core import error_words

    rows = _obligations(record)
    status = record.get("status")
    unknown = record.get("unknown") if isinstance(record.get("unknown"), dict) else {}
    error = unknown.get("error") if status == "unknown" and isinstance(unknown.get("error"), dict) else None
    lines: list[str] = []
    if error:
        lines.append("error: " + printable(error_words(error)))
    elif status == "verified":
        lines += _listed([j for side, j, done in rows if side == "verify" and done])
    elif status == "refuted":
        lines += _listed([j for side, j, done in rows if side == "refute" and done])
    else:
        lines += _listed([j for side, j, done in rows if side == "verify" and done], "discharged: ")
        lines += _listed([j for side, j, done in rows if side == "verify" and not done], "not discharged: ")
    if not rows and not error:
        lines.append("no obligations stated")
    message = record.get("message")
    if message and not error:  # a raised check's message is attnproof's own, said on the error line
        lines.append("remark: " + printable(message))
    return "\n".join(lines)


def outcome_table(rows: list[dict]):
    """``rows``: an outcome record each, with ``point`` (its slug) and ``sizes`` (its size parameters) added.

    Claims are grouped by the first part of their id (``kernel_rank``,
    ``softmax_rank``, ``conjectures``), shown once as a heading row.  Every
    cell is plain text (``Text``): nothing a claim wrote is read as markup.
    """
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, pad_edge=False, header_style="bold", show_lines=False, expand=True)
    table.add_column("claim", no_wrap=True)
    table.add_column("point", overflow="fold", max_width=24)
    table.add_column("status", no_wrap=True)
    table.add_column("rung", overflow="fold", min_width=16, ratio=2)
    table.add_column("covered", overflow="fold", no_wrap=True)
    table.add_column("s", justify="right", no_wrap=True)
    table.add_column("result", overflow="fold", min_width=24, ratio=4)
    group = None
    for r in rows:
        head, _, name = r["claim"].rpartition(".")
        if head != group:
            group = head
            table.add_row(Text(printable(f"{head}."), style="bold"), *[""] * 6)
        status = Text(printable(r["status"]), style=STYLE.get(r["status"], ""))
        if r["status"] != r["expected"]:
            status.append(printable(f"\n(expected\n{r['expected']})", newlines=True), style="bold red")
        unknown = r.get("unknown") if isinstance(r.get("unknown"), dict) else {}
        if r["status"] == "unknown" and unknown.get("error"):
            status.append("\n(raised)", style="bold red")
        cells = [f"  {name}", r["point"], r.get("rung", ""), covered_text(r["sizes"], "\n")]
        name_cell, point_cell, rung_cell, covered_cell = (Text(printable(c, newlines=True)) for c in cells)
        table.add_row(name_cell, point_cell, status, rung_cell, covered_cell, Text(f"{r['seconds']:.1f}"), Text(result_text(r)))
    return table


def estimate_table(rows: list[tuple[str, str, dict, float, bool]]):
    """``rows``: (claim, point slug, sizes, estimated seconds, within the budget)."""
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("claim", no_wrap=True)
    table.add_column("point", overflow="fold", max_width=40)
    table.add_column("covered", overflow="fold")
    table.add_column("estimate", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    for claim, point, sizes, seconds, fits in rows:
        table.add_row(Text(printable(claim)), Text(printable(point)), Text(printable(covered_text(sizes))), format_seconds(seconds),
                      "" if fits else Text("over the budget", style="red"))
    return table


class _Plain:
    """Progress as plain lines on standard error: one per finished point, after the count so far
    (``meter``: "[3/20 point(s) done, 12.0 s elapsed, about 40.0 s left]", from solvers.parallel.Progress)."""

    def __init__(self, total: int):
        self.total, self.done = total, 0

    def finished(self, claim: str, point: str, status: str, seconds: float, meter: str = "") -> None:
        self.done += 1
        count = meter or f"[{self.done}/{self.total}]"
        print(printable(f"{count} {claim} {point}: {status} ({seconds:.1f} s)"), file=sys.stderr, flush=True)

    def said(self, text: str, newlines: bool = False) -> None:
        """A line (or, with ``newlines``, lines) of its own on standard error, between the progress lines."""
        print(printable(text, newlines), file=sys.stderr, flush=True)


class _Live:
    """Progress drawn by rich on standard error: a bar, the time so far, the last point finished."""

    def __init__(self, progress, total: int):
        self.progress, self.done = progress, 0
        self.task = progress.add_task("checking", total=total)

    def finished(self, claim: str, point: str, status: str, seconds: float, meter: str = "") -> None:
        from rich.text import Text

        self.done += 1
        self.progress.update(self.task, advance=1, description=printable(meter.strip("[]") or f"last: {claim} {point}"))
        line = Text(printable(f"{claim} {point}: "))
        line.append(printable(status), style=STYLE.get(status, ""))
        line.append(f" ({seconds:.1f} s)")
        self.progress.console.print(line, highlight=False)

    def said(self, text: str, newlines: bool = False) -> None:
        """A line (or lines) of its own above the bar."""
        from rich.text import Text

        self.progress.console.print(Text(printable(text, newlines)), highlight=False)


@contextmanager
def progress(total: int):
    """A progress display for ``total`` points; yields an object with ``finished(claim, point, status, seconds, meter)``
    and ``said(text)`` (a line of its own: a claim whose code raised)."""
    if not sys.stderr.isatty():
        yield _Plain(total)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(SpinnerColumn(), MofNCompleteColumn(), BarColumn(), TimeElapsedColumn(), TextColumn("{task.description}"),
                   console=Console(file=sys.stderr), transient=True, refresh_per_second=4)
    with bar:
        yield _Live(bar, total)
