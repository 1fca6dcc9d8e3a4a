"""The outcome folder's rules (theorems/store.py), function by function, with each refusal's whole words.

test_store.py holds the same rules through the command line; here each branch of ``is_outcome_folder``,
``prepare``, ``check_names``, the stage clean-up, ``write``, ``read_all`` and ``write_list`` is pinned, so
that a change to one of them fails a test that names it (the module's mutation score: docs/mutation.md).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from solvers import certificates
from theorems import store


def record(claim: str, slug: str = "default", **more) -> dict:
    return {"claim": claim, "point": slug, "certificates": [], **more}


def envelope(name: str) -> dict:
    return certificates.make("rank-lower", "a.one", "0" * 64, {}, {"name": name})


# ------------------------------------------------------------------ whose folder


def test_an_outcome_folder_is_marked_empty_or_written_before_the_marker(tmp_path):
    folder = tmp_path / "o"
    folder.mkdir()
    assert store.is_outcome_folder(str(folder))  # empty
    (folder / "notes.txt").write_text("x")
    assert not store.is_outcome_folder(str(folder))
    (folder / store.MARKER).write_text(store.MARKER_TEXT)
    assert store.is_outcome_folder(str(folder))  # marked: whatever else it holds

    legacy = tmp_path / "legacy"  # outcomes.json, claim folders and attnproof's own dot-files, nothing else
    (legacy / "kernel_rank.row_lemma" / "default").mkdir(parents=True)
    assert not store.is_outcome_folder(str(legacy))  # folders alone: no outcomes.json
    (legacy / store.LIST).write_text("[]")
    (legacy / ".attnproof-stage-1-x").mkdir()
    (legacy / ".attnproof-probe").write_text("")
    assert store.is_outcome_folder(str(legacy))
    (legacy / "notes.txt").write_text("x")
    assert not store.is_outcome_folder(str(legacy))  # a file of someone's
    os.remove(legacy / "notes.txt")
    os.symlink(tmp_path / "o", legacy / "elsewhere")
    assert not store.is_outcome_folder(str(legacy))  # a link to a folder is not a claim folder
    os.remove(legacy / "elsewhere")
    (legacy / ".hidden").write_text("x")
    assert not store.is_outcome_folder(str(legacy))  # a dot-file, but not attnproof's


def test_prepare_refuses_with_the_reason(tmp_path):
    def refusal(out) -> str:
        with pytest.raises(store.OutputError) as raised:
            store.prepare(out)
        return str(raised.value)

    file = tmp_path / "results"
    file.write_text("keep")
    assert refusal(str(file)) == f"--out {file} exists and is not a folder; choose another --out"
    assert refusal(str(file / "o")) == f"--out {file / 'o'} cannot be made: {file} is not a folder"
    assert refusal(str(file / "a" / "b")) == f"--out {file / 'a' / 'b'} cannot be made: {file} is not a folder"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert refusal(str(mine)) == (f"--out {mine} exists and is not an attnproof outcome folder (it has no "
                                  f"{store.MARKER}); choose another --out (a new or empty folder, or one a check wrote)")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        assert refusal(str(locked)) == f"--out {locked} cannot be written: {locked} is read-only (mode 555)"
        assert refusal(str(locked / "a" / "b")) == f"--out {locked / 'a' / 'b'} cannot be written: {locked} is read-only (mode 555)"
    finally:
        locked.chmod(0o755)
    store.prepare(str(tmp_path / "new" / "deeper"))  # made later, under a writable folder: accepted
    store.prepare(str(locked))  # an empty writable folder
    assert not (tmp_path / "new").exists() and os.listdir(locked) == []  # nothing is made, no probe is left
    relative = os.path.relpath(tmp_path / "rel", os.getcwd())
    store.prepare(relative)


def test_unwritable_says_why_from_the_mode_the_access_or_a_failed_probe(tmp_path, monkeypatch):
    folder = tmp_path / "f"
    folder.mkdir()
    assert store._unwritable(str(folder)) == ""
    assert os.listdir(folder) == []  # the probe is removed
    for mode in (0o555, 0o444, 0o500):
        folder.chmod(mode)
        assert store._unwritable(str(folder)) == f"{folder} is read-only (mode {mode:o})"
    folder.chmod(0o755)
    monkeypatch.setattr(store.os, "access", lambda path, how: how != os.W_OK | os.X_OK)
    assert store._unwritable(str(folder)) == f"{folder} is not writable by this user"
    monkeypatch.undo()

    def full(**kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.tempfile, "mkstemp", full)
    assert store._unwritable(str(folder)) == f"cannot write into {folder}: No space left on device"
    monkeypatch.setattr(store.tempfile, "mkstemp", lambda **kwargs: (_ for _ in ()).throw(OSError("bare")))
    assert store._unwritable(str(folder)) == f"cannot write into {folder}: bare"


def test_a_folder_that_cannot_be_listed_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "f"
    folder.mkdir()
    monkeypatch.setattr(store.os, "listdir", lambda path: (_ for _ in ()).throw(PermissionError(13, "Permission denied")))
    with pytest.raises(store.OutputError) as raised:
        store.prepare(str(folder))
    assert str(raised.value) == f"--out {folder} cannot be used: Permission denied"


def test_check_names_allows_one_plain_folder_name_each():
    store.check_names([("kernel_rank.row_lemma", "w_max=4"), ("a", "default"), ("a", "x..y")])
    for pair in [("", "default"), ("a", ""), (".a", "default"), ("a", ".."), ("a", "."), ("a/b", "default"),
                 ("a", "x/y"), ("a", "x\0y"), ("a", ".hidden")]:
        with pytest.raises(store.OutputError) as raised:
            store.check_names([("ok", "default"), pair])
        bad = next(name for name in pair if not name or name.startswith(".") or "/" in name or "\0" in name)
        assert str(raised.value) == f"cannot name a folder {bad[:80]!r}: a claim id or point must be one plain folder name"
    with pytest.raises(store.OutputError, match="cannot name a folder '/" + "x" * 79 + "':"):
        store.check_names([("/" + "x" * 200, "default")])


# ------------------------------------------------------------------ stages


def test_stale_stages_of_dead_runs_are_removed_and_others_kept(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    names = {
        f"{store.STAGE_PREFIX}{dead_pid}-abc": False,  # its run is gone: removed
        f"{store.STAGE_PREFIX}{os.getpid()}-abc": True,  # this process's own
        f"{store.STAGE_PREFIX}1-abc": True,  # a live process (init)
        f"{store.STAGE_PREFIX}x-abc": True,  # not named by a process id
        f"{store.STAGE_PREFIX}-abc": True,
        f".other-{dead_pid}-abc": True,  # not a stage
        "kernel_rank.row_lemma": True,
    }
    for name in names:
        (out / name).mkdir()
        (out / name / "inside").write_text("x")
    store._remove_stale_stages(str(out))
    assert {name: (out / name).exists() for name in names} == names


def test_alive_asks_the_system(monkeypatch):
    assert store._alive(os.getpid())
    assert store._alive(1)  # init: alive, even if signals to it are not permitted

    def refuses(pid, sig):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(store.os, "kill", refuses)
    assert store._alive(12345)
    monkeypatch.setattr(store.os, "kill", lambda pid, sig: (_ for _ in ()).throw(ProcessLookupError()))
    assert not store._alive(12345)
    calls = []
    monkeypatch.setattr(store.os, "kill", lambda pid, sig: calls.append((pid, sig)))
    assert store._alive(77) and calls == [(77, 0)]  # signal 0: asked, never sent


# ------------------------------------------------------------------ writing and reading


def test_write_puts_each_point_its_certificates_and_the_marker_and_keeps_the_others(tmp_path):
    out = str(tmp_path / "o")
    first = record("a.one", certificates=["00-rank-lower.cert.json"])
    store.write(out, [("a.one", "default", first, [envelope("one")]), ("a.two", "k=1", record("a.two", "k=1"), [])])
    with open(os.path.join(out, store.MARKER)) as handle:
        assert handle.read() == store.MARKER_TEXT
    with open(os.path.join(out, "a.one", "default", "00-rank-lower.cert.json")) as handle:
        assert json.load(handle)["data"] == {"name": "one"}
    with open(os.path.join(out, "a.one", "default", store.OUTCOME)) as handle:
        text = handle.read()
    assert json.loads(text) == first and text == json.dumps(first, indent=1, sort_keys=True) + "\n"
    assert sorted(os.listdir(os.path.join(out, "a.one", "default"))) == ["00-rank-lower.cert.json", store.OUTCOME]
    with open(os.path.join(out, store.LIST)) as handle:
        assert [r["claim"] for r in json.load(handle)] == ["a.one", "a.two"]
    # a later run replaces its own point whole (the old certificate goes) and keeps the others
    store.write(out, [("a.one", "default", record("a.one", says="new"), [])])
    assert os.listdir(os.path.join(out, "a.one", "default")) == [store.OUTCOME]
    with open(os.path.join(out, store.LIST)) as handle:
        assert [(r["claim"], r.get("says")) for r in json.load(handle)] == [("a.one", "new"), ("a.two", None)]
    assert sorted(os.listdir(out)) == sorted([store.MARKER, store.LIST, "a.one", "a.two"])  # no stage left
    # relist=False leaves outcomes.json as it was until a run remakes it
    store.write(out, [("a.three", "default", record("a.three"), [])], relist=False)
    with open(os.path.join(out, store.LIST)) as handle:
        assert [r["claim"] for r in json.load(handle)] == ["a.one", "a.two"]
    assert [r["claim"] for r in store.write_list(out)] == ["a.one", "a.three", "a.two"]


def test_write_refuses_bad_names_before_writing_anything(tmp_path):
    out = tmp_path / "o"
    with pytest.raises(store.OutputError):
        store.write(str(out), [("a.one", "default", record("a.one"), []), ("a.two", "../x", record("a.two"), [])])
    assert not out.exists()


def test_a_failed_write_leaves_no_stage_and_the_marker_is_written_once(tmp_path, monkeypatch):
    out = tmp_path / "o"
    out.mkdir()
    (out / store.MARKER).write_text("kept as it is")
    with pytest.raises(ValueError):  # a certificate list that does not match its envelopes (zip strict)
        store.write(str(out), [("a.one", "default", record("a.one", certificates=["00-x.cert.json"]), [])])
    assert sorted(os.listdir(out)) == [store.MARKER] and (out / store.MARKER).read_text() == "kept as it is"


def test_the_stage_and_its_folders_get_the_umask(tmp_path):
    previous = os.umask(0o077)
    try:
        store.write(str(tmp_path / "o"), [("a.one", "default", record("a.one"), [])])
    finally:
        os.umask(previous)
    for path in (tmp_path / "o" / "a.one", tmp_path / "o" / "a.one" / "default"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    assert stat.S_IMODE((tmp_path / "o" / "a.one" / "default" / store.OUTCOME).stat().st_mode) == 0o600


def test_read_all_reads_every_outcome_and_skips_what_it_cannot(tmp_path, monkeypatch):
    """What cannot be read is skipped, and only it: each bad entry sorts before good points of the same claim
    folder (and before good claim folders), so that stopping at it would lose them."""
    out = tmp_path / "o"
    for claim, slug in (("b.two", "default"), ("a.one", "k=2"), ("a.one", "k=1")):
        (out / claim / slug).mkdir(parents=True)
        (out / claim / slug / store.OUTCOME).write_text(json.dumps(record(claim, slug)))
    (out / ".attnproof-stage-1-x" / "default").mkdir(parents=True)  # a stage: never read
    (out / ".attnproof-stage-1-x" / "default" / store.OUTCOME).write_text(json.dumps(record("stage")))
    (out / "a-notes.txt").write_text("not a folder")
    os.symlink(out / "b.two", out / "a-linked")  # a link to a claim folder: not read twice
    for slug, text in (("a-list", "[1]"), ("a-broken", "{"), ("a-deep", "[" * 100_000 + "]" * 100_000)):
        (out / "a.one" / slug).mkdir(parents=True)
        (out / "a.one" / slug / store.OUTCOME).write_text(text)
    (out / "a.one" / "a-empty").mkdir()  # no outcome.json
    (out / "a.one" / "a-file").write_text("x")
    (out / "a.one" / "a-folder" / store.OUTCOME).mkdir(parents=True)  # not a file
    assert [(r["claim"], r["point"]) for r in store.read_all(str(out))] == [("a.one", "k=1"), ("a.one", "k=2"), ("b.two", "default")]
    big = out / "a.one" / "a-big"  # another claim's record, in a folder read before k=1
    big.mkdir(parents=True)
    (big / store.OUTCOME).write_text(json.dumps(record("c.bigger.one")))
    monkeypatch.setattr(store.parse, "MAX_BYTES", len(json.dumps(record("c.bigger.one"))))
    assert [r["claim"] for r in store.read_all(str(out))] == ["c.bigger.one", "a.one", "a.one", "b.two"]  # at the cap: read
    monkeypatch.setattr(store.parse, "MAX_BYTES", len(json.dumps(record("c.bigger.one"))) - 1)
    assert [r["claim"] for r in store.read_all(str(out))] == ["a.one", "a.one", "b.two"]  # above it: left out
    monkeypatch.undo()
    real = open

    def unreadable(path, *args, **kwargs):  # as a file of another user's would be
        if "a-big" in str(path):
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(store, "open", unreadable, raising=False)
    assert [r["claim"] for r in store.read_all(str(out))] == ["a.one", "a.one", "b.two"]


def test_write_list_writes_what_read_all_reads(tmp_path):
    out = tmp_path / "o"
    (out / "a.one" / "default").mkdir(parents=True)
    (out / "a.one" / "default" / store.OUTCOME).write_text(json.dumps(record("a.one")))
    listed = store.write_list(str(out))
    text = (out / store.LIST).read_text()
    assert listed == [record("a.one")] and text == json.dumps(listed, indent=1, sort_keys=True) + "\n"


def test_the_probe_is_made_in_the_folder_itself_and_named_as_attnproofs(tmp_path, monkeypatch):
    """A read-only mount keeps its w bits: only a file made *in* the folder tells; a probe left by a crash is
    one of attnproof's own dot-files, so the folder stays an outcome folder."""
    made, real = [], store.tempfile.mkstemp

    def spy(**kwargs):
        fd, path = real(**kwargs)
        made.append((os.path.dirname(path), os.path.basename(path)))
        return fd, path

    monkeypatch.setattr(store.tempfile, "mkstemp", spy)
    assert store._unwritable(str(tmp_path)) == ""
    [(folder, name)] = made
    assert folder == str(tmp_path) and name.startswith(".attnproof-probe-")
    assert not os.path.exists(os.path.join(folder, name))


