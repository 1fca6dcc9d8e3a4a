"""The ``attnproof`` command: list, check, verify, report, new.

Exit status: 0 when every outcome matches its claim's expectation (``check``,
and ``report``, which writes its pages either way) or every certificate is
accepted (``verify``); 1 otherwise; 2 for a usage
error — an unknown claim, a parameter outside its range, a request whose
cost estimate exceeds the budget, an ``--out`` that is not an outcome folder
or cannot be written, claims that cannot be registered (each refused before
anything starts, in one line); 130 when interrupted (Ctrl-C), with nothing
written.  No command prints a traceback (``check --debug`` prints those of claims whose
code raised).  See docs/cli.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import keyword
import os
import re
import sys
import tempfile
import time
from fractions import Fraction

from solvers import certificates  # solvers.parallel (multiprocessing) is imported by check alone
from solvers.trusted.core import MAX_WORK
from theorems import __version__
from theorems.core import (
    _RATIONAL_TEXT, Budget, Claim, Evidence, Outcome, ParameterError, Refused, RegistrationError, error_words, get, raised,
    registry, slug,
)
from theorems.store import CHECK_FORMAT, OutputError
from theorems.terminal import format_seconds, printable  # rich is imported by terminal only when it draws

DEFAULT_OUT = os.path.join("reports", "latest")
LIST_FORMAT = "attnproof-list/1"  # the format of ``attnproof list --json``
DEFAULT_BUDGET = 600.0
DEFAULT_JOBS = min(2, os.cpu_count() or 1)
CERT_SUFFIX = ".cert.json"


class UsageError(Exception):
    """Exit status 2."""


class CheckerStopped(Exception):
    """The trusted checker's process stopped before its last line (killed, out of memory): exit status 1."""


class ClaimRaised(Exception):
    """A claim's own code raised while ``check`` planned its run (its parameters' check, its cost
    estimate, its statement): one line naming it and the claim's ``file:line``, exit status 1;
    ``traceback`` for ``--debug``."""

    def __init__(self, message: str, traceback: str = ""):
        super().__init__(message)
        self.traceback = traceback


def claim_code(claim: Claim, what: str, call, *args):
    """``call(*args)``, a claim's own code run by the command itself; an exception other than a
    parameter refusal becomes :class:`ClaimRaised` (``what``: "the cost estimate", ...)."""
    try:
        return call(*args)
    except (ParameterError, UsageError, Refused, RegistrationError, KeyboardInterrupt):
        raise
    except Exception as exc:
        import traceback

        from theorems.core import error_record

        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        raise ClaimRaised(f"{what} of {claim.id} raised {error_words(error_record(exc, claim))}", text) from None


def claims_registered() -> dict[str, Claim]:
    """Every registered claim; any problem registering them is one RegistrationError (exit status 2)."""
    try:
        return registry()
    except RegistrationError:
        raise
    except Exception as exc:  # a registration problem not yet named as one: still one line, never a traceback
        raise RegistrationError(f"the claims cannot be registered: {type(exc).__name__}: {str(exc)[:300]}") from None


def select(names: list[str]) -> list[Claim]:
    """The claims named: an id, the short name after its last dot, a group (``kernel_rank``, ``softmax_rank``,
    ``conjectures``: every claim whose id starts with it) or a paper (``2608.11427``); all when none is named.

    An unknown name is refused with the nearest names.
    """
    import difflib

    claims = claims_registered()
    if not names:
        return list(claims.values())
    chosen: dict[str, Claim] = {}
    for name in names:
        found = [c for i, c in claims.items() if i == name]
        found = found or [c for i, c in claims.items() if i.endswith("." + name)]
        found = found or [c for i, c in claims.items() if i.startswith(name + ".") or c.paper == name]
        if len(found) > 1 and all(c.id.endswith("." + name) for c in found):
            raise UsageError(f"claim {name!r} is ambiguous: {', '.join(c.id for c in found)}; give the full id")
        if not found:
            groups = sorted({i.split(".")[0] for i in claims} | {c.paper for c in claims.values() if c.paper})
            words = [*claims, *(i.rsplit(".", 1)[-1] for i in claims), *groups]
            near = difflib.get_close_matches(name, words, n=4, cutoff=0.5)
            hint = f"did you mean {', '.join(dict.fromkeys(near))}?" if near else f"groups: {', '.join(groups)}"
            raise UsageError(f"unknown claim {name!r}; {hint} (attnproof list shows every claim)")
        chosen.update((c.id, c) for c in found)
    return [c for i, c in claims.items() if i in chosen]


