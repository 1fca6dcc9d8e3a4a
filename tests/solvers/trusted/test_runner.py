"""The runner decides nothing: on a default run its lines, with two workers, are the core's lines.

The core alone: each certificate through :func:`core.certificate`, then each outcome through
:func:`verdicts.outcome`, in one process, files found by this test's own walk.  The runner: the
checker's process (``python -m solvers.trusted --jobs 2``) over the same folder.
"""

import json
import os
import subprocess
import sys

from solvers.trusted import core, verdicts
from tests.solvers.trusted.reading_list import ROOT
from theorems import verification


def core_alone(run: str) -> list[dict]:
    certs, outcomes = [], []
    for folder, dirs, names in os.walk(run):
        dirs.sort()
        for name in sorted(names):
            (certs if name.endswith(".cert.json") else outcomes if name == "outcome.json" else []).append(os.path.join(folder, name))
    lines, results = [], {}
    for path in certs:
        line, result = core.certificate(path)
        results[os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))] = result
        lines.append(line)
    return lines + [verdicts.outcome(path, results) for path in outcomes]


def test_the_runners_lines_equal_the_core_alone_on_a_default_run(default_check):
    run = str(default_check)  # the session's default check (tests/conftest.py), read only
    # started as verify starts it (python -I -S, the package and python-flint's folder on the path)
    boot = [sys.executable, "-I", "-S", "-c", verification.BOOT, os.pathsep.join(verification._search_path())]
    done = subprocess.run([*boot, "--jobs", "2", run], cwd=ROOT, capture_output=True, text=True)
    *lines, last = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and last == {"type": "done", "ok": True, "foreign_modules": [], "foreign_files": []}
    alone = core_alone(run)
    assert len(alone) > 300 and lines == json.loads(json.dumps(alone))
