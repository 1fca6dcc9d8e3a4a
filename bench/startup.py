"""Start-up time of each command, and which heavy libraries it imports.

    python bench/startup.py [--repeat K]

Each command runs in a fresh interpreter K times (default 5); printed: the
least CPU seconds (user + system of the child, ``resource.getrusage``: robust
on a shared machine) and the least wall seconds, and the heavy libraries
(sympy, numpy, scipy, z3; also python-flint and multiprocessing, which
``list`` could do without) whose code ran, read from ``python -X importtime``.

* ``list``: the whole command (it imports every claim module);
* ``verify``: the command process up to its work (a missing path: usage
  error after every import it needs to start) — the checker and the binding
  run in processes of their own, timed by ``bench/estimates.py --verify``;
* ``report``, ``check``: the command process up to its work (``--help`` of
  the subcommand after importing what the command imports at start).

Figures are printed, never asserted (tests/theorems/test_imports.py checks
that ``list`` imports none of the heavy libraries); docs/performance.md
records a run.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ("sympy", "numpy", "scipy", "z3", "flint", "multiprocessing")

COMMANDS = {
    "list": "from theorems import cli; cli.main(['list'])",
    "verify": "import sys; from theorems import cli, verification; cli.main(['verify', sys.argv[1]])",
    "report": "from theorems import cli, report",
    "check": "from theorems import cli, core",
    "python": "pass",
}


def children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


# as a user runs it: compiled modules cached in __pycache__ (with PYTHONDONTWRITEBYTECODE set, every start
# compiles every module it imports again, about 0.25 s of `list`)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(code: str, extra: list[str], importtime: bool = False) -> tuple[float, float, str]:
    flags = ["-X", "importtime"] if importtime else []
    c0, w0 = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, *flags, "-c", code, *extra], capture_output=True, text=True, cwd=HERE, env=ENV)
    return children_cpu() - c0, time.perf_counter() - w0, done.stderr


def heavy(stderr: str) -> list[str]:
    names = {line.rsplit("|", 1)[1].strip().split(".")[0] for line in stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    return sorted(names & set(HEAVY))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    missing = os.path.join(tempfile.gettempdir(), "attnproof-no-such-folder")
    print(f"{'command':<8} {'cpu s':>7} {'wall s':>7}  heavy libraries imported")
    for name, code in COMMANDS.items():
        extra = [missing] if name == "verify" else []
        run(code, extra)  # compiles what is not cached yet
        runs = [run(code, extra) for _ in range(max(1, args.repeat))]
        _, _, log = run(code, extra, importtime=True)
        print(f"{name:<8} {min(r[0] for r in runs):>7.3f} {min(r[1] for r in runs):>7.3f}  {', '.join(heavy(log)) or 'none'}")


if __name__ == "__main__":
    main()
