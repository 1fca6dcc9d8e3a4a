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

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

import solvers
from solvers.trusted.core import MAX_WORK

JOBS = max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))
# the standard library first on the path, the package and python-flint's folder after it: a fractions.py
# (or json.py) installed beside flint is never found before the standard library's own
BOOT = "import sys, runpy; sys.path += sys.argv[1].split(__import__('os').pathsep); del sys.argv[1]; runpy.run_module('solvers.trusted', run_name='__main__', alter_sys=True)"


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
    sha256: str = ""  # of the outcome file's bytes as stage 1 judged them (stage 2 binds those bytes)
    point: str = ""  # the outcome's own point, named by the binding from its parameters ("default", "m=5")
    rests_on: str = ""  # code outside the package the binding ran ("plugin code: conjectures/x.py, sha256 ..."), or ""

    @property
    def ok(self) -> bool:
        return self.checked and self.bound


@dataclass
class Verification:
    certificates: list = field(default_factory=list)  # the checker's lines, one per file
    outcomes: list = field(default_factory=list)  # OutcomeCheck
    foreign_modules: list = field(default_factory=list)  # names of modules stage 1 loaded from outside what it may
    foreign_files: list = field(default_factory=list)  # their files: a stdlib name found elsewhere, say
    error: str = ""

    @property
    def ok(self) -> bool:
        # a checker that ran foreign code (a json.py found before the standard library's) has not spoken
        return (not self.error and not self.foreign_modules and not self.foreign_files
                and all(c["status"] == "accepted" for c in self.certificates)
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
                obligations=item.get("obligations", []), reach=item.get("reach", ""), earned=str(item.get("earned", "")),
                sha256=str(item.get("sha256", ""))))
        elif item.get("type") == "done":
            result.foreign_modules, finished = item.get("foreign_modules", []), True
            result.foreign_files = item.get("foreign_files", [])
    if not finished:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        result.error = f"the checker process stopped early (exit {done.returncode}): {last[:200]}"
    return result


BIND_BUDGET = 600.0  # seconds of a claim's own cost estimate at which binding a point is refused


