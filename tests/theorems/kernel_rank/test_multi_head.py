"""K4: the box identity, box certificates, and witnesses for several rank-one heads."""

import copy
import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from solvers import certificates as C
from solvers import trusted
from theorems import attention as att
from theorems.core import first_discharging
from theorems.kernel_rank import multi_head as mh
from theorems.kernel_rank.multi_head import MultiHead

SMALL = {"H_identity": 2, "m_types": 3}
HALF = Fraction(1, 2)


@pytest.fixture(scope="module")
def outcome():
    claim = MultiHead()
    return claim.check(claim.point())


def accepted(certs):
    """(kind, judgment) of every certificate, re-checked from its data."""
    return [(c["kind"], trusted.check(c).judgment) for c in certs]


def test_verified_with_every_obligation_discharged(outcome):
    claim = MultiHead()
    assert outcome.status == "verified" == claim.expected, outcome.message
    needed = claim.obligations(claim.point())
    assert outcome.obligations == needed.to_json()
    assert not needed.refute and len(needed.verify) == 2 + len(list(mh.pair_types(4))) + mh.LENGTH_4_SOLVED
    judgments = accepted(outcome.certificates)
    for o in needed.verify:
        assert first_discharging(judgments, o), o.words
    assert "every m >= 4" in needed.reach and "m = 4" in needed.reach


def test_facts_are_obligations_or_labelled_unchecked(outcome):
    facts = outcome.facts
    assert "-> 0, D -> 0" in facts["symbolic_box_identity_H2"] and "symbolic (sympy)" in facts["symbolic_box_identity_H2"]
    # an H-fold box is not enough: the identity needs H + 1 varying positions
    assert facts["symbolic_box_identity_H2_on_2_positions_vanishes"] is False
    assert facts["H1_box_condition_equals_sequence_rows_unchecked"] is True
    assert facts["one_head_length_3_m4"].startswith("refuted")  # the "unsolvable" obligation
    assert 0 < facts["two_heads_length_3_m4_worst_error_unchecked"] < HALF
    assert outcome.covered["two_heads_length_3_m4"]["sequences"] == 16**3
    kinds = [c["kind"] for c in outcome.certificates]
    assert kinds.count("box-refutation") == 1 and kinds.count("multi-head-exhaustive") >= 2
    checked = ("symbolic_", "one_head_length_3_m4", "two_types_never_refute_two_heads_m")
    assert all(name.endswith("_unchecked") or name.startswith(checked) for name in facts)


def _recertified(cert, change):
    """The certificate with its data changed by ``change``, accepted again by the checker."""
    forged = copy.deepcopy(cert)
    change(forged["data"])
    return [(forged["kind"], trusted.check(forged).judgment)]


def test_valid_certificates_of_other_sizes_tolerances_or_alphabets_do_not_discharge(outcome):
    claim = MultiHead()
    needed = claim.obligations(claim.point()).verify
    one_head, two_heads, pairs = needed[0], needed[1], needed[2:2 + len(list(mh.pair_types(4)))]
    box = next(c for c in outcome.certificates if c["kind"] == "box-refutation")

    def pad(data):  # the same boxes at m = 5 (zero padded): valid, but only for m >= 5
        data["m"] = 5
        for entry in data["boxes"]:
            entry[2] += "0"
            entry[3] = [[a + "0", b + "0"] for a, b in entry[3]]

    assert first_discharging(_recertified(box, lambda d: None), one_head)
    assert not first_discharging(_recertified(box, pad), one_head)
    full = next(c for c in outcome.certificates if c["kind"] == "multi-head-exhaustive" and c["data"]["alphabet"] == "all")
    assert first_discharging(_recertified(full, lambda d: None), two_heads)
    with pytest.raises(trusted.CertificateError, match="1/2"):  # a tolerance above 1/2 solves nothing: refused
        _recertified(full, lambda d: d.__setitem__("tolerance", 1))
    # a two-token certificate proves nothing about {0,1}^4, nor about another pair of tokens
    pair_certs = [c for c in outcome.certificates if c["kind"] == "multi-head-exhaustive" and c["data"]["alphabet"] != "all"]
    assert len(pair_certs) == len(pairs)
    first = accepted(pair_certs[:1])
    assert first_discharging(first, pairs[0]) and not first_discharging(first, two_heads)
    assert not any(first_discharging(first, o) for o in pairs[1:])


