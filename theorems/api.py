"""The public API for a conjecture of your own: everything it needs, from one place.

    from theorems.api import Conjecture, Parameter, Statement, Obligations, obligation, digest

A conjecture is the same object as a built-in claim (:class:`Claim`): a sympy
:class:`Statement`, :class:`Parameter` ranges, ``obligations(point)`` — the judgments of
the trusted checker its verdict needs — an ``expected`` status, and a ``run`` that
searches and certifies.  :class:`Conjecture` only changes the defaults: it is attributed
to its author (``source``, "user conjecture" unless you cite yourself), its ``relation``
to the paper is "a conjecture", and it is ``open`` (a passing search reports
``unknown``, with what it covered — never ``verified``).

How a verdict comes about (``docs/conjectures.md``):

* **refuted** — a search finds a counterexample and the claim certifies it
  (``ev.certify(kind, data)``) with a kind whose judgment discharges a ``refute``
  obligation: for a Min-IP head, ``score-counterexample`` (a head given by its weight and
  readout on (|q|, <q,x>)) or ``rank-one-infeasible`` (no rank-one head at some m, from
  :func:`rank_one_problem` and :func:`rank_one_refutation`); for a softmax inequality, the
  exact or arb kinds of ``solvers/trusted/intervals.py``;
* **unknown** — the search found nothing: record its coverage (``ev.cover``); a budget or a
  solver that gave up also ends here;
* **verified** — only for a claim that is not open, when certificates discharge every
  ``verify`` obligation.

Search engines (:mod:`solvers.search`; each returns a :class:`Search` saying what it
covered): :func:`exhaustive` over orbit representatives, :func:`random_search` (hypothesis,
seeded, shrinking; its database is kept per project, :func:`database`), :func:`smt_search`
(z3 with a timeout), :func:`linear_sizes` (exact LP per size).
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

from solvers.lazy import sympy as sp  # sympy, loaded on first use (attnproof list stays fast)
from solvers.search import Search, exhaustive, import_hypothesis, linear_sizes, random_search, smt_search
from solvers.trusted.core import digest
from theorems.attention import HALF, ScoreHead, bits, min_ip_target, sweep_scores, token_sequence
from theorems.core import (
    Claim, Evidence, Obligation, Obligations, Parameter, ParameterError, Plot, RegistrationError, Statement, obligation,
)

if TYPE_CHECKING:  # the LP problems import numpy and scipy: only a search that uses them loads them
    from theorems.kernel_rank._linearised import Problem

__all__ = [
    "Claim", "Conjecture", "Evidence", "Obligation", "Obligations", "Parameter", "ParameterError", "Plot",
    "RegistrationError", "Statement", "obligation", "digest", "HALF",
    "Search", "exhaustive", "random_search", "smt_search", "linear_sizes", "database",
    "ScoreHead", "sweep_scores", "token_sequence", "bits", "min_ip_target",
    "score_counterexample", "check_score_head", "rank_one_problem", "rank_one_refutation", "rank_one_witness",
    "sp", "z3", "multi_head", "visible_interaction_dimension", *(
        "attention_floats", "search_upper", "search_grouped", "grouped_lower", "lower_certificate_data",
        "upper_certificate_data"),
]

# Loaded when a conjecture first asks for them (``from theorems.api import multi_head``), not with this module:
# z3 (optional to most conjectures), the multi-head model (its LP needs numpy and scipy) and the exact
# visible interaction dimension of softmax logits.
_LAZY = {
    "z3": ("z3", None),
    "multi_head": ("theorems.kernel_rank.multi_head", None),
    **{name: ("theorems.softmax_rank._definitions", name) for name in (
        "visible_interaction_dimension", "attention_floats", "search_upper", "search_grouped", "grouped_lower",
        "lower_certificate_data", "upper_certificate_data")},
}


def __getattr__(name: str):
    """The lazily loaded parts of the API (:data:`_LAZY`): ``sp`` is sympy itself, ``z3`` the SMT solver's
    Python module, ``multi_head`` the model of H rank-one heads mixed affinely
    (``theorems.kernel_rank.multi_head``: ``search_heads``, ``rationalise``, ``fit_readouts``,
    ``certified_heads``, ``TWO_HEADS_M4``), and ``visible_interaction_dimension(L)`` the exact
    ``rank(L P)``, ``P = I - 11^T/N`` (python-flint)."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module, attribute = _LAZY[name]
    loaded = importlib.import_module(module)
    return loaded if attribute is None else getattr(loaded, attribute)


