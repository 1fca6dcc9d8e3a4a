"""Shared by the tests of the Coq layer: coqc (skipped without it, except under CI=true) and formal/ built once."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


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
