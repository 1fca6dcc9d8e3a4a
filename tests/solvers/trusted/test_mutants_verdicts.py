"""Verdicts and the checker's process entry, pinned down where mutation testing found them loose.

``verdicts.verdict`` decides whether an outcome's status follows from its
obligations and its certificates; ``solvers.trusted.runner`` walks the
files, checks each one and prints one JSON line per file.  Both are called
in-process here (test_process.py runs the real subprocess, more slowly).
"""

import hashlib
import json
import os
import resource
import sys

import pytest

import solvers.trusted.runner as entry
from solvers.trusted import core, verdicts
from solvers.trusted import limits as caps

# ------------------------------------------------------------------ verdicts

CLAIM, STATEMENT, POINT = "family.claim", "sha256:" + "5" * 64, {"m": 3}


def need(bound, words=None):
    """An obligation: rank of matrix X is at least ``bound``."""
    return {"judgment": {"judgment": "rank-at-least", "matrix": "sha256:x", "bound": bound},
            "words": words or f"rank X >= {bound}"}


def proves(bound):
    return {"judgment": "rank-at-least", "matrix": "sha256:x", "bound": bound}


def envelope(claim=CLAIM, statement=STATEMENT, point=POINT):
    return {"claim": claim, "statement": statement, "parameters": point}


def record(status="verified", verify=(), refute=(), certificates=(), reach="finite", **changes):
    out = {"claim": CLAIM, "status": status, "parameters": POINT, "statement": STATEMENT,
           "obligations": {"verify": list(verify), "refute": list(refute), "reach": reach},
           "certificates": list(certificates)}
    return out | changes


