"""Sweeps that resume (theorems.sweep), survive dying workers (solvers.parallel) and run on a real Dask cluster."""

import json
import os

import pytest

from solvers import parallel
from theorems import cli, sweep
from theorems.cli import main

# three cheap points of one claim (each well under a second)
SWEEP = ["rational_decoding_collision", "--param", "L_max=4,5,6", "--param", "m_max=2"]


def outcomes(out):
    """Every outcome record by folder, without what differs between runs: when, how long, and the
    code digest (the workers hash the tree when they start; a tree edited meanwhile differs)."""
    found = {}
    for path in sorted(out.glob("*/*/outcome.json")):
        record = json.loads(path.read_text())
        record.pop("seconds"), record.pop("made")
        found[str(path.parent.relative_to(out))] = record
    return found


def certificate_bytes(out):
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.glob("*/*/*.cert.json"))}


def test_a_second_run_skips_done_points_and_force_recomputes(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["check", *SWEEP, "--out", str(out), "--jobs", "1"]) == 0
    first = capsys.readouterr().err
    assert "3/3 point(s) done" in first and "left" in first and "skipping" not in first
    stamps = {p: p.read_text() for p in out.glob("*/*/outcome.json")}
    assert main(["check", *SWEEP, "--out", str(out), "--jobs", "1"]) == 0
    assert "skipping 3 point(s) already done" in capsys.readouterr().err
    assert {p: p.read_text() for p in out.glob("*/*/outcome.json")} == stamps  # untouched, not recomputed
    assert main(["check", *SWEEP, "--out", str(out), "--jobs", "1", "--force"]) == 0
    assert "skipping" not in capsys.readouterr().err


def test_an_interrupted_sweep_keeps_its_finished_points_and_resumes_after_them(tmp_path, capsys, monkeypatch):
    out = tmp_path / "o"
    real = parallel.run

    def stopped_after_one(*args, **kwargs):  # Ctrl-C after the first point finished
        for n, item in enumerate(real(*args, **kwargs)):
            if n == 1:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(parallel, "run", stopped_after_one)
    with pytest.raises(KeyboardInterrupt):
        cli.cmd_check(cli.build_parser().parse_args(["check", *SWEEP, "--out", str(out), "--jobs", "1"]))
    assert len(list(out.glob("*/*/outcome.json"))) == 1  # the finished point is on disk, whole
    monkeypatch.setattr(parallel, "run", real)
    capsys.readouterr()
    assert main(["check", *SWEEP, "--out", str(out), "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert "skipping 1 point(s)" in err and "3/3 point(s) done" in err
    assert len(list(out.glob("*/*/outcome.json"))) == 3


def test_a_changed_statement_or_code_is_not_done(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["check", "rational_decoding_collision", "--param", "L_max=4", "--out", str(out)]) == 0
    path = next(out.glob("*/*/outcome.json"))
    claim = cli.get("kernel_rank.rational_decoding_collision")
    point = claim.point({"L_max": 4})
    assert sweep.done(str(out), claim, point, path.parent.name) == json.loads(path.read_text())
    for key, value in (("statement", "0" * 64), ("made", {"code": "sha256:other"}), ("parameters", {"L_max": 5})):
        record = json.loads(path.read_text())
        path.write_text(json.dumps(record | {key: value}))
        assert sweep.done(str(out), claim, point, path.parent.name) is None
        path.write_text(json.dumps(record))
    record = json.loads(path.read_text())
    path.write_text(json.dumps(record | {"status": "unknown", "unknown": {"why": "budget", "partial": False}}))
    assert sweep.done(str(out), claim, point, path.parent.name) is None  # a budget that ran out is worth a re-run


def _dies_on_two(k):
    if k == 2:
        os._exit(3)  # the worker process dies, as a killed one would
    return k * k


def test_a_dying_worker_is_retried_once_then_its_task_is_lost_not_missing():
    results = dict(parallel.run(_dies_on_two, [(k,) for k in range(4)], jobs=2))
    assert set(results) == {0, 1, 2, 3}
    assert results[0] == 0 and results[1] == 1 and results[3] == 9
    assert isinstance(results[2], parallel.Lost) and "retry" in results[2].reason


def test_progress_estimates_what_is_left():
    meter = parallel.Progress([10.0, 10.0, 20.0], workers=1, skipped=1)
    assert meter.remaining() == 40.0 and meter.total == 4 and meter.done == 1
    meter.finished(0, 5.0)  # twice as fast as estimated
    assert meter.remaining() == 15.0 and "2/4 point(s) done" in meter.line()


def test_a_sweep_on_a_dask_cluster_equals_the_local_run(tmp_path, capsys, dask_cluster):
    local, remote = tmp_path / "local", tmp_path / "dask"
    assert main(["check", *SWEEP, "--out", str(local), "--jobs", "1"]) == 0
    with dask_cluster() as cluster:
        assert main(["check", *SWEEP, "--out", str(remote), "--scheduler", cluster.scheduler_address]) == 0
    assert outcomes(local) == outcomes(remote) and len(outcomes(local)) == 3
    assert certificate_bytes(local) == certificate_bytes(remote) and certificate_bytes(local)
