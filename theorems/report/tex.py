"""TeX and ASCII mathematics as MathML: the one place where text becomes mathematics.

Every formula a report page shows goes through this module (statements
printed by sympy are the exception: :mod:`theorems.report.mathml` prints them,
and a symbol whose name is TeX or ASCII comes back here):

* :func:`tex_body` / :func:`tex_to_mathml` — a TeX fragment, by latex2mathml
  (pure Python, offline), with the package's own reader of a TeX subset
  (:class:`_TexParser`) behind it; a command latex2mathml does not know is
  set upright by its name, so no backslash ever reaches a page;
* :func:`ascii_tex` — ASCII mathematics as the claim modules and the
  checker's words write it (``kappa(q, x) = phi(q) psi(x)``, ``beta*(m)``,
  ``||E||_max <= delta``, ``<x, q>``) turned into TeX;
* :func:`words` — prose that mixes words and ASCII mathematics (titles,
  obligations, badges, messages, table cells, plot labels): each span of
  mathematics found and set as MathML, the words left as text, ``$...$``
  read as TeX.  A Greek name, a relation, an operator, a script or a call
  marks a span as mathematics; an English word ends it.

Nothing here imports the rest of the report, so :mod:`theorems.report.mathml`
and :mod:`theorems.report.reading` both build on it.
"""

from __future__ import annotations

import html
import re

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
            inner = _function_spacing(inner)
            return inner.replace("<mspace linebreak=\"newline\" />", '<mspace width="1em"></mspace>')
        # the commands it passed through raw: upright names
        attempt = re.sub(r"\\([A-Za-z]+)", lambda m: f"\\operatorname{{{m.group(1)}}}" if m.group(1) in raw
                         else m.group(0), attempt)
    return f"<mrow>{_TexParser(tex).sequence()}</mrow>"


_NAMED = "log|ln|exp|tanh|sinh|cosh|sin|cos|det|lg"
_THIN = '<mspace width="0.1667em"></mspace>'


def _function_spacing(inner: str) -> str:
    """A thin space between a named function and a term beside it (n log m, ln 4, 2 tanh(x)), as TeX's
    operator spacing gives: latex2mathml sets ``\\log`` as a plain ``<mi>``, which a browser runs into its
    neighbours ("nlogm", "ln4")."""
    inner = re.sub(rf"(</mi>|</mn>|</msub>|</msup>)(<mi>(?:{_NAMED})</mi>)", r"\1" + _THIN + r"\2", inner)
    return re.sub(rf"(<mi>(?:{_NAMED})</mi>)(?=<mi>|<mn>|<msub>|<msup>|<mrow>)", r"\1" + _THIN, inner)


def _character(match) -> str:
    code = match.group(1)
    value = int(code[1:], 16) if code[0] in "xX" else int(code)
    return match.group(0) if chr(value) in "<>&" else chr(value)


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """A ``<math>`` element for a TeX fragment (see :func:`tex_body`)."""
    return wrap(tex_body(tex), display)


def wrap(body: str, display: bool, displaystyle: bool = False) -> str:
    attr = ' display="block"' if display else (' displaystyle="true"' if displaystyle else "")
    return f'<math xmlns="{MATH_NS}"{attr}>{body}</math>'


_INLINE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)


def prose(text: str) -> str:
    """HTML for prose: the one renderer of :func:`words` (``$...$`` TeX and ASCII mathematics as MathML)."""
    return words(text)


# ------------------------------------------------- ASCII mathematics

_GREEK = {**{name: name for name in GREEK if name.isalpha()}, "eps": "varepsilon", "epsilon": "varepsilon"}
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
    if re.search(r"\.(?:md|txt|v|html|csv|in)\b|^[\w.-]+/[\w./-]+$", text):  # a file or a path: docs/conjectures.md
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


_NULL_BOUND = re.compile(r"\[\s*([^\[\],]+?)\s*,\s*(?:null|None)\s*\]")
_ASCII_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[A-Za-z]+|\d+(?:\.\d+)?|\s+|.", re.S)


def _closing(tokens: list[str], j: int) -> int:
    """The index of the ")" that closes the "(" at ``tokens[j]`` (len(tokens) when it is never closed)."""
    depth, k = 0, j
    while k < len(tokens):
        depth += tokens[k] == "("
        depth -= tokens[k] == ")"
        if depth == 0:
            break
        k += 1
    return k


