"""Search engines for counterexamples, each saying exactly what it covered.

A conjecture ``for every x in D, P(x)`` is searched for an ``x`` with ``not P(x)``.
Every engine returns a :class:`Search`: the counterexample it found (or None), what it
covered, and whether that was all of the domain it was given.  A search decides
nothing by itself: a counterexample becomes a verdict only once a certificate about it
is accepted by the trusted checker, and a search that finds nothing covers a finite
part of an infinite statement (or, at best, a finite domain in the search code's own
word) — never a proof.

Engines (pick one or combine them):

* :func:`exhaustive` — every tuple ``(x_1, ..., x_k)`` of ``{0,1}^m`` up to the symmetry of
  :mod:`solvers.orbits` (coordinate permutations, and permutations of the first k - 1
  positions), for m = 1, 2, ... up to a size; the first size with a counterexample is the
  smallest, and within it the counterexample with the fewest ones is returned.  One
  representative per orbit covers every tuple only for an invariant property; the
  coverage says so.
* :func:`random_search` — hypothesis draws examples from a strategy (seeded:
  reproducible), and **shrinks** a counterexample to a smallest one (hypothesis's order:
  smaller integers, shorter lists); found examples are kept in a per-project database
  and replayed first.
* :func:`smt_search` — z3 on a small encoding, with a timeout (:mod:`solvers.smt`): a
  model is re-checked exactly; "unsat" is z3's word, not a certificate.
* :func:`linear_sizes` — for sizes s = 1, 2, ..., an exact linear system "some object of
  this shape solves every instance of size s" (e.g. some head of rank one solves every
  sequence of length 3 over {0,1}^s): a feasible size gives an exact point, the first
  infeasible size an exact Motzkin certificate (:mod:`solvers.lp`).

This module knows nothing of attention (``solvers`` never imports ``theorems``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from solvers import orbits


@dataclass
class Search:
    """What one engine did.

    ``found``: the counterexample (engine-specific data), or None.  ``covered``: what was
    searched, as JSON-ready data (sizes, counts, seed, z3's answer).  ``complete``: the
    whole domain given to the engine was covered (exhaustive only).  ``stopped``: why the
    search ended early (a budget, a solver that gave up), "" otherwise.  ``witnesses``:
    for :func:`linear_sizes`, the exact point found at each feasible size.
    """

    engine: str
    found: Any = None
    covered: dict = field(default_factory=dict)
    complete: bool = False
    stopped: str = ""
    witnesses: dict = field(default_factory=dict)

    @property
    def refuted(self) -> bool:
        return self.found is not None


def _never() -> None:
    return None


# ------------------------------------------------------------ exhaustive


def exhaustive(holds: Callable[[int, tuple[int, ...]], bool], sizes: Iterable[int], k: int,
               context_symmetric: bool = True, poll: Callable[[], None] = _never) -> Search:
    """Check ``holds(m, xs)`` on one tuple ``xs`` per orbit of ``({0,1}^m)^k``, m in ``sizes`` ascending.

    Returns at the first size with a failure: ``found = (m, xs)`` with ``xs`` the failing
    representative of least total weight (then least as a tuple).  Coverage counts the
    representatives evaluated and the tuples they stand for (orbit sizes summed: ``2^(mk)``
    per complete size); those stand for every tuple only if ``holds`` is invariant under the
    group, which the caller must know (:func:`solvers.orbits.invariant_under_coordinates`).
    """
    done, evaluated, tuples = [], 0, 0
    group = "S_m on coordinates" + (f" x S_{k - 1} on the first {k - 1} positions" if context_symmetric and k > 2 else "")
    for m in sizes:
        failures = []
        for xs, size in orbits.tuples_up_to_symmetry(m, k, context_symmetric):
            if evaluated % 256 == 0:
                poll()
            evaluated += 1
            tuples += size
            if not holds(m, xs):
                failures.append(xs)
        covered = {"sizes": done + [m], "representatives": evaluated, "tuples": tuples, "group": group}
        if failures:
            best = min(failures, key=lambda xs: (sum(x.bit_count() for x in xs), xs))
            return Search("exhaustive", found=(m, best), covered=covered | {"failing_representatives_at_m": len(failures)})
        done.append(m)
    return Search("exhaustive", covered={"sizes": done, "representatives": evaluated, "tuples": tuples, "group": group},
                  complete=True)


# ----------------------------------------------------------------- random


def import_hypothesis():
    """The hypothesis package, imported (the first time) without its third-party plugins.

    On import hypothesis runs every plugin registered under its entry point; a
    plugin of another installed library (trio's) imports that library and forces
    two full garbage collections, about 0.3 s of CPU, for strategies no search here
    draws from (integers, tuples, lists).  ``HYPOTHESIS_NO_PLUGINS`` is set for
    that one import only; an already imported hypothesis (under pytest) is used as it is.
    """
    import sys

    if "hypothesis" not in sys.modules:
        saved = os.environ.get("HYPOTHESIS_NO_PLUGINS")
        os.environ["HYPOTHESIS_NO_PLUGINS"] = "1"
        try:
            import hypothesis  # noqa: F401  (registered in sys.modules)
        finally:
            if saved is None:
                del os.environ["HYPOTHESIS_NO_PLUGINS"]
            else:
                os.environ["HYPOTHESIS_NO_PLUGINS"] = saved
    return sys.modules["hypothesis"]


class _OutOfTime(BaseException):
    """Raised inside a draw once the search's budget is spent; not an Exception, so not a "failure"."""


def random_search(fails: Callable[[Any], bool], strategy, seed: int, examples: int,
                  database: str | None = None, key: str = "", budget: float | None = None) -> Search:
    """Draw up to ``examples`` values from the hypothesis ``strategy`` (seeded) and return the
    smallest one with ``fails(value)`` true, shrunk by hypothesis.

    ``database``: a folder where hypothesis keeps the examples it found (per project), keyed
    by ``key`` (name the property and its parameters); a stored example is replayed first,
    so a second run finds the same counterexample at once.  ``seed`` fixes every draw (it is
    passed as hypothesis's forced seed, which keeps the database on).  ``budget`` (seconds):
    past it the search ends, ``stopped`` saying so; a counterexample found by then is returned,
    its shrinking cut short.
    """
    import_hypothesis()  # without plugins, when imported here first
    from hypothesis import HealthCheck, Phase, configuration, find, settings
    from hypothesis import core as hypothesis_core
    from hypothesis.database import DirectoryBasedExampleDatabase
    from hypothesis.errors import NoSuchExample

    start, calls, out_of_time, latest = time.monotonic(), [0], [False], [None]

    def condition(value) -> bool:
        if budget is not None and time.monotonic() - start > budget:
            out_of_time[0] = True
            raise _OutOfTime  # a BaseException: hypothesis lets it through at once
        calls[0] += 1
        failed = bool(fails(value))
        if failed:
            latest[0] = value  # kept should the budget end the shrinking: a counterexample all the same
        return failed

    db, home = None, None
    if database is not None:
        os.makedirs(database, exist_ok=True)
        db = DirectoryBasedExampleDatabase(database)
        # hypothesis also caches under its home folder (./.hypothesis by default): keep that in the project too
        home = os.path.dirname(os.path.abspath(database))
    config = settings(max_examples=examples, database=db, deadline=None, derandomize=False,
                      suppress_health_check=list(HealthCheck),
                      phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink])
    covered = {"seed": seed, "max_examples": examples}
    previous = getattr(configuration, "__hypothesis_home_directory", None)
    if home is not None:
        configuration.set_hypothesis_home_dir(home)
    # The seed goes in as hypothesis's forced global seed (what pytest's --hypothesis-seed sets):
    # find(random=...) would apply @seed, which turns the example database off.
    forced = hypothesis_core.global_force_seed
    hypothesis_core.global_force_seed = seed
    try:
        found = find(strategy, condition, settings=config,
                     database_key=(key or "attnproof").encode("utf-8") if db is not None else None)
    except NoSuchExample:
        found = None
    except _OutOfTime:
        found = latest[0]
    finally:
        hypothesis_core.global_force_seed = forced
        if home is not None:
            configuration.set_hypothesis_home_dir(previous)
    covered["evaluations"] = calls[0]
    stopped = ""
    if out_of_time[0]:
        stopped = f"budget of {budget:g} s ran out after {calls[0]} evaluations" + (" (shrinking cut short)" if found is not None else "")
    return Search("random (hypothesis)", found=found, covered=covered, stopped=stopped)


# -------------------------------------------------------------------- smt


def smt_search(constraints: list, budget: float) -> Search:
    """z3 on ``constraints`` (the negation of the property, over real/integer variables).

    ``found``: an exact rational model that re-checks (:func:`solvers.smt.solve`).  "unsat"
    is recorded in the coverage as z3's answer — not re-checkable, so it proves nothing here;
    a timeout or z3's "unknown" sets ``stopped``.
    """
    from solvers import smt  # z3, loaded only by a search that uses it

    result = smt.solve(constraints, budget)
    covered = {"z3": result.status, "constraints": len(constraints), "timeout_ms": int(budget * 1000)}  # exact data only
    if result.status == "sat":
        return Search("z3", found=result.model, covered=covered)
    if result.status == "unsat":
        return Search("z3", covered=covered | {"note": "z3 found no model of this encoding (z3's word, not a certificate)"})
    return Search("z3", covered=covered, stopped=result.reason or "z3 gave no answer")


# ----------------------------------------------------------------- linear


def linear_sizes(system_at: Callable[[int], "lp.LinearSystem"], sizes: Sequence[int], budget: float | None = None,
                 poll: Callable[[], None] = _never) -> Search:
    """Decide ``system_at(s)`` exactly for s in ``sizes`` ascending, until one is infeasible.

    Each feasible size puts its exact point in ``witnesses[s]``; the first infeasible size
    gives ``found = (s, multipliers)`` (an exact Motzkin certificate keyed by row); an
    undecided LP stops the search (``stopped``) — a solver giving up refutes nothing.
    """
    from solvers import lp  # numpy, scipy and z3, loaded only by a search that uses them

    start, witnesses = time.monotonic(), {}
    for s in sizes:
        poll()
        remaining = None if budget is None else max(0.0, budget - (time.monotonic() - start))
        decision = lp.decide(system_at(s), remaining)
        if isinstance(decision, lp.Feasible):
            witnesses[s] = decision.point
        elif isinstance(decision, lp.Infeasible):
            return Search("linear", found=(s, decision.multipliers), covered={"feasible": list(witnesses), "infeasible": s},
                          witnesses=witnesses)
        else:
            return Search("linear", covered={"feasible": list(witnesses), "undecided": s}, stopped=decision.reason,
                          witnesses=witnesses)
    return Search("linear", covered={"feasible": list(witnesses)}, complete=True, witnesses=witnesses)
