"""Stage 2 of ``verify``, in this process: ``verification.bind`` on each of its branches.

``verify`` runs the binding in a process of its own; these tests call ``bind`` directly, with records made
from the installed claims (no check runs: a record is bound by its statement, point, obligations, status
and folder, never by its certificates, which are stage 1's). Each refusal is asserted with its whole reason,
and each case that stands beside the refusal it is a variant of, so that no test passes by refusing
everything. The forgery suite (test_forgeries.py, test_trust_boundary.py) holds the same rules end to end.
"""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from solvers.trusted.core import encode
from theorems import core, verification

ROW = "kernel_rank.row_lemma"  # quick, with defaults; "default" and "w_max=3" as folders
T3 = "kernel_rank.three_token_lower_bound"
OPEN = "conjectures.visible_dimension_bounds_rank"  # an open conjecture
STANDS = "statement, point and obligations are the installed claim's"


def record_of(claim_id: str, parameters: dict | None = None, **fields) -> dict:
    claim = core.get(claim_id)
    point = claim.point(parameters or {})
    record = {"claim": claim.id, "statement": claim.statement_hash(), "parameters": encode(point),
              "obligations": claim.obligations(point).to_json(), "status": claim.expected, "unknown": None}
    return record | fields


def put(tmp_path, record, claim_folder: str | None = None, folder: str | None = None, raw: bytes | None = None) -> tuple[str, str]:
    """The record written as ``<claim>/<point>/outcome.json`` (the point's own folder unless named); its path
    and the sha256 of its bytes (what stage 1 would hand over)."""
    if folder is None:
        claim = core.get(record["claim"])
        folder = core.slug(claim.point(record["parameters"]), claim)
    base = tmp_path / (claim_folder or record["claim"]) / folder
    base.mkdir(parents=True, exist_ok=True)
    path = base / "outcome.json"
    data = raw if raw is not None else json.dumps(record, indent=1, sort_keys=True).encode()
    path.write_bytes(data)
    return str(path), hashlib.sha256(data).hexdigest()


def bind(path, sha, claim_id=ROW, earned="verified", claims=None):
    claims = claims if claims is not None else {claim_id: core.get(claim_id)}
    return verification.bind(path, claim_id, earned, sha, claims)


def test_an_honest_record_is_bound_at_its_point(tmp_path):
    assert bind(*put(tmp_path, record_of(ROW))) == (True, STANDS, "default")
    assert bind(*put(tmp_path, record_of(ROW, {"w_max": 3}))) == (True, STANDS, "w_max=3")
    assert bind(*put(tmp_path, record_of(T3)), claim_id=T3) == (True, STANDS, "default")


def test_a_claim_this_process_does_not_speak_for_is_none(tmp_path):
    path, sha = put(tmp_path, record_of(ROW))
    assert verification.bind(path, "no.such", "verified", sha, {ROW: core.get(ROW)}) == (None, "no installed claim 'no.such'", "")
    assert verification.bind(path, ROW, "verified", sha, None) == (None, f"no installed claim {ROW!r}", "")
    assert verification.bind(path, "x" * 200, "verified", sha, {})[1] == f"no installed claim {'x' * 80!r}"


def test_only_the_bytes_stage_1_judged_are_bound(tmp_path):
    path, sha = put(tmp_path, record_of(ROW))
    judged = "the outcome file is not the one the checker judged (it changed between the stages)"
    assert bind(path, "") == (False, judged, "")
    assert bind(path, "0" * 64) == (False, judged, "")
    with open(path, "ab") as handle:
        handle.write(b"\n")
    assert bind(path, sha) == (False, judged, "")
    os.remove(path)
    bound, why, point = bind(path, sha)
    assert (bound, point) == (False, "") and why == "cannot read the outcome again: No such file or directory"


def test_a_record_of_the_checkers_largest_size_is_read_whole(tmp_path, monkeypatch):
    from solvers.trusted import parse

    path, sha = put(tmp_path, record_of(ROW))
    monkeypatch.setattr(parse, "MAX_BYTES", os.path.getsize(path))  # exactly at the cap: read whole, bound
    assert bind(path, sha) == (True, STANDS, "default")


def test_a_link_or_a_fifo_is_not_read_again(tmp_path):
    path, sha = put(tmp_path, record_of(ROW))
    link = os.path.join(os.path.dirname(path), "link.json")
    os.symlink(path, link)
    bound, why, _ = bind(link, sha)
    assert bound is False and why.startswith("cannot read the outcome again: ")  # O_NOFOLLOW
    fifo = os.path.join(os.path.dirname(path), "fifo.json")
    os.mkfifo(fifo)
    assert bind(fifo, sha) == (False, "the outcome file is not the one the checker judged (it changed between the stages)", "")


