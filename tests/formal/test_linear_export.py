"""The Coq export of ``rank-one-infeasible`` certificates (theorems/formal/linear.py).

The real certificates of K3 (three_token_lower_bound), K5 (position_and_causal) and
rank_two at their default points (the session's check run, conftest's ``paper_k_run``)
are written as Coq files and compiled against ``formal/`` (built once per session into
the cache, conftest's ``formal_built``): each is accepted.  Tampered ones (a
multiplier changed, a row dropped, a token changed; for K3 also a negative or a
halved multiplier; a statement of another m, length, model or rank) make ``coqc`` fail; the trusted Python
checker rejects the same tampered data, so the two checkers agree on them.

Tests that need ``coqc`` skip without it, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import copy

import pytest

import solvers.trusted.linear  # noqa: F401  (registers the linear kinds)
from solvers.trusted.core import CertificateError, check
from theorems.formal.linear import rank_one_infeasible

from .conftest import compile_v, run_certificates

MODULES = ["three_token_lower_bound", "position_and_causal", "rank_two"]


@pytest.fixture(scope="module")
def certificates(paper_k_run) -> list[tuple[str, dict]]:
    """(claim/file name, envelope) of every rank-one-infeasible certificate of MODULES at their default points
    (the session's check run)."""
    return run_certificates(paper_k_run, MODULES, ("rank-one-infeasible",))


def _statement(data: dict) -> str:
    n = len(data["rows"][0][2])
    model = "psolvable" if data["positions"] else "solvable"
    return f"forall m, ({data['m']} <= m)%nat -> ~ {model} 1 m {n}"


def _python_accepts(cert: dict, data: dict) -> bool:
    try:
        check({**cert, "data": data})
    except CertificateError:
        return False
    return True


def test_the_check_run_holds_the_expected_certificates(certificates):
    claims = {name.split("/")[0] for name, _ in certificates}
    assert claims == {f"kernel_rank.{m}" for m in MODULES}
    shapes = {(c["data"]["positions"], len(c["data"]["rows"][0][2])) for _, c in certificates}
    assert (False, 3) in shapes and {(True, n) for n in range(3, 11)} <= shapes


def test_every_certificate_compiles(certificates, formal_built, tmp_path):
    for i, (name, cert) in enumerate(certificates):
        data = cert["data"]
        source = rank_one_infeasible(data, _statement(data))
        assert "Admitted" not in source and "vm_compute; reflexivity" in source
        done = compile_v(formal_built, tmp_path, f"cert{i}", source)
        assert done.returncode == 0, f"{name}: {done.stdout}{done.stderr}"


def _k3(certificates) -> dict:
    return next(c for name, c in certificates if name.startswith("kernel_rank.three_token_lower_bound"))


def _k5(certificates, n: int) -> dict:
    return next(c for name, c in certificates
                if c["data"]["positions"] and len(c["data"]["rows"][0][2]) == n and len(c["data"]["rows"]) == 8
                and name.startswith("kernel_rank.position_and_causal"))


def _tampered(cert: dict, every: bool) -> list[tuple[str, dict]]:
    data = cert["data"]
    out = []
    d = copy.deepcopy(data)
    d["rows"][1][1] = 3 if d["rows"][1][1] != 3 else 1
    out.append(("multiplier", d))
    d = copy.deepcopy(data)
    del d["rows"][-1]
    out.append(("dropped row", d))
    d = copy.deepcopy(data)
    first = d["rows"][0][2][0]
    d["rows"][0][2][0] = "1" * len(first) if first != "1" * len(first) else "0" * len(first)
    out.append(("token", d))
    if not every:
        return out
    d = copy.deepcopy(data)
    d["rows"][0][1] = -1
    out.append(("negative multiplier", d))
    d = copy.deepcopy(data)
    d["rows"][0][1] = "1/2"
    out.append(("halved multiplier", d))
    return out


@pytest.mark.parametrize("which", ["k3", "k5_n3", "k5_n7"])
def test_tampered_certificates_fail_in_coq_and_in_python(certificates, formal_built, tmp_path, which):
    cert = _k3(certificates) if which == "k3" else _k5(certificates, int(which[-1]))
    for label, data in _tampered(cert, every=which == "k3"):
        assert not _python_accepts(cert, data), label
        done = compile_v(formal_built, tmp_path, f"tampered_{label.replace(' ', '_')}", rank_one_infeasible(data, _statement(data)))
        assert done.returncode != 0, f"{which}, {label}: coqc accepted a tampered certificate"


def test_a_statement_that_does_not_match_the_data_fails(certificates, formal_built, tmp_path):
    data = _k3(certificates)["data"]
    for i, statement in enumerate(["forall m, (3 <= m)%nat -> ~ solvable 1 m 3",      # another m
                                   "forall m, (4 <= m)%nat -> ~ solvable 1 m 4",      # another length
                                   "forall m, (4 <= m)%nat -> ~ psolvable 1 m 3",     # another model
                                   "forall m, (4 <= m)%nat -> ~ solvable 2 m 3"]):    # another rank
        done = compile_v(formal_built, tmp_path, f"statement{i}", rank_one_infeasible(data, statement))
        assert done.returncode != 0, statement
    # the matching statement, for contrast
    assert compile_v(formal_built, tmp_path, "statement_ok", rank_one_infeasible(data, _statement(data))).returncode == 0


def test_the_source_shape():
    data = {"m": 2, "positions": True, "rows": [["lo", "3/6", ["10", "01"]], ["hi", 2, ["11", "01"]]],
            "nonnegative": [[1, "10", "1/3"]]}
    source = rank_one_infeasible(data, "forall m, (2 <= m)%nat -> ~ psolvable 1 m 2")
    assert source.startswith("From Coq Require Import List QArith.\nFrom AttnProof Require Import KDefs KTable KLower.\n")
    assert "(lo, (1 # 2)%Q, [[true; false]; [false; true]])" in source
    assert "(hi, (2 # 1)%Q, [[true; true]; [false; true]])" in source
    assert "rc_nonneg := [(1%nat, [true; false], (1 # 3)%Q)]" in source
    assert source.rstrip().endswith(
        "Theorem judgment : forall m, (2 <= m)%nat -> ~ psolvable 1 m 2.\n"
        "Proof. apply (rank_one_infeasible_positional cert); vm_compute; reflexivity. Qed.")


@pytest.mark.parametrize("bad", [
    {"rows": [["lo", 1.5, ["10", "01"]]]},
    {"rows": [["lo", True, ["10", "01"]]]},
    {"rows": [["lo", "1/0", ["10", "01"]]]},
    {"rows": [["lo", "1.5", ["10", "01"]]]},
    {"rows": [["mid", 1, ["10", "01"]]]},
    {"rows": [["lo", 1, ["102", "01"]]]},
    {"rows": [["lo", 1, ["1", "01"]]]},
    {"rows": []},
    {"positions": 1},
    {"nonnegative": [[-1, "10", 1]]},
])
def test_malformed_data_is_refused(bad):
    data = {"m": 2, "positions": False, "rows": [["lo", 1, ["10", "01"]]], "nonnegative": [], **bad}
    with pytest.raises(ValueError):
        rank_one_infeasible(data, "forall m, (2 <= m)%nat -> ~ solvable 1 m 2")


def test_a_statement_with_more_than_a_proposition_is_refused():
    data = {"m": 2, "positions": False, "rows": [["lo", 1, ["10", "01"]]], "nonnegative": []}
    with pytest.raises(ValueError):
        rank_one_infeasible(data, "True. Proof. exact I. Qed. Theorem x : True")
