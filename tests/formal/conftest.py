"""Shared by the tests of the Coq layer: coqc (skipped without it, except under CI=true), formal/ built once,
and one check run of paper K's claims whose certificates every test reads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

# The claims whose certificates the tests of the Coq layer export, compile and tamper with; rank_two at
# m = 4 (its default point) and m = 5 (the rank-two-betweenness certificate).
PAPER_K = ("three_token_lower_bound", "position_and_causal", "rank_one_short", "rank_two")


def coqc_or_skip() -> str:
    """The coqc to run; a test that needs it skips without it, and fails under CI=true (where .ci/run installs it)."""
    found = shutil.which("coqc")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("coqc is not installed, and CI=true: .ci/run installs Debian's coq packages")
    pytest.skip("coqc is not installed (apt-get install -y coq libcoq-interval libcoq-mathcomp-ssreflect)")


@pytest.fixture(scope="session")
def formal_built() -> str:
    """The whole of formal/, compiled once per digest of its sources (theorems.formal.build's cache)."""
    coqc_or_skip()
    from theorems import formal

    return formal.build(2)


def compile_v(built: str, folder, name: str, source: str, *extra: str) -> subprocess.CompletedProcess:
    """``coqc`` on ``source`` written as ``folder/name.v``, against the built formal/ (logical path AttnProof)."""
    path = os.path.join(str(folder), f"{name}.v")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    return subprocess.run([coqc_or_skip(), "-q", "-R", built, "AttnProof", *extra, path], cwd=str(folder),
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="session")
def paper_k_run(tmp_path_factory) -> Path:
    """One ``attnproof check`` of :data:`PAPER_K` at their default points, rank_two also at m = 5, for the
    whole session: ``out/kernel_rank.<claim>/default/`` and ``out/kernel_rank.rank_two/m=5/``.  Tests read it
    and never write into it (:func:`run_certificates` returns copies)."""
    from theorems.cli import main

    out = tmp_path_factory.mktemp("paper_k") / "out"
    assert main(["check", *PAPER_K, "--param", "rank_two:m=4,5", "--out", str(out), "--json"]) == 0
    return out


def run_certificates(run: Path, claims, kinds, point: str = "default") -> list[tuple[str, dict]]:
    """``(kernel_rank.<claim>/<file>, envelope)`` of every certificate of one of ``kinds`` at ``point`` of
    one of ``claims`` in ``run``, in the order of their paths (each envelope read afresh: a test may change it)."""
    paths = sorted(p for claim in claims for p in Path(run).glob(f"kernel_rank.{claim}/{point}/*.cert.json"))
    found = []
    for path in paths:
        cert = json.loads(path.read_text())
        if cert["kind"] in kinds:
            found.append((f"{path.parent.parent.name}/{path.name}", cert))
    return found