def test_a_record_read_with_the_checkers_parser_or_refused(tmp_path):
    record = json.dumps(record_of(ROW))
    path, sha = put(tmp_path, None, ROW, "default", raw=b"[1, 2]")
    assert bind(path, sha) == (False, "not an outcome record", "")
    path, sha = put(tmp_path, None, ROW, "default", raw=(record[:-1] + ', "status": "refuted"}').encode())
    bound, why, point = bind(path, sha)
    assert (bound, point) == (False, "") and "duplicate" in why
    path, sha = put(tmp_path, None, ROW, "default", raw=record.replace('"unknown": null', '"unknown": 1.5').encode())
    assert bind(path, sha) == (True, STANDS, "default")  # floats are read (as text), not refused


def test_another_statement_is_not_bound(tmp_path):
    why = f"statement hash differs from the installed {ROW}: the outcome is about another statement"
    assert bind(*put(tmp_path, record_of(ROW, statement="0" * 64))) == (False, why, "")
    assert bind(*put(tmp_path, record_of(T3)), claim_id=ROW)[1] == why  # another claim's record


def test_parameters_that_are_no_point_of_the_claim(tmp_path):
    for parameters, words in [({"w_max": 10**9}, "w_max"), ({"no_such": 1}, "no_such")]:
        record = record_of(ROW) | {"parameters": parameters}
        bound, why, point = bind(*put(tmp_path / words, record, folder="default"))
        assert (bound, point) == (False, "") and why.startswith(f"parameters are not a point of {ROW}: ") and words in why
    for parameters in (["w_max"], "w_max=3", 7):  # not a mapping: the claim's parser raises TypeError/AttributeError
        bound, why, point = bind(*put(tmp_path / type(parameters).__name__, record_of(ROW) | {"parameters": parameters},
                                      folder="default"))
        assert (bound, point) == (False, "") and why.startswith(f"parameters are not a point of {ROW}: "), why
    # none at all: read as the defaults, but not written as the claim writes them
    none = record_of(ROW) | {"parameters": None}
    assert bind(*put(tmp_path / "none", none, folder="default")) == (False, "parameters are not written as the claim reads them", "")


def test_parameters_not_written_as_the_claim_reads_them(tmp_path):
    record = record_of(ROW, {"w_max": 3})
    written = record | {"parameters": {**record["parameters"], "w_max": "3"}}
    assert bind(*put(tmp_path, written, folder="w_max=3")) == (False, "parameters are not written as the claim reads them", "")
    partial = record_of(T3) | {"parameters": {"m_feasible": 3}}  # a default left out: the same point, written otherwise
    assert bind(*put(tmp_path / "p", partial, folder="default"), claim_id=T3) == (
        False, "parameters are not written as the claim reads them", "")


def test_an_open_conjecture_is_never_bound_as_verified(tmp_path):
    why = f"{OPEN} is an open conjecture: a check reports it unknown, never verified"
    assert bind(*put(tmp_path, record_of(OPEN, status="verified")), claim_id=OPEN) == (False, why, "default")
    unknown = record_of(OPEN, status="unknown", unknown={"why": "open", "partial": True})
    assert bind(*put(tmp_path / "u", unknown), claim_id=OPEN) == (True, STANDS, "default")
    assert bind(*put(tmp_path / "r", record_of(OPEN, status="refuted")), claim_id=OPEN) == (True, STANDS, "default")


def test_an_unknown_beside_full_discharges_must_say_verified(tmp_path):
    why = f"every verify obligation is discharged and {ROW} is no open conjecture: the outcome must say verified, not unknown"
    for reason in ("budget", "undecided", "open"):
        record = record_of(ROW, status="unknown", unknown={"why": reason, "partial": True})
        assert bind(*put(tmp_path / reason, record)) == (False, why, "default")
        assert bind(*put(tmp_path / (reason + "-u"), record), earned="unknown") == (True, STANDS, "default")
    for unknown in (None, "budget", [1]):  # not a mapping: no reason given, so none that excuses it
        record = record_of(ROW, status="unknown", unknown=unknown)
        assert bind(*put(tmp_path / str(type(unknown).__name__), record))[1] == why
    failed = record_of(ROW, status="unknown", unknown={"why": "not established", "partial": True})
    assert bind(*put(tmp_path / "failed", failed)) == (True, STANDS, "default")  # a check that went wrong understates
    assert bind(*put(tmp_path / "refuted", record_of(ROW, status="refuted"))) == (True, STANDS, "default")
    unknown_open = record_of(OPEN, status="unknown", unknown={"why": "budget", "partial": False})
    assert bind(*put(tmp_path / "open", unknown_open), claim_id=OPEN) == (True, STANDS, "default")


