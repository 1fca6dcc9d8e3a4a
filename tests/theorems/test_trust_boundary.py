"""The boundary around the trusted checker: no plugin, folder name or file swap makes a false outcome stand.

Each attack of a hostile review, rebuilt: a plugin that lies on every channel it can reach (stdout at
exit, every file descriptor, the binding's own answer pipe with its nonce read from memory, the
binding function and a built-in claim's obligations replaced), swapped point folders, a folder named
with terminal escape codes, a symbolic link in place of an outcome, a certificate rewritten while
``verify`` runs, an outcome file changed between the stages.  Each must leave the forged outcome
``DOES NOT STAND`` with its reason, while the honest folder beside it — with plugins and without —
still stands, so no refusal here is vacuous.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil

import pytest

from theorems import cli, verification

from .test_forgeries import TOY, attnproof, toy_project

T3 = "kernel_rank.three_token_lower_bound"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two points of three_token_lower_bound (m_feasible = 2 and the default 3): about a second."""
    out = tmp_path_factory.mktemp("boundary") / "outcomes"
    assert cli.main(["check", T3, "--param", "m_feasible=2,3", "--jobs", "1", "--out", str(out)]) == 0
    return out


def fresh(runs, tmp_path) -> str:
    root = tmp_path / "run"
    shutil.copytree(runs, root)
    return str(root)


def outcome(result, folder):
    [found] = [o for o in result.outcomes if os.path.basename(os.path.dirname(o.path)) == folder]
    return found


def drop_an_obligation(root) -> str:
    """The default point with one verify obligation dropped: stage 1 discharges what is left, so only
    the binding (the obligations the installed claim states) can refuse it."""
    path = os.path.join(root, T3, "default", "outcome.json")
    with open(path, encoding="utf-8") as handle:
        record = json.load(handle)
    record["obligations"]["verify"].pop(0)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
    return path


LIAR = '''
import atexit, gc, glob, json, os, sys
ROOT = {root!r}
def lie():
    paths = glob.glob(os.path.join(ROOT, "**", "outcome.json"), recursive=True)
    nonce = next((o["nonce"] for o in gc.get_objects() if isinstance(o, dict) and isinstance(o.get("nonce"), str) and "scope" in o), "")
    for path in paths:
        line = json.dumps([path, True, "forged by a plugin", "default"])
        print(line, flush=True)
        for fd in range(1, 64):
            for text in (line, nonce + " " + line):
                try:
                    os.write(fd, (text + "\\n").encode())
                except OSError:
                    pass
atexit.register(lie)
lie()
import theorems.verification as v
v.bind = lambda *args, **kwargs: (True, "forged by a plugin", "default")
import theorems.kernel_rank.three_token_lower_bound as t3
class Anything:
    def to_json(self):
        return None
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
type(t3.CLAIM).obligations = lambda self, point: Anything()
CLAIMS = []
'''


@pytest.mark.parametrize("registration", ["folder", "variable"])
def test_a_plugin_that_lies_on_every_channel_cannot_make_a_built_in_outcome_stand(runs, tmp_path, registration):
    root = fresh(runs, tmp_path)
    drop_an_obligation(root)
    # an outcome of no built-in claim, so that the plugins are imported (each in a binding of its own)
    stray = os.path.join(root, "evil.nothing", "default")
    os.makedirs(stray)
    with open(os.path.join(stray, "outcome.json"), "w", encoding="utf-8") as handle:
        json.dump({"claim": "evil.nothing", "status": "unknown", "parameters": {}, "statement": "x", "certificates": [],
                   "obligations": {"verify": [], "refute": [], "reach": ""}}, handle)
    project = tmp_path / "project"
    (project / "conjectures").mkdir(parents=True)
    code = LIAR.format(root=root)
    env = {}
    if registration == "folder":
        (project / "conjectures" / "liar.py").write_text(code, encoding="utf-8")
    else:
        (project / "liar.py").write_text(code, encoding="utf-8")
        env["ATTNPROOF_CLAIMS"] = "liar"
    finished, status, out, err = attnproof(["verify", root], cwd=project, env_extra=env)
    assert finished and status == 1 and "Traceback" not in err, err
    lines = out.splitlines()
    [forged] = [line for line in lines if line.startswith(f"{T3} [default]")]
    assert "DOES NOT STAND" in forged and "obligations recorded differ" in forged, forged
    [honest] = [line for line in lines if line.startswith(f"{T3} [m_feasible=2]")]
    assert "verified stands" in honest
    assert "forged by a plugin" not in out


