"""The outcome folder and the command line's promises (issue 10): a test per case.

Outputs never destroy a user's files (a folder that is not an outcome folder,
a regular file, a read-only folder, the working directory, /proc are refused
before any work, exit 2); runs accumulate (a single-claim check after a full
run keeps the other outcomes); a budget that runs out keeps what was
certified and says partial, never verified; no traceback on the command line
(a closed pipe, a bad plugin module, a duplicate id, Ctrl-C); a misspelt
claim gets the nearest names; a group selects a paper's claims; ``--estimate``
runs nothing; ``report --outcomes <typo>`` is refused; ``--json`` carries its
format.
"""

from __future__ import annotations

import json
import os
import select
import signal
import stat
import subprocess
import sys

import pytest

from solvers import parallel
from theorems import cli, core, store
from theorems.cli import main

from . import cli_toy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUICK = ["row_lemma", "restriction_lemma", "--param", "w_max=4", "--param", "restriction_lemma:m_max=5", "--jobs", "1"]
TOY = cli_toy.CLAIM.id


@pytest.fixture
def toy(monkeypatch):
    """The test claim registered here, and named for the binding process of ``verify`` (which finds claims as a user's would)."""
    core.registry()
    core.register(cli_toy.CLAIM)
    monkeypatch.setenv(core.MODULES_VARIABLE, "tests.theorems.cli_toy")
    yield cli_toy.CLAIM
    core._REGISTRY.pop(TOY, None)


def refused(argv, capsys, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def command(*args, **kwargs):
    """The command in a process of its own (as a user runs it), from the repository root."""
    code = "import sys; from theorems.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": ROOT, **kwargs.pop("env", {})}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=300, **kwargs)


# ------------------------------------------------------------- safe outputs


def test_a_folder_holding_a_users_file_is_refused_and_kept(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(parallel, "run", None)  # nothing may run: the refusal comes first
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    refused(["check", "row_lemma", "--out", str(mine)], capsys, "is not an attnproof outcome folder")
    assert os.listdir(mine) == ["notes.txt"] and (mine / "notes.txt").read_text() == "keep me"


def test_a_regular_file_is_refused_and_kept(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(parallel, "run", None)
    path = tmp_path / "results"
    path.write_text("keep me")
    refused(["check", "row_lemma", "--out", str(path)], capsys, "exists and is not a folder")
    assert path.read_text() == "keep me"


def test_a_read_only_folder_is_refused_before_any_work_and_keeps_its_mode(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(parallel, "run", None)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        refused(["check", "row_lemma", "--out", str(locked)], capsys, "cannot be written")
        refused(["check", "row_lemma", "--out", str(locked / "inside")], capsys, "cannot be written")
        assert stat.S_IMODE(locked.stat().st_mode) == 0o555 and os.listdir(locked) == []
    finally:
        locked.chmod(0o755)


def test_the_working_directory_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(parallel, "run", None)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "paper.tex").write_text("keep me")
    refused(["check", "row_lemma", "--out", "."], capsys, "is not an attnproof outcome folder")
    assert sorted(os.listdir(tmp_path)) == ["paper.tex"]


def test_a_path_under_proc_is_refused(capsys, monkeypatch):
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc on this system")
    monkeypatch.setattr(parallel, "run", None)
    refused(["check", "row_lemma", "--out", "/proc/attnproof-outcomes"], capsys, "cannot be written")


def test_files_and_folders_get_the_users_umask(tmp_path):
    previous = os.umask(0o027)
    try:
        assert main(["check", *QUICK[:1], "--param", "w_max=4", "--jobs", "1", "--out", str(tmp_path / "o")]) == 0
    finally:
        os.umask(previous)
    out = tmp_path / "o"
    files = [p for p in out.rglob("*") if p.is_file()]
    folders = [out, *(p for p in out.rglob("*") if p.is_dir())]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o640 for p in files)
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o750 for p in folders)


def _points(text: str) -> list:
    return [(claim, "default", {"claim": claim, "says": text, "certificates": []}, []) for claim in ("a.one", "a.two")]


def test_ctrl_c_during_the_swap_is_held_until_every_point_is_in(tmp_path, monkeypatch):
    """SIGINT delivered between the two renames of a point's swap (the old folder moved aside, the new
    not yet in) is held: both points are swapped in and outcomes.json remade, then KeyboardInterrupt is
    raised. Unheld, the interrupt would leave the stage's ``finally`` to remove the old folder and the
    new one: the point lost."""
    out = str(tmp_path / "o")
    store.write(out, _points("old"))
    real, renames = os.replace, []

    def replace(src, dst, *args, **kwargs):
        real(src, dst, *args, **kwargs)
        if os.path.dirname(os.path.dirname(dst)) != out and not os.path.basename(dst).startswith(".old-"):
            return  # a file written into the stage, or outcomes.json
        renames.append(os.path.basename(dst))
        if len(renames) == 1:
            signal.raise_signal(signal.SIGINT)  # Ctrl-C now: the old point moved aside, the new one not yet in

    monkeypatch.setattr(store.os, "replace", replace)
    # SIGINT raises KeyboardInterrupt here, as in a terminal, whatever this process inherited (a run started in
    # the background has it ignored); the inherited handler is put back at the end
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            store.write(out, _points("new"))
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler given back
    finally:
        signal.signal(signal.SIGINT, inherited)
    monkeypatch.undo()
    assert renames == [".old-a.one-default", "default", ".old-a.two-default", "default"]
    for claim in ("a.one", "a.two"):
        with open(os.path.join(out, claim, "default", store.OUTCOME)) as handle:
            assert json.load(handle)["says"] == "new"
    with open(os.path.join(out, store.LIST)) as handle:
        assert [r["says"] for r in json.load(handle)] == ["new", "new"]
    assert not [n for n in os.listdir(out) if n.startswith(store.STAGE_PREFIX)]


