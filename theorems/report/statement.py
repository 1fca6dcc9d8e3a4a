"""A claim's statement as one formula in which every variable is bound: ∀ … (hypotheses ⟹ conclusion).

A :class:`theorems.core.Statement` holds sympy hypotheses and a conclusion,
each beside the words that carry its quantifiers ("for every number of bits
m >= 1", "some head h has error < 1/2 on every sequence X of length 3").
:func:`analyse` puts the quantifiers back into the mathematics; each variable
of the formula ends in exactly one of these places:

* **bound in front** (∀, or ∃ when the words say "some" / "there is"): every
  variable a hypothesis names (a hypothesis is an assumption on its
  variables: the statement is claimed for every value that satisfies it),
  and a variable only the conclusion names whose quantifier word stands in a
  hypothesis's words ("for every m >= 1 and length n");
* **bound inside the conclusion**, where the conclusion's own words bind it —
  ∃ after "some" / "there is" / "there are", ∀ after "every" / "each" /
  "all" / "any" (the nearest such word before the variable's first mention,
  within its phrase: no verb, "iff", bracket or semicolon between; a list
  "every m' >= m and tokens x, y" binds each name in it) — at the smallest
  subformula that holds every occurrence (through ∧, ∨, ¬, ⟹, ⟺), so that
  "some head h … on every X … iff m <= 3" reads
  (∃h: … ∀X: …) ⟺ m ≤ 3, never ∀X: (… ⟺ …);
* **bound by an operator** of the formula: a sum's index, or the index ``i``
  of a symbol written ``\\max_i`` (``\\min``, ``\\sup``, ``\\inf`` alike);
* **defined**: the words define it (``s = <x,q>``: a name followed by "=",
  unless a quantifier word already ranges it, as in "every m >= 4 (the
  point m = 4 …)"), or the project's notation names it — ``q`` is the query
  of a sequence ``X`` (its last token), ``X`` is "the sequence" the words
  quantify when they do not spell its name, ``lower`` / ``upper`` are the
  bounds the certificates state (when the words speak of certificates);
* otherwise **free** — :attr:`Analysis.free`; a test requires that no
  registered claim's formula has one.

Variables are the plain names of the statement (``m``, ``X``, ``beta``,
``m'``, ``m_max``) and the subscript of a function written ``y_h`` (the head
``h`` it depends on); never a whole proposition (``premise``), a name that is
TeX (``\\operatorname{rank}_\\varepsilon(A)``, read as a symbol, not
analysed), or a function (``T``, ``kappa``): those are named by the words.
The words stay beside the formula: they also say what each variable ranges
over (heads of feature rank one, sequences over {0,1}^m).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy
from sympy.core.function import AppliedUndef
from sympy.logic.boolalg import And, Equivalent, Implies, Not, Or

from theorems.report import mathml

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)?'?$")
_INDEXED = re.compile(r"^[A-Za-z]+_([A-Za-z])$")  # y_h: a function of the head h
_OPERATOR = re.compile(r"^\\(?:max|min|sup|inf)_\{?([A-Za-z])\}?$")  # \max_i binds i
_FORALL = {"every", "each", "all", "any"}
_EXISTS = {"some", "there-is"}
# a phrase ends here: a quantifier word before it does not reach a name after it
_STOP = {";", ":", "(", ")", "[", "]", ".", "iff", "if", "has", "have", "is", "are", "was", "returns", "return",
         "holds", "hold", "solves", "solve", "with", "where", "such", "that", "then", "when", "whose", "equals"}
_REACH = 10  # words at most between a quantifier and the name it binds
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_']*|\d+|<=|>=|!=|\S")
_LOGICAL = (And, Or, Not, Implies, Equivalent)
# the project's notation: names the words may use without defining them
_NOUNS = {"X": ("sequence", "sequences")}
NOTATION = {
    "q": "q is the query of X, its last token",
    "lower": "lower and upper are the bounds the certificates state (listed, per instance, under what the trusted checker accepted)",
    "upper": "lower and upper are the bounds the certificates state (listed, per instance, under what the trusted checker accepted)",
}


@dataclass
class Analysis:
    """Where each variable of a statement is bound, defined, or left free."""

    outer: list  # [(kind, Symbol)], bound in front of the hypotheses
    hypotheses: list  # sympy objects
    conclusion: object
    inner: dict = field(default_factory=dict)  # path of a subformula of the conclusion -> [(kind, Symbol)]
    operators: list = field(default_factory=list)  # names an operator of the formula binds (\max_i)
    defined: dict = field(default_factory=dict)  # name -> how ("defined by its words", or the notation's sentence)
    free: list = field(default_factory=list)  # names nothing binds or defines
    order: dict = field(default_factory=dict)  # name -> where the conclusion's words first mention it

    @property
    def bound(self) -> list[str]:
        return [s.name for _, s in self.outer] + [s.name for found in self.inner.values() for _, s in found]


def _names(expr) -> dict[str, sympy.Symbol]:
    """The variables of ``expr`` by name: its plain-named free symbols and the subscripts of functions
    written ``y_h``; not a bare proposition (``premise``), not a TeX name, not an operator's index."""
    if isinstance(expr, sympy.Symbol) or not isinstance(expr, sympy.Basic):
        return {}  # a hypothesis that is one symbol is a proposition, not a variable
    found = {s.name: s for s in expr.free_symbols if isinstance(s, sympy.Symbol) and _NAME.match(s.name)}
    for applied in expr.atoms(AppliedUndef):
        match = _INDEXED.match(applied.func.__name__)
        if match and match.group(1) not in found:
            found[match.group(1)] = sympy.Symbol(match.group(1))
    for name in _operator_names(expr):
        found.pop(name, None)
    return found