def ascii_tex(text: str) -> str:
    """ASCII mathematics as TeX (see the module docstring)."""
    text = _NULL_BOUND.sub(r"[\1, infty)", text)  # m [4, null]: an interval without an upper end
    text = re.sub(r"(?<![A-Za-z])l([12])(?![A-Za-z0-9])", r"ell_\1", text)  # the l1 norm
    text = text.replace("**", "^")  # rho**5, as sympy's str() writes a power
    text = re.sub(r"\^([A-Za-z])'", r"^{\1'}", text)  # {0,1}^m': the prime belongs to the exponent
    text = re.sub(r"_(\d+/\d+)", r"_{\1}", text)  # rank_1/10: the fraction is the subscript, not rank_1 over 10
    text = re.sub(r"\^-(\w+)", r"^{-\1}", text)  # 2^-10: the minus belongs to the exponent
    text = re.sub(r"(?<![\w^_])(\d+|[A-Za-z]) x (?=(?:\d+|[A-Za-z])(?![\w(^_]))", r"\1 \\times ", text)  # n x n
    # a tilde glued after a name or a bracket marks it rounded (Q~, (Q/sqrt d)~): an accent, not "~" the relation
    text = re.sub(r"(\((?:[^()]|\([^()]*\))*\))~(?![\w(])", r"\\widetilde{\1}", text)
    text = re.sub(r"(?<![\w\\])([A-Za-z])~(?![\w(])", r"\\tilde{\1}", text)
    text = re.sub(r"\blog2\b", "log_2", text).replace("<=>", " \\iff ").replace("~", " \\sim ")
    text = text.replace("<=", " \\le ").replace(">=", " \\ge ").replace("!=", " \\ne ").replace("->", " \\to ")
    text = re.sub(r"<([^<>]*?,[^<>]*?)>", r" \\langle \1 \\rangle ", text)  # <x, q>: an inner product
    text = text.replace("||", " \\| ").replace("...", " \\ldots ").replace("..", " \\ldots ").replace("∩", " \\cap ")
    tokens = _ASCII_TOKEN.findall(text)
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
                    len(before) > 2 or len(after) > 2) and before not in _FUNCTIONS and not (
                    before.isdigit() and (after in _FUNCTIONS or after in _GREEK)):  # 2 tanh, 4 beta: a product
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
            # r*(m), beta*: a star glued to a name; 3*(x + 1), 15744*rho: a product (a number or a bracket before it)
            glued = i > 0 and not tokens[i - 1].isspace() and not re.fullmatch(r"\d+(?:\.\d+)?|\)", tokens[i - 1]) and (
                i + 1 >= len(tokens) or not re.fullmatch(r"[A-Za-z0-9]+", tokens[i + 1]))
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
                k = _closing(tokens, j)
                out.append("{" + ascii_tex("".join(tokens[j + 1:k])) + "}")
                i = k
            elif following and re.fullmatch(r"[A-Za-z0-9]+", following):
                k = j + 1
                while k + 1 < len(tokens) and tokens[k] == "_":  # sqrt p_x: the subscript goes under the root
                    k += 2
                out.append("{" + ascii_tex("".join(tokens[j:k])) + "}")
                i = k - 1
        elif t in ("ceil", "floor") and nxt(i + 1) == "(":  # ceil(x): the brackets, not the name
            j = i + 1
            while tokens[j].isspace():
                j += 1
            k = _closing(tokens, j)
            left, right = ("\\lceil", "\\rceil") if t == "ceil" else ("\\lfloor", "\\rfloor")
            out.append(f"\\left{left} {ascii_tex(''.join(tokens[j + 1:k]))} \\right{right} ")
            i = k
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


# ------------------------------------------------- prose with mathematics in it

