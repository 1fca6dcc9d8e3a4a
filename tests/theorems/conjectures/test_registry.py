"""Registration that persists with the project, and every registration mistake as one line, exit 2."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from theorems import core
from theorems import registry as registration
from theorems.cli import main

GOOD = textwrap.dedent('''
    from theorems.conjectures.rank_one_length_three import RankOneLengthThree

    class Mine(RankOneLengthThree):
        id = "conjectures.{name}"
        source = "A. Reader, notes (2026)"

    CLAIM = Mine()
''')


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project folder as the working directory, with a fresh registry; imported user modules forgotten
    after, and the folders discovery put on sys.path taken off it again."""
    before = set(sys.modules)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(core.MODULES_VARIABLE, raising=False)
    monkeypatch.setattr(core, "_REGISTRY", {})
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(registration, "_ADDED", [])
    monkeypatch.setattr(registration, "_FROM_FOLDER", {})
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mine'\n", encoding="utf-8")
    yield tmp_path
    for name in set(sys.modules) - before:
        # only the project's own modules: a library first imported during the test (sympy, when
        # `new sympy` looks it up) stays, or later tests would mix two copies of it
        module = sys.modules.get(name)
        where = getattr(module, "__file__", None) or next(iter(getattr(module, "__path__", None) or ()), "")
        if str(where).startswith(str(tmp_path)):
            sys.modules.pop(name, None)
    core._REGISTRY.clear()


