"""The regression fence of bench/scale.py: its figures at small m against the recorded ones."""

import importlib.util
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCALE = os.path.join(ROOT, "bench", "scale.py")


def _run(*args):
    return subprocess.run([sys.executable, SCALE, *args], capture_output=True, text=True, timeout=600, cwd=ROOT)


def test_the_reduced_lp_at_small_m_matches_its_recorded_figures():
    # every problem (n = 3, 4, with and without positions) at m = 4, 8, 16: about 4 s of CPU
    done = _run("--m", "4,8,16", "--budget", "120", "--check")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "checked 12 point(s)" in done.stdout and "0 figure(s) moved" in done.stdout, done.stdout[-2000:]


def test_the_fence_fails_on_each_figure_that_moved_and_only_then(tmp_path):
    with open(os.path.join(ROOT, "bench", "scale_figures.json")) as handle:
        recorded = json.load(handle)
    key = "n=3,m=4"
    was = recorded[key]
    forged = {key: {**was, "answer": "feasible", "generated": int(was["generated"] * 1.5),
                    "certificate": was["certificate"] * 2 + 3, "cpu": 0.0, "rows": was["rows"] + 1}}
    path = tmp_path / "moved.json"
    path.write_text(json.dumps(forged))
    done = _run("--m", "4", "--problems", "3", "--check", str(path))
    lines = [line for line in done.stdout.splitlines() if line.startswith("REGRESSION")]
    assert done.returncode == 1 and "4 figure(s) moved" in done.stdout, done.stdout + done.stderr
    assert {line.split(": ")[1].split()[0] for line in lines} == {"answer", "the", str(was["generated"]), str(was["certificate"])}
    # CPU only loosely: 0 s recorded allows 0.5 s; within the row tolerances nothing moves
    near = {key: {**was, "generated": int(was["generated"] * 1.05) + 1, "cpu": 0.0}}
    path.write_text(json.dumps(near))
    done = _run("--m", "4", "--problems", "3", "--check", str(path))
    assert done.returncode == 0 and "0 figure(s) moved" in done.stdout, done.stdout + done.stderr
