"""Wall-clock figures that tests used to assert, now measured here and never asserted.

    python bench/wallclock.py [--repeat K]

The tests bound these by work (an estimate named in the refusal, a ``--max-work`` refusal, a count) or by a
guard that only catches a hang, at least ten times the figures below; this script says how far each is
from its guard on the machine at hand. Each section runs K times (default 3); printed: the least and the
largest wall seconds.

* ``lp medium``: ``solvers.lp.decide`` on a planted feasible and a random infeasible strict system of 3000
  rows in R^300 (``tests/solvers/test_lp.py::test_medium_homogeneous_strict_systems``; guard 600 s each);
* ``oversized refusals``: the six oversized evaluation certificates refused from their estimate
  (``test_evaluation.py::test_oversized_requests_are_refused_before_any_work``; guard 60 s each);
* ``hostile sizes``: the counting kinds' hostile sizes refused from their estimate
  (``test_counting.py::test_hostile_sizes_are_refused_from_the_estimate``; guard 10 s each);
* ``ctrl-c``: from SIGINT to the exit of ``attnproof check`` with a point under way
  (``test_errors_surface.py``'s and ``test_store.py``'s Ctrl-C tests; guards 15 s).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
CODE = "import sys; from theorems.cli import main; sys.exit(main(sys.argv[1:]))"


def lp_medium() -> None:
    from solvers.lp import decide
    from tests.solvers.test_lp import planted_strict, random_strict

    decide(planted_strict(300, 3000, seed=11, density=0.1))
    decide(random_strict(300, 3000, seed=12))


def oversized() -> None:
    import pytest

    from solvers.trusted.core import Refused
    from tests.solvers.trusted import test_evaluation as t

    for mark in t.test_oversized_requests_are_refused_before_any_work.pytestmark:
        if mark.name == "parametrize":
            for kind, data in mark.args[1]:
                with pytest.raises(Refused):
                    t.check(t.envelope(kind, data))


def hostile_sizes() -> None:
    from tests.solvers.trusted import test_counting

    test_counting.test_hostile_sizes_are_refused_from_the_estimate()


def ctrl_c() -> None:
    from tests.theorems import cli_raises

    def as_in_a_shell():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    with tempfile.TemporaryDirectory() as folder:
        started = os.path.join(folder, "started")
        env = {**os.environ, "PYTHONPATH": HERE, "ATTNPROOF_CLAIMS": "tests.theorems.cli_raises", cli_raises.STARTED: started}
        process = subprocess.Popen([sys.executable, "-c", CODE, "check", "cli_test.waiter", "--param", "seconds=30",
                                    "--jobs", "1", "--out", os.path.join(folder, "out")], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True, env=env, preexec_fn=as_in_a_shell)
        while not os.path.exists(started):
            time.sleep(0.02)
        start = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=120)
        return time.monotonic() - start


SECTIONS = {"lp medium": lp_medium, "oversized refusals": oversized, "hostile sizes": hostile_sizes, "ctrl-c": ctrl_c}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for name, section in SECTIONS.items():
        times = []
        for _ in range(args.repeat):
            start = time.monotonic()
            measured = section()
            times.append(measured if measured is not None else time.monotonic() - start)
        print(f"{name:20} {min(times):8.2f} s  (largest {max(times):.2f} s of {args.repeat})", flush=True)


if __name__ == "__main__":
    main()
