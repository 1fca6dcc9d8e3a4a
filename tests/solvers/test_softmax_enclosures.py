"""Floats propose, arb decides near the threshold: the float shortcut gives the answers arb gives."""

from fractions import Fraction

import numpy as np
import pytest

from solvers import softmax_enclosures as E
from theorems.softmax_rank import _definitions as D


def instance(seed: int, n: int = 24, beta: int = 12):
    rng = np.random.default_rng(seed)
    points = [(Fraction(int(a), 16), Fraction(int(b), 16)) for a, b in rng.integers(-11, 12, size=(n, 2))]
    m = [int(v) for v in rng.integers(1, 5, size=n)]
    L = E.ScaledLogits.self_attention(points, Fraction(beta))
    return L, m, E.attention_floats(L.floats(), m)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grouped_margins_with_floats_keep_the_rows_arb_keeps(seed, monkeypatch):
    L, m, A = instance(seed)
    rows = list(range(0, A.shape[0], 2))
    groups = D.voronoi_groups(A, rows)
    floats = D.grouped_margins(A, rows, groups)
    # eps at a row's own float margin puts that row in doubt (decided in arb); others are clear
    for eps in (Fraction(1, 10), Fraction(sorted(floats)[len(floats) // 2]).limit_denominator(10**12)):
        if not 0 < eps < 1:
            continue
        fast = E.grouped_margins(L, m, eps, rows, groups, floats=floats)
        monkeypatch.setattr(E, "DOUBT", 10.0)  # every row in doubt: arb alone, as without floats
        slow = E.grouped_margins(L, m, eps, rows, groups, floats=floats)
        monkeypatch.undo()
        assert fast["certain"] == slow["certain"] == E.grouped_margins(L, m, eps, rows, groups)["certain"]


@pytest.mark.parametrize("seed", [0, 3])
def test_the_svd_search_finds_the_k_and_factors_arb_finds(seed, monkeypatch):
    L, m, A = instance(seed, n=30, beta=20)
    eps = Fraction(1, 10)
    fast = E.search_svd_upper(L, m, eps, 30, 30, A)
    monkeypatch.setattr(E, "DOUBT", 10.0)  # every float answer in doubt: each k decided in arb
    slow = E.search_svd_upper(L, m, eps, 30, 30, A)
    assert fast is not None and fast == slow
    k, F, G = fast
    assert all(e < E._arb(eps) for e in E.row_errors(L, m, F, G, 60))