def test_a_point_estimated_above_the_budget_is_refused_before_its_obligations(tmp_path, monkeypatch):
    claim = core.get(ROW)
    path, sha = put(tmp_path, record_of(ROW))
    estimate = claim.cost(claim.point())
    monkeypatch.setattr(verification, "BIND_BUDGET", estimate)
    assert bind(path, sha) == (True, STANDS, "default")  # at the budget: bound
    monkeypatch.setattr(verification, "BIND_BUDGET", estimate / 2)
    monkeypatch.setattr(type(claim), "obligations", lambda self, point: pytest.fail("obligations stated"))
    assert bind(path, sha) == (False, f"refused: {ROW} at this point is estimated at {estimate:.0f} s, "
                                      f"above {estimate / 2:.0f} s", "default")


def test_a_claim_whose_own_code_fails_is_a_failed_binding(tmp_path, monkeypatch):
    claim = core.get(ROW)
    path, sha = put(tmp_path, record_of(ROW))

    def broken(self, point):
        raise ZeroDivisionError("x" * 300)

    monkeypatch.setattr(type(claim), "obligations", broken)
    assert bind(path, sha) == (False, f"{ROW} could not state its obligations: ZeroDivisionError: {'x' * 120}", "default")
    monkeypatch.undo()
    monkeypatch.setattr(type(claim), "cost", lambda self, point: [][1])
    assert bind(path, sha)[1] == f"{ROW} could not state its obligations: IndexError: list index out of range"


def test_obligations_other_than_the_claims_are_not_bound(tmp_path):
    why = f"the obligations recorded differ from those {ROW} states at this point"
    record = record_of(ROW)
    other = record | {"obligations": record_of(ROW, {"w_max": 3})["obligations"]}
    assert bind(*put(tmp_path, other)) == (False, why, "default")
    dropped = record | {"obligations": {**record["obligations"], "verify": record["obligations"]["verify"][:-1]}}
    assert bind(*put(tmp_path / "d", dropped)) == (False, why, "default")
    assert bind(*put(tmp_path / "n", record | {"obligations": None})) == (False, why, "default")


def test_a_folder_not_named_by_its_point_is_not_bound(tmp_path):
    record = record_of(ROW, {"w_max": 3})
    assert bind(*put(tmp_path, record, folder="default")) == (
        False, f"the outcome is {ROW} at the point 'w_max=3', but its folder is {ROW}/default", "w_max=3")
    assert bind(*put(tmp_path / "c", record, claim_folder=T3)) == (
        False, f"the outcome is {ROW} at the point 'w_max=3', but its folder is {T3}/w_max=3", "w_max=3")
    assert bind(*put(tmp_path / "e", record, folder="w_max=3\x1b[2J")) == (
        False, f"the outcome is {ROW} at the point 'w_max=3', but its folder is {ROW}/w_max=3\\x1b[2J", "w_max=3")


def test_seconds_weigh_the_order_only_and_never_fail(tmp_path):
    path, _ = put(tmp_path, record_of(ROW, seconds="2.5"))
    assert verification._seconds(path) == 2.5
    for value, expected in ((1.25, 1.25), (-3, 0.0), ("x", 0.0), (None, 0.0), ([1], 0.0), (7, 7.0)):
        path, _ = put(tmp_path / str(len(str(value))) / str(expected), record_of(ROW, seconds=value))
        assert verification._seconds(path) == expected, value
    path, _ = put(tmp_path / "list", None, ROW, "default", raw=b"[1]")
    assert verification._seconds(path) == 0.0
    path, _ = put(tmp_path / "bad", None, ROW, "default", raw=b"{")
    assert verification._seconds(path) == 0.0
    assert verification._seconds(str(tmp_path / "missing.json")) == 0.0


# ------------------------------------------------------------------ the binding process's code, in this process


