"""The ``attnproof`` command: list, check, verify, report, new.

Exit status: 0 when every outcome matches its claim's expectation (``check``,
and ``report``, which writes its pages either way) or every certificate is
accepted (``verify``); 1 otherwise; 2 for a usage
error — an unknown claim, a parameter outside its range, or a request whose
cost estimate exceeds the budget (refused before anything starts).
"""

from __future__ import annotations

import argparse
import itertools
import json
import keyword
import os
import sys
import time

from solvers import certificates, parallel
from solvers.trusted.core import MAX_WORK
from theorems import __version__
from theorems.core import Claim, ParameterError, Refused, get, registry

DEFAULT_OUT = os.path.join("reports", "latest")
DEFAULT_BUDGET = 600.0
DEFAULT_JOBS = min(2, os.cpu_count() or 1)
CERT_SUFFIX = ".cert.json"


class UsageError(Exception):
    """Exit status 2."""


# ------------------------------------------------------------------ points


def parse_params(items: list[str], claims: list[Claim]) -> dict[str, list[dict]]:
    """``NAME=V1,V2`` (every selected claim with NAME) or ``CLAIM:NAME=V``; returns the points per claim.

    Several values give several points (their product over parameters).
    """
    chosen: dict[str, dict[str, list[str]]] = {c.id: {} for c in claims}
    for item in items:
        if "=" not in item:
            raise UsageError(f"--param takes NAME=VALUE (or CLAIM:NAME=VALUE), got {item!r}")
        key, _, raw = item.partition("=")
        values = [v for v in raw.split(",") if v.strip()]
        if not values:
            raise UsageError(f"--param {key} has no value")
        target, _, name = key.rpartition(":")
        targets = [c for c in claims if (not target or c.id == target or c.id.endswith("." + target))]
        if target and not targets:
            raise UsageError(f"--param {item!r}: claim {target!r} is not among the selected claims")
        having = [c for c in targets if any(p.name == name for p in c.parameters)]
        if not having:
            names = sorted({p.name for c in targets for p in c.parameters})
            raise UsageError(f"--param {item!r}: no selected claim has a parameter {name!r} (known: {', '.join(names)})")
        for claim in having:
            chosen[claim.id][name] = values
    points = {}
    for claim in claims:
        grid = chosen[claim.id]
        names = list(grid)
        points[claim.id] = [claim.point(dict(zip(names, combo))) for combo in itertools.product(*(grid[n] for n in names))]
    return points


def slug(point: dict, claim: Claim) -> str:
    changed = [f"{k}={v}" for k, v in point.items() if claim.defaults().get(k) != v]
    return ",".join(changed).replace("/", "_") or "default"


