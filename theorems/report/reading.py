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
  :func:`theorems.report.mathml.tex_body`;
* roles become code; an indented block of formulas becomes displayed
  mathematics, an indented list under a term becomes a list;
* the rest is Markdown, rendered by markdown-it-py (CommonMark, raw HTML
  escaped), with the mathematics put back in place of placeholders.

The result has no backslash, no dollar sign and no reST markup in its text.
"""

from __future__ import annotations

import re

from theorems.report import mathml

_GREEK = {**{name: name for name in mathml.GREEK if name.isalpha()}, "eps": "varepsilon", "epsilon": "varepsilon"}
_FUNCTIONS = {"log", "ln", "exp", "tanh", "sinh", "cosh", "sin", "cos", "min", "max", "sup", "inf", "det", "lim",
              "sum", "prod"}
_ENGLISH = {"at", "if", "iff", "for", "and", "or", "of", "on", "is", "to", "by", "with", "every", "all", "some", "where",
            "else", "otherwise", "when", "then"}
_CODE_WORDS = re.compile(r"^_?[a-z][a-z0-9]*(?:_[a-z0-9]*)+$")  # python names such as m_max, search_rounds, symbolic_
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
_HYPHENATED = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)+$")
_BITS = re.compile(r"^\{?[01]{2,}(?:,\s*[01]{2,})*\}?(?:\^\d+)?$")


def is_code(text: str) -> bool:
    """A literal that names code (a module, a certificate kind, a parameter, a command) rather than mathematics."""
    text = text.strip()
    if not text or any(mark in text for mark in ('"', "'s ", ".py", ".json", "attnproof")):
        return True
    if _DOTTED.match(text) or _HYPHENATED.match(text) or _BITS.match(text) or re.fullmatch(r"[-_][a-z][\w-]*", text):
        return True
    if re.fullmatch(r"[A-Z][a-z]+[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+", text):  # a class name, a constant
        return True
    if _CODE_WORDS.match(text):
        parts = text.strip("_").split("_")
        # psi_j, rank_eps, m_j: a letter or name with a one-letter or Greek subscript is mathematics
        return not (len(parts) == 2 and (len(parts[1]) <= 2 or parts[1] in _GREEK) and parts[1] != "")
    if re.fullmatch(r"[a-z]{3,}", text):  # one word: mathematics only if it is a Greek letter or a function
        return text not in _GREEK and text not in _FUNCTIONS
    return False


_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[A-Za-z]+|\d+(?:\.\d+)?|\s+|.", re.S)


def ascii_tex(text: str) -> str:
    """ASCII mathematics as TeX (see the module docstring)."""
    text = re.sub(r"\blog2\b", "log_2", text).replace("<=>", " \\iff ")
    text = text.replace("<=", " \\le ").replace(">=", " \\ge ").replace("!=", " \\ne ").replace("->", " \\to ")
    text = re.sub(r"<([^<>]*?,[^<>]*?)>", r" \\langle \1 \\rangle ", text)  # <x, q>: an inner product
    text = text.replace("||", " \\| ").replace("...", " \\ldots ").replace("..", " \\ldots ").replace("∩", " \\cap ")
    tokens = _TOKEN.findall(text)
    out: list[str] = []
    braces: list[bool] = []  # per open brace: True when it groups (after _, ^ or a command), False for a set brace
    i = 0

    def nxt(j: int) -> str:
        while j < len(tokens) and tokens[j].isspace():
            j += 1
        return tokens[j] if j < len(tokens) else ""

    while i < len(tokens):
        t = tokens[i]
        prev = out[-1] if out else ""
        if t.isspace():
            before, after = (tokens[i - 1] if i else ""), nxt(i)
            if re.fullmatch(r"[A-Za-z0-9]+", before or "") and re.fullmatch(r"[A-Za-z0-9]+", after or "") and (
                    len(before) > 2 or len(after) > 2) and before not in _FUNCTIONS:
                out.append("\\;")  # between words and names, a visible space
            else:
                out.append(" ")
        elif t in ("_", "^"):
            out.append(t)
            following = tokens[i + 1] if i + 1 < len(tokens) else ""
            if following == "{":
                braces.append(True)
                out.append("{")
                i += 1
            elif following == "(":  # e^(...): the parenthesised group is the script
                depth, j = 0, i + 1
                while j < len(tokens):
                    depth += tokens[j] == "("
                    depth -= tokens[j] == ")"
                    if depth == 0:
                        break
                    j += 1
                out.append("{" + ascii_tex("".join(tokens[i + 1:j + 1])) + "}")
                i = j
            elif following and not following.isspace():
                out.append("{" + _word(following, script=True) + "}")
                i += 1
        elif t == "*":
            glued = i > 0 and not tokens[i - 1].isspace() and (i + 1 >= len(tokens) or not re.fullmatch(r"[A-Za-z0-9]+", tokens[i + 1]))
            out.append("^{*}" if glued else " \\cdot ")
        elif t == "{":
            grouping = prev.startswith("\\") and prev[1:].isalpha() and prev not in ("\\le", "\\ge", "\\ne", "\\to", "\\in")
            braces.append(grouping)
            out.append("{" if grouping else "\\{")
        elif t == "}":
            out.append("}" if (braces.pop() if braces else False) else "\\}")
        elif t in ("#", "%", "&", "$"):
            out.append("\\" + t)
        elif t == "sqrt":
            out.append("\\sqrt")
            following = nxt(i + 1)
            j = i + 1
            while j < len(tokens) and tokens[j].isspace():
                j += 1
            if following == "(":
                depth, k = 0, j
                while k < len(tokens):
                    depth += tokens[k] == "("
                    depth -= tokens[k] == ")"
                    if depth == 0:
                        break
                    k += 1
                out.append("{" + ascii_tex("".join(tokens[j + 1:k])) + "}")
                i = k
            elif following and re.fullmatch(r"[A-Za-z0-9]+", following):
                k = j + 1
                while k + 1 < len(tokens) and tokens[k] == "_":  # sqrt p_x: the subscript goes under the root
                    k += 2
                out.append("{" + ascii_tex("".join(tokens[j:k])) + "}")
                i = k - 1
        elif re.fullmatch(r"[A-Za-z]+", t):
            out.append(_word(t, script=False, call=nxt(i + 1) in ("(", "_")))
        else:
            out.append(t)
        i += 1
    out += ["}" for _ in braces]  # an unclosed group is closed, never left to swallow the rest
    return "".join(out).strip()


def _word(word: str, script: bool, call: bool = False) -> str:
    if word in _GREEK:
        return f"\\{_GREEK[word]} "
    if word in _FUNCTIONS:
        return f"\\{word} "
    if word == "in" and not script:
        return " \\in "
    if word in _ENGLISH and not script:
        return f"\\text{{ {word} }}"
    if call and len(word) == 2 and word.islower():  # lo(q, q, q), hi(z, q, q): names of rows, upright
        return f"\\operatorname{{{word}}}"
    if len(word) <= 2 or (script and len(word) <= 3 and word not in ("max", "min")) or word.isdigit():
        return word
    if script and word in ("max", "min"):
        return f"\\{word}"
    return f"\\operatorname{{{word}}}" if call else f"\\text{{{word}}}"


def literal_html(text: str) -> str:
    """One reST literal: code, or its mathematics as MathML."""
    import html

    if is_code(text):
        return f"<code>{html.escape(text)}</code>"
    return mathml._wrap(mathml.tex_body(ascii_tex(text)), False)


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
        out.append(line)
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
    text = re.sub(r"⟦(.+?)⟧", lambda m: "\n" + keep('<div class="display">' + mathml._wrap(
        mathml.tex_body(ascii_tex(m.group(1))), True) + "</div>") + "\n", text)
    text = _ROLE.sub(lambda m: keep(f"<code>{_escape(m.group(1))}</code>"), text)
    text = _LITERAL.sub(lambda m: keep(literal_html(" ".join(m.group(1).split()))), text)
    text = _TEX.sub(lambda m: keep(mathml.tex_to_mathml(m.group(2) or m.group(1), display=m.group(1) is not None)), text)
    text = re.sub(r"(?<!`)`([^`\n]+)`(?!`)", lambda m: keep(literal_html(m.group(1))), text)  # `x` as a literal too
    rendered = MarkdownIt("commonmark", {"html": False}).render(text)
    rendered = re.sub(r"<p>\s*(MATHPIECE\d+X)\s*</p>", r"\1", rendered)
    return re.sub(r"MATHPIECE(\d+)X", lambda m: pieces[int(m.group(1))], rendered).strip()


def _escape(text: str) -> str:
    import html

    return html.escape(text)
