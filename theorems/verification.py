"""``attnproof verify``: the trusted checker in its own process, then the binding to the claims.

Two stages, in this order:

1. **The checker speaks first.**  ``python -I -S`` runs :mod:`solvers.trusted`
   with only the standard library, python-flint and that package on its
   path: no claim, solver, plugin, sympy, numpy, scipy or z3 is imported
   before it has checked every certificate and discharged every outcome's
   recorded obligations.  Nothing a plugin does at import can change that.
2. **Binding**, after, in a second process (so that the claims and plugins
   it imports never share a process with what stage 1 said): each outcome's
   claim must be installed, its statement hash must be the installed
   claim's, its parameters a valid point of the claim (whose cost estimate
   is within ``BIND_BUDGET``), an open conjecture is never ``verified`` and
   any other claim whose verify obligations are all discharged (stage 1's
   ``earned``) must say ``verified``, and the obligations it records must be
   exactly those the installed claim computes at that point.  So an edited obligation, parameter or tolerance
   in an outcome file is caught.  This stage trusts the installed claim
   code, as a reader trusts a claim's statement and obligations.

An outcome stands when both stages accept it.

Both stages share their work among ``JOBS`` processes (two on a machine of
two cores or more): stage 1's checker forks workers of its own (each file
checked alone, every line printed and every outcome discharged by the one
checker process); stage 2's process imports the claims once, then forks
workers that take the outcomes one at a time, the longest recorded check
first.  Stage 2's process is started with stage 1, so that sympy and numpy
load while the checker works, but it is sent the outcomes, and imports the
claims and plugins, only when stage 1 has finished.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

import solvers
from solvers.trusted.core import MAX_WORK

JOBS = max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))
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
    earned: str = ""  # the strongest status the discharges earn (stage 1)
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


def run_checker(paths: list[str], max_work: int = MAX_WORK, jobs: int = JOBS) -> Verification:
    """Stage 1: the isolated checker over ``paths`` (files or folders), its certificates shared among ``jobs`` workers."""
    command = [sys.executable, "-I", "-S", "-c", BOOT, os.pathsep.join(_search_path()), "--max-work", str(max_work),
               "--jobs", str(jobs), *paths]
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
                obligations=item.get("obligations", []), reach=item.get("reach", ""), earned=str(item.get("earned", ""))))
        elif item.get("type") == "done":
            result.foreign_modules, finished = item.get("foreign_modules", []), True
    if not finished:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        result.error = f"the checker process stopped early (exit {done.returncode}): {last[:200]}"
    return result


BIND_BUDGET = 600.0  # seconds of a claim's own cost estimate at which binding a point is refused


def bind(path: str, claim_id: str, earned: str = "") -> tuple[bool, str]:
    """Stage 2 for one outcome file: its statement, point and obligations are the installed claim's own,
    and its status is the strongest its discharges ``earned`` (stage 1's word) unless the claim is open."""
    from solvers.trusted import parse
    from solvers.trusted.core import encode
    from theorems.core import ParameterError, registry

    try:
        record = parse.load(path, floats=True)
    except parse.Refused as exc:
        return False, f"cannot read the outcome again: {exc}"
    if not isinstance(record, dict):
        return False, "not an outcome record"
    try:
        claim = registry().get(claim_id)
    except Exception as exc:  # a broken plugin: the installed claims cannot be loaded
        return False, f"the installed claims cannot be loaded: {type(exc).__name__}: {str(exc)[:160]}"
    if claim is None:
        return False, f"no installed claim {claim_id[:80]!r}"
    if record.get("statement") != claim.statement_hash():
        return False, f"statement hash differs from the installed {claim.id}: the outcome is about another statement"
    try:
        point = claim.point(record.get("parameters") or {})
    except (ParameterError, TypeError, AttributeError) as exc:
        return False, f"parameters are not a point of {claim.id}: {str(exc)[:200]}"
    if encode(point) != record.get("parameters"):
        return False, "parameters are not written as the claim reads them"
    if claim.established == "open" and record.get("status") == "verified":
        return False, f"{claim.id} is an open conjecture: a check reports it unknown, never verified"
    why = record.get("unknown") if isinstance(record.get("unknown"), dict) else {}
    if (earned == "verified" and record.get("status") == "unknown" and claim.established != "open"
            and why.get("why") != "not established"):
        # an honest unknown beside full discharges is an open conjecture or a check that went wrong
        # ("not established": a failure without a certified refutation); anything else understates
        return False, (f"every verify obligation is discharged and {claim.id} is no open conjecture: "
                       "the outcome must say verified, not unknown")
    try:
        estimate = claim.cost(point)
        if estimate > BIND_BUDGET:
            return False, f"refused: {claim.id} at this point is estimated at {estimate:.0f} s, above {BIND_BUDGET:.0f} s"
        expected = claim.obligations(point).to_json()
    except Exception as exc:  # a claim's own code failing is a failed binding, never a traceback
        return False, f"{claim.id} could not state its obligations: {type(exc).__name__}: {str(exc)[:120]}"
    if expected != record.get("obligations"):
        return False, f"the obligations recorded differ from those {claim.id} states at this point"
    return True, "statement, point and obligations are the installed claim's"


def _seconds(path: str) -> float:
    """The seconds an outcome's check took, as its file records them: a weight for ordering the binding
    work only (a float that schedules, never decides); 0 when unreadable."""
    from solvers.trusted import parse

    try:
        return max(0.0, float(parse.load(path, floats=True).get("seconds", 0)))
    except (parse.Refused, AttributeError, TypeError, ValueError):
        return 0.0


def start_binding(jobs: int = JOBS) -> subprocess.Popen:
    """The stage 2 process, started while stage 1 runs: until it is sent the outcomes (after stage 1 has
    spoken) it only loads libraries (sympy, numpy), never a claim or a plugin."""
    return subprocess.Popen([sys.executable, "-c", BIND_BOOT, "--jobs", str(jobs)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


# ``python -m`` would put the working directory first on the path, where a numpy.py (or json.py) there would
# run while stage 1 reads; the registry adds that folder itself, with the plugins, after stage 1 and last
BIND_BOOT = ("import sys\nif not getattr(sys.flags, 'safe_path', False): del sys.path[0]  # '' (the working directory)\n"
             "import runpy; runpy.run_module('theorems.verification', run_name='__main__', alter_sys=True)")


def run_binding(checks: list[OutcomeCheck], jobs: int = JOBS, process: subprocess.Popen | None = None) -> None:
    """Stage 2 in a process of its own (``process``, from :func:`start_binding`, or a new one): the claims
    and plugins it imports never share a process with what stage 1 said (so none can alter how that is reported)."""
    todo = [c for c in checks if c.claim]
    for c in checks:
        if not c.claim:
            c.binding = "no claim named"
    process = process or start_binding(jobs)
    request = json.dumps([[c.path, c.claim, c.earned, _seconds(c.path)] for c in todo])
    try:
        stdout, _ = process.communicate(request)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    answers = {}
    for line in stdout.splitlines():
        try:
            path, bound, why = json.loads(line)
            answers[path] = (bound is True, str(why))
        except (ValueError, TypeError):
            continue
    for c in todo:
        c.bound, c.binding = answers.get(c.path, (False, f"the binding process gave no answer (exit {process.returncode})"))


def verify(paths: list[str], max_work: int = MAX_WORK, jobs: int = JOBS) -> Verification:
    """Both stages over ``paths``, each in processes of its own; the claims are imported only after stage 1."""
    binding = start_binding(jobs)
    try:
        result = run_checker(paths, max_work, jobs)
        run_binding(result.outcomes, jobs, binding)
    finally:
        if binding.poll() is None:  # interrupted: never left running
            binding.kill()
            binding.wait()
    return result


def _shown(path: str, roots: list[str]) -> str:
    """``path`` relative to the outcome folder (a PATH given to verify) that holds it, as given otherwise."""
    real = os.path.realpath(path)
    for root in roots:
        base = os.path.realpath(root)
        if os.path.isdir(base) and os.path.commonpath([real, base]) == base:
            return os.path.relpath(real, base)
    return path


def _point(check: OutcomeCheck, roots: list[str]) -> str:
    """An outcome's name: ``claim [point folder]`` (the folder slug says which parameters differ from the defaults)."""
    slug = os.path.basename(os.path.dirname(check.path))
    return f"{check.claim or _shown(check.path, roots)} [{slug}]"


def lines(result: Verification, roots: list[str], details: bool = False) -> list[str]:
    """What ``attnproof verify`` prints: one summary line per outcome, then the certificates of no outcome.

    Each outcome line says its status, whether it stands, how many of its
    certificates the checker accepted and how many of its obligations they
    discharge.  Under it: every certificate and obligation with ``details``,
    otherwise only what went wrong.  Certificate names are relative to the
    outcome folder, so two lines never look alike.
    """
    by_folder: dict[str, list[dict]] = {}
    for line in result.certificates:
        by_folder.setdefault(os.path.dirname(os.path.realpath(line["path"])), []).append(line)
    out = ["stage 1: the trusted checker (its own process: standard library and python-flint only); "
           "stage 2: the binding of each outcome to the installed claim"]
    for check in result.outcomes:
        folder = os.path.dirname(os.path.realpath(check.path))
        certs = by_folder.pop(folder, [])
        accepted = sum(1 for c in certs if c["status"] == "accepted")
        verify = [o for o in check.obligations if o["side"] == "verify"]
        refute = [o for o in check.obligations if o["side"] == "refute"]
        done = sum(1 for o in verify if o["by"])
        refuted_by = [o["by"] for o in refute if o["by"]]
        if refuted_by:
            rests = f"refuted by {refuted_by[0]}" if check.status == "refuted" else f"a refute obligation is discharged by {refuted_by[0]}"
        elif check.status == "refuted":
            rests = f"0 of {len(refute)} refute obligation(s) discharged"
        else:
            rests = f"{done} of {len(verify)} verify obligation(s) discharged"
        if check.ok:
            out.append(f"{_point(check, roots)}: {check.status} stands -- {accepted} of {len(certs)} certificate(s) accepted; {rests}")
        else:
            # the reason first; what the checker accepted as data comes after, never as if it were the outcome
            why = check.reason if not check.checked else f"binding (stage 2): {check.binding}"
            out.append(f"{_point(check, roots)}: {check.status or '?'} DOES NOT STAND -- {why}")
            out.append(f"  what its files hold: {accepted} of {len(certs)} certificate(s) accepted by the checker as data "
                       f"(each proves its own judgment only); {rests}")
        for c in certs:
            name = os.path.basename(c["path"])
            if c["status"] == "accepted":
                if details:
                    out.append(f"  accepted  {name}: {c['summary']}")
            else:
                out.append(f"  {c['status']}  {_shown(c['path'], roots)}: {c['reason']}")
        relevant = {"verified": "verify", "refuted": "refute"}.get(check.status)
        for o in check.obligations:
            missing = o["side"] == "verify" and not o["by"] and relevant == "verify"
            if details or missing:
                mark = f"discharged by {o['by']}" if o["by"] else "MISSING" if missing else "not discharged"
                out.append(f"  {o['side']:<7} {o['words']}  -- {mark}")
        if details or not (check.bound or check.ok or check.checked):  # a failed binding alone is on the outcome's line
            out.append(f"  binding (stage 2): {check.binding}")
    loose = [c for folder in sorted(by_folder) for c in by_folder[folder]]
    if loose:
        out.append("certificates of no outcome file:")
    for c in loose:
        said = c["summary"] if c["status"] == "accepted" else c["reason"]
        out.append(f"  {c['status']}  {_shown(c['path'], roots)}: {said}")
    if result.foreign_modules:
        out.append(f"warning: the checker process loaded modules outside the standard library: {', '.join(result.foreign_modules)}")
    accepted = sum(1 for c in result.certificates if c["status"] == "accepted")
    standing = sum(1 for o in result.outcomes if o.ok)
    if result.ok:
        out.append(f"{accepted} of {len(result.certificates)} certificate(s) accepted; {standing} of {len(result.outcomes)} outcome(s) stand")
    else:
        # what stands first: certificates accepted as data are not outcomes accepted
        failing = len(result.outcomes) - standing
        out.append(f"NOT VERIFIED: {standing} of {len(result.outcomes)} outcome(s) stand ({failing} do{'es' if failing == 1 else ''} not); "
                   f"{accepted} of {len(result.certificates)} certificate(s) accepted by the checker as data"
                   + (f", {len(result.certificates) - accepted} not" if accepted < len(result.certificates) else ""))
    return out


def _bind_one(item: list) -> list:
    """``[path, bound, why]`` for one ``[path, claim, earned]``; never raises."""
    path, claim, earned = item
    try:
        return [path, *bind(path, claim, earned)]
    except Exception as exc:  # never a traceback: a failed binding
        return [path, False, f"binding failed: {type(exc).__name__}: {str(exc)[:160]}"]


def _worker_start(parent: int) -> None:
    """A binding worker is sent SIGTERM when the binding process dies (on Linux): killed by verify when it
    is interrupted, it must not leave its workers waiting for work that never comes."""
    import signal

    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (ImportError, OSError, AttributeError):
        pass  # elsewhere the pool's own clean-up stops them
    if os.getppid() != parent:  # it died before the line above
        os._exit(1)


def _warm() -> None:
    """The libraries every binding needs (sympy renders statements, numpy runs searches), loaded while
    stage 1 still runs.  Libraries only: no claim or plugin is imported before the request arrives."""
    try:
        import numpy  # noqa: F401
        import sympy  # noqa: F401
    except Exception:  # a broken install is reported by the binding itself
        pass


def _binding_main(argv: list[str]) -> int:
    """``python -m theorems.verification [--jobs N]``: read ``[[path, claim, earned, seconds], ...]`` on stdin,
    answer one JSON line ``[path, bound, why]`` each.  With N > 1 the claims are imported once, then N forked
    workers take the outcomes one at a time, longest recorded check first (a worker that dies leaves only
    its outcome unanswered)."""
    import gc

    jobs = int(argv[1]) if len(argv) == 2 and argv[0] == "--jobs" else 1
    _warm()
    text = sys.stdin.read()
    request = json.loads(text) if text.strip() else []
    request.sort(key=lambda item: -float(item[3]))
    items = [item[:3] for item in request]
    if jobs <= 1 or len(items) < 2 or not hasattr(os, "fork"):
        for item in items:
            print(json.dumps(_bind_one(item)), flush=True)
        return 0
    from theorems.core import registry

    try:
        registry()  # imported once, before the fork; a failure is reported per outcome by bind
    except Exception:
        pass
    gc.freeze()  # the imported modules stay: no collection walks them again, and forked workers share their pages
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    failed, fork, unanswered = False, multiprocessing.get_context("fork"), []
    with ProcessPoolExecutor(min(jobs, len(items)), mp_context=fork, initializer=_worker_start, initargs=(os.getpid(),)) as pool:
        futures = [pool.submit(_bind_one, item) for item in items]
        for item, future in zip(items, futures):
            try:
                print(json.dumps(future.result()), flush=True)
            except Exception:  # a worker died (killed, out of memory): the pool fails every outcome it had not answered
                unanswered.append(item)
    for item in unanswered:  # so each is bound again alone: only one whose binding ends its own process goes unanswered
        with ProcessPoolExecutor(1, mp_context=fork, initializer=_worker_start, initargs=(os.getpid(),)) as alone:
            try:
                answer = alone.submit(_bind_one, item).result()
            except Exception:
                answer, failed = [item[0], False, "the binding's process stopped early (killed, or out of memory)"], True
        print(json.dumps(answer), flush=True)
    return int(failed)


if __name__ == "__main__":
    sys.exit(_binding_main(sys.argv[1:]))
