"""The checker as its own process: isolated, bounded, one line per file, never a traceback."""

import json
import os
import subprocess
import sys

import pytest

from solvers import certificates as C
from theorems import verification

RANK_LOWER = {"matrix": [[1, 2], [3, 4]], "rows": [0, 1], "cols": [0, 1], "prime": 101}


def write(folder, name, cert):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(cert if isinstance(cert, str) else json.dumps(cert))
    return path


def honest(kind="rank-lower", data=RANK_LOWER):
    return C.make(kind, "test.claim", "s" * 64, {}, data)


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_checker_process_imports_only_the_standard_library_and_flint(tmp_path, jobs):
    write(tmp_path, "a.cert.json", honest())
    write(tmp_path, "b.cert.json", honest())
    result = verification.run_checker([str(tmp_path)], jobs=jobs)
    assert not result.error
    assert [c["status"] for c in result.certificates] == ["accepted", "accepted"]
    assert result.certificates[0]["judgment"]["judgment"] == "rank-at-least"
    assert result.foreign_modules == []  # with jobs = 2, in the workers too


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_binding_answers_every_outcome_with_workers_or_without(tmp_path, jobs):
    paths = [write(tmp_path, f"{i}.json", {"seconds": i, "statement": "x"}) for i in range(3)]
    checks = [verification.OutcomeCheck(path=p, claim=f"no.such_claim{i}") for i, p in enumerate(paths)]
    checks.append(verification.OutcomeCheck(path=str(tmp_path / "none.json")))
    verification.run_binding(checks, jobs=jobs)
    assert [c.binding for c in checks] == [f"no installed claim 'no.such_claim{i}'" for i in range(3)] + ["no claim named"]
    assert not any(c.bound for c in checks)


HOSTILE = {
    "dup.cert.json": '{"format": "attnproof-certificate", "format": "x"}',
    "float.cert.json": '{"a": 1.5}',
    "bigint.cert.json": "[" + "7" * 5000 + "]",
    "deep.cert.json": "[" * 100_000 + "]" * 100_000,
    "latin1.cert.json": b'{"a": "\xe9"}'.decode("latin-1"),
    "truncated.cert.json": '{"format": ',
    "list.cert.json": "[]",
    "version-true.cert.json": json.dumps(honest() | {"version": True}),
    "nonsense.cert.json": json.dumps(honest() | {"kind": "nonsense"}),
    "type-confusion.cert.json": json.dumps(honest(data={"matrix": "x", "rows": {}, "cols": None, "prime": "7"})),
    "huge-exponent.cert.json": json.dumps(honest(data=RANK_LOWER | {"matrix": [["1e1000000000", 0], [0, 1]]})),
    "huge-prime.cert.json": json.dumps(honest(data=RANK_LOWER | {"prime": int("9" * 100)})),
}


def test_hostile_files_each_end_refused_or_rejected_and_the_run_goes_on(tmp_path):
    for name, text in HOSTILE.items():
        if name == "latin1.cert.json":
            (tmp_path / name).write_bytes(b'{"a": "\xe9"}')
        else:
            write(tmp_path, name, text)
    write(tmp_path, "zz-honest.cert.json", honest())
    os.mkfifo(tmp_path / "fifo.cert.json")
    os.symlink("/dev/zero", tmp_path / "zero.cert.json")
    result = verification.run_checker([str(tmp_path)])
    assert not result.error
    status = {os.path.basename(c["path"]): c["status"] for c in result.certificates}
    assert status.pop("zz-honest.cert.json") == "accepted"
    assert set(status) == set(HOSTILE) | {"fifo.cert.json", "zero.cert.json"}
    assert all(s in ("REFUSED", "REJECTED") for s in status.values()), status
    for line in result.certificates:
        assert "Traceback" not in line.get("reason", "")