class Conjecture(Claim):
    """A :class:`Claim` with a conjecture's defaults: its author's, open, "a conjecture".

    Set ``id``, ``paper`` (the paper the question is about, or "" for none), ``sentence``
    (the conjecture in words), ``title``, ``expected`` (what a correct installation
    reports at the default point: "unknown" while open, "refuted" once a certified
    counterexample is known), ``parameters``, and the methods ``statement``,
    ``obligations``, ``cost``, ``witness``, ``run``.
    """

    source = "user conjecture"  # who states it: your name or citation; never a paper it does not come from
    relation = "a conjecture"
    established = "open"
    expected = "unknown"


def database() -> str:
    """The random search's example database of this project: ``<project>/.attnproof/hypothesis/examples``
    (the project: see :mod:`theorems.registry`; hypothesis's other caches go beside it)."""
    from theorems.registry import find_project

    return os.path.join(find_project().state, "hypothesis", "examples")


# ------------------------------------------------- certificates of counterexamples


def score_counterexample(ev: Evidence, head: ScoreHead, m: int, w: int, scores: Sequence[int],
                         tolerance: Fraction = HALF) -> dict:
    """Certify that ``head`` errs by >= ``tolerance`` at ``|q| = w <= m`` with these context scores.

    The sequence is realised with ``q = 1^w 0^(m-w)`` and context token j = the first s_j ones
    of q; the ``score-counterexample`` certificate carries the head's tables up to m (so its
    judgment names the same head as an obligation about m).  Returns the counterexample as
    data, its tokens written with w coordinates — the fewest that carry it (the others are 0).
    Judgment: ``fails{model "score-statistic", head digest(tables up to m), m, length n}``.
    """
    kappa_table, value_table = head.tables(m)
    sequence = token_sequence(w, scores)
    ev.certify("score-counterexample", {
        "m": m, "sequence": list(sequence), "kappa": kappa_table, "value": value_table,
        "target": "min-ip", "tolerance": tolerance,
    })
    shown = max(w, 1)
    return {"m": m, "bits_used": shown, "sequence": [bits(x, shown) for x in sequence], "query_weight": w,
            "context_scores": list(scores), "output": head.output(w, scores), "target": min(list(scores) + [w]),
            "error": head.error(w, scores)}


def check_score_head(ev: Evidence, head: ScoreHead, m: int, n: int, seed: int = 0, examples: int = 200,
                     key: str = "", label: str = "", tolerance: Fraction = HALF) -> dict | None:
    """Search a score-statistic head for an error >= ``tolerance`` (in (0, 1/2]) at length n, every m' <= m,
    and certify the answer.

    1. :func:`random_search` (hypothesis, seeded, ``examples`` draws of ``(|q|, context scores)``,
       a failure shrunk to a smallest one; database per project, keyed by ``key``);
    2. if it found nothing, the sweep over every ``(|q|, multiset of context scores)``
       (:func:`theorems.attention.sweep_scores`), which covers every sequence of length n for
       every m' <= m, in order of increasing ``|q|``.

    A counterexample is certified (``score-counterexample``, see :func:`score_counterexample`)
    and recorded with ``ev.fail``; returned as data.  Otherwise the head is certified on every
    sequence (``score-statistic``: ``solves{model "score-statistic", m [1, m], lengths [n], tolerance}``)
    and None is returned.  Coverage goes to ``ev.cover`` under "random" and "statistic" (followed by
    ``label``, for a claim that checks several heads).
    """
    tolerance = Fraction(tolerance)
    if not 0 < tolerance <= HALF:
        raise ValueError(f"tolerance {tolerance} must lie in (0, 1/2]: above 1/2 an error bound does not solve Min-IP")
    import_hypothesis()  # its first import without third-party plugins
    from hypothesis import strategies as st

    found = None
    if examples:
        statistics = st.integers(0, m).flatmap(
            lambda w: st.tuples(st.just(w), st.lists(st.integers(0, w), min_size=n - 1, max_size=n - 1)))
        search = random_search(lambda ws: head.error(ws[0], sorted(ws[1])) >= tolerance, statistics, seed, examples,
                               database=database(), key=key, budget=ev.budget.remaining())
        ev.cover(f"random{label}", {"engine": search.engine, **search.covered})
        if search.found is not None:
            found = (search.found[0], tuple(sorted(search.found[1])))
    sweep = None
    if found is None:
        sweep = sweep_scores(head, m, n, ev.poll, tolerance=tolerance)
        ev.cover(f"statistic{label}", {"m": m, "length": n, "points": sweep.points})
        found = sweep.failure
    if found is not None:
        w, scores = found
        counterexample = score_counterexample(ev, head, m, w, scores, tolerance)
        ev.fail(f"error {counterexample['error']} >= {tolerance} at |q| = {w}, context scores {list(scores)}: "
                f"{' '.join(counterexample['sequence'])} (query last)", counterexample)
        return counterexample
    kappa_table, value_table = head.tables(m)
    ev.fact("worst_error_unchecked", sweep.worst)
    ev.certify("score-statistic", {"m": m, "lengths": [n], "kappa": kappa_table, "value": value_table,
                                   "target": "min-ip", "tolerance": tolerance})
    return None