def format_seconds(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


# ------------------------------------------------------------------- check


def run_point(claim_id: str, point: dict, budget: float) -> object:
    """One task: check one claim at one point (module level, so workers can pickle it)."""
    return get(claim_id).check(point, budget)


def write_outcomes(out: str, results: list) -> list[dict]:
    """Write every outcome and its certificates into a fresh folder, then swap it in.

    The run is staged beside ``out`` and moved into place at the end, so an
    interrupted run never leaves a half-written report.
    """
    records = []
    with certificates.staged_folder(out) as stage:
        for claim, point, outcome in results:
            folder = os.path.join(claim.id, slug(point, claim))
            paths = []
            for k, cert in enumerate(outcome.certificates):
                rel = os.path.join(folder, f"{k:02d}-{cert['kind']}{CERT_SUFFIX}")
                certificates.write(os.path.join(stage, rel), cert)
                paths.append(os.path.join(out, rel))
            record = outcome.to_json(paths)
            certificates.write_atomic(os.path.join(stage, folder, "outcome.json"), json.dumps(record, indent=1, sort_keys=True) + "\n")
            records.append(record)
        certificates.write_atomic(os.path.join(stage, "outcomes.json"), json.dumps(records, indent=1, sort_keys=True) + "\n")
    return records


def cmd_check(args) -> int:
    claims = [get(c) for c in args.claims] if args.claims else list(registry().values())
    points = parse_params(args.param, claims)
    tasks, owners = [], []
    for claim in claims:
        for point in points[claim.id]:
            estimate = claim.cost(point)
            if estimate > args.budget:
                raise Refused(
                    f"refusing {claim.id} at {slug(point, claim)}: estimated {format_seconds(estimate)} exceeds the "
                    f"budget of {format_seconds(args.budget)} (raise --budget or choose smaller parameters)"
                )
            tasks.append((claim.id, point, args.budget))
            owners.append((claim, point))
    if args.scheduler:
        import importlib.util

        if importlib.util.find_spec("distributed") is None:
            raise UsageError("--scheduler needs dask.distributed, which is not installed: pip install 'dask[distributed]'")
    results: list = [None] * len(tasks)
    start = time.monotonic()
    for done, (index, outcome) in enumerate(parallel.run(run_point, tasks, args.jobs, args.scheduler), start=1):
        results[index] = (owners[index][0], owners[index][1], outcome)
        print(f"[{done}/{len(tasks)}] {outcome.claim}: {outcome.status} ({outcome.seconds:.1f} s)", file=sys.stderr, flush=True)
    records = write_outcomes(args.out, results)
    if args.json:
        print(json.dumps(records, indent=1, sort_keys=True))
    else:
        print_table(records)
        print(f"\n{len(records)} outcome(s) in {time.monotonic() - start:.1f} s; written to {args.out}")
    return 0 if all(r["status"] == r["expected"] for r in records) else 1


def print_table(records: list[dict]) -> None:
    width = max([len(r["claim"]) for r in records] + [5])
    print(f"{'claim':<{width}}  {'status':<9} {'expected':<9} {'seconds':>8}  message")
    for r in records:
        mark = "" if r["status"] == r["expected"] else "  <-- not as expected"
        print(f"{r['claim']:<{width}}  {r['status']:<9} {r['expected']:<9} {r['seconds']:>8.1f}  {r['message'][:100]}{mark}")


# ------------------------------------------------------------------ verify


def cmd_verify(args) -> int:
    """Stage 1, the isolated checker; stage 2, the binding to the installed claims (see theorems.verification)."""
    from theorems import verification

    for path in args.paths:
        if not os.path.lexists(path):
            raise UsageError(f"no such file or folder: {path}")
    result = verification.verify(args.paths, args.max_work)
    if result.error:
        print(f"attnproof: error: {result.error}", file=sys.stderr)
        return 1
    if not result.certificates and not result.outcomes:
        raise UsageError(f"no certificates (*{CERT_SUFFIX}) or outcome.json under {', '.join(args.paths)}")
    print("stage 1: the trusted checker (its own process: standard library and python-flint only)")
    for line in result.certificates:
        if line["status"] == "accepted":
            print(f"accepted  {line['path']}: {line['summary']}")
        else:
            print(f"{line['status']}  {line['path']}: {line['reason']}")
    for out in result.outcomes:
        point = ",".join(f"{k}={v}" for k, v in sorted(out.parameters.items())) if isinstance(out.parameters, dict) else "?"
        verdict = "stands" if out.ok else "DOES NOT STAND"
        print(f"\n{out.claim or out.path} [{point or 'default'}]: {out.status} {verdict}")
        # the obligations the status rests on: verify for verified, the discharged refutations for refuted
        relevant = {"verified": "verify", "refuted": "refute"}.get(out.status)
        shown = [ob for ob in out.obligations if relevant is None or (ob["side"] == relevant and (ob["by"] or relevant == "verify"))]
        for ob in shown:
            mark = f"discharged by {ob['by']}" if ob["by"] else "MISSING" if relevant else "not discharged"
            print(f"  {ob['side']:<7} {ob['words']}  -- {mark}")
        if len(shown) < len(out.obligations):
            print(f"  ({len(out.obligations) - len(shown)} other obligation(s) of the claim are not needed for this status)")
        if not out.checked:
            print(f"  REJECTED by the checker: {out.reason}")
        print(f"  binding (stage 2): {out.binding}")
    if result.foreign_modules:
        print(f"\nwarning: the checker process loaded modules outside the standard library: {', '.join(result.foreign_modules)}")
    accepted = sum(1 for c in result.certificates if c["status"] == "accepted")
    standing = sum(1 for o in result.outcomes if o.ok)
    print(f"\n{accepted} of {len(result.certificates)} certificate(s) accepted; "
          f"{standing} of {len(result.outcomes)} outcome(s) stand")
    return 0 if result.ok else 1


# ------------------------------------------------------------------ report

DEFAULT_REPORT = os.path.join("reports", "site")


def cmd_report(args) -> int:
    """Write the proof report (HTML and Markdown) from the outcomes of the last check.

    With no outcomes in ``--outcomes`` the default check runs first, into that folder.
    """
    from theorems import report

    if not os.path.isfile(os.path.join(args.outcomes, "outcomes.json")):
        if os.path.exists(args.outcomes) and (not os.path.isdir(args.outcomes) or os.listdir(args.outcomes)):
            # a check replaces its --out folder whole: never do that to a folder that holds something else
            raise UsageError(f"{args.outcomes} holds no outcomes.json but is not empty; give the folder of a check")
        print(f"no outcomes in {args.outcomes}: running the default check first", file=sys.stderr)
        cmd_check(build_parser().parse_args(["check", "--out", args.outcomes]))
    try:
        written = report.build(args.outcomes, args.out)
    except report.ReportError as exc:
        raise UsageError(str(exc)) from None
    loud = [e.id for e in written.entries if e.standing.loud]
    points = sum(len(e.points) for e in written.entries)
    print(f"report of {len(written.entries)} claim(s), {points} outcome(s) from {args.outcomes}: "
          f"{os.path.join(args.out, 'index.html')} (Markdown: {os.path.join(args.out, 'index.md')})")
    if loud:
        print(f"not as expected, or not standing under verify: {', '.join(loud)}")
    return 0 if written.as_expected else 1


# -------------------------------------------------------------------- list


def cmd_list(args) -> int:
    claims = registry().values()
    rows = [
        {
            "claim": c.id,
            "paper": c.paper,
            "title": c.title,
            "expected": c.expected,
            "uses": list(c.uses),
            "parameters": {p.name: {"default": certificates.encode(p.default), "allowed": p.allowed(), "doc": p.doc} for p in c.parameters},
        }
        for c in claims
    ]
    if args.json:
        print(json.dumps(rows, indent=1, sort_keys=True))
    else:
        for r in rows:
            params = ", ".join(f"{k}={v['default']}" for k, v in r["parameters"].items())
            print(f"{r['claim']:<44} {r['expected']:<9} arXiv:{r['paper']}  {r['title']}  [{params}]")
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
    taken = registration.shadowed(name)
    if taken:
        raise UsageError(f"NAME {name!r} would shadow the module {name} of {taken}; choose another NAME")
    project = registration.find_project()
    folder = args.dir if args.dir is not None else os.path.join(project.root, registration.CONJECTURES_FOLDER)
    path = os.path.join(folder, f"{name}.py")
    if os.path.exists(path):
        raise UsageError(f"{path} exists; choose another NAME or remove it")
    claim_id = f"conjectures.{name}"
    clash = [c for c in registry() if c == claim_id or c.endswith("." + name)]
    if clash:
        raise UsageError(f"a claim {clash[0]!r} is already registered: {name!r} would name it too; choose another NAME")
    template = files("theorems.conjectures").joinpath("template.py.in").read_text(encoding="utf-8")
    title = name.replace("_", " ").capitalize()
    cls = "".join(part.capitalize() for part in name.split("_") if part)
    os.makedirs(folder, exist_ok=True)
    certificates.write_atomic(path, template.format(module=name, cls=cls, title=title))
    shown = os.path.relpath(path)
    if os.path.realpath(folder) == os.path.realpath(os.path.join(project.root, registration.CONJECTURES_FOLDER)):
        print(f"wrote {shown} (registered: check, verify and report find every conjectures/*.py of the project {project.root})")
    else:
        print(f"wrote {shown}; register it in the pyproject.toml of your project: [tool.attnproof] conjectures = [\"{name}\"] "
              "(the module must be importable from the project folder)")
    print(f"next:\n  attnproof check {name}\n  attnproof verify {DEFAULT_OUT}\n  attnproof report")
    return 0


# -------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attnproof", description="Check claims of two attention-rank papers exactly, with certificates.")
    parser.add_argument("--version", action="version", version=f"attnproof {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="the claims: id, paper, title, expected status, parameters")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("check", help="check claims (all by default) at their default small parameters")
    p.add_argument("claims", nargs="*", metavar="CLAIM")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set a parameter (NAME=V or CLAIM:NAME=V; V1,V2 for several points)")
    p.add_argument("--budget", type=_positive_float, default=DEFAULT_BUDGET, metavar="SECONDS",
                   help=f"time allowed per claim and point (default {DEFAULT_BUDGET:g}); larger estimates are refused")
    p.add_argument("--jobs", type=_positive_int, default=DEFAULT_JOBS, metavar="N",
                   help=f"local worker processes (default {DEFAULT_JOBS})")
    p.add_argument("--scheduler", metavar="ADDRESS", help="a dask.distributed scheduler to run on")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help=f"where outcomes and certificates go (default {DEFAULT_OUT})")
    p.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("new", help="scaffold a conjecture module of your own")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--dir", default=None, help="folder to write NAME.py into (default: the project's conjectures/ folder)")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("report", help="write the proof report (static HTML and Markdown) from the last check's outcomes")
    p.add_argument("--out", default=DEFAULT_REPORT, metavar="DIR", help=f"where the report goes (default {DEFAULT_REPORT})")
    p.add_argument("--outcomes", default=DEFAULT_OUT, metavar="DIR",
                   help=f"the outcomes of a check (default {DEFAULT_OUT}); checked first if there are none")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("verify", help="re-check certificates and the verdicts of outcome folders")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--max-work", type=_positive_int, default=MAX_WORK, metavar="N",
                   help=f"refuse a certificate asking for more elementary operations than this (default {MAX_WORK:.0e})")
    p.set_defaults(func=cmd_verify)
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


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, ParameterError, Refused) as exc:
        print(f"attnproof: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`attnproof list | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