# ------------------------------------------------------------------ points


def parse_params(items: list[str], claims: list[Claim]) -> dict[str, list[dict]]:
    """``NAME=V1,V2`` (every selected claim with NAME) or ``CLAIM:NAME=V``; returns the points per claim.

    Several values give several points (their product over parameters).  A name set twice for one claim
    is refused, except that ``CLAIM:NAME=V`` wins over ``NAME=V`` (in either order).
    """
    chosen: dict[str, dict[str, list[str]]] = {c.id: {} for c in claims}
    given: dict[tuple[str, str], tuple[str, bool]] = {}  # (claim, name): the item that set it, and whether it named the claim
    for item in items:
        if "=" not in item:
            raise UsageError(f"--param takes NAME=VALUE (or CLAIM:NAME=VALUE), got {item!r}")
        key, _, raw = item.partition("=")
        values = [v for v in raw.split(",") if v.strip()]
        if not values:
            raise UsageError(f"--param {key} has no value")
        target, _, name = key.rpartition(":")
        targets = [c for c in claims if (not target or c.id == target or c.id.endswith("." + target))]
        if target and len(targets) > 1 and not any(c.id == target for c in targets):
            raise UsageError(f"--param {item!r}: claim {target!r} is ambiguous: {', '.join(c.id for c in targets)}; give the full id")
        targets = [c for c in targets if c.id == target] or targets  # a full id names its claim alone
        if target and not targets:
            raise UsageError(f"--param {item!r}: claim {target!r} is not among the selected claims")
        having = [c for c in targets if any(p.name == name for p in c.parameters)]
        if not having:
            names = sorted({p.name for c in targets for p in c.parameters})
            raise UsageError(f"--param {item!r}: no selected claim has a parameter {name!r} (known: {', '.join(names)})")
        for claim in having:
            before = given.get((claim.id, name))
            if before is not None and before[1] == bool(target):  # the same name set twice: never silently the last
                raise UsageError(f"--param {item!r}: {name} of {claim.id} is already set by --param {before[0]!r}; "
                                 f"give several values in one --param ({name}=V1,V2) for several points")
            if before is None or target:  # CLAIM:NAME=V wins over NAME=V, in either order
                chosen[claim.id][name] = values
                given[(claim.id, name)] = (item, bool(target))
    points = {}
    for claim in claims:
        kinds = {p.name: p.kind for p in claim.parameters}
        grid = {n: [_exact(v) if kinds.get(n) is Fraction else v for v in vs] for n, vs in chosen[claim.id].items()}
        names = list(grid)
        try:
            points[claim.id] = [claim_code(claim, "the parameter check", claim.point, dict(zip(names, combo)))
                                for combo in itertools.product(*(grid[n] for n in names))]
        except ParameterError as exc:
            spelt = all(_RATIONAL_TEXT.fullmatch(v.strip()) for n, vs in grid.items() if kinds.get(n) is Fraction for v in vs)
            if spelt or "must be a rational" not in str(exc):  # a value out of range: the range says it all
                raise
            raise ParameterError(f"{exc} (a rational is written as an integer, p/q, a decimal, or a decimal with "
                                 f"an exponent of at most two digits: 1/10, 0.1, 1e-1)") from None
    return points


_SCIENTIFIC = re.compile(r"(-?[0-9]{1,40}(?:\.[0-9]{1,40})?)[eE]([+-]?[0-9]{1,2})")


def _exact(text: str) -> str:
    """A decimal with an exponent (``1e-1``, ``2.5E3``) as the exact rational it names (``1/10``, ``2500``); any
    other text unchanged, for the parameter's own check.  The exponent is bounded (two digits) and so is the
    result (40 digits each side, as the parameter check reads), so no spelling makes a huge number."""
    found = _SCIENTIFIC.fullmatch(text.strip())
    if not found:
        return text
    value = Fraction(found.group(1)) * Fraction(10) ** int(found.group(2))
    if len(str(abs(value.numerator))) > 40 or len(str(value.denominator)) > 40:
        return text
    return str(value)  # "1/10", "2500", "-3/4"


def sizes(claim: Claim, point: dict) -> dict:
    """The point's size parameters, as exact JSON values (what "covered" shows)."""
    return certificates.encode(claim.sizes(point))


# ------------------------------------------------------------------- check


