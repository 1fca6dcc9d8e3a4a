"""The HTML pages: the dashboard and one page per claim.  Static, no script, MathML for mathematics."""

from __future__ import annotations

import html
import json
import re
from urllib.parse import quote

import sympy

from theorems.report import coq, graph, mathml, model, reading, statement, tex, values

STYLE = """\
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 84rem; margin: 0 auto;
       padding: 1rem 1.5rem 4rem; color: #1f2328; line-height: 1.5; overflow-wrap: break-word; }
a { color: #0969da; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.92em; }
code { overflow-wrap: anywhere; }
pre { background: #f6f8fa; padding: 0.6rem 0.8rem; overflow-x: auto; white-space: pre-wrap; }
code.token { background: #ddf4ff; padding: 0 0.2em; border-radius: 3px; }
nav { margin-bottom: 1rem; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: 0.2rem; margin-top: 2rem; }
h3.paper { margin-top: 1.6rem; }
blockquote { border-left: 4px solid #d0d7de; margin: 0.5rem 0; padding: 0.2rem 1rem; color: #424a53; }
table { border-collapse: collapse; margin: 0.5rem 0; max-width: 100%; }
th, td { border: 1px solid #d0d7de; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f6f8fa; }
table.wide { width: 100%; table-layout: fixed; }
table.facts { max-width: 100%; } table.facts table.facts { margin: 0; }
.badge { display: inline-block; padding: 0.05rem 0.5rem; border-radius: 1rem; color: #fff; font-size: 0.85em;
         white-space: normal; }
.proved { background: #1a7f37; } .verified { background: #2da44e; } .searched { background: #9a6700; }
.open { background: #8250df; } .refuted { background: #a40e26; } .unknown { background: #6e7781; }
.budget { background: #9a6700; } .stale { background: #bc4c00; font-weight: bold; }
.not-run, .stated { background: #6e7781; } .mismatch { background: #ff0000; font-weight: bold; }
.symbolic { background: #0a6b74; }
.relation { display: inline-block; border: 1px solid #8c959f; border-radius: 0.3rem; padding: 0 0.35rem;
            font-size: 0.8em; color: #424a53; background: #f6f8fa; }
td.accepted p { margin: 0.2rem 0; } td.accepted ul { margin: 0 0 0.4rem; padding-left: 1.1rem; font-size: 0.9em; }
.loud { border: 3px solid #ff0000; background: #ffebe9; padding: 0.6rem 1rem; font-weight: bold; }
.standing { border: 1px solid #d0d7de; padding: 0.6rem 1rem; background: #f6f8fa; }
.approx, .more, .muted { color: #656d76; }
.made { color: #656d76; font-size: 0.85em; }
.statement td:first-child { font-weight: bold; white-space: nowrap; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid #d0d7de; }
figcaption { color: #656d76; font-size: 0.9em; }
svg.graph { display: block; max-width: none; }
svg.graph a.node:hover rect { fill: #ddf4ff; }
section.sentence { margin: 1rem 0 1.6rem; }
section.sentence > blockquote { font-size: 1.05em; color: #1f2328; }
table.dashboard code { font-size: 0.85em; }
table.dashboard col.claim { width: 22%; } table.dashboard col.established { width: 22%; }
table.dashboard col.accepted { width: 28%; } table.dashboard col.outcomes { width: 16%; }
table.dashboard col.rests { width: 12%; }
ul.legend { columns: 2 28rem; padding-left: 1.1rem; } ul.legend li { break-inside: avoid; margin-bottom: 0.3rem; }
p.counts .badge { margin-right: 0.2rem; }
math { font-size: 1.05em; }
math[display="block"] { margin: 0.3rem 0; }
div.display, .formula, .cell-math { overflow-x: auto; overflow-y: hidden; max-width: 100%; padding: 0.1rem 0; }
mtable.lines mtd { text-align: left; padding: 0.12em 0; }
.coqchecked { background: #3e4ab8; } .coqpartial { background: #6e7781; }
div.in-coq { border-left: 4px solid #3e4ab8; padding: 0.1rem 0.9rem; margin: 0.6rem 0; background: #f7f8fe; }
pre.coq { margin: 0.2rem 0; background: #eef0fb; }
p.coq-readable { font-family: "DejaVu Serif", Georgia, serif; font-size: 1.08em; margin: 0.2rem 0 0.8rem; }
ul.gloss { padding-left: 1.1rem; font-size: 0.93em; } ul.gloss li { margin-bottom: 0.3rem; }
p.where { margin-top: 0; }
pre.coq-source { white-space: pre-wrap; } pre.coq-source .number { color: #8c959f; }
pre.coq-source .line:target { background: #fff8c5; }
table.coq-obligations td pre { margin: 0.2rem 0; }
p.lede { font-size: 1.05em; margin-top: 0.2rem; }
nav.toc { background: #f6f8fa; border: 1px solid #d0d7de; padding: 0.4rem 0.8rem; border-radius: 0.3rem; }
div.search { margin: 0.8rem 0; } div.search input { font-size: 1em; padding: 0.25rem 0.5rem; width: min(28rem, 100%);
  box-sizing: border-box; } ul#search-results { margin: 0.3rem 0; padding-left: 1.2rem; } ul#search-results:empty { display: none; }
section#papers h3.paper { margin: 1rem 0 0.3rem; font-size: 1.1rem; }
ol.headlines { padding-left: 1.4rem; margin: 0.3rem 0 0.8rem; } ol.headlines li { margin-bottom: 0.45rem; }
span.sentence-text { font-family: "DejaVu Serif", Georgia, serif; }
.beside { color: #57606a; font-size: 0.88em; }
a.more { font-size: 0.85em; white-space: nowrap; }
ul.counts { margin: 0.2rem 0 0.6rem; padding-left: 1.2rem; } a.count { text-decoration: none; margin-right: 0.4rem; }
h2.counts-title { margin-top: 0.2rem; border: 0; font-size: 1.15rem; }
.badge.quiet { background: #fff; color: #424a53; border: 1px solid #8c959f; }
p.not-checked { border-left: 4px solid #8c959f; padding: 0.2rem 0.8rem; background: #f6f8fa; }
span.num { white-space: nowrap; }
div.key { max-width: 16rem; }
div.table-scroll { overflow-x: auto; width: 0; min-width: 100%; }  /* min-content 0: a cell never grows for it */
table.facts.list th, table.facts.list td { overflow-wrap: normal; }
span.quiet-chip { border: 1px solid #8c959f; border-radius: 1rem; padding: 0 0.4rem; font-size: 0.85em; color: #424a53; }
div.graph-box { overflow-x: auto; max-width: 100%; border: 1px solid #d0d7de; }
span.exact, span.wide-math { display: inline-block; max-width: 100%; overflow-x: auto; overflow-y: hidden;
  vertical-align: middle; }
"""


def page(title: str, body: str, root: str, scripts: list[str] | None = None) -> bytes:
    tail = "".join(f'<script src="{root}{s}"></script>\n' for s in scripts or [])
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}</title>\n"
        f"<link rel=\"stylesheet\" href=\"{root}assets/style.css\">\n"
        "</head>\n<body>\n" + body + "\n" + tail + "</body>\n</html>\n"
    ).encode("utf-8")