def _operator_names(expr) -> list[str]:
    """The indices that ``\\max_i``-like symbols of ``expr`` bind."""
    if not isinstance(expr, sympy.Basic):
        return []
    return sorted({m.group(1) for s in expr.free_symbols if isinstance(s, sympy.Symbol)
                   for m in [_OPERATOR.match(s.name)] if m})


def _tokens(words: str) -> list[str]:
    tokens = _TOKEN.findall(words)
    out = []
    for i, token in enumerate(tokens):  # "there is", "there are", "there exists": one quantifier
        if token.lower() in ("is", "are", "exists", "exist") and out and out[-1] == "there":
            out[-1] = "there-is"
        else:
            out.append(token.lower() if token.lower() in _FORALL | _EXISTS | _STOP | {"there"} else token)
    return out


def _mentions(tokens: list[str], name: str) -> list[int]:
    """Where ``name`` is mentioned as a variable: the token itself, not a function call ``name(``."""
    return [i for i, token in enumerate(tokens) if token == name and not (i + 1 < len(tokens) and tokens[i + 1] == "(")]


def _defines(words: str, name: str) -> bool:
    """The words define ``name`` (``s = <x,q>``), rather than range it (``m = 1..m_max``)."""
    # "m = 1..m_max" ranges it; "(d = 2)", "m = 4." name a case: a lone number is no definition
    return bool(re.search(rf"(?<![\w']){re.escape(name)}\s*=(?!=)(?![\s\d]*\.\.)(?!\s*\d+\s*(?:$|[),;:]|\.(?!\d)))", words))


def _quantifier(tokens: list[str], at: int) -> str:
    """'forall', 'exists' or '' for the quantifier word governing the token at ``at``: the nearest one
    before it within its phrase (at most _REACH tokens; no stop word, no ", and", no possessive
    "cell's" between: "each table cell's lower" ranges the cells, not ``lower``)."""
    for back in range(at - 1, max(-1, at - 1 - _REACH), -1):
        token = tokens[back]
        if token in _FORALL:
            return "forall"
        if token in _EXISTS:
            return "exists"
        if token in _STOP or token.endswith("'s") or (token == "and" and back > 0 and tokens[back - 1] == ","):
            return ""
    return ""


def _bound_by(words: str, name: str) -> str:
    """How ``words`` bind ``name``: 'forall', 'exists', or '' when no quantifier word governs any mention
    of it (for ``X``, the noun "sequence" stands for it when no mention of the name is governed)."""
    tokens = _tokens(words)
    for at in _mentions(tokens, name):
        kind = _quantifier(tokens, at)
        if kind:
            return kind
    for noun in _NOUNS.get(name, ()):
        for at in [i for i, token in enumerate(tokens) if token == noun]:
            kind = _quantifier(tokens, at)
            if kind:
                return kind
    return ""


