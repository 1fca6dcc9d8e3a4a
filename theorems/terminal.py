"""What ``attnproof check`` shows on the terminal: the outcome table, the estimates, progress.

The table has one row per claim and point: the point, the status (and what
the claim expected, when it differs), the rung earned, the sizes covered
(the point's size parameters only: ``Parameter.is_size``; flags and seeds
are no sizes), the seconds and the whole message, wrapped, never cut.

Progress is drawn (by rich, on standard error) only when standard error is a
terminal; otherwise each finished point is one plain line there, so pipes,
logs and tests get text, not control codes.
"""

from __future__ import annotations

import os
import shutil
import sys
from contextlib import contextmanager

from rich.console import Console
from rich.table import Table
from rich.text import Text

from theorems.cli import format_seconds  # cli imports this module only when it draws

WIDTH = 150  # columns of the table when standard output is not a terminal (a pipe, a file, a test)
STYLE = {"verified": "green", "refuted": "red", "unknown": "yellow"}


def console(stream=None) -> Console:
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


def outcome_table(rows: list[dict]) -> Table:
    """``rows``: an outcome record each, with ``point`` (its slug) and ``sizes`` (its size parameters) added.

    Claims are grouped by the first part of their id (``kernel_rank``,
    ``softmax_rank``, ``conjectures``), shown once as a heading row.
    """
    table = Table(box=None, pad_edge=False, header_style="bold", show_lines=False, expand=True)
    table.add_column("claim", no_wrap=True)
    table.add_column("point", overflow="fold", max_width=24)
    table.add_column("status", no_wrap=True)
    table.add_column("rung", overflow="fold", min_width=16, ratio=2)
    table.add_column("covered", overflow="fold", no_wrap=True)
    table.add_column("s", justify="right", no_wrap=True)
    table.add_column("message", overflow="fold", min_width=24, ratio=4)
    group = None
    for r in rows:
        head, _, name = r["claim"].rpartition(".")
        if head != group:
            group = head
            table.add_row(Text(f"{head}.", style="bold"), *[""] * 6)
        status = Text(r["status"], style=STYLE.get(r["status"], ""))
        if r["status"] != r["expected"]:
            status.append(f"\n(expected\n{r['expected']})", style="bold red")
        table.add_row(f"  {name}", r["point"], status, r.get("rung", ""), covered_text(r["sizes"], "\n"), f"{r['seconds']:.1f}", r["message"])
    return table


def estimate_table(rows: list[tuple[str, str, dict, float, bool]]) -> Table:
    """``rows``: (claim, point slug, sizes, estimated seconds, within the budget)."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("claim", no_wrap=True)
    table.add_column("point", overflow="fold", max_width=40)
    table.add_column("covered", overflow="fold")
    table.add_column("estimate", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    for claim, point, sizes, seconds, fits in rows:
        table.add_row(claim, point, covered_text(sizes), format_seconds(seconds), "" if fits else Text("over the budget", style="red"))
    return table


class _Plain:
    """Progress as plain lines on standard error: one per finished point, after the count so far
    (``meter``: "[3/20 point(s) done, 12.0 s elapsed, about 40.0 s left]", from solvers.parallel.Progress)."""

    def __init__(self, total: int):
        self.total, self.done = total, 0

    def finished(self, claim: str, point: str, status: str, seconds: float, meter: str = "") -> None:
        self.done += 1
        count = meter or f"[{self.done}/{self.total}]"
        print(f"{count} {claim} {point}: {status} ({seconds:.1f} s)", file=sys.stderr, flush=True)


class _Live:
    """Progress drawn by rich on standard error: a bar, the time so far, the last point finished."""

    def __init__(self, progress, total: int):
        self.progress, self.done = progress, 0
        self.task = progress.add_task("checking", total=total)

    def finished(self, claim: str, point: str, status: str, seconds: float, meter: str = "") -> None:
        self.done += 1
        self.progress.update(self.task, advance=1, description=meter.strip("[]") or f"last: {claim} {point}")
        self.progress.console.print(f"{claim} {point}: [{STYLE.get(status, '')}]{status}[/] ({seconds:.1f} s)", highlight=False)


@contextmanager
def progress(total: int):
    """A progress display for ``total`` points; yields an object with ``finished(claim, point, status, seconds, meter)``."""
    if not sys.stderr.isatty():
        yield _Plain(total)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(SpinnerColumn(), MofNCompleteColumn(), BarColumn(), TimeElapsedColumn(), TextColumn("{task.description}"),
                   console=Console(file=sys.stderr), transient=True, refresh_per_second=4)
    with bar:
        yield _Live(bar, total)