def claim_href(claim_id: str, root: str) -> str:
    return f"{root}claims/{quote(claim_id)}.html"


def badge(key: str, label: str) -> str:
    return f'<span class="badge {html.escape(key)}">{tex.words(label)}</span>'


# ------------------------------------------------------------------ reading


def docstring_html(doc: str) -> str:
    """A module docstring as HTML: Markdown prose, its ASCII mathematics as MathML (:mod:`theorems.report.reading`)."""
    return reading.to_html(doc)


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
    """The dashboard. Its first screen is the papers: per paper its headline sentences, each with one badge
    summarising only the claims that read it; lemmas, tempting variants and conjectures counted apart, in quiet
    colours, so a refuted variant never reads as a refuted paper; a table of contents and an offline search.
    Then the counts (each a link), the legend (collapsed), every sentence with the claims serving it, the
    claims by group and badge, and the dependency graph."""
    entries = report.entries
    registered = {e.id for e in entries}
    wrong = [e for e in entries if e.standing.loud]
    sentences = model.sentences(entries)
    parts = ['<h1 id="top">attnproof — proof report</h1>',
             "<p class=\"lede\">Two papers' sentences, each checked on small parameters by claims whose verdicts a "
             "trusted checker re-checked from certificates. A badge beside a sentence speaks only for the claims "
             "that read it; lemmas, tempting variants and conjectures are counted apart.</p>",
             toc_html(sentences), search_html()]
    parts += [f'<p class="loud">{html.escape(line)}</p>' for line in trusted_alarms(report)]
    if wrong:
        names = ", ".join(f'<a href="{claim_href(e.id, "")}">{html.escape(e.id)}</a>' for e in wrong)
        parts.append(f'<p class="loud" id="not-as-expected">{len(wrong)} claim(s) NOT AS EXPECTED or not established: {names}</p>')
    parts.append(papers_html(sentences))
    parts.append(summary_html(report))
    parts.append('<details id="legend"><summary><strong>What the badges and relations mean</strong></summary>'
                 '<ul class="legend">'
                 + "".join(f"<li>{badge(k, label)} {tex.words(text)}</li>" for k, (label, text) in model.RUNGS.items())
                 + (f"<li>{badge('coqchecked', coq.RUNG)} {html.escape(coq.LEGEND)}</li>" if _coq_run(report) is not None else "")
                 + f"<li>{badge('quiet verified', 'white, outlined')} the same verdicts for a tempting variant, a conjecture "
                 "or an analogue on other data: its own verdict, never one on the paper's sentence</li>"
                 + "".join(f'<li><span class="relation">{html.escape(r)}</span> {html.escape(text)}</li>'
                           for r, text in RELATIONS.items())
                 + "</ul></details>")
    parts.append("<p>How to read what follows: the papers' sentences, each once, with the claims that serve it "
                 "beneath; each claim says how it serves the sentence and carries its own badge — a verdict on that "
                 "claim. For this report the trusted checker (its own process: the standard library and python-flint "
                 "only) re-checked every certificate of the outcomes and discharged each outcome's obligations, which "
                 "were then bound to the installed claim; a rung is shown only where both hold. Re-check it yourself: "
                 "<code>attnproof verify data</code> in this folder.</p>")
    parts.append('<h2 id="sentences">The papers\' sentences and the claims that serve them</h2>')
    paper = None
    for sentence in sentences:
        if sentence.paper != paper:
            paper = sentence.paper
            title = model.paper_title(paper)
            parts.append(f'<h3 class="paper" id="paper-{model.safe(paper) or "none"}">'
                         + (f"arXiv:{html.escape(paper)}" if paper else "Sentences of no paper (conjectures of their own)")
                         + (f" — <em>{html.escape(title)}</em>" if title else "") + "</h3>")
        parts.append(sentence_html(sentence, registered, _coq_run(report)))
    parts.append(groups_html(entries))
    parts.append('<h2 id="graph">Dependency graph</h2>')
    parts.append("<p>An arrow from B to A: A rests on B (the claim's <code>uses</code>). Each edge is its own path "
                 "into its own port of the box, so one dependency can be followed by eye; hover a claim to bring its "
                 "edges forward, click it to open its page. A claim proved for every parameter names, under its "
                 "badge, what carries the every-parameter step. Dashed boxes are not checked in this run or not "
                 "registered. On a narrow window the graph scrolls sideways inside its box.</p>")
    parts.append(graph_svg(report, root=""))
    if report.orphans:
        items = "".join(f"<li><code>{html.escape(p.folder)}</code>: {html.escape(p.status)} — not established: "
                        f"{html.escape(p.why_not)}</li>" for p in report.orphans)
        parts.append(f'<h2>Outcomes of claims not installed</h2><ul class="loud">{items}</ul>')
    parts.append('<p class="muted">Markdown copy: <a href="index.md">index.md</a>; '
                 'the graph alone: <a href="assets/graph.svg">assets/graph.svg</a>.</p>')
    return page("attnproof — proof report", "\n".join(parts), "", scripts=["assets/search-index.js", "assets/search.js"])


def _headline(sentence) -> bool:
    """A sentence of a paper's abstract (not a conjecture's own sentence)."""
    return bool(sentence.paper) and sentence.text in model._abstract_order()


def toc_html(sentences) -> str:
    papers = list(dict.fromkeys(s.paper for s in sentences if s.paper))
    items = [f'<a href="#papers">The papers</a>']
    items += [f'<a href="#headlines-{model.safe(p)}">{html.escape(_short_paper(p))}</a>' for p in papers]
    items += ['<a href="#summary">Counts</a>', '<a href="#legend">Legend</a>',
              '<a href="#sentences">Sentences and their claims</a>', '<a href="#groups">Claims by group</a>',
              '<a href="#graph">Dependency graph</a>']
    return '<nav class="toc" id="contents" aria-label="contents"><strong>Contents:</strong> ' + " · ".join(items) + "</nav>"


def _short_paper(paper: str) -> str:
    return {"2608.11427": "Paper K (kernel attention)", "2608.28150": "Paper S (softmax rank)"}.get(paper, f"arXiv:{paper}")


def search_html() -> str:
    return ('<div class="search" role="search"><label for="search"><strong>Search the claims</strong> '
            '<span class="muted">(id, title, sentence; offline)</span></label> '
            '<input type="search" id="search" placeholder="e.g. rank_two, softmax, calibration" autocomplete="off">'
            '<ul id="search-results" aria-live="polite"></ul>'
            '<noscript><p class="muted">The search needs JavaScript; every claim is listed under '
            '<a href="#groups">Claims by group</a>.</p></noscript></div>')


