"""Mathematics as MathML, rendered by the browser itself: no script, no fonts, no network.

Two sources of mathematics reach a page:

* a claim's statement, as sympy objects: printed with sympy's presentation
  MathML printer, corrected where it falls short of what a reader expects
  (undefined functions keep their case and Greek names, ``a_q`` becomes a
  subscript, ``Piecewise`` becomes a brace of cases, a symbol whose name is
  TeX is converted);
* short TeX inside prose (``$m$``-bit tokens in an abstract sentence): a small
  converter for the TeX that such sentences use (letters, digits, Greek,
  ``^``/``_``, ``\\frac``, ``\\sqrt``, ``\\mathbb``, relations, delimiters).
  latex2mathml converts it (the package's own reader of that subset stands
  behind it); unknown commands become upright names, so no backslash
  reaches a page.

Chromium renders MathML Core natively (since version 109); the Markdown copy
of the report carries the same statements as TeX from ``sympy.latex``.
"""

from __future__ import annotations

import html
import re
from fractions import Fraction
from xml.dom import minidom

import sympy
from sympy.core.function import AppliedUndef
from sympy.printing.mathml import MathMLPresentationPrinter

from theorems.report.tex import (  # noqa: F401  (re-exported: the TeX helpers live in tex)
    DOUBLE_STRUCK, FUNCTIONS, GREEK, MATH_NS, OPERATORS, SPACES, TEXT_COMMANDS, _GREEK, _TexParser, _character, ascii_tex, prose,
    tex_body, tex_to_mathml, wrap, words)

_wrap = wrap


# ----------------------------------------------------------- sympy objects


class _Printer(MathMLPresentationPrinter):
    """sympy's presentation printer, with names and cases as a reader writes them."""

    def _markup(self, mathml: str):
        node = minidom.parseString(mathml).documentElement
        return self.dom.importNode(node, True)

    def _print_Symbol(self, sym, style="plain"):
        if "\\" in sym.name or "$" in sym.name:
            return self._markup(f"<mrow>{tex_body(sym.name.strip('$'))}</mrow>")
        if not re.fullmatch(r"[A-Za-z0-9_']+", sym.name):  # a name written as ASCII mathematics: <z,q>, |q|
            return self._markup(f"<mrow>{tex_body(ascii_tex(sym.name))}</mrow>")
        base, _, rest = sym.name.partition("_")
        if rest in _GREEK:  # r_eps, r_tau: the subscript is a letter too, never a word
            rest = GREEK[_GREEK[rest]]
        if base in GREEK or rest != sym.name.partition("_")[2]:  # sympy knows "epsilon" but not "varepsilon", "ell"
            return super()._print_Symbol(sympy.Symbol(GREEK.get(base, base) + ("_" + rest if rest else "")), style)
        return super()._print_Symbol(sym, style)

    def _print_AppliedUndef(self, e):
        mrow = self.dom.createElement("mrow")
        mrow.appendChild(self._print(sympy.Symbol(e.func.__name__)))
        mrow.appendChild(self._paren_comma_separated(*e.args))
        return mrow

    def _print_ImageSet(self, s):
        """{f(k) | k ∈ ℤ}, as a set is written (sympy writes imageset(k ↦ f(k), ℤ))."""
        mrow = self.dom.createElement("mrow")

        def mo(text):
            node = self.dom.createElement("mo")
            node.appendChild(self.dom.createTextNode(text))
            mrow.appendChild(node)

        mo("{")
        mrow.appendChild(self._print(s.lamda.expr))
        mo("|")
        for i, (variable, base) in enumerate(zip(s.lamda.variables, s.base_sets)):
            if i:
                mo(",")
            mrow.appendChild(self._print(variable))
            mo("∈")
            mrow.appendChild(self._print(base))
        mo("}")
        return mrow

    def _print_UnevaluatedExpr(self, e):
        return self._print(e.args[0])

    def _print_BooleanTrue(self, e):
        return self._markup("<mtext>true</mtext>")

    def _print_BooleanFalse(self, e):
        return self._markup("<mtext>false</mtext>")

    def _print_Piecewise(self, expr):
        table = self.dom.createElement("mtable")
        table.setAttribute("columnalign", "left left")
        for value, condition in expr.args:
            row = self.dom.createElement("mtr")
            cell = self.dom.createElement("mtd")
            cell.appendChild(self._print(value))
            row.appendChild(cell)
            cell = self.dom.createElement("mtd")
            words = self.dom.createElement("mtext")
            words.appendChild(self.dom.createTextNode("otherwise" if condition == sympy.true else "if\u00a0"))
            cell.appendChild(words)
            if condition != sympy.true:
                cell.appendChild(self._print(condition))
            row.appendChild(cell)
            table.appendChild(row)
        mrow = self.dom.createElement("mrow")
        brace = self.dom.createElement("mo")
        brace.appendChild(self.dom.createTextNode("{"))
        mrow.appendChild(brace)
        mrow.appendChild(table)
        return mrow