def test_bind_one_answers_for_one_item_and_never_raises(tmp_path, monkeypatch):
    path, sha = put(tmp_path, record_of(ROW))
    monkeypatch.setattr(verification, "_CLAIMS", {ROW: core.get(ROW)})
    assert verification._bind_one([path, ROW, "verified", sha]) == [path, True, STANDS, "default"]
    assert verification._bind_one([path, "no.such", "verified", sha]) == [path, None, "no installed claim 'no.such'", ""]
    # stage 1's word is passed on: an unknown beside full discharges is refused only when they were earned
    unknown, unknown_sha = put(tmp_path / "u", record_of(ROW, status="unknown", unknown={"why": "budget", "partial": True}))
    assert verification._bind_one([unknown, ROW, "verified", unknown_sha])[1] is False
    assert verification._bind_one([unknown, ROW, "unknown", unknown_sha]) == [unknown, True, STANDS, "default"]
    monkeypatch.setattr(verification, "bind", lambda *args: (_ for _ in ()).throw(KeyError("y" * 300)))
    assert verification._bind_one([path, ROW, "verified", sha]) == [path, False, f"binding failed: KeyError: {repr('y' * 300)[:160]}", ""]


def test_the_builtin_scope_loads_the_packages_claims_and_no_plugin():
    claims, broken, plugin = verification._load_scope(verification.BUILTIN)
    assert broken == "" and plugin == {}
    assert {cid.split(".")[0] for cid in claims} == {"kernel_rank", "softmax_rank", "conjectures"}
    assert ROW in claims and OPEN in claims and all(claims[cid].id == cid for cid in claims)


def _serve(monkeypatch, request: dict | str, jobs: int = 1) -> tuple[int, list]:
    """``_binding_main`` in this process: ``request`` on stdin, the answer lines read from its pipe.

    With more than one job the binding freezes the collector before it forks (``gc.freeze()``: in its own
    process, so that its modules stay shared). Here that would freeze this test process's objects, and
    ``gc.unfreeze()`` cannot undo one freeze alone: it releases every frozen object, also those frozen before
    the call (a mutation tool's fork server starts the test process with objects frozen). So the freeze runs
    and is undone only when nothing was frozen before; otherwise the call's freeze is skipped (no answer
    depends on it), and the objects frozen before stay frozen."""
    import gc
    import io

    read, write = os.pipe()
    monkeypatch.setattr(verification.sys, "stdin", io.StringIO(request if isinstance(request, str) else json.dumps(request)))
    ours = gc.get_freeze_count() == 0
    if not ours:
        monkeypatch.setattr(gc, "freeze", lambda: None)
    try:
        status = verification._binding_main(["--answers", str(write), "--jobs", str(jobs)])
    finally:
        os.close(write)
        if ours:
            gc.unfreeze()  # nothing was frozen before the call: what is frozen now, the call froze
    with os.fdopen(read, "rb") as pipe:
        lines = pipe.read().decode().splitlines()
    return status, lines


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_binding_process_answers_each_item_with_its_nonce_longest_check_first(tmp_path, monkeypatch, jobs):
    # the folders sort otherwise than the recorded seconds, so that the order said is the seconds'
    short, sha_short = put(tmp_path / "a", record_of(ROW))
    long, sha_long = put(tmp_path / "c", record_of(ROW, {"w_max": 3}))
    other = str(tmp_path / "b" / "missing.json")
    items = [[short, ROW, "verified", 1.0, sha_short], [long, ROW, "verified", "5.5", sha_long], [other, "no.such", "verified", 3, ""]]
    status, lines = _serve(monkeypatch, {"nonce": "abc", "scope": verification.BUILTIN, "items": items}, jobs)
    assert status == 0
    assert [line.split(" ", 1)[0] for line in lines] == ["abc"] * 3
    answers = [json.loads(line.split(" ", 1)[1]) for line in lines]
    assert answers == [[long, True, STANDS, "w_max=3"], [other, None, "no installed claim 'no.such'", ""],
                       [short, True, STANDS, "default"]]


def _by_process(path, claim, earned, sha256, claims):
    """A stand-in for ``bind``: the process that bound the item; one whose path says ``die`` ends it (once, if a
    marker beside it can be made, or every time)."""
    name = os.path.basename(path)
    if name.startswith("die"):
        marker = path + ".died"
        if name == "die-always" or not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(3)
    return True, str(os.getpid()), name


def _pids(lines) -> list:
    return [(json.loads(line.split(" ", 1)[1])[3], int(json.loads(line.split(" ", 1)[1])[2])) for line in lines]


