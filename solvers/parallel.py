"""Running independent tasks: in process, on a local process pool, or on Dask.

``run(function, tasks, jobs, scheduler)`` calls ``function(*task)`` for every
task and yields ``(index, result)`` as results arrive.  ``function`` must be
a module-level function (it is pickled to reach the workers).  With a
``scheduler`` address the tasks go to that ``dask.distributed`` cluster;
dask is imported only then, so it is needed only by those who use it
(``pip install 'attnproof[dist]'``).

A task whose worker dies (a killed process, a lost Dask worker) is retried
once (on Dask: as often as the scheduler's ``allowed-failures``, see
:func:`_run_dask`); if it is lost again its result is a :class:`Lost` saying
why — never a missing index, never an exception that ends the other tasks.  An exception
raised by ``function`` itself is not retried (the same input would raise
again): it is a :class:`Lost` too.

:class:`Progress` keeps the count of finished tasks, the elapsed time and an
estimate of what is left (the tasks' own estimates, scaled by how the
finished ones compared with theirs).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, as_completed, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

RETRIES = 1  # a lost task is run once more


@dataclass
class Lost:
    """A task without a result: its worker died (twice) or ``function`` raised."""

    reason: str


def run(function: Callable, tasks: Sequence[tuple], jobs: int = 1, scheduler: str | None = None) -> Iterator[tuple[int, object]]:
    if scheduler:
        yield from _run_dask(function, tasks, scheduler)
    elif jobs <= 1 or len(tasks) <= 1:
        for index, task in enumerate(tasks):
            try:
                yield index, function(*task)
            except Exception as exc:  # the function's own failure: not retried
                yield index, Lost(f"{type(exc).__name__}: {str(exc)[:300]}")
    else:
        yield from _run_pool(function, tasks, jobs)


def _run_pool(function: Callable, tasks: Sequence[tuple], jobs: int) -> Iterator[tuple[int, object]]:
    """The tasks on a pool of ``jobs`` workers; a task whose worker died, run once more alone.

    A worker that dies breaks the whole pool: every unfinished task fails with it, and the pool
    terminates its other workers.  Each worker writes its process id beside a task, in shared
    memory, before running it; after the pool is down, the task whose worker ended other than
    by the pool's termination (SIGTERM) is the one that died: it alone is charged, and run once
    more in a one-worker pool of its own (``jobs`` at a time), where a death is its own: dying
    there too, it is :class:`Lost`.  The others (cut short or not started) go to a fresh pool,
    uncharged.  When no death can be told apart (a worker killed from outside with SIGTERM, or
    one that could not start), every task that had started, else every unfinished one, is
    charged, so each round ends at least one task and the loop ends.
    """
    waiting, charged = dict(enumerate(tasks)), []
    while waiting:
        runner = multiprocessing.get_context().RawArray("q", len(tasks))  # task -> worker pid, 0: not started
        broken = []
        with _stopped_at_once(_pool(jobs, runner)) as pool:
            workers = pool._processes  # pid -> process, as the pool fills it (shutdown drops its reference only)
            futures = {}
            for index, task in waiting.items():
                try:
                    futures[pool.submit(_marked, index, function, task)] = index
                except BrokenProcessPool:  # broken already: the tasks not submitted wait for the next pool
                    break
            for future in as_completed(futures):
                index = futures[future]
                try:
                    result = future.result()
                except BrokenProcessPool:  # a worker died: every unfinished task of the pool
                    broken.append(index)
                    continue
                except Exception as exc:
                    result = Lost(f"{type(exc).__name__}: {str(exc)[:300]}")
                del waiting[index]
                yield index, result
        # the pool is shut down, its workers joined: their exit codes are final
        ended = {pid: process.exitcode for pid, process in list(workers.items())}
        started = [i for i in broken if runner[i]]
        died = [i for i in started if ended.get(runner[i]) not in (None, -signal.SIGTERM)]
        for index in died or started or broken:
            charged.append(index)
            del waiting[index]
    yield from _run_alone(function, {index: tasks[index] for index in charged}, jobs)


def _run_alone(function: Callable, tasks: dict, jobs: int) -> Iterator[tuple[int, object]]:
    """Each task (``{index: task}``) in a one-worker pool of its own, ``jobs`` at a time: the retry."""
    waiting, running = list(tasks.items()), {}
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                index, task = waiting.pop(0)
                pool = _pool(1)
                running[pool.submit(function, *task)] = (index, pool)
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                index, pool = running.pop(future)
                pool.shutdown()
                try:
                    result = future.result()
                except BrokenProcessPool:
                    result = Lost(f"its worker died, and again when it ran alone (after {RETRIES} retry)")
                except Exception as exc:
                    result = Lost(f"{type(exc).__name__}: {str(exc)[:300]}")
                yield index, result
    except BaseException:
        for _, pool in running.values():
            _stop(pool)
        raise


_runner = None  # in a worker of a shared pool: task -> the id of the process that runs it


def _pool(workers: int, runner=None) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(runner,))


def _start_worker(runner) -> None:
    """In a worker: Ctrl-C reaches the whole process group; the parent alone handles it, by stopping the pool."""
    global _runner
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _runner = runner


def _marked(index: int, function: Callable, task: tuple):
    """In a worker: ``function(*task)``, once this process's id is written beside task ``index`` (a
    plain store to shared memory, there before the function can kill the process)."""
    _runner[index] = os.getpid()
    return function(*task)


@contextlib.contextmanager
def _stopped_at_once(pool: ProcessPoolExecutor):
    """The pool, shut down normally at the end; on Ctrl-C, an error, or a caller that stopped reading,
    stopped now (:func:`_stop`), not after its queue: Ctrl-C ends the command within about a second."""
    try:
        yield pool
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Pending tasks cancelled, workers terminated."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    for process in workers:
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _run_dask(function: Callable, tasks: Sequence[tuple], scheduler: str) -> Iterator[tuple[int, object]]:
    """The tasks on a ``dask.distributed`` cluster.

    A task whose worker dies is run again on another worker by the scheduler itself, as long
    as the workers that died while running it number at most the scheduler's
    ``distributed.scheduler.allowed-failures`` (3 by default; 1 gives the process pool's one
    retry, as the README's cluster line sets it); then the task errs with ``KilledWorker``: a
    :class:`Lost`.  The client cannot change that number for a scheduler it did not start, and
    resubmitting after ``KilledWorker`` would multiply it, so the scheduler's setting rules.
    An exception of ``function`` itself is not retried (``retries`` is left at 0), as on the pool.
    """
    try:
        from dask.distributed import Client, as_completed as dask_completed
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("--scheduler needs dask.distributed: pip install 'attnproof[dist]'") from exc
    from distributed.scheduler import KilledWorker

    with Client(scheduler) as client:
        # pure=False: a task is never merged with an equal one; the stamp keeps keys apart between runs
        stamp = time.time_ns()
        futures = [client.submit(function, *task, pure=False, key=f"attnproof-task-{i}-{stamp}")
                   for i, task in enumerate(tasks)]
        index_of = {future.key: index for index, future in enumerate(futures)}
        for future in dask_completed(futures):
            index = index_of[future.key]
            try:
                result = future.result()
            except KilledWorker as exc:  # its workers died, as many times as the scheduler allows and once more
                result = Lost(f"its worker died: {str(exc)[:300]}")
            except Exception as exc:  # the function's own error
                result = Lost(f"{type(exc).__name__}: {str(exc)[:300]}")
            yield index, result


class Progress:
    """Points done / total, elapsed seconds, and the estimate of what is left.

    ``estimates[i]`` is task i's own estimate (seconds); once some are done, what is
    left is the unfinished estimates times the ratio actual / estimated of the finished
    ones, divided by the workers (a plain sum before any is done).
    """

    def __init__(self, estimates: Sequence[float], workers: int = 1, skipped: int = 0):
        self.estimates = list(estimates)
        self.workers = max(1, workers)
        self.total = len(self.estimates) + skipped
        self.done = skipped
        self.start = time.monotonic()
        self.left = set(range(len(self.estimates)))
        self.spent, self.expected = 0.0, 0.0

    def finished(self, index: int, seconds: float) -> None:
        self.left.discard(index)
        self.done += 1
        self.spent += seconds
        self.expected += self.estimates[index]

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def remaining(self) -> float:
        ratio = self.spent / self.expected if self.expected > 0 else 1.0
        return sum(self.estimates[i] for i in self.left) * ratio / self.workers

    def line(self) -> str:
        return f"[{self.done}/{self.total} point(s) done, {self.elapsed():.1f} s elapsed, about {self.remaining():.1f} s left]"