@pytest.fixture
def folder(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    return out


def results_for(folder, **judgments):
    """The certificate stage's results: each named file accepted with its judgment and an honest envelope."""
    return {os.path.realpath(folder / name): ("accepted", envelope(), j) for name, j in judgments.items()}


def run(folder, rec, results):
    return verdicts.verdict(str(folder / "outcome.json"), rec, results)


def test_a_verified_outcome_whose_obligations_are_all_discharged(folder):
    rec = record(verify=[need(3), need(2)], refute=[need(9)], certificates=["a.cert.json", "b.cert.json"])
    out = run(folder, rec, results_for(folder, **{"a.cert.json": proves(2), "b.cert.json": proves(4)}))
    assert out == {
        "type": "outcome", "path": str(folder / "outcome.json"), "ok": True, "reason": "",
        "claim": CLAIM, "status": "verified", "parameters": POINT, "statement": STATEMENT, "reach": "finite",
        "earned": "verified",
        "obligations": [
            {"side": "verify", "judgment": need(3)["judgment"], "words": "rank X >= 3", "by": "b.cert.json"},
            {"side": "verify", "judgment": need(2)["judgment"], "words": "rank X >= 2", "by": "a.cert.json"},
            {"side": "refute", "judgment": need(9)["judgment"], "words": "rank X >= 9", "by": None},
        ],
    }


def test_the_first_certificate_that_discharges_is_named(folder):
    rec = record(verify=[need(2)], certificates=["b.cert.json", "a.cert.json"])
    out = run(folder, rec, results_for(folder, **{"a.cert.json": proves(5), "b.cert.json": proves(3)}))
    assert out["ok"] and out["obligations"][0]["by"] == "b.cert.json"


def test_a_verified_outcome_with_an_obligation_missing(folder):
    rec = record(verify=[need(2), need(7, "seven"), need(8, "eight")], certificates=["a.cert.json"])
    out = run(folder, rec, results_for(folder, **{"a.cert.json": proves(5)}))
    assert not out["ok"]
    assert out["reason"] == "2 obligation(s) not discharged, first: seven"
    assert [r["by"] for r in out["obligations"]] == ["a.cert.json", None, None]


def test_a_refute_obligation_does_not_make_a_verified_outcome(folder):
    rec = record(verify=[], refute=[need(2)], certificates=["a.cert.json"])
    out = run(folder, rec, results_for(folder, **{"a.cert.json": proves(5)}))
    assert not out["ok"] and out["reason"] == "a refute obligation is discharged by a.cert.json: the outcome must say refuted, not verified"
    assert out["obligations"][0]["by"] == "a.cert.json"
    out = run(folder, record(verify=[], refute=[need(9)], certificates=["a.cert.json"]),
              results_for(folder, **{"a.cert.json": proves(5)}))
    assert not out["ok"] and out["reason"] == "a verified outcome with no obligations proves nothing"


def test_a_refuted_outcome_needs_one_discharged_refute_obligation(folder):
    results = results_for(folder, **{"a.cert.json": proves(5)})
    ok = run(folder, record("refuted", refute=[need(9), need(4)], certificates=["a.cert.json"]), results)
    assert ok["ok"] and ok["reason"] == "" and [r["by"] for r in ok["obligations"]] == [None, "a.cert.json"]
    for rec in (record("refuted", verify=[need(4)], refute=[need(9)], certificates=["a.cert.json"]),
                record("refuted", verify=[need(4)], certificates=["a.cert.json"]),
                record("refuted")):
        out = run(folder, rec, results)
        assert not out["ok"] and out["reason"] == "no refutation obligation is discharged by a certificate"


def test_an_unknown_outcome_claims_nothing_and_still_lists_its_obligations(folder):
    out = run(folder, record("unknown", verify=[need(3)], reach=""), {})
    assert out["ok"] and out["reason"] == "" and out["reach"] == "" and out["earned"] == "unknown"
    assert out["obligations"] == [{"side": "verify", "judgment": need(3)["judgment"], "words": "rank X >= 3", "by": None}]


@pytest.mark.parametrize("rec", [
    [], "x", None,
    {k: v for k, v in record().items() if k != "certificates"},
    {k: v for k, v in record().items() if k != "obligations"},
    {k: v for k, v in record().items() if k != "claim"},
])
def test_what_is_not_an_outcome_record(folder, rec):
    out = run(folder, rec, {})
    assert out == {"type": "outcome", "path": str(folder / "outcome.json"), "ok": False, "obligations": [],
                   "reason": f"not an outcome record (needs {sorted(verdicts.OUTCOME_KEYS)})"}


GOOD = {"judgment": {"judgment": "x"}, "words": "w"}


@pytest.mark.parametrize("obligations, why", [
    ([], "obligations must be {verify, refute, reach}"),
    ({"verify": [], "refute": []}, "obligations must be {verify, refute, reach}"),
    ({"verify": [], "refute": [], "reach": "", "more": 1}, "obligations must be {verify, refute, reach}"),
    ({"verify": [], "refute": [], "reach": 5}, "obligations must be {verify, refute, reach}"),
    ({"verify": {}, "refute": [], "reach": ""}, "obligations.verify must be a list of {judgment, words}"),
    ({"verify": [GOOD, 1], "refute": [], "reach": ""}, "obligations.verify must be a list of {judgment, words}"),
    ({"verify": [GOOD | {"by": "x"}], "refute": [], "reach": ""}, "obligations.verify must be a list of {judgment, words}"),
    ({"verify": [{"judgment": {}}], "refute": [], "reach": ""}, "obligations.verify must be a list of {judgment, words}"),
    ({"verify": [GOOD | {"judgment": "x"}], "refute": [], "reach": ""}, "obligations.verify must be a list of {judgment, words}"),
    ({"verify": [GOOD | {"words": 3}], "refute": [], "reach": ""}, "obligations.verify must be a list of {judgment, words}"),
    ({"verify": [GOOD], "refute": "x", "reach": ""}, "obligations.refute must be a list of {judgment, words}"),
    ({"verify": [], "refute": [GOOD | {"words": None}], "reach": ""}, "obligations.refute must be a list of {judgment, words}"),
    ({"verify": [], "refute": [GOOD, GOOD | {"judgment": []}], "reach": ""}, "obligations.refute must be a list of {judgment, words}"),
    # a judgment is named by a string (the discharge looks judgments up by that name)
    ({"verify": [GOOD | {"judgment": {"judgment": ["x"]}}], "refute": [], "reach": ""}, "obligations.verify must be a list of {judgment, words}"),
    ({"verify": [], "refute": [GOOD | {"judgment": {"bound": 1}}], "reach": ""}, "obligations.refute must be a list of {judgment, words}"),
])
def test_malformed_obligations_are_named(folder, obligations, why):
    out = run(folder, record(obligations=obligations), {})
    assert out["reason"] == why and out["ok"] is False and out["obligations"] == []
    assert (out["claim"], out["status"], out["parameters"], out["statement"]) == (CLAIM, "verified", POINT, STATEMENT)


def test_well_formed_obligations_pass_through():
    raw = {"verify": [GOOD], "refute": [GOOD, GOOD], "reach": "r"}
    assert verdicts._obligations(raw) is raw


@pytest.mark.parametrize("changes", [{"status": "proved"}, {"status": None}, {"certificates": "a.cert.json"},
                                     {"certificates": None}])
def test_status_and_certificate_list_are_checked(folder, changes):
    out = run(folder, record(verify=[need(1)]) | changes, {})
    assert not out["ok"] and out["reason"] == f"status must be one of {verdicts.STATUSES} and certificates a list"


def test_a_certificate_entry_must_be_a_path(folder):
    out = run(folder, record(verify=[need(1)], certificates=["a.cert.json", 3]), results_for(folder, **{"a.cert.json": proves(1)}))
    assert not out["ok"] and out["reason"] == "a certificate entry is not a file name"


@pytest.mark.parametrize("name", ["a\x00b.cert.json", "x" * 4097])
def test_a_certificate_entry_with_a_nul_byte_or_too_long_is_refused(folder, name):
    out = run(folder, record(verify=[need(1)], certificates=[name]), results_for(folder, **{"a.cert.json": proves(1)}))
    assert not out["ok"] and out["reason"] == "a certificate entry is not a file name"


def test_a_missing_certificate_is_named_with_its_folder(folder):
    out = run(folder, record(verify=[need(1)], certificates=["a.cert.json"]), {})
    assert not out["ok"] and out["reason"] == f"certificate a.cert.json is missing from {os.path.realpath(folder)}"


def test_a_certificate_is_looked_up_beside_the_outcome_only(folder, tmp_path):
    """A path pointing elsewhere is read as its base name in the outcome's own folder."""
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = {os.path.realpath(other / "a.cert.json"): ("accepted", envelope(), proves(5))}
    out = run(folder, record(verify=[need(1)], certificates=["../other/a.cert.json"]), elsewhere)
    assert not out["ok"] and out["reason"] == f"certificate a.cert.json is missing from {os.path.realpath(folder)}"
    here = results_for(folder, **{"a.cert.json": proves(5)})
    out = run(folder, record(verify=[need(1)], certificates=["../other/a.cert.json"]), here)
    assert out["ok"] and out["obligations"][0]["by"] == "a.cert.json"


def test_an_outcome_reached_through_a_link_finds_its_certificates(folder, tmp_path):
    link = tmp_path / "link"
    os.symlink(folder, link)
    out = verdicts.verdict(str(link / "outcome.json"), record(verify=[need(1)], certificates=["a.cert.json"]),
                           results_for(folder, **{"a.cert.json": proves(5)}))
    assert out["ok"] and out["path"] == str(link / "outcome.json")


@pytest.mark.parametrize("state", ["rejected", "refused", "ACCEPTED"])
def test_a_certificate_not_accepted_fails_the_outcome(folder, state):
    results = {os.path.realpath(folder / "a.cert.json"): (state, envelope(), proves(5))}
    out = run(folder, record(verify=[need(1)], certificates=["a.cert.json"]), results)
    assert not out["ok"] and out["reason"] == "certificate a.cert.json was not accepted"


@pytest.mark.parametrize("made_for", [envelope(claim="family.other"), envelope(statement="sha256:" + "6" * 64),
                                      envelope(point={"m": 4}), envelope(point={})])
def test_a_certificate_made_for_another_claim_statement_or_point(folder, made_for):
    results = {os.path.realpath(folder / "a.cert.json"): ("accepted", made_for, proves(5))}
    out = run(folder, record(verify=[need(1)], certificates=["a.cert.json"]), results)
    assert not out["ok"] and out["reason"] == "certificate a.cert.json was made for another claim, statement or point"


def test_every_listed_certificate_is_checked_not_only_the_first(folder):
    results = results_for(folder, **{"a.cert.json": proves(5)})
    results[os.path.realpath(folder / "b.cert.json")] = ("accepted", envelope(claim="x"), proves(5))
    out = run(folder, record(verify=[need(1)], certificates=["a.cert.json", "b.cert.json"]), results)
    assert not out["ok"] and "b.cert.json was made for another" in out["reason"]


# ------------------------------------------------------------------ the process entry


@pytest.fixture
def toy():
    """A kind ``toy`` proving ``rank-at-least`` of X; data {"bound": n, "fail": how}."""

    def check(data):
        how = data["fail"]
        if how == "memory":
            raise MemoryError
        if how == "runtime":
            raise RuntimeError("bug")
        if how == "reject":
            core.require(False, "toy says no")
        return proves(core.integer(data["bound"], "bound")), f"toy {data['bound']}"

    core.kind("toy", "bound", "fail", work=lambda data: 10)(check)
    try:
        yield
    finally:
        del core.KINDS["toy"]


def toy_cert(bound=3, fail="", **changes):
    return {"format": core.FORMAT, "version": 1, "kind": "toy", "claim": CLAIM, "statement": STATEMENT,
            "parameters": POINT, "data": {"bound": bound, "fail": fail}} | changes


def put(path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value))
    return str(path)


