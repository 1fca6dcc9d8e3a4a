"""The runner: ``python -I -S -m solvers.trusted [--max-work N] [--jobs N] PATH ...`` as a process.

**It decides nothing.**  Every line it prints about a file is the line the core made for it
(:func:`solvers.trusted.core.certificate` for a certificate, :func:`solvers.trusted.verdicts.outcome`
for an outcome), printed as made; it walks the folders, shares the certificates among
worker processes, caps the memory, and checks what got imported.  None of that can make a file
accepted or an outcome stand: it can only make the whole run fail (a foreign module loaded, a
worker killed).  A reader of a verdict may skip it: ``tests/solvers/trusted/test_runner.py``
checks that its lines equal those of the core called in one process, without it, on a default run.

The pipeline, top-down: find files -> bounded parse -> per-kind check -> judgment -> discharge
of each outcome's obligations -> summary.  Every result is one JSON line on stdout; the caller
renders them.  Each
file ends ``accepted``, ``REJECTED`` (it does not prove what it says) or
``REFUSED`` (too large, malformed, not a regular file); a bad file never
stops the run.  Only the standard library, python-flint and this package
are imported: the last line lists any other module that got loaded, by name
(``foreign_modules``) and by file (``foreign_files``: a module whose file lies
outside the interpreter's standard library, python-flint's folder and this
package, say a ``json.py`` found first on the path), and is then not ``ok``.

With ``--jobs N`` (N > 1) the certificates are shared among N worker
processes forked from this one (the same code and limits, each file checked
alone, as without workers); this process prints every line in file order and
then discharges the outcomes, so nothing but the work is divided.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import sys
import sysconfig

import flint

from solvers.trusted import limits
from solvers.trusted.core import MAX_WORK, certificate
from solvers.trusted.verdicts import outcome

CERT_SUFFIX = ".cert.json"
OUTCOME = "outcome.json"
MEMORY = 8 * 1024**3  # bytes of address space a process of the checker may use, at most
memory = MEMORY  # what main() sets from the machine's RAM (a forked worker inherits the cap; limits.memory, for messages)


def files(paths: list[str]) -> tuple[list[str], list[str]]:
    """The certificate files and outcome files under ``paths`` (folders are walked, links not followed)."""
    certs, outcomes = [], []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()
                # a folder (or a link to one) named as a certificate or an outcome is listed too: refused when read
                for n in sorted(names + [d for d in dirs if d == OUTCOME or d.endswith(CERT_SUFFIX)]):
                    (certs if n.endswith(CERT_SUFFIX) else outcomes if n == OUTCOME else []).append(os.path.join(root, n))
        else:
            (outcomes if os.path.basename(path) == OUTCOME else certs).append(path)
    return certs, outcomes


_HERE = os.path.dirname(os.path.realpath(__file__))  # solvers/trusted; solvers/__init__.py is loaded too
_STDLIB = tuple({os.path.realpath(sysconfig.get_paths()[key]) + os.sep for key in ("stdlib", "platstdlib")})
_INSTALLED = tuple(root + folder + os.sep for root in _STDLIB for folder in ("site-packages", "dist-packages"))
_OURS = (_HERE + os.sep, os.path.dirname(os.path.realpath(flint.__file__)) + os.sep)


@functools.cache
def _ours(file: str) -> bool:
    """A module file of the standard library (not of what is installed beside it), python-flint or this package."""
    real = os.path.realpath(file)
    return (real.startswith(_OURS) or real == os.path.join(os.path.dirname(_HERE), "__init__.py")
            or (real.startswith(_STDLIB) and not real.startswith(_INSTALLED)))


def foreign() -> tuple[set[str], set[str]]:
    """Modules loaded here that are not the standard library, flint or this package: by top-level name
    (python-flint's Cython runtime registers "cython_runtime" and "_cython_*" modules of its own, sysconfig
    reads the build's "_sysconfigdata_*"; a worker knows this module as "__mp_main__" too), and by file,
    wherever the name (say ``json``) is a standard one."""
    names = {name for name in {n.partition(".")[0] for n in sys.modules} - set(sys.stdlib_module_names)
             if name not in ("__main__", "__mp_main__", "flint", "solvers", "cython_runtime")
             and not name.startswith(("_cython_", "_sysconfigdata_"))}
    files = {getattr(module, "__file__", None) for module in list(sys.modules.values())}
    return names, {file for file in files if isinstance(file, str) and not _ours(file)}


def _in_worker(paths: list[str], max_work: int) -> dict:
    """Files checked in a worker: ``{path: (line, result, foreign modules there)}`` (the last line lists them)."""
    lines = {path: certificate(path, max_work) for path in paths}
    found = foreign()
    return {path: (*lines[path], found) for path in paths}


def _size(path: str) -> int:
    """A file's size in bytes (0 when it cannot be read): how the work is ordered, never what is decided."""
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def _worker_start(checker: int) -> None:
    """A worker ignores SIGINT (the checker answers an interrupt and stops its workers) and, on Linux,
    is sent SIGTERM when the checker dies (killed, as ``subprocess.run`` kills it on Ctrl-C), so no
    worker is left running without it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (ImportError, OSError, AttributeError):
        pass  # elsewhere only the checker's own clean-up stops them
    if os.getppid() != checker:  # it died before the line above
        os._exit(1)


CHUNK = 4  # files a message to a worker: one a message cost about 0.8 s of CPU over the default run's 326


def checked(paths: list[str], max_work: int, jobs: int, loaded: tuple[set[str], set[str]]):
    """``(path, line, result)`` per certificate in file order; with ``jobs`` > 1 by that many forked workers,
    whose foreign modules (names, files) are added to ``loaded``."""
    if jobs <= 1 or len(paths) < 2 or not hasattr(os, "fork"):
        for path in paths:
            yield (path, *certificate(path, max_work))
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(min(jobs, len(paths)), mp_context=context, initializer=_worker_start, initargs=(os.getpid(),))
    try:
        # the largest files first, so that no long check starts last; the lines still come in file order
        largest = sorted(paths, key=_size, reverse=True)
        answers = {}
        for i in range(0, len(largest), CHUNK):
            chunk = largest[i:i + CHUNK]
            future = pool.submit(_in_worker, chunk, max_work)
            answers.update(dict.fromkeys(chunk, future))
        for path in paths:
            try:
                line, result, modules = answers[path].result()[path]
            except BrokenProcessPool:  # a worker killed (out of memory, a signal): the run stops, as it would alone
                # the broken pool fails every file not yet answered, whichever worker had it: which one was being
                # checked is not known, only what was left unchecked
                left = sum(1 for p in paths if answers[p].exception() is not None)
                sys.exit(f"a checker worker stopped early (killed, or out of memory) with {left} file(s) unchecked, "
                         f"{path} the first in file order (which one it was checking is not known)")
            loaded[0].update(modules[0])
            loaded[1].update(modules[1])
            yield path, line, result
    finally:
        # the workers ignore SIGINT: on an interrupt (or any early end) they are stopped here, never left running
        for process in list(pool._processes.values()):
            process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def cap(jobs: int) -> int:
    """Bytes of address space for each process: the machine's RAM shared by the workers and this process,
    at most ``MEMORY`` (``MEMORY`` itself where the RAM cannot be read)."""
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return MEMORY
    return min(MEMORY, ram // (jobs + 1 if jobs > 1 else 1)) if ram > 0 else MEMORY


def main(argv: list[str]) -> int:
    global memory

    max_work, jobs = MAX_WORK, 1
    while len(argv) >= 2 and argv[0] in ("--max-work", "--jobs"):
        if argv[0] == "--max-work":
            max_work = int(argv[1])
        else:
            jobs = int(argv[1])
        argv = argv[2:]
    memory = limits.memory = cap(jobs)
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))  # inherited by every worker forked later
    except (ImportError, ValueError, OSError):
        pass  # not every platform lets a process cap itself
    # what is loaded by now (this package, flint) lives as long as the process: the collector need not
    # walk it again at each of the many collections exact arithmetic triggers (about a tenth of the run)
    gc.freeze()
    certs, outcomes = files(argv)
    results, ok, loaded = {}, True, (set(), set())
    for path, line, result in checked(certs, max_work, jobs, loaded):
        # keyed by its real folder and its own name: a link named a.cert.json is refused, never taken for its target
        results[os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))] = result
        ok &= line["status"] == "accepted"
        print(json.dumps(line, sort_keys=True), flush=True)
    for path in outcomes:
        line = outcome(path, results, max_work)
        ok &= line["ok"]
        print(json.dumps(line, sort_keys=True), flush=True)
    names, outside = foreign()
    names, outside = sorted(names | loaded[0]), sorted(outside | loaded[1])
    ok &= not names and not outside
    print(json.dumps({"type": "done", "ok": ok, "foreign_modules": names, "foreign_files": outside}), flush=True)
    return 0 if ok else 1


def run() -> None:
    """The process entry: exit with :func:`main`'s status (130 on an interrupt)."""
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    run()