# What may stand in a span of mathematics inside prose, and what ends one.
_PIECE = re.compile(r"""
  (?P<code>sha256:[0-9a-f]+…?|[\w-]+(?:\.[\w-]+)*\.(?:json|py|md|v|html|txt|csv)\b|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+
          |(?<![\w)])--[a-z][\w-]*|https?://\S+|</?[A-Za-z][\w-]*>|(?<=[a-z])\(s\))
 |(?P<angle><(?![=>])[^<>\s,][^<>:]{0,40}?,[^<>:]{0,40}?>)
 |(?P<poss>'s\b)
 |(?P<gword>(?:eps|epsilon|beta|delta|tau|sigma|kappa|lambda|rho|theta|gamma|alpha|mu)(?=-[a-z])
          |[A-Za-z]_(?:eps|epsilon|beta|delta|tau|sigma|kappa|lambda|rho|theta|gamma|alpha|mu|[A-Za-z0-9])(?=-[a-z]))
 |(?P<word>[A-Za-z][A-Za-z0-9]*(?:'(?!s\b))*(?:_(?:\{[^{}]*\}|[A-Za-z0-9]+))?(?:-[A-Za-z0-9]+)*)
 |(?P<num>\d+(?:\.\d+)?)
 |(?P<op><=>|<=|>=|!=|->|\|\||\.\.\.?|[=<>+*/^_~|#-]|(?<=[,\[(])\.(?=[\]),]))
 |(?P<open>[(\[{])|(?P<close>[)\]}])
 |(?P<comma>,)
 |(?P<space>[ \t]+)
 |(?P<other>.)
""", re.X | re.S)
# Names that are mathematics when called (followed by "(") or given a script: rank(LP), rank_eps, max_i.
_CALLED = {"ceil", "floor", "rank", "max", "min", "sup", "inf", "rowsoftmax", "softmax", "diag", "sgn", "len", "poly", "dim", "deg",
           "argmax", "argmin", "lo", "hi", "cos", "sin", "lim", "sum", "prod"}
_ALWAYS = {"ln", "log", "exp", "tanh", "sinh", "cosh", "sqrt", "infty", "det"}  # mathematics wherever they stand
_LONE = {"a", "A", "I"}  # single letters that are words in English unless an operator stands beside them
_PROSE_WORDS = {"partial"}  # names of symbols that are English words in prose, unless a script or a call marks them


def _kind(match, nxt: str) -> str:
    """What one piece is: 'math' (an atom of mathematics), 'glue' (may stand inside a span), or 'text'."""
    group = match.lastgroup
    token = match.group()
    if group in ("num", "op", "open", "close", "angle"):
        return group
    if group == "comma":
        return "comma"
    if group == "space":
        return "space"
    if group == "gword":
        return "math"  # eps-rank: the letter, then the word
    if group != "word":
        return "text"
    base, _, script = token.partition("_")
    if "-" in token:
        if re.fullmatch(r"[A-Za-z](?:-\d+)+", token):
            return "math"  # d-1, n-1: a letter minus a number
        return "text"  # rank-one, all-MiniLM-L6-v2: words
    if base in _PROSE_WORDS and not script and nxt not in ("(", "/", "^"):
        return "text"  # "partial: 4 of 4", "open (partial)": the English word, not the derivative sign
    if base in _GREEK or base in _ALWAYS:
        return "math"
    if script and is_code(token):
        return "text"  # a parameter's name (m_max) is code, set as it is
    if len(base.rstrip("'")) == 1:  # m, and m' (a primed variable: "every m' <= 400")
        return "lone" if token in _LONE else "math"
    if re.fullmatch(r"l[12]|L[12]", base):  # the l1 norm
        return "math"
    if base in _CALLED and (script or nxt in ("(", "_")):
        return "math"
    if re.fullmatch(r"[a-z]{2,4}_[A-Za-z]", token) and not is_code(token):
        return "math"  # osc_i, top_k: a short name with a one-letter subscript
    return "text"


_ATOMS = ("math", "angle")