def test_files_walks_folders_in_order_and_sorts_by_name(tmp_path):
    for name in ("b/z.cert.json", "b/outcome.json", "a/y.cert.json", "a/c/x.cert.json", "a/notes.txt",
                 "a/outcome.json.bak", "a/x.cert.json.orig", "top.cert.json"):
        put(tmp_path / name, "{}")
    certs, outcomes = entry.files([str(tmp_path)])
    rel = lambda paths: [os.path.relpath(p, tmp_path) for p in paths]  # noqa: E731
    assert rel(certs) == ["top.cert.json", "a/y.cert.json", "a/c/x.cert.json", "b/z.cert.json"]
    assert rel(outcomes) == ["b/outcome.json"]


def test_files_takes_named_files_as_given(tmp_path):
    a = put(tmp_path / "a.json", "{}")
    o = put(tmp_path / "sub" / "outcome.json", "{}")
    certs, outcomes = entry.files([a, o, "/nonexistent/x.cert.json"])
    assert certs == [a, "/nonexistent/x.cert.json"] and outcomes == [o]
    assert entry.files([]) == ([], [])


def test_files_does_not_follow_links_to_folders(tmp_path):
    put(tmp_path / "real" / "a.cert.json", "{}")
    (tmp_path / "walk").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "walk" / "linked")
    assert entry.files([str(tmp_path / "walk")]) == ([], [])


