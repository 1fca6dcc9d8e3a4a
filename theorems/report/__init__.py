"""The proof report: a static site (and the same content as Markdown) from the outcomes of a check.

``build(outcomes, out)`` has the trusted checker judge what ``attnproof
check`` wrote into ``outcomes`` (:func:`theorems.verification.verify`, run
once: every certificate re-checked, every outcome's obligations discharged
and bound to the installed claim) and writes into ``out``:

* ``index.html`` / ``index.md`` — the dashboard: first the papers (each headline sentence with one badge
  for the claims that read it, lemmas, variants, analogues and conjectures counted apart), a table of
  contents and an offline search; then the counts (links) and the legend (collapsed), then each sentence once with
  every registered claim serving it beneath — its relation to the sentence,
  its own badge (the rung the checker's verdicts earn), what the trusted
  checker accepted, its outcomes (status, unknown by why, partial, stale,
  when and with which code made) — then the dependency graph;
* ``claims/<id>.html`` / ``.md`` — a page per claim: sentence, reading
  (Markdown, its mathematics as MathML), the statement as one formula with
  its quantifiers, each outcome with what the trusted checker accepted (each
  obligation in words and the certificate that discharged it), the sympy
  steps as their own rung, the certificates (with the command that re-checks
  each), then what the check reported, unchecked, and plots;
* ``assets/`` — the stylesheet, the graph as SVG, the plots as SVG;
* ``data/`` — a copy of the outcome records and certificates, so the report
  is self-contained: ``attnproof verify data`` run inside it re-checks all;
* ``formal/`` — ``KDefs.v`` and ``KTheorems.v``, raw and as pages, for the
  Coq statements of the claims that name theorems of ``KTheorems.v``;
* ``coq/`` (``--coq`` only) — the Coq file of every obligation with a Coq
  counterpart, and of the certificates they rest on, as Coq compiled them
  (:mod:`theorems.report.coq`): an outcome whose verify obligations Coq all
  accepted shows the rung "checked by Coq" beside its own.

No font, no network: the pages open from disk (one small script runs the search and the graph's highlighting).  The output is a
function of the outcomes and the installed claims only (no clock, sorted
keys, reproducible plots), so two reports of the same outcomes are
byte-identical and can be diffed between versions.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

from solvers.certificates import staged_folder, write_atomic
from theorems import verification as trusted_verification
from theorems.core import Claim, Plot, registry
from theorems.report import coq as coq_stage
from theorems.report import model, plots

MARKER = ".attnproof-report"


class ReportError(ValueError):
    """The report cannot be written (no outcomes, or an output folder that is not a report)."""


@dataclass
class Figure:
    plot: Plot
    path: str  # relative to the report root, '/'-separated
    svg: bytes


@dataclass
class Report:
    entries: list[model.Entry]
    orphans: list[model.Point]
    verification: trusted_verification.Verification
    outcomes_root: str = ""  # the outcomes folder, absolute: paths under it are shown relative to it
    figures: dict[str, list[Figure]] = field(default_factory=dict)  # by point folder
    plot_errors: dict[str, str] = field(default_factory=dict)
    coq: coq_stage.CoqRun | None = None  # the third stage, when the report ran it (--coq); None: not run

    @property
    def rejected(self) -> list[dict]:
        """The checker's lines of the certificate files it did not accept."""
        return [c for c in self.verification.certificates if c.get("status") != "accepted"]

    @property
    def as_expected(self) -> bool:
        """Every outcome stands and is as its claim expects, and the checker accepted every file."""
        return (all(p.as_expected for e in self.entries for p in e.points)
                and not any(e.standing.loud for e in self.entries)
                and not self.orphans and not self.rejected and not self.verification.error
                and (self.coq is None or self.coq.accepted))