def rank_one_problem(m: int, n: int, tokens: Sequence[int] | None = None, tolerance: Fraction = HALF) -> Problem:
    """The exact linear problem "some rank-one head has error < ``tolerance`` (in (0, 1/2]) on every
    sequence of exact length n over {0,1}^m" (``theorems.kernel_rank._linearised.rank_one``):
    ``.system`` for :func:`linear_sizes`."""
    from theorems.kernel_rank import _linearised as lin

    return lin.rank_one(m, n, tokens=tokens, tolerance=tolerance)


def rank_one_witness(ev: Evidence, problem: Problem, point: Sequence[Fraction], m: int, n: int) -> Fraction:
    """Certify the head an exact feasible point gives (``exhaustive``: every sequence of length n
    at m, error < the problem's tolerance); returns its worst error.
    Judgment ``solves{model "kernel", rank 1, m [m, m], tolerance}``."""
    from theorems.kernel_rank import _linearised as lin

    size = 1 << m
    psi, U = lin.rank_one_witness(problem, point, range(size), n)
    scale = max(psi.values())
    psi_row = [psi[0, x] / scale for x in range(size)]
    ev.certify("exhaustive", {
        "m": m, "lengths": [n], "phi": [[1]] * size, "psi": [[v] for v in psi_row],
        "readout": [[U[0, q, x] for x in range(size)] for q in range(size)],
        "target": "min-ip", "tolerance": problem.tolerance, "symmetry": "none",
    })
    return lin.worst_error(psi, U, range(size), n, poll=ev.poll)


def rank_one_refutation(ev: Evidence, problem: Problem, multipliers: dict[int, Fraction], m: int) -> dict:
    """Certify "no rank-one head solves exact length n at any m' >= m" from an exact Motzkin
    certificate (``rank-one-infeasible``: the checker rebuilds the rows).  Returns the
    counterexample as data: the sequences (bit strings, query last) the certificate combines,
    and the tokens they use — a smallest set of sequences no rank-one head gets right.

    The checker's kind refutes "error < 1/2" (which covers every smaller tolerance too); an infeasible
    problem at a tolerance t < 1/2 says less, and no kind certifies it: refused (ValueError)."""
    from theorems.kernel_rank import _linearised as lin

    if problem.tolerance != HALF:
        raise ValueError(f"rank-one-infeasible refutes error < 1/2 only; this problem asks for error < {problem.tolerance}, "
                         "which no certificate kind refutes (a refutation at 1/2 covers it)")
    rows, nonneg, _ = lin.certificate_rows(problem, multipliers, m)
    ev.certify("rank-one-infeasible", {"m": m, "positions": False, "rows": rows, "nonnegative": nonneg})
    sequences = sorted({tuple(seq) for _, _, seq in rows})
    tokens = sorted({x for seq in sequences for x in seq})
    return {"m": m, "sequences": [list(s) for s in sequences], "tokens": tokens}
