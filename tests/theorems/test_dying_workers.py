"""Workers that die mid-sweep (issue 14): on the process pool and on a Dask cluster, a point whose
worker dies is run once more; dying again, it is ``unknown`` (not established), written whole and
alone, and the next run tries it again; the other points keep their real outcomes.

The dying is real: ``cli_test.dies`` (tests/theorems/cli_dies.py) ends its own worker process.
"""

import json
import os
import time

import pytest

from solvers import parallel
from theorems import core, store, verification
from theorems.cli import main

from . import cli_dies

DIES = cli_dies.CLAIM.id
SWEEP = [DIES, "--param", "deaths=0,1,2"]


@pytest.fixture
def dying(monkeypatch, tmp_path):
    """The claim registered here and named for processes that find claims as a user's would (Dask's
    workers, ``verify``); its run counts kept in a folder of their own. Yields that folder."""
    core.registry()
    core.register(cli_dies.CLAIM)
    monkeypatch.setenv(core.MODULES_VARIABLE, "tests.theorems.cli_dies")
    folder = tmp_path / "runs"
    folder.mkdir()
    monkeypatch.setenv(cli_dies.RUNS, str(folder))
    monkeypatch.setenv(cli_dies.PARENT, str(os.getpid()))
    yield str(folder)
    core._REGISTRY.pop(DIES, None)


def by_deaths(out) -> dict:
    records = {}
    for path in out.glob(f"{DIES}/*/{store.OUTCOME}"):
        record = json.loads(path.read_text())
        records[record["parameters"]["deaths"]] = record | {"files": sorted(os.listdir(path.parent))}
    return records


def assert_whole(out) -> None:
    """Nothing half-written: no staging left over, and each point folder holds its outcome and exactly
    the certificates it names."""
    assert not [name for name in os.listdir(out) if name.startswith(store.STAGE_PREFIX)]
    for record in by_deaths(out).values():
        assert record["files"] == sorted([store.OUTCOME, *record["certificates"]])


def assert_first_sweep(out, runs: str) -> None:
    """A run cut short by another's death is run again, uncharged (the pool terminates every worker
    when one dies; Dask recomputes a result lost with the worker that held it), so the point that
    died once may have run more than twice; the one that always dies ran exactly twice."""
    records = by_deaths(out)
    assert sorted(records) == [0, 1, 2]
    assert records[0]["status"] == "verified" and records[1]["status"] == "verified"  # died once: retried, real outcome
    assert [d["certificate"] for d in records[1]["discharged"]] == records[1]["certificates"] != []
    lost = records[2]  # died twice: unknown, not established, nothing discharged
    assert lost["status"] == "unknown" and lost["unknown"] == {"why": "not established", "partial": False}
    assert [d["certificate"] for d in lost["discharged"]] == [None] and lost["certificates"] == []
    assert "died" in lost["message"]
    assert cli_dies.runs(runs, 2) == 2  # retried once: no more, no less
    assert cli_dies.runs(runs, 1) >= 2
    assert_whole(out)


def assert_rerun(out, runs: str) -> None:
    """The next run tries the lost point again (its third run survives), and it is verified."""
    records = by_deaths(out)
    assert records[2]["status"] == "verified" and records[2]["unknown"] is None
    assert cli_dies.runs(runs, 2) == 3
    assert_whole(out)


def test_a_sweep_on_the_process_pool_survives_dying_workers(tmp_path, dying, capsys):
    out = tmp_path / "o"
    assert main(["check", *SWEEP, "--out", str(out), "--jobs", "2"]) == 1  # an unknown is not the expected verified
    assert_first_sweep(out, dying)
    # what was written stands (the unknown understates, never overstates); one process per stage, so
    # this says nothing of verify's own parallel workers
    verified = verification.verify([str(out)], jobs=1)
    assert verified.ok and len(verified.outcomes) == 3, verification.lines(verified, [str(out)])
    assert main(["check", *SWEEP, "--out", str(out), "--jobs", "2"]) == 0
    assert_rerun(out, dying)


def _square_or_die(k: int) -> int:
    if k == 0:
        os._exit(3)
    return k * k


def test_tasks_that_shared_a_pool_with_a_dying_worker_are_not_charged_for_it():
    # the pool breaks under every task still unfinished and terminates its other workers; only the
    # task whose worker died is charged, so only it, dying again alone, is lost
    results = dict(parallel.run(_square_or_die, [(k,) for k in range(8)], jobs=2))
    assert sorted(results) == list(range(8))
    assert isinstance(results[0], parallel.Lost) and "died" in results[0].reason
    assert all(results[k] == k * k for k in range(1, 8))


def _dies_beside_a_running_task(k: int, folder: str):
    """Task 0 dies once task 1 is running (so task 1 is started and unfinished when the pool breaks); task 1
    waits, the first time, to be cut short. Each returns whether it ran in a pool of its own (the retry of a
    charged task: its pool has no task-to-worker table)."""
    started = os.path.join(folder, "1-started")
    if k == 0:
        for _ in range(1200):  # a minute at most, then it dies anyway
            if os.path.exists(started):
                break
            time.sleep(0.05)
        os._exit(3)
    if k == 1 and not os.path.exists(started):
        open(started, "w").close()
        time.sleep(120)  # cut short by the pool's termination of its workers when task 0 dies
    return k, parallel._runner is None


def test_a_task_cut_short_beside_a_dying_worker_is_not_charged_even_when_it_had_started(tmp_path):
    # task 1 had started when task 0's worker died: it is run again in a shared pool, uncharged, not alone
    results = dict(parallel.run(_dies_beside_a_running_task, [(k, str(tmp_path)) for k in range(4)], jobs=2))
    assert sorted(results) == [0, 1, 2, 3]
    assert isinstance(results[0], parallel.Lost) and "died" in results[0].reason
    assert (tmp_path / "1-started").exists()
    assert [results[k] for k in (1, 2, 3)] == [(1, False), (2, False), (3, False)]


def test_a_sweep_on_a_dask_cluster_survives_dying_workers(tmp_path, dying, capsys, dask_cluster):
    import dask

    out = tmp_path / "o"
    # one retry per death, as on the pool (the README's cluster line sets the same); one task per
    # single-thread worker, so a death is charged to the task that ran there and to no queued one
    with dask.config.set({"distributed.scheduler.allowed-failures": 1, "distributed.scheduler.worker-saturation": 1.0}):
        with dask_cluster() as cluster:
            assert main(["check", *SWEEP, "--out", str(out), "--scheduler", cluster.scheduler_address]) == 1
            assert_first_sweep(out, dying)
            assert main(["check", *SWEEP, "--out", str(out), "--scheduler", cluster.scheduler_address]) == 0
            assert_rerun(out, dying)


def _exit_at_start(*_):
    os._exit(3)


def test_a_pool_whose_workers_cannot_start_ends_with_every_task_lost(monkeypatch):
    # no task ever starts, so none is marked: all are charged at once and each fails alone; the run ends
    monkeypatch.setattr(parallel, "_start_worker", _exit_at_start)
    results = dict(parallel.run(_square_or_die, [(k,) for k in range(1, 4)], jobs=2))
    assert sorted(results) == [0, 1, 2] and all(isinstance(r, parallel.Lost) for r in results.values())