def assemble(outcomes: str, claims: dict[str, Claim] | None = None, coq: bool = False) -> Report:
    """Have the trusted checker judge the outcomes, read them, draw the figures; nothing is written yet.

    The binding (stage 2) is to the installed claims, ``registry()``; ``claims``
    only chooses which claims get an entry.  With ``coq``, the third stage of
    ``verify --coq`` runs over the same verification (:func:`theorems.report.coq.run`;
    ``theorems.formal.FormalError`` when Coq cannot run).
    """
    if not os.path.isfile(os.path.join(outcomes, "outcomes.json")):
        raise ReportError(f"no outcomes in {outcomes} (run attnproof check first)")
    claims = registry() if claims is None else claims
    root = os.path.abspath(outcomes)
    judged = trusted_verification.verify([root])
    entries, orphans = model.collect(outcomes, claims, judged)
    report = Report(entries, orphans, judged, root)
    if coq:
        report.coq = coq_stage.run(judged)
    for entry in entries:
        for point in entry.points:
            found: list[Plot] = []
            try:
                found += list(entry.claim.plots(point.record))
            except Exception as exc:  # a broken figure must not hide the verdicts
                report.plot_errors[point.folder] = f"{type(exc).__name__}: {exc}"
            if not found:  # the claim draws nothing itself: draw its tables of numbers
                found += plots.tables(point.record, model.point_text(point.parameters))
            figures = []
            for plot in found:
                path = f"assets/plots/{entry.id}/{model.safe(point.slug)}-{model.safe(plot.name)}.svg"
                figures.append(Figure(plot, path, plots.draw(plot)))
            report.figures[point.folder] = figures
    return report


def render(report: Report) -> dict[str, bytes]:
    """Every file of the site and its Markdown copy, by relative path."""
    from theorems.report import markdown, site

    files = site.render(report) | markdown.render(report) | coq_stage.source_files()
    if report.coq is not None:
        files |= report.coq.files
    for figures in report.figures.values():
        for figure in figures:
            files[figure.path] = figure.svg
    return files


def data_files(outcomes: str, report: Report) -> dict[str, str]:
    """The outcome records and certificates to copy into ``data/``: ``{relative path: source}``."""
    files = {"data/outcomes.json": os.path.join(outcomes, "outcomes.json")}
    for point in [p for e in report.entries for p in e.points] + report.orphans:
        record = os.path.join(outcomes, *point.folder.split("/"), "outcome.json")
        if os.path.isfile(record):
            files[f"data/{point.folder}/outcome.json"] = record
        for cert in point.certificates:
            if os.path.isfile(cert.source):
                files[cert.relpath] = cert.source
    return files


def build(outcomes: str, out: str, claims: dict[str, Claim] | None = None, coq: bool = False) -> Report:
    """Write the report for ``outcomes`` into ``out``, replacing a previous report there.

    The report is staged beside ``out`` and swapped in, so a reader never sees
    half a report.  ``out`` must be absent, empty, or a previous report.
    """
    if os.path.exists(out) and (not os.path.isdir(out) or (os.listdir(out) and not os.path.exists(os.path.join(out, MARKER)))):
        raise ReportError(f"{out} exists and is not a report folder; choose another --out")
    report = assemble(outcomes, claims, coq)
    files = render(report)
    with staged_folder(out, prefix=".attnproof-report-") as stage:
        for rel, content in sorted(files.items()):
            write_atomic(os.path.join(stage, *rel.split("/")), content.decode("utf-8"))
        for rel, source in sorted(data_files(outcomes, report).items()):
            target = os.path.join(stage, *rel.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
        write_atomic(os.path.join(stage, MARKER), "written by attnproof report; the folder is replaced by the next report\n")
        _readable(stage)
    return report


def _readable(folder: str) -> None:
    """A report is for reading (perhaps served by a web server): files 644, folders 755."""
    os.chmod(folder, 0o755)
    for root, dirs, names in os.walk(folder):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
        for name in names:
            os.chmod(os.path.join(root, name), 0o644)
