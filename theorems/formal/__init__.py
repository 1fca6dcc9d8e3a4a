"""Coq, a second and independent checker: accepted certificates as Coq files, compiled by ``coqc``.

``attnproof export --coq DIR`` and ``attnproof verify --coq`` (the third stage) run in this order:

1. the two stages of :mod:`theorems.verification` (the Python checker, then the binding);
2. for each certificate the Python checker accepted whose kind has a Coq counterpart
   (:data:`EXPORTERS`), a file ``cNNNN.v`` holding its data as Coq terms and the theorem
   ``judgment`` — the certificate's judgment in the words of ``formal/KDefs.v`` (paper K) or
   ``formal/SDefs.v`` (paper S, :mod:`theorems.formal.softmax`) (:func:`proposition`) — proved by a
   soundness theorem of ``formal/`` and computation;
3. for each obligation of each outcome (both sides: what is verified and the counterexamples a
   refutation rests on), a file ``oNNNN.v`` stating the obligation's own judgment and proving it
   from one certificate's ``judgment``, as it stands or through an implication lemma of
   ``formal/KBridge.v`` (:func:`bridge`), or from a general theorem of ``formal/`` alone
   (:data:`THEOREMS`); paper S's statements name the certificate's own data (``X``, ``w``, ``L``,
   ...), so its obligation files import the certificate's module and only the very judgment a
   certificate proves (the same digests) is proved by it;
4. (``verify --coq``) ``coqc`` compiles every file against ``formal/`` built once
   (:func:`build`), and each obligation is *checked by Coq* when its file compiles.

Nothing here decides a verdict: a file that does not compile says "not accepted by Coq", and
what Coq accepts is what the file states, which a reader reads in the file itself.  The
statement of an obligation is computed from its judgment by :func:`proposition` alone, the one
function a reader holds against ``formal/KDefs.v`` and ``formal/SDefs.v``.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction

from theorems.formal import cones, evaluation, linear, softmax

PACKAGES = "coq libcoq-interval libcoq-mathcomp-ssreflect"
FORMAL = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "formal")
EXPORTERS = {
    "exhaustive": evaluation.exhaustive,
    "rank-one-positional-witness": evaluation.positional_witness,
    "rank-one-infeasible": linear.rank_one_infeasible,
    "rank-two-betweenness": cones.rank_two_betweenness,
    # paper S (formal/SInstances.v, SResidual.v, SLemmas.v)
    "approx-rank-lower": softmax.approx_rank,
    "approx-rank-lower-points": softmax.approx_rank,
    "approx-rank-upper": softmax.approx_rank,
    "approx-rank-upper-points": softmax.approx_rank,
    "duality": softmax.duality,
    "row-shift": softmax.row_shift,
    "rank-upper": softmax.rank_upper,
    "rank-lower": softmax.rank_lower,
    "residual-bound": softmax.residual_bound,
    "residual-two-point": softmax.two_point,
    "attention-differs": softmax.attention_differs,
    "visible-dimension": softmax.visible_dimension,
}
COQ_SECONDS = 600  # one file's compilation at most (the largest exported certificate takes a few seconds)


class FormalError(RuntimeError):
    """Coq cannot be run here (no coqc, no formal/, a build that failed): one line, exit 2."""


def _tolerance(value) -> Fraction | None:
    try:
        return Fraction(str(value)) if not isinstance(value, bool) else None
    except (ValueError, ZeroDivisionError):
        return None


def proposition(judgment: dict) -> str | None:
    """The Coq statement of a judgment in the vocabulary of ``formal/KDefs.v``, or None (no counterpart).

    * ``unsolvable{kernel | kernel-positional, rank r, m [M, null], length N, min-ip, 1/2}``:
      ``forall m, (M <= m)%nat -> ~ solvable r m N`` (``psolvable`` with positions);
    * ``solves{kernel, rank r, alphabet all, m [M, M], lengths [N], min-ip, 1/2}``: ``solvable r M N``;
      with other lengths or tolerance t: ``exists h : head r, solves_within (Q2R t) M N1 h /\\ ...``;
    * ``solves{kernel-positional, rank 1, m [M, M], lengths [N], 1/2}``: ``psolvable 1 M N``;
      ``solves{kernel-causal, rank 1, m [M, M], lengths [1..N], 1/2}``: ``csolvable 1 M N``.

    A judgment that names its head by digest gets the statement of "some head": Coq checks that
    such a head exists (the one in the file); that it is the head the digest names is the Python
    checker's word.
    """
    if isinstance(judgment, dict) and "target" not in judgment:
        return softmax.proposition(judgment)
    if not isinstance(judgment, dict) or judgment.get("target") != "min-ip":
        return None
    name, model, rank, m = judgment.get("judgment"), judgment.get("model"), judgment.get("rank"), judgment.get("m")
    tolerance = _tolerance(judgment.get("tolerance"))
    if type(rank) is not int or not (isinstance(m, list) and len(m) == 2) or tolerance is None:
        return None
    low, high = m
    if type(low) is not int or low < 1:
        return None
    if name == "unsolvable" and high in (None, low) and tolerance == Fraction(1, 2) and type(judgment.get("length")) is int:
        predicate = {"kernel": "solvable", "kernel-positional": "psolvable"}.get(model)
        if predicate and high is None:
            return f"forall m, ({low} <= m)%nat -> ~ {predicate} {rank} m {judgment['length']}"
        return predicate and f"~ {predicate} {rank} {low} {judgment['length']}"
    lengths = judgment.get("lengths")
    if (name != "solves" or high != low or judgment.get("alphabet") != "all" or not isinstance(lengths, list)
            or not lengths or not all(type(n) is int and n >= 1 for n in lengths)):
        return None
    half = tolerance == Fraction(1, 2)
    if model == "kernel":
        if half and len(lengths) == 1:
            return f"solvable {rank} {low} {lengths[0]}"
        if 0 <= tolerance <= Fraction(1, 2):
            t = f"(Q2R ({tolerance.numerator}#{tolerance.denominator}))"
            return f"exists h : head {rank}, " + " /\\ ".join(f"solves_within {t} {low} {n} h" for n in lengths)
    if model == "kernel-positional" and rank == 1 and half and len(lengths) == 1:
        return f"psolvable 1 {low} {lengths[0]}"
    if model == "kernel-causal" and rank == 1 and half and lengths == list(range(1, len(lengths) + 1)):
        return f"csolvable 1 {low} {len(lengths)}"
    return None


def _leq(a: int, b: int) -> str:
    """A proof term of ``(a <= b)%nat``, by computation (no tactic)."""
    return f"(proj1 (Nat.leb_le {a} {b}) eq_refl)"


def bridge(obligation: dict, certified: dict, theorem: str) -> str | None:
    """A proof term of the obligation's :func:`proposition` from ``theorem``, a proof of the certified
    judgment's, as it stands or through one lemma of ``formal/KBridge.v``; None when none applies."""
    wanted, have = proposition(obligation), proposition(certified)
    if wanted is None or have is None:
        return None
    if "target" not in obligation:  # paper S: the statement names the certificate's own data, so only
        # the very judgment the certificate proves (the same digests) is proved by it
        return theorem if _same(obligation, certified) else None
    if wanted == have:
        return theorem
    if obligation.get("judgment") == certified.get("judgment") == "unsolvable":
        same = all(obligation.get(k) == certified.get(k) for k in ("rank", "length", "tolerance", "target"))
        low, need = certified["m"][0], obligation["m"][0]
        if not same or low > need or certified["m"][1] is not None:
            return None
        r, n = certified["rank"], certified["length"]
        if certified["model"] == "kernel-positional" and obligation["model"] == "kernel":
            theorem = f"(unsolvable_of_positional {r} {low} {n} {theorem})"
        elif certified["model"] != obligation["model"]:
            return None
        if obligation["m"][1] == need:  # one m: the certified "every m >= low" at m = need
            return f"({theorem} {need} {_leq(low, need)})"
        if low == need:
            return theorem
        lemma = "unsolvable_from" if obligation["model"] == "kernel" else "punsolvable_from"
        return f"({lemma} {r} {low} {need} {n} {_leq(low, need)} {theorem})"
    return None