def run_point(claim_id: str, point: dict, budget: float) -> object:
    """One task: check one claim at one point (module level, so workers can pickle it).

    A claim whose code fails (an exception, not a verdict) gives an ``unknown``
    outcome, "not established", with the error recorded (:func:`theorems.core.raised`:
    its type, message and the claim's own ``file:line``; the traceback travels with
    the outcome object for ``--debug``), never a traceback that ends the run.
    """
    claim = get(claim_id)
    start = time.monotonic()
    try:
        return claim.check(point, budget)
    except Exception as exc:
        return raised(claim, point, exc, time.monotonic() - start)


def not_established(claim: Claim, point: dict, why: str, where: dict, seconds: float) -> object:
    """An ``unknown`` outcome, "not established", for a point that has no verdict because its
    worker died twice (``where`` holds ``{"lost": why}``)."""
    evidence = Evidence(claim, point, Budget(None))
    evidence.fail(why, where)
    try:
        return evidence.outcome(seconds)
    except Exception:  # not even the obligations can be stated
        return Outcome(claim=claim.id, status="unknown", expected=claim.expected, parameters=dict(point),
                       seconds=seconds, message=f"not established: {evidence.failures[0][0]}",
                       unknown={"why": "not established", "partial": False})


def cmd_check(args) -> int:
    """Plan (claims, points, estimates), refuse what cannot be done, run with progress, write, show the table.

    Everything that can be refused is refused before the first point runs:
    an unknown claim or parameter, an estimate over the budget, an ``--out``
    that is not an outcome folder or cannot be written (theorems.store).
    """
    from theorems import store, terminal

    claims = select(args.claims)
    points = parse_params(args.param, claims)
    plan = [(claim, point, claim_code(claim, "the cost estimate", claim.cost, point)) for claim in claims for point in points[claim.id]]
    if args.estimate:
        rows = [(c.id, slug(p, c), sizes(c, p), e, e <= args.budget) for c, p, e in plan]
        terminal.console().print(terminal.estimate_table(rows))
        total = sum(e for _, _, e in plan)
        over = sum(1 for *_, e in plan if e > args.budget)
        print(f"\n{len(plan)} point(s), estimated {format_seconds(total)} on one core"
              + (f" (about {format_seconds(total / args.jobs)} with --jobs {args.jobs})" if args.jobs > 1 and len(plan) > 1 else "")
              + (f"; {over} over the budget of {format_seconds(args.budget)}, which check would refuse" if over else "")
              + "; nothing was run")
        return 0
    for claim, point, estimate in plan:
        if estimate > args.budget:
            raise Refused(
                f"refusing {claim.id} at {slug(point, claim)}: estimated {format_seconds(estimate)} exceeds the "
                f"budget of {format_seconds(args.budget)} (raise --budget or choose smaller parameters)"
            )
    if args.scheduler:
        import importlib.util

        if importlib.util.find_spec("distributed") is None:
            raise UsageError("--scheduler needs dask.distributed, which is not installed: pip install 'dask[distributed]'")
    store.check_names([(claim.id, slug(point, claim)) for claim, point, _ in plan])
    store.prepare(args.out)
    from solvers import parallel
    from theorems import sweep

    # points done before with the same statement, parameters and code are kept (theorems.sweep)
    records: list = [None if args.force else claim_code(c, "the statement", sweep.done, args.out, c, p, slug(p, c))
                     for c, p, _ in plan]
    # longest first: with several workers the run ends when its longest point does, so start it first
    todo = sorted((i for i, r in enumerate(records) if r is None), key=lambda i: -plan[i][2])
    if len(todo) < len(plan):
        print(f"skipping {len(plan) - len(todo)} point(s) already done in {args.out} with the same statement, "
              "parameters and code (--force recomputes them)", file=sys.stderr, flush=True)
    tasks = [(plan[i][0].id, plan[i][1], args.budget) for i in todo]
    meter = parallel.Progress([plan[i][2] for i in todo], 1 if args.scheduler else args.jobs, skipped=len(plan) - len(todo))
    start = time.monotonic()
    try:
        with terminal.progress(len(tasks)) as shown:
            for k, outcome in parallel.run(run_point, tasks, args.jobs, args.scheduler):
                index = todo[k]
                claim, point, _ = plan[index]
                if isinstance(outcome, parallel.Lost):  # the worker died twice: unknown, and retried by the next run
                    outcome = not_established(claim, point, f"lost: {outcome.reason}", {sweep.LOST: outcome.reason}, 0.0)
                # written as soon as it is done: a stopped sweep keeps it and resumes after it
                records[index] = outcome.to_json()
                store.write(args.out, [(claim.id, slug(point, claim), records[index], outcome.certificates)], relist=False)
                meter.finished(k, outcome.seconds)
                shown.finished(claim.id, slug(point, claim), outcome.status, outcome.seconds, meter.line())
                if outcome.error:  # the claim's own code raised: said in one line now, the traceback with --debug
                    shown.said(raised_line(claim.id, slug(point, claim), outcome.error, args.debug))
                    if args.debug and outcome.traceback:
                        shown.said(outcome.traceback.rstrip("\n"), newlines=True)
    except BaseException:
        # stopped (Ctrl-C, a scheduler that cannot be reached, a disk that filled up): outcomes.json remade
        # for the points written so far, if any were; the stop itself, not this, is what the user is told
        if os.path.isdir(args.out):
            try:
                store.write_list(args.out)
            except OSError:
                pass
        raise
    # outcomes.json once, when the run ends (remade per point, it cost the parent seconds of
    # CPU beside the workers: every record read and written again at every point)
    store.write_list(args.out)
    written = [(claim.id, slug(point, claim), record) for (claim, point, _), record in zip(plan, records)]
    if args.json:
        folders = [f"{claim_id}/{point}" for claim_id, point, _ in written]
        print(json.dumps({"format": CHECK_FORMAT, "out": os.path.abspath(args.out),
                          "outcomes": [r | {"folder": f} for r, f in zip(records, folders)]}, indent=1, sort_keys=True))
    else:
        rows = [r | {"point": slug(p, c), "sizes": sizes(c, p)} for (c, p, _), r in zip(plan, records)]
        console = terminal.console()
        console.print(terminal.outcome_table(rows))
        kept = len(store.read_all(args.out))
        partial = sum(1 for r in records if (r.get("unknown") or {}) == {"why": "budget", "partial": True})
        console.print(f"\n{len(records)} outcome(s) in {time.monotonic() - start:.1f} s; written to {printable(args.out)}, "
                      f"which holds {kept} outcome(s) in all"
                      + (f"; {partial} ran out of budget with some obligations discharged (partial, not verified)" if partial else ""),
                      highlight=False, soft_wrap=True, markup=False)
    # as expected: the expected status, reached by a check whose code did not raise (whatever the claim expects)
    return 0 if all(r["status"] == r["expected"] and not (r.get("unknown") or {}).get("error") for r in records) else 1


