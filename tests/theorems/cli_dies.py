"""A test claim whose check kills its own worker process, a given number of times, then succeeds.

``cli_test.dies``: the 2 x 2 identity has rank 2.  Its check certifies that, then counts
its runs at the point in a folder named by ``$ATTNPROOF_TEST_RUNS`` (one file per run,
so the count survives the process) and, while this run is among the first ``deaths``,
ends its process at once (``os._exit``, as a killed or out-of-memory worker would: no
exception, no cleanup, the certificate it made never returned).  It dies only in a
worker: in the process whose id is ``$ATTNPROOF_TEST_PARENT`` (the test's own) it never
does, so a mistaken in-process run fails the test instead of ending it.
"""

from __future__ import annotations

import os
from theorems.core import Parameter

from .cli_sleeper import IdentityRank

RUNS, PARENT = "ATTNPROOF_TEST_RUNS", "ATTNPROOF_TEST_PARENT"


def runs(folder: str, deaths: int) -> int:
    """How many times the check at ``deaths`` has started (the files it left in ``folder``)."""
    return sum(1 for name in os.listdir(folder) if name.startswith(f"deaths={deaths}-"))


class Dies(IdentityRank):
    id = "cli_test.dies"
    title = "The 2 x 2 identity has rank 2, checked by a worker that dies (a test claim)"
    parameters = (Parameter("deaths", 0, 0, 9, "how many of its first runs end their worker process"),)

    def cost(self, point: dict) -> float:
        return 0.0

    def then(self, point: dict, ev) -> None:
        folder, deaths = os.environ[RUNS], point["deaths"]
        run = runs(folder, deaths)
        with open(os.path.join(folder, f"deaths={deaths}-{run}-{os.getpid()}"), "w"):
            pass
        if run < deaths:
            if str(os.getpid()) == os.environ.get(PARENT):
                raise RuntimeError("cli_test.dies would end the test's own process: it must run in a worker")
            os._exit(3)


CLAIM = Dies()
