"""CPU time per test, for measuring the suite on a shared machine (docs/testing.md): a pytest plugin.

    python -m pytest -p tests.cputime --cpu-times=FILE [--durations=60]

For every phase (setup, call, teardown) of every test it writes one JSON line to FILE: the CPU seconds of
this process (``own``) and of the child processes it waited for in that phase (``children``: coqc, the
checker and binding processes of verify, a pool's workers once joined, Chromium once it quit), the wall
seconds, and the one-minute load average.  Wall time on a loaded machine says how busy the machine was; CPU
time says what the test costs.  At the end it prints the CPU of the costliest files.  It changes nothing
the tests do; without ``--cpu-times`` it does nothing.
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


class CpuTimes:
    def __init__(self, path: str):
        self.handle = open(path, "w", encoding="utf-8")
        self.files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])  # file -> [cpu, wall]

    def _measure(self, item, phase: str):
        before, wall = os.times(), time.monotonic()
        yield
        after, wall = os.times(), time.monotonic() - wall
        own = after.user + after.system - before.user - before.system
        children = after.children_user + after.children_system - before.children_user - before.children_system
        self.handle.write(json.dumps({"test": item.nodeid, "phase": phase, "own": round(own, 3),
                                      "children": round(children, 3), "wall": round(wall, 3),
                                      "load": round(os.getloadavg()[0], 2)}) + "\n")
        self.handle.flush()
        total = self.files[item.nodeid.split("::")[0]]
        total[0] += own + children
        total[1] += wall

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        yield from self._measure(item, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        yield from self._measure(item, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item):
        yield from self._measure(item, "teardown")

    def pytest_terminal_summary(self, terminalreporter):
        self.handle.close()
        cpu = sum(c for c, _ in self.files.values())
        terminalreporter.section(f"CPU time by file: {cpu:.1f} s in all (own + waited-for children)")
        for name, (c, w) in sorted(self.files.items(), key=lambda kv: -kv[1][0])[:TOP]:
            terminalreporter.write_line(f"{c:8.1f} s CPU {w:8.1f} s wall  {name}")


def pytest_configure(config):
    path = config.getoption("--cpu-times")
    if path:
        config.pluginmanager.register(CpuTimes(path), "attnproof-cpu-times")
