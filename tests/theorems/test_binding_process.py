"""Stage 2's process, in this process: ``start_binding``, ``_stop``, ``_warm``, ``_worker_start`` and the
parts of ``_binding_main`` and ``_load_scope`` that test_binding.py does not reach.

``verify`` runs the binding in a process of its own (``start_binding`` starts ``python -c BIND_BOOT``, which
runs ``_binding_main``; with ``--jobs`` above 1 that forks workers, each starting with ``_worker_start``).
Code that runs only in another process is invisible to a mutation tool's map of which tests reach which
function, so each piece is called here directly: the process replaced by a recorder (``start_binding``),
``ctypes`` replaced by a recorder (``_worker_start``), stdin by a string and the answer pipe by a real
pipe (``_binding_main``), a scratch project or entry point (``_load_scope``).  One test starts the real
process once and reads its answers, and two fork a real worker, so that the stand-ins are checked against
the real thing.
"""

from __future__ import annotations

import builtins
import hashlib
import io
import json
import os
import re
import signal
import stat
import subprocess
import sys
import time

import pytest

from tests.theorems.test_binding import ROW, STANDS, isolated, put, record_of  # noqa: F401 (isolated: a fixture)
from theorems import verification
from theorems.verification import BUILTIN, OutcomeCheck


class Proxy:
    """A module as ``verification`` sees it: the real one, but for the attributes a test sets or removes (so
    that ``os.write``, ``os.pipe`` or ``subprocess.Popen`` are replaced for ``verification`` alone, never for
    pytest running beside it)."""

    def __init__(self, module, removed: tuple = (), **replaced):
        self._module, self._removed = module, removed
        self.__dict__.update(replaced)

    def __getattr__(self, name):
        if name in self._removed:
            raise AttributeError(name)
        return getattr(self._module, name)


def closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


# ------------------------------------------------------------------ start_binding and _stop


class Recorder:
    """``subprocess.Popen`` replaced: records its arguments, and whether the answer pipe's write end was open
    while it ran (the child must inherit it); raises ``error`` when given."""

    def __init__(self, error: BaseException | None = None):
        self.calls, self.error = [], error

    def __call__(self, command, **options):
        fd = int(command[command.index("--answers") + 1]) if "--answers" in command else -1
        self.calls.append((command, options, fd >= 0 and not closed(fd)))
        if self.error is not None:
            raise self.error
        return "the process"


def test_start_binding_starts_the_binding_module_with_its_pipe_its_jobs_and_a_fresh_nonce(monkeypatch):
    popen, pipes = Recorder(), []

    def pipe():
        pipes.append(os.pipe())
        return pipes[-1]

    monkeypatch.setattr(verification, "subprocess", Proxy(subprocess, Popen=popen))
    monkeypatch.setattr(verification, "os", Proxy(os, pipe=pipe))
    first = verification.start_binding(3)
    (read, write), = pipes
    write_closed = closed(write)  # before another descriptor can take its number
    second = verification.start_binding(scope="file:x.py")
    try:
        write_2 = pipes[1][1]
        command, options, open_while_starting = popen.calls[0]
        assert command == [sys.executable, "-c", verification.BIND_BOOT, "--answers", str(write), "--jobs", "3"]
        assert popen.calls[1][0] == [sys.executable, "-c", verification.BIND_BOOT, "--answers", str(write_2),
                                     "--jobs", str(verification.JOBS)]  # the default
        assert sorted(options) == ["pass_fds", "stderr", "stdin", "stdout", "text"]
        assert options["stdin"] == subprocess.PIPE and options["stdout"] == subprocess.DEVNULL and options["text"] is True
        assert options["pass_fds"] == (write,)  # the child inherits the write end, and no other descriptor
        # what the process (and the code it imports) says on stderr goes to a file of its own, never to verify's output
        assert stat.S_ISREG(os.fstat(options["stderr"].fileno()).st_mode)
        assert open_while_starting and write_closed and closed(write_2)  # this process keeps the read end only
        assert not closed(read) and stat.S_ISFIFO(os.fstat(read).st_mode)
        assert (first.process, first.answers, first.scope) == ("the process", read, BUILTIN)
        assert second.scope == "file:x.py"
        assert re.fullmatch("[0-9a-f]{32}", first.nonce) and re.fullmatch("[0-9a-f]{32}", second.nonce)
        assert first.nonce != second.nonce
    finally:
        for _, options, _ in popen.calls:
            options["stderr"].close()
        os.close(first.answers)
        os.close(second.answers)


