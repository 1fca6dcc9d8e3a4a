"""docs/tutorial.md, run as written: every command, in order, in a fresh temporary project.

Commands are the ``$ `` lines of its ``console`` blocks, run by the shell with the
installed ``attnproof`` first on PATH and no ``ATTNPROOF_CLAIMS`` in the environment;
each must exit 0, and each line of output the tutorial shows must appear (``...`` stands
for anything; whitespace is compared loosely, as tables are padded).  The ``diff`` block
is applied to the file it names.  Then the promises of the tutorial are checked on the
files themselves.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[3] / "docs" / "tutorial.md"


def blocks(text: str) -> list[tuple[str, list[str]]]:
    """(language, lines) of every fenced block, in order."""
    out, current, lang = [], None, ""
    for line in text.splitlines():
        if line.startswith("```"):
            if current is None:
                lang, current = line[3:].strip(), []
            else:
                out.append((lang, current))
                current = None
        elif current is not None:
            current.append(line)
    return out


def steps(text: str):
    """("run", command, shown output lines) and ("edit", path, [(old, new)]) in document order."""
    for lang, lines in blocks(text):
        if lang == "console":
            command, shown = None, []
            for line in lines:
                if line.startswith("$ "):
                    if command:
                        yield "run", command, shown
                    command, shown = line[2:], []
                else:
                    shown.append(line)
            if command:
                yield "run", command, shown
        elif lang == "diff":
            path = next(l[4:].strip() for l in lines if l.startswith("+++ "))
            old = [l[1:] for l in lines if l.startswith("-") and not l.startswith("---")]
            new = [l[1:] for l in lines if l.startswith("+") and not l.startswith("+++")]
            assert len(old) == len(new), "each removed line of the tutorial's diff has its replacement"
            yield "edit", path, list(zip(old, new))


def loose(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_the_tutorial_runs_as_written(tmp_path):
    text = TUTORIAL.read_text(encoding="utf-8")
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "attnproof").exists(), "the attnproof command is installed beside the interpreter"
    env = {k: v for k, v in os.environ.items() if k != "ATTNPROOF_CLAIMS"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    cwd, ran, edited = tmp_path, [], 0
    for step, what, detail in steps(text):
        if step == "edit":
            path = cwd / what
            source = path.read_text(encoding="utf-8")
            for old, new in detail:
                assert source.count(old) == 1, f"the tutorial's line {old!r} is in {what} once"
                source = source.replace(old, new)
            path.write_text(source, encoding="utf-8")
            edited += 1
            continue
        output = ""
        for part in (p.strip() for p in what.split("&&")):
            if part.startswith("cd "):
                cwd = cwd / part[3:].strip()
                continue
            done = subprocess.run(part, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"$ {part} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            output += done.stdout + done.stderr
        for line in detail:
            for fragment in (f for f in line.split("...") if f.strip()):
                assert loose(fragment) in loose(output), f"$ {what}: the tutorial shows {fragment!r}; got\n{output[-3000:]}"
        ran.append(what)
    assert edited == 1 and len(ran) >= 6
    assert "attnproof new my_conjecture" in ran and ran.count("attnproof check my_conjecture") == 2

    # what the tutorial promises, read off the files
    project = cwd
    assert not (tmp_path / "conjectures").exists() and (project / "conjectures" / "my_conjecture.py").is_file()
    point = project / "reports" / "latest" / "conjectures.my_conjecture" / "default"
    record = json.loads((point / "outcome.json").read_text(encoding="utf-8"))
    assert record["status"] == "refuted" == record["expected"]
    assert record["counterexample"]["sequence"] == ["0", "0", "1", "1"] and record["counterexample"]["bits_used"] == 1
    assert record["certificates"] == ["00-score-counterexample.cert.json"] and (point / record["certificates"][0]).is_file()
    assert [d["side"] for d in record["discharged"] if d["certificate"]] == ["refute"]
    assert record["covered"]["random"]["engine"] == "random (hypothesis)"
    assert (project / ".attnproof" / "hypothesis" / "examples").is_dir()  # the per-project database
    page = (project / "reports" / "site" / "claims" / "conjectures.my_conjecture.html").read_text(encoding="utf-8")
    assert "user conjecture" in page and "refuted" in page
    assert "STALE" not in page  # the sentence was rewritten for the uniform head and its digest recorded
    assert "arXiv 2608.11427" not in page  # the paper it asks about is named, but it is not said to state it


def test_the_tutorial_parser_reads_commands_and_edits():
    sample = "```console\n$ a\nout\n$ b\n```\n```diff\n--- f\n+++ f\n-x\n+y\n```\n"
    assert list(steps(sample)) == [("run", "a", ["out"]), ("run", "b", []), ("edit", "f", [("x", "y")])]
    with pytest.raises(AssertionError):
        list(steps("```diff\n+++ f\n-x\n```\n"))
