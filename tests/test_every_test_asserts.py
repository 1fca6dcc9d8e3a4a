"""Every test can fail: each ``test_*`` function asserts, expects an exception, or calls a helper that does.

Issue 28 found a test that asserted nothing (it passed whatever the code did).  This reads every test
file of the suite (its syntax tree, nothing is imported) and fails on a ``test_*`` function in which no
``assert`` statement, ``pytest.raises`` / ``warns`` / ``fail``, ``assert*`` method (unittest, mocks)
or call of a helper that itself does (a function of any test file, by name, found so recursively) is
reached.  That a test asserts on the thing it names is for its reader; that it asserts at all is here.
"""

from __future__ import annotations

import ast
import glob
import os

TESTS = os.path.dirname(os.path.abspath(__file__))
CHECKING = {"raises", "warns", "fail", "deprecated_call", "xfail", "skip", "importorskip"}


def _called(node: ast.AST) -> set[str]:
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            names.add(func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "")
    return names


def _checks_itself(node: ast.AST) -> bool:
    return any(isinstance(sub, ast.Assert) for sub in ast.walk(node)) or any(
        name in CHECKING or name.startswith("assert") for name in _called(node))


def functions() -> dict[str, list[tuple[str, ast.AST]]]:
    """Every function of every test file: name -> [(file, node)]."""
    found: dict[str, list] = {}
    for path in sorted(glob.glob(os.path.join(TESTS, "**", "*.py"), recursive=True)):
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(node.name, []).append((os.path.relpath(path, TESTS), node))
    return found


def silent_tests(found: dict) -> list[str]:
    """The ``test_*`` functions that reach no check (directly or through helpers of the test files)."""
    checking = {name for name, defs in found.items() if any(_checks_itself(node) for _, node in defs)}
    grew = True
    while grew:  # a helper that calls a checking helper checks
        grew = False
        for name, defs in found.items():
            if name not in checking and any(_called(node) & checking for _, node in defs):
                checking.add(name)
                grew = True
    return sorted(f"{path}:{node.lineno} {name}" for name, defs in found.items() if name.startswith("test_")
                  for path, node in defs if not (_checks_itself(node) or _called(node) & checking))


def test_every_test_function_reaches_an_assertion():
    found = functions()
    assert len([n for n in found if n.startswith("test_")]) > 500  # the walk saw the suite
    silent = silent_tests(found)
    assert not silent, "tests that assert nothing (they pass whatever the code does):\n" + "\n".join(silent)


def test_the_walk_tells_a_silent_test_from_one_that_checks():
    source = '''
def helper(x):
    assert x

def indirect(x):
    helper(x)

def test_silent():
    compute = 1 + 1

def test_direct():
    assert 1

def test_through_helpers():
    indirect(2)

def test_raises():
    with pytest.raises(ValueError):
        int("x")

def test_mock(m):
    m.assert_called_once()
'''
    found: dict = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef):
            found.setdefault(node.name, []).append(("x.py", node))
    assert silent_tests(found) == ["x.py:8 test_silent"]
