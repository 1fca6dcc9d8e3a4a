"""Paper S's certificates checked by Coq: every exported kind compiles, a tampered one does not.

One check run of paper S's claims at small points (the session's ``paper_s_run``: residual_error,
residual_error_tanh, duality at one sample per size, row_scalar_quotient, spherical_law up to beta = 16,
certified_rank_bounds at n = 12) is exported with ``theorems.formal.export`` and compiled with
``theorems.formal.compile`` once per module (``exported``).  Then:

* every obligation whose judgment has a Coq counterpart here (the approximation-rank bounds, the residual
  bound and the two-point perturbations, duality, same and different attention, exact ranks, singular
  values above tau) has a file, and Coq accepts it — every obligation of residual_error,
  residual_error_tanh, duality and row_scalar_quotient among them;
* each kind's file, tampered where its check lives (a margin asked beyond the row's, an entry of B, a
  weight of the two-point row, a shifted logit, the inverse of a minor, a factor, a row of the
  approximation, the sign of a differing entry), is rejected by ``coqc``;
* an obligation is proved only by the certificate that proves that very judgment (the same digests):
  the statements name the certificate's own data.

Tests that need ``coqc`` skip without it, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from theorems import formal

from .conftest import coqc_or_skip

S_CLAIMS = ("softmax_rank.residual_error", "softmax_rank.residual_error_tanh", "softmax_rank.duality",
            "softmax_rank.row_scalar_quotient", "softmax_rank.spherical_law", "softmax_rank.certified_rank_bounds")
PARAMS = ("spherical_law:beta_max=16", "duality:samples=1", "certified_rank_bounds:n=12")
STATED = {"approx-rank-at-least", "approx-rank-at-most", "duality", "residual-two-point", "residual-within",
          "same-attention", "attention-differs", "rank-at-most", "rank-at-least", "singular-values-above"}


@pytest.fixture(scope="session")
def paper_s_run(tmp_path_factory) -> Path:
    from theorems.cli import main

    out = tmp_path_factory.mktemp("paper_s") / "out"
    args = ["check", *S_CLAIMS, "--out", str(out), "--json"]
    for p in PARAMS:
        args += ["--param", p]
    assert main(args) == 0
    return out


@pytest.fixture(scope="module")
def exported(paper_s_run, formal_built, tmp_path_factory):
    from theorems import verification

    result = verification.verify([str(paper_s_run)])
    assert result.ok
    folder = tmp_path_factory.mktemp("paper_s_coq") / "coq"
    done = formal.export(result, str(folder))
    formal.compile(done)
    return done


def test_every_stated_obligation_is_checked_by_coq(exported):
    stated = [o for o in exported.obligations if o.judgment.get("judgment") in STATED]
    assert len(stated) >= 40
    missing = [(o.outcome, o.judgment, o.reason) for o in stated if not o.file]
    assert not missing, missing[:3]
    rejected = [(o.file, o.certificate, o.error) for o in stated if not o.accepted]
    assert not rejected, rejected[:3]
    for claim in ("residual_error", "residual_error_tanh", "duality", "row_scalar_quotient"):  # every obligation
        mine = [o for o in exported.obligations if f"softmax_rank.{claim}" in o.outcome]
        assert mine and all(o.accepted for o in mine), claim
    # the beta <= 16 bounds of both geometric claims, both directions
    for claim in ("spherical_law", "certified_rank_bounds"):
        kinds = {o.judgment["judgment"] for o in exported.obligations
                 if f"softmax_rank.{claim}" in o.outcome and o.accepted}
        assert {"approx-rank-at-least", "approx-rank-at-most"} <= kinds, (claim, kinds)


def test_the_statements_are_those_of_sdefs(exported):
    seen = {o.judgment["judgment"]: o.statement for o in exported.obligations if o.file}
    assert seen["approx-rank-at-least"].startswith("on_sphere 2 (QR X) /\\ approx_rank_ge (attention w (gram_logits (Q2R beta) (QR X)))")
    assert seen["residual-two-point"].startswith("exists l e : list R, length e = length l /\\ Forall (fun x => Rabs x <= ln (Q2R (3 # 1)%Q)) e")
    assert seen["duality"] == "duality_holds (QR M)"
    assert seen["same-attention"] == "rowsoftmax (QR Sh) = rowsoftmax (QR L)"
    assert seen["residual-within"] == "residual_within (QR L) (QR Lk)"


def _file_of(done, kind_summary: str) -> Path:
    """The exported certificate file whose first line (the certificate's name and summary) matches."""
    for name in sorted(set(done.certificates.values())):
        if not name.startswith("c"):
            continue
        path = Path(done.folder) / f"{name}.v"
        if re.search(kind_summary, path.read_text().splitlines()[0]):
            return path
    raise AssertionError(f"no exported certificate matches {kind_summary!r}")


def _compile(done, path: Path, text: str, tmp_path) -> subprocess.CompletedProcess:
    """``coqc`` on ``text`` in a copy of the export folder (the module's export is never changed)."""
    copy = tmp_path / "coq"
    if not copy.exists():
        shutil.copytree(done.folder, copy)
    target = copy / path.name
    target.write_text(text)
    built = formal.build(2)
    return subprocess.run([coqc_or_skip(), "-q", "-R", built, "AttnProof", "-R", str(copy), "Cert", str(target)],
                          cwd=str(copy), capture_output=True, text=True, timeout=600)


def _flip_sign(text: str) -> str:
    """``Lemma entry : 0 < E.`` and ``or_introl`` become ``E < 0`` and ``or_intror`` (or the reverse)."""
    start = text.index("Lemma entry : ")
    end = text.index(".\nProof.", start)
    fact = text[start + len("Lemma entry : "):end]
    if fact.startswith("0 < "):
        flipped, intro = f"{fact[4:]} < 0", ("or_introl", "or_intror")
    else:
        flipped, intro = f"0 < {fact[:-4]}", ("or_intror", "or_introl")
    return (text[:start] + "Lemma entry : " + flipped + text[end:]).replace(*intro)


TAMPER = {
    # margins asked beyond what the rows have: eps 1/10 -> 9/10 everywhere (statement, data and each row's
    # numeric fact alike), so only Interval can refuse
    "lower": (r"approx-rank-lower-points.*rank_eps >= 3 at eps = 1/10 on instance .*points on S\^1",
              lambda t: t.replace("(1 # 10)", "(9 # 10)")),
    # one entry of B = F G: the product no longer equals the written B
    "upper": (r"approx-rank-upper-points.*rank_eps <= 3 at eps = 1/10",
              lambda t: re.sub(r"(Definition Bq : list \(list Q\) := \(\[\[)\((-?\d+) # (\d+)\)",
                               lambda m: f"{m.group(1)}({int(m.group(2)) + 1} # {m.group(3)})", t, count=1)),
    # the first two-point weight -> 1/2: below 1, so the perturbation leaves [-delta, delta] (the weights are the
    # list just before "vm_compute": whatever the search found, in file order or shuffled)
    "two-point": (r"exceeds: \|\|p - q\|\|_1",
                  lambda t: re.sub(r"\(\[\(-?\d+ # \d+\)((?:; \(-?\d+ # \d+\))*\]\)%Q\); vm_compute)", r"([(1 # 2)\1", t, count=1)),
    # one logit of the shifted matrix: that row of L' - L is no longer constant
    "row-shift": (r"the same attention", lambda t: re.sub(r"(Definition Sh : list \(list Q\) := \(\[\[)\((-?\d+) # (\d+)\)",
                                                          lambda m: f"{m.group(1)}({int(m.group(2)) + 1} # {m.group(3)})", t, count=1)),
    # one entry of the minor's inverse: C Y is no longer the identity
    "rank-lower": (r"rank >= 3", lambda t: re.sub(r"(Definition Y : list \(list Q\) := \(\[\[)\((-?\d+) # (\d+)\)",
                                                  lambda m: f"{m.group(1)}({int(m.group(2)) + 1} # {m.group(3)})", t, count=1)),
    # one entry of F: F G is no longer A
    "rank-upper": (r"rank <= 3", lambda t: re.sub(r"(Definition F : list \(list Q\) := \(\[\[)\((-?\d+) # (\d+)\)",
                                                  lambda m: f"{m.group(1)}({int(m.group(2)) + 1} # {m.group(3)})", t, count=1)),
    # the approximation loses an entry of its first row: the shapes differ
    "residual-bound": (r"within 2 tanh", lambda t: re.sub(r"(Definition Lk : list \(list Q\) := \(\[\[)\((-?\d+) # (\d+)\); ",
                                                          r"\1", t, count=1)),
    # the differing entry's sign reversed, consistently: Interval cannot prove the false inequality
    "attention-differs": (r"differ at", _flip_sign),
}


@pytest.mark.parametrize("which", sorted(TAMPER))
def test_each_kind_compiles_and_its_tampered_file_does_not(exported, tmp_path, which):
    pattern, change = TAMPER[which]
    path = _file_of(exported, pattern)
    text = path.read_text()
    assert _compile(exported, path, text, tmp_path).returncode == 0
    tampered = change(text)
    assert tampered != text, which
    ran = _compile(exported, path, tampered, tmp_path)
    assert ran.returncode != 0, which


def test_an_obligation_is_proved_only_by_the_certificate_of_its_own_instance():
    one = {"judgment": "approx-rank-at-least", "instance": "sha256:aa", "n": 3, "epsilon": "1/10", "bound": 3, "sphere": 2}
    other = one | {"instance": "sha256:bb"}
    assert formal.proposition(one) == formal.proposition(other)  # the same words, about each file's own data
    assert formal.bridge(one, one, "T") == "T"
    assert formal.bridge(one, other, "T") is None  # another instance's certificate proves nothing here
    assert formal.bridge(one, one | {"epsilon": "1/5"}, "T") is None
    assert formal.bridge(one | {"n": 3}, one | {"epsilon": "2/20"}, "T") == "T"  # the same rational, spelled otherwise


def test_judgments_without_a_coq_counterpart_say_so():
    for judgment in ({"judgment": "approx-rank-at-least", "instance": "x", "n": 3, "epsilon": "1/10", "bound": 3, "ball": 2},
                     {"judgment": "approx-rank-at-most-every", "family": "circle", "beta_up_to": 16, "epsilon": "1/10", "bound": 57},
                     {"judgment": "residual-two-point", "t": 3, "bound": "tanh(2delta)", "relation": "exceeds"},
                     {"judgment": "duality", "matrix": "x", "extra": 1}):
        assert formal.proposition(judgment) is None, judgment
