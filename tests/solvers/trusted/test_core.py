"""The trusted core: bounded parsing, strict readers, the envelope, the implication rules."""

import json
import os

import pytest

from solvers.trusted import core, limits, parse
from solvers.trusted.core import CertificateError, Refused, discharges, rational


# ------------------------------------------------------------------ parsing


def test_parse_refuses_duplicate_keys():
    with pytest.raises(parse.Refused, match="duplicate key"):
        parse.loads(b'{"a": 1, "a": 2}')


def test_parse_refuses_floats_constants_and_long_integers():
    for raw, reason in ((b'{"a": 0.5}', "float"), (b'{"a": NaN}', "constant"), (b'[1e5]', "float"),
                        (b'[' + b"9" * 5000 + b']', "digits")):
        with pytest.raises(parse.Refused, match=reason):
            parse.loads(raw)


def test_parse_refuses_deep_nesting_and_non_utf8():
    with pytest.raises(parse.Refused, match="nesting"):
        parse.loads(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(parse.Refused, match="nesting"):
        parse.loads(b"[" * 40 + b"]" * 40)
    with pytest.raises(parse.Refused, match="UTF-8"):
        parse.loads(b'{"a": "\xff\xfe"}')
    with pytest.raises(parse.Refused, match="not JSON"):
        parse.loads(b'{"a": ')


def test_load_refuses_what_is_not_a_regular_file(tmp_path):
    with pytest.raises(parse.Refused, match="regular file"):
        parse.load("/dev/zero")
    fifo = tmp_path / "x.cert.json"
    os.mkfifo(fifo)
    with pytest.raises(parse.Refused, match="regular file"):
        parse.load(str(fifo))  # opened without blocking, then refused
    with pytest.raises(parse.Refused, match="regular file"):
        parse.load(str(tmp_path))
    with pytest.raises(parse.Refused, match="cannot open"):
        parse.load(str(tmp_path / "missing.json"))


def test_load_refuses_a_file_over_the_size_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_BYTES", 100)
    big = tmp_path / "big.json"
    big.write_text("[" + "1," * 100 + "1]")
    with pytest.raises(parse.Refused, match="bytes"):
        parse.load(str(big))


# ------------------------------------------------------------------ readers


def test_rational_reads_ints_and_p_over_q_only():
    assert rational(3) == 3 and rational("-6/4") == rational("-3/2")
    for bad in (True, 0.5, "1e1000000000", "1.5", " 1/2", "1/0", "1/-2", "0x10", [1], None, "9" * 3000):
        with pytest.raises(CertificateError):
            rational(bad)


def test_integer_refuses_booleans():
    with pytest.raises(CertificateError):
        core.integer(True, "m")
    assert core.integer(3, "m", 1, 5) == 3


def envelope(**changes):
    cert = {"format": core.FORMAT, "version": 1, "kind": "rank-lower", "claim": "c", "statement": "s", "parameters": {},
            "data": {}}
    return cert | changes


def test_envelope_refuses_true_as_version_unknown_fields_and_kinds():
    with pytest.raises(CertificateError, match="version"):
        core.check(envelope(version=True))
    with pytest.raises(CertificateError, match="unknown envelope"):
        core.check(envelope(extra=1))
    with pytest.raises(CertificateError, match="unknown certificate kind"):
        core.check(envelope(kind="nonsense"))
    with pytest.raises(CertificateError, match="parameters"):
        core.check(envelope(parameters=[]))


def test_work_is_estimated_before_anything_is_computed():
    calls = []
    core.kind("test-expensive", "n", work=lambda data: data["n"])(lambda data: calls.append(1) or ({"judgment": "t"}, "ran"))
    try:
        with pytest.raises(Refused, match="operations"):
            core.check(envelope(kind="test-expensive", data={"n": 10**12}))
        assert calls == []
        assert core.check(envelope(kind="test-expensive", data={"n": 5})).summary == "ran"
        with pytest.raises(CertificateError, match="malformed"):  # a kind's own TypeError is a rejection
            core.check(envelope(kind="test-expensive", data={"n": "5"}))
    finally:
        del core.KINDS["test-expensive"]


# ------------------------------------------------------------------ rules

SOLVES = {"judgment": "solves", "model": "kernel", "head": "sha256:aa", "rank": 1, "alphabet": "all", "m": [3, 3],
          "lengths": [2, 3], "target": "min-ip", "tolerance": "1/4"}


def test_solves_implies_weaker_solves():
    assert discharges(SOLVES, SOLVES)
    assert discharges(SOLVES, SOLVES | {"head": "any", "rank": 2, "lengths": [3], "tolerance": "1/2"})


@pytest.mark.parametrize("change", [
    {"tolerance": "1/5"},  # a smaller tolerance than proved
    {"lengths": [4]},  # a length not proved
    {"m": [3, 4]},  # an m not proved
    {"head": "sha256:bb"},  # another head
    {"model": "kernel-positional"},
    {"target": "max-ip"},
])
def test_solves_does_not_imply_what_it_does_not_say(change):
    assert not discharges(SOLVES, SOLVES | change)


def test_unbounded_ranges_and_refutation_directions():
    never = {"judgment": "unsolvable", "model": "kernel", "rank": 1, "m": [4, None], "length": 3, "target": "min-ip",
             "tolerance": "1/2"}
    assert discharges(never, never | {"m": [5, 5]})
    assert discharges(never, never | {"m": [4, None], "tolerance": "1/3"})
    assert not discharges(never, never | {"m": [3, 3]})
    assert not discharges(never, never | {"tolerance": "2/3"})
    assert not discharges(never, never | {"rank": 2})
    assert not discharges(never | {"m": [4, 10]}, never)  # a bounded range never covers an unbounded one


def test_approximate_rank_bounds_move_the_right_way():
    low = {"judgment": "approx-rank-at-least", "instance": "sha256:x", "n": 8, "epsilon": "1/10", "bound": 8}
    assert discharges(low, low | {"epsilon": "1/20", "bound": 7})
    assert not discharges(low, low | {"epsilon": "1/5"})  # a lower bound at eps says nothing at a larger eps
    high = low | {"judgment": "approx-rank-at-most", "bound": 3}
    assert discharges(high, high | {"epsilon": "1/5", "bound": 4})
    assert not discharges(high, high | {"epsilon": "1/20"})


def test_field_sets_and_names_must_match():
    assert not discharges(SOLVES, {k: v for k, v in SOLVES.items() if k != "alphabet"})
    assert not discharges(SOLVES | {"extra": 1}, SOLVES)
    assert not discharges(SOLVES | {"judgment": "fails"}, SOLVES | {"judgment": "fails"} | {"x": 1})
    assert not discharges(SOLVES | {"tolerance": "oops"}, SOLVES)  # unreadable values never discharge


def test_digest_is_canonical_in_exact_values():
    from fractions import Fraction

    assert core.digest([Fraction(2, 4), 3]) == core.digest([Fraction(1, 2), Fraction(3)])
    assert core.digest([Fraction(1, 2)]) != core.digest([Fraction(1, 3)])
    assert core.digest({"b": 1, "a": 2}) == core.digest({"a": 2, "b": 1})
    assert json.loads(json.dumps(core.encode({"x": Fraction(3, 6)}))) == {"x": "1/2"}


def test_messages_about_huge_integers_never_fail_themselves():
    with pytest.raises(CertificateError, match="bits"):
        core.integer(10**5000, "m", 0, 10)
    with pytest.raises(CertificateError, match="bits"):
        core.integer(-(10**5000), "m")
