"""``solvers.parallel``: every task yields exactly one result, in process or on a pool; a function's own
error is a :class:`Lost` that is not retried; a dying worker's task is retried once, alone; Progress's
arithmetic.  The sweeps built on it (and Dask) are tested in tests/theorems/test_sweep.py and
test_dying_workers.py; these tests call the module's pieces directly, in this process where they can
(the worker-side helpers too), so each result, message and count is pinned.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from solvers import parallel


def _square(k: int) -> int:
    return k * k


def _square_or_raise(k: int, folder: str = "") -> int:
    if folder:  # count the runs of each task
        with open(os.path.join(folder, f"{k}-{os.getpid()}-{time.monotonic_ns()}"), "w"):
            pass
    if k == 2:
        raise ValueError("two is " + "x" * 400)
    return k * k


def _pid(_k: int) -> int:
    return os.getpid()


def _dies_first_time(k: int, folder: str) -> int:
    """Task 1 ends its worker the first time it runs, then succeeds; every run leaves a file."""
    runs = len([n for n in os.listdir(folder) if n.startswith(f"{k}-")])
    with open(os.path.join(folder, f"{k}-{runs}"), "w"):
        pass
    if k == 1 and runs == 0:
        os._exit(3)
    return k * k


def runs_of(folder, k: int) -> int:
    return len([n for n in os.listdir(folder) if n.startswith(f"{k}-")])


def test_in_process_every_task_in_order_and_an_error_is_lost_with_its_words():
    assert list(parallel.run(_square, [(k,) for k in range(4)])) == [(0, 0), (1, 1), (2, 4), (3, 9)]
    results = list(parallel.run(_square_or_raise, [(k,) for k in range(4)], jobs=1))
    assert [i for i, _ in results] == [0, 1, 2, 3] and results[3] == (3, 9)
    assert results[2][1] == parallel.Lost("ValueError: two is " + "x" * 293)  # 300 characters of the message
    assert list(parallel.run(_square, [])) == []
    # one task, or one job: run here, in this process
    assert list(parallel.run(_pid, [(0,)], jobs=2)) == [(0, os.getpid())]
    assert list(parallel.run(_pid, [(0,), (1,)], jobs=0)) == [(0, os.getpid()), (1, os.getpid())]
    assert list(parallel.run(_pid, [(0,), (1,)])) == [(0, os.getpid()), (1, os.getpid())]  # one job by default
    assert list(parallel.run(_pid, [(0,), (1,)], jobs=1)) == [(0, os.getpid()), (1, os.getpid())]
    assert os.getpid() not in {pid for _, pid in parallel.run(_pid, [(0,), (1,)], jobs=2)}  # two tasks, two jobs: a pool


def test_on_a_pool_every_task_yields_once_and_a_functions_own_error_is_not_retried(tmp_path):
    results = list(parallel.run(_square_or_raise, [(k, str(tmp_path)) for k in range(6)], jobs=2))
    assert sorted(i for i, _ in results) == list(range(6))
    got = dict(results)
    assert got[2] == parallel.Lost("ValueError: two is " + "x" * 293)
    assert all(got[k] == k * k for k in (0, 1, 3, 4, 5))
    assert all(runs_of(tmp_path, k) == 1 for k in range(6))  # nothing retried
    pids = {r for _, r in parallel.run(_pid, [(k,) for k in range(4)], jobs=2)}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2  # in at most two workers, none of them this process


def test_a_task_whose_worker_died_once_is_run_once_more_alone_and_gives_its_result(tmp_path):
    got = dict(parallel.run(_dies_first_time, [(k, str(tmp_path)) for k in range(4)], jobs=2))
    assert got == {0: 0, 1: 1, 2: 4, 3: 9}
    assert runs_of(tmp_path, 1) == 2  # died, then retried once


def test_the_retry_runs_each_task_alone_and_says_why_one_is_lost(tmp_path, monkeypatch):
    got = dict(parallel._run_alone(_square_or_raise, {4: (3,), 7: (2,), 9: (5,)}, 2))
    assert got == {4: 9, 7: parallel.Lost("ValueError: two is " + "x" * 293), 9: 25}
    assert dict(parallel._run_alone(_square, {}, 2)) == {}
    died = dict(parallel._run_alone(_dies_first_time, {1: (1, str(tmp_path))}, 1))
    assert died == {1: parallel.Lost(f"its worker died, and again when it ran alone (after {parallel.RETRIES} retry)")}
    assert parallel.RETRIES == 1


def test_the_retry_stops_its_pools_when_its_caller_stops(monkeypatch):
    stopped, real = [], parallel._stop
    monkeypatch.setattr(parallel, "_stop", lambda pool: stopped.append(pool) or real(pool))
    results = parallel._run_alone(_square, {0: (1,), 1: (2,), 2: (3,)}, 2)
    next(results)
    results.close()  # GeneratorExit at the yield: every pool still running is stopped
    assert len(stopped) >= 1


def test_a_worker_marks_its_task_with_its_process_id_before_running_it(monkeypatch):
    runner = [0, 0, 0]
    monkeypatch.setattr(parallel, "_runner", runner)
    assert parallel._marked(1, _square, (7,)) == 49
    assert runner == [0, os.getpid(), 0]
    before = signal.getsignal(signal.SIGINT)
    try:
        parallel._start_worker("table")
        assert parallel._runner == "table"
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # Ctrl-C is the parent's to handle
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_pool_is_stopped_at_once_on_an_error_and_shut_down_otherwise(monkeypatch):
    class Pool:
        def __init__(self):
            self.calls = []

        def shutdown(self, wait=True, cancel_futures=False):
            self.calls.append(("shutdown", wait, cancel_futures))

    stopped = []
    monkeypatch.setattr(parallel, "_stop", lambda pool: stopped.append(pool))
    pool = Pool()
    with parallel._stopped_at_once(pool) as given:
        assert given is pool
    assert pool.calls == [("shutdown", True, False)] and stopped == []
    pool = Pool()
    with pytest.raises(KeyboardInterrupt):
        with parallel._stopped_at_once(pool):
            raise KeyboardInterrupt
    assert stopped == [pool] and pool.calls == []


def test_stop_terminates_the_workers_and_cancels_what_waits():
    class Process:
        def __init__(self):
            self.terminated = False

        def terminate(self):
            self.terminated = True

    class Pool:
        def __init__(self, processes):
            self._processes, self.calls = processes, []

        def shutdown(self, wait=True, cancel_futures=False):
            self.calls.append((wait, cancel_futures))

    workers = {1: Process(), 2: Process()}
    pool = Pool(workers)
    parallel._stop(pool)
    assert all(p.terminated for p in workers.values()) and pool.calls == [(False, True)]
    forgotten = Pool(None)  # after shutdown a pool forgets its workers
    parallel._stop(forgotten)
    assert forgotten.calls == [(False, True)]
    del forgotten._processes  # or never had them
    parallel._stop(forgotten)
    assert forgotten.calls == [(False, True)] * 2


def test_a_shared_pool_has_as_many_workers_as_jobs_and_the_table_of_every_task(monkeypatch):
    built, real = [], parallel._pool
    monkeypatch.setattr(parallel, "_pool", lambda workers, runner=None: built.append((workers, runner)) or real(workers, runner))
    assert sorted(parallel._run_pool(_square, [(k,) for k in range(5)], 3)) == [(k, k * k) for k in range(5)]
    [(workers, runner)] = built
    assert workers == 3 and len(runner) == 5 and all(pid > 0 for pid in runner)  # each task marked by its worker


def test_a_pool_built_for_a_sweep_has_its_workers_and_its_table():
    pool = parallel._pool(2, "table")
    try:
        assert pool._max_workers == 2
        assert pool._initializer is parallel._start_worker and pool._initargs == ("table",)
    finally:
        pool.shutdown()
    alone = parallel._pool(1)
    try:
        assert alone._max_workers == 1 and alone._initargs == (None,)
    finally:
        alone.shutdown()


def test_progress_scales_what_is_left_by_how_the_finished_compared_with_their_estimates(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(parallel.time, "monotonic", lambda: clock[0])
    meter = parallel.Progress([10.0, 30.0, 20.0, 40.0], workers=2, skipped=3)
    assert (meter.total, meter.done, meter.left) == (7, 3, {0, 1, 2, 3})
    assert meter.remaining() == 50.0  # (10 + 30 + 20 + 40) / 2 workers, before anything finished
    meter.finished(1, 15.0)  # half its estimate
    meter.finished(1, 0.0)  # told twice: counted twice (the caller tells each once)
    assert meter.done == 5 and meter.left == {0, 2, 3}
    assert meter.remaining() == (10 + 20 + 40) * (15.0 / 60.0) / 2
    clock[0] = 112.25
    assert meter.elapsed() == 12.25
    assert meter.line() == "[5/7 point(s) done, 12.2 s elapsed, about 8.8 s left]"
    assert parallel.Progress([5.0], workers=0).remaining() == 5.0  # no workers counts as one
    fresh = parallel.Progress([5.0, 1.0])  # nothing skipped, one worker, by default
    assert (fresh.total, fresh.done, fresh.workers, fresh.remaining()) == (2, 0, 1, 6.0)
    half = parallel.Progress([0.5, 4.0])
    half.finished(0, 1.0)  # estimates below a second scale what is left too
    assert half.remaining() == 8.0
    free = parallel.Progress([0.0, 4.0])
    free.finished(0, 3.0)  # a task estimated at nothing: the ratio stays 1
    assert free.remaining() == 4.0



def test_tasks_not_submitted_to_a_pool_broken_already_go_to_the_next_pool(monkeypatch):
    from concurrent.futures.process import BrokenProcessPool

    real, pools = parallel._pool, []

    class BreaksAtItsSecondTask:
        """The first pool: its second submit finds it broken (a worker died meanwhile)."""

        def __init__(self, pool):
            self.pool, self.submitted = pool, 0

        @property
        def _processes(self):
            return self.pool._processes

        def submit(self, *args):
            self.submitted += 1
            if self.submitted == 2:
                raise BrokenProcessPool("broken on purpose")
            return self.pool.submit(*args)

        def shutdown(self, *args, **kwargs):
            return self.pool.shutdown(*args, **kwargs)

    def pool(workers, runner=None):
        made = real(workers, runner)
        pools.append(made)
        return BreaksAtItsSecondTask(made) if len(pools) == 1 else made

    monkeypatch.setattr(parallel, "_pool", pool)
    assert sorted(parallel._run_pool(_square, [(k,) for k in range(4)], 2)) == [(0, 0), (1, 1), (2, 4), (3, 9)]
    assert len(pools) == 2  # the rest, uncharged, in a fresh shared pool (not one pool per task)


def test_the_retry_runs_at_most_jobs_pools_at_a_time(monkeypatch):
    real, live, most = parallel._pool, [0], [0]

    class Counted:
        def __init__(self, pool):
            self.pool = pool
            live[0] += 1
            most[0] = max(most[0], live[0])

        def submit(self, *args):
            return self.pool.submit(*args)

        def shutdown(self, *args, **kwargs):
            live[0] -= 1
            return self.pool.shutdown(*args, **kwargs)

    sizes = []
    monkeypatch.setattr(parallel, "_pool", lambda workers, runner=None: sizes.append(workers) or Counted(real(workers, runner)))
    for jobs in (1, 2):
        most[0] = 0
        assert dict(parallel._run_alone(_square, {k: (k,) for k in range(4)}, jobs)) == {k: k * k for k in range(4)}
        assert most[0] == jobs and live[0] == 0
    assert sizes == [1] * 8  # each task alone in a pool of one worker


def _waits_for(name: str, folder: str) -> bool:
    """Returns at once for "fast"; "slow" waits (20 s at most) for the file ``go``, and says whether it came."""
    go = os.path.join(folder, "go")
    if name == "slow":
        for _ in range(400):
            if os.path.exists(go):
                return True
            time.sleep(0.05)
        return False
    return True


def test_the_retry_yields_each_result_as_it_arrives(tmp_path):
    results = parallel._run_alone(_waits_for, {0: ("slow", str(tmp_path)), 1: ("fast", str(tmp_path))}, 2)
    assert next(results) == (1, True)  # while the slow one still runs
    (tmp_path / "go").write_text("")
    assert next(results) == (0, True)  # it saw the file written after the fast one's result arrived