def test_certificate_accepted_line_and_result(tmp_path, toy):
    path = put(tmp_path / "a.cert.json", toy_cert(4))
    line, result = entry.certificate(path, 100)
    assert line == {"type": "certificate", "path": path, "status": "accepted", "summary": "toy 4",
                    "judgment": proves(4), "kind": "toy", "claim": CLAIM, "sha256": digest_of(path)}
    envelope = {key: toy_cert(4)[key] for key in ("claim", "statement", "parameters")}  # what a verdict compares
    assert result == ("accepted", envelope, proves(4))


@pytest.mark.parametrize("content, max_work, status, why", [
    ('{"a": 1.5}', 100, "REFUSED", "a float (1.5) in the file: exact numbers are ints or strings 'p/q'"),
    (toy_cert(), 9, "REFUSED", "toy: asks for about 10 operations, above the limit of 9 (raise --max-work)"),
    (toy_cert(fail="reject"), 100, "REJECTED", "toy says no"),
    (toy_cert(bound=-1), 100, "REJECTED", "bound=-1 outside [0, None]"),
    (toy_cert(fail="memory"), 100, "REFUSED", "needs more than 3.0 GiB"),  # the cap main() set (below)
    (toy_cert(fail="runtime"), 100, "REJECTED", "the checker failed on this input (RuntimeError)"),
])
def test_certificate_never_raises_and_says_why(tmp_path, toy, content, max_work, status, why, monkeypatch):
    monkeypatch.setattr(caps, "memory", 3 * 2**30)
    path = put(tmp_path / "a.cert.json", content)
    line, result = entry.certificate(path, max_work)
    # the sha256 of the bytes judged: verify binds them (a file changed later is not what was checked)
    assert line == {"type": "certificate", "path": path, "status": status, "reason": why, "sha256": digest_of(path)}
    assert result == (status.lower(), None, None)


REAL_FOREIGN = entry.foreign


def digest_of(path) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def test_an_unreadable_file_has_no_digest_and_an_outcome_line_has_the_digest_of_its_bytes(tmp_path, toy, limits, capsys):
    os.symlink(tmp_path / "nowhere", tmp_path / "a.cert.json")
    line, _ = entry.certificate(str(tmp_path / "a.cert.json"), 100)
    assert "sha256" not in line and line["status"] == "REFUSED"
    put(tmp_path / "run" / "b.cert.json", toy_cert(3))
    path = put(tmp_path / "run" / "outcome.json", outcome(["b.cert.json"]))
    entry.main([str(tmp_path / "run")])
    cert, verdict, _ = lines(capsys)
    assert verdict["sha256"] == digest_of(path) and cert["sha256"] == digest_of(tmp_path / "run" / "b.cert.json")


