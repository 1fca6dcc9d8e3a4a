"""Errors surface (issue 21, item 7).

A claim or conjecture whose code raises ends ``unknown`` ("not established") with exit
status 1 whatever it expects; the exception's type, message and the claim's own
``file:line`` are in ``outcome.json`` (beside ``unknown.why``) and on standard error in
one line; ``--debug`` prints the traceback; ``attnproof verify`` accepts the outcome (it
claims nothing).  A run stopped before its first point, into an ``--out`` that does not
exist yet, says its own reason with its own exit status (130 for Ctrl-C), never that the
folder is missing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from theorems import core
from theorems.cli import main

from . import cli_raises

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CODE = "import sys; from theorems.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture
def raising(monkeypatch):
    """The test claims registered here, and named for ``verify``'s binding process."""
    core.registry()
    for claim in cli_raises.CLAIMS:
        core.register(claim)
    monkeypatch.setenv(core.MODULES_VARIABLE, "tests.theorems.cli_raises")
    monkeypatch.setenv("COLUMNS", "400")  # the table's result on one line per entry
    yield
    for claim in cli_raises.CLAIMS:
        core._REGISTRY.pop(claim.id, None)


def where(mark: str) -> str:
    """``file:line`` of the line of cli_raises.py holding ``mark``, the file as error records show it."""
    path = cli_raises.__file__
    with open(path, encoding="utf-8") as handle:
        line = next(k for k, text in enumerate(handle, start=1) if text.rstrip().endswith(mark))
    shown = os.path.relpath(path) if os.path.realpath(path).startswith(os.getcwd() + os.sep) else path
    return f"{shown}:{line}"


def said(err: str) -> list[str]:
    """What the command said on standard error, progress lines left out."""
    return [line for line in err.splitlines() if line.strip() and not line.startswith("[")]


def test_a_conjecture_whose_run_raises_exits_1_with_the_error_in_its_outcome_and_on_screen(raising, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["check", "raises_open", "--jobs", "1", "--out", str(out)]) == 1  # it expects unknown: still 1
    shown = capsys.readouterr()
    record = json.loads((out / "conjectures.raises_open" / "default" / "outcome.json").read_text())
    error = {"type": "ZeroDivisionError", "message": "division by zero", "where": where("# raises here")}
    assert record["status"] == record["expected"] == "unknown"
    assert record["unknown"] == {"why": "not established", "partial": False, "error": error}
    assert record["rung"] == "not established" and record["certificates"] == [] and record["counterexample"] is None
    assert "ZeroDivisionError: division by zero" in record["message"]
    # on screen: one line on standard error as the point finishes, the error in the table's result; no traceback
    assert said(shown.err) == [f"attnproof: conjectures.raises_open [default]: the check raised ZeroDivisionError: "
                               f"division by zero (at {error['where']}): not established; --debug prints the traceback"]
    assert f"error: ZeroDivisionError: division by zero (at {error['where']})" in shown.out
    assert "(raised)" in shown.out and "remark:" not in shown.out
    assert "Traceback" not in shown.out + shown.err
    # the outcome claims nothing, and verify accepts it: the checker reads unknown.why, the error stands beside it
    assert main(["verify", str(out)]) == 0
    assert "conjectures.raises_open [default]: unknown stands" in capsys.readouterr().out
    # a point whose check raised is never "done": the next run tries it again
    assert main(["check", "raises_open", "--jobs", "1", "--out", str(out)]) == 1
    assert "skipping" not in capsys.readouterr().err


def test_debug_prints_the_traceback(raising, tmp_path, capsys):
    assert main(["check", "raises_open", "--jobs", "1", "--debug", "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last):" in err
    line = where("# raises here").rpartition(":")[2]
    assert f'cli_raises.py", line {line}, in then' in err and err.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "--debug prints the traceback" not in err


def test_the_error_names_the_claims_own_line_not_the_librarys(raising, tmp_path, capsys):
    """The exception is raised inside fractions.py; ``where`` is the line of the claim that called it."""
    assert main(["check", "raises_deep", "--jobs", "1", "--json", "--out", str(tmp_path / "o")]) == 1
    shown = capsys.readouterr()
    [record] = json.loads(shown.out)["outcomes"]  # --json: standard output stays JSON
    assert record["status"] == "unknown" and record["expected"] == "verified"
    assert record["unknown"]["error"] == {"type": "ZeroDivisionError", "message": "Fraction(1, 0)",
                                          "where": where("# calls here")}
    assert len(said(shown.err)) == 1 and "raised ZeroDivisionError: Fraction(1, 0)" in said(shown.err)[0]


def test_a_cost_estimate_that_raises_is_one_line_and_exit_1_before_any_work(raising, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["check", "raises_cost", "--out", str(out)]) == 1
    shown = capsys.readouterr()
    assert said(shown.err) == [f"attnproof: error: the cost estimate of cli_test.raises_cost raised ZeroDivisionError: "
                               f"division by zero (at {where('# cost raises here')})"]
    assert "Traceback" not in shown.err and not out.exists()
    assert main(["check", "raises_cost", "--debug", "--out", str(out)]) == 1
    assert "Traceback (most recent call last):" in capsys.readouterr().err


def test_error_record_falls_back_to_the_innermost_frame_and_keeps_one_line():
    try:
        raise ValueError("two\nlines   and " + "x" * 400)
    except ValueError as exc:
        record = core.error_record(exc, None)
    assert record["type"] == "ValueError" and "\n" not in record["message"]
    assert record["message"].startswith("two lines and x") and record["message"].endswith(" ...")
    assert len(record["message"]) == core.ERROR_MESSAGE_CHARS + 4
    assert record["where"].startswith(os.path.relpath(__file__) + ":")


def _interrupts_as_in_a_shell() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.mark.parametrize("jobs, seconds", [("1", "30"), ("2", "30,31")])
def test_ctrl_c_before_the_first_point_into_a_fresh_out_says_interrupted_and_exits_130(tmp_path, jobs, seconds):
    out, started = tmp_path / "fresh" / "out", tmp_path / "started"
    argv = [sys.executable, "-c", CODE, "check", "cli_test.waiter", "--param", f"seconds={seconds}", "--jobs", jobs,
            "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": ROOT, core.MODULES_VARIABLE: "tests.theorems.cli_raises",
           cli_raises.STARTED: str(started)}
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               env=env, preexec_fn=_interrupts_as_in_a_shell)
    try:
        deadline = time.monotonic() + 120
        while not started.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "the check never started"
        os.killpg(process.pid, signal.SIGINT)  # as Ctrl-C does: the whole foreground group
        status = process.wait(timeout=15)  # 0.4-0.5 s measured (loaded); a run that waited would take 30 s
        err = process.stderr.read()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert status == 130, err
    assert said(err) == [f"attnproof: interrupted (nothing was written: {out} was not made)"], err
    assert "No such file" not in err and "Traceback" not in err
    assert not out.exists() and not out.parent.exists()


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="dask.distributed is not installed")
def test_a_scheduler_that_cannot_be_reached_says_so_into_a_fresh_out(tmp_path):
    out = tmp_path / "fresh" / "out"
    done = subprocess.run([sys.executable, "-c", CODE, "check", "row_lemma", "--param", "w_max=3",
                           "--scheduler", "tcp://127.0.0.1:1", "--out", str(out)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": ROOT, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"})
    assert done.returncode == 1, done.stderr
    assert said(done.stderr) == ["attnproof: error: Timed out trying to connect to tcp://127.0.0.1:1 after 2 s"], done.stderr
    assert "No such file" not in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()
