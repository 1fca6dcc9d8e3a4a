"""Stage 1 imports what it claims: the standard library, python-flint and the checker's own package.

A module of a standard name (fractions, hashlib, json) found somewhere else on the checker's path — beside
flint in site-packages, in the project's root, in PYTHONPATH, in the working directory — is either never
loaded (the real module is) or named by its file in the closing line, which then fails the run: never a
silent shadow.
"""

import json
import os
import sys
import sysconfig

import flint
import pytest

import solvers
import solvers.trusted.runner as entry
from solvers.trusted import core, limits
from solvers import certificates as C
from theorems import verification

RANK_LOWER = {"matrix": [[1, 2], [3, 4]], "rows": [0, 1], "cols": [0, 1], "prime": 101}
# the stage 1 command as it was before the standard library was put first: the given folders before it
PREPENDING = ("import sys, runpy; sys.path[:0] = sys.argv[1].split(__import__('os').pathsep); del sys.argv[1]; "
              "runpy.run_module('solvers.trusted', run_name='__main__', alter_sys=True)")
# a working copy of the standard module, loaded from the shadow's own file (so the run goes on to its last line)
SHADOW = ("import os, sysconfig\n"
          "_real = os.path.join(sysconfig.get_paths()['stdlib'], {name!r} + '.py')\n"
          "exec(compile(open(_real, encoding='utf-8').read(), _real, 'exec'))\n")
# a module that must never be loaded: it leaves a mark, then stops the import
MARKING = "import pathlib\npathlib.Path({mark!r}).write_text('loaded')\nraise ImportError('a shadow was loaded')\n"


@pytest.fixture
def certificates(tmp_path):
    """Two honest certificates (so that two workers check them)."""
    folder = tmp_path / "certificates"
    folder.mkdir()
    for name in ("a.cert.json", "b.cert.json"):
        (folder / name).write_text(json.dumps(C.make("rank-lower", "test.claim", "s" * 64, {}, RANK_LOWER)))
    return str(folder)


def accepted_and_clean(result):
    return (not result.error and [c["status"] for c in result.certificates] == ["accepted", "accepted"]
            and result.foreign_modules == [])


def _done_line(paths, boot):
    """The closing line of the checker run with ``boot``, as verification.run_checker starts it."""
    import subprocess

    command = [sys.executable, "-I", "-S", "-c", boot, os.pathsep.join(verification._search_path()),
               "--jobs", "2", *paths]
    done = subprocess.run(command, capture_output=True, text=True)
    assert "Traceback" not in done.stderr, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[-1]["type"] == "done"
    return lines, done.returncode


def _beside_flint(tmp_path, name):
    """A folder holding python-flint (a link to the installed package) and a ``name``.py beside it."""
    site = tmp_path / "site-packages"
    site.mkdir()
    os.symlink(os.path.dirname(flint.__file__), site / "flint")
    shadow = site / f"{name}.py"
    shadow.write_text(SHADOW.format(name=name))
    return site, shadow


@pytest.mark.parametrize("name", ["fractions", "hashlib"])
@pytest.mark.parametrize("boot", ["verify's", "prepending"])
def test_a_standard_module_beside_flint_is_never_a_silent_shadow(tmp_path, monkeypatch, certificates, name, boot):
    """Whatever the order of the path: the standard module is loaded, or the shadow's file is named and the
    run fails.  With the folders before the standard library (as the command once was), it is named."""
    site, shadow = _beside_flint(tmp_path, name)
    root = os.path.dirname(os.path.dirname(os.path.abspath(solvers.__file__)))
    monkeypatch.setattr(verification, "_search_path", lambda: [root, str(site)])
    lines, code = _done_line([certificates], verification.BOOT if boot == "verify's" else PREPENDING)
    done = lines[-1]
    assert [line["status"] for line in lines[:-1]] == ["accepted", "accepted"]
    if done["foreign_files"]:
        assert done["foreign_files"] == [str(shadow)] and done["ok"] is False and code == 1
    else:
        assert done == {"type": "done", "ok": True, "foreign_modules": [], "foreign_files": []} and code == 0
    if boot == "prepending":
        assert done["foreign_files"] == [str(shadow)]


def test_a_standard_module_in_the_project_root_is_never_a_silent_shadow(tmp_path, monkeypatch, certificates):
    """The project's root (where ``solvers`` lives) is on the checker's path: a fractions.py there is named,
    or not loaded."""
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(os.path.dirname(os.path.abspath(solvers.__file__)), root / "solvers")
    (root / "fractions.py").write_text(SHADOW.format(name="fractions"))
    flint_site = os.path.dirname(os.path.dirname(os.path.abspath(flint.__file__)))
    monkeypatch.setattr(verification, "_search_path", lambda: [str(root), flint_site])
    for boot in (verification.BOOT, PREPENDING):
        lines, code = _done_line([certificates], boot)
        assert lines[-1]["foreign_files"] in ([], [str(root / "fractions.py")])
        assert (code == 0) == (lines[-1]["foreign_files"] == []) == lines[-1]["ok"]
    assert lines[-1]["foreign_files"] == [str(root / "fractions.py")]  # the prepending command loads it


