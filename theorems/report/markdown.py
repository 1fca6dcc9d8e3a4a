"""The same report as Markdown (``index.md``, ``claims/<id>.md``): statements as TeX, graph as Mermaid."""

from __future__ import annotations

import re
from urllib.parse import quote

import sympy

from theorems.core import LADDER
from theorems.report import graph, mathml, model, values


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def dashboard(report) -> str:
    entries = report.entries
    lines = ["# attnproof — proof report", "",
             "Every registered claim: what the paper *states* beside what a check *established* here. "
             "Re-check every certificate with `attnproof verify data` in this folder.", ""]
    wrong = [e for e in entries if e.standing.loud]
    if wrong:
        lines += [f"**{len(wrong)} claim(s) NOT AS EXPECTED:** " + ", ".join(f"[`{e.id}`](claims/{quote(e.id)}.md)" for e in wrong), ""]
    lines += ["| claim | the paper states | established here | a passing check establishes | outcomes | rests on |",
              "|---|---|---|---|---|---|"]
    for e in entries:
        outcomes = "; ".join(
            f"{p.slug}: {p.record.get('status')}" + ("" if p.as_expected else f" (**expected {p.record.get('expected')}**)")
            + f" {float(p.record.get('seconds', 0)):.2f} s" for p in e.points) or "none"
        rests = ", ".join(f"`{u}`" for u in e.claim.uses) or "nothing"
        lines.append(f"| [`{e.id}`](claims/{quote(e.id)}.md) {_cell(e.claim.title)} | arXiv:{e.claim.paper}: {_cell(e.claim.sentence)} "
                     f"| **{_cell(e.standing.label)}** — {_cell(e.standing.detail)} | {_cell(LADDER.get(e.claim.established, ''))} "
                     f"| {_cell(outcomes)} | {rests} |")
    nodes = {e.id: tuple(e.claim.uses) for e in entries}
    lines += ["", "## Dependency graph", "", "An arrow from B to A: A rests on B. Drawn: [assets/graph.svg](assets/graph.svg).", "",
              "```mermaid", graph.mermaid(nodes).rstrip("\n"), "```", ""]
    if report.orphans:
        lines += ["## Outcomes of claims not installed", ""]
        lines += [f"- `{p.folder}`: {p.record.get('status')} — {p.record.get('message', '')}" for p in report.orphans]
        lines.append("")
    return "\n".join(lines)


def claim_page(report, entry) -> str:
    claim = entry.claim
    lines = [f"[← all claims](../index.md)", "", f"# {claim.title}", "",
             f"`{entry.id}` · arXiv:{claim.paper} *{model.paper_title(claim.paper)}*", "",
             f"**Established here: {entry.standing.label}** — {entry.standing.detail}", "",
             f"A passing check establishes: {LADDER.get(claim.established, claim.established)} "
             f"(expects `{claim.expected}` at the default point).", "",
             "## What the paper states", "", f"> {claim.sentence}", "",
             "## Our reading", "", _docstring(entry.reading) or "(no reading given)", "",
             "## The statement checked", ""]
    try:
        statement = claim.statement()
        rows = [("assume", h) for h in statement.hypotheses] + [("then", statement.conclusion)]
    except Exception as exc:  # a claim under construction must not take the whole report down
        rows = []
        lines.append(f"**The statement could not be built:** {type(exc).__name__}: {exc}")
    for word, (expr, words) in rows:
        note = " (the sympy object evaluates to true: the words carry this hypothesis)" if expr is sympy.true else ""
        lines.append(f"- **{word}** ${mathml.sympy_tex(expr)}$ — {words}{note}")
    lines += ["", "## Rests on", ""]
    lines += [f"- [`{u}`]({quote(u)}.md)" for u in claim.uses] or ["nothing: it stands on its own check."]
    lines += ["", "## Parameters", "", "| name | default | allowed | meaning |", "|---|---|---|---|"]
    lines += [f"| `{p.name}` | {p.default} | {p.allowed()} | {_cell(p.doc)} |" for p in claim.parameters]
    if not entry.points:
        lines += ["", "## Outcomes", "", f"No outcome in this report: `attnproof check {entry.id}` then `attnproof report`."]
    for point in entry.points:
        lines += [""] + _point(report, point)
    return "\n".join(lines) + "\n"


def _point(report, point) -> list[str]:
    r = point.record
    mark = "" if point.as_expected else f" — **NOT AS EXPECTED: the claim expects {r.get('expected')}**"
    lines = [f"## Outcome at `{point.slug}`", "", f"**{r.get('status')}**{mark} — {r.get('message', '')}", "",
             f"Parameters: {model.point_text(r.get('parameters') or {})}. Time: {float(r.get('seconds', 0)):.2f} s. "
             f"Record: [data/{point.folder}/outcome.json](../data/{quote(point.folder, safe='/')}/outcome.json)", ""]
    if r.get("counterexample") is not None:
        lines += ["### Counterexample", "", values.to_markdown(r["counterexample"]), ""]
    covered = dict(r.get("covered") or {})
    covered.pop("certificates", None)
    lines += ["### What was checked, and up to where", "", values.to_markdown(covered), ""]
    facts = r.get("facts") or {}
    witness = {k: v for k, v in facts.items() if "witness" in k or k.startswith("worst")}
    if witness:
        lines += ["### Witness and worst case", "", values.to_markdown(witness), ""]
    lines += ["### Certificates", ""]
    if point.certificates:
        lines += ["Re-check each in this report's folder:", "", "| kind | accepted as | file | re-check |", "|---|---|---|---|"]
        for cert in point.certificates:
            problem = f" **{cert.problem}**" if cert.problem else ""
            lines.append(f"| `{cert.kind}` | {_cell(cert.summary)}{problem} | [{cert.relpath.rsplit('/', 1)[1]}](../{quote(cert.relpath, safe='/')}) "
                         f"| `attnproof verify {cert.relpath}` |")
    else:
        lines.append("none")
    lines += ["", "### Facts", "", values.to_markdown(facts), ""]
    if point.folder in report.plot_errors:
        lines += [f"**The claim's plots failed:** {report.plot_errors[point.folder]}", ""]
    for figure in report.figures.get(point.folder, []):
        lines += [f"![{figure.plot.title}](../{quote(figure.path, safe='/')})", "", f"*{figure.plot.title}*"
                  + (f" — {figure.plot.note}" if figure.plot.note else ""), ""]
    return lines


def _docstring(doc: str) -> str:
    """Docstring markup to Markdown: ``code`` becomes `code`; the rest is already Markdown-like."""
    return re.sub(r"``(.+?)``", r"`\1`", doc.strip())


def render(report) -> dict[str, bytes]:
    files = {"index.md": dashboard(report).encode("utf-8")}
    for entry in report.entries:
        files[f"claims/{entry.id}.md"] = claim_page(report, entry).encode("utf-8")
    return files