def _spans(text: str) -> list[tuple[bool, str]]:
    """The text cut into (is mathematics, piece)."""
    matches = list(_PIECE.finditer(text))
    kinds = [_kind(m, matches[i + 1].group() if i + 1 < len(matches) else "") for i, m in enumerate(matches)]
    for i, kind in enumerate(kinds):
        before = next((kinds[j] for j in range(i - 1, -1, -1) if kinds[j] != "space"), "")
        after = next((kinds[j] for j in range(i + 1, len(kinds)) if kinds[j] != "space"), "")
        if kind == "lone" and after == "text" and before in ("num", "text", "comma", ""):
            kinds[i] = "text"  # "= 3 a two-point perturbation": after a number, before a word, "a" is the article
        elif kind == "text" and matches[i].group() in _PROSE_WORDS and after == "math":
            kinds[i] = "math"  # partial f / partial x: a derivative
        elif (kind == "text" and matches[i].lastgroup == "word" and len(matches[i].group()) <= 3 and 0 < i < len(matches) - 1
              and matches[i - 1].group() == "(" and matches[i + 1].group() == ")" and i >= 2 and kinds[i - 2] == "math"):
            kinds[i] = "math"  # rank(LP): a short name as a call's argument is mathematics
    remarks = _remarks(matches, kinds)
    out: list[tuple[bool, str]] = []
    i = 0
    while i < len(matches):
        if kinds[i] in ("text", "space", "comma"):
            out.append((False, matches[i].group()))
            i += 1
            continue
        # a run of pieces that may hold mathematics: up to the first word of prose (or a comma outside brackets)
        j, depth = i, 0
        while j < len(matches) and kinds[j] not in ("text",):
            if j > i and depth == 0 and j in remarks:
                break  # "sentence 0 (n = 13, c = 1)": a remark in brackets, not the argument of a call
            if kinds[j] == "open":
                depth += 1
            elif kinds[j] == "close":
                depth = max(depth - 1, 0)
            elif kinds[j] == "comma" and depth == 0:
                break
            j += 1
        out += _settle(matches[i:j], kinds[i:j])
        i = j
    merged: list[tuple[bool, str]] = []
    for is_math, piece in out:  # neighbouring text pieces joined
        if merged and not is_math and not merged[-1][0]:
            merged[-1] = (False, merged[-1][1] + piece)
        else:
            merged.append((is_math, piece))
    return merged


def _remarks(matches, kinds) -> set[int]:
    """The spaces before a bracketed remark that names a value (`` (n = 13, c = 1)``): written apart from what
    precedes it, it is prose's parenthesis, never a call's argument list (which ASCII writes glued: rank(LP))."""
    found = set()
    for k in range(1, len(matches)):
        if kinds[k] == "open" and matches[k].group() == "(" and kinds[k - 1] == "space":
            depth, j, named = 0, k, False
            while j < len(matches):
                depth += {"open": 1, "close": -1}.get(kinds[j], 0)
                named |= depth == 1 and matches[j].group() == "="
                if depth == 0:
                    break
                j += 1
            if named and j < len(matches):
                found.add(k - 1)
    return found


def _settle(matches, kinds) -> list[tuple[bool, str]]:
    """One run: unmatched brackets and the spaces at its ends go back to the prose; the rest is mathematics
    when it holds an atom beside an operator, a Greek name, a call or a lone variable."""
    stack, unmatched = [], set()
    for k, kind in enumerate(kinds):
        if kind == "open":
            stack.append(k)
        elif kind == "close":
            if stack:
                stack.pop()
            else:
                unmatched.add(k)
    unmatched |= set(stack)
    out: list[tuple[bool, str]] = []
    piece: list[int] = []

    def flush():
        while piece and kinds[piece[-1]] in ("space", "comma") or piece and matches[piece[-1]].group() in ("-", "/", "*"):
            trailing = piece.pop()
            flush_math()
            out.append((False, matches[trailing].group()))
            return
        flush_math()

    def flush_math():
        lead = []
        while piece and kinds[piece[0]] == "space":
            lead.append(piece.pop(0))
        if lead:
            out.append((False, "".join(matches[k].group() for k in lead)))
        if not piece:
            return
        tail = []
        while piece and kinds[piece[-1]] in ("space", "comma"):
            tail.insert(0, piece.pop())
        found = {kinds[k] for k in piece}
        source = "".join(matches[k].group() for k in piece)
        # mathematics: a name of mathematics (a Greek letter, a variable, a call, <x, q>), or an operator
        # beside a number or a lone letter (<= 1, 11..33, A = B); a lone "a" or a bare number stays prose
        is_math = bool(found & {"math", "angle"}) or ("op" in found and bool(found & {"num", "lone"}))
        out.append((is_math, source))
        if tail:
            out.append((False, "".join(matches[k].group() for k in tail)))
        piece.clear()

    for k, kind in enumerate(kinds):
        if k in unmatched:
            flush()
            out.append((False, matches[k].group()))
        else:
            piece.append(k)
    flush()
    return out


_LONG_FRACTION = re.compile(r"(?<![\w/.^])(\d{5,})/(\d{5,})(?![\w/])")


_EN_DASH = re.compile(r"(?<=[A-Za-z])--(?=[A-Za-z])")


def decimal_beside(text: str) -> str:
    """A fraction of long integers (``20590670707055/41402883164663``) keeps its exact digits and gets its
    decimal beside it (``≈ 0.49731``), for reading only: nobody reads fourteen-digit fractions."""
    return _LONG_FRACTION.sub(lambda m: f"{m.group()} ≈ {int(m.group(1)) / int(m.group(2)):.5g}", text)