# --------------------------------------------------------------- accumulate


def test_a_single_claim_check_after_a_full_run_keeps_the_other_outcomes(tmp_path, capsys):
    out = tmp_path / "latest"
    assert main(["check", *QUICK, "--out", str(out)]) == 0
    first = json.loads((out / "outcomes.json").read_text())
    assert (out / store.MARKER).is_file() and len(first) == 2
    kept = (out / "kernel_rank.row_lemma" / "w_max=4" / "outcome.json").read_bytes()
    # another point of one claim, then the same point again
    assert main(["check", "restriction_lemma", "--param", "m_max=6", "--jobs", "1", "--out", str(out)]) == 0
    assert main(["check", "restriction_lemma", "--param", "m_max=5", "--jobs", "1", "--out", str(out)]) == 0
    assert "holds 3 outcome(s) in all" in capsys.readouterr().out
    listed = json.loads((out / "outcomes.json").read_text())
    assert sorted((r["claim"], r["parameters"].get("m_max")) for r in listed) == [
        ("kernel_rank.restriction_lemma", 5), ("kernel_rank.restriction_lemma", 6), ("kernel_rank.row_lemma", None)]
    assert (out / "kernel_rank.row_lemma" / "w_max=4" / "outcome.json").read_bytes() == kept  # untouched
    assert not [n for n in os.listdir(out) if n.startswith(".attnproof-stage-")]
    assert main(["verify", str(out)]) == 0  # every outcome, old and new, re-checks
    assert "3 of 3 outcome(s) stand" in capsys.readouterr().out


# ------------------------------------------------------------------ budgets


def test_a_budget_that_runs_out_keeps_what_was_certified_labelled_partial(toy, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["check", TOY, "--budget", "0.000001", "--jobs", "1", "--json", "--out", str(out)]) == 1
    [record] = json.loads(capsys.readouterr().out)["outcomes"]
    assert record["status"] == "unknown" and record["unknown"] == {"why": "budget", "partial": True}
    first, second = record["discharged"]
    assert first["certificate"] == "00-rank-lower.cert.json" and second["certificate"] is None
    assert record["certificates"] == ["00-rank-lower.cert.json"]  # the certificate made is kept and written
    assert (out / TOY / "default" / "00-rank-lower.cert.json").is_file()
    assert "partial" in record["rung"] and "verified" not in record["rung"] and "partial" in record["message"]
    # the count, not only the word: one of the toy's two verify obligations was discharged
    assert record["rung"] == "not established: the budget ran out (partial: 1 of 2 verify obligations discharged)"
    assert record["message"].endswith(" (partial: 1 of 2 verify obligations discharged, each with its certificate)")
    assert main(["verify", str(out), "--details"]) == 0  # the kept certificate re-checks; unknown claims nothing
    text = capsys.readouterr().out
    assert "unknown stands" in text and "1 of 1 certificate(s) accepted" in text
    assert main(["check", TOY, "--budget", "0.000001", "--jobs", "1", "--out", str(out)]) == 1
    assert "partial" in capsys.readouterr().out  # the table says so too
    # partial is never verified: an outcome file edited to say so, with every obligation "discharged", does not stand
    path = out / TOY / "default" / "outcome.json"
    forged = json.loads(path.read_text())
    forged.update(status="verified", unknown=None, rung="proved for every parameter",
                  discharged=[dict(d, certificate="00-rank-lower.cert.json") for d in forged["discharged"]])
    path.write_text(json.dumps(forged))
    assert main(["verify", str(out)]) == 1
    assert "verified DOES NOT STAND" in capsys.readouterr().out


# ---------------------------------------------------------- no tracebacks


def test_a_closed_pipe_ends_quietly():
    code = "import sys; from theorems.cli import main; sys.exit(main(['list', '--json']))"
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": ROOT})
    process.stdout.close()  # the reader goes away before the first byte (`attnproof list --json | head -c 0`)
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err, err


