"""Coq in the report: the headline statements a claim names, and the third stage of verify.

**Statements.** A claim's ``formal`` names theorems of ``formal/KTheorems.v``
(paper K) or ``formal/STheorems.v`` (paper S) (:func:`theorems.formal.statements`
reads them verbatim).  The report shows each verbatim, in monospace, linked to
the line that states it; then the same statement made readable
(:func:`readable`: ∀, ∃, →, ↔, ¬, ∧, ∨, ≤, ``%nat`` dropped); then a gloss of
each word of the paper's definitions file (``KDefs.v``, ``SDefs.v``) it uses.
The glosses are read from that file itself (:func:`glossary`: the comment
written above each definition, and its body when short), so they live in one
place, beside the definitions they explain.  The four files are copied into
the report (``formal/``), raw and as pages whose lines and definitions can be
linked to.

**The third stage.** :func:`run` does what ``attnproof verify --coq`` does
after its two stages, over the verification the report already computed:
every obligation with a Coq counterpart is written as a Coq file
(:func:`theorems.formal.export`) and compiled by ``coqc`` against
``formal/`` (:func:`theorems.formal.compile`).  The files are copied into the
report (``coq/``) so that a reader can compile them again.
"""

from __future__ import annotations

import html
import os
import re
import tempfile
from dataclasses import dataclass, field

from theorems import formal

SOURCES = ("KDefs.v", "KTheorems.v", "SDefs.v", "STheorems.v")  # copied into the report, raw and as pages
HEADLINE_FILES = {"KTheorems.v": "KDefs.v", "STheorems.v": "SDefs.v"}  # each paper's theorems, in its definitions' words
_DECLARATION = re.compile(r"^(Definition|Fixpoint|Record|Inductive)\s+([A-Za-z_][\w']*)", re.M)


# ------------------------------------------------------------------ statements


@dataclass
class Stated:
    """One theorem of KTheorems.v that a claim names."""

    name: str
    statement: str  # verbatim (whitespace runs made one space), or "" when no headline file states it
    line: int = 0  # where its headline file states it (1-based; 0: not found)
    source: str = "KTheorems.v"  # the headline file (KTheorems.v for paper K, STheorems.v for paper S)

    @property
    def defs(self) -> str:
        """The definitions file whose words the statement uses."""
        return HEADLINE_FILES.get(self.source, "KDefs.v")

    @property
    def verbatim(self) -> str:
        return f"Theorem {self.name} : {self.statement}."


def names_of(claim) -> tuple[str, ...]:
    found = getattr(claim, "formal", ())
    return tuple(n for n in found if isinstance(n, str)) if isinstance(found, (tuple, list)) else ()


