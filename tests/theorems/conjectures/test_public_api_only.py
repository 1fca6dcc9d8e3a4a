"""The worked conjectures, which users copy, import the project only through ``theorems.api``.

Every import of a conjecture module (and of the ``attnproof new`` template) is either the standard
library or ``theorems.api``: a user copying one learns the public surface, never an internal module.
"""

import ast
import os
import sys

import pytest

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "theorems", "conjectures")
SOURCES = sorted(f for f in os.listdir(FOLDER) if (f.endswith(".py") and f != "__init__.py") or f == "template.py.in")


def imported(source: str) -> set[str]:
    """Every module a source imports, at module level or inside a function."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
    return out


def outside_the_api(source: str) -> set[str]:
    return {name for name in imported(source)
            if name != "theorems.api" and name != "__future__" and name.partition(".")[0] not in sys.stdlib_module_names}


def test_every_worked_conjecture_and_the_template_are_read():
    assert len(SOURCES) >= 5 and "template.py.in" in SOURCES


@pytest.mark.parametrize("name", SOURCES)
def test_a_worked_conjecture_imports_only_the_public_api(name):
    with open(os.path.join(FOLDER, name), encoding="utf-8") as handle:
        source = handle.read()
    if name == "template.py.in":  # as ``attnproof new`` fills it
        source = source.format(module="my_conjecture", cls="MyConjecture", title="a title")
    assert outside_the_api(source) == set()


def test_an_import_past_the_api_is_found():
    assert outside_the_api("from theorems.kernel_rank import multi_head\nimport json\n") == {"theorems.kernel_rank"}
    assert outside_the_api("def f():\n    from solvers.trusted.core import digest\n") == {"solvers.trusted.core"}
    assert outside_the_api("from theorems.api import digest, sp\nfrom fractions import Fraction\n") == set()


def test_the_lazy_parts_of_the_api_are_the_modules_they_name():
    from theorems import api
    from theorems.kernel_rank import multi_head
    from theorems.softmax_rank._definitions import visible_interaction_dimension

    assert api.multi_head is multi_head and api.visible_interaction_dimension is visible_interaction_dimension
    with pytest.raises(AttributeError):
        api.no_such_name  # noqa: B018
