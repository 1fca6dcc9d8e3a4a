"""attnproof's exact LP pipeline side by side with a peer exact solver (the Parma Polyhedra Library).

    .venv/bin/pip install 'attnproof[peer]'      # passagemath-ppl: PPL's exact MIP_Problem
    nice -n 10 .venv/bin/python bench/peer_lp.py [--cpu-limit SECONDS] [--quick] [--reduced-only]

The problems (all homogeneous and strict, ``a_i . x > 0`` with ``psi >= 0``):

* K3, the full linearised rank-one LP at exact length 3 (``_linearised.rank_one``), m = 4, 5;
* the orbit-type reduced LP (``_linearised.reduced_rank_one``), n = 3, m = 8, 16 written whole;
* the reduced LP at m = 8, 16, 32 (n = 3 and 4, with and without positions) as attnproof decides it, by row generation
  (``_linearised.decide_reduced``), against PPL on every row it generated (PPL has no
  separation oracle; the whole LP has millions of rows).

attnproof: HiGHS in floats, then an exact point or an exact Motzkin certificate
(``solvers.lp.decide``; ``solvers.cutting`` for row generation).  PPL: exact rational
simplex (``MIP_Problem.is_satisfiable``) on ``a_i . x >= 1`` (the strict homogeneous rows
scaled, an equivalent system).  **Both sides run in a forked child under the same CPU
limit** (``RLIMIT_CPU``; a wall-clock guard of 10x the limit + 60 s only catches a child
that sleeps or starves on a crowded machine: shown as "wall guard"), and both are timed by the child's own CPU (``os.wait4``'s rusage: user +
system, every thread of it), so the load of a shared machine hardly enters.  Both
answers are printed (they must agree: feasible / infeasible), with both CPU times and
their ratio, or, when one side hit the limit, a bound on it: "> r" when PPL ran out
(PPL is slower by more than r), "< r" when attnproof did.
"""

from __future__ import annotations

import argparse
import math
import os
import pickle
import resource
import select
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from solvers import lp  # noqa: E402
from theorems.kernel_rank import _linearised as lin  # noqa: E402