def papers_html(sentences) -> str:
    """The first screen: per paper, its headline sentences with one badge each (the claims that read it only),
    and beside each what else serves it, counted apart in quiet colours."""
    parts = ['<section id="papers"><h2>The papers</h2>']
    papers = list(dict.fromkeys(s.paper for s in sentences if s.paper))
    for paper in papers:
        title = model.paper_title(paper)
        parts.append(f'<h3 class="paper" id="headlines-{model.safe(paper)}">{html.escape(_short_paper(paper))}: '
                     f"arXiv:{html.escape(paper)}" + (f" — <em>{html.escape(title)}</em>" if title else "") + "</h3>")
        rows = []
        for s in sentences:
            if s.paper != paper or not _headline(s):
                continue
            summary = model.headline(s)
            rest = {}
            for e in s.entries:
                role = model.role_of(e.claim)
                if role != "paper":
                    rest.setdefault(role, []).append(e)
            beside = "; ".join(f"{len(es)} {_role_word(role, len(es))} ({_quiet_states(es)})" for role, es in rest.items())
            rows.append(f'<li class="headline"><span class="sentence-text">{inline(s.text)}</span> '
                        f"{badge(summary.key, summary.label)} "
                        f'<a class="more" href="#{s.anchor}">{len(s.entries)} claim(s) →</a>'
                        + (f'<br><span class="beside">beside it: {beside}</span>' if beside else "") + "</li>")
        parts.append('<ol class="headlines">' + "".join(rows) + "</ol>")
    others = [e for s in sentences for e in s.entries if model.role_of(e.claim) == "conjecture" and not _headline(s)]
    if others:
        parts.append(f'<p class="beside">Apart from the papers: {len(others)} conjecture(s) of their own — worked '
                     "examples and open questions, not statements of either paper: "
                     + ", ".join(f'<a href="{claim_href(e.id, "")}"><code>{breakable(e.id)}</code></a> '
                                 f'<span class="quiet-chip">{tex.words(_short(e.standing))}</span>'
                                 for e in others) + ".</p>")
    parts.append("</section>")
    return "".join(parts)


def _role_word(role: str, n: int) -> str:
    return {"lemma": "lemma", "variant": "tempting variant", "conjecture": "conjecture",
            "analogue": "analogue on other data"}[role] + ("s" if n > 1 else "")


def _quiet_states(entries) -> str:
    found: dict[str, int] = {}
    for e in entries:
        found[_short(e.standing)] = found.get(_short(e.standing), 0) + 1
    return ", ".join(f"{n} {tex.words(label)}" for label, n in found.items())


def groups_html(entries) -> str:
    """Every claim by group (the papers' claims, lemmas, variants, conjectures) and badge: the counts link here."""
    parts = ['<h2 id="groups">Claims by group</h2>']
    for role, text in model.ROLES.items():
        mine = [e for e in entries if model.role_of(e.claim) == role]
        if not mine:
            continue
        parts.append(f'<h3 id="group-{role}">{html.escape(text[0].upper() + text[1:])}: {len(mine)}</h3>')
        keys = list(dict.fromkeys(e.standing.key for e in sorted(mine, key=lambda e: _key_order(e.standing.key))))
        for key in keys:
            those = [e for e in mine if e.standing.key == key]
            parts.append(f'<p id="group-{role}-{key}">{badge(_role_key(role, key), _short(those[0].standing))} '
                         + ", ".join(f'<a href="{claim_href(e.id, "")}"><code>{breakable(e.id)}</code></a> '
                                     f"{tex.words(e.claim.title)}" for e in those) + "</p>")
    return "\n".join(parts)


def _key_order(key: str) -> int:
    return list(model.RUNGS).index(key) if key in model.RUNGS else 99


QUIET = ("refuted", "open", "verified", "proved")  # verdicts drawn quiet (white) when they are not the paper's


def _role_key(role: str, key: str) -> str:
    """The badge colour: the papers' claims in full colour; a variant's or conjecture's refutation quiet."""
    return f"quiet {key}" if role in ("variant", "conjecture", "analogue") and key in QUIET else key


def _own_key(entry, key: str) -> str:
    """The colour of a claim's own badge beneath a paper's sentence and on its page: full colour for the claims
    that read the sentence and their lemmas; quiet (white, outlined) for a tempting variant, a conjecture and an
    analogue, so that a green "verified" of an analogue on other data never reads as the paper's sentence
    verified, nor a red refutation of a variant as the paper refuted.  Loud keys (does not stand, stale) stay."""
    return _role_key(model.role_of(entry.claim), key)


def _analogue_only(claim) -> str:
    """After "Established here": for an analogue, that what follows is about its own data only."""
    return " (on the analogue's own data only)" if model.role_of(claim) == "analogue" else ""


def _not_checked_here(claim) -> str:
    """Under the paper's sentence on an analogue's page: the sentence itself is not what this claim checks."""
    if model.role_of(claim) != "analogue":
        return ""
    return (f'<p class="not-checked" id="not-checked"><strong>Not checked here.</strong> This claim repeats the '
            f"sentence's experiment on other data — {html.escape(model.relation_of(claim))}. Its badges (white, "
            "outlined) speak of that data only; nothing on this page verifies the sentence above.</p>")


RELATIONS = {
    "reads it": "the claim is our reading of the sentence itself",
    "a finite step of an asymptotic": "the sentence is asymptotic; the claim checks a finite step of it (its badge "
                                      "says how far), which settles nothing beyond",
    "a lemma toward it": "a step of the argument; its badge is the lemma's, not the sentence's",
    "a tempting variant, refuted": "a natural strengthening or variant; refuting it says nothing against the sentence",
    "a conjecture": "not stated by the paper: an open question near it, with its own source",
    "an analogue": "the sentence's experiment repeated on other data (named in the relation); its badge is the "
                   "analogue's, and says nothing of the paper's own data",
}


def _relation_text(relation: str) -> str:
    """What a relation means, in words (an analogue names its data in the relation itself)."""
    return RELATIONS.get(relation) or (RELATIONS["an analogue"] if relation.startswith("an analogue") else "")


def summary_html(report) -> str:
    """The counts, each a link: claims per group (the papers' claims, lemmas, variants, conjectures) and badge,
    outcomes by status, stale outcomes."""
    entries = report.entries
    lines = []
    for role, text in model.ROLES.items():
        mine = [e for e in entries if model.role_of(e.claim) == role]
        if not mine:
            continue
        by_key: dict[str, int] = {}
        for e in mine:
            by_key[e.standing.key] = by_key.get(e.standing.key, 0) + 1
        counts = " ".join(f'<a class="count" href="#group-{role}-{k}">{badge(_role_key(role, k), _count_label(k))} {n}</a>'
                          for k, n in sorted(by_key.items(), key=lambda kv: _key_order(kv[0])))
        lines.append(f'<li><a href="#group-{role}"><strong>{len(mine)}</strong> {html.escape(text)}</a>: {counts}</li>')
    points = [p for e in entries for p in e.points]
    statuses: dict[str, int] = {}
    for p in points:
        statuses[p.status_label] = statuses.get(p.status_label, 0) + 1
    outcomes = ", ".join(f"{n} {html.escape(label)}" for label, n in sorted(statuses.items())) or "none"
    stale = sum(1 for p in points if p.stale)
    standing = sum(1 for p in points if p.stands)
    return (f'<div class="standing" id="summary"><h2 class="counts-title">Counts</h2>'
            f'<p class="counts"><strong>{len(entries)} claim(s)</strong>, by group and badge (each count links to its '
            f'claims):</p><ul class="counts">{"".join(lines)}</ul>'
            f"<p><strong>{len(points)} outcome(s)</strong> ({outcomes}); {standing} stand"
            + (f'; <strong class="stale-count">{stale} stale</strong> (made for another statement: check again)' if stale else "")
            + f'.</p><p class="muted">{html.escape(trusted_summary(report))}.</p></div>')


