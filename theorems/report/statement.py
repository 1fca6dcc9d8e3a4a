"""A claim's statement as one formula, with its quantifiers: ∀ … (hypotheses ⟹ ∃/∀ … conclusion).

A :class:`theorems.core.Statement` holds sympy hypotheses and a conclusion,
each beside the words that carry its quantifiers ("for every number of bits
m >= 1", "some sequence X of exact length D + 2 has error >= 1/2").  The
formula shown on a claim's page puts them back into the mathematics:

* every variable of a hypothesis is bound by ∀ in front (a hypothesis is an
  assumption on the variables it names: the statement is claimed for every
  value that satisfies it), unless the hypothesis's words bind it with
  "some" / "there is" / "one", which gives ∃;
* a variable that only the conclusion names is bound where the conclusion's
  words bind it — ∃ after "some" / "there is" / "there are" / "one", ∀ after
  "every" / "each" / "all" (the nearest such word before the variable's first
  mention, within its clause) — and left free, with the words beside it,
  when the words do not say;
* variables are the plain names of the statement (``m``, ``X``, ``beta``,
  ``m'``), never a whole proposition (``premise``) or a name that is TeX.

The hypotheses are joined by ∧ and imply the conclusion.  The words stay
beside the formula: they also quantify what has no symbol (the heads, the
readout), which no formula here pretends to.
"""

from __future__ import annotations

import re

import sympy

from theorems.report import mathml

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)?'?$")
_EXISTS = r"some|there (?:is|are|exists?)"
_FORALL = r"every|each|all|any"


def _variables(expr) -> list[sympy.Symbol]:
    """The plain-named symbols of ``expr`` (not a bare proposition, not TeX), sorted by name."""
    if isinstance(expr, sympy.Symbol):
        return []  # a hypothesis that is one symbol is a proposition ("premise"), not a variable
    found = [s for s in getattr(expr, "free_symbols", set()) if isinstance(s, sympy.Symbol) and _NAME.match(s.name)]
    return sorted(found, key=lambda s: s.name)


def _defines(words: str, name: str) -> bool:
    """The words define ``name`` (``s = <x,q>``), rather than range it (``m = 1..m_max``)."""
    return bool(re.search(rf"(?<![\w']){re.escape(name)}\s*=(?!=)(?![\s\d]*\.\.)", words))


def _bound_by(words: str, name: str) -> str:
    """'forall', 'exists' or '' for how ``words`` bind ``name``: a quantifier word governing it ("every
    sequence X", "some sequence X", "every number of bits m": at most four words between); '' when the
    words define it (``s = <x,q>``) or do not say."""
    shown = re.escape(name)
    if _defines(words, name):
        return ""
    match = re.search(rf"\b({_FORALL}|{_EXISTS})\b(?:\s+[A-Za-z'-]+){{0,4}}?\s+{shown}(?![\w'(])", words)
    if not match:
        return ""
    return "exists" if re.fullmatch(_EXISTS, match.group(1)) else "forall"


def quantified(statement) -> tuple[list[tuple[str, list]], list, list[tuple[str, list]], object]:
    """(outer binders, hypotheses, inner binders, conclusion): binders are (kind, [symbols]) runs."""
    outer: list[tuple[str, sympy.Symbol]] = []
    seen: set = set()
    for expr, words in statement.hypotheses:
        for symbol in _variables(expr):
            if symbol not in seen:
                seen.add(symbol)
                if not _defines(words, symbol.name):  # defined, not bound
                    outer.append(("exists" if _bound_by(words, symbol.name) == "exists" else "forall", symbol))
    expr, words = statement.conclusion
    inner = []
    everything = [words] + [w for _, w in statement.hypotheses]
    for symbol in _variables(expr):
        if symbol not in seen and re.fullmatch(r"[A-Za-z]'?", symbol.name):  # lower, upper: values, not variables
            kind = next((k for k in (_bound_by(w, symbol.name) for w in everything) if k), "")
            if kind:
                seen.add(symbol)
                inner.append((kind, symbol))
    return _runs(outer), [h for h, _ in statement.hypotheses], _runs(inner), expr


def _runs(binders: list[tuple[str, sympy.Symbol]]) -> list[tuple[str, list]]:
    runs: list[tuple[str, list]] = []
    for kind, symbol in binders:
        if runs and runs[-1][0] == kind:
            runs[-1][1].append(symbol)
        else:
            runs.append((kind, [symbol]))
    return runs


_SIGN = {"forall": "∀", "exists": "∃"}


def _body(expr) -> str:
    return re.sub(r"^<math[^>]*>|</math>$", "", mathml.sympy_mathml(expr))


def mathml_formula(statement) -> str:
    """The statement as one displayed ``<math>``: binders, hypotheses joined by ∧, ⟹, the conclusion."""
    outer, hypotheses, inner, conclusion = quantified(statement)

    def binders(runs) -> str:
        return "".join(f"<mo>{_SIGN[kind]}</mo>" + "<mo>,</mo>".join(_body(s) for s in symbols)
                       + '<mo separator="true">:</mo><mspace width="0.3em"></mspace>' for kind, symbols in runs)

    parts = [binders(outer)]
    shown = [h for h in hypotheses if h is not sympy.true]
    if shown:
        joined = '<mo>∧</mo>'.join(f"<mrow>{_body(h)}</mrow>" for h in shown)
        parts.append(f'<mrow><mo>(</mo>{joined}<mo>)</mo></mrow><mspace width="0.4em"></mspace><mo>⟹</mo>'
                     '<mspace width="0.4em"></mspace>')
    parts.append(binders(inner) + f"<mrow>{_body(conclusion)}</mrow>")
    return mathml._wrap("<mrow>" + "".join(parts) + "</mrow>", True)


def tex_formula(statement) -> str:
    """The same formula as TeX, for the Markdown copy."""
    outer, hypotheses, inner, conclusion = quantified(statement)

    def binders(runs) -> str:
        return "".join(("\\forall " if kind == "forall" else "\\exists ")
                       + ", ".join(mathml.sympy_tex(s) for s in symbols) + ":\\ " for kind, symbols in runs)

    shown = [h for h in hypotheses if h is not sympy.true]
    middle = ("\\left(" + " \\wedge ".join(mathml.sympy_tex(h) for h in shown) + "\\right) \\implies ") if shown else ""
    return binders(outer) + middle + binders(inner) + mathml.sympy_tex(conclusion)