def words(text: str) -> str:
    """HTML for prose that mixes words and mathematics: each span of ASCII mathematics (``beta = ln 4``,
    ``rank_eps(A) <= r``, ``{0,1}^m``) and each ``$...$`` of TeX set as MathML, the words escaped."""
    text = _EN_DASH.sub("–", decimal_beside(str(text)))  # TeX's "query--key" is an en dash
    out, last = [], 0
    for match in _INLINE.finditer(text):
        out.append(_ascii_words(text[last:match.start()]))
        out.append(tex_to_mathml(match.group(1) if match.group(1) is not None else match.group(2),
                                 display=match.group(1) is not None))
        last = match.end()
    out.append(_ascii_words(text[last:]))
    return "".join(out)


def _times(text: str) -> str:
    """`` x `` between sizes is a times sign: 8 x 8 logits, 72 heads x 1 sentence, n x N, 6 layers x 12.

    Also: a subscripted name followed by its subscript's value in brackets, ``r_tau (tau = 1)``, reads
    "r_tau at tau = 1" (set as one formula, r_τ(τ = 1) would read as a function applied to τ = 1)."""
    text = re.sub(r"\b([A-Za-z]+_([A-Za-z]+)) \((\2) = ([^()]+)\)", r"\1 at \3 = \4", text)
    text = re.sub(r"(?<=\w)\s+x\s+(?=\d)", " × ", text)  # a line may break beside the x ("6 layers x\n12")
    return re.sub(r"(?<![\w^_])(\d+|[A-Za-z])\s+x\s+(?=(?:\d+|[A-Za-z])(?![\w(^_]))", r"\1 × ", text)


def _ascii_words(text: str) -> str:
    text = _times(text)
    text = _NULL_BOUND.sub(r"[\1, infty)", text)
    parts = []
    for is_math, piece in _spans(text):
        if not is_math:
            parts.append(html.escape(piece, quote=False))
        elif len(piece) > 40:  # a long formula scrolls in its own box on a narrow window, never past the page
            parts.append(f'<span class="wide-math">{wrap(tex_body(ascii_tex(piece)), False)}</span>')
        else:
            parts.append(wrap(tex_body(ascii_tex(piece)), False))
    return "".join(parts)


_PLAIN_OPS = {"<=": "≤", ">=": "≥", "!=": "≠", "->": "→", "<=>": "⟺", "..": "…", "...": "…", "~": "∼", "||": "‖",
              "*": "·"}


_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def plain(text: str) -> str:
    """Prose with its ASCII mathematics in Unicode, for where no markup can go (a page's ``<title>``, an SVG
    ``<title>``, a plot's label): Greek names become letters, ``<=`` becomes ≤, ``$...$`` loses its dollars."""
    text = _INLINE.sub(lambda m: m.group(1) or m.group(2), _EN_DASH.sub("–", decimal_beside(str(text))))
    text = re.sub(r"\\([A-Za-z]+)", lambda m: GREEK.get(m.group(1), OPERATORS.get(m.group(1), m.group(1))), text)
    text = re.sub(r"(?<=[\d)])\*(?=[\w(])", "·", re.sub(r"(?<=[\w)])\*\*(?=[\w(])", "^", _times(_NULL_BOUND.sub(r"[\1, ∞)", text))))
    out = []
    for is_math, piece in _spans(text):
        if is_math:
            piece = re.sub(r"<(?![=>])([^<>]*?,[^<>]*?)>", r"⟨\1⟩", piece)  # <x, q>: an inner product
            piece = re.sub(r"<=>|<=|>=|!=|->|\.\.\.?|~|\|\||(?<=\d)\*(?=\s)|(?<=\s)\*(?=\s)",
                           lambda m: _PLAIN_OPS[m.group()], piece)
            piece = re.sub(r"[A-Za-z]+", lambda m: _greek_letter(m.group()), piece)
            piece = re.sub(r"\^(\d+)\b", lambda m: m.group(1).translate(_SUPERSCRIPTS), piece)
            piece = re.sub(r"_\{([^{}]*)\}", r"_\1", piece).replace("^{", "^(").replace("}", ")") if "^{" in piece else \
                re.sub(r"_\{([^{}]*)\}", r"_\1", piece)
        out.append(piece)
    return "".join(out)


def _greek_letter(name: str) -> str:
    key = _GREEK.get(name)
    return GREEK.get(key, name) if key else name