def _count_label(key: str) -> str:
    return {"verified": "verified up to a size"}.get(key, model.RUNGS.get(key, (key,))[0])


def sentence_html(sentence, registered: set, coq_run=None) -> str:
    """One sentence, once, and beneath it a row per claim serving it: relation, badge, what the checker accepted."""
    rows = []
    for e in sentence.entries:
        outcome = "".join(outcome_cell(e, p) for p in e.points) or '<span class="muted">none</span>'
        accepted = "".join(accepted_cell(e, p, coq_run) for p in e.points) or '<span class="muted">nothing: no outcome</span>'
        rests = "<br>".join(_claim_link(u, registered, "") for u in e.claim.uses) or '<span class="muted">nothing</span>'
        source = model.source_of(e.claim)
        by = "" if source == sentence.source else f'<br><span class="muted">stated by {html.escape(source)}</span>'
        rows.append(
            f'<tr id="row-{model.safe(e.id)}">'
            f'<td><span class="relation">{html.escape(model.relation_of(e.claim))}</span><br>'
            f'<a href="{claim_href(e.id, "")}"><code>{breakable(e.id)}</code></a><br>{tex.words(e.claim.title)}{by}</td>'
            f'<td>{badge(_own_key(e, e.standing.key), e.standing.label)}{coq_badge(e, coq_run)}{symbolic_badge(e)}<br>'
            f'<span class="muted">{tex.words(e.standing.detail)}</span></td>'
            f'<td class="accepted">{accepted}</td><td>{outcome}</td><td>{rests}</td>'
            "</tr>")
    return (f'<section class="sentence" id="{sentence.anchor}"><blockquote>{inline(sentence.text)}</blockquote>'
            f'<p class="muted">Stated by {html.escape(sentence.source)}; served by {len(sentence.entries)} claim(s):</p>'
            '<table class="dashboard wide"><colgroup><col class="claim"><col class="established"><col class="accepted">'
            '<col class="outcomes"><col class="rests"></colgroup>'
            "<tr><th>claim, and how it serves the sentence</th><th>established here (its own badge)</th>"
            "<th>what the trusted checker accepted</th><th>outcomes</th><th>rests on</th></tr>"
            + "".join(rows) + "</table></section>")


def outcome_cell(entry, point) -> str:
    """One outcome on the dashboard: its point, status (why unknown), stand or not, stale, when made, time."""
    return (f'<p><a href="{claim_href(entry.id, "")}#{point.anchor}">{html.escape(point.slug)}</a>: '
            f"{badge(_own_key(entry, _status_key(point)), point.status_label)}"
            + (f' {badge("stale", "STALE")}' if point.stale else "")
            + ("" if point.stands else " <strong>does not stand</strong>")
            + ("" if not point.stands or point.as_expected else f' <strong>expected {html.escape(str(point.expected))}</strong>')
            + f' <span class="muted">{_seconds(point):.2f} s</span><br><span class="made">{html.escape(point.made_text)}</span></p>')


def trusted_summary(report) -> str:
    """One line: what the trusted checker made of the folder."""
    v = report.verification
    accepted = sum(1 for c in v.certificates if c.get("status") == "accepted")
    standing = sum(1 for o in v.outcomes if o.ok)
    said = (f"{len(report.entries)} claim(s); the trusted checker accepted {accepted} of {len(v.certificates)} "
            f"certificate(s), and {standing} of {len(v.outcomes)} outcome(s) stand")
    if _coq_run(report) is not None:
        filed = [o for o in _coq_run(report).obligations if o.file]
        said += (f"; Coq accepted {sum(1 for o in filed if o.accepted)} of {len(filed)} obligation file(s) "
                 f"({len(_coq_run(report).obligations) - len(filed)} obligation(s) have no Coq counterpart)")
    return said


def trusted_alarms(report) -> list[str]:
    """What must be said loudly about the checker's run as a whole."""
    v, lines = report.verification, []
    if v.error:
        lines.append(f"THE TRUSTED CHECKER DID NOT FINISH: {v.error}")
    if _coq_run(report) is not None:
        for item in _coq_run(report).obligations:
            if item.file and not item.accepted:
                lines.append(f"NOT ACCEPTED BY COQ: coq/{item.file} ({_relative(report, item.outcome)}: {item.words}): {item.error}")
    for c in report.rejected:
        lines.append(f"{c.get('status')}: {_relative(report, c.get('path', ''))}: {c.get('reason', '')}")
    if v.foreign_modules:
        lines.append("the checker process loaded modules outside the standard library: " + ", ".join(v.foreign_modules))
    return lines


def _relative(report, path) -> str:
    root = report.outcomes_root
    return str(path)[len(root) + 1:] if root and str(path).startswith(root + "/") else str(path)


def _seconds(point) -> float:
    """The wall-clock time the check recorded (a number, or its text as the bounded parser keeps it); else 0."""
    value = point.record.get("seconds", 0)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and re.fullmatch(r"\d{1,12}(\.\d{1,12})?([eE][-+]?\d{1,3})?", value):
        return float(value)
    return 0.0


ACCEPTED_LIMIT = 3  # obligations per point on the dashboard; the claim's page lists all


def shown_obligations(point) -> list[dict]:
    """The rows that carry the verdict: verify rows for verified or unknown, refute rows for refuted."""
    side = "refute" if point.status == "refuted" else "verify"
    return [o for o in point.obligations if o.get("side") == side]


def obligation_mark(point, row) -> str:
    """How one obligation stands: discharged by a file, missing, or not discharged."""
    if row.get("by"):
        return f"discharged by {row['by']}"
    if row.get("side") == "verify" and point.status == "verified":
        return "MISSING: not discharged"
    return "not discharged"


def accepted_cell(entry, point, coq_run=None) -> str:
    """The dashboard's column: per point, the obligations that carry its verdict and what discharged each
    (and, when the report ran Coq, how many of them Coq checked)."""
    head = f'<a href="{claim_href(entry.id, "")}#accepted-{point.anchor}">{html.escape(point.slug)}</a>'
    said = coq.rung(coq_run, point)
    if said:
        head += " " + badge("coqchecked" if said == coq.RUNG else "coqpartial", said)
    if not point.stands:
        return f'<p>{head}: <strong class="loud">does not stand</strong> — {html.escape(point.why_not)}</p>'
    rows = shown_obligations(point)
    if point.status == "refuted":
        rows = [o for o in rows if o.get("by")]
    if point.status == "unknown":
        if not point.partial:
            return f'<p>{head}: <span class="muted">{html.escape(point.status_label)}: claims nothing, needs nothing</span></p>'
        done = [o for o in rows if o.get("by")]
        items = "".join(f"<li>{mathml.prose(str(o.get('words', '')))} — <code>{html.escape(obligation_mark(point, o))}</code></li>"
                        for o in done[:ACCEPTED_LIMIT])
        return (f"<p>{head}: {html.escape(point.status_label)} — {len(done)} of {len(rows)} obligation(s) discharged "
                f"(partial, never verified)</p><ul>{items}</ul>")
    items = "".join(f"<li>{mathml.prose(str(o.get('words', '')))} — <code>{html.escape(obligation_mark(point, o))}</code></li>"
                    for o in rows[:ACCEPTED_LIMIT])
    more = (f'<li class="more"><a href="{claim_href(entry.id, "")}#accepted-{point.anchor}">… and '
            f"{len(rows) - ACCEPTED_LIMIT} more</a></li>" if len(rows) > ACCEPTED_LIMIT else "")
    return f"<p>{head}: {tex.words(point.rung)}</p><ul>{items}{more}</ul>"


