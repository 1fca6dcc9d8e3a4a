"""The ranks family: exact ranks, singular values of centred logits, row shifts, the duality identity.

Per kind: an honest certificate is accepted with the documented judgment,
broken data is rejected, a semantic forgery does not discharge the
obligation it imitates, and oversized work is refused before it starts.
"""

from fractions import Fraction

import pytest

from solvers.trusted import core
from solvers.trusted.core import CertificateError, Refused, digest, discharges, encode
from solvers.trusted.ranks import PRIME_BOUND

PRIME = 4611686018427387847  # the largest prime below 2^62
A = [[1, 1, 1, 1], [1, Fraction(1, 4), 1, Fraction(1, 4)], [1, 1, Fraction(1, 4), Fraction(1, 4)],
     [1, Fraction(1, 4), Fraction(1, 4), Fraction(1, 16)]]
SINGULAR = [[1, 2], [2, 4]]


def cert(kind, data):
    return {"format": core.FORMAT, "version": core.VERSION, "kind": kind, "claim": "test.claim",
            "statement": "0" * 64, "parameters": {}, "data": encode(data)}


def accepts(kind, data, **kw):
    return core.check(cert(kind, data), **kw)


def rejects(kind, data, match=None):
    with pytest.raises(CertificateError, match=match):
        core.check(cert(kind, data))


# ----------------------------------------------------------------- ranks


def test_rank_lower():
    judgment, summary = accepts("rank-lower", {"matrix": A, "rows": [0, 1, 2, 3], "cols": [0, 1, 2, 3], "prime": PRIME})
    assert judgment == {"judgment": "rank-at-least", "matrix": digest(A), "rows": 4, "cols": 4, "bound": 4}
    assert "rank >= 4" in summary
    assert discharges(judgment, dict(judgment, bound=3)) and not discharges(judgment, dict(judgment, bound=5))
    assert not discharges(judgment, dict(judgment, matrix=digest(SINGULAR)))  # another matrix
    assert accepts("rank-lower", {"matrix": A, "rows": [3, 0], "cols": [0, 3], "prime": 101})[0]["bound"] == 2


@pytest.mark.parametrize("change, reason", [
    ({"prime": PRIME + 1}, "not prime"),
    ({"prime": PRIME_BOUND + 15}, "outside"),  # a prime above the bound is refused, not tested
    ({"prime": 10**99 + 289}, "outside"),
    ({"prime": True}, "integer"),
    ({"rows": [0, 0, 1, 2]}, "distinct"),
    ({"rows": [], "cols": []}, "entries"),
    ({"rows": [0, 1, 2]}, "entries"),
    ({"cols": [0, 1, 2, 4]}, "outside"),
    ({"matrix": [[1, 2], [2, 4]], "rows": [0, 1], "cols": [0, 1]}, "singular"),
    ({"matrix": [[1, 2], [3]]}, "rows must all"),
])
def test_rank_lower_rejects(change, reason):
    rejects("rank-lower", {"matrix": A, "rows": [0, 1, 2, 3], "cols": [0, 1, 2, 3], "prime": PRIME} | change, match=reason)


def test_rank_lower_singular_only_mod_p():
    # det [[1, 0], [0, 7]] = 7: nonsingular over Q but singular mod 7, so the certificate must name another prime
    rejects("rank-lower", {"matrix": [[1, 0], [0, 7]], "rows": [0, 1], "cols": [0, 1], "prime": 7}, match="singular")
    accepts("rank-lower", {"matrix": [[1, 0], [0, 7]], "rows": [0, 1], "cols": [0, 1], "prime": 11})


def test_rank_upper():
    data = {"matrix": SINGULAR, "left": [[1], [2]], "right": [[1, 2]]}
    judgment, _ = accepts("rank-upper", data)
    assert judgment == {"judgment": "rank-at-most", "matrix": digest(SINGULAR), "rows": 2, "cols": 2, "bound": 1}
    assert discharges(judgment, dict(judgment, bound=2)) and not discharges(judgment, dict(judgment, bound=0))
    rejects("rank-upper", data | {"matrix": [[1, 2], [2, 5]]}, match="differs")
    rejects("rank-upper", data | {"right": [[1, 2, 0]]}, match="entries")  # wider than A
    rejects("rank-upper", data | {"left": [[1], [2], [3]]}, match="rows")
    rejects("rank-upper", data | {"right": [[1, 2], [0, 0]]}, match="rows")


