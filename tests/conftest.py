"""Shared by every test: hypothesis settings, the checkout under test for subprocesses, no state
carried from one test to the next, and a summary of what a run skipped."""

import contextlib
import gc
import importlib.util
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests run exact arithmetic: keep example counts modest and deadlines off.
settings.register_profile("attnproof", max_examples=40, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "attnproof"))

ROOT = str(Path(__file__).resolve().parents[1])

# Every process a test starts (python -m theorems.cli, verify's binding process, the attnproof
# script, Dask's workers) imports theorems and solvers from this checkout, not from wherever the
# environment's editable install points: PYTHONPATH comes before site-packages.
os.environ["PYTHONPATH"] = os.pathsep.join([ROOT, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                    if p and os.path.abspath(p) != ROOT]])


def pytest_sessionstart(session):
    """This process, too, imports the checkout under test (pytest puts its root first on sys.path)."""
    for package in ("theorems", "solvers"):
        spec = importlib.util.find_spec(package)
        origin = os.path.realpath(spec.origin) if spec and spec.origin else None
        if origin is None or not origin.startswith(os.path.realpath(ROOT) + os.sep):
            pytest.exit(f"{package} is imported from {origin}, not from the checkout under test {ROOT}", returncode=4)


# ------------------------------------------------------------ two workers (pytest-xdist), one environment

TERMINAL = ("COLUMNS", "LINES")  # an xdist worker starts with COLUMNS=80 and LINES=24 set, whatever the main process had


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """In the main process, for each xdist worker: the terminal variables as they are here."""
    node.workerinput["terminal_environ"] = {key: os.environ.get(key) for key in TERMINAL}


def pytest_configure(config):
    """In an xdist worker: the main process's terminal variables, so that a command a test runs (the
    terminal table of ``check``, whose width is ``$COLUMNS`` off a terminal) prints as it does in one process."""
    for key, value in getattr(config, "workerinput", {}).get("terminal_environ", {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


# ------------------------------------------------------------ no leaks between tests

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD)
GRACE = 5.0  # seconds a test's threads and child processes get to end after it
OWN = {"PYTEST_CURRENT_TEST"}  # pytest's own, set at each phase of a test
LEFT: list[tuple[str, str]] = []  # (test, what it left behind and was restored), for the summary
RESTORED = "left behind, restored"  # the key of what no_leaks restored, in the test's user_properties


def _children() -> set[int]:
    """The live (not zombie) child processes of this process, of every thread (Linux), or those
    ``multiprocessing`` knows of elsewhere."""
    pids = set()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return {p.pid for p in multiprocessing.active_children()}
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children") as handle:
                pids.update(int(p) for p in handle.read().split())
        except OSError:
            continue
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            alive.add(pid)
    return alive


def _describe(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        command = "?"
    return f"pid {pid} ({command[:120]})"


@pytest.fixture(autouse=True)
def no_leaks(request):
    """Restores ``os.environ``, ``sys.path``, the gc freeze (when nothing was frozen before) and the dispositions of SIGINT, SIGTERM and
    SIGCHLD after each test (and lists what it restored at the end of the run); fails a test that
    leaves a thread or a child process running ``GRACE`` seconds after it ended."""
    environ, path = dict(os.environ), list(sys.path)
    frozen = gc.get_freeze_count()
    handlers = {number: signal.getsignal(number) for number in SIGNALS}
    threads, children = set(threading.enumerate()), _children()
    yield
    left = []
    changed = sorted(k for k in set(os.environ) | set(environ) if os.environ.get(k) != environ.get(k) and k not in OWN)
    if changed:
        left.append(f"os.environ ({', '.join(changed)})")
        for key in changed:
            if key in environ:
                os.environ[key] = environ[key]
            else:
                del os.environ[key]
    if sys.path != path:
        left.append(f"sys.path ({', '.join(sorted(set(sys.path) ^ set(path))) or 'reordered'})")
        sys.path[:] = path
    if gc.get_freeze_count() > frozen:
        left.append(f"gc.freeze() ({gc.get_freeze_count() - frozen} objects frozen)")
        if frozen == 0:  # gc can only unfreeze everything: exact only when nothing was frozen before the test
            gc.unfreeze()  # (otherwise the objects frozen before would be released too; the newer ones stay, reported)
    for number, handler in handlers.items():
        if signal.getsignal(number) != handler and handler is not None:
            left.append(f"the {signal.Signals(number).name} handler ({signal.getsignal(number)!r})")
            signal.signal(number, handler)
    # carried by the test's teardown report, so that the summary has it when the test ran in an xdist worker
    request.node.user_properties.extend((RESTORED, what) for what in left)

    deadline = time.monotonic() + GRACE
    new = [t for t in threading.enumerate() if t not in threads]
    for thread in new:
        thread.join(max(0.0, deadline - time.monotonic()))
    running = [t for t in new if t.is_alive()]
    spawned = _children() - children
    while spawned and time.monotonic() < deadline:
        multiprocessing.active_children()  # joins (reaps) the finished ones it started
        time.sleep(0.05)
        spawned = _children() - children
    problems = [f"thread {t.name!r} ({'daemon' if t.daemon else 'non-daemon'})" for t in running]
    problems += [f"child process {_describe(pid)}" for pid in sorted(spawned)]
    if problems:
        pytest.fail(f"the test left running {GRACE:.0f} s after it ended: " + "; ".join(problems), pytrace=False)


@pytest.fixture
def dask_cluster():
    """A factory of ``distributed.LocalCluster``s of two single-thread worker processes (a context manager
    each); skips without dask.distributed.  It undoes what a cluster leaves in this process: the variables
    its nannies put in ``os.environ`` before they spawn (``PYTHONHASHSEED=6640`` among them: every later
    subprocess would otherwise run with a fixed hash seed), once the cluster is closed, and after the test
    the ``Dask-Offload`` thread and the ``multiprocessing`` resource tracker its spawned workers started."""
    distributed = pytest.importorskip("distributed")

    @contextlib.contextmanager
    def cluster():
        environ = dict(os.environ)
        try:
            with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                          host="127.0.0.1") as started:
                yield started
        finally:
            for key in set(os.environ) | set(environ):
                if key not in environ:
                    del os.environ[key]
                elif os.environ.get(key) != environ[key]:
                    os.environ[key] = environ[key]

    yield cluster
    from concurrent.futures import ThreadPoolExecutor
    from multiprocessing import resource_tracker

    from distributed import utils

    utils._offload_executor.shutdown(wait=True)  # a fresh one, its thread started on first use, for later tests
    utils._offload_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="Dask-Offload")
    resource_tracker._resource_tracker._stop()  # started again on first use