@pytest.mark.parametrize("error", [OSError("cannot execute"), KeyboardInterrupt()])
def test_a_binding_process_that_cannot_start_leaves_no_descriptor_open(monkeypatch, error):
    popen, pipes = Recorder(error), []

    def pipe():
        pipes.append(os.pipe())
        return pipes[-1]

    monkeypatch.setattr(verification, "subprocess", Proxy(subprocess, Popen=popen))
    monkeypatch.setattr(verification, "os", Proxy(os, pipe=pipe))
    with pytest.raises(type(error)):
        verification.start_binding(2)
    (read, write), = pipes
    assert popen.calls[0][2] and closed(read) and closed(write)
    popen.calls[0][1]["stderr"].close()


def test_a_started_binding_process_answers_on_its_own_pipe_and_ends(tmp_path):
    """The real thing, once: ``python -c BIND_BOOT`` started by start_binding, two outcomes sent by ``_ask``
    (one of a claim it speaks for, one of none), with ``--jobs 2`` so that its workers fork."""
    path, sha = put(tmp_path, record_of(ROW))
    other = str(tmp_path / "elsewhere" / "outcome.json")
    binding = verification.start_binding(2)
    assert binding.process.poll() is None and binding.scope == BUILTIN  # it waits for the request
    answers, plugin = verification._ask(binding, [OutcomeCheck(path=path, claim=ROW, earned="verified", sha256=sha),
                                                  OutcomeCheck(path=other, claim="no.such")])
    assert answers == {path: (True, STANDS, "default"), other: (None, "no installed claim 'no.such'", "")}
    assert plugin == {} and binding.process.returncode == 0 and closed(binding.answers)


class Running:
    """A process stand-in: ``poll`` says whether it runs; ``kill`` and ``wait`` are counted."""

    def __init__(self, running: bool):
        self.running, self.killed, self.waited = running, 0, 0

    def poll(self):
        return None if self.running else 0

    def kill(self):
        self.killed += 1
        self.running = False

    def wait(self):
        self.waited += 1
        return 0


def test_stop_kills_a_process_that_runs_waits_for_it_and_closes_its_pipe():
    process = subprocess.Popen(["sleep", "60"])
    read, write = os.pipe()
    os.close(write)
    verification._stop(verification.Binding(process, read, "n", BUILTIN))
    assert process.returncode == -signal.SIGKILL and closed(read)
    ended, read = Running(False), os.pipe()[0]
    verification._stop(verification.Binding(ended, read, "n", BUILTIN))
    assert (ended.killed, ended.waited) == (0, 1) and closed(read)  # an ended process is not killed
    verification._stop(verification.Binding(ended, read, "n", BUILTIN))  # its pipe already closed: no error
    assert ended.waited == 2


# ------------------------------------------------------------------ _warm and _worker_start


def test_warm_loads_numpy_and_sympy_and_no_claim(monkeypatch):
    imported, real = [], builtins.__import__

    def spy(name, globals=None, *args, **options):
        if (globals or {}).get("__name__") == verification.__name__:  # imported by verification itself
            imported.append(name)
        return real(name, globals, *args, **options)

    monkeypatch.setattr(builtins, "__import__", spy)
    assert verification._warm() is None
    assert imported == ["numpy", "sympy"]


@pytest.mark.parametrize("error", [ImportError("no sympy"), RuntimeError("a broken install")])
def test_warm_with_a_broken_install_says_nothing(monkeypatch, error):
    real = builtins.__import__

    def broken(name, *args, **options):
        if name == "sympy":
            raise error
        return real(name, *args, **options)

    monkeypatch.setattr(builtins, "__import__", broken)
    assert verification._warm() is None  # the binding itself reports it