def raised_line(claim_id: str, point: str, error: dict, debug: bool) -> str:
    """The one line that says a claim's code raised (standard error, as the point finishes)."""
    hint = "" if debug else "; --debug prints the traceback"
    return printable(f"attnproof: {claim_id} [{point}]: the check raised {error_words(error)}: not established{hint}")


# ------------------------------------------------------------------ verify


def cmd_verify(args) -> int:
    """Stage 1, the isolated checker; stage 2, the binding to the installed claims (see theorems.verification)."""
    from theorems import verification

    args.paths = _folders(args.paths)
    result = _verified(args.paths, args.max_work, coq=getattr(args, "coq", False))
    for line in verification.lines(result, args.paths, details=args.details):
        print(printable(line))
    # claims that cannot be registered (read by the binding process): a usage error, as for check and report
    unregistered = next((o.binding for o in result.outcomes if "RegistrationError: " in o.binding), None)
    if unregistered:
        print(f"attnproof: error: {printable(unregistered.partition('RegistrationError: ')[2])}", file=sys.stderr)
        return 2
    if not args.coq:
        return 0 if result.ok else 1
    from theorems import formal

    with tempfile.TemporaryDirectory(prefix="attnproof-coq-") as folder:
        done = formal.export(result, folder)
        try:
            formal.compile(done)
        except formal.FormalError as exc:
            raise UsageError(str(exc)) from None
    for line in formal.lines(done, result, args.paths, details=args.details):
        print(printable(line))
    return 0 if result.ok and formal.accepted(done) else 1


def _folders(paths: list[str]) -> list[str]:
    """An outcome's file (``.../outcome.json``) or a check's list (``.../outcomes.json``) named as a path is read
    as the folder that holds it: the certificates beside it are its own (a certificate file stays a file)."""
    named = [os.path.dirname(p) or "." if os.path.basename(p) in ("outcome.json", "outcomes.json") and os.path.isfile(p)
             else p for p in paths]
    return list(dict.fromkeys(named))


