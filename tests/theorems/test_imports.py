"""A fast start: commands that solve nothing import no solver library.

``python -X importtime`` logs every module whose code runs; a library that is
only registered lazily (``solvers.lazy``) and never touched does not appear.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("scipy", "sympy", "z3", "numpy")


def imported(code: str) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert "theorems" in names  # the log was read: the package itself shows up
    return names


def test_list_imports_no_solver_library():
    names = imported("import sys; from theorems import cli; sys.argv[1:] = ['list']; cli.main(['list'])")
    assert not names & set(HEAVY), sorted(names & set(HEAVY))


def test_list_imports_no_worker_machinery():
    """multiprocessing and concurrent.futures are for check's workers (solvers.parallel), imported by check alone."""
    names = imported("from theorems import cli; cli.main(['list'])")
    assert not names & {"multiprocessing", "concurrent"}, sorted(names & {"multiprocessing", "concurrent"})


def test_list_json_and_the_registry_import_no_solver_library():
    names = imported("from theorems import cli; cli.main(['list', '--json'])")
    assert not names & set(HEAVY), sorted(names & set(HEAVY))


def test_the_verify_command_process_imports_no_solver_library(tmp_path):
    # no outcomes: verify stops at the usage error, after importing what it needs to start
    code = f"from theorems import cli; cli.main(['verify', {str(tmp_path / 'missing')!r}])"
    names = imported(code)
    assert not names & {"scipy", "z3", "numpy"}, sorted(names & {"scipy", "z3", "numpy"})


@pytest.mark.parametrize("name", ["sympy", "numpy", "z3"])
def test_a_lazy_library_loads_on_first_use(name):
    code = (f"import sys; from solvers import lazy; mod = getattr(lazy, {name!r}); "
            f"assert not any(k.startswith({name!r} + '.') for k in sys.modules); mod.__name__; "
            f"print(sorted(k for k in vars(mod) if not k.startswith('_'))[:3])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() not in ("", "[]")  # the real module's names, once touched


def test_lazy_refuses_a_submodule_and_a_missing_module():
    from solvers import lazy

    with pytest.raises(ValueError):
        lazy.module("scipy.sparse")
    with pytest.raises(ImportError):
        lazy.module("no_such_module_anywhere")