class Libc:
    """``ctypes.CDLL(name)`` replaced: records the library named and every ``prctl`` call."""

    def __init__(self, calls: list, name):
        calls.append(("CDLL", name))
        self.calls = calls

    def prctl(self, *arguments):
        self.calls.append(("prctl", *arguments))
        return 0


class Exit(BaseException):
    pass


def worker_start(monkeypatch, parent: int, cdll) -> list:
    """``_worker_start(parent)`` with ``ctypes.CDLL`` replaced by ``cdll`` (or ctypes not importable, for None)
    and ``os._exit`` recorded; what was called, in order."""
    calls = []

    def leave(status):
        calls.append(("_exit", status))
        raise Exit

    if cdll is None:
        monkeypatch.setitem(sys.modules, "ctypes", None)
    else:
        import ctypes

        monkeypatch.setattr(ctypes, "CDLL", lambda name: cdll(calls, name))
    monkeypatch.setattr(verification, "os", Proxy(os, _exit=leave, getppid=lambda: 4321))
    try:
        verification._worker_start(parent)
    except Exit:
        pass
    return calls


def test_a_worker_asks_for_sigterm_when_its_parent_dies_and_leaves_if_it_already_has(monkeypatch):
    assert worker_start(monkeypatch, 4321, Libc) == [("CDLL", None), ("prctl", 1, signal.SIGTERM)]  # PR_SET_PDEATHSIG
    assert worker_start(monkeypatch, 4320, Libc) == [("CDLL", None), ("prctl", 1, signal.SIGTERM), ("_exit", 1)]


def test_a_worker_without_prctl_still_leaves_when_its_parent_is_gone(monkeypatch):
    def no_library(calls, name):
        raise OSError("no C library")

    class NoPrctl:
        def __init__(self, calls, name):
            calls.append(("CDLL", name))

    # OSError, AttributeError, ImportError: elsewhere the pool cleans up, so the worker goes on
    for cdll, tried in ((no_library, []), (NoPrctl, [("CDLL", None)]), (None, [])):
        assert worker_start(monkeypatch, 4321, cdll) == tried
        assert worker_start(monkeypatch, 1, cdll) == tried + [("_exit", 1)]


linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")


