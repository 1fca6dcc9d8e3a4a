"""The terminal's words for a result come from the judgments discharged (issue 21, item 6).

``theorems.judgments.words`` renders every judgment the trusted checker emits from its
fields alone; the table of ``attnproof check`` shows those words as a point's result and
the claim's own message only as a remark, so a claim whose obligations, certificate and
free text disagree (checked at length 2, worded "length 3") shows length 2.  Every name
and message the terminal prints is escaped (``terminal.printable``).
"""

from __future__ import annotations

import glob
import json
import os
import re
import unicodedata
from fractions import Fraction

import pytest
import sympy

from theorems import core, terminal
from theorems.cli import main
from theorems.core import Claim, Obligations, Parameter, Statement, obligation
from theorems.judgments import NAMES, known, words

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HALF = Fraction(1, 2)


def default_judgments() -> list[tuple[str, dict]]:
    """(claim id, judgment) of every obligation of every registered claim at its default point."""
    return [(c.id, o.judgment) for c in core.registry().values()
            for o in (lambda ob: ob.verify + ob.refute)(c.obligations(c.point()))]


def test_every_judgment_name_the_checker_emits_has_a_rendering():
    emitted = set()
    for path in glob.glob(os.path.join(ROOT, "solvers", "trusted", "*.py")):
        with open(path, encoding="utf-8") as handle:
            emitted |= set(re.findall(r'"judgment":\s*"([a-z-]+)"', handle.read()))
    assert emitted == set(NAMES)


def test_every_judgment_of_a_default_run_renders_without_falling_back():
    judgments = default_judgments()
    assert {j["judgment"] for _, j in judgments} == set(NAMES)  # the default run covers every name
    generic = [(claim, j["judgment"]) for claim, j in judgments if not known(j)]
    assert generic == []
    for _, j in judgments:
        text = words(j)
        assert text and "{" not in text.replace("{0,1}", "")  # never the generic name{field ...} form


def test_changing_the_length_changes_the_words():
    judgment = core.judgment("solves", model="kernel", head="any", rank=1, alphabet="all", m=[1, 1], lengths=[3],
                             target="min-ip", tolerance=HALF)
    assert words(judgment) == "a head of feature rank <= 1 solves every sequence of length 3 over {0,1}^1 with error < 1/2"
    shorter = words(judgment | {"lengths": [2]})
    assert "length 2" in shorter and "length 3" not in shorter


def _mutations(value):
    """Values that differ from ``value`` in one place (numbers, digests, names, one entry of a list or object)."""
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int):
        yield value + 1
    elif value is None:
        yield 7
    elif isinstance(value, str):
        if value.startswith("sha256:"):
            yield value[:7] + ("0" if value[7] != "0" else "1") + value[8:]
        elif re.fullmatch(r"-?\d+/\d+", value):
            yield str(Fraction(value) + 1)
        else:
            yield value + "x"
    elif isinstance(value, list):
        for k, item in enumerate(value):
            for other in _mutations(item):
                yield value[:k] + [other] + value[k + 1:]
    elif isinstance(value, dict):
        for key, item in value.items():
            for other in _mutations(item):
                yield value | {key: other}