def _same(a: dict, b: dict) -> bool:
    """Two judgments are the same: equal fields, numbers compared as exact rationals."""
    def norm(v):
        if isinstance(v, (int, str)) and not isinstance(v, bool):
            try:
                return ("q", Fraction(v))
            except (ValueError, ZeroDivisionError):
                return v
        return v
    return set(a) == set(b) and all(norm(a[k]) == norm(b[k]) for k in a)


def _k1_tables(data: dict) -> bool:
    """A score-statistic certificate's tables are those of K1's head: kappa = 1 (a flat list over s, or
    rows [w][s]), value(w, s) = 2s - w (rows [w][s])."""
    kappa, value = data.get("kappa"), data.get("value")
    if not (isinstance(kappa, list) and isinstance(value, list) and len(kappa) == len(value)):
        return False
    ones = all(k == 1 for row in kappa for k in (row if isinstance(row, list) else [row]))
    return ones and all(isinstance(row, list) and len(row) == w + 1 and all(v == 2 * s - w for s, v in enumerate(row))
                        for w, row in enumerate(value))


# Obligations a general theorem of formal/ proves without any certificate: (test, statement, proof).
# K1's score-statistic judgment (the head kappa = 1, U = 2<x,q> - |q| solves lengths 1 and 2 exactly for
# every m up to a bound) is the theorem k1_exact at each such m, with rank one.
THEOREMS = (
    (lambda j, data: (j.get("model") == "score-statistic" and j.get("judgment") == "solves" and j.get("lengths") == [1, 2]
                      and _tolerance(j.get("tolerance")) == 0 and isinstance(j.get("m"), list) and data is not None
                      and _k1_tables(data)),
     lambda j: (f"forall m, ({j['m'][0]} <= m <= {j['m'][1]})%nat -> "
                "exists h : head 1, solves_within (Q2R (0#1)) m 1 h /\\ solves_within (Q2R (0#1)) m 2 h"),
     "fun m _ => k1_exact_q m"),
)


