"""The trusted checker reads in one sitting: sizes, independence of the families, and each claim's reading list.

Sizes are code lines (:func:`reading_list.code_lines`: blank lines, comment lines and docstrings aside).
"""

import ast
import json
import os
import subprocess
import sys

import pytest

from solvers.trusted import core
from tests.solvers.trusted import reading_list

FAMILY_LIMIT = 400  # code lines of one family module
CORE_CEILING = 300  # code lines of parse.py + core.py + verdicts.py: it may only shrink
FAMILIES = sorted(f"{name}.py" for name in core.FAMILIES)
SHARED = sorted(reading_list.SHARED)


def _imports(file: str) -> set[str]:
    with open(os.path.join(reading_list.PACKAGE, file), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out |= {f"{node.module}.{a.name}" for a in node.names} | {node.module or ""}
    return out


def test_every_family_module_is_in_the_table_and_nothing_else():
    on_disk = {f for f in os.listdir(reading_list.PACKAGE) if f.endswith(".py")}
    assert set(FAMILIES) <= on_disk
    assert on_disk - set(FAMILIES) == {"__init__.py", "__main__.py", "parse.py", "core.py", "verdicts.py", "runner.py", "families.py",
                                       "limits.py", *SHARED}


def _ours(file: str) -> set[str]:
    """The modules of the package a file imports from (``solvers.trusted.X``)."""
    return {n.split(".")[2] for n in _imports(file) if n.startswith("solvers.trusted.")}


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_is_at_most_400_code_lines_and_imports_no_other_family(family):
    """A family imports the core, the limits (sizes for its work estimates) and shared modules, never another family."""
    assert reading_list.code_lines(os.path.join(reading_list.PACKAGE, family)) <= FAMILY_LIMIT
    assert all(n.startswith("solvers.trusted.") for n in _imports(family) if n.startswith("solvers"))
    assert _ours(family) <= {"core", "limits", *(f[:-3] for f in SHARED)}


@pytest.mark.parametrize("shared", SHARED)
def test_a_shared_module_imports_the_core_only_and_is_counted_with_the_families_that_import_it(shared):
    assert _ours(shared) <= {"core"}
    users = [f for f in FAMILIES if shared in reading_list.shared_of(f)]
    assert len(users) >= 2  # shared: one family's helper belongs in that family
    assert all(shared in reading_list.modules_of(core.FAMILIES[f[:-3]]) for f in users)


def test_the_core_and_the_limits_import_only_the_standard_library_and_each_other():
    """The core needs no python-flint (the families that compute with it import it); limits.py needs nothing of ours."""
    for file in reading_list.CORE:
        assert _ours(file) <= {"core", "limits", "parse"}
        assert "flint" not in _imports(file)
    assert _ours("limits.py") == set() and "flint" not in _imports("limits.py")


def test_the_core_is_counted_and_does_not_grow():
    """The core's code lines (parse, core, verdicts) are at most 300 and may only shrink; the runner, __main__
    and limits.py (which decide nothing: tests/solvers/trusted/test_runner.py, test_limits.py) are not counted."""
    total = sum(reading_list.code_lines(os.path.join(reading_list.PACKAGE, f)) for f in reading_list.CORE)
    assert total <= CORE_CEILING
    assert not _imports("core.py") & {f"solvers.trusted.{f[:-3]}" for f in FAMILIES + SHARED}  # families are imported by name only


def test_the_line_count_leaves_blank_lines_comments_and_docstrings_aside(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('"""Doc\n\nstring."""\n\n# a comment\nx = 1  # why\n\n\ndef f():\n    """Doc."""\n    return (1,\n            2)\n')
    assert reading_list.code_lines(str(path)) == 4


def test_a_family_is_imported_only_for_its_kinds():
    code = ("import sys; from solvers.trusted import core; before = {m for m in sys.modules if m.startswith('solvers.trusted.')}; "
            "core.check({'format': 'attnproof-certificate', 'version': 1, 'kind': 'duality', 'claim': 'c', 'statement': 's', "
            "'parameters': {}, 'data': {'matrix': [[1]]}}); "
            "print(sorted({m for m in sys.modules if m.startswith('solvers.trusted.')} - before))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=reading_list.ROOT, check=True)
    assert done.stdout.split() == ["['solvers.trusted.matrices',", "'solvers.trusted.ranks']"]  # the family and its shared module


# ------------------------------------------------------------ the reading list, on a default run


@pytest.fixture(scope="module")
def default_run(default_check):
    """The session's default ``attnproof check`` (tests/conftest.py): these tests only read it."""
    return str(default_check)


def test_the_documented_reading_list_is_the_default_runs(default_run):
    assert reading_list.documented() == reading_list.table(default_run), \
        "regenerate: python -m tests.solvers.trusted.reading_list RUN (a default attnproof check)"


LOADED = """
import json, os, sys
from solvers.trusted import core, verdicts
for folder, _, names in sorted(os.walk(sys.argv[1])):
    results = {}
    for name in sorted(names):
        if name.endswith(".cert.json"):
            line, results[os.path.join(os.path.realpath(folder), name)] = core.certificate(os.path.join(folder, name))
            assert line["status"] == "accepted"
    if "outcome.json" in names:
        assert verdicts.outcome(os.path.join(folder, "outcome.json"), results)["ok"]
print(json.dumps(sorted(m.rpartition(".")[2] + ".py" for m in sys.modules if m.startswith("solvers.trusted."))))
"""


def test_checking_a_claims_certificates_loads_exactly_its_reading_list(default_run):
    for claim, kinds in sorted(reading_list.kinds_by_claim(default_run).items()):
        done = subprocess.run([sys.executable, "-c", LOADED, os.path.join(default_run, claim)],
                              capture_output=True, text=True, cwd=reading_list.ROOT, check=True)
        assert json.loads(done.stdout) == sorted([*reading_list.reading(kinds), reading_list.LIMITS]), claim