def _read(name: str) -> str:
    try:
        with open(os.path.join(formal.FORMAL, name), encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return ""


def stated(claim) -> list[Stated]:
    """The headline theorems (KTheorems.v, STheorems.v) the claim names, each with its statement, file and line."""
    names = names_of(claim)
    if not names:
        return []
    statements = formal.statements()
    texts = {source: _read(source) for source in HEADLINE_FILES}
    out = []
    for name in names:
        for source, text in texts.items():
            at = re.search(rf"^\s*Theorem\s+{re.escape(name)}\b", text, flags=re.M)
            if at:
                out.append(Stated(name, statements.get(name, ""), text.count("\n", 0, at.start()) + 1, source))
                break
        else:
            out.append(Stated(name, statements.get(name, ""), 0))
    return out


_READABLE = [
    (r"\bforall\b", "∀"), (r"\bexists\b", "∃"), (r"<->", "↔"), (r"->", "→"), (r"/\\", "∧"), (r"\\/", "∨"),
    (r"<>", "≠"), (r"<=", "≤"), (r">=", "≥"), (r"~\s*", "¬ "), (r"%(?:nat|R|Z|Q)\b", ""), (r":\s*nat\b", ": ℕ"),
    (r":\s*R\b", ": ℝ"),
] + [(rf"(?<![\w']){word}(?![\w'])", letter) for word, letter in (  # Coq names spelled as their Greek letters
    ("epsilon", "ε"), ("eps", "ε"), ("delta", "δ"), ("beta", "β"), ("tau", "τ"), ("sigma", "σ"), ("kappa", "κ"),
    ("alpha", "α"), ("gamma", "γ"), ("theta", "θ"), ("lambda", "λ"), ("rho", "ρ"), ("phi", "φ"), ("psi", "ψ"),
    ("omega", "ω"))]


def readable(statement: str) -> str:
    """A Coq statement as a reader writes it: ∀, ∃, →, ↔, ¬, ∧, ∨, ≤, ≥, ≠, ℕ, names of Greek letters as the
    letters (``eps`` reads ε, ``delta`` δ); ``%nat`` scopes dropped, and
    the brackets that held only a scoped comparison (``(1 <= m)%nat`` reads 1 ≤ m); ``Q2R (p#q)`` as p/q."""
    text = re.sub(r"\(Q2R\s*\((-?\d+)\s*#\s*1\)\)", r"\1", statement)  # (Q2R (0#1)): the rational 0
    text = re.sub(r"Q2R\s*\((-?\d+)\s*#\s*(\d+)\)", r"\1/\2", text)
    # (a <= b)%nat  /  (a <= b <= c)%nat : the brackets only carried the scope
    text = re.sub(r"\(([^()]*)\)%nat", lambda m: m.group(1) if re.fullmatch(r"[\w' ]+(?:(?:<=|<|>=|>|=)[\w' ]+)+", m.group(1))
                  else f"({m.group(1)})", text)
    for pattern, sign in _READABLE:
        text = re.sub(pattern, sign, text)
    text = re.sub(r"\(\s*([^()]*?)\s*\)(?=\s*(?:\)|$))", lambda m: f"({m.group(1)})", text)
    return " ".join(text.split())


# ------------------------------------------------------------------ the words of KDefs.v


@dataclass
class Gloss:
    """A word of KDefs.v: how it is applied (``solvable r m n``), its body when short, and its comment."""

    name: str
    signature: str
    body: str  # readable, "" when long
    comment: str  # the comment written above the definition, without its notes on the Python code
    line: int
    uses: list = field(default_factory=list)  # the other KDefs words its body names


def _comment(text: str) -> str:
    # a coqdoc section title ("** Tokenwise heads") opens the gloss: "Tokenwise heads: ..."
    text = re.sub(r"^\*+\s*([^\n]*)\n\s*\n", lambda m: m.group(1).strip() + ": ", text.strip())
    text = " ".join(text.split()).replace("[", "").replace("]", "")
    sentences = re.split(r"(?<=[.)])\s+(?=[A-Z\"(])", text)
    return " ".join(s for s in sentences if not s.startswith("Python:")).strip()


def _parameters(header: str) -> list[str]:
    """The explicit parameters of a declaration header: ``(r m n : nat)`` gives r, m, n; ``{r}`` is implicit."""
    names = []
    for group in re.findall(r"\(([^():]+):[^()]*\)", header):
        names += group.split()
    return names


def glossary(defs: str = "KDefs.v") -> dict[str, Gloss]:
    """Every definition of ``defs`` (KDefs.v or SDefs.v) with the comment written directly above it (None between)."""
    text = _read(defs)
    found: dict[str, Gloss] = {}
    kinds: dict[str, bool] = {}
    for match in _DECLARATION.finditer(text):
        kind, name = match.groups()
        start = match.start()
        end = text.find(".\n", start)
        end = len(text) if end < 0 else end
        header, _, body = text[start:end].partition(":=")
        before = text[:start].rstrip()
        comment = ""
        if before.endswith("*)"):
            opened = before.rfind("(**")
            if opened >= 0 and "*)" not in before[opened:-2]:
                comment = _comment(before[opened + 3:-2])
        body = " ".join(body.split()) if kind != "Record" else ""
        params = _parameters(header.rsplit(":", 1)[0] if kind != "Record" else header)
        found[name] = Gloss(name, " ".join([name, *params]), readable(body) if len(body) <= 120 else "", comment,
                            text.count("\n", 0, start) + 1, uses=[body])
        kinds[name] = kind == "Record" or bool(re.search(r":\s*Prop\s*$", " ".join(header.split())))
    for gloss in found.values():  # the predicates and records its body names
        whole = gloss.uses[0]
        gloss.uses = [n for n in found if n != gloss.name and kinds[n] and re.search(rf"\b{re.escape(n)}\b", whole)]
    return found


def glosses(statements: list[str], defs: str = "KDefs.v") -> list[Gloss]:
    """The words of ``defs`` the statements use, in order of first use; then, one level down, the words the short
    bodies among them use (solvable: head, solves), so that every word shown is explained once."""
    words = glossary(defs)
    order: list[str] = []
    for statement in statements:
        for token in re.findall(r"[A-Za-z_][\w']*", statement):
            if token in words and token not in order:
                order.append(token)
    for name in list(order):
        for used in words[name].uses:
            if used not in order:
                order.append(used)
    return [words[n] for n in order]


def gloss_text(gloss: Gloss) -> str:
    """One line: ``solvable r m n := ∃ h : head r, solves m n h — Some head of feature rank …``."""
    said = gloss.signature + (f" := {gloss.body}" if gloss.body else "")
    return said + (f" — {gloss.comment}" if gloss.comment else "")


# ------------------------------------------------------------------ the .v files as pages


def source_files() -> dict[str, bytes]:
    """formal/KDefs.v, KTheorems.v, SDefs.v and STheorems.v, raw, for the report's ``formal/`` folder."""
    return {f"formal/{name}": _read(name).encode("utf-8") for name in SOURCES if _read(name)}


def page_name(source: str) -> str:
    return source[:-2] + ".html"


def source_page(name: str, page) -> bytes:
    """``formal/<name>`` as a page: each line has an id (``L17``), each declaration and theorem its name."""
    text = _read(name)
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        match = re.match(r"\s*(?:Theorem|Lemma|Definition|Fixpoint|Record|Inductive)\s+([A-Za-z_][\w']*)", line)
        anchor = f'<span id="{html.escape(match.group(1))}"></span>' if match else ""
        lines.append(f'{anchor}<span class="line" id="L{number}"><span class="number">{number:>4}</span> '
                     f"{html.escape(line)}</span>")
    title = f"formal/{name}"
    what = {"KDefs.v": "The definitions of paper K's words (tokens, the Min-IP target, kernel heads, solving), in Coq",
            "KTheorems.v": "Paper K's results as theorems of Coq, stated in the words of KDefs.v",
            "SDefs.v": "The definitions of paper S's words (row softmax with multiplicities, max-row ℓ1 distance, "
                       "rank_ε, points on the sphere), in Coq",
            "STheorems.v": "Paper S's results as theorems of Coq, stated in the words of SDefs.v"}.get(name, f"formal/{name}")
    body = (f'<nav><a href="../index.html">← all claims</a></nav><h1><code>{title}</code></h1>'
            f"<p>{html.escape(what)}; copied from the source tree this report was made with "
            f'(<a href="{html.escape(name)}">the file itself</a>).</p>'
            f'<pre class="coq-source"><code>{chr(10).join(lines)}</code></pre>')
    return page(title, body, "../")


# ------------------------------------------------------------------ the third stage


@dataclass
class CoqRun:
    """What the third stage made of the report's outcomes."""

    obligations: list = field(default_factory=list)  # theorems.formal.Exported, with accepted set
    files: dict = field(default_factory=dict)  # "coq/oNNNN.v" -> bytes, every file written
    built: str = ""  # the folder formal/ was built in (KTheorems.v included): its theorems are proved

    def of(self, check) -> list:
        """The exported obligations of one outcome (verify obligations, in the checker's order)."""
        if check is None:
            return []
        return [o for o in self.obligations if o.outcome == check.path]

    @property
    def accepted(self) -> bool:
        return all(o.accepted for o in self.obligations if o.file)


def run(verification, jobs: int = 2) -> CoqRun:
    """Export every obligation with a Coq counterpart and compile it (FormalError when Coq cannot run)."""
    formal.coqc()
    built = formal.build(jobs)
    with tempfile.TemporaryDirectory(prefix="attnproof-coq-") as folder:
        done = formal.export(verification, folder)
        formal.compile(done, jobs)
        files = {}
        for name in sorted(os.listdir(folder)):
            if name.endswith(".v"):
                with open(os.path.join(folder, name), "rb") as handle:
                    files[f"coq/{name}"] = handle.read()
        for item in done.obligations:  # coqc names the temporary folder: shown as the report's coq/
            item.error = item.error.replace(os.path.realpath(folder) + os.sep, "coq/").replace(folder + os.sep, "coq/")
    return CoqRun(list(done.obligations), files, built)


def rows(coq: CoqRun | None, point) -> list[tuple[dict, object]]:
    """Per verify obligation of ``point`` (the checker's rows), its exported Coq item (None: not exported)."""
    verify = [o for o in point.obligations if o.get("side") == "verify"]
    if coq is None:
        return [(o, None) for o in verify]
    items = coq.of(point.check)
    if len(items) == len(verify):
        return list(zip(verify, items))
    by_judgment = {repr(sorted((i.judgment or {}).items())): i for i in items}
    return [(o, by_judgment.get(repr(sorted((o.get("judgment") or {}).items())))) for o in verify]


def checked(coq: CoqRun | None, point) -> tuple[int, int]:
    """(k, n): k of the point's n verify obligations have a Coq file that Coq accepted."""
    found = rows(coq, point)
    return sum(1 for _, item in found if item is not None and item.file and item.accepted), len(found)


def rung(coq: CoqRun | None, point) -> str:
    """"checked by Coq" when the outcome stands, is verified, and Coq accepted a file for every verify
    obligation; else "k of n obligation(s) checked by Coq"; "" when Coq did not run for this report."""
    if coq is None:
        return ""
    k, n = checked(coq, point)
    if point.stands and point.status == "verified" and n and k == n:
        return RUNG
    return f"{k} of {n} obligation(s) checked by Coq"


RUNG = "checked by Coq"
LEGEND = ("every verify obligation of the outcome is stated in Coq, in the words of formal/KDefs.v, and Coq (coqc) "
          "accepted its proof from the certificate's data: a second checker, independent of the trusted one; shown "
          "only in a report made with --coq (\"k of n obligation(s) checked by Coq\" otherwise)")
