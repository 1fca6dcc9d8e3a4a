"""The same report as Markdown (``index.md``, ``claims/<id>.md``): statements as TeX, graph as Mermaid."""

from __future__ import annotations

import re
from urllib.parse import quote

import sympy

from theorems.report import coq, graph, mathml, model, site, statement, tex, values


def _cell(text: str) -> str:
    """A table cell: its ASCII mathematics in Unicode (beta reads β, <= reads ≤), pipes escaped."""
    return tex.plain(str(text)).replace("|", "\\|").replace("\n", " ")


def dashboard(report) -> str:
    entries = report.entries
    lines = ["# attnproof — proof report", "",
             "The papers' sentences, each once, with the claims that serve it beneath: each claim says how it serves "
             "the sentence and carries its own verdict — never a verdict on the sentence. For this report the "
             "trusted checker re-checked every certificate and discharged each outcome's obligations, bound to the "
             "installed claim; a rung is shown only where both hold. Re-check with `attnproof verify data` in this folder.", ""]
    lines += [f"**{line}**" for line in site.trusted_alarms(report)] + ([""] if site.trusted_alarms(report) else [])
    wrong = [e for e in entries if e.standing.loud]
    if wrong:
        lines += [f"**{len(wrong)} claim(s) NOT AS EXPECTED or not established:** "
                  + ", ".join(f"[`{e.id}`](claims/{quote(e.id)}.md)" for e in wrong), ""]
    lines += [site.trusted_summary(report) + ".", ""]
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.standing.label if e.standing.key != "verified" else "verified up to a size"] = counts.get(
            e.standing.label if e.standing.key != "verified" else "verified up to a size", 0) + 1
    stale = sum(1 for e in entries for p in e.points if p.stale)
    lines += [f"**{len(entries)} claim(s):** " + "; ".join(f"{label}: {n}" for label, n in sorted(counts.items()))
              + (f"; **{stale} stale outcome(s)**" if stale else ""), "",
              "**Legend.** " + " ".join(f"*{label}*: {text}." for label, text in model.RUNGS.values())
              + (f" *{coq.RUNG}*: {coq.LEGEND}." if site._coq_run(report) is not None else ""), "",
              "**Relations.** " + " ".join(f"*{r}*: {text}." for r, text in site.RELATIONS.items()), "",
              "## The papers' sentences and the claims that serve them", ""]
    paper = None
    for sentence in model.sentences(entries):
        if sentence.paper != paper:
            paper = sentence.paper
            lines += [f"### arXiv:{paper} — *{model.paper_title(paper)}*" if paper
                      else "### Sentences of no paper (conjectures of their own)", ""]
        lines += [f"> {_plain_prose(sentence.text)}", "", f"Stated by {sentence.source}.", "",
                  "| claim, and how it serves the sentence | established here | what the trusted checker accepted | outcomes | rests on |",
                  "|---|---|---|---|---|"]
        for e in sentence.entries:
            outcomes = "; ".join(
                f"{p.slug}: {p.status_label}" + (" (**STALE**)" if p.stale else "")
                + ("" if p.stands else " (**does not stand**)")
                + ("" if not p.stands or p.as_expected else f" (**expected {p.expected}**)")
                + f" {site._seconds(p):.2f} s, {p.made_text}" for p in e.points) or "none"
            accepted = "<br>".join(_accepted_cell(p, site._coq_run(report)) for p in e.points) or "nothing: no outcome"
            symbolic = f"; beside it: *symbolic (sympy)*: {', '.join(e.symbolic)}, not checked by the trusted checker" if e.symbolic else ""
            rests = ", ".join(f"`{u}`" for u in e.claim.uses) or "nothing"
            checked = f" · *{coq.RUNG}*" if site.coq_badge(e, site._coq_run(report)) else ""
            lines.append(f"| *{_cell(model.relation_of(e.claim))}*: [`{e.id}`](claims/{quote(e.id)}.md) {_cell(e.claim.title)} "
                         f"| **{_cell(e.standing.label)}**{checked} — {_cell(e.standing.detail)}{_cell(symbolic)} | {_cell(accepted)} "
                         f"| {_cell(outcomes)} | {rests} |")
        lines.append("")
    nodes = {e.id: tuple(e.claim.uses) for e in entries}
    lines += ["", "## Dependency graph", "", "An arrow from B to A: A rests on B. Drawn: [assets/graph.svg](assets/graph.svg).", "",
              "```mermaid", graph.mermaid(nodes).rstrip("\n"), "```", "",
              ]
    if report.orphans:
        lines += ["## Outcomes of claims not installed", ""]
        lines += [f"- `{p.folder}`: {p.status} — **not established**: {p.why_not}" for p in report.orphans]
        lines.append("")
    return "\n".join(lines)