def _read_judged(path: str, sha256: str) -> bytes:
    """The outcome file's bytes, refused (ValueError) unless they are those stage 1 judged (``sha256``):
    a file restored or rewritten between the stages is not bound."""
    from solvers.trusted import parse

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise ValueError(f"cannot read the outcome again: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        raw = handle.read(parse.MAX_BYTES + 1)
    if not sha256 or hashlib.sha256(raw).hexdigest() != sha256:
        raise ValueError("the outcome file is not the one the checker judged (it changed between the stages)")
    return raw


def bind(path: str, claim_id: str, earned: str = "", sha256: str = "", claims: dict | None = None) -> tuple[bool | None, str, str]:
    """Stage 2 for one outcome file: ``(bound, why, point)``.  Its bytes are those stage 1 judged, its
    statement, point and obligations are the installed claim's own, its folder is named by its point, and
    its status is the strongest its discharges ``earned`` (stage 1's word) unless the claim is open.
    ``claims``: the claims this binding process speaks for; ``bound`` is None when ``claim_id`` is not one."""
    from solvers.trusted import parse
    from solvers.trusted.core import encode
    from theorems.core import ParameterError, slug
    from theorems.terminal import printable

    claim = (claims or {}).get(claim_id)
    if claim is None:
        return None, f"no installed claim {claim_id[:80]!r}", ""
    try:
        record = parse.loads(_read_judged(path, sha256), floats=True)
    except (ValueError, parse.Refused) as exc:
        return False, str(exc), ""
    if not isinstance(record, dict):
        return False, "not an outcome record", ""
    if record.get("statement") != claim.statement_hash():
        return False, f"statement hash differs from the installed {claim.id}: the outcome is about another statement", ""
    try:
        point = claim.point(record.get("parameters") or {})
    except (ParameterError, TypeError, AttributeError) as exc:
        return False, f"parameters are not a point of {claim.id}: {str(exc)[:200]}", ""
    if encode(point) != record.get("parameters"):
        return False, "parameters are not written as the claim reads them", ""
    name = slug(point, claim)
    if claim.established == "open" and record.get("status") == "verified":
        return False, f"{claim.id} is an open conjecture: a check reports it unknown, never verified", name
    why = record.get("unknown") if isinstance(record.get("unknown"), dict) else {}
    if (earned == "verified" and record.get("status") == "unknown" and claim.established != "open"
            and why.get("why") != "not established"):
        # an honest unknown beside full discharges is an open conjecture or a check that went wrong
        # ("not established": a failure without a certified refutation); anything else understates
        return False, (f"every verify obligation is discharged and {claim.id} is no open conjecture: "
                       "the outcome must say verified, not unknown"), name
    try:
        estimate = claim.cost(point)
        if estimate > BIND_BUDGET:
            return False, f"refused: {claim.id} at this point is estimated at {estimate:.0f} s, above {BIND_BUDGET:.0f} s", name
        expected = claim.obligations(point).to_json()
    except Exception as exc:  # a claim's own code failing is a failed binding, never a traceback
        return False, f"{claim.id} could not state its obligations: {type(exc).__name__}: {str(exc)[:120]}", name
    if expected != record.get("obligations"):
        return False, f"the obligations recorded differ from those {claim.id} states at this point", name
    # last: a folder renamed is named by the outcome's own point, which every check above has bound
    folder, claim_folder = os.path.basename(os.path.dirname(path)), os.path.basename(os.path.dirname(os.path.dirname(path)))
    if folder != name or claim_folder != claim.id:
        return False, (f"the outcome is {claim.id} at the point {name!r}, but its folder is "
                       f"{printable(claim_folder)}/{printable(folder)}"), name
    return True, "statement, point and obligations are the installed claim's", name


def _seconds(path: str) -> float:
    """The seconds an outcome's check took, as its file records them: a weight for ordering the binding
    work only (a float that schedules, never decides); 0 when unreadable."""
    from solvers.trusted import parse

    try:
        return max(0.0, float(parse.load(path, floats=True).get("seconds", 0)))
    except (parse.Refused, AttributeError, TypeError, ValueError):
        return 0.0


BUILTIN = "builtin"  # theorems.registry.BUILTIN, without importing the registry here


@dataclass
class Binding:
    """A binding process for one scope: the package's own claims (:data:`BUILTIN`) or one plugin's.
    It answers on a pipe of its own (``answers``), each line led by a per-run nonce: what any code it
    imports prints to stdout or stderr is never read as an answer."""

    process: subprocess.Popen
    answers: int  # the read end of the answer pipe
    nonce: str
    scope: str


def start_binding(jobs: int = JOBS, scope: str = BUILTIN) -> Binding:
    """A stage 2 process, started while stage 1 runs: until it is sent the outcomes (after stage 1 has
    spoken) it only loads libraries (sympy, numpy), never a claim or a plugin."""
    import secrets
    import tempfile

    read, write = os.pipe()
    try:
        process = subprocess.Popen([sys.executable, "-c", BIND_BOOT, "--answers", str(write), "--jobs", str(jobs)],
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=tempfile.TemporaryFile(),
                                   pass_fds=(write,), text=True)
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    return Binding(process, read, secrets.token_hex(16), scope)


def _stop(binding: Binding) -> None:
    if binding.process.poll() is None:
        binding.process.kill()
    binding.process.wait()
    try:
        os.close(binding.answers)
    except OSError:
        pass


def _ask(binding: Binding, checks: list[OutcomeCheck]) -> tuple[dict, dict]:
    """Send ``checks`` to a binding process; ``({path: (bound, why, point)}, {"origin", "file", "sha256"} of
    the plugin it imported, or {})``.  Only lines of the answer pipe that carry the nonce are read."""
    request = {"nonce": binding.nonce, "scope": binding.scope,
               "items": [[c.path, c.claim, c.earned, _seconds(c.path), c.sha256] for c in checks]}
    try:
        try:
            binding.process.stdin.write(json.dumps(request))
            binding.process.stdin.close()
        except (BrokenPipeError, OSError):
            pass  # it died before reading: every outcome goes unanswered
        with os.fdopen(os.dup(binding.answers), "rb") as pipe:
            raw = pipe.read()
    finally:
        _stop(binding)
    answers, plugin, lead = {}, {}, binding.nonce + " "
    for line in raw.decode("utf-8", "replace").splitlines():
        if not line.startswith(lead):
            continue
        try:
            item = json.loads(line[len(lead):])
            if isinstance(item, dict):
                plugin = {key: str(item.get(key, "")) for key in ("origin", "file", "sha256")}
            else:
                path, bound, why, point = item
                answers[path] = (bound if bound in (True, False) else None, str(why), str(point))
        except (ValueError, TypeError):
            continue
    return answers, plugin


def run_binding(checks: list[OutcomeCheck], jobs: int = JOBS, process: Binding | None = None) -> None:
    """Stage 2.  The package's own claims are bound in a process that imports no plugin at all
    (``process``, from :func:`start_binding`, or a new one); each outcome of no built-in claim in a process
    that imports one plugin alone, one process per plugin, whose answer counts only for a claim id that is
    not built in and that no other plugin answers for.  So a plugin can at most misstate its own claims,
    and an outcome bound by plugin code says so (``rests_on``)."""
    from theorems import registry as registration

    todo = [c for c in checks if c.claim]
    for c in checks:
        if not c.claim:
            c.binding = "no claim named"
    builtin = process or start_binding(jobs)
    answers, _ = _ask(builtin, todo)
    rest = []
    for c in todo:
        bound, why, point = answers.get(c.path, (False, f"the binding process gave no answer (exit {builtin.process.returncode})", ""))
        if bound is None:
            rest.append(c)
        c.bound, c.binding, c.point = bool(bound), why, point
    if not rest:
        return
    try:
        origins = registration.plugin_origins()
    except Exception as exc:  # a malformed [tool.attnproof]: the plugins cannot be found
        for c in rest:
            c.binding = f"{c.binding}; the plugins cannot be found: {type(exc).__name__}: {str(exc)[:160]}"
        return
    bindings = [start_binding(jobs, origin) for origin in origins]  # they load their libraries side by side
    heard: dict[str, list] = {c.path: [] for c in rest}
    for binding in bindings:
        said, plugin = _ask(binding, rest)
        for c in rest:
            if c.path in said and said[c.path][0] is not None:
                heard[c.path].append((said[c.path], plugin))
            elif c.path in said and not heard[c.path] and said[c.path][1] != c.binding:
                c.binding = said[c.path][1]  # a plugin that failed to load says why
    for c in rest:
        if len(heard[c.path]) > 1:
            c.binding = f"two plugins answer for {c.claim}: {', '.join(p.get('origin', '?') for _, p in heard[c.path])}"
        elif heard[c.path]:
            (bound, why, point), plugin = heard[c.path][0]
            c.bound, c.binding, c.point = bound, why, point
            c.rests_on = f"plugin code: {plugin.get('origin', '?')}, sha256 {plugin.get('sha256', '?')[:16]}"


# ``python -m`` would put the working directory first on the path, where a numpy.py (or json.py) there would
# run while stage 1 reads; the registry adds that folder itself, with the plugins, after stage 1 and last
BIND_BOOT = ("import sys\nif not getattr(sys.flags, 'safe_path', False): del sys.path[0]  # '' (the working directory)\n"
             "import runpy; runpy.run_module('theorems.verification', run_name='__main__', alter_sys=True)")


def _unchanged(result: Verification) -> None:
    """Stage 1's certificates are still the bytes it judged once stage 2 is done (stage 2 ran claim and
    plugin code): a file rewritten in between is rejected, and so its outcome does not stand."""
    for line in result.certificates:
        if line.get("status") == "accepted" and line.get("sha256"):
            try:
                with open(line["path"], "rb") as handle:
                    same = hashlib.sha256(handle.read()).hexdigest() == line["sha256"]
            except OSError:
                same = False
            if not same:
                line.update(status="REJECTED", reason="the file changed after the checker accepted it")
                for check in result.outcomes:
                    if os.path.dirname(os.path.realpath(check.path)) == os.path.dirname(os.path.realpath(line["path"])):
                        check.checked, check.reason = False, f"{os.path.basename(line['path'])} changed after the checker accepted it"


def verify(paths: list[str], max_work: int = MAX_WORK, jobs: int = JOBS) -> Verification:
    """Both stages over ``paths``, each in processes of its own; the claims are imported only after stage 1."""
    binding = start_binding(jobs)
    try:
        result = run_checker(paths, max_work, jobs)
        run_binding(result.outcomes, jobs, binding)
        _unchanged(result)
    finally:
        if binding.process.poll() is None:  # interrupted: never left running
            _stop(binding)
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
    """An outcome's name: ``claim [point]``, the point named from the outcome's own parameters (the binding's
    name for it: the parameters that differ from the claim's defaults, or "default"); when the binding could
    not name it, every parameter the file records.  Never the folder's name: folders can be renamed."""
    from theorems.terminal import printable

    point = check.point or ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(check.parameters.items())) or "no parameters"
    return printable(f"{check.claim or _shown(check.path, roots)} [{point}]")