def test_one_job_or_one_item_binds_in_the_process_itself_and_more_in_forked_workers(tmp_path, monkeypatch):
    monkeypatch.setattr(verification, "bind", _by_process)
    items = [[str(tmp_path / f"p{k}"), ROW, "verified", k, ""] for k in range(4)]
    request = {"nonce": "n", "scope": verification.BUILTIN, "items": items}
    for argv_jobs in (1, None):  # --jobs 1, or no --jobs at all: one process
        import io

        read, write = os.pipe()
        monkeypatch.setattr(verification.sys, "stdin", io.StringIO(json.dumps(request)))
        argv = ["--answers", str(write)] + ([] if argv_jobs is None else ["--jobs", str(argv_jobs)])
        assert verification._binding_main(argv) == 0
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            said = _pids(pipe.read().decode().splitlines())
        assert [name for name, _ in said] == ["p3", "p2", "p1", "p0"] and {pid for _, pid in said} == {os.getpid()}
    status, lines = _serve(monkeypatch, request | {"items": items[:1]}, 2)  # one item: no pool
    assert status == 0 and _pids(lines) == [("p0", os.getpid())]
    status, lines = _serve(monkeypatch, request, 2)
    said = _pids(lines)
    assert status == 0 and [name for name, _ in said] == ["p3", "p2", "p1", "p0"]
    assert os.getpid() not in {pid for _, pid in said} and len({pid for _, pid in said}) <= 2  # two workers at most
    status, lines = _serve(monkeypatch, request | {"items": items[:3]}, 5)
    assert status == 0 and len({pid for _, pid in _pids(lines)} - {os.getpid()}) <= 3


def test_a_worker_that_dies_fails_only_its_own_item(tmp_path, monkeypatch):
    """A death breaks the pool under every item it had not answered: each is bound again alone, where only the
    item whose binding ends its process goes unanswered (said so, exit status 1)."""
    monkeypatch.setattr(verification, "bind", _by_process)
    items = [[str(tmp_path / name), ROW, "verified", seconds, ""]
             for name, seconds in (("die-once", 9), ("die-always", 8), ("p1", 1), ("p2", 2))]
    status, lines = _serve(monkeypatch, {"nonce": "n", "scope": verification.BUILTIN, "items": items}, 2)
    answers = {json.loads(line.split(" ", 1)[1])[0]: json.loads(line.split(" ", 1)[1])[1:] for line in lines}
    assert status == 1 and len(lines) == 4 and all(line.startswith("n ") for line in lines)
    assert answers[str(tmp_path / "die-always")] == [False, "the binding's process stopped early (killed, or out of memory)", ""]
    for name in ("die-once", "p1", "p2"):
        bound, pid, point = answers[str(tmp_path / name)]
        assert bound is True and point == name and int(pid) != os.getpid()


def test_serving_leaves_the_freeze_it_found(tmp_path, monkeypatch):
    """``_serve`` over the forking path: objects frozen before it (as a mutation tool's fork server freezes them)
    are frozen after it, and with nothing frozen before, nothing is frozen after."""
    import gc

    monkeypatch.setattr(verification, "bind", _by_process)
    request = {"nonce": "n", "scope": verification.BUILTIN, "items": [[str(tmp_path / f"p{k}"), ROW, "verified", k, ""] for k in range(2)]}
    if gc.get_freeze_count():
        pytest.skip("objects are frozen in this process already: this test would have to unfreeze them")
    status, lines = _serve(monkeypatch, request, 2)
    assert status == 0 and len(lines) == 2 and gc.get_freeze_count() == 0
    held = [object()]  # a tracked container, frozen before the call
    gc.freeze()
    try:
        assert all(item is not held for item in gc.get_objects())  # frozen: in no generation the collector walks
        status, lines = _serve(monkeypatch, request, 2)
        assert status == 0 and len(lines) == 2
        assert all(item is not held for item in gc.get_objects())  # still frozen
    finally:
        gc.unfreeze()
    assert any(item is held for item in gc.get_objects())


def test_an_empty_request_is_answered_with_nothing(monkeypatch):
    assert _serve(monkeypatch, "  \n") == (0, [])
    assert _serve(monkeypatch, {"nonce": "n", "scope": verification.BUILTIN, "items": []}, 2) == (0, [])


