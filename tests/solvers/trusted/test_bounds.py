"""Stage 1 is bounded everywhere: the discharge's work, the parser's values and bytes, the memory of each
process, and every entry named as a certificate or an outcome is judged, whatever it is."""

import json
import os
import resource
import subprocess
import sys
import time

import pytest

import solvers.trusted.runner as entry
from solvers import certificates as C
from solvers.trusted import core, limits, parse, verdicts
from theorems import verification
from theorems.cli import main

CLAIM, STATEMENT = "test.claim", "s" * 64
RANK_LOWER = {"matrix": [[1, 2], [3, 4]], "rows": [0, 1], "cols": [0, 1], "prime": 101}
HONEST = C.make("rank-lower", CLAIM, STATEMENT, {}, RANK_LOWER)
JUDGMENT = core.check(HONEST).judgment  # rank-at-least, bound 2


def write(path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value))
    return str(path)


def record(certificates, verify=(), refute=()):
    return {"claim": CLAIM, "status": "verified", "parameters": {}, "statement": STATEMENT,
            "certificates": list(certificates),
            "obligations": {"verify": list(verify), "refute": list(refute), "reach": "finite"}}


def need(judgment, words="w"):
    return {"judgment": judgment, "words": words}


def checker(paths, *options):
    """The checker process as ``verify`` starts it, inside a probe that reports its peak memory and CPU:
    ``(lines, peak RSS in MB, CPU seconds)`` (RUSAGE_CHILDREN of the probe holds the checker alone)."""
    command = [sys.executable, "-I", "-S", "-c", verification.BOOT, os.pathsep.join(verification._search_path()),
               "--jobs", "1", *options, *map(str, paths)]
    probe = ("import json, resource, subprocess, sys\n"
             "done = subprocess.run(json.loads(sys.argv[1]), capture_output=True, text=True)\n"
             "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
             "print(json.dumps([done.stdout, done.stderr, use.ru_maxrss, use.ru_utime + use.ru_stime]))")
    done = subprocess.run([sys.executable, "-c", probe, json.dumps(command)], capture_output=True, text=True, check=True)
    stdout, stderr, rss_kb, cpu = json.loads(done.stdout)
    assert "Traceback" not in stderr, stderr
    return [json.loads(line) for line in stdout.splitlines()], rss_kb / 1024, cpu


# ------------------------------------------------------------------ the discharge


def test_a_certificate_listed_100k_times_against_1000_obligations_is_read_once(tmp_path):
    """A 1.6 MB outcome: each of its 1000 obligations compared once with the one certificate it lists 100 000
    times, half of them not discharged (before, 5 * 10^7 comparisons for those: about 90 s of CPU)."""
    write(tmp_path / "a.cert.json", HONEST)
    obligations = [need(JUDGMENT | {"bound": 1 + 2 * (i % 2)}, f"rank >= {1 + 2 * (i % 2)} ({i})") for i in range(1000)]
    write(tmp_path / "outcome.json", record(["a.cert.json"] * 100_000, verify=obligations))
    start = time.monotonic()
    result = verification.run_checker([str(tmp_path)], jobs=1)
    assert time.monotonic() - start < 60  # a sanity bound only (0.2 s here)
    assert not result.error and [c["status"] for c in result.certificates] == ["accepted"]
    (outcome,) = result.outcomes
    assert not outcome.checked and outcome.earned == "unknown"
    assert outcome.reason == "500 obligation(s) not discharged, first: rank >= 3 (1)"
    assert [r["by"] for r in outcome.obligations] == ["a.cert.json", None] * 500


def test_100k_certificates_against_1000_obligations_are_refused_with_the_estimate(tmp_path):
    """Distinct names (each an accepted certificate): 10^8 comparisons asked for, refused before the first."""
    folder = os.path.realpath(tmp_path)
    names = [f"{i:06}.cert.json" for i in range(100_000)]
    results = {os.path.join(folder, n): ("accepted", {"claim": CLAIM, "statement": STATEMENT, "parameters": {}}, JUDGMENT)
               for n in names}
    rec = record(names, verify=[need(JUDGMENT | {"bound": 3}) for _ in range(1000)])
    start = time.monotonic()
    with pytest.raises(core.Refused) as refused:
        verdicts.verdict(str(tmp_path / "outcome.json"), rec, results)
    assert time.monotonic() - start < 60  # a sanity bound only (about 1 s here)
    reason = str(refused.value)
    assert reason.startswith("discharging 1000 obligation(s) with 100000 certificate(s) asks for about ")
    assert reason.endswith(" operations, above the limit of 2e+08 (raise --max-work)")
    # each comparison counted at least at one unit: the estimate is at least the 10^8 comparisons
    assert float(reason.split("about ")[1].split(" ")[0]) >= 100_000 * 1000


