"""The search engines of solvers/search.py: what each finds, and what each says it covered."""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import z3
from hypothesis import strategies as st

from solvers import lp, search

SEARCH = Path(search.__file__)


def test_solvers_search_imports_nothing_of_theorems():
    tree = ast.parse(SEARCH.read_text(encoding="utf-8"))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert names and not [n for n in names if n.split(".")[0] == "theorems"]


# ------------------------------------------------------------------ exhaustive


def test_exhaustive_finds_the_smallest_size_and_the_lightest_representative():
    # "no two tokens share two coordinates": false first at m = 2, lightest failure (11, 11)
    result = search.exhaustive(lambda m, xs: (xs[0] & xs[1]).bit_count() < 2, range(1, 5), 2)
    assert result.refuted and result.found == (2, (3, 3))
    assert result.covered["sizes"] == [1, 2] and not result.complete
    assert result.covered["tuples"] == 2 ** (1 * 2) + 2 ** (2 * 2)  # sizes 1 and 2, every tuple once


def test_exhaustive_without_a_counterexample_covers_every_tuple_of_every_size():
    result = search.exhaustive(lambda m, xs: True, range(1, 4), 3)
    assert not result.refuted and result.complete
    assert result.covered["tuples"] == sum(2 ** (3 * m) for m in range(1, 4))
    assert result.covered["representatives"] < result.covered["tuples"]  # orbits, not tuples, were evaluated
    assert "S_2" in result.covered["group"]


def test_exhaustive_polls_its_budget():
    calls = []
    search.exhaustive(lambda m, xs: True, [3], 2, poll=lambda: calls.append(1))
    assert calls


# ---------------------------------------------------------------------- random


def test_random_search_shrinks_to_the_smallest_counterexample_and_is_reproducible(tmp_path):
    fails = lambda xs: sum(xs) >= 10 and len(xs) >= 2  # smallest: two entries summing to 10
    strategy = st.lists(st.integers(0, 1000), max_size=8)
    first = search.random_search(fails, strategy, 7, 500, database=str(tmp_path / "db"), key="sum")
    assert first.refuted and len(first.found) == 2 and sum(first.found) == 10
    assert first.covered["seed"] == 7 and 0 < first.covered["evaluations"]
    again = search.random_search(fails, strategy, 7, 500, database=str(tmp_path / "db"), key="sum")
    assert again.found == first.found
    assert any((tmp_path / "db").iterdir())  # the example database lives where it was asked to ...
    assert again.covered["evaluations"] < first.covered["evaluations"]  # ... and the stored example is replayed first
    # without a database the seed alone reproduces the run, draw for draw
    runs = [search.random_search(fails, strategy, 11, 500) for _ in range(2)]
    assert runs[0].found == runs[1].found and runs[0].covered == runs[1].covered and sum(runs[0].found) == 10


def test_random_search_that_finds_nothing_says_how_much_it_drew():
    result = search.random_search(lambda x: False, st.integers(), 0, 40)
    assert not result.refuted and not result.complete and result.covered["evaluations"] == 40


def test_random_search_out_of_budget_stops_honestly():
    result = search.random_search(lambda x: False, st.integers(), 0, 10_000, budget=0.0)
    assert not result.refuted and "budget" in result.stopped


# ------------------------------------------------------------------------- smt


def test_smt_search_returns_an_exact_model_and_never_trusts_unsat():
    x = z3.Real("x")
    found = search.smt_search([x * x == 4, x > 0], 10.0)
    assert found.refuted and found.found == {"x": Fraction(2)} and found.covered["z3"] == "sat"
    none = search.smt_search([x * x < 0], 10.0)
    assert not none.refuted and none.covered["z3"] == "unsat" and "not a certificate" in none.covered["note"]
    irrational = search.smt_search([x * x == 2], 10.0)  # a model exists, but not a rational one
    assert not irrational.refuted and irrational.stopped


# ---------------------------------------------------------------------- linear


def test_linear_sizes_returns_witnesses_then_the_first_infeasible_size_with_a_certificate():
    systems = {}

    def system_at(s):  # x > s and x < 3: feasible for s = 1, 2, infeasible from 3
        system = lp.LinearSystem(1)
        system.add({0: 1}, ">", s)
        system.add({0: 1}, "<", 3)
        systems[s] = system
        return system

    result = search.linear_sizes(system_at, range(1, 6))
    assert result.refuted and result.found[0] == 3 and set(result.witnesses) == {1, 2}
    assert all(lp.holds(systems[s], p) for s, p in result.witnesses.items())
    assert lp.refutes(systems[3], result.found[1])  # the certificate is exact
    assert result.covered == {"feasible": [1, 2], "infeasible": 3}
    whole = search.linear_sizes(system_at, [1, 2])
    assert not whole.refuted and whole.complete


def test_hypothesis_is_imported_without_third_party_plugins_and_the_environment_restored():
    """In a fresh process (pytest has imported hypothesis already): no module of a registered
    hypothesis plugin is loaded by the search's import, and HYPOTHESIS_NO_PLUGINS is not left set."""
    import subprocess
    import sys

    code = (
        "import importlib.metadata, os, sys\n"
        "from solvers.search import import_hypothesis\n"
        "plugins = [e.value.split(':')[0] for e in importlib.metadata.entry_points(group='hypothesis')]\n"
        "before = set(sys.modules)\n"
        "h = import_hypothesis()\n"
        "assert h is sys.modules['hypothesis'] and h.strategies.integers(0, 3) is not None\n"
        "assert 'HYPOTHESIS_NO_PLUGINS' not in os.environ\n"
        "print(sorted(p for p in plugins if p in set(sys.modules) - before))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[3],
                          env={k: v for k, v in __import__("os").environ.items() if k != "HYPOTHESIS_NO_PLUGINS"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