@pytest.fixture
def limits(monkeypatch):
    """setrlimit recorded, not called; the collector not frozen; and no foreign module seen (this pytest
    process has loaded pytest, whose files lie outside the standard library: test_main_reports_foreign_modules_*
    look at them)."""
    calls = []
    monkeypatch.setattr(resource, "setrlimit", lambda which, value: calls.append((which, value)))
    monkeypatch.setattr(entry, "foreign", lambda: (set(), set()))
    monkeypatch.setattr(entry, "memory", entry.memory)
    monkeypatch.setattr(caps, "memory", caps.memory)  # main() sets it: restored after the test
    monkeypatch.setattr(entry.gc, "freeze", lambda: None)  # main() freezes its process's collector: not this one's
    return calls


def lines(capsys):
    text = capsys.readouterr().out
    raw = text.splitlines()
    parsed = [json.loads(x) for x in raw]
    # one JSON object per line; a file's line has its keys sorted, the closing "done" line comes last
    assert [p["type"] for p in parsed][-1:] == ["done"] and list(parsed[-1]) == ["type", "ok", "foreign_modules", "foreign_files"]
    assert raw[:-1] == [json.dumps(p, sort_keys=True) for p in parsed[:-1]]
    return parsed


def outcome(certificates, status="verified", bound=2, **changes):
    return record(status, verify=[need(bound)], certificates=certificates) | changes


def test_main_checks_certificates_then_outcomes_and_exits_0_when_all_hold(tmp_path, toy, limits, capsys):
    put(tmp_path / "run" / "a.cert.json", toy_cert(3))
    put(tmp_path / "run" / "outcome.json", outcome(["a.cert.json"]) | {"seconds": 1.25})
    assert entry.main([str(tmp_path / "run")]) == 0
    cert, verdict, done = lines(capsys)
    assert (cert["type"], cert["status"], cert["path"]) == ("certificate", "accepted", str(tmp_path / "run" / "a.cert.json"))
    assert (verdict["type"], verdict["ok"], verdict["obligations"][0]["by"]) == ("outcome", True, "a.cert.json")
    assert done["type"] == "done" and done["ok"] is True
    assert limits == [(resource.RLIMIT_AS, (entry.cap(1), entry.cap(1)))]


def test_workers_print_the_same_lines_in_file_order(tmp_path, toy, limits, capsys, monkeypatch):
    """--jobs 2: the certificates are shared among forked workers; the lines, their order, the verdicts
    and the exit code are those of one process (the memory cap aside: it is shared among the processes)."""
    monkeypatch.setattr(entry, "cap", lambda jobs: 5 * 2**30)
    for i, cert in enumerate([toy_cert(3), toy_cert(fail="reject"), toy_cert(5), toy_cert(fail="memory"), toy_cert(4)]):
        put(tmp_path / "run" / f"{i}.cert.json", cert)
    put(tmp_path / "run" / "outcome.json", outcome(["0.cert.json", "2.cert.json"], bound=5))
    assert entry.main([str(tmp_path / "run")]) == 1
    alone = lines(capsys)
    assert entry.main(["--jobs", "2", str(tmp_path / "run")]) == 1
    shared = lines(capsys)
    assert shared == alone  # the workers load nothing this process has not (the real process: test_process.py)
    assert [x.get("status") for x in shared[:5]] == ["accepted", "REJECTED", "accepted", "REFUSED", "accepted"]
    assert shared[5]["ok"] is True and shared[5]["obligations"][0]["by"] == "2.cert.json"


def test_a_worker_that_dies_stops_the_run_with_one_line(tmp_path, toy, monkeypatch):
    """A worker killed (out of memory, a signal) ends the run as a killed single process would: no verdict."""
    paths = [put(tmp_path / f"{i}.cert.json", toy_cert(3)) for i in range(3)]
    honest = entry.certificate
    monkeypatch.setattr(entry, "certificate", lambda path, work: os._exit(9) if path == paths[1] else honest(path, work))
    with pytest.raises(SystemExit, match=r"a checker worker stopped early \(killed, or out of memory\) with 3 file\(s\) unchecked, .*0.cert.json the first in file order"):
        list(entry.checked(paths, 100, 2, (set(), set())))