def _first(words: str, name: str) -> int:
    tokens = _tokens(words)
    found = _mentions(tokens, name) or [tokens.index(n) for n in _NOUNS.get(name, ()) if n in tokens]
    return min(found) if found else len(tokens)


def _notation(name: str, names: set, words: list[str]) -> str:
    """The project's notation for ``name``, when it applies here; '' otherwise."""
    if name == "q" and "X" in names:
        return NOTATION["q"]
    if name in ("lower", "upper") and any("certif" in w.lower() for w in words):
        return NOTATION[name]
    return ""


def _named(statement, name: str) -> bool:
    """The formula names a value: ``name`` occurs once in the whole statement, as one side of an equation
    ``name = expression`` that is a conjunct of the conclusion (``r = rank(LP)``: r is that rank)."""
    conclusion = statement.conclusion[0]
    parts = conclusion.args if isinstance(conclusion, And) else (conclusion,)
    naming = [p for p in parts if isinstance(p, sympy.Eq) and any(isinstance(side, sympy.Symbol) and side.name == name
                                                                  for side in p.args)]
    mentions = sum(1 for p in parts if name in _names(p)) + sum(1 for h, _ in statement.hypotheses if name in _names(h))
    return len(naming) == 1 and mentions == 1 and sum(1 for a in sympy.preorder_traversal(naming[0])
                                                      if isinstance(a, sympy.Symbol) and a.name == name) == 1


def _scope(expr, name: str, path: tuple = ()) -> tuple:
    """The path of the smallest subformula of ``expr`` (through ∧, ∨, ¬, ⟹, ⟺) holding every mention of ``name``."""
    if isinstance(expr, _LOGICAL):
        holding = [i for i, arg in enumerate(expr.args) if name in _names(arg)]
        if len(holding) == 1:
            return _scope(expr.args[holding[0]], name, path + (holding[0],))
    return path


def analyse(statement) -> Analysis:
    """Bind, define or leave free each variable of ``statement`` (see the module docstring)."""
    hypotheses = [h for h, _ in statement.hypotheses]
    conclusion, said = statement.conclusion
    every_words = [said] + [w for _, w in statement.hypotheses]
    result = Analysis([], hypotheses, conclusion)
    seen: set[str] = set()
    for name in sorted({n for h in [*hypotheses, conclusion] for n in _operator_names(h)}):
        result.operators.append(name)
    for expr, words in statement.hypotheses:
        for name, symbol in sorted(_names(expr).items()):
            if name in seen:
                continue
            seen.add(name)
            kind = _bound_by(words, name)
            if kind:
                result.outer.append((kind, symbol))
            elif _defines(words, name):
                result.defined[name] = "defined by its words"
            else:
                result.outer.append(("forall", symbol))
    names = _names(conclusion)
    everything = set(names) | seen
    result.order = {name: _first(said, name) for name in names}
    for name in sorted(names, key=lambda n: (result.order[n], n)):
        if name in seen:
            continue
        seen.add(name)
        symbol = names[name]
        inside = _bound_by(said, name)
        in_front = next((k for k in (_bound_by(w, name) for _, w in statement.hypotheses) if k), "")
        if inside:
            result.inner.setdefault(_scope(conclusion, name), []).append((inside, symbol))
        elif in_front:
            result.outer.append((in_front, symbol))
        elif any(_defines(w, name) for w in every_words):
            result.defined[name] = "defined by its words"
        elif _named(statement, name):
            result.defined[name] = "named by the equation that states it"
        elif _notation(name, everything, every_words):
            result.defined[name] = _notation(name, everything, every_words)
        else:
            result.free.append(name)
    return result


def free(statement) -> list[str]:
    """The names in ``statement``'s formula that nothing binds or defines (empty when it reads right)."""
    return analyse(statement).free


# ------------------------------------------------------------------ rendering

_SIGN = {"forall": "∀", "exists": "∃"}


def _ordered(expr, analysis: Analysis) -> list[tuple[int, object]]:
    """The arguments of a logical node in reading order: as written for ⟹; for ∧, ∨, ⟺ (whose order sympy
    sorts) those without variables first, then by where the conclusion's words first mention their variables."""
    args = list(enumerate(expr.args))
    if isinstance(expr, (Implies, Not)):
        return args

    def key(item):
        names = _names(item[1])
        if not names:
            return (-1, 0, item[0])
        return (min(analysis.order.get(n, 10**6) for n in names), len(names), item[0])

    return sorted(args, key=key)