def test_tampered_certificates_are_rejected(outcome):
    box = next(c for c in outcome.certificates if c["kind"] == "box-refutation")
    for tamper in (
        lambda d: d["boxes"][1].__setitem__(0, 0),            # drop the second query's box
        lambda d: d["boxes"][0].__setitem__(1, -1),           # the other sign
        lambda d: d["boxes"][0].__setitem__(2, "0110"),       # another query
        lambda d: d["boxes"][0][3].__setitem__(0, ["0101", "0101"]),  # a degenerate box
        lambda d: d.__setitem__("heads", 2),                  # claims more than it proves
    ):
        bad = copy.deepcopy(box)
        tamper(bad["data"])
        with pytest.raises(C.CertificateError):
            trusted.check(bad)
    heads = next(c for c in outcome.certificates if c["kind"] == "multi-head-exhaustive" and c["data"]["alphabet"] == "all")
    bad = copy.deepcopy(heads)
    bad["data"]["heads"][1]["readout"][5] = [C.encode(Fraction(v) + Fraction(1, 20)) for v in bad["data"]["heads"][1]["readout"][5]]
    with pytest.raises(C.CertificateError, match="error"):
        trusted.check(bad)
    bad = copy.deepcopy(heads)
    bad["data"]["heads"][0]["psi"][3] = [0]
    with pytest.raises(C.CertificateError, match="positive"):
        trusted.check(bad)
    bad = copy.deepcopy(heads)
    bad["data"]["heads"][0]["psi"][3] = [-1]
    with pytest.raises(C.CertificateError, match="nonnegative"):
        trusted.check(bad)
    bad = copy.deepcopy(heads)
    bad["data"]["heads"][0]["note"] = "decoration"
    with pytest.raises(C.CertificateError):
        trusted.check(bad)


def test_two_heads_at_length_four_for_m_up_to_four(outcome):
    """Length H + 2 = 4: one certificate per m <= 4, each discharging its own m only; at m = 5 nothing is claimed."""
    needed = MultiHead().obligations(MultiHead().point()).verify[-mh.LENGTH_4_SOLVED:]
    assert [o.judgment["m"] for o in needed] == [[1, 1], [2, 2], [3, 3], [4, 4]]
    assert all(o.judgment["lengths"] == [4] and o.judgment["alphabet"] == "all" for o in needed)
    certs = [c for c in outcome.certificates if c["kind"] == "multi-head-exhaustive" and c["data"]["lengths"] == [4]
             and c["data"]["alphabet"] == "all"]
    assert [c["data"]["m"] for c in certs] == [1, 2, 3, 4]
    for cert in certs:
        one = accepted([cert])
        assert [bool(first_discharging(one, o)) for o in needed] == [o.judgment["m"][0] == cert["data"]["m"] for o in needed]
    worst = outcome.facts["two_heads_length_4_worst_errors_unchecked"]
    assert set(worst) == {1, 2, 3, 4} and all(0 < e < HALF for e in worst.values())
    assert outcome.covered["two_heads_length_4_m4"]["sequences"] == 16**4
    # where one rank-one head fails (K3, K5): the witness is two heads, neither of them alone a solution
    psi_1, psi_2 = mh.two_heads_length_4(4)
    assert psi_1 != psi_2 and mh.fit_readouts([psi_1], list(range(16)), 4)[0] is None
    # a broken length-4 witness: a readout row moved, a psi set to 0, the certificate offered for m = 5
    m3 = certs[-1]
    bad = copy.deepcopy(m3)
    bad["data"]["heads"][0]["readout"][7] = [C.encode(Fraction(v) + HALF) for v in bad["data"]["heads"][0]["readout"][7]]
    with pytest.raises(C.CertificateError, match="error"):
        trusted.check(bad)
    bad = copy.deepcopy(m3)
    bad["data"]["heads"][1]["psi"][0] = [0]
    with pytest.raises(C.CertificateError, match="positive"):
        trusted.check(bad)
    bad = copy.deepcopy(m3)
    bad["data"]["m"] = 5
    with pytest.raises(C.CertificateError):
        trusted.check(bad)


def test_a_length_four_witness_that_is_really_one_head_is_not_verified(monkeypatch):
    # no split (t = 1): both heads are the profile beta, i.e. one rank-one head, which fails at m = 4
    monkeypatch.setattr(mh, "LENGTH_4_SPLIT", Fraction(1))
    claim = MultiHead()
    out = claim.check(claim.point(SMALL))
    assert out.status == "unknown" and "no readout" in out.message and "length 4" in out.message, out.message
    needed = claim.obligations(claim.point(SMALL)).verify[-mh.LENGTH_4_SOLVED:]
    judgments = accepted(out.certificates)
    assert not all(first_discharging(judgments, o) for o in needed)


class _OneHeadTwice(MultiHead):
    """Two copies of uniform attention are one rank-one head: no readout exists at m = 4."""

    def witness(self, point):
        return [[Fraction(1)] * 16, [Fraction(1)] * 16]


def test_a_witness_that_is_really_one_head_is_not_verified():
    claim = _OneHeadTwice()
    out = claim.check(claim.point(SMALL))
    assert out.status == "unknown"
    assert out.message.startswith("not established") and "no readout" in out.message
    two_heads = claim.obligations(claim.point(SMALL)).verify[1]
    assert not first_discharging(accepted(out.certificates), two_heads)


def test_a_wrong_identity_is_not_verified(monkeypatch):
    real = mh.box_identity
    monkeypatch.setattr(mh, "box_identity", lambda H, varied=None: real(H, H if varied is None else varied))
    claim = MultiHead()
    out = claim.check(claim.point(SMALL))
    assert out.status == "unknown"
    assert "box identity" in out.message


