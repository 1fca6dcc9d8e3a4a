import json
import os

import pytest

from theorems.cli import main

SMALL = ["rank_one_short", "softmax_three_tokens", "--param", "rank_one_short:m=3", "--param", "m_statistic=20",
         "--param", "softmax_three_tokens:m=20", "--param", "m_tables=2", "--param", "m_rank=3"]

KEYS = {"claim", "status", "expected", "parameters", "covered", "seconds", "certificates", "facts", "message"}


def test_check_writes_outcomes_and_certificates_that_verify(tmp_path, capsys):
    out = tmp_path / "latest"
    assert main(["check", *SMALL, "--out", str(out), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["format"] == "attnproof-check/1" and printed["out"] == str(out)
    records = printed["outcomes"]
    assert {r["claim"] for r in records} == {"kernel_rank.rank_one_short", "kernel_rank.softmax_three_tokens"}
    for r in records:
        assert KEYS <= set(r)
        assert r["format"] == "attnproof-outcome/1" and r["unknown"] is None
        assert r["made"]["version"] and r["made"]["code"].startswith("sha256:") and r["made"]["at"].endswith("Z")
        assert r["status"] == r["expected"] == "verified"
        # certificate names are relative to the point folder, and every obligation names the one that discharges it
        assert r["certificates"] and all(os.sep not in name and (out / r["folder"] / name).is_file() for name in r["certificates"])
        assert [d["obligation"] for d in r["discharged"]] == [o["words"] for side in ("verify", "refute") for o in r["obligations"][side]]
        assert all(d["certificate"] in r["certificates"] if d["side"] == "verify" else d["certificate"] is None for d in r["discharged"])
        assert json.loads((out / r["folder"] / "outcome.json").read_text()) == {k: v for k, v in r.items() if k != "folder"}
    assert main(["verify", str(out)]) == 0
    text = capsys.readouterr().out
    assert "stage 1: the trusted checker" in text and "REJECTED" not in text
    assert "2 of 2 outcome(s) stand" in text
    # one summary line per outcome; with --details one line per certificate, each naming its own file
    assert "kernel_rank.rank_one_short [m=3,m_statistic=20]: verified stands" in text
    assert main(["verify", str(out), "--details"]) == 0
    accepted = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  accepted  ")]
    assert len(accepted) == sum(len(r["certificates"]) for r in records) == len(set(accepted))


def test_verify_names_a_tampered_certificate(tmp_path, capsys):
    out = tmp_path / "latest"
    assert main(["check", "softmax_three_tokens", "--param", "m=10", "--param", "m_tables=2",
                 "--param", "m_rank=2", "--out", str(out)]) == 0
    path = next(out.glob("kernel_rank.softmax_three_tokens/*/*score-statistic.cert.json"))
    cert = json.loads(path.read_text())
    cert["data"]["value"][2][1] = 0  # claim the readout of score 1 is 0 at |q| = 2
    path.write_text(json.dumps(cert))
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    text = capsys.readouterr().out
    shown = os.path.relpath(path, out)  # named relative to the outcome folder
    assert f"REJECTED  {shown}" in text and "DOES NOT STAND" in text and "0 of 1 outcome(s) stand" in text


def test_unexpected_outcome_exits_1(tmp_path, capsys):
    # at base 2 (beta = ln 2) the softmax head errs by 1/2: refuted, where the claim expects verified
    out = tmp_path / "o"
    assert main(["check", "softmax_three_tokens", "--param", "base=2", "--param", "m=5",
                 "--param", "m_tables=1", "--param", "m_rank=1", "--out", str(out), "--json"]) == 1
    (printed,) = json.loads(capsys.readouterr().out)["outcomes"]
    (path,) = out.glob("kernel_rank.softmax_three_tokens/*/outcome.json")
    record = json.loads(path.read_text())
    assert printed == {**record, "folder": printed["folder"]}
    assert record["status"] == "refuted" and record["expected"] == "verified" and record["unknown"] is None
    assert record["counterexample"] == {"error": "1/2", "m": 1, "sequence": ["0", "1", "1"]}
    assert record["parameters"]["base"] == 2 and record["certificates"]
    refuting = [d for d in record["discharged"] if d["side"] == "refute"]
    assert [d["certificate"] for d in refuting] == record["certificates"][:1]
    assert main(["verify", str(out)]) == 0  # the unexpected outcome stands: the exit status is not a failed check
    assert "1 of 1 outcome(s) stand" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, words",
    [
        (["check", "no_such_claim"], "unknown claim"),
        (["check", "softmax_three_token"], "did you mean softmax_three_tokens"),
        (["check", "spherical_law", "--param", "epsilon=1"], "must be a rational in [1/1000000, 1)"),
        (["check", "rank_one_short", "--param", "m=0"], "must be an integer in [1, 10]"),
        (["check", "--param", "m=abc"], "must be an integer"),
        (["check", "--param", "nope=1"], "no selected claim has a parameter"),
        (["check", "softmax_three_tokens", "--param", "m=3000", "--budget", "30"], "estimated"),  # about 90 s
        (["check", "--param", "m"], "NAME=VALUE"),
    ],
)
def test_usage_errors_exit_2_and_write_nothing(argv, words, tmp_path, capsys):
    out = tmp_path / "never"
    assert main([*argv, "--out", str(out)]) == 2
    assert words in capsys.readouterr().err
    assert not out.exists()
    assert os.listdir(tmp_path) == []


def test_list_json_gives_each_parameters_type_and_bounds_as_data(capsys):
    assert main(["list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["format"] == "attnproof-list/1"
    rows = {r["claim"]: r for r in listed["claims"]}
    m = rows["kernel_rank.softmax_three_tokens"]["parameters"]["m"]
    assert (m["type"], m["low"], m["high"], m["high_open"], m["size"]) == ("integer", 1, 3000, False, True)
    # epsilon: advertised as what it accepts, (0, 1) cut at 1/1000000 — never [1/1000000, 10]
    eps = rows["softmax_rank.spherical_law"]["parameters"]["epsilon"]
    assert (eps["type"], eps["low"], eps["high"], eps["high_open"], eps["size"]) == ("rational", "1/1000000", 1, True, False)
    from theorems.core import get

    claim = get("spherical_law")
    assert claim.point({"epsilon": "999999/1000000"})["epsilon"] < 1
    # flags and seeds are no sizes: "covered" never lists them
    assert {"upper", "fourier", "epsilon"}.isdisjoint(claim.sizes(claim.point())) and "beta_max" in claim.sizes(claim.point())
    assert "seed" not in get("residual_error").sizes(get("residual_error").point())
    assert rows["kernel_rank.feature_rank_table"]["parameters"]["search"]["size"] is False


def test_list_jsonl_is_one_whole_claim_per_line_the_same_as_json(capsys):
    assert main(["list", "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)["claims"]
    assert main(["list", "--jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in lines]  # every line is a JSON object by itself (| head -1 gives a claim)
    assert len(rows) == len(whole) and all(r.pop("format") == "attnproof-list/1" for r in rows)
    assert rows == whole
    with pytest.raises(SystemExit):
        main(["list", "--json", "--jsonl"])  # one shape at a time


def test_help_concepts_explains_the_words_of_a_verdict(capsys):
    assert main(["help", "concepts"]) == 0
    said = capsys.readouterr().out
    for word in ("obligation", "judgment", "rung", "proved for every parameter", "verified up to", "stale", "stands"):
        assert word in said, word
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "attnproof help concepts" in capsys.readouterr().out  # the top-level help points to it
    assert main(["help"]) == 0 and "usage: attnproof" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["help", "nonsense"])
    assert "concepts" in capsys.readouterr().err


def test_list_says_who_states_each_claim(capsys):
    """A conjecture about a paper is listed with its own source; the paper only as what it is about."""
    assert main(["list", "--json"]) == 0
    rows = {r["claim"]: r for r in json.loads(capsys.readouterr().out)["claims"]}
    assert rows["kernel_rank.row_lemma"]["source"] == "arXiv 2608.11427"
    conjecture = rows["conjectures.multi_head_length"]
    assert (conjecture["source"], conjecture["paper"]) == ("attnproof worked example", "2608.11427")
    assert main(["list"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert "attnproof worked example, about arXiv:2608.11427" in lines["conjectures.multi_head_length"]
    assert "arXiv:2608.11427" in lines["kernel_rank.row_lemma"] and "about" not in lines["kernel_rank.row_lemma"]


def test_verify_of_nothing_is_a_usage_error(tmp_path):
    assert main(["verify", str(tmp_path / "missing")]) == 2


def test_new_scaffolds_a_conjecture_that_checks_and_verifies(tmp_path, monkeypatch, capsys):
    import sys

    from theorems import core, registry

    monkeypatch.chdir(tmp_path)
    # the folders discovery puts on sys.path (this project's), and what the registry knows of them, undone after
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(registry, "_ADDED", [])
    monkeypatch.setattr(registry, "_FROM_FOLDER", {})
    assert main(["new", "my_conjecture"]) == 0
    assert main(["new", "my_conjecture"]) == 2  # never overwrites
    assert main(["new", "not-an-identifier"]) == 2
    monkeypatch.setenv(core.MODULES_VARIABLE, "my_conjecture")
    monkeypatch.setattr(core, "_REGISTRY", {})
    try:
        assert main(["check", "my_conjecture", "--param", "m=12", "--out", "out"]) == 0
        assert main(["verify", "out"]) == 0
        # the template really checks: a readout that misses the target is refuted
        import my_conjecture

        monkeypatch.setattr(my_conjecture, "value", lambda w, s: s + 1)
        assert main(["check", "my_conjecture", "--param", "m=12", "--out", "out2"]) == 1
        record = json.loads((tmp_path / "out2" / "conjectures.my_conjecture" / "m=12" / "outcome.json").read_text())
        assert record["status"] == "refuted"  # a certified counterexample discharges the refute obligation
    finally:
        core._REGISTRY.clear()


def test_scheduler_without_dask_is_a_usage_error(tmp_path, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    assert main(["check", "rank_one_short", "--scheduler", "tcp://127.0.0.1:8786", "--out", str(tmp_path / "o")]) == 2
    assert "dask" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_several_jobs_give_the_same_outcomes_as_one(tmp_path, capsys):
    args = ["check", "softmax_three_tokens", "--param", "m=8", "--param", "m_tables=1", "--param", "m_rank=1",
            "--param", "base=3,4,5", "--json"]
    assert main([*args, "--jobs", "1", "--out", str(tmp_path / "a")]) == 0
    one = json.loads(capsys.readouterr().out)["outcomes"]
    assert main([*args, "--jobs", "2", "--out", str(tmp_path / "b")]) == 0
    two = json.loads(capsys.readouterr().out)["outcomes"]
    strip = lambda records: [{k: v for k, v in r.items() if k not in ("seconds", "made")} for r in records]
    assert strip(one) == strip(two)