def lines(result: Verification, roots: list[str], details: bool = False) -> list[str]:
    """What ``attnproof verify`` prints: one summary line per outcome, then the certificates of no outcome.

    Each outcome line says its status, whether it stands, how many of its
    certificates the checker accepted and how many of its obligations they
    discharge.  Under it: every certificate and obligation with ``details``,
    otherwise only what went wrong.  Certificate names are relative to the
    outcome folder, so two lines never look alike.
    """
    from theorems.judgments import words
    from theorems.terminal import printable

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
        if not check.obligations:  # the checker stopped before reading them: nothing was counted
            rests = "its obligations were not examined"
        elif refuted_by:
            rests = f"refuted by {refuted_by[0]}" if check.status == "refuted" else f"a refute obligation is discharged by {refuted_by[0]}"
        elif check.status == "refuted":
            rests = f"0 of {len(refute)} refute obligation(s) discharged"
        else:
            rests = f"{done} of {len(verify)} verify obligation(s) discharged"
        if check.ok:
            out.append(f"{_point(check, roots)}: {check.status} stands -- {accepted} of {len(certs)} certificate(s) accepted; {rests}")
            if check.rests_on:
                out.append(f"  rests on {check.rests_on}")
        else:
            # the reason first; what the checker accepted as data comes after, never as if it were the outcome
            why = check.reason if not check.checked else f"binding (stage 2): {check.binding}"
            failed = [c for c in certs if c["status"] != "accepted"]
            # refused for its work only (every certificate not accepted was REFUSED for --max-work): not judged,
            # so not "does not stand" -- the outcome may well stand with a larger --max-work
            verdict = ("NOT JUDGED (refused: raise --max-work)" if failed and not check.checked
                       and all(c["status"] == "REFUSED" and "--max-work" in str(c.get("reason")) for c in failed)
                       else "DOES NOT STAND")
            out.append(f"{_point(check, roots)}: {check.status or '?'} {verdict} -- {why}")
            out.append(f"  what its files hold: {accepted} of {len(certs)} certificate(s) accepted by the checker as data "
                       f"(each proves its own judgment only); {rests}")
        for c in certs:
            name = os.path.basename(c["path"])
            if c["status"] == "accepted":
                if details:
                    out.append(f"  accepted  {name}: {c['summary']}")
            else:
                out.append(f"  {c['status']}  {_shown(c['path'], roots)}: {c['reason']}")
        for o in check.obligations:
            # MISSING only under a verified status, which needs every verify obligation; an unknown or a refuted
            # one does not (a refute obligation not discharged under "refuted" is counted on the outcome's line)
            missing = o["side"] == "verify" and not o["by"] and check.status == "verified"
            if details or missing:
                mark = f"discharged by {o['by']}" if o["by"] else "MISSING" if missing else "not discharged"
                # the judgment in words rendered from its fields: the claim's own free text could say another length
                out.append(f"  {o['side']:<7} {words(o['judgment']) if isinstance(o.get('judgment'), dict) else o['words']}  -- {mark}")
        if details or not (check.bound or check.ok or check.checked):  # a failed binding alone is on the outcome's line
            out.append(f"  binding (stage 2): {check.binding}")
    loose = [c for folder in sorted(by_folder) for c in by_folder[folder]]
    if loose:
        out.append("certificates of no outcome file:")
    for c in loose:
        said = c["summary"] if c["status"] == "accepted" else c["reason"]
        out.append(f"  {c['status']}  {_shown(c['path'], roots)}: {said}")
    if result.foreign_modules or result.foreign_files:
        out.append("NOT VERIFIED: the checker process loaded code from outside the standard library, python-flint and "
                   f"solvers/trusted: {', '.join(result.foreign_modules + result.foreign_files)}")
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
    return [printable(line) for line in out]