def test_a_change_of_any_field_of_a_default_judgment_changes_its_words():
    """The words say every field: a judgment with one field changed never reads like the original."""
    seen = set()
    for claim, judgment in default_judgments():
        key = json.dumps(judgment, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        said = words(judgment)
        for field, value in judgment.items():
            for other in _mutations(value):
                assert words(judgment | {field: other}) != said, (claim, field, other)


def test_an_unknown_judgment_is_shown_with_every_field():
    odd = {"judgment": "solves", "model": "kernel", "head": "any", "rank": 1, "alphabet": "all", "m": [1, 1],
           "lengths": [3], "target": "min-ip", "tolerance": "1/2", "extra": 5}
    assert not known(odd)
    assert words(odd).startswith("solves{") and "extra 5" in words(odd) and "lengths [3]" in words(odd)
    assert words({"judgment": "never-heard-of", "x": "sha256:" + "a" * 64}) == "never-heard-of{x sha256:aaaaaaaaaaaa}"
    assert words("not a judgment").startswith("judgment ")


# ------------------------------------------------ the table: judgments first, the message as a remark


IDENTITY_HEAD = {"m": 1, "lengths": [2], "phi": [[1], [1]], "psi": [[1], [1]], "readout": [[0, 0], [-1, 1]],
                 "target": "min-ip", "tolerance": HALF, "symmetry": "none"}


class Mislabelled(Claim):
    """Checked at length 2 (obligation and certificate), worded and messaged "length 3"; its title,
    message and point carry terminal escape codes."""

    id = "words_test.mislabelled"
    paper = "2608.11427"
    title = "Length three \x1b]0;owned\x07(a test claim)"
    sentence = "A rank-one head solves length 3 at m = 1."
    parameters = (Parameter("seed", 0, 0, 9, "unused"),)

    def statement(self) -> Statement:
        n = sympy.Symbol("n", integer=True)
        return Statement(((sympy.Eq(n, 3, evaluate=False), "n = 3"),), (sympy.Ge(n, 1, evaluate=False), "solved"))

    def cost(self, point: dict) -> float:
        return 0.0

    def witness(self, point: dict):
        return IDENTITY_HEAD

    def obligations(self, point: dict) -> Obligations:
        return Obligations(verify=(obligation("a rank-one head solves every sequence of length 3 over {0,1}^1",
                                              "solves", model="kernel", head="any", rank=1, alphabet="all", m=[1, 1],
                                              lengths=[2], target="min-ip", tolerance=HALF),), reach="m = 1")

    def run(self, point: dict, ev) -> None:
        ev.certify("exhaustive", IDENTITY_HEAD)
        ev.note("rank one solves exact length 3 at m = 1\x1b[2J\x1b[H (certified)\r")


@pytest.fixture
def mislabelled(monkeypatch):
    core.registry()
    core.register(Mislabelled())
    monkeypatch.setenv("COLUMNS", "400")
    yield
    core._REGISTRY.pop(Mislabelled.id, None)


def test_the_table_shows_the_discharged_judgment_and_the_message_only_as_a_remark(mislabelled, tmp_path, capsys):
    out = tmp_path / "o\x1b[31m"
    assert main(["check", "mislabelled", "--jobs", "1", "--out", str(out)]) == 0
    shown = capsys.readouterr().out
    record = json.loads(next(out.glob("*/*/outcome.json")).read_text())
    assert record["status"] == "verified" and "length 3" in record["message"]
    assert "result" in shown.splitlines()[0] and "message" not in shown.splitlines()[0]
    assert "a head of feature rank <= 1 solves every sequence of length 2 over {0,1}^1 with error < 1/2" in shown
    # "length 3" only in the claim's own message, labelled a remark; its obligation's free words nowhere
    assert [line for line in shown.splitlines() if "length 3" in line] == \
           [line for line in shown.splitlines() if "remark: rank one solves exact length 3" in line]
    assert len([line for line in shown.splitlines() if "length 3" in line]) == 1
    assert "a rank-one head solves" not in shown
    # escape codes in the message and the folder name are shown, escaped: none reaches the terminal
    assert "\x1b" not in shown and "\r" not in shown
    assert "\\x1b[2J\\x1b[H (certified)\\x0d" in shown and "o\\x1b[31m" in shown
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    assert "\x1b" not in listed and "\x07" not in listed and "Length three \\x1b]0;owned\\x07(a test claim)" in listed


def test_result_text_of_refuted_unknown_and_partial_records():
    solves = core.judgment("solves", model="kernel", head="any", rank=1, alphabet="all", m=[1, 1], lengths=[3],
                           target="min-ip", tolerance=HALF)
    never = core.judgment("unsolvable", model="kernel", rank=1, m=[4, None], length=3, target="min-ip", tolerance=HALF)
    record = {"status": "refuted", "message": "found it",
              "obligations": {"verify": [{"judgment": solves, "words": "w"}], "refute": [{"judgment": never, "words": "r"}]},
              "discharged": [{"side": "verify", "obligation": "w", "certificate": None},
                             {"side": "refute", "obligation": "r", "certificate": "00-x.cert.json"}]}
    assert terminal.result_text(record) == f"{words(never)}\nremark: found it"
    partial = record | {"status": "unknown", "unknown": {"why": "budget", "partial": True},
                        "discharged": [{"side": "verify", "obligation": "w", "certificate": "00-x.cert.json"},
                                       {"side": "refute", "obligation": "r", "certificate": None}]}
    assert terminal.result_text(partial) == f"discharged: {words(solves)}\nremark: found it"
    missing = partial | {"discharged": [{"side": "verify", "obligation": "w", "certificate": None},
                                        {"side": "refute", "obligation": "r", "certificate": None}]}
    assert terminal.result_text(missing) == f"not discharged: {words(solves)}\nremark: found it"
    many = {"status": "verified", "message": "",
            "obligations": {"verify": [{"judgment": solves | {"m": [m, m]}, "words": ""} for m in range(1, 6)] +
                                      [{"judgment": never, "words": ""}], "refute": []},
            "discharged": [{"side": "verify", "obligation": "", "certificate": "c"}] * 6}
    lines = terminal.result_text(many).splitlines()
    # at most SHOWN, one of each judgment name first (the rank bound is not hidden behind the witnesses), in order
    assert lines == [words(solves), words(solves | {"m": [2, 2]}), words(never),
                     "and 3 more (attnproof verify --details lists each)"]


def test_printable_escapes_every_control_and_keeps_text():
    text = "claim\x1b[2J\x9b1m é ü 中 \u202eevil\u2028\x00\x7f\ttab\nnext\r"
    escaped = terminal.printable(text)
    assert escaped == "claim\\x1b[2J\\x9b1m é ü 中 \\u202eevil\\u2028\\x00\\x7f\\x09tab\\x0anext\\x0d"
    assert terminal.printable(text, newlines=True).count("\n") == 1
    assert all(unicodedata.category(ch)[0] != "C" for ch in escaped)
    assert terminal.printable("plain text, 1/2 <= 3") == "plain text, 1/2 <= 3"