def test_main_exits_1_on_a_bad_certificate_and_goes_on(tmp_path, toy, limits, capsys):
    put(tmp_path / "a.cert.json", toy_cert(fail="reject"))
    put(tmp_path / "b.cert.json", toy_cert(3))
    assert entry.main([str(tmp_path)]) == 1
    a, b, done = lines(capsys)
    assert (a["status"], b["status"], done["ok"]) == ("REJECTED", "accepted", False)


def test_main_exits_1_on_an_outcome_that_does_not_hold(tmp_path, toy, limits, capsys):
    put(tmp_path / "a.cert.json", toy_cert(3))
    put(tmp_path / "outcome.json", outcome(["a.cert.json"], bound=9))
    assert entry.main([str(tmp_path)]) == 1
    a, verdict, done = lines(capsys)
    assert a["status"] == "accepted" and verdict["ok"] is False and done["ok"] is False
    assert verdict["reason"] == "1 obligation(s) not discharged, first: rank X >= 9"


def test_main_refuses_an_unreadable_outcome_file_and_goes_on(tmp_path, toy, limits, capsys):
    put(tmp_path / "a" / "outcome.json", '{"claim": ')
    put(tmp_path / "b" / "a.cert.json", toy_cert(3))
    put(tmp_path / "b" / "outcome.json", outcome(["a.cert.json"]))
    assert entry.main([str(tmp_path)]) == 1
    cert, bad, good, done = lines(capsys)
    assert bad == {"type": "outcome", "path": str(tmp_path / "a" / "outcome.json"), "ok": False, "obligations": [],
                   "reason": "REFUSED: not JSON (Expecting value at line 1 column 11)"}
    assert cert["status"] == "accepted" and good["ok"] is True and done["ok"] is False


def test_main_reads_the_work_limit(tmp_path, toy, limits, capsys):
    path = put(tmp_path / "a.cert.json", toy_cert(3))
    assert entry.main(["--max-work", "9", path]) == 1
    line, done = lines(capsys)
    assert line["status"] == "REFUSED" and "limit of 9" in line["reason"]
    assert entry.main(["--max-work", "10", path]) == 0
    assert lines(capsys)[0]["status"] == "accepted"


def test_main_reads_several_paths_without_a_work_limit(tmp_path, toy, limits, capsys):
    a, b = put(tmp_path / "a.cert.json", toy_cert(3)), put(tmp_path / "b.cert.json", toy_cert(4))
    assert entry.main([a, b]) == 0
    assert [line.get("summary") for line in lines(capsys)] == ["toy 3", "toy 4", None]


def test_main_with_the_work_limit_and_no_paths_checks_nothing(toy, limits, capsys):
    """The flag and its value are not taken for paths; with nothing to check only the closing line is printed
    (``attnproof verify`` refuses a run that checked nothing)."""
    assert entry.main(["--max-work", "9"]) == 0
    (only,) = lines(capsys)
    assert only["type"] == "done" and only["ok"] is True
    assert entry.main([]) == 0
    assert [line["type"] for line in lines(capsys)] == ["done"]


class Recorder:
    """A stdout that records what is written and when it is flushed."""

    def __init__(self):
        self.events = []

    def write(self, text):
        self.events.append(("write", text))
        return len(text)

    def flush(self):
        self.events.append(("flush", None))


def test_main_flushes_each_line_as_it_is_written(tmp_path, toy, limits, monkeypatch):
    """A checker stopped mid-run (memory cap, a signal) has still handed over every line it finished."""
    put(tmp_path / "a.cert.json", toy_cert(3))
    put(tmp_path / "outcome.json", outcome(["a.cert.json"]))
    out = Recorder()
    monkeypatch.setattr(sys, "stdout", out)
    assert entry.main([str(tmp_path)]) == 0
    monkeypatch.undo()
    text = "".join(t for kind, t in out.events if kind == "write")
    assert [json.loads(x)["type"] for x in text.splitlines()] == ["certificate", "outcome", "done"]
    # after each end of line, a flush comes before anything else is written
    for i, (kind, text) in enumerate(out.events):
        if kind == "write" and text.endswith("\n"):
            assert out.events[i + 1] == ("flush", None), out.events