def _verified(paths: list[str], max_work: int, coq: bool = False):
    """Both stages of verify over ``paths`` (a usage error when there is nothing to check, or, with
    ``coq``, no coqc to run afterwards: said before any work)."""
    from theorems import verification

    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(f"no such file or folder: {path}")
    if coq:
        from theorems import formal

        try:
            formal.coqc()
        except formal.FormalError as exc:
            raise UsageError(str(exc)) from None
    result = verification.verify(paths, max_work)
    if result.error:
        raise CheckerStopped(result.error)
    if not result.certificates and not result.outcomes:
        raise UsageError(f"no certificates (*{CERT_SUFFIX}) or outcome.json under {', '.join(paths)}")
    return result


def cmd_export(args) -> int:
    """``export --coq DIR PATH ...``: the Coq files of every accepted certificate and obligation, not compiled."""
    from theorems import formal

    if os.path.lexists(args.coq) and (not os.path.isdir(args.coq) or os.listdir(args.coq)):
        raise UsageError(f"--coq {args.coq}: not an empty folder (the export never writes over files)")
    args.paths = _folders(args.paths)
    result = _verified(args.paths, args.max_work)
    done = formal.export(result, args.coq)
    written = sum(1 for o in done.obligations if o.file)
    print(printable(f"wrote {len([n for n in done.certificates.values() if n.startswith('c')])} certificate file(s) and "
                    f"{written} obligation file(s) to {args.coq} ({len(done.obligations) - written} obligation(s) without "
                    f"a Coq counterpart: index.json says why); compile with: coqc -R <formal built> AttnProof -R {args.coq} Cert FILE"))
    return 0 if result.ok else 1


# ------------------------------------------------------------------ report

DEFAULT_REPORT = os.path.join("reports", "site")


def cmd_report(args) -> int:
    """Write the proof report (HTML and Markdown) from the outcomes of the last check.

    With ``--outcomes`` left at its default and no outcomes there, the default
    check runs first, into that folder; a folder named with ``--outcomes``
    must hold outcomes (a misspelt name is refused, never filled by a check).
    With ``--coq`` the third stage of ``verify --coq`` runs too (no coqc: a
    usage error, said before any work).
    """
    from theorems import formal, report

    coq = getattr(args, "coq", False)
    if coq:
        try:
            formal.coqc()
        except formal.FormalError as exc:
            raise UsageError(str(exc)) from None
    explicit = args.outcomes is not None
    args.outcomes = args.outcomes if explicit else DEFAULT_OUT
    if not os.path.isfile(os.path.join(args.outcomes, "outcomes.json")):
        if explicit:
            raise UsageError(_no_outcomes(args.outcomes))
        print(printable(f"no outcomes in {args.outcomes}: running the default check first"), file=sys.stderr)
        cmd_check(build_parser().parse_args(["check", "--out", args.outcomes]))  # the report says what is not as expected
    try:
        written = report.build(args.outcomes, args.out, coq=coq)
    except (report.ReportError, formal.FormalError) as exc:  # formal/ that does not build: one line too
        raise UsageError(str(exc)) from None
    loud = [e.id for e in written.entries if e.standing.loud]
    points = sum(len(e.points) for e in written.entries)
    print(printable(f"report of {len(written.entries)} claim(s), {points} outcome(s) from {args.outcomes}: "
                    f"{os.path.join(args.out, 'index.html')} (Markdown: {os.path.join(args.out, 'index.md')})"))
    if loud:
        print(printable(f"not as expected, or not standing under verify: {', '.join(loud)}"))
    if written.coq is not None:
        filed = [o for o in written.coq.obligations if o.file]
        print(printable(f"Coq accepted {sum(1 for o in filed if o.accepted)} of {len(filed)} obligation file(s) "
                        f"({len(written.coq.obligations) - len(filed)} obligation(s) have no Coq counterpart)"))
    return 0 if written.as_expected else 1


def _no_outcomes(folder: str) -> str:
    """Why ``--outcomes folder`` is refused, with a fix that is itself accepted: the outcome folder above it
    when it is inside one, ``check --out`` when check would write there, otherwise a new folder."""
    from theorems import store

    shown = printable(folder)
    if not os.path.lexists(folder):
        return f"--outcomes {shown} does not exist: give the folder of a check (attnproof check --out {shown} makes one)"
    above = os.path.dirname(os.path.abspath(folder))
    while True:  # a claim's or a point's folder inside a check's folder: name the check's folder
        if os.path.isfile(os.path.join(above, "outcomes.json")):
            return f"--outcomes {shown} holds no outcomes.json: it is inside the outcome folder {printable(above)}; give that"
        if os.path.dirname(above) == above:
            break
        above = os.path.dirname(above)
    if os.path.isdir(folder) and store.is_outcome_folder(os.path.abspath(folder)):  # check would write there
        return (f"--outcomes {shown} holds no outcomes.json: give the folder of a check "
                f"(attnproof check --out {shown} makes one)")
    # check refuses to write into a folder that is not its own: suggest a new one, never that
    return (f"--outcomes {shown} holds no outcomes.json and is not an outcome folder: give the folder of a check "
            f"(attnproof check --out NEW_FOLDER makes one, then attnproof report --outcomes NEW_FOLDER)")