def _accepted_cell(point, coq_run=None) -> str:
    said = coq.rung(coq_run, point)
    return _accepted_text(point) + (f" (*{said}*)" if said else "")


def _accepted_text(point) -> str:
    if not point.stands:
        return f"{point.slug}: **does not stand** — {point.why_not}"
    if point.status == "unknown" and not point.partial:
        return f"{point.slug}: {point.status_label}: claims nothing, needs nothing"
    rows = site.shown_obligations(point)
    if point.status in ("refuted", "unknown"):
        rows = [o for o in rows if o.get("by")]
    items = "; ".join(f"{o.get('words', '')} — {site.obligation_mark(point, o)}" for o in rows[:site.ACCEPTED_LIMIT])
    more = f"; … and {len(rows) - site.ACCEPTED_LIMIT} more" if len(rows) > site.ACCEPTED_LIMIT else ""
    return f"{point.slug}: {point.rung}: {items}{more}"


def claim_page(report, entry) -> str:
    claim = entry.claim
    symbolic = (f" Beside it, *symbolic (sympy)*: {', '.join(entry.symbolic)} — not checked by the trusted checker."
                if entry.symbolic else "")
    if site.coq_badge(entry, site._coq_run(report)):
        symbolic = f" Beside it, *{coq.RUNG}* at every point." + symbolic
    heading, paper = model.attribution(claim)
    title = f" *{model.paper_title(claim.paper)}*" if paper and model.paper_title(claim.paper) else ""
    by = f"stated by {model.source_of(claim)}"
    # who states it comes first unless the paper does: a conjecture is never credited to the paper it is about
    said = f"{paper}{title} · {by}" if model.stated_by_paper(claim) else f"{by}" + (f" · {paper}{title}" if paper else "")
    lines = [f"[← all claims](../index.md)", "", f"# {tex.plain(claim.title)}", "",
             f"`{entry.id}` · {said}", "",
             f"How it serves the paper's sentence: *{model.relation_of(claim)}*.", "",
             f"**Established here: {tex.plain(entry.standing.label)}** — {tex.plain(entry.standing.detail)}{symbolic}", "",
             f"The rung is what the trusted checker accepted at the points below; the claim expects "
             f"`{claim.expected}` at the default point.", "",
             f"## {heading}", "", f"> {_plain_prose(claim.sentence)}", "",
             "## Our reading", "", _docstring(entry.reading) or "(no reading given)", "",
             "## The statement checked", ""]
    in_coq = _coq(claim, site._coq_run(report))
    lines += in_coq
    try:
        claim_statement = claim.statement()
        rows = [("assume", h) for h in claim_statement.hypotheses] + [("then", claim_statement.conclusion)]
    except Exception as exc:  # a claim under construction must not take the whole report down
        rows = []
        lines.append(f"**The statement could not be built:** {type(exc).__name__}: {exc}")
    if rows:
        if in_coq:
            lines += ["### The project's own reading (sympy)", "",
                      "What the check states in its own terms; the Coq theorems above are what Coq proves.", ""]
        try:
            lines += [f"$${statement.tex_formula(claim_statement)}$$", ""]
            said = statement.where(claim_statement)
            lines += [f"where {'; '.join(said)}.", ""] if said else []
        except Exception:  # no single formula: the parts below still show
            pass
    for word, (expr, words) in rows:
        note = " (the sympy object evaluates to true: the words carry this hypothesis)" if expr is sympy.true else ""
        lines.append(f"- **{word}** ${mathml.sympy_tex(expr)}$ — {tex.plain(words)}{note}")
    lines += ["", "## Rests on", ""]
    lines += [f"- [`{u}`]({quote(u)}.md)" for u in claim.uses] or ["nothing: it stands on its own check."]
    lines += ["", "## Parameters", "", "| name | default | allowed | meaning |", "|---|---|---|---|"]
    lines += [f"| `{p.name}` | {p.default} | {_cell(p.allowed())} | {_cell(p.doc)} |" for p in claim.parameters]
    if not entry.points:
        lines += ["", "## Outcomes", "", f"No outcome in this report: `attnproof check {entry.id}` then `attnproof report`."]
    for point in entry.points:
        lines += [""] + _point(report, point)
    return "\n".join(lines) + "\n"


