"""CPU time per test, for measuring the suite on a shared machine (docs/testing.md): a pytest plugin.

    python -m pytest -p tests.cputime --cpu-times=FILE [--durations=60]

For every phase (setup, call, teardown) of every test it writes one JSON line to FILE: the CPU seconds of
this process (``own``) and of the child processes it waited for in that phase (``children``: coqc, the
checker and binding processes of verify, a pool's workers once joined, Chromium once it quit), the wall
seconds, and the one-minute load average.  Wall time on a loaded machine says how busy the machine was; CPU
time says what the test costs.  At the end it prints the CPU of the costliest files.  It changes nothing
the tests do; without ``--cpu-times`` it does nothing.

Under pytest-xdist (``-n 2``, the suite's default) the tests run in worker processes: the main process
empties FILE once, each worker appends its lines to it (each line also names the worker, ``gw0``...; one
``write`` per line, appended, so the lines of two workers never mix), and the main process reads the
file back for the summary once every worker is done.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict

import pytest

TOP = 25  # files shown in the summary


def pytest_addoption(parser):
    parser.addoption("--cpu-times", metavar="FILE", default=None,
                     help="write each test phase's CPU seconds (own and waited-for children) as JSON lines to FILE")


def _worker(config) -> str:
    """The xdist worker this process is (``gw0``, ...), or ``""`` in the main process."""
    return getattr(config, "workerinput", {}).get("workerid", "")


class CpuTimes:
    """Measures the tests this process runs (a worker's, or all of them without xdist); appends to FILE."""

    def __init__(self, path: str, worker: str):
        self.handle = open(path, "a", encoding="utf-8")
        self.worker = worker

    def _measure(self, item, phase: str):
        before, wall = os.times(), time.monotonic()
        yield
        after, wall = os.times(), time.monotonic() - wall
        own = after.user + after.system - before.user - before.system
        children = after.children_user + after.children_system - before.children_user - before.children_system
        self.handle.write(json.dumps({"test": item.nodeid, "phase": phase, "own": round(own, 3),
                                      "children": round(children, 3), "wall": round(wall, 3),
                                      "load": round(os.getloadavg()[0], 2), "worker": self.worker}) + "\n")
        self.handle.flush()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        yield from self._measure(item, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        yield from self._measure(item, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item):
        yield from self._measure(item, "teardown")

    def pytest_unconfigure(self):
        self.handle.close()


class Summary:
    """In the main process: the CPU and wall seconds of the costliest files, read back from FILE."""

    def __init__(self, path: str):
        self.path = path

    def pytest_terminal_summary(self, terminalreporter):
        files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])  # file -> [cpu, wall]
        with open(self.path, encoding="utf-8") as handle:
            for line in handle:
                phase = json.loads(line)
                total = files[phase["test"].split("::")[0]]
                total[0] += phase["own"] + phase["children"]
                total[1] += phase["wall"]
        cpu = sum(c for c, _ in files.values())
        terminalreporter.section(f"CPU time by file: {cpu:.1f} s in all (own + waited-for children)")
        for name, (c, w) in sorted(files.items(), key=lambda kv: -kv[1][0])[:TOP]:
            terminalreporter.write_line(f"{c:8.1f} s CPU {w:8.1f} s wall  {name}")


def pytest_configure(config):
    path = config.getoption("--cpu-times")
    if not path:
        return
    worker = _worker(config)
    if not worker:
        open(path, "w", encoding="utf-8").close()  # emptied once, before any worker appends
        config.pluginmanager.register(Summary(path), "attnproof-cpu-summary")
    # in every process: only the one that runs the tests (a worker, or the main process without xdist) writes
    config.pluginmanager.register(CpuTimes(path, worker), "attnproof-cpu-times")