@dataclass
class Exported:
    """One obligation's Coq file: what it states and from what, or why it has none."""

    outcome: str  # the outcome file
    words: str  # the obligation in words
    judgment: dict
    file: str = ""  # oNNNN.v, or "" when there is no Coq counterpart
    certificate: str = ""  # the certificate its proof rests on ("" for a general theorem)
    statement: str = ""
    reason: str = ""  # why there is no file
    accepted: bool | None = None  # set by compile(): None = not compiled
    error: str = ""


@dataclass
class Export:
    folder: str
    certificates: dict = field(default_factory=dict)  # certificate path -> cNNNN.v (or an error)
    obligations: list = field(default_factory=list)  # Exported


def _read(path: str):
    from solvers.trusted import parse

    return parse.load(path)


def export(result, folder: str) -> Export:
    """Write the Coq files of ``result`` (a :class:`~theorems.verification.Verification`) into ``folder``."""
    os.makedirs(folder, exist_ok=True)
    done = Export(folder)
    accepted = {os.path.realpath(c["path"]): c for c in result.certificates if c.get("status") == "accepted"}
    by_folder: dict[str, list[dict]] = {}
    for path, line in sorted(accepted.items()):
        by_folder.setdefault(os.path.dirname(path), []).append(line)
    names: dict[str, str] = {}  # certificate path -> module name, for those exported

    def exported(line: dict) -> str | None:
        path = os.path.realpath(line["path"])
        if path in names:
            return names[path] or None
        names[path] = ""
        statement = proposition(line.get("judgment"))
        exporter = EXPORTERS.get(line.get("kind"))
        if statement is None or exporter is None:
            return None
        try:
            source = exporter(_read(path)["data"], statement)
        except Exception as exc:  # a certificate the exporter cannot write: no Coq counterpart, said so
            done.certificates[path] = f"not exported: {type(exc).__name__}: {str(exc)[:120]}"
            return None
        name = f"c{len([n for n in names.values() if n]) + 1:04d}"
        _write(os.path.join(folder, name + ".v"), _comment(f"{os.path.basename(path)}: {line.get('summary', '')}") + source)
        names[path] = done.certificates[path] = name
        return name

    count = 0
    for check in result.outcomes:
        if not check.ok:  # Coq is asked about outcomes that stand: their obligations are the installed claim's
            continue
        here = by_folder.get(os.path.dirname(os.path.realpath(check.path)), [])
        for o in check.obligations:
            if o.get("side") not in ("verify", "refute"):  # both sides are judgments certificates prove
                continue
            item = Exported(check.path, o.get("words", ""), o.get("judgment") or {})
            statement = proposition(item.judgment)
            proof, refused = "", ""
            for line in sorted(here, key=lambda c: (os.path.basename(c["path"]) != o.get("by"), c["path"])):
                if bridge(item.judgment, line.get("judgment") or {}, "") is None:
                    continue
                if not exported(line):  # a certificate that would prove it, not exported: say why
                    refused = refused or done.certificates.get(os.path.realpath(line["path"]), "")
                    continue
                name = names[os.path.realpath(line["path"])]
                item.certificate = os.path.basename(line["path"])
                term = bridge(item.judgment, line["judgment"], f"Cert.{name}.judgment")
                # paper S's statements name the certificate's data (X, w, L, ...): imported, not qualified
                load = "Require Import" if "target" not in item.judgment else "Require"
                proof = f"{load} Cert.{name}.\n\nTheorem obligation : {statement}.\nProof. exact {term}. Qed.\n"
                break
            if not proof:
                for test, state, term in THEOREMS:
                    by = next((c for c in here if os.path.basename(c["path"]) == o.get("by")), None)
                    data = _read(by["path"])["data"] if by else None
                    if test(item.judgment, data):
                        statement, item.certificate = state(item.judgment), ""
                        proof = f"\nTheorem obligation : {statement}.\nProof. exact ({term}). Qed.\n"
                        break
            if not proof:
                kind = next((c.get("kind") for c in here if os.path.basename(c["path"]) == o.get("by")), None)
                item.reason = (refused or ("no Coq counterpart of this judgment" if statement is None and kind is None
                               else f"no Coq counterpart of kind {kind}" if kind else "no certificate Coq can check"))
                done.obligations.append(item)
                continue
            count += 1
            item.file, item.statement = f"o{count:04d}.v", statement
            _write(os.path.join(folder, item.file),
                   _comment(item.words) + "From Coq Require Import Reals QArith List.\n"
                   "From AttnProof Require Import KDefs KTable KLower KBridge SDefs SInstances.\n"
                   "Import ListNotations.\n" + proof)
            done.obligations.append(item)
    _write(os.path.join(folder, "index.json"), json.dumps(
        {"format": "attnproof-coq-export/1",
         "certificates": {path: name for path, name in done.certificates.items()},
         "obligations": [{"outcome": o.outcome, "words": o.words, "judgment": o.judgment, "file": o.file,
                          "certificate": o.certificate, "statement": o.statement, "reason": o.reason}
                         for o in done.obligations]}, indent=1))
    return done