def _point(report, point) -> list[str]:
    r = point.record
    if not point.stands:
        mark = f" — **DOES NOT STAND — not established: {point.why_not}**"
    elif not point.as_expected:
        mark = f" — **NOT AS EXPECTED: the claim expects {point.expected}**"
    else:
        mark = ""
    if point.stale:
        mark = " — **STALE: made for another statement than the installed claim's; check again**"
    lines = [f"## Outcome at `{point.slug}`", "", f"**{point.status_label}**{mark}", "", f"{point.made_text}.", "",
             f"Parameters: {model.point_text(point.parameters)}. Time: {site._seconds(point):.2f} s. "
             f"Record: [data/{point.folder}/outcome.json](../data/{quote(point.folder, safe='/')}/outcome.json); "
             f"re-check this verdict: `attnproof verify data/{point.folder}`", "",
             "### What the trusted checker accepted", ""]
    if point.stands:
        said = coq.rung(site._coq_run(report), point)
        lines += [f"Rung: **{tex.plain(point.rung)}**" + (f" · *{said}*" if said else "")
                  + f" (status {point.status}, reach {tex.plain(point.reach or 'none')}; the obligations are the installed claim's own)", ""]
        if point.check is not None and point.check.rests_on:  # a plugin's claim: bound by its own code, said so
            lines += [f"**Rests on {point.check.rests_on}** — the claim, its statement and its obligations come from "
                      "code outside attnproof, bound in a process of its own.", ""]
    else:
        lines += [f"**DOES NOT STAND — rung: not established.** {point.why_not}", ""]
    if point.obligations:
        lines += ["| side | obligation | judgment | discharged by |", "|---|---|---|---|"]
        lines += [f"| {o.get('side', '')} | {_cell(o.get('words', ''))} | `{_cell(site._compact(o.get('judgment')))}` "
                  f"| {_cell(site.obligation_mark(point, o))} |" for o in point.obligations]
    else:
        lines.append("no obligations listed")
    lines.append("")
    if site._coq_run(report) is not None:
        lines += _coq_obligations(point, site._coq_run(report))
    if point.symbolic:
        lines += ["### Symbolic (sympy) — its own rung", "",
                  "Steps sympy carried out; the trusted checker did not check them and they are no part of what it accepted above.", "",
                  values.to_markdown(point.symbolic), ""]
    lines += ["### Certificates", ""]
    if point.certificates:
        lines += ["Re-check each in this report's folder:", "", "| kind | the trusted checker said | file | re-check |", "|---|---|---|---|"]
        for cert in point.certificates:
            said = model.checker_words(cert.summary)
            said = said if cert.accepted else f"**{said}**"
            lines.append(f"| `{cert.kind}` | {_cell(said)} | [{cert.name}](../{quote(cert.relpath, safe='/')}) "
                         f"| `attnproof verify {cert.relpath}` |")
    else:
        lines.append("none")
    lines += ["", "### Reported by the check, unchecked", "",
              "What the check wrote into its outcome file; the trusted checker does not read it, and it establishes nothing.", "",
              f"Message: {tex.plain(r.get('message') or '(none)')}", ""]
    if r.get("counterexample") is not None:
        lines += ["#### Counterexample", "", values.to_markdown(r["counterexample"]), ""]
    covered = dict(r.get("covered") or {}) if isinstance(r.get("covered"), dict) else {}
    covered.pop("certificates", None)
    lines += ["#### What was checked, and up to where", "", values.to_markdown(covered), ""]
    facts = {k: v for k, v in point.facts.items() if not str(k).startswith(model.SYMBOLIC)}
    witness = {k: v for k, v in facts.items() if "witness" in k or k.startswith("worst")}
    if witness:
        lines += ["#### Witness and worst case", "", values.to_markdown(witness), ""]
    others = {k: v for k, v in facts.items() if k not in witness}
    lines += ["#### Other facts" if witness else "#### Facts", "", values.to_markdown(others), ""]
    if point.folder in report.plot_errors:
        lines += [f"**The claim's plots failed:** {report.plot_errors[point.folder]}", ""]
    for figure in report.figures.get(point.folder, []):
        lines += [f"![{tex.plain(figure.plot.title)}](../{quote(figure.path, safe='/')})", "", f"*{tex.plain(figure.plot.title)}*"
                  + (f" — {tex.plain(figure.plot.note)}" if figure.plot.note else ""), ""]
    return lines


