"""Limits decide nothing: ``solvers/trusted/limits.py`` can only turn an acceptance into a refusal.

Three checks of the claim in its docstring and in docs/certificates.md:

- the core calls every limit but :func:`limits.decode` and :func:`limits.scaled` as a statement, so
  whatever a limit returns is dropped (read off the source of parse.py, core.py and verdicts.py);
- on a default run, with every limit replaced by one that lets everything through (``decode`` by plain
  ``json.loads``), the core's line for every certificate and every outcome is the same as with them;
- with the limits tightened (a smaller file size, fewer values, shallower nesting, less work) each
  certificate's line is the same or ``REFUSED``, and no outcome stands that did not stand before.
"""

import ast
import json
import os

import pytest

from solvers.trusted import core, limits, verdicts
from tests.solvers.trusted.reading_list import CORE, PACKAGE

RETURNING = {"decode", "scaled"}  # decode returns json.loads' value, scaled a work estimate


@pytest.mark.parametrize("module", CORE)
def test_the_core_drops_what_every_limit_but_decode_returns(module):
    with open(os.path.join(PACKAGE, module), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and isinstance(node.func.value, ast.Name) and node.func.value.id == "limits"]
    statements = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    assert calls  # each of the three calls some
    for call in calls:
        assert call.func.attr in RETURNING or id(call) in statements, f"{module}: limits.{call.func.attr} used for its value"


@pytest.mark.parametrize("text", ["[1, -2, {\"a\": \"3/4\"}]", "9" * limits.MAX_DIGITS, "{\"a\": [[[]]], \"b\": null}", "1.5"])
def test_decode_is_json_loads_with_the_core_hooks(text):
    hooks = {"parse_float": str}
    assert limits.decode(text, hooks) == json.loads(text, **hooks)


def test_decode_refuses_what_json_loads_would_read():
    text = "9" * (limits.MAX_DIGITS + 1)  # the interpreter's own limit (4300 digits) would read it
    assert json.loads(text) == int(text)
    with pytest.raises(limits.Refused, match=f"an integer of {limits.MAX_DIGITS + 1} digits"):
        limits.decode(text, {})


# ------------------------------------------------------------ on a default run


@pytest.fixture(scope="module")
def default_run(default_check):
    """The session's default ``attnproof check`` (tests/conftest.py): these tests only read it."""
    return str(default_check)


@pytest.fixture(scope="module")
def default_lines(default_run) -> list[dict]:
    """The core's lines on the default run under the limits as they are (both tests below start from them)."""
    return core_lines(default_run)


def core_lines(run: str, max_work: int = limits.MAX_WORK) -> list[dict]:
    """Every certificate through core.certificate, then every outcome through verdicts.outcome, in one process."""
    certs, outcomes = [], []
    for folder, dirs, names in os.walk(run):
        dirs.sort()
        for name in sorted(names):
            (certs if name.endswith(".cert.json") else outcomes if name == "outcome.json" else []).append(os.path.join(folder, name))
    lines, results = [], {}
    for path in certs:
        line, results[os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))] = core.certificate(path, max_work)
        lines.append(line)
    return lines + [verdicts.outcome(path, results, max_work) for path in outcomes]


def no_limits(monkeypatch):
    for name in ("opened", "grown", "raw", "depth", "work", "discharge"):
        monkeypatch.setattr(limits, name, lambda *args: None)
    monkeypatch.setattr(limits, "decode", lambda text, hooks: json.loads(text, **hooks))
    monkeypatch.setattr(limits, "size_factor", lambda data: 1)


def test_without_any_limit_the_default_run_is_judged_the_same(default_run, default_lines, monkeypatch):
    limited = default_lines
    assert len(limited) > 300
    assert all(line["status"] == "accepted" if line["type"] == "certificate" else line["ok"] for line in limited)
    with monkeypatch.context() as patch:
        no_limits(patch)
        unlimited = core_lines(default_run)
    assert unlimited == limited


def test_tightened_limits_only_refuse(default_run, default_lines, monkeypatch):
    free = default_lines
    sizes = sorted(os.path.getsize(line["path"]) for line in free if line["type"] == "certificate")
    monkeypatch.setattr(limits, "MAX_BYTES", sizes[len(sizes) // 2])  # half the files are larger
    monkeypatch.setattr(limits, "MAX_VALUES", 2000)
    monkeypatch.setattr(limits, "MAX_DEPTH", 6)
    tight = core_lines(default_run, max_work=20_000)
    assert len(tight) == len(free)
    refused = 0
    for before, after in zip(free, tight):
        if after["type"] == "certificate":
            assert after == before or (after["status"] == "REFUSED" and after["path"] == before["path"]), after
            refused += after != before
        else:
            assert not after["ok"] or after == before  # no outcome stands that did not stand before, nor says more
    assert refused > len(sizes) // 2  # the limits were tight enough to refuse
    assert any(not after["ok"] for after in tight if after["type"] == "outcome")