def test_main_with_the_default_work_limit(tmp_path, toy, limits, capsys, monkeypatch):
    path = put(tmp_path / "a.cert.json", toy_cert(3))
    monkeypatch.setattr(entry, "MAX_WORK", 9)
    assert entry.main([path]) == 1
    assert "limit of 9" in lines(capsys)[0]["reason"]


@pytest.mark.parametrize("error", [ValueError, OSError])
def test_main_goes_on_when_the_memory_cap_cannot_be_set(tmp_path, toy, monkeypatch, capsys, error):
    def refuse(which, value):
        raise error("not here")

    monkeypatch.setattr(resource, "setrlimit", refuse)
    monkeypatch.setattr(entry, "foreign", lambda: (set(), set()))
    monkeypatch.setattr(entry, "memory", entry.memory)
    monkeypatch.setattr(caps, "memory", caps.memory)
    monkeypatch.setattr(entry.gc, "freeze", lambda: None)  # main() freezes its process's collector: not this one's
    assert entry.main([put(tmp_path / "a.cert.json", toy_cert(3))]) == 0
    assert lines(capsys)[-1]["ok"] is True


def test_main_reports_foreign_modules_by_top_level_name_and_by_file(tmp_path, toy, limits, monkeypatch, capsys):
    """In this pytest process, pytest is foreign; the standard library, flint and solvers are not.  A foreign
    module fails the run (the line is not ok, the exit code 1) though every file was accepted."""
    monkeypatch.setattr(entry, "foreign", REAL_FOREIGN)
    assert "flint" in sys.modules and any(n.startswith("_cython_") for n in sys.modules)
    assert entry.main([put(tmp_path / "a.cert.json", toy_cert(3))]) == 1
    *_, done = lines(capsys)
    foreign, files = done["foreign_modules"], done["foreign_files"]
    assert done["ok"] is False
    assert "pytest" in foreign and "_pytest" in foreign
    assert foreign == sorted(set(foreign)) and all("." not in n for n in foreign)
    for name in ("flint", "solvers", "__main__", "cython_runtime", "json", "os", "sys"):
        assert name not in foreign
    assert not [n for n in foreign if n.startswith(("_cython_", "_sysconfigdata_"))]
    # by file: pytest's own, and this test module; never the standard library's, flint's or the checker's
    assert sys.modules["pytest"].__file__ in files and __file__ in files and files == sorted(set(files))
    for name in ("json", "fractions", "flint", "solvers", "solvers.trusted.core", "solvers.trusted.runner"):
        assert sys.modules[name].__file__ not in files


# ------------------------------------------------------------------ the status a verdict earns


@pytest.mark.parametrize("status", ["unknown", "verified"])
def test_a_discharged_refutation_must_be_said(folder, status):
    """A refute obligation discharged earns refuted; an outcome saying unknown or verified hides it.
    Refuted wins even when every verify obligation is discharged too (as the check decides)."""
    rec = record(status, verify=[need(2)], refute=[need(9), need(4)], certificates=["a.cert.json"])
    out = run(folder, rec, results_for(folder, **{"a.cert.json": proves(5)}))
    assert not out["ok"] and out["earned"] == "refuted"
    assert out["reason"] == f"a refute obligation is discharged by a.cert.json: the outcome must say refuted, not {status}"
    said = run(folder, rec | {"status": "refuted"}, results_for(folder, **{"a.cert.json": proves(5)}))
    assert said["ok"] and said["reason"] == "" and said["earned"] == "refuted"


def test_an_unknown_outcome_whose_verify_obligations_are_discharged_is_left_to_the_binding(folder):
    """Stage 1 cannot tell an open conjecture (unknown at best) from another claim: it says what is earned."""
    rec = record("unknown", verify=[need(2), need(3)], refute=[need(9)], certificates=["a.cert.json"])
    out = run(folder, rec, results_for(folder, **{"a.cert.json": proves(5)}))
    assert out["ok"] and out["earned"] == "verified" and out["reason"] == ""


def test_an_honest_partial_unknown_stands(folder):
    rec = record("unknown", verify=[need(2), need(7)], refute=[need(9)], certificates=["a.cert.json"])
    out = run(folder, rec, results_for(folder, **{"a.cert.json": proves(5)}))
    assert out["ok"] and out["earned"] == "unknown" and [r["by"] for r in out["obligations"]] == ["a.cert.json", None, None]
    empty = run(folder, record("unknown", verify=[], refute=[need(9)]), {})
    assert empty["ok"] and empty["earned"] == "unknown"  # no verify obligation earns nothing
