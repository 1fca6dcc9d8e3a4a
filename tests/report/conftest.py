import os

import pytest

from theorems import core
from theorems.cli import main

from .toy import CLAIMS

TOYS = [c.id for c in CLAIMS]
SMALL = ["--param", "diagonal_rank:n=3"]


@pytest.fixture(scope="package", autouse=True)
def toys():
    """The two test claims, installed for the report's tests only (removed after them).

    Registered here, and named in ``$ATTNPROOF_CLAIMS`` for the binding stage of
    ``verify``, which runs in a process of its own and finds claims as a user's would.
    """
    core.registry()  # discover the built-in claims first
    for claim in CLAIMS:
        core.register(claim)
    before = os.environ.get(core.MODULES_VARIABLE)
    os.environ[core.MODULES_VARIABLE] = "tests.report.toy"
    yield CLAIMS
    if before is None:
        os.environ.pop(core.MODULES_VARIABLE, None)
    else:
        os.environ[core.MODULES_VARIABLE] = before
    for claim in CLAIMS:
        core._REGISTRY.pop(claim.id, None)


@pytest.fixture(scope="package")
def outcomes(toys, tmp_path_factory):
    """The two test claims checked (a fraction of a second)."""
    out = tmp_path_factory.mktemp("outcomes") / "latest"
    assert main(["check", *TOYS, *SMALL, "--jobs", "1", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="package")
def site(outcomes, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "site"
    assert main(["report", "--outcomes", str(outcomes), "--out", str(out)]) == 0
    return out