def test_a_plugin_cannot_change_what_the_checker_says(tmp_path):
    """A claims module that replaces the in-process checker at import changes nothing in stage 1."""
    plugin = tmp_path / "evil.py"
    plugin.write_text(
        "import pathlib, solvers.trusted as t, solvers.trusted.core as c\n"
        "fake = lambda *a, **k: c.Accepted({'judgment': 'anything'}, 'forged')\n"
        "t.check = c.check = fake\n"
        "pathlib.Path('plugin-ran').write_text('yes')\n"
        "CLAIMS = []\n"
    )
    folder = tmp_path / "out"
    folder.mkdir()
    write(folder, "forged.cert.json", honest() | {"kind": "nonsense", "statement": "wrong"})
    # a claim no built-in module states: so the plugins are imported, each in a binding process of its own
    write(folder, "outcome.json", {"claim": "evil.claim", "status": "verified", "parameters": {},
                                   "statement": "wrong", "certificates": ["forged.cert.json"],
                                   "obligations": {"verify": [], "refute": [], "reach": ""}})
    env = dict(os.environ, ATTNPROOF_CLAIMS="evil")
    done = subprocess.run([sys.executable, "-m", "theorems.cli", "verify", str(folder)],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert (tmp_path / "plugin-ran").exists()  # the plugin did load, in a binding process of its own
    assert done.returncode == 1
    assert "REJECTED" in done.stdout and "unknown certificate kind" in done.stdout
    assert "Traceback" not in done.stderr


def test_verify_refuses_work_above_the_limit_with_the_estimate(tmp_path):
    write(tmp_path, "a.cert.json", honest())
    result = verification.run_checker([str(tmp_path)], max_work=1)
    assert result.certificates[0]["status"] == "REFUSED"
    assert "operations" in result.certificates[0]["reason"]


@pytest.mark.parametrize("argv", [["verify", "/nonexistent/path"], ["verify", "--max-work", "0", "."]])
def test_verify_usage_errors_exit_2(argv):
    done = subprocess.run([sys.executable, "-m", "theorems.cli", *argv], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr


def _session(sid: int) -> list[int]:
    """The processes of session ``sid`` still alive (Linux: field 6 of /proc/PID/stat)."""
    alive = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                fields = handle.read().rpartition(")")[2].split()
        except (OSError, ValueError):
            continue
        if entry.isdigit() and fields[0] != "Z" and int(fields[3]) == sid:
            alive.append(int(entry))
    return alive


def slow_checker(folder) -> list[str]:
    """60 certificates of about 0.1 s each written to ``folder`` (the softmax head at beta = ln 4,
    test_evaluation.softmax_scores, at m = 300), and the command that checks them with two workers."""
    from fractions import Fraction

    m = 300
    data = {"m": m, "lengths": [3], "kappa": [C.encode(Fraction(1, 4**s)) for s in range(m + 1)],
            "value": [list(range(w + 1)) for w in range(m + 1)], "target": "min-ip", "tolerance": "1/2"}
    for i in range(60):
        write(folder, f"{i:02}.cert.json", honest("score-statistic", data))
    return [sys.executable, "-I", "-S", "-c", verification.BOOT, os.pathsep.join(verification._search_path()),
            "--jobs", "2", str(folder)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["SIGINT", "SIGKILL"])
def test_a_checker_interrupted_or_killed_leaves_no_worker_running(tmp_path, how):
    """The workers ignore SIGINT (the checker answers it and stops them); killed outright (as subprocess.run
    kills it on Ctrl-C), the checker takes them with it: none is left holding its output open."""
    import signal
    import time

    command = slow_checker(tmp_path)

    def as_from_a_shell():  # SIGINT handled by default and unblocked, whatever this test process inherited
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    checker = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
                               preexec_fn=as_from_a_shell)
    try:
        checker.stdout.readline()  # the run has started
        os.killpg(checker.pid, signal.SIGINT) if how == "SIGINT" else checker.kill()
        checker.communicate(timeout=60)  # a worker left running would hold the pipe open
        deadline = time.monotonic() + 10
        while _session(checker.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _session(checker.pid) == []
    finally:
        for pid in _session(checker.pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_killed_mid_run_stops_the_run_in_one_line_that_blames_no_file_it_cannot_know(tmp_path):
    """A dead worker breaks the whole pool: every file not yet answered fails at once, whichever worker had
    it, and the largest files went first.  So the line says how many files were left unchecked, and names the
    first of them in file order without saying it was the one being checked."""
    import signal

    command = slow_checker(tmp_path)
    checker = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        checker.stdout.readline()  # the run has started
        workers = [pid for pid in _session(checker.pid) if pid != checker.pid]
        assert workers
        os.kill(workers[0], signal.SIGKILL)
        out, err = checker.communicate(timeout=60)
        assert checker.returncode == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert err.startswith("a checker worker stopped early (killed, or out of memory) with ") and " file(s) unchecked, " in err
        assert "checked with it" not in err and "(which one it was checking is not known)" in err
    finally:
        for pid in _session(checker.pid):
            os.kill(pid, signal.SIGKILL)


def test_the_binding_process_loads_no_claim_or_plugin_before_it_is_sent_the_outcomes():
    """What :func:`verification._warm` loads while stage 1 runs: libraries, never a claim module."""
    probe = "import sys, theorems.verification as v; v._warm(); print(' '.join(sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-300:]
    loaded = done.stdout.split()
    assert "sympy" in loaded and "numpy" in loaded
    # not even theorems.core, where the registry that imports claims and plugins lives
    assert [m for m in loaded if m.startswith("theorems.")] == ["theorems.verification"]
