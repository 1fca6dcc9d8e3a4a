"""The Coq export of ``exhaustive`` and ``rank-one-positional-witness`` certificates (theorems/formal/evaluation.py).

The real certificates of a default check of three_token_lower_bound,
position_and_causal and rank_one_short (rank_one_short's m = 7 head: 128 tokens,
lengths 1 and 2, tolerance 0; the session's check run, conftest's ``paper_k_run``) are
written as Coq files and compiled against ``formal/`` (built once per session into the
cache, conftest's ``formal_built``): each is accepted.
Tampered data (a readout entry changed by a lot, a negative psi, kappa(q, q) = 0,
a table of the wrong size) and statements the data does not prove (another rank, a
smaller tolerance, a length of the wrong kind) make ``coqc`` fail; the trusted Python
checker rejects the same tampered data.

Tests that need ``coqc`` skip without it, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

import solvers.trusted.evaluation  # noqa: F401  (registers the evaluation kinds)
from solvers.trusted.core import CertificateError, check
from theorems.formal.evaluation import exhaustive, positional_witness

from .conftest import compile_v, run_certificates

MODULES = ["three_token_lower_bound", "position_and_causal", "rank_one_short"]


@pytest.fixture(scope="module")
def certificates(paper_k_run) -> list[tuple[str, dict]]:
    """(claim/file name, envelope) of every exhaustive and positional-witness certificate of MODULES at their
    default points (the session's check run)."""
    return run_certificates(paper_k_run, MODULES, ("exhaustive", "rank-one-positional-witness"))


def _statement(kind: str, data: dict) -> str:
    """The statement the dispatcher derives from a certificate's judgment."""
    if kind == "rank-one-positional-witness":
        which = "csolvable" if data["prefixes"] else "psolvable"
        return f"{which} 1 {data['m']} {len(data['psi'])}"
    rank, m, lengths, tol = len(data["phi"][0]), data["m"], data["lengths"], Fraction(data["tolerance"])
    if tol == Fraction(1, 2) and len(lengths) == 1:
        return f"solvable {rank} {m} {lengths[0]}"
    conjuncts = " /\\ ".join(f"solves_within (Q2R ({tol.numerator}#{tol.denominator})) {m} {n} h" for n in lengths)
    return f"(exists h : head {rank}, {conjuncts})"


def _export(kind: str, data: dict, statement: str | None = None) -> str:
    statement = statement or _statement(kind, data)
    return (positional_witness if kind == "rank-one-positional-witness" else exhaustive)(data, statement)


def _one(certificates, claim: str, kind: str, **fields) -> dict:
    for name, cert in certificates:
        if name.startswith(f"kernel_rank.{claim}/") and cert["kind"] == kind and all(
                (len(cert["data"]["psi"]) if k == "n" else cert["data"][k]) == v for k, v in fields.items()):
            return cert
    raise AssertionError(f"no {kind} certificate of {claim} with {fields}")


def _python_rejects(cert: dict, data: dict) -> None:
    with pytest.raises(CertificateError):
        check({**cert, "data": data})


def test_the_run_has_the_certificates_the_export_is_for(certificates):
    kinds = [(name.split("/")[0], cert["kind"]) for name, cert in certificates]
    assert kinds.count(("kernel_rank.three_token_lower_bound", "exhaustive")) == 3
    assert kinds.count(("kernel_rank.position_and_causal", "rank-one-positional-witness")) == 9
    assert ("kernel_rank.rank_one_short", "exhaustive") in kinds


@pytest.fixture(scope="module")
def compiled(formal_built, certificates, tmp_path_factory) -> dict[str, tuple[str, object]]:
    """Every real certificate exported with the statement its data proves, and ``coqc`` run on it once for the
    module: ``{claim/file name: (source, completed process)}``."""
    folder = tmp_path_factory.mktemp("eval_export")
    found = {}
    for i, (name, cert) in enumerate(certificates):
        source = _export(cert["kind"], cert["data"])
        found[name] = (source, compile_v(formal_built, folder, f"cert{i}", source))
    return found


def test_every_real_certificate_compiles(certificates, compiled):
    assert sorted(compiled) == sorted(name for name, _ in certificates)
    failures = [f"{name}: {done.stdout}{done.stderr}" for name, (_, done) in compiled.items() if done.returncode != 0]
    assert not failures, "\n".join(failures)


def test_the_exported_file_is_thin(certificates):
    cert = _one(certificates, "three_token_lower_bound", "exhaustive", m=3)
    text = _export("exhaustive", cert["data"])
    proof = text.split("Proof.")[1].split("Qed.")[0].split()
    assert proof[0] == "apply" and proof[1] == "(exhaustive_solvable"
    assert proof[-2:] == ["vm_compute.", "reflexivity."] and len(proof) == 12
    assert "Theorem judgment : solvable 1 3 3." in text
    for word in ("Admitted", "admit", "Axiom", "Parameter", "Hypothesis", "lra", "lia", "intros"):
        assert word not in text


def test_the_rank_one_short_head_at_m7_compiles_with_tolerance_zero(formal_built, certificates, compiled, tmp_path):
    cert = _one(certificates, "rank_one_short", "exhaustive", m=7)
    assert cert["data"]["lengths"] == [1, 2] and Fraction(cert["data"]["tolerance"]) == 0
    statement = _statement("exhaustive", cert["data"])
    assert statement == "(exists h : head 1, solves_within (Q2R (0#1)) 7 1 h /\\ solves_within (Q2R (0#1)) 7 2 h)"
    # this very file is among those the module compiled once (compiled): coqc's answer to it is read there
    [(source, done)] = [compiled[name] for name, c in certificates if c is cert]
    assert source == _export("exhaustive", cert["data"], statement)
    assert done.returncode == 0, done.stdout + done.stderr
    # one readout entry off by 1/2: error 1/2 on some sequence, not 0 (tolerance 0 is exact)
    bad = copy.deepcopy(cert["data"])
    bad["readout"][5][3] = str(Fraction(bad["readout"][5][3]) + Fraction(1, 2))
    _python_rejects(cert, bad)
    assert compile_v(formal_built, tmp_path, "short_bad", _export("exhaustive", bad, statement)).returncode != 0


def test_a_changed_readout_entry_is_refused(formal_built, certificates, tmp_path):
    cert = _one(certificates, "three_token_lower_bound", "exhaustive", m=3)
    bad = copy.deepcopy(cert["data"])
    bad["readout"][1][1] = str(Fraction(bad["readout"][1][1]) + 10)
    _python_rejects(cert, bad)
    assert compile_v(formal_built, tmp_path, "k3_bad_u", _export("exhaustive", bad)).returncode != 0


def test_kappa_zero_on_the_diagonal_is_refused(formal_built, certificates, tmp_path):
    cert = _one(certificates, "three_token_lower_bound", "exhaustive", m=1)
    bad = copy.deepcopy(cert["data"])
    bad["psi"][1] = [0]
    _python_rejects(cert, bad)
    assert compile_v(formal_built, tmp_path, "k3_zero_kappa", _export("exhaustive", bad)).returncode != 0


def test_a_negative_feature_is_refused(formal_built, certificates, tmp_path):
    cert = _one(certificates, "three_token_lower_bound", "exhaustive", m=2)
    bad = copy.deepcopy(cert["data"])
    bad["phi"][2] = [-1]  # phi < 0 on one query (its outputs are unchanged: phi cancels)
    _python_rejects(cert, bad)
    assert compile_v(formal_built, tmp_path, "k3_neg_phi", _export("exhaustive", bad)).returncode != 0


def test_a_missing_row_is_refused(formal_built, certificates, tmp_path):
    cert = _one(certificates, "three_token_lower_bound", "exhaustive", m=2)
    bad = copy.deepcopy(cert["data"])
    del bad["readout"][-1]
    assert compile_v(formal_built, tmp_path, "k3_short_table", _export("exhaustive", bad)).returncode != 0


def test_a_statement_the_data_does_not_prove_is_refused(formal_built, certificates, tmp_path):
    cert = _one(certificates, "three_token_lower_bound", "exhaustive", m=2)
    data = cert["data"]
    # another rank than the data's
    assert compile_v(formal_built, tmp_path, "k3_rank2", _export("exhaustive", data, "solvable 2 2 3")).returncode != 0
    # a smaller tolerance than the worst error 781/1750
    tighter = "exists h : head 1, solves_within (Q2R (2#5)) 2 3 h"
    assert compile_v(formal_built, tmp_path, "k3_tighter", _export("exhaustive", data, tighter)).returncode != 0
    # the same tolerance as the certificate's is proved
    same = "exists h : head 1, solves_within (Q2R (1#2)) 2 3 h"
    done = compile_v(formal_built, tmp_path, "k3_same", _export("exhaustive", data, same))
    assert done.returncode == 0, done.stdout + done.stderr
    with pytest.raises(ValueError):
        _export("exhaustive", data, "solvable 1 2 4")  # a length the certificate does not list
    with pytest.raises(ValueError):
        _export("exhaustive", data, "solvable 1 3 3")  # another m
    with pytest.raises(ValueError):
        _export("exhaustive", data, "~ solvable 1 2 3")


def test_a_changed_positional_readout_is_refused(formal_built, certificates, tmp_path):
    cert = _one(certificates, "position_and_causal", "rank-one-positional-witness", m=3, n=3, prefixes=False)
    bad = copy.deepcopy(cert["data"])
    q = 5
    bad["readout"][-1][q][q] = str(Fraction(bad["readout"][-1][q][q]) + 2)  # U_n[q][q] + 2
    _python_rejects(cert, bad)
    assert compile_v(formal_built, tmp_path, "pos_bad_u", _export(cert["kind"], bad)).returncode != 0


def test_a_negative_positional_psi_is_refused(formal_built, certificates, tmp_path):
    cert = _one(certificates, "position_and_causal", "rank-one-positional-witness", m=2, n=3, prefixes=True)
    bad = copy.deepcopy(cert["data"])
    bad["psi"][0][1] = -1
    _python_rejects(cert, bad)
    assert compile_v(formal_built, tmp_path, "causal_neg_psi", _export(cert["kind"], bad)).returncode != 0


def test_a_positional_statement_of_the_wrong_kind_or_length_is_refused(formal_built, certificates, tmp_path):
    cert = _one(certificates, "position_and_causal", "rank-one-positional-witness", m=2, n=4, prefixes=False)
    with pytest.raises(ValueError):
        _export(cert["kind"], cert["data"], "csolvable 1 2 4")  # not a prefixes certificate
    # the statement's length is checked by Coq against the number of psi rows
    assert compile_v(formal_built, tmp_path, "pos_len", _export(cert["kind"], cert["data"], "psolvable 1 2 3")).returncode != 0
