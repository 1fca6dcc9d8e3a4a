import pytest

from theorems.cli import main

FINISHED = ["kernel_rank.rank_one_short", "kernel_rank.softmax_three_tokens"]
SMALL = ["--param", "rank_one_short:m=3", "--param", "m_statistic=20",
         "--param", "softmax_three_tokens:m=20", "--param", "m_tables=2", "--param", "m_rank=3", "--param", "n_max=6"]


@pytest.fixture(scope="session")
def outcomes(tmp_path_factory):
    """The two finished claims checked at small parameters (each well under a second)."""
    out = tmp_path_factory.mktemp("outcomes") / "latest"
    assert main(["check", *FINISHED, *SMALL, "--jobs", "1", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="session")
def site(outcomes, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "site"
    assert main(["report", "--outcomes", str(outcomes), "--out", str(out)]) == 0
    return out