def test_claims_that_cannot_be_loaded_fail_every_item_of_the_builtin_scope(tmp_path, monkeypatch):
    path, sha = put(tmp_path, record_of(ROW))
    monkeypatch.setattr(verification, "_load_scope", lambda scope: ({}, "ImportError: broken", {}))
    status, lines = _serve(monkeypatch, {"nonce": "n", "scope": verification.BUILTIN, "items": [[path, ROW, "verified", 0, sha]]})
    assert status == 0 and lines == ["n " + json.dumps([path, False, "the installed claims cannot be loaded: ImportError: broken", ""])]
    plugin = {"origin": "conjectures/x.py", "file": "/x.py", "sha256": "f" * 64}
    monkeypatch.setattr(verification, "_load_scope", lambda scope: ({}, "SyntaxError: bad", plugin))
    status, lines = _serve(monkeypatch, {"nonce": "n", "scope": "file:x.py", "items": [[path, ROW, "verified", 0, sha]]})
    assert status == 0 and lines == ["n " + json.dumps(plugin),
                                     "n " + json.dumps([path, None, "the plugin file:x.py cannot be loaded: SyntaxError: bad", ""])]


# ------------------------------------------------------------------ a plugin's scope


@pytest.fixture
def isolated(monkeypatch):
    """The modules a plugin scope imports and the folders it puts on sys.path are taken away after the test."""
    import sys

    from theorems import registry

    modules = set(sys.modules)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(registry, "_ADDED", list(registry._ADDED))
    monkeypatch.setattr(registry, "_FROM_FOLDER", dict(registry._FROM_FOLDER))
    yield
    for name in set(sys.modules) - modules:
        if name in ("toy_plugin", "broken", "my_claims"):
            del sys.modules[name]


def test_a_plugins_scope_loads_its_claims_alone_and_names_its_file_and_digest(tmp_path, monkeypatch, isolated):
    import shutil

    (tmp_path / "conjectures").mkdir()
    plugin = tmp_path / "conjectures" / "toy_plugin.py"
    shutil.copy(os.path.join(os.path.dirname(__file__), "toy_plugin.py"), plugin)
    monkeypatch.chdir(tmp_path)
    claims, broken, said = verification._load_scope("file:toy_plugin.py")
    digest = hashlib.sha256(plugin.read_bytes()).hexdigest()
    assert broken == "" and said == {"origin": "conjectures/toy_plugin.py", "file": str(plugin), "sha256": digest}
    assert sorted(claims) == ["plugin_toy.diagonal_2", "plugin_toy.diagonal_3", "plugin_toy.diagonal_4"]
    (tmp_path / "conjectures" / "broken.py").write_text("def (:\n")
    claims, broken, said = verification._load_scope("file:broken.py")
    assert claims == {} and broken.startswith("RegistrationError: ") and "SyntaxError" in broken
    assert said["origin"] == "conjectures/broken.py" and said["file"] == str(tmp_path / "conjectures" / "broken.py")
    assert said["sha256"] == hashlib.sha256(b"def (:\n").hexdigest()


def test_a_module_or_variable_scope_names_the_module_file(tmp_path, monkeypatch, isolated):
    import tests.theorems.cli_toy as toy

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(core.MODULES_VARIABLE, "tests.theorems.cli_toy")
    claims, broken, said = verification._load_scope("env:tests.theorems.cli_toy")
    with open(toy.__file__, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    assert broken == "" and list(claims) == [toy.CLAIM.id]
    assert said == {"origin": "ATTNPROOF_CLAIMS module tests.theorems.cli_toy", "file": toy.__file__, "sha256": digest}
    (tmp_path / "pyproject.toml").write_text('[tool.attnproof]\nconjectures = ["my_claims", "no_such_module"]\n')
    (tmp_path / "my_claims.py").write_text("from tests.theorems.cli_toy import TwoDiagonals\n"
                                           "class Mine(TwoDiagonals):\n    id = 'mine.two'\nCLAIM = Mine()\n")
    monkeypatch.delenv(core.MODULES_VARIABLE)
    claims, broken, said = verification._load_scope("module:my_claims")
    assert broken == "" and list(claims) == ["mine.two"], broken
    assert said == {"origin": "[tool.attnproof] my_claims", "file": str(tmp_path / "my_claims.py"),
                    "sha256": hashlib.sha256((tmp_path / "my_claims.py").read_bytes()).hexdigest()}
    claims, broken, said = verification._load_scope("module:no_such_module")
    assert claims == {} and "no_such_module" in broken and said == {"origin": "[tool.attnproof] no_such_module", "file": "", "sha256": ""}
    claims, broken, said = verification._load_scope("other:thing")
    assert said == {"origin": "other:thing", "file": "", "sha256": ""}
