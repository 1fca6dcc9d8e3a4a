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

MATH_NS = "http://www.w3.org/1998/Math/MathML"

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "ell": "ℓ", "infty": "∞", "emptyset": "∅",
    "partial": "∂", "nabla": "∇", "hbar": "ℏ",
}
OPERATORS = {
    "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "lt": "<", "gt": ">",
    "cdot": "⋅", "times": "×", "div": "÷", "pm": "±", "mp": "∓", "to": "→", "rightarrow": "→",
    "leftarrow": "←", "Rightarrow": "⇒", "Leftarrow": "⇐", "iff": "⟺", "Leftrightarrow": "⇔", "implies": "⟹",
    "mapsto": "↦", "in": "∈", "notin": "∉", "ni": "∋", "subset": "⊂", "subseteq": "⊆", "supset": "⊃",
    "supseteq": "⊇", "cup": "∪", "cap": "∩", "setminus": "∖", "sum": "∑", "prod": "∏", "int": "∫",
    "langle": "⟨", "rangle": "⟩", "lvert": "|", "rvert": "|", "lVert": "‖", "rVert": "‖", "|": "‖", "mid": "∣",
    "ldots": "…", "cdots": "⋯", "dots": "…", "approx": "≈", "sim": "∼", "simeq": "≃", "equiv": "≡",
    "propto": "∝", "forall": "∀", "exists": "∃", "neg": "¬", "lnot": "¬", "wedge": "∧", "land": "∧",
    "vee": "∨", "lor": "∨", "circ": "∘", "otimes": "⊗", "oplus": "⊕", "star": "⋆", "ast": "∗",
    "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉", "colon": ":", "{": "{", "}": "}",
    "ll": "≪", "gg": "≫", "perp": "⊥", "top": "⊤",
}
FUNCTIONS = {"log", "ln", "exp", "min", "max", "sup", "inf", "lim", "det", "rank", "sin", "cos", "tan",
             "arg", "Pr", "dim", "ker", "deg", "gcd", "sgn", "poly", "argmin", "argmax"}
SPACES = {",": "0.1667em", ":": "0.2222em", ";": "0.2778em", " ": "0.25em", "quad": "1em", "qquad": "2em", "!": "0em"}
DOUBLE_STRUCK = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "P": "ℙ", "E": "𝔼"}
TEXT_COMMANDS = {"text", "textrm", "mathrm", "operatorname", "textit", "mathit", "textbf", "mathbf", "mathsf", "texttt"}


# -------------------------------------------------------------- TeX subset


_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\d+(?:\.\d+)?|[A-Za-z]|\s+|.", re.S)


class _TexParser:
    """A recursive-descent reader of the TeX subset; each node is a MathML string."""

    def __init__(self, tex: str):
        self.tokens = [t for t in _TOKEN.findall(tex) if not t.isspace()]
        self.i = 0

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self):
        token = self.peek()
        self.i += 1
        return token

    def sequence(self, closing=None) -> str:
        parts = []
        while self.peek() is not None and self.peek() != closing:
            if self.peek() == "}":  # an unmatched brace: show it rather than fail
                self.take()
                parts.append("<mo>}</mo>")
                continue
            parts.append(self.scripted())
        if closing is not None and self.peek() == closing:
            self.take()
        return "".join(parts)

    def group_text(self) -> str:
        """The raw text of a ``{...}`` group (for \\text and friends)."""
        if self.peek() != "{":
            return self.take() or ""
        self.take()
        depth, out = 1, []
        while self.peek() is not None:
            t = self.take()
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:
                    break
            out.append(t.lstrip("\\") if t.startswith("\\") and len(t) == 2 else t)
        return " ".join(out) if all(len(x) > 1 for x in out) else "".join(out)

    def argument(self) -> str:
        if self.peek() == "{":
            self.take()
            return f"<mrow>{self.sequence('}')}</mrow>"
        return self.atom()

    def scripted(self) -> str:
        base = self.atom()
        sub = sup = None
        while self.peek() in ("^", "_"):
            if self.take() == "^":
                sup = self.argument()
            else:
                sub = self.argument()
        if sub is not None and sup is not None:
            out = f"<msubsup>{base}{sub}{sup}</msubsup>"
        elif sub is not None:
            out = f"<msub>{base}{sub}</msub>"
        elif sup is not None:
            out = f"<msup>{base}{sup}</msup>"
        else:
            out = base
        if base.startswith("<mi>") and base[4:-5] in FUNCTIONS:  # \log n: a thin space each side, as TeX sets it
            thin = '<mspace width="0.1667em"></mspace>'
            out = f"{thin}{out}{thin}"
        return out

    def atom(self) -> str:
        t = self.take()
        if t is None:
            return "<mrow></mrow>"
        if t == "{":
            return f"<mrow>{self.sequence('}')}</mrow>"
        if t[0].isdigit():
            return f"<mn>{t}</mn>"
        if t.isalpha():
            return f"<mi>{t}</mi>"
        if t.startswith("\\"):
            return self.command(t[1:])
        if t == "-":
            return "<mo>−</mo>"
        if t == "'":
            return "<mo>′</mo>"
        return f"<mo>{html.escape(t)}</mo>"

    def command(self, name: str) -> str:
        if name == "frac" or name in ("dfrac", "tfrac"):
            num, den = self.argument(), self.argument()
            return f"<mfrac>{num}{den}</mfrac>"
        if name == "sqrt":
            return f"<msqrt>{self.argument()}</msqrt>"
        if name in ("left", "right", "big", "Big", "bigl", "bigr", "Bigl", "Bigr"):
            delim = self.take() or ""
            if delim == ".":
                return ""
            delim = OPERATORS.get(delim[1:], delim[1:]) if delim.startswith("\\") else delim
            return f"<mo>{html.escape(delim)}</mo>"
        if name == "mathbb":
            text = self.group_text()
            return "".join(f"<mi>{DOUBLE_STRUCK.get(ch, ch)}</mi>" for ch in text)
        if name in ("mathcal", "mathscr"):
            return f'<mi mathvariant="normal">{html.escape(self.group_text())}</mi>'
        if name in TEXT_COMMANDS:
            text = self.group_text()
            tag = "mtext" if name.startswith("text") else "mi"
            return f'<{tag} mathvariant="normal">{html.escape(text)}</{tag}>' if tag == "mi" and len(text) == 1 else f"<{tag}>{html.escape(text)}</{tag}>"
        if name in GREEK:
            return f"<mi>{GREEK[name]}</mi>"
        if name in OPERATORS:
            return f"<mo>{html.escape(OPERATORS[name])}</mo>"
        if name in SPACES:
            return f'<mspace width="{SPACES[name]}"></mspace>'
        if name in FUNCTIONS:
            return f"<mi>{name}</mi>"
        if name == "\\":  # a line break (\\ in a matrix or cases): a wide space on one line
            return '<mspace width="1em"></mspace>'
        if len(name) == 1:  # an escaped character such as \# or \%
            return f"<mo>{html.escape(name)}</mo>"
        return f"<mi>{html.escape(name)}</mi>"  # unknown: its name, upright, never a backslash