_CLAIMS: dict = {}  # the claims this binding process speaks for (its scope's), set before its workers fork


def _bind_one(item: list) -> list:
    """``[path, bound, why, point]`` for one ``[path, claim, earned, sha256]``; never raises."""
    path, claim, earned, sha256 = item
    try:
        return [path, *bind(path, claim, earned, sha256, _CLAIMS)]
    except Exception as exc:  # never a traceback: a failed binding
        return [path, False, f"binding failed: {type(exc).__name__}: {str(exc)[:160]}", ""]


def _load_scope(scope: str) -> tuple[dict, str, dict]:
    """The claims of ``scope`` (the package's own, or one plugin's alone), why they cannot be loaded (or ""),
    and for a plugin its origin, file and the file's sha256, read before the plugin is imported."""
    from theorems import registry as registration
    from theorems.core import _validate

    plugin = {}
    if scope != BUILTIN:
        kind, _, name = scope.partition(":")
        shown = {"file": f"{registration.CONJECTURES_FOLDER}/{name}", "module": f"[tool.attnproof] {name}",
                 "entry": f"entry point {name}", "env": f"{registration.MODULES_VARIABLE} module {name}"}
        plugin = {"origin": shown.get(kind, scope), "file": "", "sha256": ""}
        try:
            project = registration.find_project()
            if kind == "file" and project.folder:
                file = os.path.join(project.folder, name)
            else:
                if kind == "entry":
                    from importlib import metadata

                    name = next(e.value for e in metadata.entry_points(group=registration.ENTRY_POINT_GROUP) if e.name == name)
                    name = name.partition(":")[0].strip()
                if kind == "module":
                    registration._on_path(project.root)
                import importlib.util

                file = importlib.util.find_spec(name).origin
            with open(file, "rb") as handle:
                plugin.update(file=file, sha256=hashlib.sha256(handle.read()).hexdigest())
        except Exception:
            pass  # the import below says what is wrong
    try:
        claims = {c.id: c for c in registration.discover(_validate, scope=scope)}
    except BaseException as exc:  # a broken plugin: its claims cannot be loaded (never a traceback, never an exit)
        return {}, f"{type(exc).__name__}: {str(exc)[:160]}", plugin
    return claims, "", plugin


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
    """``python -m theorems.verification --answers FD [--jobs N]``: read ``{"nonce", "scope", "items": [[path,
    claim, earned, seconds, sha256], ...]}`` on stdin, import the claims of that scope alone, and answer one
    line ``NONCE [path, bound, why, point]`` each on the file descriptor FD (never stdout, where imported
    code may print); ``bound`` is null for an outcome of a claim outside the scope.  A plugin scope first
    answers ``NONCE {"origin", "file", "sha256"}``.  With N > 1 the claims are imported once, then N forked
    workers take the outcomes one at a time, longest recorded check first (a worker that dies leaves only
    its outcome unanswered)."""
    import gc

    options = dict(zip(argv[::2], argv[1::2]))
    jobs, fd = int(options.get("--jobs", 1)), int(options["--answers"])
    _warm()
    text = sys.stdin.read()
    request = json.loads(text) if text.strip() else {"nonce": "", "scope": BUILTIN, "items": []}
    nonce, scope = str(request["nonce"]), str(request["scope"])

    def answer(item) -> None:
        data = (nonce + " " + json.dumps(item) + "\n").encode()
        while data:
            data = data[os.write(fd, data):]

    items = sorted(request["items"], key=lambda item: -float(item[3]))
    items = [[path, claim, earned, sha256] for path, claim, earned, _, sha256 in items]
    global _CLAIMS
    _CLAIMS, broken, plugin = _load_scope(scope)
    if plugin:
        answer(plugin)
    if broken:
        where = "the installed claims" if scope == BUILTIN else f"the plugin {scope}"
        for path, claim, _, _ in items:
            answer([path, False if scope == BUILTIN else None, f"{where} cannot be loaded: {broken}", ""])
        return 0
    if jobs <= 1 or len(items) < 2 or not hasattr(os, "fork"):
        for item in items:
            answer(_bind_one(item))
        return 0
    gc.freeze()  # the imported modules stay: no collection walks them again, and forked workers share their pages
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    failed, fork, unanswered = False, multiprocessing.get_context("fork"), []
    with ProcessPoolExecutor(min(jobs, len(items)), mp_context=fork, initializer=_worker_start, initargs=(os.getpid(),)) as pool:
        futures = [pool.submit(_bind_one, item) for item in items]
        for item, future in zip(items, futures):
            try:
                answer(future.result())
            except Exception:  # a worker died (killed, out of memory): the pool fails every outcome it had not answered
                unanswered.append(item)
    for item in unanswered:  # so each is bound again alone: only one whose binding ends its own process goes unanswered
        with ProcessPoolExecutor(1, mp_context=fork, initializer=_worker_start, initargs=(os.getpid(),)) as alone:
            try:
                said = alone.submit(_bind_one, item).result()
            except Exception:
                said, failed = [item[0], False, "the binding's process stopped early (killed, or out of memory)", ""], True
        answer(said)
    return int(failed)


if __name__ == "__main__":
    sys.exit(_binding_main(sys.argv[1:]))