def test_the_discharge_is_refused_in_the_process_above_max_work(tmp_path):
    """The outcome line says REFUSED with the estimate; the certificates themselves are accepted."""
    for i in range(30):
        write(tmp_path / f"{i:02}.cert.json", HONEST)
    write(tmp_path / "outcome.json", record([f"{i:02}.cert.json" for i in range(30)],
                                            verify=[need(JUDGMENT | {"bound": 3})] * 1000))
    result = verification.run_checker([str(tmp_path)], max_work=100_000, jobs=1)
    assert [c["status"] for c in result.certificates] == ["accepted"] * 30
    (outcome,) = result.outcomes
    assert not outcome.checked and outcome.reason.startswith(
        "REFUSED: discharging 1000 obligation(s) with 30 certificate(s) asks for about ")
    assert outcome.reason.endswith("operations, above the limit of 1e+05 (raise --max-work)")


def test_the_estimate_counts_each_listed_file_once_and_only_the_judgments_named_as_the_obligation(tmp_path):
    """work = sum over obligations of (judgments of its name) x weight(obligation) + their weights (limits._weight,
    in twentieths of a unit), / 20: each file once, however often listed; a name with no judgment costs nothing."""
    envelope = {"claim": CLAIM, "statement": STATEMENT, "parameters": {}}
    a, b = JUDGMENT, JUDGMENT | {"bound": 1}
    other, third = {"judgment": "rank-at-most", "matrix": "x", "bound": 9}, {"judgment": "bits-at-least", "bits": 1}
    folder = os.path.realpath(tmp_path)
    results = {os.path.join(folder, n): ("accepted", envelope, j)
               for n, j in [("a.cert.json", a), ("b.cert.json", b), ("c.cert.json", other), ("d.cert.json", third)]}
    wanted, unmatched = need(JUDGMENT | {"bound": 2}), need({"judgment": "fails", "m": 3})
    padded = need({"judgment": "rank-at-most", "matrix": "y", "bound": 9})
    w = lambda j: limits._weight(j, core.RULES.get(j["judgment"], {}))  # noqa: E731
    rec = record(["c.cert.json", "b.cert.json", "a.cert.json", "d.cert.json", "x/a.cert.json", "b.cert.json"],
                 verify=[wanted], refute=[unmatched, padded])
    # "fails": no judgment of that name, 0; rank-at-most: one judgment (other)
    work = (2 * w(wanted["judgment"]) + w(a) + w(b) + w(padded["judgment"]) + w(other)) // 20
    out = verdicts.verdict(str(tmp_path / "outcome.json"), rec, results, max_work=work)
    assert out["ok"] and [r["by"] for r in out["obligations"]] == ["a.cert.json", None, None]
    with pytest.raises(core.Refused, match=rf"^discharging 3 obligation\(s\) with 4 certificate\(s\) asks for about "
                                           rf"{work:.3g} operations, above the limit of {work - 1:.3g} "):
        verdicts.verdict(str(tmp_path / "outcome.json"), rec, results, max_work=work - 1)


def test_the_first_listed_certificate_that_discharges_is_named_whatever_the_other_names(tmp_path):
    envelope = {"claim": CLAIM, "statement": STATEMENT, "parameters": {}}
    folder = os.path.realpath(tmp_path)
    results = {os.path.join(folder, n): ("accepted", envelope, j)
               for n, j in [("a.cert.json", JUDGMENT), ("b.cert.json", JUDGMENT | {"bound": 1}),
                            ("c.cert.json", {"judgment": "rank-at-most", "bound": 2})]}
    rec = record(["c.cert.json", "b.cert.json", "a.cert.json", "b.cert.json"],
                 verify=[need(JUDGMENT | {"bound": 1}), need(JUDGMENT), need({"judgment": "rank-at-most", "bound": 3})])
    out = verdicts.verdict(str(tmp_path / "outcome.json"), rec, results)
    assert out["ok"] and [r["by"] for r in out["obligations"]] == ["b.cert.json", "a.cert.json", "c.cert.json"]


