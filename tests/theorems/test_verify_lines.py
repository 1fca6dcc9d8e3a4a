"""What ``attnproof verify`` prints, and the in-process glue around its two processes, in this process.

``verification.lines`` turns a :class:`~theorems.verification.Verification` into the lines ``verify``
prints; these tests build the Verification by hand (no checker, no binding process runs), so each line is
asserted whole, for each branch: an outcome that stands, one that does not (for its checker's reason, for
its binding, or NOT JUDGED because only ``--max-work`` refused it), each way its obligations are counted,
the certificates of no outcome, foreign modules, and the last line.  The same module's helpers that run in
this process are tested the same way: ``run_checker`` reading the checker's lines (its process replaced by
the lines it would print), ``_ask`` reading a binding process's answer pipe (the process replaced by a
stand-in, the pipe real), ``run_binding`` sharing the outcomes between the built-in and the plugins'
binding processes, and ``_unchanged``.  End-to-end, the same words are asserted by test_cli.py and
test_forgeries.py, which run the real processes.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys

import pytest

from theorems import verification
from theorems.judgments import words
from theorems.verification import OutcomeCheck, Verification, lines

HEADER = ("stage 1: the trusted checker (its own process: standard library and python-flint only); "
          "stage 2: the binding of each outcome to the installed claim")
JUDGMENT = {"judgment": "feasible", "head": "rank-one", "m": 3, "lengths": [3], "target": "min-ip", "error": "1/2"}


def cert(path, status="accepted", summary="a summary", reason="", sha256=""):
    return {"type": "certificate", "path": str(path), "status": status, "summary": summary, "reason": reason, "sha256": sha256}


def obligation(side="verify", by="", text="an obligation", judgment=None):
    item = {"side": side, "words": text, "by": by}
    if judgment is not None:
        item["judgment"] = judgment
    return item


def outcome(path, **fields):
    base = dict(claim="k.c", status="verified", checked=True, bound=True, point="default",
                binding="statement, point and obligations are the installed claim's",
                obligations=[obligation(by="00-a.cert.json")])
    return OutcomeCheck(path=str(path), **(base | fields))


def folder(tmp_path, name="k.c/default"):
    where = tmp_path / name
    where.mkdir(parents=True, exist_ok=True)
    return where


def test_an_outcome_that_stands_is_one_line_and_the_run_ends_with_the_counts(tmp_path):
    here = folder(tmp_path)
    result = Verification(certificates=[cert(here / "00-a.cert.json"), cert(here / "01-b.cert.json")],
                          outcomes=[outcome(here / "outcome.json")])
    assert lines(result, [str(tmp_path)]) == [
        HEADER,
        "k.c [default]: verified stands -- 2 of 2 certificate(s) accepted; 1 of 1 verify obligation(s) discharged",
        "2 of 2 certificate(s) accepted; 1 of 1 outcome(s) stand",
    ]


def test_details_list_every_certificate_obligation_and_the_binding(tmp_path):
    here = folder(tmp_path)
    result = Verification(
        certificates=[cert(here / "00-a.cert.json", summary="sum a")],
        outcomes=[outcome(here / "outcome.json", rests_on="plugin code: conjectures/x.py, sha256 0123",
                          obligations=[obligation(by="00-a.cert.json", judgment=JUDGMENT),
                                       obligation(side="refute", text="a refutation")])])
    assert lines(result, [str(tmp_path)], details=True) == [
        HEADER,
        "k.c [default]: verified stands -- 1 of 1 certificate(s) accepted; 1 of 1 verify obligation(s) discharged",
        "  rests on plugin code: conjectures/x.py, sha256 0123",
        "  accepted  00-a.cert.json: sum a",
        # the judgment in words rendered from its fields, never the claim's own text beside it
        f"  verify  {words(JUDGMENT)}  -- discharged by 00-a.cert.json",
        "  refute  a refutation  -- not discharged",
        "  binding (stage 2): statement, point and obligations are the installed claim's",
        "1 of 1 certificate(s) accepted; 1 of 1 outcome(s) stand",
    ]
    assert words(JUDGMENT) != "an obligation"


@pytest.mark.parametrize("status, obligations, rests", [
    ("verified", [], "its obligations were not examined"),
    ("refuted", [obligation(by="00-a.cert.json"), obligation("refute", by="03-r.cert.json"),
                 obligation("refute", by="04-s.cert.json")], "refuted by 03-r.cert.json"),
    ("verified", [obligation(by="00-a.cert.json"), obligation("refute", by="03-r.cert.json")],
     "a refute obligation is discharged by 03-r.cert.json"),
    ("refuted", [obligation(by="00-a.cert.json"), obligation("refute"), obligation("refute")], "0 of 2 refute obligation(s) discharged"),
    ("unknown", [obligation(by="00-a.cert.json"), obligation(), obligation(by="01-b.cert.json"), obligation("refute")],
     "2 of 3 verify obligation(s) discharged"),
])
def test_the_obligations_are_counted_by_side_and_status(tmp_path, status, obligations, rests):
    here = folder(tmp_path)
    result = Verification(certificates=[cert(here / "00-a.cert.json")],
                          outcomes=[outcome(here / "outcome.json", status=status, obligations=obligations)])
    assert lines(result, [str(tmp_path)])[1] == f"k.c [default]: {status} stands -- 1 of 1 certificate(s) accepted; {rests}"


def test_an_outcome_the_checker_failed_gives_its_reason_first_then_what_its_files_hold(tmp_path):
    here = folder(tmp_path)
    result = Verification(
        certificates=[cert(here / "00-a.cert.json"), cert(here / "01-b.cert.json", status="REJECTED", reason="bad row")],
        outcomes=[outcome(here / "outcome.json", checked=False, bound=False, reason="a verify obligation is missing",
                          binding="not bound", obligations=[obligation(by="00-a.cert.json"), obligation(text="the second")])])
    assert lines(result, [str(tmp_path)]) == [
        HEADER,
        "k.c [default]: verified DOES NOT STAND -- a verify obligation is missing",
        "  what its files hold: 1 of 2 certificate(s) accepted by the checker as data (each proves its own judgment only); "
        "1 of 2 verify obligation(s) discharged",
        "  REJECTED  k.c/default/01-b.cert.json: bad row",
        "  verify  the second  -- MISSING",
        "  binding (stage 2): not bound",
        "NOT VERIFIED: 0 of 1 outcome(s) stand (1 does not); 1 of 2 certificate(s) accepted by the checker as data, 1 not",
    ]


def test_an_outcome_its_binding_failed_says_so_on_its_own_line_only(tmp_path):
    here = folder(tmp_path)
    result = Verification(certificates=[cert(here / "00-a.cert.json")],
                          outcomes=[outcome(here / "outcome.json", bound=False, binding="statement hash differs")])
    assert lines(result, [str(tmp_path)]) == [
        HEADER,
        "k.c [default]: verified DOES NOT STAND -- binding (stage 2): statement hash differs",
        "  what its files hold: 1 of 1 certificate(s) accepted by the checker as data (each proves its own judgment only); "
        "1 of 1 verify obligation(s) discharged",
        "NOT VERIFIED: 0 of 1 outcome(s) stand (1 does not); 1 of 1 certificate(s) accepted by the checker as data",
    ]


def test_an_outcome_refused_for_its_work_alone_is_not_judged(tmp_path):
    here = folder(tmp_path)
    refused = cert(here / "01-b.cert.json", status="REFUSED", reason="estimated work 9 > 8: raise --max-work")

    def first(certificates, checked=False):
        result = Verification(certificates=certificates,
                              outcomes=[outcome(here / "outcome.json", checked=checked, bound=False, reason="not discharged")])
        return lines(result, [str(tmp_path)])[1]

    assert first([cert(here / "00-a.cert.json"), refused]) == \
        "k.c [default]: verified NOT JUDGED (refused: raise --max-work) -- not discharged"
    # anything else not accepted, or a checker that accepted the outcome, is judged
    for other in (cert(here / "02-c.cert.json", status="REJECTED", reason="raise --max-work"),
                  cert(here / "02-c.cert.json", status="REFUSED", reason="too deep")):
        assert first([refused, other]) == "k.c [default]: verified DOES NOT STAND -- not discharged"
    assert first([refused], checked=True) == "k.c [default]: verified DOES NOT STAND -- binding (stage 2): statement, point and obligations are the installed claim's"
    assert first([cert(here / "00-a.cert.json")]) == "k.c [default]: verified DOES NOT STAND -- not discharged"


def test_a_missing_verify_obligation_is_marked_only_where_the_status_needs_it(tmp_path):
    here = folder(tmp_path)
    for status, shown in (("verified", ["  verify  open one  -- MISSING"]), ("unknown", []), ("refuted", [])):
        result = Verification(certificates=[cert(here / "00-a.cert.json")], outcomes=[outcome(
            here / "outcome.json", status=status, checked=False, reason="r", bound=True,
            obligations=[obligation(text="open one"), obligation("refute", text="no")])])
        assert [line for line in lines(result, [str(tmp_path)]) if line.startswith("  verify") or line.startswith("  refute")] == shown


def test_an_outcome_without_a_status_or_a_point_is_named_from_what_its_file_records(tmp_path):
    here = folder(tmp_path)
    result = Verification(outcomes=[
        outcome(here / "outcome.json", status="", point="", parameters={"m": 3, "eps": "1/10"}, checked=False, reason="r"),
        outcome(here / "outcome.json", point="", claim="", parameters={}, checked=False, reason="r")])
    said = lines(result, [str(tmp_path)])
    assert said[1] == 'k.c [eps="1/10",m=3]: ? DOES NOT STAND -- r'
    assert said[3] == "k.c/default/outcome.json [no parameters]: verified DOES NOT STAND -- r"


def test_certificates_of_no_outcome_file_are_listed_by_folder_after_the_outcomes(tmp_path):
    here, other, third = folder(tmp_path), folder(tmp_path, "k.d/m=2"), folder(tmp_path, "a.b/default")
    result = Verification(certificates=[cert(here / "00-a.cert.json"),
                                        cert(other / "00-x.cert.json", summary="x holds"),
                                        cert(third / "00-y.cert.json", status="REJECTED", reason="y fails")],
                          outcomes=[outcome(here / "outcome.json")])
    assert lines(result, [str(tmp_path)])[2:] == [
        "certificates of no outcome file:",
        "  REJECTED  a.b/default/00-y.cert.json: y fails",
        "  accepted  k.d/m=2/00-x.cert.json: x holds",
        "NOT VERIFIED: 1 of 1 outcome(s) stand (0 do not); 2 of 3 certificate(s) accepted by the checker as data, 1 not",
    ]
    alone = Verification(certificates=[cert(other / "00-x.cert.json", summary="x holds")])
    assert lines(alone, [str(tmp_path)]) == [HEADER, "certificates of no outcome file:",
                                             "  accepted  k.d/m=2/00-x.cert.json: x holds",
                                             "1 of 1 certificate(s) accepted; 0 of 0 outcome(s) stand"]


def test_foreign_code_in_the_checker_process_is_said_and_nothing_is_verified(tmp_path):
    here = folder(tmp_path)
    result = Verification(certificates=[cert(here / "00-a.cert.json")], outcomes=[outcome(here / "outcome.json")],
                          foreign_modules=["numpy"], foreign_files=["/x/json.py"])
    assert lines(result, [str(tmp_path)])[2:] == [
        "NOT VERIFIED: the checker process loaded code from outside the standard library, python-flint and "
        "solvers/trusted: numpy, /x/json.py",
        "NOT VERIFIED: 1 of 1 outcome(s) stand (0 do not); 1 of 1 certificate(s) accepted by the checker as data",
    ]
    only_files = Verification(certificates=[cert(here / "00-a.cert.json")], outcomes=[outcome(here / "outcome.json")],
                              foreign_files=["/x/json.py"])
    assert "solvers/trusted: /x/json.py" in lines(only_files, [str(tmp_path)])[2]


def test_two_outcomes_that_do_not_stand_are_counted_in_the_plural(tmp_path):
    a, b = folder(tmp_path), folder(tmp_path, "k.c/m=2")
    result = Verification(outcomes=[outcome(a / "outcome.json", checked=False, reason="r"),
                                    outcome(b / "outcome.json", checked=False, reason="r", point="m=2")])
    assert lines(result, [str(tmp_path)])[-1] == "NOT VERIFIED: 0 of 2 outcome(s) stand (2 do not); 0 of 0 certificate(s) accepted by the checker as data"


def test_control_characters_never_reach_the_terminal(tmp_path):
    here = folder(tmp_path)
    result = Verification(outcomes=[outcome(here / "outcome.json", claim="k.\x1b[2Jc", checked=False, reason="bad\rline")])
    said = lines(result, [str(tmp_path)])
    assert said[1] == "k.\\x1b[2Jc [default]: verified DOES NOT STAND -- bad\\x0dline"
    assert all(line.isprintable() for line in said)


def test_a_path_is_shown_relative_to_the_folder_given_that_holds_it(tmp_path):
    here = folder(tmp_path)
    path = str(here / "00-a.cert.json")
    assert verification._shown(path, [str(tmp_path / "elsewhere"), str(tmp_path)]) == "k.c/default/00-a.cert.json"
    assert verification._shown(path, [str(here)]) == "00-a.cert.json"
    assert verification._shown(path, [str(tmp_path / "elsewhere")]) == path  # not a folder: as given
    (tmp_path / "file").write_text("")
    assert verification._shown(path, [str(tmp_path / "file")]) == path
    assert verification._shown(path, [str(folder(tmp_path, "other"))]) == path  # outside every root: as given


def test_a_certificate_rewritten_after_the_checker_accepted_it_fails_its_outcome_only(tmp_path):
    here, other = folder(tmp_path), folder(tmp_path, "k.d/default")
    files = {}
    for where, name in ((here, "00-a.cert.json"), (here, "01-b.cert.json"), (other, "00-c.cert.json"), (here, "02-gone.cert.json")):
        (where / name).write_bytes(name.encode())
        files[name] = cert(where / name, sha256=hashlib.sha256(name.encode()).hexdigest())
    files["03-rejected.cert.json"] = cert(here / "03-rejected.cert.json", status="REJECTED", reason="r", sha256="0" * 64)
    files["04-no-digest.cert.json"] = cert(here / "04-no-digest.cert.json")
    result = Verification(certificates=list(files.values()),
                          outcomes=[outcome(here / "outcome.json"), outcome(other / "outcome.json")])
    (here / "01-b.cert.json").write_bytes(b"rewritten")
    os.remove(here / "02-gone.cert.json")
    verification._unchanged(result)
    status = {os.path.basename(c["path"]): (c["status"], c["reason"]) for c in result.certificates}
    assert status == {"00-a.cert.json": ("accepted", ""),
                      "01-b.cert.json": ("REJECTED", "the file changed after the checker accepted it"),
                      "00-c.cert.json": ("accepted", ""),
                      "02-gone.cert.json": ("REJECTED", "the file changed after the checker accepted it"),
                      "03-rejected.cert.json": ("REJECTED", "r"),
                      "04-no-digest.cert.json": ("accepted", "")}
    mine, theirs = result.outcomes
    assert (mine.checked, mine.reason) == (False, "02-gone.cert.json changed after the checker accepted it")
    assert (theirs.checked, theirs.reason) == (True, "")


# ------------------------------------------------------------ run_checker reads the checker's lines


def test_run_checker_reads_each_kind_of_line_and_skips_what_is_not_json(monkeypatch, tmp_path):
    said = {}

    def fake_run(command, capture_output, text):
        said["command"] = command
        assert capture_output and text
        out = "\n".join([
            "not json",
            json.dumps(cert(tmp_path / "00-a.cert.json")),
            json.dumps({"type": "outcome", "path": "p/outcome.json", "claim": 7, "parameters": None, "status": 1, "ok": 1,
                        "reason": "why", "obligations": [obligation()], "reach": "m >= 4", "earned": "verified",
                        "sha256": "ab"}),
            json.dumps({"type": "outcome", "path": "q/outcome.json", "ok": 0}),
            json.dumps({"type": "other"}),
            json.dumps({"type": "done", "foreign_modules": ["numpy"], "foreign_files": ["/j.py"]}),
        ])
        return subprocess.CompletedProcess(command, 0, out, "")

    monkeypatch.setattr(verification.subprocess, "run", fake_run)
    result = verification.run_checker([str(tmp_path), "x"], max_work=12345, jobs=3)
    assert said["command"] == [sys.executable, "-I", "-S", "-c", verification.BOOT,
                               os.pathsep.join(verification._search_path()), "--max-work", "12345", "--jobs", "3",
                               str(tmp_path), "x"]
    assert result.certificates == [cert(tmp_path / "00-a.cert.json")]
    first, second = result.outcomes
    assert first == OutcomeCheck(path="p/outcome.json", claim="7", parameters={}, status="1", checked=True, reason="why",
                                 obligations=[obligation()], reach="m >= 4", earned="verified", sha256="ab")
    assert second == OutcomeCheck(path="q/outcome.json", checked=False)
    assert (result.foreign_modules, result.foreign_files, result.error) == (["numpy"], ["/j.py"], "")


def test_a_checker_that_stops_before_its_last_line_is_an_error_naming_its_exit_and_last_words(monkeypatch):
    for stderr, last in (("Traceback\n  boom\nMemoryError: " + "x" * 300, "MemoryError: " + "x" * 187), ("", "no output")):
        monkeypatch.setattr(verification.subprocess, "run",
                            lambda command, **_: subprocess.CompletedProcess(command, -9, json.dumps(cert("a")), stderr))
        result = verification.run_checker(["a"])
        assert result.error == f"the checker process stopped early (exit -9): {last}"
        assert len(result.certificates) == 1 and not result.ok
    # the search path: the folder above solvers, then flint's, without repeats
    import flint
    import solvers

    path = verification._search_path()
    assert path[0] == os.path.dirname(os.path.dirname(os.path.abspath(solvers.__file__)))
    assert os.path.dirname(os.path.dirname(os.path.abspath(flint.__file__))) in path and len(path) == len(set(path))


def test_a_verification_is_ok_only_when_everything_in_it_holds(tmp_path):
    good = dict(certificates=[cert("a")], outcomes=[outcome("o")])
    assert Verification(**good).ok
    assert Verification(certificates=[cert("a")]).ok and Verification(outcomes=[outcome("o")]).ok
    assert not Verification().ok  # nothing checked is nothing verified
    assert not Verification(**good, error="stopped").ok
    assert not Verification(**good, foreign_modules=["numpy"]).ok
    assert not Verification(**good, foreign_files=["/j.py"]).ok
    assert not Verification(certificates=[cert("a"), cert("b", status="REFUSED")], outcomes=[outcome("o")]).ok
    assert not Verification(certificates=[cert("a")], outcomes=[outcome("o"), outcome("p", bound=False)]).ok
    assert not outcome("o", checked=False).ok and not outcome("o", bound=False).ok and outcome("o").ok


# ------------------------------------------------------------ _ask and run_binding, without a binding process


class Stand:
    """Stands in for a binding process: takes the request on stdin, is killed if still running."""

    def __init__(self, running=True, stdin_fails=False, returncode=0):
        self.running, self.killed, self.waited, self.returncode = running, False, False, returncode
        self.stdin = io.StringIO()
        if stdin_fails:
            def broken(_):
                raise BrokenPipeError
            self.stdin.write = broken
        self.request = None
        real_close = self.stdin.close

        def close():
            self.request = self.stdin.getvalue() if not stdin_fails else None
            real_close()
        self.stdin.close = close

    def poll(self):
        return None if self.running else self.returncode

    def kill(self):
        self.killed, self.running = True, False

    def wait(self):
        self.waited = True


def binding_with(answers: list[str], nonce="n0", scope="builtin", **process) -> verification.Binding:
    read, write = os.pipe()
    os.write(write, "".join(line + "\n" for line in answers).encode("utf-8", "surrogateescape"))
    os.close(write)
    return verification.Binding(Stand(**process), read, nonce, scope)


def test_ask_sends_the_outcomes_and_reads_only_the_lines_that_carry_its_nonce(tmp_path):
    here = folder(tmp_path)
    (here / "outcome.json").write_text(json.dumps({"seconds": 2.5}))
    checks = [outcome(here / "outcome.json", earned="verified", sha256="ab"), outcome(tmp_path / "none.json", claim="k.d")]
    binding = binding_with([
        'n0 ["' + str(here / "outcome.json") + '", true, "fine", "default"]',
        'n1 ["' + str(tmp_path / "none.json") + '", true, "another nonce", "x"]',
        'n0 ["' + str(tmp_path / "none.json") + '", "yes", "not a boolean", 3]',
        "n0 not json", "n0 [1, 2]", "printed by a plugin", "n0 \udcff bytes that are not UTF-8",
        'n0 {"origin": "conjectures/x.py", "file": "/p/x.py", "sha256": "cd", "other": 1}',
    ], scope="file:x.py")
    answers, plugin = verification._ask(binding, checks)
    assert answers == {str(here / "outcome.json"): (True, "fine", "default"),
                       str(tmp_path / "none.json"): (None, "not a boolean", "3")}
    assert plugin == {"origin": "conjectures/x.py", "file": "/p/x.py", "sha256": "cd"}
    assert json.loads(binding.process.request) == {"nonce": "n0", "scope": "file:x.py", "items": [
        [str(here / "outcome.json"), "k.c", "verified", 2.5, "ab"], [str(tmp_path / "none.json"), "k.d", "", 0.0, ""]]}
    assert binding.process.killed and binding.process.waited
    with pytest.raises(OSError):
        os.fstat(binding.answers)  # closed


def test_ask_of_a_process_that_died_before_reading_gets_no_answers_and_is_not_killed_twice():
    binding = binding_with(['n0 ["a", false, "why", ""]'], stdin_fails=True, running=False)
    assert verification._ask(binding, [outcome("a")]) == ({"a": (False, "why", "")}, {})
    assert not binding.process.killed and binding.process.waited
    assert verification._seconds("/nonexistent/outcome.json") == 0.0
    # a plugin that names no origin, file or digest: each is said empty
    assert verification._ask(binding_with(['n0 {"origin": "x"}']), []) == ({}, {"origin": "x", "file": "", "sha256": ""})


def test_run_binding_asks_the_builtin_process_then_one_process_per_origin(monkeypatch):
    checks = [outcome("a", claim="k.a"), outcome("b", claim="p.b"), outcome("c", claim="p.c"), outcome("d", claim="p.d"),
              outcome("e", claim="p.e"), outcome("f", claim="", bound=False, point=""), outcome("g", claim="k.g"),
              outcome("h", claim="p.h"), outcome("i", claim="p.i")]
    asked = []

    def ask(binding, todo):
        asked.append((binding.scope, [c.path for c in todo]))
        if binding.scope == "builtin":
            return {"a": (True, "builtin binds a", "default"), **{k: (None, "no installed claim", "") for k in "bcdehi"}}, {}
        if binding.scope == "file:one.py":
            return ({"b": (True, "one binds b", "m=2"), "c": (True, "one binds c", ""), "d": (None, "not mine", ""),
                     "e": (False, "the plugin file:one.py cannot be loaded: SyntaxError", "")},
                    {"origin": "conjectures/one.py", "sha256": "0123456789abcdef0123"})
        return {"c": (False, "two binds c", ""), "d": (None, "not mine either", ""), "i": (True, "two binds i", "")}, {}

    started = []
    monkeypatch.setattr(verification, "_ask", ask)
    monkeypatch.setattr(verification, "start_binding", lambda jobs=1, scope="builtin": started.append((jobs, scope)) or verification.Binding(Stand(returncode=5), -1, "n", scope))
    monkeypatch.setattr("theorems.registry.plugin_origins", lambda: ["file:one.py", "module:two"])
    verification.run_binding(checks, jobs=3)
    assert started == [(3, "builtin"), (3, "file:one.py"), (3, "module:two")]
    assert asked == [("builtin", list("abcdeghi")), ("file:one.py", list("bcdehi")), ("module:two", list("bcdehi"))]
    said = {c.path: (c.bound, c.binding, c.point, c.rests_on) for c in checks}
    assert said == {
        "a": (True, "builtin binds a", "default", ""),
        "b": (True, "one binds b", "m=2", "plugin code: conjectures/one.py, sha256 0123456789abcdef"),
        "c": (False, "two plugins answer for p.c: conjectures/one.py, ?", "", ""),  # a plugin that names no origin: ?
        "d": (False, "not mine either", "", ""),  # no plugin speaks for it: the last one's words
        "e": (False, "the plugin file:one.py cannot be loaded: SyntaxError", "", "plugin code: conjectures/one.py, sha256 0123456789abcdef"),
        "f": (False, "no claim named", "", ""),
        "g": (False, "the binding process gave no answer (exit 5)", "", ""),
        "h": (False, "no installed claim", "", ""),  # no plugin answers at all: the built-in process's words stay
        "i": (True, "two binds i", "", "plugin code: ?, sha256 ?"),
    }


def test_run_binding_that_cannot_find_the_origins_says_why(monkeypatch):
    def broken():
        raise ValueError("bad [tool.attnproof]" + "x" * 200)

    monkeypatch.setattr(verification, "_ask", lambda binding, todo: ({"a": (None, "no installed claim 'p.a'", "")}, {}))
    monkeypatch.setattr(verification, "start_binding", lambda jobs=1, scope="builtin": verification.Binding(Stand(), -1, "n", scope))
    monkeypatch.setattr("theorems.registry.plugin_origins", broken)
    checks = [outcome("a", claim="p.a")]
    verification.run_binding(checks)
    assert not checks[0].bound
    assert checks[0].binding == ("no installed claim 'p.a'; the plugins cannot be found: ValueError: bad [tool.attnproof]"
                                 + "x" * 140)
    # every outcome bound by the built-in process: no plugin is looked for
    monkeypatch.setattr("theorems.registry.plugin_origins", lambda: pytest.fail("plugins looked for"))
    monkeypatch.setattr(verification, "_ask", lambda binding, todo: ({"a": (True, "bound", "default")}, {}))
    checks = [outcome("a", claim="k.a", bound=False)]
    verification.run_binding(checks)
    assert (checks[0].bound, checks[0].binding) == (True, "bound")


def test_verify_runs_the_checker_then_the_binding_then_looks_again_and_stops_a_process_left_running(monkeypatch):
    order, process = [], Stand()
    read, write = os.pipe()
    os.close(write)
    binding = verification.Binding(process, read, "n", "builtin")
    monkeypatch.setattr(verification, "start_binding", lambda jobs: order.append(("start", jobs)) or binding)
    checked = Verification(outcomes=[outcome("o")])
    monkeypatch.setattr(verification, "run_checker", lambda paths, max_work, jobs: order.append(("check", paths, max_work, jobs)) or checked)
    monkeypatch.setattr(verification, "run_binding", lambda outcomes, jobs, given: order.append(("bind", outcomes is checked.outcomes, jobs, given is binding)))
    monkeypatch.setattr(verification, "_unchanged", lambda result: order.append(("unchanged", result is checked)))
    assert isinstance(verification.verify(["p"], max_work=7, jobs=2), Verification)
    assert order == [("start", 2), ("check", ["p"], 7, 2), ("bind", True, 2, True), ("unchanged", True)]
    assert process.killed  # run_binding stood in for _ask, which stops it: verify does


def test_run_checker_keeps_an_outcomes_parameters_and_a_done_line_without_foreign_code_is_none(monkeypatch):
    out = "\n".join([json.dumps({"type": "outcome", "path": "p/outcome.json", "ok": True, "parameters": {"m": 3, "eps": "1/10"}}),
                     json.dumps({"type": "done"})])
    monkeypatch.setattr(verification.subprocess, "run", lambda command, **_: subprocess.CompletedProcess(command, 0, out, ""))
    result = verification.run_checker(["p"])
    assert result.outcomes[0].parameters == {"m": 3, "eps": "1/10"}
    assert (result.foreign_modules, result.foreign_files, result.error) == ([], [], "")
