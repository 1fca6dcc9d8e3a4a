"""Outcome values (facts, coverage, counterexamples) made readable, as HTML and as Markdown.

Exact numbers travel in records as ints and ``"p/q"`` strings; closed forms
as sympy text (``"log(6)/2"``); tokens as bit strings.  Here a rational
becomes a fraction, a closed form becomes mathematics with its decimal value
beside it (for reading only), a sequence of equal-length bit strings becomes
a token sequence, a nested dict a nested table.  Long lists are cut, saying
how much was left out (the full record is linked from every page).
"""

from __future__ import annotations

import html
import json
import re

from theorems.report import mathml
from theorems.report.tex import is_code, plain

LIST_LIMIT = 16
_BITS = re.compile(r"^[01]+$")


def is_tokens(value) -> bool:
    return (isinstance(value, list) and bool(value) and all(isinstance(v, str) and _BITS.match(v) for v in value)
            and len({len(v) for v in value}) == 1)


def scalar(value) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def to_html(value) -> str:
    if isinstance(value, dict):
        if not value:
            return "<em>(empty)</em>"
        # a key's text is held to a column's width (div.key), so a long key never takes the table from its values
        rows = "".join(f'<tr><th><div class="key">{key_html(k)}</div></th><td>{to_html(v)}</td></tr>'
                       for k, v in _items(value))
        return f'<table class="facts">{rows}</table>'
    if isinstance(value, list):
        return _list_html(value)
    return _scalar_html(value)


def key_html(key) -> str:
    """A table key: a field's name (``certified_bounds``) as code, what follows it (``(per beta: ...)``,
    ``r_tau=1 vs lower``, ``cap ceil(64 e^{beta/8})``) through the one renderer of prose with mathematics."""
    key = str(key)
    if re.fullmatch(r"\d+-\d+", key):  # a range of sizes (local slopes over beta 16-64): 16–64, not 16 minus 64
        return key.replace("-", "–")
    name = re.match(r"[A-Za-z_]\w*", key)
    if name and "_" in name.group() and (is_code(name.group()) or "<math" not in mathml.prose(name.group())):
        # a field's name (certified_bounds, symbolic_lambda): code; r_tau, m_j are mathematics
        return f"<code>{html.escape(name.group())}</code>{mathml.prose(key[name.end():])}"
    return mathml.prose(key)


def key_markdown(key) -> str:
    """A table key in the Markdown copy: a field's name (``certified_bounds``) as code, the rest with its
    mathematics in Unicode (``r_tau=1 vs lower`` reads ``r_τ=1 vs lower``, ``beta`` reads β)."""
    key = str(key)
    name = re.match(r"[A-Za-z_]\w*", key)
    if name and "_" in name.group() and (is_code(name.group()) or "<math" not in mathml.prose(name.group())):
        rest = plain(key[name.end():])
        return f"`{name.group()}`{rest}"
    return plain(key)


def _items(value: dict):
    keys = list(value)
    numeric = all(re.fullmatch(r"-?\d+", str(k)) for k in keys)
    return sorted(value.items(), key=(lambda kv: int(kv[0])) if numeric else (lambda kv: str(kv[0])))


def _list_html(value: list) -> str:
    if not value:
        return "<em>(none)</em>"
    if is_tokens(value):
        tokens = ", ".join(f'<code class="token">{v}</code>' for v in value)
        return f'<span class="tokens" title="tokens as bit strings">({tokens})</span>'
    shown, rest = value[:LIST_LIMIT], len(value) - LIST_LIMIT
    tail = f' <span class="more">… and {rest} more (in the outcome record)</span>' if rest > 0 else ""
    if all(scalar(v) for v in shown):
        return "(" + ", ".join(_scalar_html(v) for v in shown) + ")" + tail
    if all(isinstance(v, dict) for v in shown):
        columns = sorted({str(k) for v in shown for k in v})
        head = "".join(f"<th>{key_html(c)}</th>" for c in columns)
        body = "".join("<tr>" + "".join(f"<td>{to_html(v.get(c, None))}</td>" for c in columns) + "</tr>" for v in shown)
        # a table of records scrolls in its own box rather than break its numbers and headings letter by letter
        # (13 wrapped in a narrow column read as "1 3")
        return f'<div class="table-scroll"><table class="facts list"><tr>{head}</tr>{body}</table></div>{tail}'
    items = "".join(f"<li>{to_html(v)}</li>" for v in shown)
    return f"<ol>{items}</ol>{tail}"


def _scalar_html(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) >= 10**12:  # a long integer may break where its cell ends rather than widen the table
            return str(value)
        return f'<span class="num">{value}</span>'  # never broken inside (white-space: nowrap)
    if isinstance(value, float):
        return f'<span class="num">{html.escape(repr(value))}</span>'
    q = mathml.rational(value)
    if q is not None:
        return f'<span class="exact" title="{html.escape(value)}">{mathml.fraction_mathml(q)}</span>'
    c = mathml.constant(value)
    if c is not None:
        return (f'<span class="exact" title="{html.escape(value)}">{mathml.sympy_mathml(c)}</span>'
                f' <span class="approx">≈ {float(c.evalf(17)):.6g}</span>')
    f = mathml.formula(value)
    if f is not None:
        return f'<span class="exact" title="{html.escape(value)}">{mathml.sympy_mathml(f)}</span>'
    return mathml.prose(value)


def to_markdown(value, indent: int = 0) -> str:
    """Nested bullet lists; scalars inline."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "(empty)"
        lines = []
        for k, v in _items(value):
            if isinstance(v, (dict, list)) and not _inline_list(v):
                lines.append(f"{pad}- {key_markdown(k)}:\n{to_markdown(v, indent + 1)}")
            else:
                lines.append(f"{pad}- {key_markdown(k)}: {to_markdown(v, indent + 1)}")
        return "\n".join(lines)
    if isinstance(value, list):
        if _inline_list(value):
            return _inline_md(value)
        shown, rest = value[:LIST_LIMIT], len(value) - LIST_LIMIT
        lines = [f"{pad}- {to_markdown(v, indent + 1).lstrip()}" if not isinstance(v, dict)
                 else f"{pad}-\n{to_markdown(v, indent + 1)}" for v in shown]
        if rest > 0:
            lines.append(f"{pad}- … and {rest} more (in the outcome record)")
        return "\n".join(lines)
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        c = mathml.constant(value)
        if c is not None:
            return f"${mathml.sympy_tex(c)}$ ≈ {float(c.evalf(17)):.6g}"
        f = mathml.formula(value)
        return f"${mathml.sympy_tex(f)}$" if f is not None else plain(value)
    return json.dumps(value)


def _inline_list(value) -> bool:
    return isinstance(value, list) and (is_tokens(value) or all(scalar(v) for v in value[:LIST_LIMIT]))


def _inline_md(value: list) -> str:
    if not value:
        return "(none)"
    if is_tokens(value):
        return "(" + ", ".join(f"`{v}`" for v in value) + ")"
    rest = len(value) - LIST_LIMIT
    text = "(" + ", ".join(to_markdown(v) for v in value[:LIST_LIMIT]) + ")"
    return text + (f" … and {rest} more" if rest > 0 else "")