def test_a_misspelt_plugin_module_is_one_line_and_exit_2(tmp_path):
    done = command("list", cwd=tmp_path, env={core.MODULES_VARIABLE: "no_such_claims_module"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "no_such_claims_module" in done.stderr


def test_a_duplicate_claim_id_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "twice.py").write_text(
        "from tests.theorems.cli_toy import TwoDiagonals\n"
        "class Again(TwoDiagonals):\n    id = 'kernel_rank.row_lemma'\n"
        "CLAIM = Again()\n")
    done = command("check", "row_lemma", "--out", str(tmp_path / "o"), cwd=tmp_path, env={core.MODULES_VARIABLE: "twice"})
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "kernel_rank.row_lemma" in done.stderr
    assert not (tmp_path / "o").exists()


def _interrupts_as_in_a_shell() -> None:
    """In the child before it starts: SIGINT handled by default and not blocked, as a shell leaves it.

    Ignored and blocked signals survive exec, and a Python started with SIGINT ignored never raises
    KeyboardInterrupt; inside the whole test run something earlier in this process may have left
    SIGINT so (the run passes alone and failed in the full suite)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_stops_at_once_with_one_line_and_keeps_the_previous_outcomes(tmp_path):
    out = tmp_path / "latest"
    assert main(["check", "row_lemma", "--param", "w_max=4", "--jobs", "1", "--out", str(out)]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != store.LIST}
    code = "import sys; from theorems.cli import main; sys.exit(main(sys.argv[1:]))"
    # a first quick point, beside points that take 30 s each (a test claim that waits, so the real
    # claims' speed does not matter; w_max=3, not the 4 done above: a done point is skipped); one worker
    # per point: check starts the longest points first, so with fewer workers than sleepers the quick
    # point would wait 30 s for a worker before the run could be interrupted
    argv = [sys.executable, "-c", code, "check", "row_lemma", "cli_test.sleeper", "--param", "w_max=3",
            "--param", "cli_test.sleeper:seconds=30,31,32", "--jobs", "4", "--out", str(out)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               env={**os.environ, "PYTHONPATH": ROOT, core.MODULES_VARIABLE: "tests.theorems.cli_sleeper"},
                               preexec_fn=_interrupts_as_in_a_shell)
    try:
        line = "?"
        while line and not line.startswith("[1/"):  # the run is under way once a point has finished
            line = process.stderr.readline()
        assert line, "the run ended before a point finished"
        os.killpg(process.pid, signal.SIGINT)  # as Ctrl-C does: the whole foreground group
        # 0.01 s to the first word and 0.5 s to the exit measured on a loaded 2-core machine; a run that
        # waited for its points instead would take about 30 s (each sleeps 30 s and more)
        ready, _, _ = select.select([process.stderr], [], [], 15)
        assert ready, "no answer to Ctrl-C"
        status = process.wait(timeout=15)
        rest = process.stderr.read()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert status == 130 and "Traceback" not in rest, rest
    said = [line for line in rest.splitlines() if line.strip() and not line.startswith("[")]
    said = [line for line in said if not line[:1].isdigit()]  # progress lines ("1/5 point(s) done ...")
    assert len(said) == 1 and "interrupted" in said[0]
    assert {p: p.read_bytes() for p in before} == before  # the previous outcomes are intact
    for path in out.glob("*/*/outcome.json"):  # and every point there is whole
        record = json.loads(path.read_text())
        assert all((path.parent / name).is_file() for name in record["certificates"])
    json.loads((out / store.LIST).read_text())
    assert not [n for n in os.listdir(out) if n.startswith(".attnproof-stage-")]


# --------------------------------------------------------------- selection


def test_a_misspelt_claim_gets_the_nearest_names(capsys):
    err = refused(["check", "restriction_lema", "--estimate"], capsys, "unknown claim")
    assert "did you mean restriction_lemma" in err


def test_a_group_or_a_paper_selects_its_claims_and_estimate_runs_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(parallel, "run", None)  # --estimate runs nothing
    ids = core.registry()
    out = tmp_path / "never"
    assert main(["check", "kernel_rank", "--estimate", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    kernel = [i for i in ids if i.startswith("kernel_rank.")]
    assert kernel and all(i in text for i in kernel)
    assert not any(i in text for i in ids if not i.startswith("kernel_rank."))
    assert f"{len(kernel)} point(s), estimated" in text and "nothing was run" in text
    assert main(["check", "2608.28150", "--estimate", "--param", "softmax_rank.duality:n_vertices=3,4"]) == 0
    text = capsys.readouterr().out
    papers = [i for i, c in ids.items() if c.paper == "2608.28150"]
    assert all(i in text for i in papers) and "kernel_rank." not in text
    assert "n_vertices=3" in text and "n_vertices=4" in text  # each point its own estimate
    assert not out.exists()


def test_report_of_a_misspelt_outcome_folder_is_refused_without_a_check(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli, "cmd_check", lambda args: pytest.fail("the check must not run"))
    typo = tmp_path / "lastest"
    refused(["report", "--outcomes", str(typo), "--out", str(tmp_path / "site")], capsys, "does not exist")
    assert not typo.exists() and not (tmp_path / "site").exists()
