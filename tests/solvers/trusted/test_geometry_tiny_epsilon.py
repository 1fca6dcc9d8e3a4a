"""The tilted-chord lemma's budget ``log(1 + eps)`` at a tiny eps: a bound far above the lemma's must be accepted.

``rank_eps <= floor(pi sqrt(beta/log(1 + eps))) + 1`` (circle) and ``<= floor(sqrt(S/(4 log(1 + eps)))) + 2``
(r = 1) hold for every eps in (0, 1).  At eps = 10^-160, beta = S = 1 the lemmas' bounds are about
``pi 10^80`` and ``10^80/2``, so 10^90 satisfies both inequalities by a factor 10^10 (and the interpolated-anchor
lemma, whose bound is larger since ``log(1 + eps) >= eps/2``, accepts 10^90).  The comparison is decided in arb at
64 bits when ``log(1 + eps)`` is enclosed with a relative error (``arb.log1p``: ``[1e-160 +/- ...]``); enclosing the
rounded sum ``1 + eps`` first loses eps entirely below 2^-512 (``log`` of ``[1 +/- 2^-512]`` contains 0), so no
precision in ``PRECISIONS`` decides it."""

from solvers import certificates, trusted

EPS = "1/" + str(10**160)
BOUND = 10**90


def check(kind, data):
    return trusted.check(certificates.make(kind, "test.claim", "sha256:0", {}, data))


def test_the_interpolated_lemma_accepts_the_bound_so_the_sharper_one_must():
    for kind, extra in (("circle-anchors", {"beta": 1}), ("visible-one-anchors-every", {"spread": 1})):
        assert check(kind, {"construction": "interpolated-anchors", "epsilon": EPS, "bound": BOUND, **extra}).judgment["bound"] == BOUND


def test_tilted_chords_at_a_tiny_epsilon_on_the_circle():
    j = check("circle-anchors", {"construction": "tilted-chords", "beta": 1, "epsilon": EPS, "bound": BOUND}).judgment
    assert j["bound"] == BOUND and j["family"] == "circle"


def test_tilted_chords_at_a_tiny_epsilon_for_rank_one():
    j = check("visible-one-anchors-every", {"construction": "tilted-chords", "spread": 1, "epsilon": EPS, "bound": BOUND}).judgment
    assert j["bound"] == BOUND and j["family"] == "rank-one-interaction"
