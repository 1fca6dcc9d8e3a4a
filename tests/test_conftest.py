"""The suite's own machinery, run on a small suite of its own: the skip report and the leak fixture.

``tests/conftest.py`` is copied beside a few tests that skip for each reason the report groups (the model,
chromium, coqc, dask, another) and tests that leave state behind (a variable, a folder on ``sys.path``, a
SIGTERM handler, a gc freeze, a thread, a child process); pytest runs them in a process of its own. Outside CI the
summary names every skipped test under what it needs; the leak fixture restores what it can, lists it, and
fails the tests that leave a thread or a process running.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

SUITE = '''
import os, signal, subprocess, sys, threading, time
import pytest

@pytest.mark.skip(reason="the model is not installed (all-MiniLM-L6-v2)")
def test_model(): pass

@pytest.mark.skip(reason="chromium is not installed")
def test_browser(): pass

@pytest.mark.skip(reason="coqc not found")
def test_coq(): pass

@pytest.mark.skip(reason="dask.distributed is not installed")
def test_dask(): pass

@pytest.mark.skip(reason="something else")
def test_other(): pass

def test_leaves_a_variable_and_a_path():
    os.environ["LEAKED_BY_A_TEST"] = "1"
    sys.path.append("/leaked/by/a/test")

def test_leaves_a_handler():
    signal.signal(signal.SIGTERM, lambda *a: None)

def test_sees_none_of_it():
    assert "LEAKED_BY_A_TEST" not in os.environ and "/leaked/by/a/test" not in sys.path
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL

def test_leaves_a_thread():
    threading.Thread(target=time.sleep, args=(30,), daemon=True, name="left-running").start()

def test_leaves_a_process():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(8)"])  # past the fixture's 5 s grace

import gc

def test_freezes_with_nothing_frozen_before():
    gc.freeze()

def test_sees_that_freeze_undone():
    assert gc.get_freeze_count() == 0

@pytest.fixture(scope="module")
def frozen_before():  # set up before the function-scoped leak fixture: frozen before the test starts
    gc.freeze()
    return gc.get_freeze_count()

KEPT = []

def test_freezes_beside_an_earlier_freeze(frozen_before):
    KEPT.extend([] for _ in range(1000))  # lists: tracked by gc, so frozen
    gc.freeze()

def test_the_earlier_freeze_stays(frozen_before):
    assert frozen_before > 0 and gc.get_freeze_count() >= 1000  # KEPT is still frozen (the old fixture unfroze all)
'''


def run_suite(tmp_path, ci: bool, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "tests").mkdir()
    shutil.copy(HERE / "conftest.py", tmp_path / "tests" / "conftest.py")
    (tmp_path / "tests" / "__init__.py").write_text("")
    (tmp_path / "tests" / "test_small.py").write_text(SUITE)
    for package in ("theorems", "solvers"):  # conftest checks these are imported from the checkout under test
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONPATH", "PYTEST_ADDOPTS")}
    env |= {"CI": "true"} if ci else {}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-rN",
                           *args, "tests/test_small.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "two xdist workers"])
def test_the_skip_report_groups_what_a_green_run_did_not_test_and_leaks_are_restored_or_fail(tmp_path, workers):
    # with two workers (the suite's default, pyproject's addopts) the tests run in the workers and the
    # summary is written by the main process, from the tests' reports
    done = run_suite(tmp_path, False, *workers)
    out = done.stdout
    assert done.returncode == 1, out[-3000:]
    section = out[out.index("not tested: 5 skipped"):]
    lines = [line.rstrip() for line in section.splitlines()[1:]]
    assert lines[:15] == [
        "model weights: 1 skipped",
        "  the model is not installed (all-MiniLM-L6-v2)",
        "    tests/test_small.py::test_model",
        "chromium: 1 skipped",
        "  chromium is not installed",
        "    tests/test_small.py::test_browser",
        "coqc: 1 skipped",
        "  coqc not found",
        "    tests/test_small.py::test_coq",
        "dask: 1 skipped",
        "  dask.distributed is not installed",
        "    tests/test_small.py::test_dask",
        "other: 1 skipped",
        "  something else",
        "    tests/test_small.py::test_other",
    ], section
    restored = out[out.index("state tests left behind (restored after them)"):out.index("not tested:")]
    assert "tests/test_small.py::test_leaves_a_variable_and_a_path: os.environ (LEAKED_BY_A_TEST)" in restored
    assert "tests/test_small.py::test_leaves_a_variable_and_a_path: sys.path (/leaked/by/a/test)" in restored
    assert "tests/test_small.py::test_leaves_a_handler: the SIGTERM handler" in restored
    # a freeze is undone when nothing was frozen before; beside an earlier freeze it is only listed (gc cannot
    # unfreeze the newer objects alone, and unfreezing all would release the earlier ones)
    assert "tests/test_small.py::test_freezes_with_nothing_frozen_before: gc.freeze()" in restored
    assert "tests/test_small.py::test_freezes_beside_an_earlier_freeze: gc.freeze() (" in restored
    # the next test saw none of it; the two that left something running fail, and nothing else does
    assert "ERROR at teardown of test_leaves_a_thread" in out and "thread 'left-running' (daemon)" in out
    assert "ERROR at teardown of test_leaves_a_process" in out and "child process pid" in out
    assert "ERROR at teardown" not in out.replace("ERROR at teardown of test_leaves_a_thread", "").replace(
        "ERROR at teardown of test_leaves_a_process", "")
    assert " 9 passed, 5 skipped, 2 errors in " in out, out[-2000:]


def test_under_ci_the_skip_report_is_left_out(tmp_path):
    done = run_suite(tmp_path, ci=True)
    assert "not tested:" not in done.stdout and "5 skipped" in done.stdout, done.stdout[-2000:]