def listed(capsys) -> list[str]:
    assert main(["list", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["claims"] if isinstance(out, dict) else out
    return [r["claim"] for r in rows]


def one_line_error(capsys, argv=("list",)) -> str:
    code = main(list(argv))
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_the_project_is_the_nearest_folder_with_a_pyproject_or_a_conjectures_folder(tmp_path):
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert registration.find_project(str(deep)).root != str(tmp_path)  # nothing here yet: not this tree
    (tmp_path / "conjectures").mkdir()
    found = registration.find_project(str(deep))
    assert found.root == str(tmp_path) and found.folder == str(tmp_path / "conjectures") and found.pyproject is None
    (tmp_path / "a" / "pyproject.toml").write_text("[tool.attnproof]\nconjectures = ['x', 'p.q']\n", encoding="utf-8")
    found = registration.find_project(str(deep))
    assert found.root == str(tmp_path / "a") and found.modules == ("x", "p.q") and found.folder is None
    assert found.state == str(tmp_path / "a" / ".attnproof")


def test_a_conjectures_folder_registers_without_a_variable(project, capsys):
    (project / "conjectures").mkdir()
    (project / "conjectures" / "folder_one.py").write_text(GOOD.format(name="folder_one"), encoding="utf-8")
    (project / "conjectures" / "_helper.py").write_text("raise RuntimeError('never imported')\n", encoding="utf-8")
    claims = listed(capsys)
    assert "conjectures.folder_one" in claims and "kernel_rank.three_token_lower_bound" in claims
    assert core.get("folder_one").source == "A. Reader, notes (2026)"


def test_a_short_name_two_claims_share_is_ambiguous_never_unknown(project, capsys):
    """conjectures/rank_two.py beside kernel_rank.rank_two: "rank_two" names both, and says so with the full ids."""
    (project / "conjectures").mkdir()
    (project / "conjectures" / "rank_two.py").write_text(GOOD.format(name="rank_two"), encoding="utf-8")
    with pytest.raises(core.ParameterError) as refused:
        core.get("rank_two")
    message = str(refused.value)
    assert "ambiguous" in message and "unknown" not in message
    assert "conjectures.rank_two" in message and "kernel_rank.rank_two" in message
    assert core.get("conjectures.rank_two").id == "conjectures.rank_two"  # the full id still names one claim
    err = one_line_error(capsys, ["check", "rank_two", "--estimate"])
    assert "ambiguous" in err and "conjectures.rank_two" in err and "kernel_rank.rank_two" in err
    err = one_line_error(capsys, ["check", "conjectures.rank_two", "kernel_rank.rank_two", "--param", "rank_two:m=3", "--estimate"])
    assert "ambiguous" in err and "conjectures.rank_two" in err and "kernel_rank.rank_two" in err


def test_pyproject_lists_modules_importable_from_the_project(project, capsys):
    (project / "pyproject.toml").write_text("[tool.attnproof]\nconjectures = ['listed_one']\n", encoding="utf-8")
    (project / "listed_one.py").write_text(GOOD.format(name="listed_one"), encoding="utf-8")
    assert "conjectures.listed_one" in listed(capsys)
    # found from a subfolder too: the project is searched upward
    (project / "deeper").mkdir()
    core._REGISTRY.clear()
    assert registration.find_project(str(project / "deeper")).root == str(project)


def test_the_same_module_reached_twice_counts_once(project, capsys, monkeypatch):
    (project / "conjectures").mkdir()
    (project / "conjectures" / "twice_one.py").write_text(GOOD.format(name="twice_one"), encoding="utf-8")
    monkeypatch.setenv(core.MODULES_VARIABLE, "twice_one")  # the folder's module again, by name
    assert listed(capsys).count("conjectures.twice_one") == 1


def test_a_folder_module_also_listed_by_its_dotted_name_counts_once(project, capsys):
    """``conjectures.x`` in pyproject.toml and ``conjectures/x.py`` are one file imported under two
    names: one claim, not two claims sharing an id."""
    (project / "conjectures").mkdir()
    (project / "conjectures" / "dotted_one.py").write_text(GOOD.format(name="dotted_one"), encoding="utf-8")
    (project / "pyproject.toml").write_text("[tool.attnproof]\nconjectures = ['conjectures.dotted_one']\n", encoding="utf-8")
    assert listed(capsys).count("conjectures.dotted_one") == 1


def test_two_modules_with_one_id_or_one_name_are_refused(project, capsys):
    (project / "conjectures").mkdir()
    (project / "conjectures" / "twice_one.py").write_text(GOOD.format(name="twice_one"), encoding="utf-8")
    (project / "pyproject.toml").write_text("[tool.attnproof]\nconjectures = ['other_one']\n", encoding="utf-8")
    (project / "other_one.py").write_text(GOOD.format(name="twice_one"), encoding="utf-8")
    err = one_line_error(capsys)
    assert "two claims share the id 'conjectures.twice_one'" in err and "conjectures/twice_one.py" in err
    assert "pyproject.toml [tool.attnproof]" in err
    core._REGISTRY.clear()
    (project / "twice_one.py").write_text("x = 1\n", encoding="utf-8")  # a file of the same name at the root
    assert "the name 'twice_one' is taken by the module at" in one_line_error(capsys)


@pytest.mark.parametrize("setup, words", [
    ({"pyproject.toml": "[tool.attnproof]\nconjectures = ['no_such_module_here']\n"}, "no module named 'no_such_module_here'"),
    ({"pyproject.toml": "[tool.attnproof]\nconjectures = ['without_claim']\n", "without_claim.py": "x = 1\n"},
     "defines no CLAIM"),
    ({"conjectures/json.py": "x = 1\n"}, "the name 'json' is taken by the module at"),
    ({"conjectures/raises_one.py": "raise RuntimeError('boom')\n"}, "importing 'raises_one' failed: RuntimeError: boom"),
    ({"conjectures/imports_missing.py": "import no_such_dependency_x\n"}, "No module named 'no_such_dependency_x'"),
    ({"conjectures/duplicate_one.py": GOOD.format(name="multi_head_length")},
     "two claims share the id 'conjectures.multi_head_length'"),
    ({"conjectures/bad_claim.py": "CLAIM = 3\n"}, "is not a theorems.core.Claim"),
    ({"pyproject.toml": "[tool.attnproof]\nconjectures = 'one'\n"}, "conjectures must be a list of module names"),
    ({"pyproject.toml": "[tool.attnproof]\nmodules = ['x']\n"}, "unknown key(s) ['modules']"),
    ({"pyproject.toml": "[tool.attnproof\n"}, "cannot be read"),
    ({"pyproject.toml": "tool = 1\n"}, "[tool] must be a table"),
    ({"conjectures/exits_one.py": "import sys\nsys.exit(0)\n"}, "importing 'exits_one' failed: SystemExit"),
    ({"conjectures/exits_two.py": "import sys\nsys.exit('bye')\n"}, "importing 'exits_two' failed: SystemExit: bye"),
    ({"conjectures/number_id.py": GOOD.format(name="number_id").replace('id = "conjectures.number_id"', "id = 5")},
     "id must be dotted Python names"),
    ({"conjectures/path_id.py": GOOD.format(name="path_id").replace('"conjectures.path_id"', '"../../escaped"')},
     "id must be dotted Python names"),
    ({"conjectures/default_outside.py": GOOD.format(name="default_outside").replace(
        'source = "A. Reader, notes (2026)"',
        'source = "A. Reader"\n    parameters = (Parameter("m_max", 4000, 1, 400, "bits"),)').replace(
        "from theorems.conjectures", "from theorems.core import Parameter\nfrom theorems.conjectures")},
     "the default m_max = 4000 is outside its own range: an integer in [1, 400]"),
    ({"conjectures/default_open_end.py": GOOD.format(name="default_open_end").replace(
        'source = "A. Reader, notes (2026)"',
        'source = "A. Reader"\n    parameters = (Parameter("m_max", 4, 1, 4, "bits", high_open=True),)').replace(
        "from theorems.conjectures", "from theorems.core import Parameter\nfrom theorems.conjectures")},
     "the default m_max = 4 is outside its own range: an integer in [1, 4)"),
    ({"conjectures/expects_verified.py": GOOD.format(name="expects_verified").replace(
        'source = "A. Reader, notes (2026)"', 'source = "A. Reader"\n    expected = "verified"')},
     "is an open conjecture, so it never comes out verified"),
])
def test_every_registration_mistake_is_one_line_and_exit_2(project, capsys, setup, words):
    for rel, text in setup.items():
        path = project / rel
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert words in one_line_error(capsys)
    assert core._REGISTRY == {}  # all or nothing: a broken registration registers no claim


def test_the_variable_still_works_and_reports_a_module_without_claim(project, capsys, monkeypatch):
    (project / "var_one.py").write_text(GOOD.format(name="var_one"), encoding="utf-8")
    monkeypatch.setenv(core.MODULES_VARIABLE, "var_one")
    assert "conjectures.var_one" in listed(capsys)
    core._REGISTRY.clear()
    (project / "var_empty.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.setenv(core.MODULES_VARIABLE, "var_empty")
    assert f"${core.MODULES_VARIABLE}: var_empty defines no CLAIM" in one_line_error(capsys)


def test_the_variable_puts_the_working_directory_after_every_installed_module(project, capsys, monkeypatch):
    import importlib.util

    (project / "var_two.py").write_text(GOOD.format(name="var_two"), encoding="utf-8")
    (project / "colorsys.py").write_text("raise RuntimeError('a stray file in the working directory')\n", encoding="utf-8")
    monkeypatch.setenv(core.MODULES_VARIABLE, "var_two")
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert "conjectures.var_two" in listed(capsys)
    sys.modules.pop("colorsys", None)
    assert importlib.util.find_spec("colorsys").origin != str(project / "colorsys.py")


def test_a_broken_entry_point_is_one_line(project, capsys, monkeypatch):
    from importlib import metadata

    class Broken:
        name, value = "broken", "broken_pkg.module"

        def load(self):
            raise ImportError("No module named 'broken_pkg'")

    real = metadata.entry_points
    monkeypatch.setattr(metadata, "entry_points",
                        lambda group=None, **kw: [Broken()] if group == core.ENTRY_POINT_GROUP else real(group=group, **kw))
    assert "entry point broken = broken_pkg.module: loading it failed" in one_line_error(capsys)


def test_new_writes_into_the_conjectures_folder_and_prints_the_next_three_commands(project, capsys):
    assert main(["new", "fresh_one"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("wrote conjectures/fresh_one.py (registered:")
    assert out[1:] == ["next:", "  attnproof check fresh_one", "  attnproof verify reports/latest", "  attnproof report"]
    assert (project / "conjectures" / "fresh_one.py").is_file()
    core._REGISTRY.clear()
    assert "conjectures.fresh_one" in listed(capsys)  # registered by being there
    assert "exists" in one_line_error(capsys, ["new", "fresh_one"])


@pytest.mark.parametrize("name, words", [
    ("os", "shadow the module os of the standard library"),
    ("json", "shadow the module json"),
    ("theorems", "shadow the module theorems of attnproof"),
    ("solvers", "shadow the module solvers"),
    ("sympy", "shadow the module sympy"),
    ("multi_head_length", "a claim 'conjectures.multi_head_length' is already registered"),
    ("residual_error", "a claim 'softmax_rank.residual_error' is already registered"),
    ("class", "Python identifier"),
    ("not-a-name", "Python identifier"),
    ("_private", "Python identifier"),
])
def test_new_refuses_names_that_shadow_modules_or_taken_ids(project, capsys, name, words):
    assert words in one_line_error(capsys, ["new", name])
    assert not (project / "conjectures").exists()


def test_new_refuses_a_name_the_projects_own_modules_hold(project, capsys):
    """A NAME.py (or package NAME) in the project folder imports before conjectures/NAME.py once
    pyproject.toml lists modules: `new` must not write a conjecture that breaks the project."""
    (project / "pyproject.toml").write_text("[tool.attnproof]\nconjectures = ['held_one']\n", encoding="utf-8")
    (project / "held_one.py").write_text(GOOD.format(name="held_one_listed"), encoding="utf-8")
    assert "held_one.py" in one_line_error(capsys, ["new", "held_one"])
    (project / "held_two").mkdir()
    (project / "held_two" / "__init__.py").write_text("", encoding="utf-8")
    assert "held_two" in one_line_error(capsys, ["new", "held_two"])
    assert "conjectures.held_one_listed" in listed(capsys)  # the project still registers
    (project / "pyproject.toml").write_text("[tool.attnproof]\nconjectures = ['held_one', 'held_three.sub']\n",
                                            encoding="utf-8")
    assert "[tool.attnproof]" in one_line_error(capsys, ["new", "held_three"])
    assert not (project / "conjectures").exists()


def test_verify_in_a_project_whose_claims_cannot_be_registered_is_exit_2(project, capsys):
    (project / "conjectures").mkdir()
    (project / "conjectures" / "verify_one.py").write_text(GOOD.format(name="verify_one"), encoding="utf-8")
    assert main(["check", "verify_one", "--param", "m_max=2", "--out", "out"]) == 1  # m <= 2: open, not the refutation
    capsys.readouterr()
    assert main(["verify", "out"]) == 0
    capsys.readouterr()
    # each plugin is imported alone, in a binding process of its own: one that cannot be imported leaves
    # the outcomes of the others standing ...
    (project / "pyproject.toml").write_text("[tool.attnproof]\nconjectures = ['no_such_module_here']\n", encoding="utf-8")
    assert main(["verify", "out"]) == 0
    assert "1 of 1 outcome(s) stand" in capsys.readouterr().out
    # ... while an outcome whose own plugin cannot be imported is a usage error, in one line
    (project / "conjectures" / "verify_one.py").write_text("import no_such_module_either\n", encoding="utf-8")
    assert main(["verify", "out"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No module named 'no_such_module_either'" in err[0], err