class _Format:
    """How one output format writes the parts of a formula."""

    def leaf(self, expr) -> str: ...
    def symbol(self, symbol) -> str: ...
    def binders(self, found) -> str: ...
    def group(self, body: str) -> str: ...
    def op(self, sign: str) -> str: ...
    def row(self, parts: list[str]) -> str: ...
    def open_close(self) -> tuple[str, str]: ...


class _MathML(_Format):
    def leaf(self, expr) -> str:
        return re.sub(r"^<math[^>]*>|</math>$", "", mathml.sympy_mathml(expr))

    def symbol(self, symbol) -> str:
        return self.leaf(symbol)

    def binders(self, found) -> str:
        return "".join(f"<mo>{_SIGN[kind]}</mo>" + "<mo>,</mo>".join(self.symbol(s) for s in symbols)
                       + '<mo separator="true">:</mo><mspace width="0.3em"></mspace>' for kind, symbols in _runs(found))

    def group(self, body: str) -> str:
        return f"<mrow><mo>(</mo>{body}<mo>)</mo></mrow>"

    def op(self, sign: str) -> str:
        if sign == "¬":
            return "<mo>¬</mo>"
        return f'<mspace width="0.2em"></mspace><mo>{sign}</mo><mspace width="0.2em"></mspace>'

    def row(self, parts: list[str]) -> str:
        return "<mrow>" + "".join(parts) + "</mrow>"

    def open_close(self) -> tuple[str, str]:
        return "<mo>(</mo>", "<mo>)</mo>"


class _TeX(_Format):
    SIGNS = {"∧": "\\wedge", "∨": "\\vee", "¬": "\\neg", "⟹": "\\implies", "⟺": "\\iff"}

    def leaf(self, expr) -> str:
        return mathml.sympy_tex(expr)

    def symbol(self, symbol) -> str:
        return mathml.sympy_tex(symbol)

    def binders(self, found) -> str:
        return "".join(("\\forall " if kind == "forall" else "\\exists ") + ", ".join(self.symbol(s) for s in symbols)
                       + ":\\ " for kind, symbols in _runs(found))

    def group(self, body: str) -> str:
        return f"\\left({body}\\right)"

    def op(self, sign: str) -> str:
        return f" {self.SIGNS[sign]} " if sign != "¬" else "\\neg "

    def row(self, parts: list[str]) -> str:
        return "".join(parts)

    def open_close(self) -> tuple[str, str]:
        return "\\left(", "\\right)"


_OPS = {And: "∧", Or: "∨", Implies: "⟹", Equivalent: "⟺"}


def _node(expr, path: tuple, analysis: Analysis, fmt: _Format) -> tuple[str, bool]:
    """(the subformula at ``path`` with its binders, whether it needs brackets inside a larger one)."""
    found = analysis.inner.get(path, [])
    if isinstance(expr, _LOGICAL):
        parts = []
        for index, arg in _ordered(expr, analysis):
            text, compound = _node(arg, path + (index,), analysis, fmt)
            parts.append(fmt.group(text) if compound else text)
        if isinstance(expr, Not):
            body = fmt.row([fmt.op("¬"), parts[0]])
        else:
            sign = next(s for cls, s in _OPS.items() if isinstance(expr, cls))
            joined = []
            for part in parts:
                joined += ([fmt.op(sign)] if joined else []) + [part]
            body = fmt.row(joined)
        compound = not isinstance(expr, Not)
    else:
        body, compound = fmt.leaf(expr), False
    if found:
        return fmt.row([fmt.binders(found), body]), True
    return body, compound


def _runs(binders: list[tuple[str, sympy.Symbol]]) -> list[tuple[str, list]]:
    runs: list[tuple[str, list]] = []
    for kind, symbol in binders:
        if runs and runs[-1][0] == kind:
            runs[-1][1].append(symbol)
        else:
            runs.append((kind, [symbol]))
    return runs