@settings(max_examples=25, deadline=None)
@given(
    H=st.integers(1, 2),
    data=st.data(),
)
def test_the_box_identity_holds_for_evaluated_rank_one_heads(H, data):
    """Exact evaluation of random heads: sum_s (-1)^|s| y(s) D(s) = 0 = sum_s (-1)^|s| D(s)."""
    m = 3
    tokens = list(range(1 << m))
    positive = st.fractions(min_value=Fraction(1, 8), max_value=8, max_denominator=9)
    psis = [[data.draw(positive) for _ in tokens] for _ in range(H)]
    readouts = [[[data.draw(st.fractions(-3, 3, max_denominator=5)) for _ in tokens] for _ in tokens] for _ in range(H)]
    corners = [data.draw(st.tuples(st.sampled_from(tokens), st.sampled_from(tokens))) for _ in range(H + 1)]
    q = data.draw(st.sampled_from(tokens))
    layer = mh.layer_of(psis, readouts, tokens)
    alt_yD = alt_D = Fraction(0)
    for s in itertools.product((0, 1), repeat=H + 1):
        seq = tuple(corners[i][b] for i, b in enumerate(s)) + (q,)
        D = Fraction(1)
        for psi in psis:
            D *= sum(psi[x] for x in seq)
        sign = (-1) ** sum(s)
        alt_yD += sign * layer(seq) * D
        alt_D += sign * D
    assert alt_yD == 0 and alt_D == 0


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 6), n=st.integers(2, 5), data=st.data())
def test_two_token_types_never_refute_two_heads(m, n, data):
    a = data.draw(st.integers(0, (1 << m) - 1))
    b = data.draw(st.integers(0, (1 << m) - 1).filter(lambda x: x != a))
    psis, readouts = mh.two_type_witness(a, b, m, n)
    sweep = mh.sweep_contexts(mh.layer_of(psis, readouts, [a, b]), [a, b], n)
    assert sweep.failure is None and sweep.worst < Fraction(1, 2)
    assert sweep.inputs == 2**n


@settings(max_examples=40, deadline=None)
@given(H=st.integers(1, 3), n=st.integers(1, 4), data=st.data())
def test_the_integer_table_sweep_is_the_layer_sweep(H, n, data):
    """att.sweep_rank_one_tables (integers) against sweep_contexts of layer_of (Fractions):
    the same counts, worst error, worst input and first failure, also at tolerances that fail."""
    m = data.draw(st.integers(1, 3))
    tokens = data.draw(st.lists(st.integers(0, (1 << m) - 1), min_size=1, max_size=1 << m, unique=True))
    psis = [[data.draw(st.fractions(Fraction(1, 7), 9, max_denominator=7)) for _ in tokens] for _ in range(H)]
    readouts = [[[data.draw(st.fractions(-4, 4, max_denominator=6)) for _ in tokens] for _ in tokens] for _ in range(H)]
    tolerance = data.draw(st.sampled_from([Fraction(1, 2), Fraction(1, 10), Fraction(3)]))
    layer = mh.layer_of(psis, readouts, tokens)
    want = att.Sweep()
    for q in tokens:
        for context in itertools.combinations_with_replacement(tokens, n - 1):
            seq = context + (q,)
            size = len(set(itertools.permutations(context)))
            want.record(layer.error(seq), seq, size, tolerance)
    got = att.sweep_rank_one_tables(psis, readouts, tokens, n, tolerance=tolerance)
    assert (got.inputs, got.points, got.worst, got.worst_input, got.failure) == \
        (want.inputs, want.points, want.worst, want.worst_input, want.failure)
    assert got.inputs == len(tokens) ** n


def test_one_head_per_pair_type_covers_every_pair():
    m = 4
    seen = {(att.weight(a), att.weight(b), att.inner(a, b)) for a, b in mh.pair_types(m)}
    every = {tuple(sorted((att.weight(a), att.weight(b))) + [att.inner(a, b)]) for a in range(16) for b in range(16) if a != b}
    assert seen == every


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_for_one_head_a_box_condition_is_the_sum_of_its_sequence_rows(data):
    tokens = st.integers(0, 15)
    q = data.draw(tokens)
    corners = [[data.draw(tokens), data.draw(tokens)] for _ in range(2)]
    rows = mh.sequence_rows_of_box(q, corners)
    assert not any(key[0] == "P" for key in rows)
    assert {(key[1],): c for key, c in rows.items()} == mh.box_condition(1, q, corners, [], 1)


def test_two_heads_at_length_four_are_not_refuted_by_the_h1_boxes():
    # the H = 1 boxes say nothing about two heads: a box needs H + 1 = 3 positions
    a, b = mh.token("0101"), mh.token("1010")
    boxes = [(a, [[a, b], [a, b], [a, b]], [], 1), (b, [[a, b], [a, b], [a, b]], [], 1)]
    assert mh.box_refutation(2, boxes) is None