def _coq(claim, coq_run) -> list[str]:
    """The KTheorems.v theorems that state the claim, verbatim and readable, and the KDefs words they use."""
    found = coq.stated(claim)
    if not found:
        return []
    lines = ["### In Coq", "", f"[formal/KTheorems.v](../formal/{coq.page_name('KTheorems.v')}) states this claim in the "
             f"words of [formal/KDefs.v](../formal/{coq.page_name('KDefs.v')}) alone:", ""]
    for item in found:
        if not item.statement:
            lines += [f"**the claim names the theorem {item.name}, which formal/KTheorems.v does not state**", ""]
            continue
        lines += [f"[`{item.name}`](../formal/{coq.page_name('KTheorems.v')}#{item.name}) (formal/KTheorems.v, line {item.line}):",
                  "", "```coq", item.verbatim, "```", ""]
        if coq.readable(item.statement) != item.statement:
            lines += [f"> {coq.readable(item.statement)}", ""]
    words = coq.glosses([i.statement for i in found if i.statement])
    if words:
        lines += ["The words of formal/KDefs.v it uses, as the comments of KDefs.v explain them:", ""]
        lines += [f"- [`{g.signature}`](../formal/{coq.page_name('KDefs.v')}#{g.name})" + (f" := {g.body}" if g.body else "")
                  + (f" — {g.comment}" if g.comment else "") for g in words]
        lines.append("")
    lines += ["Coq (coqc) compiled formal/, KTheorems.v included, for this report." if coq_run is not None and coq_run.built
              else "Not compiled for this report: `attnproof report --coq` builds formal/ with coqc.", ""]
    return lines


def _coq_obligations(point, coq_run) -> list[str]:
    k, n = coq.checked(coq_run, point)
    lines = [f"#### Checked by Coq: {k} of {n} verify obligation(s)", "",
             "| obligation | Coq | the statement |", "|---|---|---|"]
    for row, item in coq.rows(coq_run, point):
        if item is None:
            said, stated = "not exported", ""
        elif not item.file:
            said, stated = f"no Coq file: {item.reason}", ""
        else:
            said = ("accepted by Coq" if item.accepted else f"**NOT ACCEPTED BY COQ**: {item.error}") + \
                f" — [coq/{item.file}](../coq/{item.file})" + (f" from {item.certificate}" if item.certificate else "")
            stated = f"`{item.statement}`"
        lines.append(f"| {_cell(row.get('words', ''))} | {_cell(said)} | {_cell(stated)} |")
    return lines + [""]


def _docstring(doc: str) -> str:
    """Docstring markup to Markdown: ``code`` becomes `code`, a reST role (:mod:`x`) becomes `x`;
    the rest is already Markdown-like."""
    text = re.sub(r":(?:mod|func|meth|class|attr|data|obj|exc|ref|py:\w+):`~?([^`]+)`", r"`\1`", doc.strip())
    text = re.sub(r"``(.+?)``", r"`\1`", text, flags=re.S)
    return _plain_prose(text)


def _plain_prose(text: str) -> str:
    """Prose with its ASCII mathematics in Unicode (beta reads β), code spans and ``$...$`` TeX left as written
    (a Markdown renderer draws the TeX; code is code)."""
    parts = re.split(r"(`[^`]*`|\$\$.+?\$\$|\$[^$\n]+\$)", text, flags=re.S)
    return "".join(part if part.startswith(("`", "$")) else tex.plain(part) for part in parts)


def render(report) -> dict[str, bytes]:
    files = {"index.md": dashboard(report).encode("utf-8")}
    for entry in report.entries:
        files[f"claims/{entry.id}.md"] = claim_page(report, entry).encode("utf-8")
    return files