def in_child(work, cpu_limit: float):
    """``work()`` in a forked child under ``cpu_limit`` CPU seconds: ``(status, value, cpu)``.

    ``status`` is "done" (``value`` is what work returned), "limit" (the CPU limit ended
    it), "guard" (the wall-clock guard did) or "failed" (``value`` names the error);
    ``cpu`` is the child's user + system time from ``os.wait4`` — for "limit" and "guard"
    a lower bound on what the work needs."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no return from here
        os.close(read)
        try:
            seconds = max(1, math.ceil(cpu_limit))
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
            data = pickle.dumps(("done", work()))
        except BaseException as err:  # noqa: BLE001 - reported to the parent, which prints it
            data = pickle.dumps(("failed", f"{type(err).__name__}: {err}"))
        with os.fdopen(write, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write)
    chunks, deadline, guarded = [], time.monotonic() + 10 * cpu_limit + 60, False
    while True:
        ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            guarded = True
            break
        chunk = os.read(read, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    if guarded:
        return "guard", None, cpu
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
        return "limit", None, cpu
    if not chunks:
        return "failed", f"the child ended with status {status} and no answer", cpu
    outcome, value = pickle.loads(b"".join(chunks))
    return outcome, value, cpu


def ppl_decide(system: lp.LinearSystem):
    """PPL on the system, strict homogeneous rows as ``>= 1`` and weak ones as ``>= 0``: (answer, build CPU s)."""
    import ppl

    start = time.process_time()
    xs = [ppl.Variable(j) for j in range(system.nvars)]
    cs = ppl.Constraint_System()
    for row in system.rows:
        assert row.rhs == 0 and row.sense in (">", ">=")
        scale = math.lcm(*(c.denominator for c in row.coefs.values()))
        expr = ppl.Linear_Expression(0)
        for j, c in row.coefs.items():
            expr += int(c * scale) * xs[j]
        cs.insert(expr >= (1 if row.sense == ">" else 0))
    built = time.process_time() - start
    answer = ppl.MIP_Problem(system.nvars, cs, ppl.Linear_Expression(0)).is_satisfiable()
    return "feasible" if answer else "infeasible", built


def answer(decision) -> str:
    return {lp.Feasible: "feasible", lp.Infeasible: "infeasible"}.get(type(decision), "unknown")


STOPPED = ("limit", "guard")  # the side did not finish: its CPU so far is a lower bound on its need


def ratio(ours: str, ours_cpu: float, peer: str, peer_cpu: float) -> str:
    """PPL's CPU over attnproof's; a bound when one side was stopped (its CPU is then a lower bound)."""
    if ours in STOPPED or peer in STOPPED:
        if (ours in STOPPED and peer in STOPPED) or "failed" in (ours, peer):
            return "-"
        return f"> {peer_cpu / max(ours_cpu, 1e-3):.3g}" if peer in STOPPED else f"< {peer_cpu / ours_cpu:.3g}"
    if "failed" in (ours, peer):
        return "-"
    return f"{peer_cpu / max(ours_cpu, 1e-3):.3g}"


def line(name, rows, cols, ours, ours_cpu, peer, peer_build, peer_cpu):
    agree = "yes" if ours == peer else ("-" if {ours, peer} & {"limit", "guard", "failed"} else "NO")
    build = f"{peer_build:.2f}" if peer_build is not None else "-"
    shown = {"limit": "CPU limit", "guard": "wall guard"}
    print(f"| {name} | {rows:,} | {cols:,} | {shown.get(ours, ours)} | {ours_cpu:.2f}{'+' if ours in STOPPED else ''} | "
          f"{shown.get(peer, peer)} | {build} | {peer_cpu:.2f}{'+' if peer in STOPPED else ''} | "
          f"{ratio(ours, ours_cpu, peer, peer_cpu)} | {agree} |", flush=True)


def run_ppl(system: lp.LinearSystem, limit: float):
    status, value, cpu = in_child(lambda: ppl_decide(system), limit)
    if status != "done":
        if status == "failed":
            print(f"PPL failed: {value}", file=sys.stderr)
        return status, None, cpu
    return value[0], value[1], cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cpu-limit", type=float, default=120.0, help="CPU seconds per problem, for each side")
    parser.add_argument("--quick", action="store_true", help="only the small problems")
    parser.add_argument("--reduced-only", action="store_true", help="only the reduced LP by row generation")
    args = parser.parse_args()
    if not args.cpu_limit > 0:
        sys.exit("bench/peer_lp.py: --cpu-limit must be positive")
    try:
        import ppl  # noqa: F401
    except ImportError:
        sys.exit("bench/peer_lp.py needs PPL: .venv/bin/pip install 'attnproof[peer]' (passagemath-ppl)")
    lin.decide_reduced(2, 3)  # imports and first calls before the fork: neither side pays them
    print(f"CPU seconds of each side's child (rusage), limit {args.cpu_limit:g} s each; load {os.getloadavg()[0]:.1f}")
    print("| problem | rows | columns | attnproof | attnproof CPU s | PPL | PPL build CPU s | PPL CPU s | ratio PPL / attnproof | agree |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    whole = [("K3 full LP, m = 4", lambda: lin.rank_one(4, 3)), ("K3 full LP, m = 5", lambda: lin.rank_one(5, 3)),
             ("reduced n = 3, m = 8 (whole)", lambda: lin.reduced_rank_one(8, 3)),
             ("reduced n = 3, m = 16 (whole)", lambda: lin.reduced_rank_one(16, 3))]
    if args.quick:
        whole = whole[:1] + whole[2:3]
    if args.reduced_only:
        whole = []
    for name, build in whole:
        problem = build()
        ours, value, ours_cpu = in_child(lambda: answer(problem.decide()), args.cpu_limit)
        ours = value if ours == "done" else ours
        peer, peer_build, peer_cpu = run_ppl(problem.system, args.cpu_limit)
        line(name, len(problem.system.rows), problem.system.nvars, ours, ours_cpu, peer, peer_build, peer_cpu)
    for m in (8, 16) if args.quick else (8, 16, 32):
        for n, positions in ((3, False), (3, True), (4, False), (4, True)):
            status, value, ours_cpu = in_child(
                lambda: (lambda f: (answer(f.decision), f.every, f.rows))(lin.decide_reduced(m, n, positions)),
                args.cpu_limit)
            tag = f"reduced n = {n}{' positions' if positions else ''}, m = {m}"
            if status != "done":  # no rows to hand PPL: the search did not finish
                print(f"| {tag} | - | - | {({'limit': 'CPU limit', 'guard': 'wall guard'}).get(status, 'failed')} | {ours_cpu:.2f}+ | "
                      "not run | - | - | - | - |", flush=True)
                continue
            ours, every, total = value
            # PPL on every row the search generated (and psi > 0), the system attnproof settled
            types = lin.ReducedTypes(m, n, positions)
            used = lp.LinearSystem(types.nvars)
            for coefs in [coefs for _, coefs, _ in types.implicit().fixed] + [types.row(k) for k in every]:
                used.add(coefs, ">", 0)
            peer, peer_build, peer_cpu = run_ppl(used, args.cpu_limit)
            line(f"{tag} (generated rows of {total:,})", len(used.rows), used.nvars, ours, ours_cpu, peer, peer_build, peer_cpu)


if __name__ == "__main__":
    main()
