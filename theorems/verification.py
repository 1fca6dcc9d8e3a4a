"""``attnproof verify``: the trusted checker in its own process, then the binding to the claims.

Two stages, in this order:

1. **The checker speaks first.**  ``python -I -S`` runs :mod:`solvers.trusted`
   with only the standard library, python-flint and that package on its
   path: no claim, solver, plugin, sympy, numpy, scipy or z3 is imported
   before it has checked every certificate and discharged every outcome's
   recorded obligations.  Nothing a plugin does at import can change that.
2. **Binding** (this process, after): each outcome's claim must be
   installed, its statement hash must be the installed claim's, its
   parameters must be a valid point of the claim, and the obligations it
   records must be exactly those the installed claim computes at that point.
   So an edited obligation, parameter or tolerance in an outcome file is caught.

An outcome stands when both stages accept it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

import solvers
from solvers.trusted.core import MAX_WORK

BOOT = "import sys, runpy; sys.path[:0] = sys.argv[1].split(__import__('os').pathsep); del sys.argv[1]; runpy.run_module('solvers.trusted', run_name='__main__', alter_sys=True)"


@dataclass
class OutcomeCheck:
    """One outcome file: the checker's discharge, then the binding to the installed claim."""

    path: str
    claim: str = ""
    parameters: dict = field(default_factory=dict)
    status: str = ""
    checked: bool = False  # stage 1 accepted the verdict
    reason: str = ""
    obligations: list = field(default_factory=list)  # {side, judgment, words, by}
    reach: str = ""
    bound: bool = False  # stage 2 accepted the binding
    binding: str = ""

    @property
    def ok(self) -> bool:
        return self.checked and self.bound


@dataclass
class Verification:
    certificates: list = field(default_factory=list)  # the checker's lines, one per file
    outcomes: list = field(default_factory=list)  # OutcomeCheck
    foreign_modules: list = field(default_factory=list)
    error: str = ""

    @property
    def ok(self) -> bool:
        return (not self.error and all(c["status"] == "accepted" for c in self.certificates)
                and all(o.ok for o in self.outcomes) and bool(self.certificates or self.outcomes))


def _search_path() -> list[str]:
    """The folders holding the ``solvers`` package and python-flint: all the checker may import from."""
    import flint

    roots = [os.path.dirname(os.path.dirname(os.path.abspath(solvers.__file__))),
             os.path.dirname(os.path.dirname(os.path.abspath(flint.__file__)))]
    return list(dict.fromkeys(roots))


def run_checker(paths: list[str], max_work: int = MAX_WORK) -> Verification:
    """Stage 1: the isolated checker over ``paths`` (files or folders)."""
    command = [sys.executable, "-I", "-S", "-c", BOOT, os.pathsep.join(_search_path()), "--max-work", str(max_work), *paths]
    done = subprocess.run(command, capture_output=True, text=True)
    result, finished = Verification(), False
    for line in done.stdout.splitlines():
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            continue
        if item.get("type") == "certificate":
            result.certificates.append(item)
        elif item.get("type") == "outcome":
            result.outcomes.append(OutcomeCheck(
                path=item["path"], claim=str(item.get("claim", "")), parameters=item.get("parameters") or {},
                status=str(item.get("status", "")), checked=bool(item["ok"]), reason=item.get("reason", ""),
                obligations=item.get("obligations", []), reach=item.get("reach", "")))
        elif item.get("type") == "done":
            result.foreign_modules, finished = item.get("foreign_modules", []), True
    if not finished:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        result.error = f"the checker process stopped early (exit {done.returncode}): {last[:200]}"
    return result


def bind(check: OutcomeCheck) -> None:
    """Stage 2: the outcome's statement, point and obligations are the installed claim's own."""
    from solvers.trusted import parse
    from solvers.trusted.core import encode
    from theorems.core import ParameterError, registry

    try:
        record = parse.load(check.path, floats=True)
    except parse.Refused as exc:
        check.binding = f"cannot read the outcome again: {exc}"
        return
    if not isinstance(record, dict):
        check.binding = "not an outcome record"
        return
    claim = registry().get(check.claim)
    if claim is None:
        check.binding = f"no installed claim {check.claim[:80]!r}"
        return
    if record.get("statement") != claim.statement_hash():
        check.binding = f"statement hash differs from the installed {claim.id}: the outcome is about another statement"
        return
    try:
        point = claim.point(record.get("parameters") or {})
    except (ParameterError, TypeError, AttributeError) as exc:
        check.binding = f"parameters are not a point of {claim.id}: {str(exc)[:200]}"
        return
    if encode(point) != record.get("parameters"):
        check.binding = "parameters are not written as the claim reads them"
        return
    try:
        expected = claim.obligations(point).to_json()
    except Exception as exc:  # a claim's own code failing is a failed binding, never a traceback
        check.binding = f"{claim.id} could not state its obligations: {type(exc).__name__}: {str(exc)[:120]}"
        return
    if expected != record.get("obligations"):
        check.binding = f"the obligations recorded differ from those {claim.id} states at this point"
        return
    check.bound, check.binding = True, "statement, point and obligations are the installed claim's"


def verify(paths: list[str], max_work: int = MAX_WORK) -> Verification:
    """Both stages over ``paths``."""
    result = run_checker(paths, max_work)
    for check in result.outcomes:
        if check.claim:
            bind(check)
        else:
            check.binding = "no claim named"
    return result