def _comment(text: str) -> str:
    """A Coq comment line saying ``text`` (at most 300 characters): every character but letters, digits,
    spaces and plain punctuation dropped, so that no text (an outcome's words, a summary) can close the
    comment, open a string or reach Coq as code."""
    import re

    return "(* " + re.sub(r"[^A-Za-z0-9 ,.:;=<>+/_\[\]{}^|-]", " ", str(text))[:300] + " *)\n"


def _write(path: str, text: str) -> None:
    """Written whole or not at all (a temporary file renamed)."""
    handle, temp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise


# ------------------------------------------------------------------ coqc


def coqc() -> str:
    """The ``coqc`` to run, or FormalError naming the packages that provide it."""
    found = shutil.which("coqc")
    if not found:
        raise FormalError(f"coqc is not installed: apt-get install -y {PACKAGES} (Coq 8.16 from Debian's packages)")
    return found


def _sources() -> list[str]:
    with open(os.path.join(FORMAL, "_CoqProject"), encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip().endswith(".v")]


def build(jobs: int = 2) -> str:
    """``formal/`` compiled once into a cache folder named by the digest of its sources; returns that folder.

    The repository's own folder is never written (it may be read-only); a build that fails raises
    FormalError with coqc's first error line."""
    coqc()
    if not os.path.isfile(os.path.join(FORMAL, "_CoqProject")):
        raise FormalError(f"no Coq development at {FORMAL} (formal/ ships with the source tree)")
    sources = _sources()
    digest = hashlib.sha256()
    for name in ["_CoqProject", *sources]:
        with open(os.path.join(FORMAL, name), "rb") as handle:
            digest.update(name.encode() + b"\0" + handle.read() + b"\0")
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "attnproof")
    target = os.path.join(cache, f"formal-{digest.hexdigest()[:20]}")
    if os.path.isfile(os.path.join(target, ".built")):
        return target
    os.makedirs(cache, exist_ok=True)
    stage = tempfile.mkdtemp(dir=cache, prefix=".build-")
    try:
        for name in ["_CoqProject", *sources]:
            os.makedirs(os.path.dirname(os.path.join(stage, name)), exist_ok=True)
            shutil.copy(os.path.join(FORMAL, name), os.path.join(stage, name))
        subprocess.run(["coq_makefile", "-f", "_CoqProject", "-o", "Makefile.coq"], cwd=stage, check=True,
                       capture_output=True, text=True)
        made = subprocess.run(["make", "-f", "Makefile.coq", f"-j{max(1, jobs)}"], cwd=stage, capture_output=True, text=True)
        if made.returncode != 0:
            raise FormalError(f"formal/ does not build: {_first_error(made.stdout + made.stderr)}")
        open(os.path.join(stage, ".built"), "w").close()
        try:
            os.replace(stage, target)
        except OSError:  # built meanwhile by another run: theirs is the same
            shutil.rmtree(stage, ignore_errors=True)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return target