def _coq_run(report):
    """The report's third stage (None when it did not run Coq)."""
    return getattr(report, "coq", None)


def coq_badge(entry, coq_run) -> str:
    """"checked by Coq" beside the claim's badge when Coq ran and every point of the claim earned it."""
    if coq_run is None or not entry.points or any(coq.rung(coq_run, p) != coq.RUNG for p in entry.points):
        return ""
    return " " + badge("coqchecked", coq.RUNG)


def symbolic_badge(entry) -> str:
    """The sympy steps as their own rung, beside the checker's (never inside it)."""
    if not entry.symbolic:
        return ""
    names = ", ".join(f"<code>{html.escape(n)}</code>" for n in entry.symbolic)
    return (f' {badge("symbolic", model.RUNGS["symbolic"][0])}'
            f'<br><span class="muted">beside it, not checked by the trusted checker: {names}</span>')


def graph_svg(report, root: str) -> str:
    nodes = {e.id: tuple(e.claim.uses) for e in report.entries}
    status = {e.id: (e.standing.key, " | ".join([_short(e.standing)] + _carriers(e))) for e in report.entries}
    titles = {e.id: tex.plain(f"{e.claim.title} — {e.standing.label}"
                              + "".join(f"; {c}" for c in _carriers(e))) for e in report.entries}
    href = {e.id: claim_href(e.id, root) for e in report.entries}
    drawn = graph.svg(nodes, status, titles, href)
    return drawn if root else f'<div class="graph-box" id="graph-box">{drawn}</div>'


def _carriers(entry) -> list[str]:
    """For a claim proved for every parameter: what carries the every-parameter step — each discharged obligation
    whose judgment ranges over an unbounded interval (a rule of the trusted checker), and the Coq theorems that
    state the claim. Its inputs' own badges (often finite) are theirs: the proof does not rest on their sizes."""
    if entry.standing.key != "proved":
        return []
    found = []
    for point in entry.points:
        for o in point.discharged:
            judgment = o.get("judgment") or {}
            for key, value in sorted(judgment.items()) if isinstance(judgment, dict) else ():
                if isinstance(value, list) and len(value) == 2 and value[1] is None and value[0] is not None:
                    found.append(f"every {key} >= {value[0]}: checker rule {judgment.get('judgment', '?')}")
    found = list(dict.fromkeys(found))
    formal = [f for f in getattr(entry.claim, "formal", ()) or () if isinstance(f, str)]
    if formal:
        found.append(f"Coq: {formal[0]}" + (f" +{len(formal) - 1}" if len(formal) > 1 else ""))
    return found


def _short(standing) -> str:
    """A node's label in the graph: the rung without its sizes (the hover title has them)."""
    if standing.loud:
        return standing.label.split(":")[0].split(" — ")[0]
    return "verified up to a size" if standing.key == "verified" else standing.label


def _used_by(entries) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for e in entries:
        for u in e.claim.uses:
            found.setdefault(u, []).append(e.id)
    return {k: sorted(v) for k, v in sorted(found.items())}


def breakable(claim_id: str) -> str:
    """An id that may wrap after its dots and underscores (and nowhere else, unless nothing else fits)."""
    return html.escape(claim_id).replace(".", ".<wbr>").replace("_", "_<wbr>")


def _claim_link(claim_id: str, registered: set, root: str) -> str:
    if claim_id in registered:
        return f'<a href="{claim_href(claim_id, root)}"><code>{breakable(claim_id)}</code></a>'
    return f'<code>{breakable(claim_id)}</code> <span class="muted">(not registered)</span>'


def _status_key(point) -> str:
    if point.stale:
        return "stale"
    if not point.as_expected:
        return "mismatch"
    if point.status == "unknown":
        return {"open": "open", "budget": "budget"}.get(point.unknown_why, "unknown")
    return {"verified": "verified", "refuted": "refuted"}.get(point.status, "unknown")


# --------------------------------------------------------------- claim page


def coq_html(claim, coq_run=None, root: str = "../") -> str:
    """The headline theorems of formal/ that state the claim (KTheorems.v for paper K, STheorems.v for paper S):
    verbatim (monospace, linked to their line), readable, and the words of the definitions file they use
    (KDefs.v, SDefs.v), each glossed by the comment that file writes above it."""
    found = coq.stated(claim)
    if not found:
        return ""
    files = list(dict.fromkeys(item.source for item in found))
    defs_files = list(dict.fromkeys(item.defs for item in found))
    link = lambda name: f'<a href="{root}formal/{coq.page_name(name)}">formal/{html.escape(name)}</a>'  # noqa: E731
    parts = ['<div class="in-coq" id="coq">',
             f"<h3>In Coq</h3><p>{' and '.join(link(f) for f in files)} state(s) this claim as {len(found)} "
             f"theorem(s), in the words of {' and '.join(link(f) for f in defs_files)} alone; each is shown as "
             "written, then as a reader writes it.</p>"]
    for item in found:
        page = f"{root}formal/{coq.page_name(item.source)}"
        if not item.statement:
            parts.append(f'<p class="loud">the claim names the theorem {html.escape(item.name)}, which formal/'
                         f"{html.escape(item.source)} does not state</p>")
            continue
        parts.append(f'<p id="coq-{html.escape(item.name)}"><a href="{page}#{html.escape(item.name)}">'
                     f"<code>{html.escape(item.name)}</code></a> "
                     f'<span class="muted">(formal/{html.escape(item.source)}, line {item.line})</span></p>'
                     f'<pre class="coq"><code>{html.escape(item.verbatim)}</code></pre>'
                     + (f'<p class="coq-readable">{html.escape(coq.readable(item.statement))}</p>'
                        if coq.readable(item.statement) != item.statement else ""))
    for defs_file in defs_files:
        words = coq.glosses([i.statement for i in found if i.statement and i.defs == defs_file], defs_file)
        if words:
            defs = f"{root}formal/{coq.page_name(defs_file)}"
            parts.append(f"<p>The words of formal/{html.escape(defs_file)} it uses, as the comments of "
                         f"{html.escape(defs_file)} explain them:</p>"
                         '<ul class="gloss">' + "".join(
                             f'<li><a href="{defs}#{html.escape(g.name)}"><code>{html.escape(g.signature)}</code></a>'
                             + (f" := {html.escape(g.body)}" if g.body else "")
                             + (f" — {tex.words(g.comment)}" if g.comment else "") + "</li>" for g in words) + "</ul>")
    if coq_run is not None and coq_run.built:
        parts.append('<p class="muted">Coq (coqc) compiled formal/, its headline files included, for this report: '
                     "these theorems are proved there.</p>")
    else:
        parts.append('<p class="muted">Not compiled for this report: <code>attnproof report --coq</code> (or '
                     "<code>attnproof verify --coq</code>) builds formal/ with coqc, its headline files included.</p>")
    parts.append("</div>")
    return "\n".join(parts)