def test_pythonpath_is_ignored(tmp_path, monkeypatch, certificates):
    """``-I`` ignores PYTHONPATH: a json.py there is never loaded."""
    shadows = tmp_path / "pythonpath"
    shadows.mkdir()
    mark = tmp_path / "mark"
    (shadows / "json.py").write_text(MARKING.format(mark=str(mark)))
    monkeypatch.setenv("PYTHONPATH", str(shadows))
    result = verification.run_checker([certificates])
    assert accepted_and_clean(result) and not mark.exists()


def test_a_json_py_in_the_working_directory_is_ignored(tmp_path, monkeypatch, certificates):
    """The working directory is not on the checker's path: a json.py there is never loaded."""
    here = tmp_path / "here"
    here.mkdir()
    mark = tmp_path / "mark"
    (here / "json.py").write_text(MARKING.format(mark=str(mark)))
    monkeypatch.chdir(here)
    result = verification.run_checker([certificates])
    assert accepted_and_clean(result) and not mark.exists()


def test_a_clean_run_loads_nothing_outside_its_three_places(certificates):
    lines, code = _done_line([certificates], verification.BOOT)
    assert lines[-1] == {"type": "done", "ok": True, "foreign_modules": [], "foreign_files": []} and code == 0


# ------------------------------------------------------------------ which files are the checker's own


STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"])
FLINT_MODULE = next(m.__file__ for n, m in sorted(sys.modules.items()) if n.startswith("flint.") and getattr(m, "__file__", None))


@pytest.mark.parametrize("file, ours", [
    (json.__file__, True),
    (os.__file__, True),
    (flint.__file__, True),
    (FLINT_MODULE, True),
    (entry.__file__, True),
    (solvers.__file__, True),  # solvers/__init__.py: loaded on the way to solvers.trusted
    (os.path.join(os.path.dirname(solvers.__file__), "certificates.py"), False),  # solvers/, not the checker
    (pytest.__file__, False),
    (os.path.join(STDLIB, "site-packages", "fractions.py"), False),  # installed beside the standard library
    (os.path.join(STDLIB, "dist-packages", "json", "__init__.py"), False),
    (STDLIB + "-extra" + os.sep + "json.py", False),  # a folder whose name begins as the standard library's
    (os.path.dirname(os.path.realpath(flint.__file__)) + "-extra" + os.sep + "x.py", False),
    (os.path.join(os.path.dirname(os.path.realpath(entry.__file__)) + "-extra", "x.py"), False),
])
def test_which_module_files_are_the_checkers_own(file, ours):
    assert entry._ours(file) is ours


def test_a_link_is_judged_by_where_it_leads(tmp_path):
    os.symlink(json.__file__, tmp_path / "json.py")
    (tmp_path / "fractions.py").write_text("")
    assert entry._ours(str(tmp_path / "json.py")) and not entry._ours(str(tmp_path / "fractions.py"))


def test_foreign_names_a_module_file_from_elsewhere(tmp_path, monkeypatch):
    """In process: a module of a standard name loaded from a folder of its own is named by its file."""
    (tmp_path / "fractions.py").write_text("")
    import importlib.util

    spec = importlib.util.spec_from_file_location("fractions", tmp_path / "fractions.py")
    shadow = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "shadow_of_fractions", shadow)
    names, files = entry.foreign()
    assert str(tmp_path / "fractions.py") in files and "shadow_of_fractions" in names
    monkeypatch.setattr(shadow, "__file__", None)  # a module without a file (a builtin's way) is named by name only
    assert str(tmp_path / "fractions.py") not in entry.foreign()[1]


@pytest.mark.parametrize("found", [({"numpy"}, set()), (set(), {"/elsewhere/fractions.py"})])
def test_a_foreign_module_by_name_or_by_file_fails_the_run(tmp_path, monkeypatch, capsys, found):
    """Every certificate accepted, and still the closing line is not ok and the exit code 1."""
    import resource

    monkeypatch.setattr(entry, "foreign", lambda: found)
    monkeypatch.setattr(resource, "setrlimit", lambda *a: None)
    monkeypatch.setattr(entry, "memory", entry.memory)
    monkeypatch.setattr(limits, "memory", limits.memory)
    monkeypatch.setattr(entry.gc, "freeze", lambda: None)  # main() freezes its process's collector: not this one's
    (tmp_path / "a.cert.json").write_text(json.dumps(C.make("rank-lower", "test.claim", "s" * 64, {}, RANK_LOWER)))
    assert entry.main([str(tmp_path)]) == 1
    cert, done = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert cert["status"] == "accepted"
    assert done == {"type": "done", "ok": False, "foreign_modules": sorted(found[0]), "foreign_files": sorted(found[1])}


def test_the_workers_foreign_files_reach_the_closing_line(tmp_path, monkeypatch):
    """A module loaded only in a worker (forked) is gathered from it, as its names are."""
    (tmp_path / "only_in_a_worker.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    paths = []
    for i in range(2):
        paths.append(str(tmp_path / f"{i}.cert.json"))
        (tmp_path / f"{i}.cert.json").write_text("{}")
    honest = entry.certificate

    def importing(path, work):
        __import__("only_in_a_worker")
        return honest(path, work)

    monkeypatch.setattr(entry, "certificate", importing)
    loaded = (set(), set())
    assert [line["status"] for _, line, _ in entry.checked(paths, 100, 2, loaded)] == ["REJECTED", "REJECTED"]
    assert "only_in_a_worker" not in sys.modules  # this process never loaded it
    assert "only_in_a_worker" in loaded[0] and str(tmp_path / "only_in_a_worker.py") in loaded[1]