# ---------------------------------------------------------------- logits

L3 = [[0, 1, 2], [2, 0, 1], [1, 1, 0]]


def test_visible_dimension():
    judgment, _ = accepts("visible-dimension", {"logits": L3, "tau": 0, "count": 2})
    assert judgment == {"judgment": "singular-values-above", "logits": digest(L3), "tau": 0, "count": 2}
    rejects("visible-dimension", {"logits": L3, "tau": 0, "count": 3}, match="exceed")  # rank L = 3, rank L P = 2
    # L P has singular values sqrt(3) (twice): none above 2, both above 1, and tau = sqrt 3 exactly is not above
    assert accepts("visible-dimension", {"logits": L3, "tau": 1, "count": 2})[0]["count"] == 2
    accepts("visible-dimension", {"logits": L3, "tau": 2, "count": 0})
    rejects("visible-dimension", {"logits": L3, "tau": "-1", "count": 0}, match="tau")
    tall = [[Fraction(1, 3), 0], [0, Fraction(1, 7)], [1, 1], [2, 5]]  # n > N: the other Gram matrix
    accepts("visible-dimension", {"logits": tall, "tau": 0, "count": 1})
    # a count for other logits, or at another tau, is not the count needed (no rule: every field equal)
    assert not discharges(judgment, dict(judgment, logits=digest(tall)))
    assert not discharges(judgment, dict(judgment, tau=1))


def test_row_shift():
    shifted = [[v + i for v in r] for i, r in enumerate(L3)]
    judgment, _ = accepts("row-shift", {"logits": L3, "shifted": shifted})
    assert judgment == {"judgment": "same-attention", "logits": digest(L3), "other": digest(shifted)}
    assert not discharges(judgment, dict(judgment, other=digest(L3)))
    rejects("row-shift", {"logits": L3, "shifted": [[v + j for j, v in enumerate(r)] for r in L3]}, match="not constant")
    rejects("row-shift", {"logits": L3, "shifted": shifted[:2]}, match="shapes")


def test_duality():
    M = [[1, -2, "1/2"], [0, 3, -1]]
    judgment, summary = accepts("duality", {"matrix": M})
    assert judgment == {"judgment": "duality", "matrix": digest([[1, -2, Fraction(1, 2)], [0, 3, -1]])}
    assert "2^3" in summary
    rejects("duality", {"matrix": [[1] * 15]}, match="columns")
    rejects("duality", {"matrix": [[1, 2], [3]]})


# ------------------------------------------------------------------- work


def test_work_is_estimated_from_sizes_and_refused_before_it_starts():
    big = f"{10**1999 + 7}/{10**1999 + 3}"
    with pytest.raises(Refused, match="operations"):
        accepts("duality", {"matrix": [[big] * 14] * 20})
    with pytest.raises(Refused, match="operations"):
        # 30 x 30: 27 000 multiply-adds of numbers of D = 12 002 digits, 1 + 120^2 units each: 3.9 10^8; 20 x 20 is
        # estimated 1.2 10^8 (below the limit) and checks in about 0.1 s: its entries are one number, parsed once
        accepts("rank-upper", {"matrix": [[big] * 30] * 30, "left": [[big] * 30] * 30, "right": [[big] * 30] * 30})
    distinct = [[f"1/{10**1999 + 10 * i + j}" for j in range(10)] for i in range(10)]
    with pytest.raises(Refused, match="operations"):
        accepts("visible-dimension", {"logits": distinct, "tau": 0, "count": 9})
    with pytest.raises(Refused):
        accepts("rank-lower", {"matrix": A, "rows": [0, 1, 2, 3], "cols": [0, 1, 2, 3], "prime": PRIME}, max_work=5)


@pytest.mark.parametrize("kind", ["rank-lower", "rank-upper", "visible-dimension", "row-shift", "duality"])
def test_wrong_types_everywhere_are_rejected_cleanly(kind):
    fields = core.KINDS[kind][0]
    for junk in (None, True, "x", {"a": 1}, [[]], [["x"]], -1, [1, [2]]):
        with pytest.raises((CertificateError, Refused)):
            core.check(cert(kind, {f: junk for f in fields}))
