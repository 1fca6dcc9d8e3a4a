"""A claim's reading (its module docstring) as HTML: Markdown for the prose, MathML for the mathematics.

The docstrings are written for a terminal: reST literals (````...````) hold
both code (``theorems.kernel_rank._linearised``, ``approx-rank-lower-points``,
``m_max``) and mathematics in ASCII (``kappa(q, x) = phi(q) psi(x)``,
``beta*(m) = max_{d<=m} ln(2(2d-1))/d``); roles (``:mod:`x```) name code;
indented blocks are displayed formulas or lists under a term.  Here:

* a literal that reads as code stays code; any other literal is ASCII
  mathematics, turned into TeX by :func:`ascii_tex` (Greek names become
  letters, ``<=`` becomes ≤, ``<x, q>`` an inner product, ``sum_j`` a sum,
  ``r*(m)`` a starred r, words upright) and into MathML by
  :func:`theorems.report.tex.tex_body`;
* roles become code; an indented block of formulas becomes displayed
  mathematics, an indented list under a term becomes a list;
* the rest is Markdown, rendered by markdown-it-py (CommonMark, raw HTML
  escaped), with the mathematics put back in place of placeholders.

The result has no backslash, no dollar sign and no reST markup in its text.
"""

from __future__ import annotations

import re

from theorems.report import tex
from theorems.report.tex import _ENGLISH, _FUNCTIONS, _GREEK, ascii_tex, is_code  # noqa: F401  (re-exported)

def literal_html(text: str) -> str:
    """One reST literal: code, or its mathematics as MathML."""
    import html

    if is_code(text):
        return f"<code>{html.escape(text)}</code>"
    return tex.wrap(tex.tex_body(ascii_tex(text)), False)


# ------------------------------------------------------------------ Markdown

_ROLE = re.compile(r":(?:mod|func|meth|class|attr|data|obj|exc|ref|py:\w+):`~?([^`]+)`")
_LITERAL = re.compile(r"``(.+?)``", re.S)
_TEX = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)


def _restructure(doc: str) -> str:
    """Indented blocks as Markdown: formulas as display placeholders, a list under a term as a list."""
    lines = doc.strip("\n").split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("    ") and line.strip():
            block = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            term = out[-1].strip() if out and out[-1].strip() else ""
            if any(re.match(r"\s*[*-] ", b) for b in block):  # a list under a term
                if term:
                    out[-1] = f"**{term}**"
                out += [""] + block + [""]
            else:  # a displayed formula, one per line (prose after a colon stays prose)
                out.append("")
                for b in block:
                    if b.strip():
                        out.append(f"⟦{b.strip()}⟧" if not is_code(b.strip()) else f"`{b.strip()}`")
                        out.append("")
            continue
        # a line that starts with ">" is a comparison in a docstring ("> eps in arb"), never a quotation
        out.append(re.sub(r"^(\s*)>", r"\1\\>", line))
        i += 1
    return "\n".join(out)


def to_html(doc: str) -> str:
    """A docstring as HTML (see the module docstring)."""
    from markdown_it import MarkdownIt

    pieces: list[str] = []

    def keep(markup: str) -> str:
        pieces.append(markup)
        return f"MATHPIECE{len(pieces) - 1}X"

    text = _restructure(doc)
    text = re.sub(r"⟦(.+?)⟧", lambda m: "\n" + keep('<div class="display">' + tex.wrap(
        tex.tex_body(ascii_tex(m.group(1))), True) + "</div>") + "\n", text)
    text = _ROLE.sub(lambda m: keep(f"<code>{_escape(m.group(1))}</code>"), text)
    text = _LITERAL.sub(lambda m: keep(literal_html(" ".join(m.group(1).split()))), text)
    text = _TEX.sub(lambda m: keep(tex.tex_to_mathml(m.group(2) or m.group(1), display=m.group(1) is not None)), text)
    text = re.sub(r"(?<!`)`([^`\n]+)`(?!`)", lambda m: keep(literal_html(m.group(1))), text)  # `x` as a literal too
    rendered = MarkdownIt("commonmark", {"html": False}).render(text)
    rendered = re.sub(r"<p>\s*(MATHPIECE\d+X)\s*</p>", r"\1", rendered)
    rendered = _prose_math(rendered)
    return re.sub(r"MATHPIECE(\d+)X", lambda m: pieces[int(m.group(1))], rendered).strip()


def _escape(text: str) -> str:
    import html

    return html.escape(text)


def _prose_math(rendered: str) -> str:
    """The ASCII mathematics of the prose itself (outside literals: "for fixed Psi", "at m = 4") as MathML,
    through the one renderer :func:`theorems.report.tex.words`; code and preformatted text stay as they are."""
    import html

    out, inside = [], 0
    for piece in re.split(r"(<[^>]+>)", rendered):
        if piece.startswith("<"):
            tag = re.match(r"</?(\w+)", piece)
            if tag and tag.group(1) in ("code", "pre"):
                inside += -1 if piece.startswith("</") else 1
            out.append(piece)
        elif inside or not piece.strip():
            out.append(piece)
        else:
            out.append(tex.words(html.unescape(piece)))
    return "".join(out)
