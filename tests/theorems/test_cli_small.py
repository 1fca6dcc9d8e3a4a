"""The command line's small edges: each reproduced as a user met it, then pinned."""
import json

from theorems.cli import main


def test_calibration_is_an_analogue_in_list_and_report(capsys):
    from theorems.core import RELATIONS
    from theorems.report import model
    from theorems.cli import claims_registered
    assert main(["list", "--json"]) == 0
    rows = {r["claim"]: r for r in json.loads(capsys.readouterr().out)["claims"]}
    relation = rows["softmax_rank.calibration"]["relation"]
    assert relation == "an analogue, not the paper's data" and relation in RELATIONS
    claim = claims_registered()["softmax_rank.calibration"]
    # the report keeps its wording, which names the data, and groups it with the analogues
    assert model.relation_of(claim) == ("an analogue on all-MiniLM-L6-v2 (72 heads, BERT architecture), "
                                        "not the paper's BERT-base set")
    assert model.role_of(claim) == "analogue"


SMALL = ["rank_one_short", "--param", "m=3", "--param", "m_statistic=20"]


def _suggested(err: str) -> list[str]:
    """The command a refusal suggests: "(attnproof WORDS makes one"."""
    start = err.index("(attnproof ") + len("(attnproof ")
    return err[start:].split(" makes one")[0].split()


def test_report_outcomes_suggests_only_a_fix_that_is_accepted(tmp_path, capsys):
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "notes.txt").write_text("mine")
    assert main(["report", "--outcomes", str(junk), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--out {junk}" not in err  # check would refuse to write into it
    suggested = _suggested(err)
    assert suggested[:2] == ["check", "--out"]
    assert main([*suggested[:2], str(tmp_path / "new"), *SMALL]) == 0  # the suggestion, with a new folder, runs
    capsys.readouterr()
    # a claim's folder inside a check's folder: the check's folder is named, and it is accepted
    inner = tmp_path / "new" / "kernel_rank.rank_one_short"
    assert main(["report", "--outcomes", str(inner), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"inside the outcome folder {tmp_path / 'new'}; give that" in err
    # a folder that does not exist: check --out makes it, so that is the suggestion
    missing = tmp_path / "missing"
    assert main(["report", "--outcomes", str(missing), "--out", str(tmp_path / "r")]) == 2
    assert _suggested(capsys.readouterr().err) == ["check", "--out", str(missing)]


def test_unknown_option_is_one_line_naming_the_command(capsys):
    assert main(["check", "--frobnicate"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "usage:" not in captured.err
    assert "attnproof check: error: unrecognized argument(s): --frobnicate" in captured.err
    assert "attnproof check --help" in captured.err


def test_a_parameter_given_twice_is_refused_not_silently_the_last(capsys):
    assert main(["check", "rank_one_short", "--param", "m=3", "--param", "m=4", "--estimate"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already set by --param 'm=3'" in err and "m=V1,V2" in err
    # a claim's own setting wins over the general one, in either order
    for params in (["m=3", "rank_one_short:m=5"], ["rank_one_short:m=5", "m=3"]):
        assert main(["check", "rank_one_short", *(w for p in params for w in ("--param", p)), "--estimate"]) == 0
        assert "m=5 " in capsys.readouterr().out
    # several values in one --param remain several points
    assert main(["check", "rank_one_short", "--param", "m=3,4", "--estimate"]) == 0
    assert "2 point(s)" in capsys.readouterr().out


def test_a_rational_may_be_written_with_an_exponent(capsys):
    from theorems.cli import claims_registered, parse_params
    from fractions import Fraction
    claim = claims_registered()["softmax_rank.calibration"]
    for text in ("1e-1", "1E-1", "0.1", "1/10", "10e-2"):
        assert parse_params([f"epsilon={text}"], [claim])[claim.id][0]["epsilon"] == Fraction(1, 10)
    assert parse_params(["epsilon=2.5e-1"], [claim])[claim.id][0]["epsilon"] == Fraction(1, 4)
    # a spelling it does not read names the spellings it does; a value out of range names the range alone
    assert main(["check", "softmax_rank.calibration", "--param", "epsilon=1e-400", "--estimate"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1/10, 0.1, 1e-1" in err
    assert main(["check", "softmax_rank.calibration", "--param", "epsilon=1e5", "--estimate"]) == 2
    err = capsys.readouterr().err
    assert "[1/1000, 99/100]" in err and "1e-1" not in err


def test_verify_reads_an_outcome_file_as_its_folder(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["check", *SMALL, "--out", str(out)]) == 0
    capsys.readouterr()
    outcome = next(out.glob("kernel_rank.rank_one_short/*/outcome.json"))
    assert main(["verify", str(outcome)]) == 0
    text = capsys.readouterr().out
    assert "missing from" not in text and "verified stands" in text and "1 of 1 outcome(s) stand" in text
    assert main(["verify", str(out / "outcomes.json")]) == 0
    assert "1 of 1 outcome(s) stand" in capsys.readouterr().out


def test_a_work_refusal_reads_not_judged_and_nothing_counted_reads_not_examined(tmp_path, capsys):
    """An outcome whose certificates were refused for --max-work alone was not judged: it reads NOT JUDGED
    (refused: raise --max-work), not DOES NOT STAND; and when the checker stopped before its obligations,
    the line says they were not examined instead of "0 of 0 ... discharged".  With the work allowed, the
    same folder stands."""
    out = tmp_path / "run"
    assert main(["check", *SMALL, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["verify", "--max-work", "10", str(out)]) == 1
    text = capsys.readouterr().out
    line = next(l for l in text.splitlines() if l.startswith("kernel_rank.rank_one_short ["))
    assert "NOT JUDGED (refused: raise --max-work)" in line and "DOES NOT STAND" not in line
    assert "its obligations were not examined" in text and "0 of 0" not in text
    assert main(["verify", str(out)]) == 0
    assert "stands" in capsys.readouterr().out


def test_no_command_or_an_option_before_it_is_one_line_naming_the_commands(capsys):
    for argv in ([], ["--frobnicate"], ["--frobnicate", "check"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "a command comes first" in err and "check, new, report, verify" in err
        assert "usage:" not in err


def test_the_commands_named_are_the_parsers():
    import argparse

    from theorems.cli import COMMANDS, build_parser
    [sub] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert tuple(sub.choices) == COMMANDS