def tex_body(tex: str) -> str:
    """The MathML inside ``<math>`` for a TeX fragment: latex2mathml, else the package's own subset reader.

    latex2mathml passes a command it does not know through with its
    backslash; such a command is set upright by its name (rewritten to
    ``\\operatorname{name}``) and the fragment converted again, so no
    backslash ever reaches a page.  Should latex2mathml still fail, the small
    reader above (:class:`_TexParser`) converts the fragment.
    """
    from latex2mathml.converter import convert

    attempt = tex
    for _ in range(2):
        try:
            out = convert(attempt)
        except Exception:  # latex2mathml raises on TeX it cannot read (an unbalanced brace, a bad environment)
            break
        inner = re.sub(r"^<math[^>]*>|</math>$", "", out)
        raw = set(re.findall(r"\\([A-Za-z]+)", inner))
        if not raw and "\\" not in inner:
            inner = re.sub(r"&#(x[0-9a-fA-F]+|\d+);", _character, inner)  # readable source: ε, not &#x003B5;
            inner = inner.replace("<mo>/</mo>", '<mo lspace="0" rspace="0">/</mo>')  # 1/2 set as TeX sets it
            return inner.replace("<mspace linebreak=\"newline\" />", '<mspace width="1em"></mspace>')
        # the commands it passed through raw: upright names
        attempt = re.sub(r"\\([A-Za-z]+)", lambda m: f"\\operatorname{{{m.group(1)}}}" if m.group(1) in raw
                         else m.group(0), attempt)
    return f"<mrow>{_TexParser(tex).sequence()}</mrow>"


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """A ``<math>`` element for a TeX fragment (see :func:`tex_body`)."""
    return _wrap(tex_body(tex), display)


def _wrap(body: str, display: bool, displaystyle: bool = False) -> str:
    attr = ' display="block"' if display else (' displaystyle="true"' if displaystyle else "")
    return f'<math xmlns="{MATH_NS}"{attr}>{body}</math>'


_INLINE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)


def prose(text: str) -> str:
    """HTML for prose with ``$...$`` (inline) and ``$$...$$`` (display) TeX: text escaped, math as MathML."""
    out, last = [], 0
    for match in _INLINE.finditer(text):
        out.append(html.escape(text[last:match.start()], quote=False))
        if match.group(1) is not None:
            out.append(tex_to_mathml(match.group(1), display=True))
        else:
            out.append(tex_to_mathml(match.group(2)))
        last = match.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


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
            from theorems.report.reading import ascii_tex

            return self._markup(f"<mrow>{tex_body(ascii_tex(sym.name))}</mrow>")
        base, _, rest = sym.name.partition("_")
        if base in GREEK:  # sympy knows "epsilon" but not "varepsilon", "ell", ...: a letter, never a word
            return super()._print_Symbol(sympy.Symbol(GREEK[base] + ("_" + rest if rest else "")), style)
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


def _character(match) -> str:
    code = match.group(1)
    value = int(code[1:], 16) if code[0] in "xX" else int(code)
    return match.group(0) if chr(value) in "<>&" else chr(value)


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
