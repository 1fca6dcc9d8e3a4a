"""``python -I -S -m solvers.trusted [--max-work N] PATH ...``: the checker as its own process.

Read top-down, the pipeline is: find files -> bounded parse -> per-kind
check -> judgment -> discharge of each outcome's obligations -> summary.
Every result is one JSON line on stdout; the caller renders them.  Each
file ends ``accepted``, ``REJECTED`` (it does not prove what it says) or
``REFUSED`` (too large, malformed, not a regular file); a bad file never
stops the run.  Only the standard library, python-flint and this package
are imported: the last line lists any other module that got loaded.
"""

from __future__ import annotations

import json
import os
import sys

from solvers.trusted import families  # noqa: F401  (registers every kind)
from solvers.trusted.core import MAX_WORK, CertificateError, Refused, check
from solvers.trusted.parse import load
from solvers.trusted.verdicts import verdict

CERT_SUFFIX = ".cert.json"
OUTCOME = "outcome.json"
MEMORY = 8 * 1024**3  # bytes of address space the checker may use


def files(paths: list[str]) -> tuple[list[str], list[str]]:
    """The certificate files and outcome files under ``paths`` (folders are walked, links not followed)."""
    certs, outcomes = [], []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()
                for n in sorted(names):
                    (certs if n.endswith(CERT_SUFFIX) else outcomes if n == OUTCOME else []).append(os.path.join(root, n))
        else:
            (outcomes if os.path.basename(path) == OUTCOME else certs).append(path)
    return certs, outcomes


def certificate(path: str, max_work: int) -> tuple[dict, tuple]:
    """Check one file; never raises."""
    line = {"type": "certificate", "path": path}
    try:
        cert = load(path)
        accepted = check(cert, max_work)
    except Refused as exc:
        return line | {"status": "REFUSED", "reason": str(exc)}, ("refused", None, None)
    except CertificateError as exc:
        return line | {"status": "REJECTED", "reason": str(exc)}, ("rejected", None, None)
    except MemoryError:
        return line | {"status": "REFUSED", "reason": f"needs more than {MEMORY >> 30} GiB"}, ("refused", None, None)
    except Exception as exc:  # a kind that failed to validate its input: refused, and the run goes on
        return line | {"status": "REJECTED", "reason": f"the checker failed on this input ({type(exc).__name__})"}, ("rejected", None, None)
    line |= {"status": "accepted", "summary": accepted.summary, "judgment": accepted.judgment, "kind": cert["kind"], "claim": cert["claim"]}
    return line, ("accepted", cert, accepted.judgment)


def main(argv: list[str]) -> int:
    max_work = MAX_WORK
    if len(argv) >= 2 and argv[0] == "--max-work":
        max_work, argv = int(argv[1]), argv[2:]
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    except (ImportError, ValueError, OSError):
        pass  # not every platform lets a process cap itself
    certs, outcomes = files(argv)
    results, ok = {}, True
    for path in certs:
        line, result = certificate(path, max_work)
        results[os.path.realpath(path)] = result
        ok &= line["status"] == "accepted"
        print(json.dumps(line, sort_keys=True), flush=True)
    for path in outcomes:
        try:
            record = load(path, floats=True)  # its wall-clock seconds
            line = verdict(path, record, results)
        except Refused as exc:
            line = {"type": "outcome", "path": path, "ok": False, "reason": f"REFUSED: {exc}", "obligations": []}
        except (MemoryError, Exception) as exc:  # a malformed record never ends the run
            line = {"type": "outcome", "path": path, "ok": False, "obligations": [],
                    "reason": f"REFUSED: the checker failed on this record ({type(exc).__name__})"}
        ok &= line["ok"]
        print(json.dumps(line, sort_keys=True), flush=True)
    # python-flint's Cython runtime registers "cython_runtime" and "_cython_*" modules of its own
    loaded = sorted(name for name in {n.partition(".")[0] for n in sys.modules} - set(sys.stdlib_module_names)
                    if name not in ("__main__", "flint", "solvers", "cython_runtime") and not name.startswith("_cython_"))
    print(json.dumps({"type": "done", "ok": ok, "foreign_modules": loaded}), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
