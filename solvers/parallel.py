"""Running independent tasks: in process, on a local process pool, or on Dask.

``run(function, tasks, jobs, scheduler)`` calls ``function(*task)`` for every
task and yields ``(index, result)`` as results arrive.  ``function`` must be
a module-level function (it is pickled to reach the workers).  With a
``scheduler`` address the tasks go to that ``dask.distributed`` cluster;
dask is imported only then, so it is needed only by those who use it
(``pip install 'attnproof[dist]'``).

A task whose worker dies (a killed process, a lost Dask worker) is retried
once; if it is lost again its result is a :class:`Lost` saying why — never a
missing index, never an exception that ends the other tasks.  An exception
raised by ``function`` itself is not retried (the same input would raise
again): it is a :class:`Lost` too.

:class:`Progress` keeps the count of finished tasks, the elapsed time and an
estimate of what is left (the tasks' own estimates, scaled by how the
finished ones compared with theirs).
"""

from __future__ import annotations

import contextlib
import signal
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
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
    pending = dict(enumerate(tasks))
    tries = dict.fromkeys(pending, 0)
    while pending:
        broken = []
        with _stopped_at_once(ProcessPoolExecutor(max_workers=jobs, initializer=_leave_interrupts_to_the_parent)) as pool:
            futures = {pool.submit(function, *task): index for index, task in pending.items()}
            for future in as_completed(futures):
                index = futures[future]
                try:
                    result = future.result()
                except BrokenProcessPool as exc:  # a worker died: every unfinished task of the pool
                    broken.append((index, f"worker died: {exc}"))
                    continue
                except Exception as exc:
                    result = Lost(f"{type(exc).__name__}: {str(exc)[:300]}")
                del pending[index]
                yield index, result
        for index, why in broken:
            tries[index] += 1
            if tries[index] > RETRIES:
                del pending[index]
                yield index, Lost(f"{why} (after {RETRIES} retry)")


@contextlib.contextmanager
def _stopped_at_once(pool: ProcessPoolExecutor):
    """The pool, shut down normally at the end; on Ctrl-C, an error, or a caller that stopped reading,
    stopped now (pending tasks cancelled, workers terminated), not after its queue: Ctrl-C ends
    the command within about a second."""
    try:
        yield pool
    except BaseException:
        workers = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
        for process in workers:
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def _leave_interrupts_to_the_parent() -> None:
    """In a worker: Ctrl-C reaches the whole process group; the parent alone handles it, by stopping the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_dask(function: Callable, tasks: Sequence[tuple], scheduler: str) -> Iterator[tuple[int, object]]:
    try:
        from dask.distributed import Client, as_completed as dask_completed
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("--scheduler needs dask.distributed: pip install 'attnproof[dist]'") from exc
    with Client(scheduler) as client:
        # A task whose worker dies is rescheduled by the scheduler (its allowed-failures, then
        # KilledWorker); retries: one more run of a task that erred; pure=False: a task is
        # never merged with an equal one.
        stamp = time.time_ns()
        futures = [client.submit(function, *task, pure=False, retries=RETRIES, key=f"attnproof-task-{i}-{stamp}")
                   for i, task in enumerate(tasks)]
        index_of = {future.key: index for index, future in enumerate(futures)}
        for future in dask_completed(futures):
            index = index_of[future.key]
            try:
                result = future.result()
            except Exception as exc:  # KilledWorker after the retries, or the function's own error
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