def test_the_checker_passes_its_work_limit_to_the_discharge(tmp_path, monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(verdicts, "verdict", lambda path, rec, results, work: seen.append(work) or {"ok": True})
    monkeypatch.setattr(entry, "foreign", lambda: (set(), set()))
    monkeypatch.setattr(resource, "setrlimit", lambda *a: None)
    monkeypatch.setattr(entry, "memory", entry.memory)
    monkeypatch.setattr(limits, "memory", limits.memory)
    monkeypatch.setattr(entry.gc, "freeze", lambda: None)  # main() freezes its process's collector: not this one's
    write(tmp_path / "outcome.json", record([]))
    assert entry.main(["--max-work", "77", str(tmp_path)]) == 0
    assert seen == [77]


# ------------------------------------------------------------------ the parser


def _empty_lists(path, megabytes):
    """``[[],[],...,[]]`` of about ``megabytes`` MB, written a MB at a time."""
    n = megabytes * 2**20 // 3
    with open(path, "wb") as handle:
        handle.write(b"[")
        for _ in range(megabytes):
            handle.write(b"[]," * (2**20 // 3))
        handle.write(b"[]]")
    return n


def test_200_MB_of_empty_lists_is_refused_at_once_by_its_size(tmp_path):
    """Before: 118 s and 6.1 GB, then rejected.  Now refused from the file's size, before a byte is read."""
    path = tmp_path / "big.cert.json"
    _empty_lists(path, 200)
    size = os.path.getsize(path)
    try:
        lines, peak, cpu = checker([path])
    finally:
        path.unlink()  # pytest keeps the last runs' folders: not 200 MB each
    assert lines[0]["status"] == "REFUSED" and lines[0]["reason"] == f"{size} bytes (at most {limits.MAX_BYTES})"
    assert peak < 150 and cpu < 10  # the interpreter and flint: about 30 MB, 0.3 s here


def test_20_MB_of_empty_lists_is_refused_by_its_values_before_anything_is_built(tmp_path):
    """Under the byte limit, 14 million values: refused after a count of the bytes (before: 2.2 s of CPU and
    626 MB to build them, then rejected; at 200 MB, 6.1 GB)."""
    path = tmp_path / "many.cert.json"
    _empty_lists(path, 20)
    assert os.path.getsize(path) < limits.MAX_BYTES
    marks = path.read_bytes().count(b",") + path.read_bytes().count(b"[")
    lines, peak, cpu = checker([path])
    assert lines[0]["status"] == "REFUSED"
    assert lines[0]["reason"] == f"{marks} commas and opening brackets, so up to as many JSON values (at most {limits.MAX_VALUES})"
    assert peak < 250 and cpu < 10  # about 70 MB and 0.2 s here


@pytest.mark.parametrize("raw, marks", [
    (b"[1,2,3,4]", 4), (b"[[],[]]", 4), (b'{"a":{},"b":{}}', 4), (b'["a,b,c,d"]', 4),  # in strings too
    (b'[[[[]]]]', 4), (b'{"a":[{}],"b":1}', 4),
])
def test_the_values_are_bounded_by_the_commas_and_opening_brackets(monkeypatch, raw, marks):
    monkeypatch.setattr(limits, "MAX_VALUES", marks)
    assert parse.loads(raw) == json.loads(raw)  # at the limit: read
    monkeypatch.setattr(limits, "MAX_VALUES", marks - 1)
    with pytest.raises(parse.Refused, match=rf"^{marks} commas and opening brackets, so up to as many JSON values "
                                            rf"\(at most {marks - 1}\)$"):
        parse.loads(raw)


@pytest.fixture(scope="module")
def honest_run(tmp_path_factory):
    """rank_one_short at its default point: the default check's file with the most values (81 422)."""
    out = tmp_path_factory.mktemp("bounds") / "out"
    assert main(["check", "rank_one_short", "--out", str(out), "--jobs", "1"]) == 0
    return out


def test_the_default_checks_files_fit_the_limits_five_times_over(honest_run):
    files = [os.path.join(root, n) for root, _, names in os.walk(honest_run) for n in names if n.endswith(".json")]
    raw = [open(f, "rb").read() for f in files]
    assert max(r.count(b",") + r.count(b"[") + r.count(b"{") for r in raw) > 80_000
    for r in raw:
        assert 5 * (r.count(b",") + r.count(b"[") + r.count(b"{")) <= limits.MAX_VALUES
        assert 5 * len(r) <= limits.MAX_BYTES
    assert limits.MAX_BYTES == 64 * 2**20 and limits.MAX_VALUES == 4_000_000  # stated in docs/certificates.md


# ------------------------------------------------------------------ memory


@pytest.mark.parametrize("pages, jobs, cap", [
    (12 * 2**18, 1, 8 * 2**30),  # 12 GiB of 4 KiB pages, no worker: at most 8 GiB
    (12 * 2**18, 2, 4 * 2**30),  # two workers and the checker: a third each
    (12 * 2**18, 3, 3 * 2**30),
    (3 * 2**18, 1, 3 * 2**30),
    (3 * 2**18, 0, 3 * 2**30),
    (-1, 2, 8 * 2**30),  # the RAM unknown: the fixed cap
])
def test_the_memory_cap_shares_the_ram_among_the_processes(monkeypatch, pages, jobs, cap):
    monkeypatch.setattr(os, "sysconf", lambda name: {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": pages}[name])
    assert entry.cap(jobs) == cap


def test_the_memory_cap_where_the_ram_cannot_be_read(monkeypatch):
    def unknown(name):
        raise ValueError(name)

    monkeypatch.setattr(os, "sysconf", unknown)
    assert entry.cap(2) == entry.MEMORY == 8 * 2**30


def test_main_caps_itself_at_its_share(tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(os, "sysconf", lambda name: {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 6 * 2**18}[name])
    monkeypatch.setattr(resource, "setrlimit", lambda which, value: calls.append((which, value)))
    monkeypatch.setattr(entry, "foreign", lambda: (set(), set()))
    monkeypatch.setattr(entry, "memory", entry.memory)
    monkeypatch.setattr(limits, "memory", limits.memory)
    monkeypatch.setattr(entry.gc, "freeze", lambda: None)  # main() freezes its process's collector: not this one's
    assert entry.main(["--jobs", "2"]) == 0
    assert calls == [(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))] and entry.memory == 2 * 2**30


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_every_worker_runs_under_the_cap(tmp_path):
    """The real process with two workers: each has the address-space limit of its share of the RAM."""
    import signal

    from tests.solvers.trusted.test_process import _session, slow_checker

    checker = subprocess.Popen(slow_checker(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        checker.stdout.readline()  # the run has started
        workers = [pid for pid in _session(checker.pid) if pid != checker.pid]
        assert len(workers) == 2
        for pid in [checker.pid, *workers]:
            with open(f"/proc/{pid}/limits", encoding="utf-8") as handle:
                line = next(x for x in handle if x.startswith("Max address space"))
            assert line.split()[3:5] == [str(entry.cap(2))] * 2
    finally:
        for pid in _session(checker.pid):
            os.kill(pid, signal.SIGKILL)
        checker.communicate()


# ------------------------------------------------------------------ what is not a regular file


def test_files_lists_folders_and_links_named_as_certificates_or_outcomes(tmp_path):
    (tmp_path / "p" / "outcome.json").mkdir(parents=True)
    (tmp_path / "p" / "d.cert.json").mkdir()
    (tmp_path / "p" / "folder").mkdir()
    write(tmp_path / "elsewhere" / "x.json", "{}")
    os.symlink(tmp_path / "elsewhere", tmp_path / "p" / "linked.cert.json")
    os.symlink(tmp_path / "elsewhere" / "x.json", tmp_path / "p" / "l.cert.json")
    certs, outcomes = entry.files([str(tmp_path / "p")])
    base = str(tmp_path / "p")
    assert certs == [f"{base}/d.cert.json", f"{base}/l.cert.json", f"{base}/linked.cert.json"]
    assert outcomes == [f"{base}/outcome.json"]


def test_an_outcome_or_certificate_that_is_not_a_regular_file_is_refused_never_skipped(tmp_path):
    """A folder named outcome.json (or a.cert.json), or a link: each has its line, REFUSED, and the run fails.
    A link named a.cert.json to an accepted certificate beside it is not that certificate."""
    (tmp_path / "folder" / "outcome.json").mkdir(parents=True)
    write(tmp_path / "real" / "outcome.json", record(["b.cert.json"], verify=[need(JUDGMENT)]))
    write(tmp_path / "linked" / "b.cert.json", HONEST)
    os.symlink(tmp_path / "linked" / "b.cert.json", tmp_path / "linked" / "a.cert.json")
    write(tmp_path / "linked" / "outcome.json", record(["a.cert.json"], verify=[need(JUDGMENT)]))
    (tmp_path / "linked-outcome").mkdir()
    os.symlink(tmp_path / "real" / "outcome.json", tmp_path / "linked-outcome" / "outcome.json")
    (tmp_path / "named" / "c.cert.json").mkdir(parents=True)
    result = verification.run_checker([str(tmp_path)], jobs=1)
    assert not result.error
    certificates = {os.path.relpath(c["path"], tmp_path): (c["status"], c.get("reason")) for c in result.certificates}
    assert certificates == {
        "linked/a.cert.json": ("REFUSED", "not a regular file (a symbolic link, not followed)"),
        "linked/b.cert.json": ("accepted", None),
        "named/c.cert.json": ("REFUSED", "not a regular file"),
    }
    outcomes = {os.path.relpath(o.path, tmp_path): (o.checked, o.reason) for o in result.outcomes}
    assert outcomes == {
        "folder/outcome.json": (False, "REFUSED: not a regular file"),
        "linked/outcome.json": (False, "certificate a.cert.json was not accepted"),
        "linked-outcome/outcome.json": (False, "REFUSED: not a regular file (a symbolic link, not followed)"),
        "real/outcome.json": (False, f"certificate b.cert.json is missing from {os.path.realpath(tmp_path / 'real')}"),
    }
    assert not result.ok