# ------------------------------------------------------------ one default check for the session


@pytest.fixture(scope="session")
def default_check(tmp_path_factory) -> Path:
    """One default ``attnproof check`` (every built-in claim at its default point; about 11 s of CPU) for the
    whole session, for the tests that only read it: a test that changes it copies it first
    (``shutil.copytree``).  It runs in a process of its own, without ``$ATTNPROOF_CLAIMS``, from the checkout:
    what it holds is the default run a user gets, whatever claims the tests have registered in this process
    by the time it is first asked for (so it does not depend on the order the tests run in)."""
    import subprocess

    out = tmp_path_factory.mktemp("default-check") / "run"
    env = {k: v for k, v in os.environ.items() if k != "ATTNPROOF_CLAIMS"}
    ran = subprocess.run([sys.executable, "-m", "theorems.cli", "check", "--out", str(out)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=900)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    return out


# ------------------------------------------------------------ what a green run did not test

SKIP_GROUPS = (  # (group, pattern of the reason), first match wins; shown in this order
    ("model weights", r"the model is not installed|weights|minilm|safetensors"),
    ("chromium", r"chromium|chromedriver|selenium|real-browser"),
    ("coqc", r"\bcoq"),
    ("dask", r"\bdask\b|distributed"),
)


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        reason = str(longrepr[2])
    else:
        reason = str(longrepr)
    return re.sub(r"^Skipped: ", "", reason).strip()


def pytest_runtest_logreport(report):
    """In the process that writes the summary (the main one under xdist too): what each test left behind."""
    if report.when == "teardown":
        LEFT.extend((report.nodeid, what) for key, what in report.user_properties if key == RESTORED)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Outside CI: which tests were skipped and why, grouped by what they need, and what tests left
    behind that the leak fixture restored; so a green run says what it did not test."""
    if LEFT:
        terminalreporter.section("state tests left behind (restored after them)")
        for test, what in LEFT:
            terminalreporter.write_line(f"{test}: {what}")
    if os.environ.get("CI") == "true":
        return
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    groups: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for report in skipped:
        reason = _skip_reason(report)
        group = next((name for name, pattern in SKIP_GROUPS if re.search(pattern, reason, re.IGNORECASE)), "other")
        groups[group][reason].append(report.nodeid)
    terminalreporter.section(f"not tested: {len(skipped)} skipped")
    for group in [name for name, _ in SKIP_GROUPS] + ["other"]:
        if group not in groups:
            continue
        count = sum(len(tests) for tests in groups[group].values())
        terminalreporter.write_line(f"{group}: {count} skipped")
        for reason, tests in sorted(groups[group].items()):
            terminalreporter.write_line(f"  {reason}")
            for test in sorted(tests):
                terminalreporter.write_line(f"    {test}")