def _forked(body) -> tuple[int, bytes]:
    """Run ``body(write_fd)`` in a forked child of this process; its exit status and what it wrote."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never back into pytest
        status = 0
        try:
            os.close(read)
            body(write)
        except BaseException:
            status = 2
        finally:
            os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        said = handle.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), said


@linux
def test_a_forked_worker_is_really_sent_sigterm_when_its_parent_dies():
    def body(write):
        import ctypes

        verification._worker_start(os.getppid())
        value = ctypes.c_int(-1)
        ctypes.CDLL(None).prctl(2, ctypes.byref(value))  # PR_GET_PDEATHSIG
        os.write(write, str(value.value).encode())

    assert _forked(body) == (0, str(int(signal.SIGTERM)).encode())


@linux
def test_a_forked_worker_whose_parent_is_already_gone_exits_at_once():
    def body(write):
        verification._worker_start(os.getpid())  # its own pid: not its parent
        os.write(write, b"went on")

    assert _forked(body) == (1, b"")


# ------------------------------------------------------------------ _binding_main


class Stdin:
    """The request on stdin; records whether the libraries were already loaded when it was read."""

    def __init__(self, text: str, warmed: list):
        self.text, self.warmed, self.read_when = text, warmed, []

    def read(self):
        self.read_when.append(list(self.warmed))
        return self.text


def serve(monkeypatch, request, argv: list[str], os_module=os) -> tuple[int, list[str], int]:
    """``_binding_main(argv)`` in this process, ``{fd}`` in argv replaced by a real pipe's write end: its exit
    status, the lines it wrote on the pipe, and how many times it called ``gc.freeze()`` (counted by the
    calls, not by ``gc.get_freeze_count()``: a test process may hold frozen objects already, as a mutation
    tool's fork server does, and some of them may be freed during the call).  The call's freezes run, and are
    undone, only when nothing was frozen before: ``gc.unfreeze()`` releases every frozen object, also those
    (as ``test_binding._serve``)."""
    import gc

    read, write = os.pipe()
    monkeypatch.setattr(verification.sys, "stdin", io.StringIO(request if isinstance(request, str) else json.dumps(request)))
    monkeypatch.setattr(verification, "os", os_module)
    calls, freeze, ours = [], gc.freeze, gc.get_freeze_count() == 0
    monkeypatch.setattr(gc, "freeze", lambda: calls.append(1) or (freeze() if ours else None))
    try:
        status = verification._binding_main([a.replace("{fd}", str(write)) for a in argv])
        frozen = len(calls)
    finally:
        os.close(write)
        if ours:
            gc.unfreeze()  # nothing was frozen before the call: what is frozen now, the call froze
    with os.fdopen(read, "rb") as pipe:
        return status, pipe.read().decode().splitlines(), frozen


def _said(lines: list[str], nonce: str = "n") -> list:
    assert all(line.startswith(nonce + " ") for line in lines), lines
    return [json.loads(line[len(nonce) + 1:]) for line in lines]


def _by_pid(path, claim, earned, sha256, claims):
    """A stand-in for ``bind``: says which process bound the item."""
    return True, str(os.getpid()), os.path.basename(path)


def test_the_libraries_load_before_the_request_is_read(monkeypatch):
    warmed = []
    monkeypatch.setattr(verification, "_warm", lambda: warmed.append("warm"))
    stdin = Stdin(json.dumps({"nonce": "n", "scope": BUILTIN, "items": []}), warmed)
    monkeypatch.setattr(verification.sys, "stdin", stdin)
    read, write = os.pipe()
    try:
        assert verification._binding_main(["--answers", str(write)]) == 0
    finally:
        os.close(write)
        os.close(read)
    assert stdin.read_when == [["warm"]]


def test_options_are_read_in_either_order_and_the_answer_is_written_whole(monkeypatch, tmp_path):
    """``--jobs`` before ``--answers``; an answer pipe that takes a few bytes at a time still gets every byte;
    a nonce that is not a string is said as text."""
    path, sha = put(tmp_path, record_of(ROW))
    writes = []

    def write_some(fd, data):
        writes.append(len(data))
        return os.write(fd, data[:5])

    request = {"nonce": 7, "scope": BUILTIN, "items": [[path, ROW, "verified", 0, sha]]}
    status, lines, frozen = serve(monkeypatch, request, ["--jobs", "1", "--answers", "{fd}"], Proxy(os, write=write_some))
    assert (status, frozen) == (0, 0) and _said(lines, "7") == [[path, True, STANDS, "default"]]
    assert len(writes) > 2 and writes[0] == len(lines[0]) + 1 and all(a - b == 5 for a, b in zip(writes, writes[1:]))


def test_two_items_and_two_jobs_fork_two_workers_that_start_with_the_parents_pid(monkeypatch, tmp_path):
    """Workers of the first pool and of the retry pool start with ``_worker_start(binding process's pid)``; the
    binding process freezes gc before it forks (its imported modules stay shared)."""
    monkeypatch.setattr(verification, "bind", _by_pid)

    def started(parent):
        (tmp_path / f"started-{os.getpid()}").write_text(str(parent))

    monkeypatch.setattr(verification, "_worker_start", started)
    import multiprocessing

    contexts, get_context = [], multiprocessing.get_context
    # forked, never spawned: a spawned worker would import the claims again, and find _CLAIMS empty
    monkeypatch.setattr(multiprocessing, "get_context", lambda method=None: contexts.append(method) or get_context(method))
    # a forked pool starts all its workers at once: min(jobs, items) of them, never one per core
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    items = [[str(tmp_path / "a"), ROW, "verified", 2, ""], [str(tmp_path / "b"), ROW, "verified", 1, ""]]
    status, lines, frozen = serve(monkeypatch, {"nonce": "n", "scope": BUILTIN, "items": items}, ["--answers", "{fd}", "--jobs", "2"])
    said = _said(lines)
    pids = {int(pid) for _, _, pid, _ in said}
    assert status == 0 and [point for *_, point in said] == ["a", "b"] and frozen == 1 and contexts == ["fork"]
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    starts = {int(p.name.split("-")[1]): int(p.read_text()) for p in tmp_path.glob("started-*")}
    assert pids <= set(starts) and set(starts.values()) == {os.getpid()} and len(starts) == 2


def test_without_fork_or_with_one_job_the_process_binds_alone_and_freezes_nothing(monkeypatch, tmp_path):
    monkeypatch.setattr(verification, "bind", _by_pid)
    items = [[str(tmp_path / name), ROW, "verified", 0, ""] for name in "abc"]
    request = {"nonce": "n", "scope": BUILTIN, "items": items}
    for argv, module in ((["--answers", "{fd}", "--jobs", "2"], Proxy(os, removed=("fork",))), (["--answers", "{fd}", "--jobs", "1"], os),
                         (["--answers", "{fd}", "--jobs", "0"], os)):
        status, lines, frozen = serve(monkeypatch, request, argv, module)
        assert (status, frozen) == (0, 0) and {int(pid) for _, _, pid, _ in _said(lines)} == {os.getpid()}


def test_the_retry_pool_is_one_forked_worker_per_item_started_with_the_parents_pid(monkeypatch, tmp_path):
    """x's worker dies the first time it binds x; y is answered in the first pool or cut short.  Each item not
    answered there is bound again in a pool of one forked worker of its own, which starts with
    ``_worker_start(pid)``: so the first pool's two workers start, then one more per item bound again."""

    def die_once(path, claim, earned, sha256, claims):
        marker = path + ".seen"
        if not os.path.exists(marker):
            open(marker, "w").close()
            if path.endswith("x"):
                os._exit(3)
            time.sleep(0.3)  # y: likely still running when x's worker dies
        return True, str(os.getpid()), os.path.basename(path)

    def started(parent):
        with open(tmp_path / "started", "a") as log:  # in the order the workers start
            log.write(f"{os.getpid()} {parent}\n")

    import multiprocessing

    contexts, get_context = [], multiprocessing.get_context
    monkeypatch.setattr(multiprocessing, "get_context", lambda method=None: contexts.append(method) or get_context(method))
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.setattr(verification, "bind", die_once)
    monkeypatch.setattr(verification, "_worker_start", started)
    items = [[str(tmp_path / "x"), ROW, "verified", 1, ""], [str(tmp_path / "y"), ROW, "verified", 0, ""]]
    status, lines, _ = serve(monkeypatch, {"nonce": "n", "scope": BUILTIN, "items": items}, ["--answers", "{fd}", "--jobs", "2"])
    said = {point: (bound, int(pid)) for _, bound, pid, point in _said(lines)}
    assert status == 0 and sorted(said) == ["x", "y"] and said["x"][0] is True and said["y"][0] is True
    workers = [tuple(map(int, line.split())) for line in (tmp_path / "started").read_text().splitlines()]
    first = {pid for pid, _ in workers[:2]}
    again = [point for point, (_, pid) in said.items() if pid not in first]
    assert "x" in again and len(workers) == 2 + len(again) and {parent for _, parent in workers} == {os.getpid()}
    assert {pid for _, pid in said.values()} <= {pid for pid, _ in workers} and contexts == ["fork"]


def test_seconds_of_a_record_that_records_none_are_zero(tmp_path):
    record = record_of(ROW)
    assert "seconds" not in record
    path, _ = put(tmp_path, record)
    assert verification._seconds(path) == 0.0


# ------------------------------------------------------------------ _load_scope: an entry point's scope


class Entry:
    """An entry point of the ``attnproof.claims`` group."""

    def __init__(self, name: str, value: str, loaded):
        self.name, self.value, self.group, self.loaded = name, value, "attnproof.claims", loaded

    def load(self):
        return self.loaded


def test_an_entry_points_scope_names_its_module_file_and_digest(monkeypatch, tmp_path):
    from importlib import metadata

    import tests.theorems.cli_toy as toy

    entries = [Entry("other", "json:loads", None), Entry("toy", " tests.theorems.cli_toy : CLAIM", toy.CLAIM)]
    monkeypatch.setattr(metadata, "entry_points", lambda group=None: [e for e in entries if group == e.group])
    monkeypatch.chdir(tmp_path)
    claims, broken, said = verification._load_scope("entry:toy")
    with open(toy.__file__, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    assert (list(claims), broken) == ([toy.CLAIM.id], "")
    assert said == {"origin": "entry point toy", "file": toy.__file__, "sha256": digest}
    claims, broken, said = verification._load_scope("entry:missing")  # no such entry point: no file, no claims
    assert (claims, broken, said) == ({}, "", {"origin": "entry point missing", "file": "", "sha256": ""})


def test_a_module_scope_in_a_project_with_a_conjectures_folder_names_the_modules_own_file(monkeypatch, tmp_path, isolated):
    """``[tool.attnproof]``'s module is found on the project's path, not in ``conjectures/`` beside it."""
    (tmp_path / "conjectures").mkdir()
    (tmp_path / "conjectures" / "unrelated.py").write_text("raise SystemExit('never imported')\n")
    (tmp_path / "pyproject.toml").write_text('[tool.attnproof]\nconjectures = ["mine_too"]\n')
    module = tmp_path / "mine_too.py"
    module.write_text("from tests.theorems.cli_toy import TwoDiagonals\n"
                      "class Mine(TwoDiagonals):\n    id = 'mine.too'\nCLAIM = Mine()\n")
    monkeypatch.chdir(tmp_path)
    claims, broken, said = verification._load_scope("module:mine_too")
    assert (list(claims), broken) == (["mine.too"], "")
    assert said == {"origin": "[tool.attnproof] mine_too", "file": str(module),
                    "sha256": hashlib.sha256(module.read_bytes()).hexdigest()}
    sys.modules.pop("mine_too", None)


def test_a_plugin_file_is_named_whole_even_with_a_colon_and_a_long_failure_is_cut(monkeypatch, tmp_path, isolated):
    """The scope ``file:NAME`` splits at its first colon (a file name may hold one: it is refused by name, and
    the refusal names the file); why a plugin cannot be loaded is cut at 160 characters."""
    folder = tmp_path / "conjectures"
    folder.mkdir()
    (folder / "a:b.py").write_text("CLAIM = None\n")
    (folder / "loud.py").write_text("raise SystemExit('x' * 300)\n")
    monkeypatch.chdir(tmp_path)
    claims, broken, said = verification._load_scope("file:a:b.py")
    assert claims == {} and broken.startswith("RegistrationError: conjectures/a:b.py: the file name is not a Python identifier")
    assert said == {"origin": "conjectures/a:b.py", "file": str(folder / "a:b.py"),
                    "sha256": hashlib.sha256(b"CLAIM = None\n").hexdigest()}
    claims, broken, said = verification._load_scope("file:loud.py")  # sys.exit() at import: a broken plugin, no exit
    assert claims == {} and len(broken) == len("RegistrationError: ") + 160
    assert broken.startswith("RegistrationError: conjectures/loud.py: importing 'loud' failed: SystemExit: xxx")
    assert said["origin"] == "conjectures/loud.py" and said["file"] == str(folder / "loud.py")
    sys.modules.pop("loud", None)


# ------------------------------------------------------------------ bind: what test_binding.py left


def test_a_parameter_error_is_cut_at_200_characters(tmp_path):
    from theorems import core

    claim, parameters = core.get(ROW), {"no_such_" + "x" * 300: 1}
    with pytest.raises(core.ParameterError) as refused:
        claim.point(parameters)
    assert len(str(refused.value)) > 200  # so that the cut shows
    path, sha = put(tmp_path, record_of(ROW) | {"parameters": parameters}, folder="default")
    assert verification.bind(path, ROW, "verified", sha, {ROW: claim}) == (
        False, f"parameters are not a point of {ROW}: {str(refused.value)[:200]}", "")