def _parts(statement, fmt: _Format) -> tuple[list[str], list[str], list[str], bool]:
    """(binders in front, each hypothesis, each conjunct of the conclusion, whether the conclusion is compound).

    The conclusion is split into its conjuncts only when it is a conjunction with no binder of its own."""
    analysis = analyse(statement)
    shown = [h for h in analysis.hypotheses if h is not sympy.true]
    hypotheses = []
    for h in shown:
        text, inner = _node(h, ("hypothesis",), Analysis([], [], h), fmt)
        hypotheses.append(fmt.group(text) if inner and len(shown) > 1 else text)
    conclusion = analysis.conclusion
    if isinstance(conclusion, And) and () not in analysis.inner:
        conjuncts = []
        for index, arg in _ordered(conclusion, analysis):
            text, inner = _node(arg, (index,), analysis, fmt)
            conjuncts.append(fmt.group(text) if inner else text)
        compound = True
    else:
        text, compound = _node(conclusion, (), analysis, fmt)
        conjuncts = [text]
    return ([fmt.binders(analysis.outer)] if analysis.outer else []), hypotheses, conjuncts, compound


def _joined(parts: list[str], sign: str, fmt: _Format) -> list[str]:
    out: list[str] = []
    for part in parts:
        out += ([fmt.op(sign)] if out else []) + [part]
    return out


def _one_line(statement, fmt: _Format) -> str:
    """binders (hypotheses joined by ∧) ⟹ conclusion."""
    binders, hypotheses, conjuncts, compound = _parts(statement, fmt)
    conclusion = fmt.row(_joined(conjuncts, "∧", fmt))
    if not hypotheses:
        return fmt.row(binders + [conclusion])
    return fmt.row(binders + [fmt.group(fmt.row(_joined(hypotheses, "∧", fmt))), fmt.op("⟹"),
                              fmt.group(conclusion) if compound else conclusion])


def _lines(statement, fmt: _Format) -> list[list[str]]:
    """The same formula as lines: the binders; each hypothesis (∧ before all but the first); ⟹ and the
    conclusion, or its first conjunct, then ∧ and each other conjunct; brackets opened and closed across."""
    binders, hypotheses, conjuncts, compound = _parts(statement, fmt)
    opened, closed = fmt.open_close()
    lines = [binders] if binders and hypotheses else []

    def run(items: list[str], first: str, bracket: bool) -> list[list[str]]:
        last = len(items) - 1
        return [[fmt.op(first if i == 0 else "∧") if first or i else "", opened if bracket and i == 0 else "", item,
                 closed if bracket and i == last else ""] for i, item in enumerate(items)]

    if not hypotheses:
        body = run(conjuncts, "", False)
        return [binders + body[0]] + body[1:] if binders else body
    return lines + run(hypotheses, "", True) + run(conjuncts, "⟹", compound)


LINE = 72  # characters: a longer formula is set on several lines


def mathml_formula(statement) -> str:
    """The statement as one displayed ``<math>``: binders, hypotheses joined by ∧, ⟹, the conclusion with
    the binders its words place inside it; on several left-aligned lines when it is long."""
    fmt = _MathML()
    whole = _one_line(statement, fmt)
    lines = _lines(statement, fmt)
    if len(lines) == 1 or len(re.sub(r"<[^>]+>", "", whole)) <= LINE:
        return mathml._wrap(whole, True)
    indent = '<mspace width="1.2em"></mspace>'
    rows = "".join(f"<mtr><mtd>{fmt.row(([] if i == 0 else [indent]) + line)}</mtd></mtr>" for i, line in enumerate(lines))
    return mathml._wrap(f'<mtable columnalign="left" class="lines">{rows}</mtable>', True)


def tex_formula(statement) -> str:
    """The same formula as TeX, for the Markdown copy (one line: Markdown renderers set it themselves)."""
    return _one_line(statement, _TeX())


def where(statement) -> list[str]:
    """What the formula's defined names are, one sentence each (the notation's, or "defined by its words")."""
    analysis = analyse(statement)
    out = []
    for how, said in (("defined by its words", "defined by the words beside {}"),
                      ("named by the equation that states it", "the value the equation beside {} names")):
        names = sorted(n for n, found in analysis.defined.items() if found == how)
        if names:
            out.append(f"{', '.join(names)}: " + said.format("it" if len(names) == 1 else "them"))
    plain = ("defined by its words", "named by the equation that states it")
    out += list(dict.fromkeys(how for n, how in sorted(analysis.defined.items()) if how not in plain))
    if analysis.operators:
        out.append(f"{', '.join(analysis.operators)}: bound by the maximum (or minimum) written beside")
    return out