def statement_html(claim, coq_run=None) -> str:
    shown = coq_html(claim, coq_run)
    try:
        claim_statement = claim.statement()
    except Exception as exc:  # a claim under construction must not take the whole report down
        return shown + f'<p class="loud">the statement could not be built: {html.escape(f"{type(exc).__name__}: {exc}")}</p>'
    rows = []
    formula = _formula(claim_statement)
    statement_ = claim_statement
    for word, (expr, words) in [("assume", h) for h in statement_.hypotheses] + [("then", statement_.conclusion)]:
        note = (' <span class="muted">(the sympy object evaluates to true: the words carry this hypothesis)</span>'
                if expr is sympy.true else "")
        rows.append(f'<tr><td>{word}</td><td><div class="cell-math">{mathml.sympy_mathml(expr)}</div></td>'
                    f"<td>{mathml.prose(words)}{note}</td></tr>")
    label = ('<h3 id="own-reading">The project\'s own reading (sympy)</h3><p class="muted">What the check states in '
             "its own terms; the Coq theorems above are what Coq proves.</p>" if shown else "")
    where = statement.where(claim_statement)
    where = (f'<p class="muted where">where {html.escape("; ".join(where))}.</p>' if where else "")
    return (shown + label + f'<div class="formula" id="formula">{formula}</div>' + where
            + '<p class="muted">The statement with its quantifiers (the variables its hypotheses name are bound in front, '
            "those only the conclusion names where its words bind them; what each ranges over is in the words). "
            "Its parts, each with its words:</p>"
            '<table class="statement wide"><colgroup><col style="width: 5.2rem"><col style="width: 52%">'
            f'<col style="width: 48%"></colgroup>{"".join(rows)}</table>')


def _formula(claim_statement) -> str:
    try:
        return statement.mathml_formula(claim_statement)
    except Exception as exc:  # a statement sympy cannot print as one formula: its parts below still show
        return f'<p class="muted">(no single formula: {html.escape(type(exc).__name__)})</p>'