def _first_error(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    at = next((i for i, line in enumerate(lines) if line.startswith("Error")), None)
    if at is None:
        return (lines[-1] if lines else "no output")[:300]
    return " ".join(lines[max(0, at - 1):at + 2])[:300]


def compile(done: Export, jobs: int = 2) -> None:
    """``coqc`` on every exported file (certificates first, then obligations); marks each obligation."""
    formal = build(jobs)
    program = coqc()

    def run(name: str) -> tuple[bool, str]:
        command = [program, "-q", "-R", formal, "AttnProof", "-R", done.folder, "Cert", os.path.join(done.folder, name)]
        try:
            ran = subprocess.run(command, cwd=done.folder, capture_output=True, text=True, timeout=COQ_SECONDS)
        except subprocess.TimeoutExpired:
            return False, f"coqc took more than {COQ_SECONDS} s"
        return ran.returncode == 0, "" if ran.returncode == 0 else _first_error(ran.stdout + ran.stderr)

    certificates = sorted({name for name in done.certificates.values() if name.startswith("c")})
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        compiled = dict(zip(certificates, pool.map(lambda n: run(n + ".v"), certificates)))
        files = [o for o in done.obligations if o.file]
        for item, (ok, error) in zip(files, pool.map(lambda o: run(o.file), files)):
            base = next((name for path, name in done.certificates.items() if os.path.basename(path) == item.certificate
                         and os.path.dirname(os.path.realpath(path)) == os.path.dirname(os.path.realpath(item.outcome))), None)
            if base and not compiled.get(base, (False, ""))[0]:
                ok, error = False, f"{item.certificate}: {compiled.get(base, (False, 'not compiled'))[1]}"
            item.accepted, item.error = ok, error
    for path in glob.glob(os.path.join(done.folder, "*.glob")) + glob.glob(os.path.join(done.folder, ".*.aux")):
        os.remove(path)


def accepted(done: Export) -> bool:
    """Every obligation that has a Coq file was accepted by coqc."""
    return all(o.accepted for o in done.obligations if o.file)


def lines(done: Export, result, roots: list[str], details: bool = False) -> list[str]:
    """What ``verify --coq`` prints after the two stages: per outcome, how many of its obligations Coq
    accepted; with ``details`` (and always for a rejection) each obligation, its statement's file and why."""
    from theorems.judgments import words
    from theorems.verification import _point

    out = ["stage 3: Coq (coqc), a second checker: each obligation stated in the words of formal/KDefs.v "
           "(paper K) or formal/SDefs.v (paper S) and proved from its certificate's data by a soundness theorem of formal/"]
    for check in result.outcomes:
        mine = [o for o in done.obligations if o.outcome == check.path]
        if not mine:
            continue
        filed = [o for o in mine if o.file]
        good = sum(1 for o in filed if o.accepted)
        rest = len(mine) - len(filed)
        out.append(f"{_point(check, roots)}: {good} of {len(mine)} obligation(s) checked by Coq"
                   + (f" ({rest} without a Coq counterpart)" if rest else ""))
        for o in mine:
            said = words(o.judgment) if o.judgment else o.words
            if o.file and o.accepted:
                if details:
                    source = f"from {o.certificate}" if o.certificate else "by a general theorem of formal/"
                    out.append(f"  coq  accepted  {said}  -- {source}: {o.statement}")
            elif o.file:
                out.append(f"  coq  NOT ACCEPTED  {said}  -- {o.error}")
            elif details:
                out.append(f"  coq  -  {said}  -- {o.reason}")
    filed = [o for o in done.obligations if o.file]
    good = sum(1 for o in filed if o.accepted)
    out.append(f"Coq accepted {good} of {len(filed)} obligation(s) it could state"
               f"; {len(done.obligations) - len(filed)} obligation(s) have no Coq counterpart")
    return out


HEADLINES = (os.path.join(FORMAL, "KTheorems.v"), os.path.join(FORMAL, "STheorems.v"))


def statements(paths=HEADLINES) -> dict[str, str]:
    """``{name: statement}`` of every ``Theorem name : statement.`` in ``formal/KTheorems.v`` and
    ``formal/STheorems.v`` (papers K and S), verbatim (whitespace runs made one space): what the report
    shows for a claim's ``formal`` names."""
    import re

    found: dict[str, str] = {}
    for path in ([paths] if isinstance(paths, str) else paths):
        try:
            with open(path, encoding="utf-8") as handle:
                text = re.sub(r"\(\*.*?\*\)", " ", handle.read(), flags=re.S)
        except OSError:
            continue
        for m in re.finditer(r"\bTheorem\s+([A-Za-z_][\w']*)\s*:\s*(.*?)\.\s*Proof\b", text, flags=re.S):
            found[m.group(1)] = " ".join(m.group(2).split())
    return found
