"""The Coq export of ``rank-two-betweenness`` certificates (theorems/formal/cones.py).

The real certificate of rank_two at m = 5 (of the session's check run, conftest's
``paper_k_run``) is written as a Coq file and compiled against ``formal/`` (built once
per session into the cache, conftest's ``formal_built``): it is accepted.  Tampered ones (an exclusion dropped, so that an order of
the queries exists; a context token, a row's query or a middle changed; a multiplier
changed or negative; a row dropped) make ``coqc`` fail, and the trusted Python checker
rejects the same data, so the two checkers agree on them.  A statement of another m,
rank or length fails too.  The exclusions of ``cert_m5`` in ``formal/KRankTwo.v``
(from which ``rank_two_fails`` is proved) are those of the Python certificate.

Tests that need ``coqc`` skip without it, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

import solvers.trusted.cones  # noqa: F401  (registers the kind rank-two-betweenness)
from solvers.trusted.core import CertificateError, check
from theorems.formal.cones import rank_two_betweenness

from .conftest import compile_v, run_certificates

ROOT = Path(__file__).resolve().parents[2]
FORMAL = ROOT / "formal"
STATEMENT = "forall m, (5 <= m)%nat -> ~ solvable 2 m 3"


@pytest.fixture(scope="module")
def certificate(paper_k_run) -> dict:
    """The rank-two-betweenness certificate of rank_two at m = 5 (the session's check run): its only one."""
    found = [c for _, c in run_certificates(paper_k_run, ["rank_two"], ["rank-two-betweenness"], point="m=5")]
    assert len(found) == 1
    return found[0]


def _python_accepts(cert: dict, data: dict) -> bool:
    try:
        check({**cert, "data": data})
    except CertificateError:
        return False
    return True


def _flip(text: str) -> str:
    return text[:-1] + ("0" if text[-1] == "1" else "1")


def _tampered(data: dict) -> list[tuple[str, dict]]:
    out = []
    d = copy.deepcopy(data)
    del d["exclusions"][0]
    out.append(("first exclusion dropped", d))
    d = copy.deepcopy(data)
    del d["exclusions"][-1]
    out.append(("last exclusion dropped", d))
    d = copy.deepcopy(data)
    d["exclusions"][3]["rows"][1][3][1] = _flip(d["exclusions"][3]["rows"][1][3][1])
    out.append(("context token", d))
    d = copy.deepcopy(data)
    d["exclusions"][2]["rows"][4][0] = d["exclusions"][2]["ends"][0]
    out.append(("row query", d))
    d = copy.deepcopy(data)
    middle = d["exclusions"][5]["middle"]
    other = next(q for q in d["queries"] if q not in (middle, *d["exclusions"][5]["ends"]))
    d["exclusions"][5]["middle"] = other
    for row in d["exclusions"][5]["rows"]:
        if row[0] == middle:
            row[0] = other
    out.append(("middle", d))
    d = copy.deepcopy(data)
    d["exclusions"][1]["rows"][7][2] = 1
    out.append(("multiplier", d))
    d = copy.deepcopy(data)
    d["exclusions"][0]["rows"][0][2] = -1
    out.append(("negative multiplier", d))
    d = copy.deepcopy(data)
    del d["exclusions"][4]["rows"][2]
    out.append(("row dropped", d))
    return out


def test_the_certificate_is_the_expected_one(certificate):
    data = certificate["data"]
    assert certificate["kind"] == "rank-two-betweenness" and data["m"] == 5
    assert len(data["queries"]) == 8 and len(data["exclusions"]) == 10
    assert all(len(row[3]) == 2 for e in data["exclusions"] for row in e["rows"])


def test_the_certificate_compiles(certificate, formal_built, tmp_path):
    source = rank_two_betweenness(certificate["data"], STATEMENT)
    assert "Admitted" not in source and "vm_compute; reflexivity" in source
    done = compile_v(formal_built, tmp_path, "judgment", source)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("index", range(8))
def test_a_tampered_certificate_fails_in_coq_and_in_python(certificate, formal_built, tmp_path, index):
    label, data = _tampered(certificate["data"])[index]
    assert not _python_accepts(certificate, data), label
    done = compile_v(formal_built, tmp_path, f"tampered{index}", rank_two_betweenness(data, STATEMENT))
    assert done.returncode != 0, f"{label}: coqc accepted a tampered certificate"


def test_a_statement_that_does_not_match_the_data_fails(certificate, formal_built, tmp_path):
    data = certificate["data"]
    for i, statement in enumerate(["forall m, (4 <= m)%nat -> ~ solvable 2 m 3",      # another m
                                   "forall m, (5 <= m)%nat -> ~ solvable 3 m 3",      # another rank
                                   "forall m, (5 <= m)%nat -> ~ solvable 2 m 4"]):    # another length
        done = compile_v(formal_built, tmp_path, f"statement{i}", rank_two_betweenness(data, statement))
        assert done.returncode != 0, statement


def test_the_coq_m5_certificate_has_the_python_exclusions(certificate):
    """``cert_m5`` (KRankTwo.v, behind ``rank_two_fails``) lists the certificate's
    queries and (middle, ends) triples; its rows are the score-gap-two rows."""
    text = (FORMAL / "KRankTwo.v").read_text()
    block = text[text.index("Definition exclusions_m5"):text.index("Definition cert_m5")]
    coq = {(a, frozenset((b, c))) for a, b, c in re.findall(r'\("([01]+)", "([01]+)", "([01]+)"\)', block)}
    data = certificate["data"]
    python = {(e["middle"], frozenset(e["ends"])) for e in data["exclusions"]}
    assert coq == python and len(coq) == 10
    queries = text[text.index("Definition queries_m5"):text.index("Definition exclusions_m5")]
    assert set(re.findall(r'"([01]+)"', queries)) == set(data["queries"])
    for e in data["exclusions"]:
        a = e["middle"]
        abar = "".join("1" if ch == "0" else "0" for ch in a)
        for q in (*e["ends"], a):
            assert [r for r in e["rows"] if r[0] == q] == [
                [q, "lo", 1, [a, a]], [q, "hi", 2, [a, abar]], [q, "lo", 1, [abar, abar]]]


def test_the_source_shape():
    data = {"m": 2, "queries": ["10", "01", "11"],
            "exclusions": [{"middle": "10", "ends": ["01", "11"],
                            "rows": [["01", "lo", "3/6", ["10", "10"]], ["10", "hi", 2, ["10", "01"]]],
                            "nonnegative": [["01", "11", "1/3"]]}]}
    source = rank_two_betweenness(data, "forall m, (2 <= m)%nat -> ~ solvable 2 m 3")
    assert source.startswith("From Coq Require Import List QArith.\n"
                             "From AttnProof Require Import KDefs KTable KRankTwo.\n")
    assert "cqueries := [[true; false]; [false; true]; [true; true]]" in source
    assert "eends := ([false; true], [true; true])" in source
    assert ("{| rq := [false; true]; rside := Lo; ry := (1 # 2)%Q; rctx := [[true; false]; [true; false]] |}"
            in source)
    assert "{| rq := [true; false]; rside := Hi; ry := (2 # 1)%Q;" in source
    assert "enn := [{| nend := [false; true]; ntok := [true; true]; ny := (1 # 3)%Q |}]" in source
    assert source.rstrip().endswith(
        "Theorem judgment : forall m, (2 <= m)%nat -> ~ solvable 2 m 3.\n"
        "Proof. apply (check_betweenness_sound cert); vm_compute; reflexivity. Qed.")


def _small(**change) -> dict:
    exclusion = {"middle": "10", "ends": ["01", "11"], "rows": [["01", "lo", 1, ["10", "10"]]], "nonnegative": []}
    exclusion.update(change.pop("exclusion", {}))
    return {"m": 2, "queries": ["10", "01", "11"], "exclusions": [exclusion], **change}


@pytest.mark.parametrize("bad", [
    _small(m=0), _small(m=True), _small(queries=[]), _small(queries=["102"]), _small(exclusions=[]),
    _small(exclusion={"rows": [["01", "lo", 1.5, ["10", "10"]]]}),
    _small(exclusion={"rows": [["01", "lo", True, ["10", "10"]]]}),
    _small(exclusion={"rows": [["01", "lo", "1/0", ["10", "10"]]]}),
    _small(exclusion={"rows": [["01", "mid", 1, ["10", "10"]]]}),
    _small(exclusion={"rows": [["01", "lo", 1, ["1", "10"]]]}),
    _small(exclusion={"rows": [["01", "lo", 1]]}),
    _small(exclusion={"rows": []}),
    _small(exclusion={"ends": ["01"]}),
    _small(exclusion={"nonnegative": [["01", "11"]]}),
    _small(exclusion={"extra": 1}),
])
def test_malformed_data_is_refused(bad):
    with pytest.raises(ValueError):
        rank_two_betweenness(bad, "forall m, (2 <= m)%nat -> ~ solvable 2 m 3")


def test_a_statement_with_more_than_a_proposition_is_refused():
    with pytest.raises(ValueError):
        rank_two_betweenness(_small(), "True. Proof. exact I. Qed. Theorem x : True")