# -------------------------------------------------------------------- list


def _source(claim: Claim) -> str:
    """``Claim.source`` (who states the claim); a source property that fails or is not text reads "unattributed"."""
    try:
        source = claim.source
    except Exception:  # a plugin's own property: never a traceback in a listing
        source = ""
    return source if isinstance(source, str) and source else "unattributed"


def _stated_by(row: dict) -> str:
    """Who states a claim, in words: its paper (``arXiv:P``) when the paper does, otherwise its own source and the
    paper only as what it is about — a conjecture is never listed as the paper's."""
    paper = row["paper"]
    if paper and row["source"] == f"arXiv {paper}" and row["relation"] != "a conjecture":
        return f"arXiv:{paper}"
    return f"{row['source']}, about arXiv:{paper}" if paper else row["source"]


def cmd_list(args) -> int:
    claims = claims_registered().values()
    rows = [
        {
            "claim": c.id,
            "paper": c.paper,
            "source": _source(c),
            "relation": c.relation,
            "title": c.title,
            "expected": c.expected,
            "uses": list(c.uses),
            "parameters": {p.name: {"default": certificates.encode(p.default), **p.bounds(), "allowed": p.allowed(), "doc": p.doc}
                           for p in c.parameters},
        }
        for c in claims
    ]
    if args.json:
        print(json.dumps({"format": LIST_FORMAT, "claims": rows}, indent=1, sort_keys=True))
    elif args.jsonl:  # one claim per line, each whole: `attnproof list --jsonl | head -1` is a claim
        for r in rows:
            print(json.dumps({"format": LIST_FORMAT, **r}, sort_keys=True))
    else:
        for r in rows:
            params = ", ".join(f"{k}={v['default']}" for k, v in r["parameters"].items())
            print(printable(f"{r['claim']:<44} {r['expected']:<9} {_stated_by(r)}  {r['title']}  [{params}]"))
    return 0


# -------------------------------------------------------------------- help

CONCEPTS = """\
The words of a verdict

claim        a sentence of a paper (or a conjecture) read as a statement at small parameters, with a check
             that tries to establish it at a parameter point (attnproof list names them).
judgment     one exact fact in the trusted checker's own vocabulary, e.g. "no head of feature rank 1 solves
             exact length 3 at any m >= 4". A certificate is the data from which the checker re-derives a
             judgment (attnproof verify FILE re-checks one).
obligation   a judgment a claim's verdict needs at a point, stated by the claim's own obligations function:
             "verify" obligations must all be discharged for verified; one discharged "refute" obligation
             makes refuted. An obligation is discharged when an accepted certificate's judgment implies it.
stands       an outcome stands when the trusted checker (its own process: standard library and python-flint
             only) accepted its certificates and discharged its obligations, and the binding found them to be
             the installed claim's own (statement hash, point, obligations recomputed). Only then is its
             verdict shown as established.
rung         what a standing outcome establishes, from its status and the reach of its obligations:
               proved for every parameter  the discharged obligations imply the statement at every parameter
                                           (e.g. a checker rule over an unbounded range, m >= 4);
               verified up to ...          they cover the sizes named (m <= 200, length 3) and nothing beyond;
               refuted with a certified counterexample;
               open conjecture / unknown   no verdict: a budget ran out or a step did not go through; what was
                                           discharged on the way (partial) is listed and never called verified.
             A claim's rung is its own: a claim proved for every parameter may rest on lemmas verified only
             up to a size, because its own obligations, not theirs, carry every parameter.
symbolic     steps sympy carried out (facts named symbolic_*) are shown beside what the checker accepted,
             never as part of it.
stale        an outcome made for another statement than the installed claim's (its statement hash differs:
             the claim, its obligations or its witness changed since the check); it establishes nothing about
             the claim as it now reads: attnproof check CLAIM again. A conjecture whose head was edited
             without its sentence is marked STALE SENTENCE in the report until the sentence is rewritten.
relation     how a claim serves its paper's sentence: reads it, a finite step of an asymptotic, a lemma toward
             it, a tempting variant (refuting one says nothing against the paper), an analogue (the
             sentence's experiment on other data, not the paper's own; the report names the data), a conjecture.
"""
HELP_TOPICS = {"concepts": CONCEPTS}
EPILOG = ("A verdict is established only by the trusted checker: obligation, judgment, rung, verified vs proved "
          "for every parameter, stale -- attnproof help concepts explains each.")


