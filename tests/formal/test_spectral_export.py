"""The Coq export of ``visible-dimension`` certificates (theorems/formal/softmax.py, formal/SSpectral.v).

One check run of residual_error (tau = 1/2: counts 0 and 2) and row_scalar_quotient (tau = 0: the rank of
L P, five heads) at their default points.  Every visible-dimension certificate is written as a Coq file
stating ``sv_count (centered (QR L)) (Q2R tau) count`` (``#{i : sigma_i(L P) > tau} = count`` in SDefs'
words) and compiled against ``formal/``: each is accepted.  Broken ones are rejected by ``coqc``: the count
changed by one (the same hints, or a file whose statement alone says another count), a vector of V or of W
tampered with, another tau; and the exporter refuses (ValueError, "not exported") what it cannot certify,
e.g. a count beyond the rank, where the trusted Python checker rejects the same data.  The soundness
theorems rest only on the standard reals' axioms.

Tests that need ``coqc`` skip without it, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

import solvers.trusted.ranks  # noqa: F401  (registers the kind visible-dimension)
from solvers.trusted.core import CertificateError, check
from theorems import formal
from theorems.formal import softmax

from .conftest import compile_v

CLAIMS = ("softmax_rank.residual_error", "softmax_rank.row_scalar_quotient")
STANDARD = ["ClassicalDedekindReals.sig_forall_dec", "FunctionalExtensionality.functional_extensionality_dep"]
SOUNDNESS = ("sv_ge_sound", "sv_le_sound", "sv_sound", "sv_count_sound")


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    from theorems.cli import main

    out = tmp_path_factory.mktemp("spectral") / "out"
    assert main(["check", *CLAIMS, "--out", str(out), "--json"]) == 0
    return out


@pytest.fixture(scope="module")
def certificates(run) -> list[tuple[str, dict]]:
    """(claim/file, envelope) of every visible-dimension certificate of the run, in path order."""
    found = []
    for path in sorted(run.glob("softmax_rank.*/default/*.cert.json")):
        cert = json.loads(path.read_text())
        if cert["kind"] == "visible-dimension":
            found.append((f"{path.parent.parent.name}/{path.name}", cert))
    return found


def _statement(cert: dict) -> str:
    """The Coq statement of what the trusted checker says the certificate proves."""
    statement = softmax.proposition(check(cert).judgment)
    assert statement is not None
    return statement


def _pick(certificates, tau: str, count: int) -> dict:
    return next(c for _, c in certificates if str(c["data"]["tau"]) == tau and c["data"]["count"] == count)


def _python_accepts(cert: dict, data: dict) -> bool:
    try:
        check({**cert, "data": data})
    except CertificateError:
        return False
    return True


def test_the_statement_of_a_judgment():
    judgment = {"judgment": "singular-values-above", "logits": "sha256:00", "tau": "1/2", "count": 2}
    assert softmax.proposition(judgment) == "sv_count (centered (QR L)) (Q2R (1 # 2)%Q) 2"
    assert formal.proposition(judgment) == softmax.proposition(judgment)
    assert softmax.proposition({**judgment, "tau": 0, "count": 0}) == "sv_count (centered (QR L)) (Q2R (0 # 1)%Q) 0"
    assert softmax.proposition({**judgment, "extra": 1}) is None
    assert softmax.proposition({**judgment, "count": -1}) is None
    assert softmax.proposition({**judgment, "count": True}) is None
    assert softmax.proposition({**judgment, "tau": 0.5}) is None
    assert formal.EXPORTERS["visible-dimension"] is softmax.visible_dimension


def test_the_run_holds_the_expected_certificates(certificates):
    shapes = sorted((name.split("/")[0], str(c["data"]["tau"]), c["data"]["count"]) for name, c in certificates)
    assert shapes == sorted([("softmax_rank.residual_error", "1/2", 0), ("softmax_rank.residual_error", "1/2", 2)]
                            + [("softmax_rank.row_scalar_quotient", "0", k) for k in (1, 1, 1, 2, 2)])


def test_every_certificate_exports_and_compiles(certificates, formal_built, tmp_path):
    for i, (name, cert) in enumerate(certificates):
        statement = _statement(cert)
        source = softmax.visible_dimension(cert["data"], statement)
        assert f"Theorem judgment : {statement}." in source
        ran = compile_v(formal_built, tmp_path, f"sv{i}", source)
        assert ran.returncode == 0, (name, ran.stderr[-2000:])


def test_the_export_writes_each_certificate_and_its_obligations(run, tmp_path):
    from theorems import verification

    result = verification.verify([str(run)])
    assert result.ok
    done = formal.export(result, str(tmp_path / "coq"))
    written = {path: name for path, name in done.certificates.items() if "visible-dimension" in path}
    assert len(written) == 7 and all(re.fullmatch(r"c\d{4}", name) for name in written.values()), written
    stated = [o for o in done.obligations if o.statement.startswith("sv_count")]
    assert stated and all(o.statement.startswith("sv_count (centered (QR L))") for o in stated)


def _exported(cert: dict) -> str:
    return softmax.visible_dimension(cert["data"], _statement(cert))


def _retell(source: str, old: int, new: int) -> str:
    """The same hints with the count ``old`` replaced by ``new`` in the statement and in the proof."""
    head, _, proof = source.partition("Theorem judgment : ")
    proof = re.sub(rf"\) {old}\.\n", f") {new}.\n", proof, count=1)
    proof = re.sub(rf"%Q {old} Vs ", f"%Q {new} Vs ", proof, count=1)
    assert f") {new}.\n" in proof and f" {new} Vs " in proof
    return head + "Theorem judgment : " + proof


@pytest.mark.parametrize("tau,count", [("0", 2), ("1/2", 2)])
def test_a_count_changed_by_one_fails(certificates, formal_built, tmp_path, tau, count):
    cert = _pick(certificates, tau, count)
    source = _exported(cert)
    for new in (count - 1, count + 1):
        data = {**cert["data"], "count": new}
        assert not _python_accepts(cert, data)
        with pytest.raises(ValueError):  # no hints certify the wrong count: "not exported"
            softmax.visible_dimension(data, _statement(cert).rsplit(" ", 1)[0] + f" {new}")
        ran = compile_v(formal_built, tmp_path, f"count{new}", _retell(source, count, new))
        assert ran.returncode != 0, (tau, count, new)
        # the statement alone changed: the proof is of the true count, the theorem says another
        alone = source.replace(f"Theorem judgment : {_statement(cert)}.",
                               f"Theorem judgment : {_statement(cert).rsplit(' ', 1)[0]} {new}.")
        ran = compile_v(formal_built, tmp_path, f"alone{new}", alone)
        assert ran.returncode != 0, (tau, count, new)


def _tamper_vector(source: str, name: str) -> str:
    """The first entry of the first vector of ``name`` (Vs or Ws) increased by one."""
    line = next(l for l in source.splitlines() if l.startswith(f"Definition {name} "))
    p, q = map(int, re.search(r"\[\[\((-?\d+) # (\d+)\)", line).groups())
    tampered = line.replace(f"[[({p} # {q})", f"[[({p + q} # {q})", 1)
    return source.replace(line, tampered)


@pytest.mark.parametrize("tau,count,name", [("0", 2, "Vs"), ("0", 2, "Ws"), ("1/2", 2, "Vs"), ("1/2", 0, "Ws")])
def test_a_tampered_vector_fails(certificates, formal_built, tmp_path, tau, count, name):
    source = _exported(_pick(certificates, tau, count))
    tampered = _tamper_vector(source, name)
    assert tampered != source
    ran = compile_v(formal_built, tmp_path, f"tamper{name}", tampered)
    assert ran.returncode != 0


def test_another_tau_fails(certificates, formal_built, tmp_path):
    cert = _pick(certificates, "1/2", 2)
    source = _exported(cert).replace("(1 # 2)%Q", "(1 # 3)%Q")  # the statement and the proof alike
    ran = compile_v(formal_built, tmp_path, "tau", source)
    assert ran.returncode != 0


def test_the_soundness_theorems_rest_only_on_the_standard_reals_axioms(formal_built, tmp_path):
    source = "From AttnProof Require Import SSpectral.\n" + "".join(f"Print Assumptions {n}.\n" for n in SOUNDNESS)
    ran = compile_v(formal_built, tmp_path, "assumptions_sv", source)
    assert ran.returncode == 0, ran.stderr
    blocks = ran.stdout.split("Axioms:")[1:]
    assert len(blocks) == len(SOUNDNESS), ran.stdout
    for name, block in zip(SOUNDNESS, blocks):
        listed = [line.split(" : ")[0].strip() for line in block.splitlines() if line and not line.startswith(" ") and line.strip()]
        assert listed == STANDARD, (name, listed)


def test_the_definitions_are_appended_without_proof():
    code = re.sub(r"\(\*.*?\*\)", " ", (Path(formal.FORMAL) / "SDefs.v").read_text(encoding="utf-8"), flags=re.S)
    for name in ("centered", "sv_count_ge", "sv_count_le", "sv_count"):
        assert f"Definition {name} " in code
    assert not re.search(r"\b(Proof|Qed|Lemma|Theorem|Defined|Admitted|Axiom|Parameter|Hypothesis)\b", code)
    spectral = re.sub(r"\(\*.*?\*\)", " ", (Path(formal.FORMAL) / "SSpectral.v").read_text(encoding="utf-8"), flags=re.S)
    assert not re.search(r"\b(Admitted|admit|Axiom|Parameter|Hypothesis)\b", spectral)
