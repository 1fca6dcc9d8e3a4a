"""Work estimates keep pace with the work: a grown certificate is estimated at least as dear as it is.

Structural, never timed: the operations a check must do are counted from the
data (entries read, products of a matrix product, sign vectors walked) and the
estimate is required to be at least that count and to grow at least as fast as
it when a certificate is grown (rows repeated, numbers lengthened).  The
calibration to seconds is measured in ``bench/trusted_work.py``.
"""

from fractions import Fraction

import pytest

from solvers.trusted import core, families  # noqa: F401  (families registers every kind)
from solvers.trusted.core import encode


def cert(kind, data):
    return {"format": core.FORMAT, "version": core.VERSION, "kind": kind, "claim": "test.claim",
            "statement": "0" * 64, "parameters": {}, "data": encode(data)}


def estimate(c) -> int:
    return core.KINDS[c["kind"]][1](c["data"])


def leaves(value) -> int:
    """Numbers and strings in the data: each is read (strictly) at least once."""
    if isinstance(value, dict):
        return sum(leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(leaves(v) for v in value)
    return 1


F = [[1, 2], [Fraction(1, 3), -1], [0, 5]]
G = [[1, 0, Fraction(2, 7), 1], [3, 1, 1, Fraction(-1, 2)]]


def product(F, G):
    return [[sum(a * b for a, b in zip(row, col)) for col in zip(*G)] for row in F]


def rank_upper(k: int = 1, scale: int = 1):
    """``A = F G`` tiled k times vertically, F scaled by ``scale`` and G by ``1/scale`` (same product)."""
    left = [[a * scale for a in row] for row in F] * k
    right = [[Fraction(b) / scale for b in row] for row in G]
    return cert("rank-upper", {"matrix": product(F, G) * k, "left": left, "right": right})


def row_shift(k: int = 1):
    L = [[1, Fraction(1, 2), 3], [0, 0, Fraction(-2, 5)]]
    S = [[v + c for v in row] for row, c in zip(L, (Fraction(7, 3), -4))]
    return cert("row-shift", {"logits": L * k, "shifted": S * k})


def duality(N: int):
    return cert("duality", {"matrix": [[Fraction(i + j + 1, j + 2) for j in range(N)] for i in range(3)]})


def grown():
    """(name, [certificates, growing], operations each needs at least)."""
    yield "rank-upper rows", [rank_upper(k) for k in (1, 4, 16)], [3 * k * 4 * 2 for k in (1, 4, 16)]
    yield "row-shift rows", [row_shift(k) for k in (1, 4, 16)], [2 * k * 3 * 2 for k in (1, 4, 16)]
    yield "duality columns", [duality(N) for N in (3, 6, 9)], [2**N * 3 * N for N in (3, 6, 9)]


@pytest.mark.parametrize("name, certs, needed", list(grown()), ids=[g[0] for g in grown()])
def test_a_grown_certificate_is_estimated_at_least_as_dear_as_its_work(name, certs, needed):
    for c, ops in zip(certs, needed):
        assert core.check(c).judgment  # a real certificate, accepted: its cost is the cost of a check
        assert estimate(c) >= ops, f"{name}: estimate {estimate(c)} below the {ops} operations the check does"
        assert estimate(c) >= leaves(c["data"])
    first, first_ops = certs[0], needed[0]
    for c, ops in zip(certs[1:], needed[1:]):
        # the estimate grows at least in proportion to the operations counted
        assert estimate(c) * first_ops >= estimate(first) * ops, name


def test_long_numbers_are_estimated_quadratically_in_their_digits():
    """A product of two d-digit numbers costs about d^2: 600-digit factors of the same matrix are
    estimated at least (600/100)^2 times the small ones (the schoolbook cost above 100 digits)."""
    small, long = rank_upper(), rank_upper(scale=10**600 + 1)
    assert core.check(long).judgment == core.check(small).judgment
    assert estimate(long) >= 36 * estimate(small)

