"""Running independent tasks: in process, on a local process pool, or on Dask.

``run(function, tasks, jobs, scheduler)`` calls ``function(*task)`` for every
task and yields ``(index, result)`` as results arrive.  ``function`` must be
a module-level function (it is pickled to reach the workers).  With a
``scheduler`` address the tasks go to that ``dask.distributed`` cluster;
dask is imported only then, so it is needed only by those who use it.
"""

from __future__ import annotations

import signal
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, Iterator, Sequence


def run(function: Callable, tasks: Sequence[tuple], jobs: int = 1, scheduler: str | None = None) -> Iterator[tuple[int, object]]:
    if scheduler:
        yield from _run_dask(function, tasks, scheduler)
    elif jobs <= 1 or len(tasks) <= 1:
        for index, task in enumerate(tasks):
            yield index, function(*task)
    else:
        pool = ProcessPoolExecutor(max_workers=jobs, initializer=_leave_interrupts_to_the_parent)
        try:
            futures = {pool.submit(function, *task): index for index, task in enumerate(tasks)}
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BaseException:  # Ctrl-C, an error, or the caller stopped reading: stop now, not after the queue
            _stop(pool)
            raise
        pool.shutdown()


def _leave_interrupts_to_the_parent() -> None:
    """In a worker: Ctrl-C reaches the whole process group; the parent alone handles it, by stopping the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the workers at once (a running task is not waited for)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    for process in workers:
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _run_dask(function: Callable, tasks: Sequence[tuple], scheduler: str) -> Iterator[tuple[int, object]]:
    try:
        from dask.distributed import Client, as_completed as dask_completed
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("--scheduler needs dask.distributed: pip install 'dask[distributed]'") from exc
    with Client(scheduler) as client:
        futures = [client.submit(function, *task, pure=False) for task in tasks]
        index_of = {future.key: index for index, future in enumerate(futures)}
        for future in dask_completed(futures):
            yield index_of[future.key], future.result()