def sympy_mathml(expr, display: bool = False, displaystyle: bool = True) -> str:
    """A ``<math>`` element for a sympy object (fractions full size unless ``displaystyle`` is off)."""
    body = _Printer({"ln_notation": True}).doprint(expr)
    # sympy writes its text nodes raw: escape a bare < > & and spell out two named entities
    body = re.sub(r">([<>&])</", lambda m: ">" + html.escape(m.group(1)) + "</", body)
    body = body.replace("<mi>&ExponentialE;</mi>", "<mi>e</mi>").replace("&InvisibleTimes;", "&#x2062;")
    body = re.sub(r"&#(x[0-9a-fA-F]+|\d+);", _character, body)  # readable source: κ, not &#954;
    body = body.replace("<mo>-</mo>", "<mo>−</mo>")  # a minus sign, not a hyphen
    return _wrap(f"<mrow>{body}</mrow>", display, displaystyle)


def sympy_tex(expr) -> str:
    """TeX for the Markdown copy (renderers of Markdown draw ``$...$`` themselves)."""
    return sympy.latex(expr, ln_notation=True)


# ------------------------------------------------------------ exact values

_RATIONAL = re.compile(r"^-?\d+/\d+$")
_CONSTANT = re.compile(r"^[-+*/^(). \d]*(?:(?:log|sqrt|exp|pi|E)[-+*/^(). \d]*)+$")


def rational(text: str) -> Fraction | None:
    """The Fraction a string ``"p/q"`` stands for, else None."""
    if isinstance(text, str) and _RATIONAL.match(text):
        try:
            return Fraction(text)
        except ZeroDivisionError:
            return None
    return None


def constant(text: str):
    """A closed-form real constant written by sympy (``"log(6)/2"``), as a sympy number; else None."""
    if not isinstance(text, str) or not _CONSTANT.match(text) or not re.search(r"[a-zA-Z]", text):
        return None
    try:
        value = sympy.sympify(text, rational=True)
    except (sympy.SympifyError, SyntaxError, TypeError, ValueError):
        return None
    return value if getattr(value, "free_symbols", {1}) == set() and value.is_real else None


_NAME = r"(?:log|ln|exp|sqrt|[A-Za-z](?:_?\d+|_[A-Za-z])?)"
_FORMULA = re.compile(rf"^\s*[-(]*\s*(?:{_NAME}|\d+)(?:\s*(?:\*\*|[-+*/^(),])\s*[(]*\s*(?:{_NAME}|\d+)?\s*[)]*)+\s*$")


def formula(text: str):
    """A polynomial or closed form in a few one-letter variables (``"2*s - w"``, ``"x_1^2 + 3"``); else None.

    Only text made of one-letter names, numbers, ``log``/``exp``/``sqrt`` and
    operators qualifies, so words are never read as products of symbols.
    """
    if not isinstance(text, str) or not _FORMULA.match(text) or not re.search(r"[-+*/^]", text):
        return None
    if not re.search(r"[A-Za-z]", re.sub(r"\b(?:log|ln|exp|sqrt)\b", "", text)):
        return None
    try:
        value = sympy.sympify(text.replace("ln(", "log("), rational=True)
    except (sympy.SympifyError, SyntaxError, TypeError, ValueError, AttributeError):
        return None
    return value if isinstance(value, sympy.Expr) and value.free_symbols else None


def fraction_mathml(value: Fraction) -> str:
    if value.denominator == 1:
        return _wrap(f"<mn>{value.numerator}</mn>", False)
    sign = "<mo>−</mo>" if value < 0 else ""
    return _wrap(f"<mrow>{sign}<mfrac><mn>{abs(value.numerator)}</mn><mn>{value.denominator}</mn></mfrac></mrow>", False, True)