def claim_page(report, entry) -> bytes:
    claim, root = entry.claim, "../"
    registered = {e.id for e in report.entries}
    used_by = _used_by(report.entries).get(entry.id, [])
    standing = entry.standing
    parts = [f'<nav><a href="{root}index.html">← all claims</a> · <a href="{quote(entry.id)}.md">Markdown</a></nav>',
             f"<h1>{tex.words(claim.title)}</h1>",
             f"<p><code>{html.escape(entry.id)}</code> · {_attribution_html(claim)}</p>",
             f'<p id="relation">How it serves the paper\'s sentence: <span class="relation">'
             f"{html.escape(model.relation_of(claim))}</span> — {html.escape(_relation_text(model.relation_of(claim)))}. "
             f'<a href="{root}index.html#row-{model.safe(entry.id)}">The sentence and every claim serving it</a>.</p>',
             f'<div class="{"loud" if standing.loud else "standing"}" id="standing">'
             f"Established here{_analogue_only(claim)}: {badge(_own_key(entry, standing.key), standing.label)} "
             f"{tex.words(standing.detail)}"
             f"{coq_badge(entry, _coq_run(report))}{symbolic_badge(entry)}<br>"
             f'<span class="muted">The rung is what the trusted checker accepted at the points below; the claim '
             f"expects <code>{html.escape(claim.expected)}</code> at the default point.</span></div>",
             f'<h2 id="paper">{html.escape(model.attribution(claim)[0])}</h2>',
             f"<blockquote>{inline(claim.sentence)}</blockquote>",
             _not_checked_here(claim),
             '<h2 id="reading">Our reading</h2>',
             docstring_html(entry.reading) if entry.reading else '<p class="muted">(no reading given)</p>',
             '<h2 id="statement">The statement checked</h2>',
             statement_html(claim, _coq_run(report)),
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
    return page(f"{tex.plain(claim.title)} — attnproof", "\n".join(parts), root)


def _attribution_html(claim) -> str:
    """Who states the claim and its paper: a conjecture's source first, the paper only as what it is about."""
    paper = model.attribution(claim)[1]
    title = model.paper_title(claim.paper)
    paper = html.escape(paper) + (f" <em>{html.escape(title)}</em>" if paper and title else "")
    by = f"stated by {html.escape(model.source_of(claim))}"
    if model.stated_by_paper(claim):
        return f"{paper} · {by}"
    return by + (f" · {paper}" if paper else "")


def parameters_text(parameters: dict) -> str:
    """A point's parameters: a name that is mathematics (beta, m) as mathematics, a name of code (m_max) as code."""
    if not parameters:
        return "no parameters"
    return ", ".join(tex.words(f"{k} = {v}") if not tex.is_code(str(k)) else
                     f"<code>{html.escape(str(k))}</code> = {tex.words(str(v))}" for k, v in sorted(parameters.items()))


def _parameters_html(claim) -> str:
    if not claim.parameters:
        return "<p>none</p>"
    rows = "".join(f"<tr><td><code>{html.escape(p.name)}</code></td><td>{html.escape(str(p.default))}</td>"
                   f"<td>{tex.words(p.allowed())}</td><td>{tex.words(p.doc)}</td></tr>" for p in claim.parameters)
    return f"<table><tr><th>name</th><th>default</th><th>allowed</th><th>meaning</th></tr>{rows}</table>"


def point_html(report, entry, point) -> str:
    r = point.record
    if not point.stands:
        mark = f' <strong class="loud">DOES NOT STAND — not established: {html.escape(point.why_not)}</strong>'
    elif not point.as_expected:
        mark = f' <strong class="loud">NOT AS EXPECTED: the claim expects {html.escape(str(point.expected))}</strong>'
    else:
        mark = ""
    if point.stale:
        mark = (' <strong class="loud">STALE — made for another statement than the installed claim\'s: it establishes '
                f"nothing about the claim as it now reads; check again: attnproof check {html.escape(entry.id)}</strong>")
    parts = [f'<h2 id="{point.anchor}">Outcome at <code>{html.escape(point.slug)}</code></h2>',
             f"<p>{badge(_own_key(entry, _status_key(point)), point.status_label)}{mark}</p>",
             f'<p class="made" id="made-{point.anchor}">{html.escape(point.made_text)}.</p>',
             f"<p>Parameters: {parameters_text(point.parameters)}.</p>",
             f"<p>Time: {_seconds(point):.2f} s. Outcome record: "
             f'<a href="../data/{_q(point.folder)}/outcome.json">data/{html.escape(point.folder)}/outcome.json</a>; '
             f"re-check this verdict: <code>attnproof verify data/{html.escape(point.folder)}</code></p>",
             accepted_html(point, _coq_run(report), quiet=_own_key(entry, "verified") != "verified")]
    if point.symbolic:
        parts.append(f'<h3 id="symbolic-{point.anchor}">Symbolic (sympy) — its own rung</h3>'
                     f"<p>{badge('symbolic', model.RUNGS['symbolic'][0])} steps sympy carried out; the trusted checker "
                     "did not check them and they are no part of what it accepted above.</p>" + values.to_html(point.symbolic))
    parts.append(certificates_html(point))
    parts.append(reported_html(point))
    figures = report.figures.get(point.folder, [])
    if figures or point.folder in report.plot_errors:
        parts.append("<h3>Plots</h3><p class=\"muted\">Drawn from the facts the check reported (plots show, never decide).</p>")
    if point.folder in report.plot_errors:
        parts.append(f'<p class="loud">the claim\'s plots failed: {html.escape(report.plot_errors[point.folder])}</p>')
    for figure in figures:
        caption = tex.words(figure.plot.title) + (f" — {tex.words(figure.plot.note)}" if figure.plot.note else "")
        parts.append(f'<figure><img src="../{_q(figure.path)}" alt="{html.escape(tex.plain(figure.plot.title))}" width="640" height="400">'
                     f"<figcaption>{caption}</figcaption></figure>")
    return "\n".join(parts)


def accepted_html(point, coq_run=None, quiet: bool = False) -> str:
    """What the trusted checker accepted at this point: the rung, then every obligation and what discharged it.

    Built from the checker's verdict and the installed claim only; nothing of
    the outcome file's free text (message, coverage, facts) enters here.
    """
    parts = [f'<div class="accepted" id="accepted-{point.anchor}">', "<h3>What the trusted checker accepted</h3>"]
    if point.stands:
        said = coq.rung(coq_run, point)
        beside = (" " + badge("coqchecked" if said == coq.RUNG else "coqpartial", said)) if said else ""
        key = _rung_key(point)
        parts.append(f"<p>Rung: {badge(f'quiet {key}' if quiet and key in QUIET else key, point.rung)}{beside} "
                     f'<span class="muted">(status {html.escape(point.status_label)}, reach '
                     f"{tex.words(point.reach or 'none')}; the obligations are the installed claim's own)</span></p>")
        if point.check is not None and point.check.rests_on:  # a plugin's claim: bound by its own code, said so
            parts.append(f'<p class="partial"><strong>Rests on {html.escape(point.check.rests_on)}</strong> — the claim, its '
                         "statement and its obligations come from code outside attnproof, bound in a process of its own.</p>")
        if point.partial:
            done = [o for o in point.obligations if o.get("side") == "verify" and o.get("by")]
            total = [o for o in point.obligations if o.get("side") == "verify"]
            parts.append(f'<p class="partial"><strong>Partial:</strong> {len(done)} of {len(total)} obligation(s) '
                         "discharged, each by the certificate named below; the others were not reached "
                         f"({html.escape(point.status_label)}). Each discharged obligation holds on its own; the claim "
                         "at this point is not verified.</p>")
    else:
        parts.append(f'<p class="loud">DOES NOT STAND — rung: not established. {html.escape(point.why_not)}</p>')
    rows = point.obligations
    if rows:
        note = ("" if point.bound else '<p class="muted">The obligations as the installed claim states them at this '
                "point (or, failing that, as the outcome file records them): none is established.</p>")
        body = "".join(
            f"<tr><td>{html.escape(str(o.get('side', '')))}</td><td>{mathml.prose(str(o.get('words', '')))}</td>"
            f"<td><details><summary>{html.escape(str((o.get('judgment') or {}).get('judgment', '?')))}</summary>"
            f"<code>{html.escape(_compact(o.get('judgment')))}</code></details></td>"
            f"<td>{_mark_html(point, o)}</td></tr>" for o in rows)
        parts.append(note + "<table class=\"obligations wide\"><colgroup><col style=\"width: 4.6rem\"><col style=\"width: 46%\">"
                     "<col style=\"width: 22%\"><col style=\"width: 24%\"></colgroup><tr><th>side</th><th>obligation</th><th>judgment</th>"
                     "<th>discharged by</th></tr>" + body + "</table>"
                     '<p class="muted">A <em>verify</em> obligation must be discharged for <code>verified</code>; '
                     "any discharged <em>refute</em> obligation makes <code>refuted</code>.</p>")
    else:
        parts.append('<p class="muted">no obligations listed</p>')
    if coq_run is not None:
        parts.append(coq_obligations_html(point, coq_run))
    parts.append("</div>")
    return "\n".join(parts)


def coq_obligations_html(point, coq_run) -> str:
    """Per verify obligation: whether Coq accepted its file, the statement it proved, and from what."""
    found = coq.rows(coq_run, point)
    k, n = coq.checked(coq_run, point)
    body = []
    for row, item in found:
        if item is None:
            verdict, stated = '<span class="muted">not exported</span>', ""
        elif not item.file:
            verdict, stated = f'<span class="muted">no Coq file: {html.escape(item.reason)}</span>', ""
        else:
            verdict = ('<strong>accepted by Coq</strong>' if item.accepted else
                       f'<strong class="loud">NOT ACCEPTED BY COQ</strong>: {html.escape(item.error)}')
            source = f"from {html.escape(item.certificate)}" if item.certificate else "by a general theorem of formal/"
            verdict += (f'<br><a href="../coq/{quote(item.file)}"><code>coq/{html.escape(item.file)}</code></a> '
                        f'<span class="muted">({source})</span>')
            stated = f'<pre class="coq"><code>{html.escape(item.statement)}</code></pre>'
            if coq.readable(item.statement) != item.statement:
                stated += f'<p class="coq-readable">{html.escape(coq.readable(item.statement))}</p>'
        body.append(f"<tr><td>{mathml.prose(str(row.get('words', '')))}</td><td>{verdict}</td><td>{stated}</td></tr>")
    return (f'<h4 id="coq-{point.anchor}">Checked by Coq: {k} of {n} verify obligation(s)</h4>'
            '<p class="muted">Each obligation the report could state in Coq, in the words of formal/KDefs.v, proved '
            "from its certificate's data by a soundness theorem of formal/ and compiled by coqc for this report; the "
            "files are under <code>coq/</code> (compile one with <code>coqc -R &lt;formal/ built&gt; AttnProof -R coq "
            "Cert coq/FILE</code>).</p>"
            '<table class="obligations coq-obligations wide"><colgroup><col style="width: 30%"><col style="width: 26%">'
            '<col style="width: 44%"></colgroup><tr><th>obligation</th><th>Coq</th><th>its statement in Coq</th></tr>'
            + "".join(body) + "</table>")


def _mark_html(point, row) -> str:
    mark = obligation_mark(point, row)
    if row.get("by"):
        return f'discharged by <a href="../data/{_q(point.folder)}/{quote(str(row["by"]))}"><code>{html.escape(str(row["by"]))}</code></a>'
    return f'<strong class="loud">{html.escape(mark)}</strong>' if mark.startswith("MISSING") else f'<span class="muted">{html.escape(mark)}</span>'


def _compact(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


def _rung_key(point) -> str:
    if point.status == "verified":
        return "proved" if point.reach == "all" else "verified"
    return {"refuted": "refuted"}.get(point.status, "unknown")


def certificates_html(point) -> str:
    parts = ["<h3>Certificates</h3>"]
    if not point.certificates:
        parts.append("<p class=\"muted\">none</p>")
        return "\n".join(parts)
    rows = []
    for cert in point.certificates:
        said = tex.words(model.checker_words(cert.summary))
        if not cert.accepted:
            said = f'<strong class="loud">{said}</strong>'
        elif cert.judgment is not None:
            said += f'<br><details><summary>judgment</summary><code>{html.escape(_compact(cert.judgment))}</code></details>'
        rows.append(f"<tr><td><code>{html.escape(cert.kind)}</code></td><td>{said}</td>"
                    f'<td><a href="../{_q(cert.relpath)}">{html.escape(cert.name)}</a> '
                    f'<span class="muted">({cert.size:,} bytes)</span></td>'
                    f"<td><code>attnproof verify {html.escape(cert.relpath)}</code></td></tr>")
    parts.append("<p>Each certificate is re-checked from its data alone by the trusted checker; run the command "
                 "in this report's folder (the certificates are copied under <code>data/</code>).</p>"
                 '<table class="wide certificates"><colgroup><col style="width: 16%"><col style="width: 44%">'
                 '<col style="width: 18%"><col style="width: 22%"></colgroup>'
                 "<tr><th>kind</th><th>the trusted checker said</th><th>file</th><th>re-check</th></tr>"
                 + "".join(rows) + "</table>")
    return "\n".join(parts)


def reported_html(point) -> str:
    """What the check reported of itself: shown for reading, labelled unchecked."""
    r = point.record
    parts = [f'<h3 id="reported-{point.anchor}">Reported by the check, unchecked</h3>',
             '<p class="muted">What the check wrote into its outcome file. The trusted checker does not read it: '
             "it may help a reader, and establishes nothing.</p>",
             f"<p>Message: {mathml.prose(str(r.get('message') or '(none)'))}</p>"]
    if point.reported_discharged:
        rows = "".join(f"<tr><td>{html.escape(d['side'])}</td><td>{mathml.prose(d['obligation'])}</td>"
                       f"<td>{html.escape(d['certificate'] or 'not discharged')}</td></tr>" for d in point.reported_discharged)
        parts.append("<h4>What the check says it discharged</h4>"
                     '<table class="wide"><tr><th style="width: 10%">side</th><th>obligation</th><th style="width: 30%">'
                     f"certificate</th></tr>{rows}</table>")
    parts += [f'<p class="loud">{html.escape(text)}</p>' for text in point.disagreements]
    if r.get("counterexample") is not None:
        parts.append("<h4>Counterexample</h4>" + values.to_html(r["counterexample"]))
    covered = dict(r.get("covered") or {}) if isinstance(r.get("covered"), dict) else {}
    covered.pop("certificates", None)  # the checker's own words are with the certificates above
    parts.append("<h4>What was checked, and up to where</h4>" + values.to_html(covered))
    facts = {k: v for k, v in point.facts.items() if not str(k).startswith(model.SYMBOLIC)}
    witness = {k: v for k, v in facts.items() if "witness" in k or k.startswith("worst")}
    if witness:
        parts.append("<h4>Witness and worst case</h4>" + values.to_html(witness))
    others = {k: v for k, v in facts.items() if k not in witness}
    parts.append(("<h4>Other facts</h4>" if witness else "<h4>Facts</h4>") + values.to_html(others))
    return "\n".join(parts)


def _q(path: str) -> str:
    return quote(path, safe="/")


SEARCH_SCRIPT = """\
// The dashboard's search: filters the claims of assets/search-index.js (shipped with the report; no network);
// and the graph: hovering or focusing a claim lights its own edges (what it rests on, what rests on it).
(function () {
  var svg = document.querySelector('svg.graph');
  if (svg) {
    var light = function (id) {
      svg.classList.toggle('focus', !!id);
      Array.prototype.forEach.call(svg.querySelectorAll('path.edge'), function (p) {
        p.classList.toggle('lit', !!id && (p.getAttribute('data-from') === id || p.getAttribute('data-to') === id));
      });
      Array.prototype.forEach.call(svg.querySelectorAll('a.node'), function (a) {
        var mine = a.getAttribute('data-claim');
        a.classList.toggle('lit', !!id && (mine === id || !!svg.querySelector(
          'path.edge.lit[data-from="' + mine + '"], path.edge.lit[data-to="' + mine + '"]')));
      });
    };
    Array.prototype.forEach.call(svg.querySelectorAll('a.node'), function (a) {
      a.addEventListener('mouseenter', function () { light(a.getAttribute('data-claim')); });
      a.addEventListener('focus', function () { light(a.getAttribute('data-claim')); });
      a.addEventListener('mouseleave', function () { light(null); });
      a.addEventListener('blur', function () { light(null); });
    });
  }
})();
(function () {
  var box = document.getElementById('search'), list = document.getElementById('search-results');
  var index = window.ATTNPROOF_SEARCH || [];
  if (!box || !list) { return; }
  function show() {
    var query = box.value.trim().toLowerCase();
    while (list.firstChild) { list.removeChild(list.firstChild); }
    if (!query) { return; }
    var words = query.split(/\\s+/);
    var found = index.filter(function (e) {
      var text = e.text.toLowerCase();
      return words.every(function (w) { return text.indexOf(w) >= 0; });
    });
    found.slice(0, 25).forEach(function (e) {
      var item = document.createElement('li'), link = document.createElement('a'), code = document.createElement('code');
      link.href = e.href; code.textContent = e.id; link.appendChild(code); item.appendChild(link);
      item.appendChild(document.createTextNode(' \\u2014 ' + e.title + ' (' + e.badge + ')'));
      list.appendChild(item);
    });
    if (!found.length) {
      var none = document.createElement('li'); none.textContent = 'no claim matches \\u201c' + box.value + '\\u201d';
      list.appendChild(none);
    }
  }
  box.addEventListener('input', show);
  show();
})();
"""


def search_index(report) -> str:
    """The search's index: per claim its id, title, sentence, relation and badge as plain text (Unicode, no markup)."""
    rows = []
    for e in report.entries:
        title, sentence = tex.plain(e.claim.title), tex.plain(e.claim.sentence)
        rows.append({"id": e.id, "href": claim_href(e.id, ""), "title": title, "badge": tex.plain(e.standing.label),
                     "text": " ".join([e.id, title, sentence, model.relation_of(e.claim), e.standing.label,
                                       model.role_of(e.claim)])})
    return "window.ATTNPROOF_SEARCH = " + json.dumps(rows, ensure_ascii=False, indent=0, sort_keys=True) + ";\n"


def render(report) -> dict[str, bytes]:
    files = {"index.html": dashboard(report), "assets/style.css": STYLE.encode("utf-8"),
             "assets/search.js": SEARCH_SCRIPT.encode("utf-8"), "assets/search-index.js": search_index(report).encode("utf-8"),
             "assets/graph.svg": graph_svg(report, root="../").encode("utf-8")}
    for name in coq.SOURCES:
        files[f"formal/{coq.page_name(name)}"] = coq.source_page(name, page)
    for entry in report.entries:
        files[f"claims/{entry.id}.html"] = claim_page(report, entry)
    return files