def test_swapped_point_folders_do_not_stand_and_each_is_named_by_its_own_point(runs, tmp_path):
    root = fresh(runs, tmp_path)
    base = os.path.join(root, T3)
    os.rename(os.path.join(base, "default"), os.path.join(base, "swap"))
    os.rename(os.path.join(base, "m_feasible=2"), os.path.join(base, "default"))
    os.rename(os.path.join(base, "swap"), os.path.join(base, "m_feasible=2"))
    result = verification.verify([root])
    assert not result.ok
    for folder, point in (("default", "m_feasible=2"), ("m_feasible=2", "default")):
        check = outcome(result, folder)
        assert check.checked and not check.bound and check.point == point
        assert f"at the point {point!r}, but its folder is {T3}/{folder}" in check.binding
    text = "\n".join(verification.lines(result, [root]))
    assert f"{T3} [m_feasible=2]: verified DOES NOT STAND" in text and f"{T3} [default]: verified DOES NOT STAND" in text


def test_a_folder_named_with_escape_codes_does_not_stand_and_prints_escaped(runs, tmp_path):
    root = fresh(runs, tmp_path)
    base = os.path.join(root, T3)
    os.rename(os.path.join(base, "default"), os.path.join(base, "default\x1b[2J\r"))
    result = verification.verify([root])
    text = "\n".join(verification.lines(result, [root], details=True))
    assert "\x1b" not in text and "\r" not in text
    assert "default\\x1b[2J\\x0d" in text and "DOES NOT STAND" in text


def test_an_outcome_file_that_is_a_link_to_another_points_does_not_stand(runs, tmp_path):
    root = fresh(runs, tmp_path)
    path = os.path.join(root, T3, "default", "outcome.json")
    os.remove(path)
    os.symlink(os.path.join(root, T3, "m_feasible=2", "outcome.json"), path)
    result = verification.verify([root])
    check = outcome(result, "default")
    assert not check.ok and "symbolic link" in check.reason
    assert outcome(result, "m_feasible=2").ok


def test_the_binding_reads_the_bytes_stage_1_judged_or_refuses(runs, tmp_path):
    root = fresh(runs, tmp_path)
    path = os.path.join(root, T3, "default", "outcome.json")
    with open(path, "rb") as handle:
        judged = hashlib.sha256(handle.read()).hexdigest()
    claims = {T3: cli.get(T3)}
    assert verification.bind(path, T3, "verified", judged, claims)[0] is True
    with open(path, "ab") as handle:
        handle.write(b" ")  # the same record, other bytes: not what was judged
    bound, why, _ = verification.bind(path, T3, "verified", judged, claims)
    assert bound is False and "not the one the checker judged" in why
    assert verification.bind(path, "no.such", "verified", judged, claims)[0] is None  # not this process's claim


def test_a_certificate_rewritten_while_verify_runs_is_rejected(runs, tmp_path, monkeypatch):
    """A plugin's binding (it runs after stage 1) rewrites a built-in outcome's certificate: caught."""
    root = fresh(runs, tmp_path)
    toys = toy_project(tmp_path)
    target = glob.glob(os.path.join(root, T3, "default", "03-*.cert.json"))[0]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOY_BINDING_2", target)
    result = verification.verify([root, toys])
    assert not result.ok
    assert "changed after the checker accepted it" in outcome_of_claim(result, T3, "default").reason
    assert outcome(result, "m_feasible=2").ok


def outcome_of_claim(result, claim, folder):
    [found] = [o for o in result.outcomes if o.claim == claim and os.path.basename(os.path.dirname(o.path)) == folder]
    return found


def test_outcomes_bound_by_plugin_code_say_so_with_the_files_digest(tmp_path):
    toys = toy_project(tmp_path)
    finished, status, out, err = attnproof(["verify", toys], cwd=tmp_path)
    assert finished and status == 0, out + err
    with open(TOY, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    assert out.count(f"rests on plugin code: conjectures/toy_plugin.py, sha256 {digest[:16]}") == 3


def test_two_plugins_that_answer_for_one_claim_bind_nothing(tmp_path):
    toys = toy_project(tmp_path)
    shutil.copy(TOY, tmp_path / "conjectures" / "toy_copy.py")
    finished, status, out, err = attnproof(["verify", toys], cwd=tmp_path)
    assert finished and status == 1
    assert out.count("two plugins answer for plugin_toy.diagonal_") == 3, out


def test_the_report_says_which_outcomes_rest_on_plugin_code(tmp_path):
    toys = toy_project(tmp_path)
    finished, status, out, err = attnproof(["report", "--outcomes", toys, "--out", "site"], cwd=tmp_path, seconds=600)  # a hang guard only
    assert finished and status == 0, out + err
    with open(TOY, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()[:16]
    pages = "".join(open(path, encoding="utf-8").read() for path in glob.glob(str(tmp_path / "site" / "**" / "*.html"), recursive=True))
    assert pages.count(f"Rests on plugin code: conjectures/toy_plugin.py, sha256 {digest}") == 3
    markdown = "".join(open(path, encoding="utf-8").read() for path in glob.glob(str(tmp_path / "site" / "**" / "*.md"), recursive=True))
    assert markdown.count(f"**Rests on plugin code: conjectures/toy_plugin.py, sha256 {digest}**") == 3
