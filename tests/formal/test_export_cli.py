"""``attnproof export --coq DIR``: the Coq files of a run, written and compilable by hand, never over other files."""

from __future__ import annotations

import json
import os

from theorems import cli

from .conftest import compile_v


def test_export_writes_each_certificate_and_obligation_and_an_index(formal_built, paper_k_run, tmp_path, capsys):
    out = paper_k_run / "kernel_rank.three_token_lower_bound"
    target = tmp_path / "coq"
    assert cli.main(["export", "--coq", str(target), str(out)]) == 0
    said = capsys.readouterr().out
    assert "wrote 4 certificate file(s) and 4 obligation file(s)" in said, said
    index = json.loads((target / "index.json").read_text())
    assert index["format"] == "attnproof-coq-export/1"
    statements = sorted(o["statement"] for o in index["obligations"])
    assert statements == ["forall m, (4 <= m)%nat -> ~ solvable 1 m 3", "solvable 1 1 3", "solvable 1 2 3", "solvable 1 3 3"]
    # the files compile by hand, certificates first (the obligations Require them)
    names = sorted(os.listdir(target))
    assert [n for n in names if n.endswith(".v")] == ["c0001.v", "c0002.v", "c0003.v", "c0004.v",
                                                       "o0001.v", "o0002.v", "o0003.v", "o0004.v"]
    for name in names:
        if name.endswith(".v"):
            ran = compile_v(formal_built, target, name[:-2], (target / name).read_text(), "-R", str(target), "Cert")
            assert ran.returncode == 0, (name, ran.stderr)


def test_export_never_writes_into_a_folder_that_holds_files(paper_k_run, tmp_path, capsys):
    out = paper_k_run / "kernel_rank.rank_two"
    target = tmp_path / "coq"
    target.mkdir()
    (target / "mine.txt").write_text("keep")
    assert cli.main(["export", "--coq", str(target), str(out)]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert os.listdir(target) == ["mine.txt"] and (target / "mine.txt").read_text() == "keep"
