"""The HTML pages: the dashboard and one page per claim.  Static, no script, MathML for mathematics."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

import sympy

from theorems.core import LADDER
from theorems.report import graph, mathml, model, values

STYLE = """\
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 84rem; margin: 0 auto;
       padding: 1rem 1.5rem 4rem; color: #1f2328; line-height: 1.5; }
a { color: #0969da; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.92em; }
pre { background: #f6f8fa; padding: 0.6rem 0.8rem; overflow-x: auto; }
code.token { background: #ddf4ff; padding: 0 0.2em; border-radius: 3px; }
nav { margin-bottom: 1rem; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: 0.2rem; margin-top: 2rem; }
blockquote { border-left: 4px solid #d0d7de; margin: 0.5rem 0; padding: 0.2rem 1rem; color: #424a53; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #d0d7de; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
table.facts table.facts { margin: 0; }
.badge { display: inline-block; padding: 0.05rem 0.5rem; border-radius: 1rem; color: #fff; font-size: 0.85em;
         white-space: nowrap; }
.proved { background: #1a7f37; } .verified { background: #2da44e; } .searched { background: #9a6700; }
.open { background: #8250df; } .refuted { background: #a40e26; } .unknown { background: #6e7781; }
.not-run, .stated { background: #6e7781; } .mismatch { background: #ff0000; font-weight: bold; }
.loud { border: 3px solid #ff0000; background: #ffebe9; padding: 0.6rem 1rem; font-weight: bold; }
.standing { border: 1px solid #d0d7de; padding: 0.6rem 1rem; background: #f6f8fa; }
.approx, .more, .muted { color: #656d76; }
.statement td:first-child { font-weight: bold; white-space: nowrap; }
td > code:first-child { white-space: nowrap; }
figure { margin: 1rem 0; } figure img { max-width: 100%; border: 1px solid #d0d7de; }
figcaption { color: #656d76; font-size: 0.9em; }
svg.graph { display: block; }
svg.graph a.node:hover rect { fill: #ddf4ff; }
.scroll { overflow-x: auto; }
table.dashboard { width: 100%; } table.dashboard td { overflow-wrap: break-word; }
table.dashboard code { font-size: 0.85em; }
table.dashboard td:nth-child(1) { width: 22%; } table.dashboard td:nth-child(2) { width: 28%; }
math { font-size: 1.05em; }
math[display="block"] { margin: 0.3rem 0; }
"""


def page(title: str, body: str, root: str) -> bytes:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}</title>\n"
        f"<link rel=\"stylesheet\" href=\"{root}assets/style.css\">\n"
        "</head>\n<body>\n" + body + "\n</body>\n</html>\n"
    ).encode("utf-8")


def claim_href(claim_id: str, root: str) -> str:
    return f"{root}claims/{quote(claim_id)}.html"


def badge(key: str, label: str) -> str:
    return f'<span class="badge {html.escape(key)}">{html.escape(label)}</span>'


# ------------------------------------------------------------------ reading


def docstring_html(doc: str) -> str:
    """A module docstring as HTML: paragraphs, bullet lists, indented blocks, ``code``, $math$."""
    blocks = re.split(r"\n\s*\n", doc.strip("\n"))
    out = []
    for block in blocks:
        lines = block.split("\n")
        if all(line.startswith("    ") or not line.strip() for line in lines):
            out.append(f"<pre>{html.escape(_dedent(lines))}</pre>")
        elif all(re.match(r"\s*[*-] ", line) or line.startswith("  ") for line in lines) and re.match(r"\s*[*-] ", lines[0]):
            items, current = [], []
            for line in lines:
                if re.match(r"\s*[*-] ", line):
                    if current:
                        items.append(" ".join(current))
                    current = [re.sub(r"^\s*[*-] ", "", line)]
                else:
                    current.append(line.strip())
            items.append(" ".join(current))
            out.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in items) + "</ul>")
        else:
            out.append(f"<p>{inline(' '.join(line.strip() for line in lines))}</p>")
    return "\n".join(out)


def _dedent(lines: list[str]) -> str:
    return "\n".join(line[4:] if line.startswith("    ") else line for line in lines)


def inline(text: str) -> str:
    """Inline markup of docstrings: ``code`` / `code` stay literal, $...$ is mathematics, **bold**."""
    parts = re.split(r"(``.+?``|`[^`]+`)", text)
    out = []
    for part in parts:
        if part.startswith("``") and part.endswith("``") and len(part) > 4:
            out.append(f"<code>{html.escape(part[2:-2])}</code>")
        elif part.startswith("`") and part.endswith("`") and len(part) > 2:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        else:
            out.append(re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", mathml.prose(part)))
    return "".join(out)


# ---------------------------------------------------------------- dashboard


def dashboard(report) -> bytes:
    entries = report.entries
    registered = {e.id for e in entries}
    points = [p for e in entries for p in e.points]
    wrong = [e for e in entries if e.standing.loud]
    parts = ["<h1>attnproof — proof report</h1>",
             "<p>Every registered claim of the two papers: what the paper <em>states</em> beside what a check "
             "<em>established</em> here, with the outcomes of the last <code>attnproof check</code>. "
             "Verdicts are exact and every certificate can be re-checked by the trusted checker: "
             "<code>attnproof verify data</code> in this folder.</p>"]
    summary = (f"{len(entries)} claim(s), {len(points)} outcome(s), "
               f"{sum(len(p.certificates) for p in points)} certificate(s)")
    if wrong:
        names = ", ".join(f'<a href="{claim_href(e.id, "")}">{html.escape(e.id)}</a>' for e in wrong)
        parts.append(f'<p class="loud" id="not-as-expected">{len(wrong)} claim(s) NOT AS EXPECTED: {names}</p>')
    parts.append(f'<p class="muted">{summary}.</p>')

    rows = []
    for e in entries:
        outcome = "; ".join(
            f'<a href="{claim_href(e.id, "")}#{p.anchor}">{html.escape(p.slug)}</a>: '
            f'{badge(_status_key(p), p.record.get("status", "?"))}'
            + ("" if p.as_expected else f' <strong>expected {html.escape(str(p.record.get("expected")))}</strong>')
            + f' <span class="muted">{float(p.record.get("seconds", 0)):.2f} s</span>'
            for p in e.points) or '<span class="muted">none</span>'
        rests = "<br>".join(_claim_link(u, registered, "") for u in e.claim.uses) or '<span class="muted">nothing</span>'
        rows.append(
            "<tr>"
            f'<td><a href="{claim_href(e.id, "")}"><code>{breakable(e.id)}</code></a><br>{html.escape(e.claim.title)}</td>'
            f"<td>arXiv:{html.escape(e.claim.paper)}<br>{inline(e.claim.sentence)}</td>"
            f'<td>{badge(e.standing.key, e.standing.label)}<br><span class="muted">{html.escape(e.standing.detail)}</span></td>'
            f"<td>{outcome}</td><td>{rests}</td>"
            "</tr>")
    parts.append("<h2 id=\"claims\">Claims</h2>")
    parts.append('<div class="scroll"><table class="dashboard"><tr><th>claim</th><th>the paper states</th>'
                 "<th>established here</th><th>outcomes</th><th>rests on</th></tr>"
                 + "".join(rows) + "</table></div>")

    parts.append('<h2 id="graph">Dependency graph</h2>')
    parts.append("<p>An arrow from B to A: A rests on B (the claim's <code>uses</code>). "
                 "Click a claim to open its page; dashed boxes are not checked in this run or not registered.</p>")
    parts.append('<div class="scroll">' + graph_svg(report, root="") + "</div>")
    parts.append("<h2>What a claim's standing means</h2><ul>"
                 + "".join(f"<li>{badge(k, k)} {html.escape(v)}</li>" for k, v in LADDER.items())
                 + f'<li>{badge("mismatch", "NOT AS EXPECTED")} an outcome differs from what the claim expects '
                   "(or its certificates belong to another statement): the rung is not earned</li>"
                 + f'<li>{badge("not-run", "not checked in this run")} the claim is registered but this report has no outcome for it</li>'
                 + "</ul>")
    if report.orphans:
        items = "".join(f"<li><code>{html.escape(p.folder)}</code>: {html.escape(str(p.record.get('status')))} — "
                        f"{html.escape(str(p.record.get('message', '')))}</li>" for p in report.orphans)
        parts.append(f"<h2>Outcomes of claims not installed</h2><ul>{items}</ul>")
    parts.append('<p class="muted">Markdown copy: <a href="index.md">index.md</a>; '
                 'the graph alone: <a href="assets/graph.svg">assets/graph.svg</a>.</p>')
    return page("attnproof — proof report", "\n".join(parts), "")


def graph_svg(report, root: str) -> str:
    nodes = {e.id: tuple(e.claim.uses) for e in report.entries}
    status = {e.id: (e.standing.key, e.standing.label if not e.standing.loud else "NOT AS EXPECTED") for e in report.entries}
    titles = {e.id: f"{e.claim.title} — {e.standing.label}" for e in report.entries}
    href = {e.id: claim_href(e.id, root) for e in report.entries}
    return graph.svg(nodes, status, titles, href)


def _used_by(entries) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for e in entries:
        for u in e.claim.uses:
            found.setdefault(u, []).append(e.id)
    return {k: sorted(v) for k, v in sorted(found.items())}


def breakable(claim_id: str) -> str:
    """An id that may wrap after its dots (and nowhere else)."""
    return html.escape(claim_id).replace(".", ".<wbr>")


def _claim_link(claim_id: str, registered: set, root: str) -> str:
    if claim_id in registered:
        return f'<a href="{claim_href(claim_id, root)}"><code>{breakable(claim_id)}</code></a>'
    return f'<code>{breakable(claim_id)}</code> <span class="muted">(not registered)</span>'


def _status_key(point) -> str:
    if not point.as_expected:
        return "mismatch"
    return {"verified": "verified", "refuted": "refuted", "unknown": "unknown"}.get(point.record.get("status"), "unknown")


# --------------------------------------------------------------- claim page


def statement_html(claim) -> str:
    try:
        statement = claim.statement()
    except Exception as exc:  # a claim under construction must not take the whole report down
        return f'<p class="loud">the statement could not be built: {html.escape(f"{type(exc).__name__}: {exc}")}</p>'
    rows = []
    for word, (expr, words) in [("assume", h) for h in statement.hypotheses] + [("then", statement.conclusion)]:
        note = (' <span class="muted">(the sympy object evaluates to true: the words carry this hypothesis)</span>'
                if expr is sympy.true else "")
        rows.append(f"<tr><td>{word}</td><td>{mathml.sympy_mathml(expr)}</td><td>{mathml.prose(words)}{note}</td></tr>")
    return f'<table class="statement">{"".join(rows)}</table>'


def claim_page(report, entry) -> bytes:
    claim, root = entry.claim, "../"
    registered = {e.id for e in report.entries}
    used_by = _used_by(report.entries).get(entry.id, [])
    standing = entry.standing
    parts = [f'<nav><a href="{root}index.html">← all claims</a> · <a href="{quote(entry.id)}.md">Markdown</a></nav>',
             f"<h1>{html.escape(claim.title)}</h1>",
             f"<p><code>{html.escape(entry.id)}</code> · arXiv:{html.escape(claim.paper)} "
             f"<em>{html.escape(model.paper_title(claim.paper))}</em></p>",
             f'<div class="{"loud" if standing.loud else "standing"}" id="standing">'
             f"Established here: {badge(standing.key, standing.label)} {html.escape(standing.detail)}<br>"
             f'<span class="muted">A passing check of this claim establishes: '
             f"{html.escape(LADDER.get(claim.established, claim.established))} "
             f"(expects <code>{html.escape(claim.expected)}</code> at the default point).</span></div>",
             '<h2 id="paper">What the paper states</h2>',
             f"<blockquote>{inline(claim.sentence)}</blockquote>",
             '<h2 id="reading">Our reading</h2>',
             docstring_html(entry.reading) if entry.reading else '<p class="muted">(no reading given)</p>',
             '<h2 id="statement">The statement checked</h2>',
             statement_html(claim),
             '<h2 id="rests-on">Rests on</h2>',
             "<ul>" + "".join(f"<li>{_claim_link(u, registered, root)}</li>" for u in claim.uses) + "</ul>"
             if claim.uses else "<p>nothing: it stands on its own check.</p>",
             "<p>Used by: " + (", ".join(_claim_link(u, registered, root) for u in used_by) or "no registered claim") + ".</p>",
             '<h2 id="parameters">Parameters</h2>',
             _parameters_html(claim)]
    if not entry.points:
        parts.append(f'<h2 id="outcomes">Outcomes</h2><p>No outcome in this report: '
                     f"<code>attnproof check {html.escape(entry.id)}</code> then <code>attnproof report</code>.</p>")
    for point in entry.points:
        parts.append(point_html(report, entry, point))
    return page(f"{claim.title} — attnproof", "\n".join(parts), root)


def _parameters_html(claim) -> str:
    if not claim.parameters:
        return "<p>none</p>"
    rows = "".join(f"<tr><td><code>{html.escape(p.name)}</code></td><td>{html.escape(str(p.default))}</td>"
                   f"<td>{html.escape(p.allowed())}</td><td>{html.escape(p.doc)}</td></tr>" for p in claim.parameters)
    return f"<table><tr><th>name</th><th>default</th><th>allowed</th><th>meaning</th></tr>{rows}</table>"


def point_html(report, entry, point) -> str:
    r = point.record
    status = r.get("status", "?")
    mark = "" if point.as_expected else f' <strong class="loud">NOT AS EXPECTED: the claim expects {html.escape(str(r.get("expected")))}</strong>'
    parts = [f'<h2 id="{point.anchor}">Outcome at <code>{html.escape(point.slug)}</code></h2>',
             f"<p>{badge(_status_key(point), status)}{mark} — {mathml.prose(str(r.get('message', '')))}</p>",
             f"<p>Parameters: {html.escape(model.point_text(r.get('parameters') or {}))}.</p>",
             f"<p>Time: {float(r.get('seconds', 0)):.2f} s. Outcome record: "
             f'<a href="../data/{_q(point.folder)}/outcome.json">data/{html.escape(point.folder)}/outcome.json</a></p>']
    if r.get("counterexample") is not None:
        parts.append('<h3>Counterexample</h3><div class="loud">' + values.to_html(r["counterexample"]) + "</div>")
    covered = dict(r.get("covered") or {})
    covered.pop("certificates", None)  # listed with the certificates below
    parts.append("<h3>What was checked, and up to where</h3>" + values.to_html(covered))
    facts = r.get("facts") or {}
    witness = {k: v for k, v in facts.items() if "witness" in k or k.startswith("worst")}
    if witness:
        parts.append("<h3>Witness and worst case</h3>" + values.to_html(witness))
    parts.append("<h3>Certificates</h3>")
    if point.certificates:
        rows = []
        for cert in point.certificates:
            problem = f'<br><strong class="loud">{html.escape(cert.problem)}</strong>' if cert.problem else ""
            rows.append(f"<tr><td><code>{html.escape(cert.kind)}</code></td><td>{html.escape(cert.summary)}{problem}</td>"
                        f'<td><a href="../{_q(cert.relpath)}">{html.escape(cert.relpath.rsplit("/", 1)[1])}</a> '
                        f'<span class="muted">({cert.size:,} bytes)</span></td>'
                        f"<td><code>attnproof verify {html.escape(cert.relpath)}</code></td></tr>")
        parts.append("<p>Each certificate is re-checked from its data alone by the trusted checker; run the command "
                     "in this report's folder (the certificates are copied under <code>data/</code>).</p>"
                     "<table><tr><th>kind</th><th>what the trusted checker accepted</th><th>file</th><th>re-check</th></tr>"
                     + "".join(rows) + "</table>")
    else:
        parts.append("<p class=\"muted\">none" + (" (an unknown outcome carries none: partial work proves nothing)"
                                                  if r.get("status") == "unknown" else "") + "</p>")
    parts.append("<h3>Facts</h3>" + values.to_html(facts))
    figures = report.figures.get(point.folder, [])
    if figures or point.folder in report.plot_errors:
        parts.append("<h3>Plots</h3>")
    if point.folder in report.plot_errors:
        parts.append(f'<p class="loud">the claim\'s plots failed: {html.escape(report.plot_errors[point.folder])}</p>')
    for figure in figures:
        caption = html.escape(figure.plot.title) + (f" — {html.escape(figure.plot.note)}" if figure.plot.note else "")
        parts.append(f'<figure><img src="../{_q(figure.path)}" alt="{html.escape(figure.plot.title)}" width="640" height="400">'
                     f"<figcaption>{caption}</figcaption></figure>")
    return "\n".join(parts)


def _q(path: str) -> str:
    return quote(path, safe="/")


def render(report) -> dict[str, bytes]:
    files = {"index.html": dashboard(report), "assets/style.css": STYLE.encode("utf-8"),
             "assets/graph.svg": graph_svg(report, root="../").encode("utf-8")}
    for entry in report.entries:
        files[f"claims/{entry.id}.html"] = claim_page(report, entry)
    return files