def cmd_help(args) -> int:
    if args.topic is None:
        build_parser().print_help()
    else:
        print(HELP_TOPICS[args.topic], end="")
    return 0


# --------------------------------------------------------------------- new


def cmd_new(args) -> int:
    """Write a conjecture module from the template into the project's ``conjectures/`` folder.

    It checks and verifies as it stands, and is registered by being there (see
    :mod:`theorems.registry`): no environment variable.  Refused: a NAME that is not an
    identifier, one that shadows a module (``os``, ``theorems``, an installed package),
    one whose claim id or short name a registered claim already has.
    """
    from importlib.resources import files

    from theorems import registry as registration

    name = args.name
    if not name.isidentifier() or name.startswith("_") or keyword.iskeyword(name):
        raise UsageError(f"NAME must be a Python identifier not starting with '_' (it becomes a module name), got {name!r}")
    project = registration.find_project()
    folder = args.dir if args.dir is not None else os.path.join(project.root, registration.CONJECTURES_FOLDER)
    path = os.path.join(folder, f"{name}.py")
    if os.path.exists(path):
        raise UsageError(f"{path} exists; choose another NAME or remove it")
    taken = registration.shadowed(name, project)
    if taken:
        raise UsageError(f"NAME {name!r} would shadow the module {name} of {taken}; choose another NAME")
    claim_id = f"conjectures.{name}"
    clash = [c for c in registry() if c == claim_id or c.endswith("." + name)]
    if clash:
        raise UsageError(f"a claim {clash[0]!r} is already registered: {name!r} would name it too; choose another NAME")
    template = files("theorems.conjectures").joinpath("template.py.in").read_text(encoding="utf-8")
    title = name.replace("_", " ").capitalize()
    cls = "".join(part.capitalize() for part in name.split("_") if part)
    os.makedirs(folder, exist_ok=True)
    certificates.write_atomic(path, template.format(module=name, cls=cls, title=title))
    shown = printable(os.path.relpath(path))
    if os.path.realpath(folder) == os.path.realpath(os.path.join(project.root, registration.CONJECTURES_FOLDER)):
        print(f"wrote {shown} (registered: check, verify and report find every conjectures/*.py of the project {project.root})")
    else:
        print(f"wrote {shown}; register it in the pyproject.toml of your project: [tool.attnproof] conjectures = [\"{name}\"] "
              "(the module must be importable from the project folder)")
    print(f"next:\n  attnproof check {name}\n  attnproof verify {DEFAULT_OUT}\n  attnproof report")
    return 0