def test_write_stages_inside_the_folder_with_the_users_umask_and_clears_stale_stages(tmp_path, monkeypatch):
    """The stage is a folder of OUT (renames out of it are atomic: one file system), mode 0777 less the umask;
    a stage left by a run that died is removed by the next write."""
    out = tmp_path / "o"
    out.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    stale = out / f"{store.STAGE_PREFIX}{int(dead.stdout)}-x"
    stale.mkdir()
    seen, real = [], os.replace

    def replace(src, dst, *args, **kwargs):
        stage = os.path.relpath(src, out).split(os.sep)[0]
        if stage.startswith(store.STAGE_PREFIX):
            seen.append(stat.S_IMODE(os.stat(out / stage).st_mode))
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(store.os, "replace", replace)
    previous = os.umask(0o027)
    try:
        store.write(str(out), [("a.one", "default", record("a.one"), [])])
    finally:
        os.umask(previous)
    assert seen and set(seen) == {0o750}
    assert not stale.exists() and sorted(os.listdir(out)) == sorted([store.MARKER, store.LIST, "a.one"])


def test_a_stale_stage_is_named_by_the_process_id_before_its_first_dash_and_a_race_to_clear_it_is_no_error(tmp_path, monkeypatch):
    out = tmp_path / "o"
    out.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    stale = out / f"{store.STAGE_PREFIX}{int(dead.stdout)}-a-b"  # the id is what comes before the first dash
    stale.mkdir()
    store._remove_stale_stages(str(out))
    assert not stale.exists()
    stale.mkdir()
    real = shutil.rmtree

    def raced(path, *args, **kwargs):  # another run cleared it first
        real(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(store.shutil, "rmtree", raced)
    store._remove_stale_stages(str(out))
    assert not stale.exists()