# -------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attnproof", description="Check claims of two attention-rank papers exactly, with certificates.",
                                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"attnproof {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="the claims: id, expected status, who states it (source, paper), title, parameters")
    shape = p.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help=f"one JSON document ({LIST_FORMAT})")
    shape.add_argument("--jsonl", action="store_true", help="one JSON object per claim, one per line")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("help", help="explain the words of a verdict: attnproof help concepts")
    p.add_argument("topic", nargs="?", choices=sorted(HELP_TOPICS), metavar="TOPIC",
                   help=f"one of: {', '.join(sorted(HELP_TOPICS))} (none: the usage)")
    p.set_defaults(func=cmd_help)

    p = sub.add_parser("check", help="check claims (all by default) at their default small parameters")
    p.add_argument("claims", nargs="*", metavar="CLAIM")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set a parameter (NAME=V or CLAIM:NAME=V; V1,V2 for several points)")
    p.add_argument("--budget", type=_positive_float, default=DEFAULT_BUDGET, metavar="SECONDS",
                   help=f"time allowed per claim and point (default {DEFAULT_BUDGET:g}); larger estimates are refused")
    p.add_argument("--jobs", type=_positive_int, default=DEFAULT_JOBS, metavar="N",
                   help=f"local worker processes (default {DEFAULT_JOBS})")
    p.add_argument("--scheduler", metavar="ADDRESS", help="a dask.distributed scheduler to run on")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                   help=f"the outcome folder (default {DEFAULT_OUT}): a run replaces the points it re-ran and keeps the others")
    p.add_argument("--json", action="store_true", help=f"print the outcomes as JSON ({CHECK_FORMAT})")
    p.add_argument("--estimate", action="store_true", help="print each point's cost estimate and run nothing")
    p.add_argument("--force", action="store_true",
                   help="recompute points already done in --out with the same statement, parameters and code")
    p.add_argument("--debug", action="store_true",
                   help="print the traceback of a claim whose code raised (its outcome is not established either way)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("new", help="scaffold a conjecture module of your own")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--dir", default=None, help="folder to write NAME.py into (default: the project's conjectures/ folder)")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("report", help="write the proof report (static HTML and Markdown) from the last check's outcomes")
    p.add_argument("--out", default=DEFAULT_REPORT, metavar="DIR", help=f"where the report goes (default {DEFAULT_REPORT})")
    p.add_argument("--outcomes", default=None, metavar="DIR",
                   help=f"the outcomes of a check (default {DEFAULT_OUT}, where the default check runs first if there are none)")
    p.add_argument("--coq", action="store_true",
                   help="also run verify's third stage (Coq files of the obligations, compiled by coqc) and show its rung")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("verify", help="re-check certificates and the verdicts of outcome folders")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--max-work", type=_positive_int, default=MAX_WORK, metavar="N",
                   help=f"refuse a certificate asking for more elementary operations than this (default {MAX_WORK:.0e})")
    p.add_argument("--details", action="store_true", help="every certificate and obligation, not only the summary per outcome")
    p.add_argument("--coq", action="store_true",
                   help="a third stage: every obligation with a Coq counterpart exported and compiled by coqc (formal/)")
    p.set_defaults(func=cmd_verify)
    p = sub.add_parser("export", help="write accepted certificates and obligations as Coq files (formal/)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--coq", required=True, metavar="DIR", help="an empty or new folder for the .v files")
    p.add_argument("--max-work", type=_positive_int, default=MAX_WORK, metavar="N", help="as for verify")
    p.set_defaults(func=cmd_export)
    return parser


def _positive(kind: type, what: str):
    """An argparse type: a number of ``kind`` that must be > 0, else a message naming the range."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value > 0:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
        return value

    return parse


_positive_float = _positive(float, "a positive number of seconds")
_positive_int = _positive(int, "an integer >= 1")


COMMANDS = ("list", "help", "check", "new", "report", "verify", "export")


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else list(argv)
    if not given or (given[0].startswith("-") and given[0] not in ("-h", "--help", "--version")):
        # no command, or an option before any: one line naming the commands, not argparse's usage block
        said = f" (got {given[0]!r})" if given else ""
        print(printable(f"attnproof: error: a command comes first{said}: one of {', '.join(COMMANDS)} "
                        "(attnproof --help says what each does)"), file=sys.stderr)
        return 2
    args, unknown = build_parser().parse_known_args(given)
    if unknown:  # one line naming the command's own help, not the top-level usage
        print(printable(f"attnproof {args.command}: error: unrecognized argument(s): {' '.join(unknown)} "
                        f"(attnproof {args.command} --help lists its options)"), file=sys.stderr)
        return 2
    try:
        status = args.func(args)
        sys.stdout.flush()  # a reader that went away is found here, not in the interpreter's exit
        return status
    except (UsageError, ParameterError, Refused, OutputError, RegistrationError) as exc:
        print(f"attnproof: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except CheckerStopped as exc:
        print(f"attnproof: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except ClaimRaised as exc:  # before any point ran: the claim's code, not the user's request
        print(f"attnproof: error: {_one_line(exc)}", file=sys.stderr)
        if getattr(args, "debug", False) and exc.traceback:
            print(printable(exc.traceback.rstrip("\n"), newlines=True), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        kept = ""
        if args.command == "check" and not getattr(args, "estimate", False):
            kept = (" (the outcomes in the --out folder are kept; no point is half-written)" if os.path.isdir(args.out)
                    else f" (nothing was written: {printable(args.out)} was not made)")
        print(f"\nattnproof: interrupted{kept}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`attnproof list | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:  # a disk that filled up, a folder removed under a run: said in one line
        print(f"attnproof: error: {_one_line(exc)}", file=sys.stderr)
        return 1


def _one_line(exc: Exception) -> str:
    text = printable(" ".join(str(exc).split()))
    return text if len(text) <= 600 else text[:600] + " ..."


if __name__ == "__main__":
    sys.exit(main())
