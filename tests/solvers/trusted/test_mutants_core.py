"""The trusted core, pinned down where mutation testing found it loose (docs/mutation.md).

The readers every family module uses (``rational``, ``integer``, ``listof``,
``matrix``, ``token``, ...), the implication rules at their boundaries, the
envelope's limits and the exact reasons a REJECTED line carries.
"""

import hashlib
import re
from fractions import Fraction

import flint
import pytest

from solvers.trusted import core, matrices
from solvers.trusted.core import CertificateError, Refused, discharges


def reason(call, *args, **kwargs) -> str:
    """The reason a reader gives when it rejects."""
    with pytest.raises(CertificateError) as caught:
        call(*args, **kwargs)
    return str(caught.value)


# ------------------------------------------------------------------ readers


def test_require_passes_silently_and_rejects_with_its_message():
    assert core.require(True, "unused") is None
    assert reason(core.require, False, "the reason") == "the reason"


def test_lcm_denominator():
    assert matrices.lcm_denominator([]) == 1
    assert matrices.lcm_denominator([Fraction(1, 4), Fraction(5, 6), Fraction(3)]) == 12
    assert matrices.lcm_denominator([Fraction(-2, 3)]) == 3


def test_fmpq_matrix_is_the_exact_matrix_row_by_row():
    M = [[Fraction(1, 2), Fraction(-3)], [Fraction(0), Fraction(7, 5)], [Fraction(2), Fraction(1, 3)]]
    F = matrices.fmpq_matrix(M)
    assert (F.nrows(), F.ncols()) == (3, 2)
    assert [[F[i, j] for j in range(2)] for i in range(3)] == [[flint.fmpq(n.numerator, n.denominator) for n in r] for r in M]


def test_rational_reads_p_over_q_exactly():
    assert core.rational("5") == 5 and core.rational("-5") == -5
    assert core.rational("3/1") == 3 and core.rational("-6/4") == Fraction(-3, 2)
    assert core.rational("0/7") == 0 and core.rational(-4) == -4
    assert type(core.rational(2)) is Fraction and type(core.rational("2")) is Fraction


def test_rational_reasons_name_the_field_and_quote_60_characters():
    assert reason(core.rational, "x") == "number must be an int or a string 'p/q', got 'x'"
    assert reason(core.rational, 1.5, "epsilon") == "epsilon must be an int or a string 'p/q', got '1.5'"
    long = "1/2" + "z" * 100
    assert reason(core.rational, long, "t") == f"t must be an int or a string 'p/q', got {long[:60]!r}"
    assert reason(core.rational, "1/0", "t") == "t has a zero denominator"
    assert reason(core.rational, "1/00") == "number has a zero denominator"


def test_shown_cuts_text_at_60_and_names_huge_integers_by_size():
    assert core.shown("a" * 100) == "a" * 60 and core.shown([1, 2]) == "[1, 2]"
    assert core.shown(2**64 - 1) == str(2**64 - 1)  # 64 bits: printed
    assert core.shown(2**64) == "<an integer of 65 bits>"
    assert core.shown(-(2**64)) == "<an integer of 65 bits>"
    assert core.shown(True) == "True"
    assert reason(core.integer, 10**30, "m", 0, 10) == "m=<an integer of 100 bits> outside [0, 10]"


def test_integer_bounds_are_inclusive_and_low_defaults_to_zero():
    assert core.integer(0, "m") == 0 and core.integer(10**30, "m") == 10**30 and core.integer(3, "m") == 3
    assert core.integer(1, "m", 1, 5) == 1 and core.integer(5, "m", 1, 5) == 5
    assert reason(core.integer, -1, "m") == "m=-1 outside [0, None]"
    assert reason(core.integer, 0, "m", 1, 5) == "m=0 outside [1, 5]"
    assert reason(core.integer, 6, "m", 1, 5) == "m=6 outside [1, 5]"
    assert reason(core.integer, -7, "m", 0, 5) == "m=-7 outside [0, 5]"
    for bad in (True, "3", 3.0, None):
        assert reason(core.integer, bad, "n") == "n must be an integer"


def test_flag_reads_booleans_only():
    assert core.flag(True, "f") is True and core.flag(False, "f") is False
    for bad in (1, 0, "true", None):
        assert reason(core.flag, bad, "causal") == "causal must be true or false"


def test_listof_bounds_are_inclusive():
    assert core.listof([], "xs") == [] and core.listof([1, 2], "xs", 2, 2) == [1, 2]
    assert core.listof([1], "xs", 1) == [1]
    assert reason(core.listof, [1], "xs", 2) == "xs has 1 entries, outside [2, None]"
    assert reason(core.listof, [1, 2, 3], "xs", 0, 2) == "xs has 3 entries, outside [0, 2]"
    assert reason(core.listof, [], "xs", 1, 4) == "xs has 0 entries, outside [1, 4]"
    for bad in ("ab", {"a": 1}, (1, 2), None):
        assert reason(core.listof, bad, "xs") == "xs must be a list"


def test_matrix_reads_a_rectangle_of_exact_numbers():
    assert matrices.matrix([[1, "1/2"], ["-3", 0]], "A") == [[1, Fraction(1, 2)], [-3, 0]]
    assert matrices.matrix([[1, 2, 3]], "A", 1, 3) == [[1, 2, 3]]
    assert matrices.matrix([[1], [2]], "A", 2) == [[1], [2]]


def test_matrix_reasons():
    assert reason(matrices.matrix, [], "A") == "A has 0 entries, outside [1, None]"
    assert reason(matrices.matrix, "x", "A") == "A must be a list"
    assert reason(matrices.matrix, [[1], 2], "A") == "A must be a list of rows"
    assert reason(matrices.matrix, [[1], [2]], "A", 3) == "A has 2 rows, expected 3"
    assert reason(matrices.matrix, [[1, 2], [3]], "A") == "A rows must all have 2 >= 1 entries"
    assert reason(matrices.matrix, [[1, 2], [3, 4]], "A", 2, 3) == "A rows must all have 3 >= 1 entries"
    assert reason(matrices.matrix, [[], []], "A") == "A rows must all have 0 >= 1 entries"
    assert reason(matrices.matrix, [[1, 2]], "A", None, 0) == "A rows must all have 0 >= 1 entries"
    assert reason(matrices.matrix, [[1, "x"]], "B").startswith("B must be an int or a string 'p/q'")


def test_token_reads_bit_strings_coordinate_one_first():
    assert core.token("000", 3) == 0
    assert core.token("100", 3) == 1 and core.token("010", 3) == 2 and core.token("001", 3) == 4
    assert core.token("1101", 4) == 1 + 2 + 8
    assert core.token("", 0) == 0


def test_token_reasons():
    for bad, m in (("10", 3), ("1000", 3), ("102", 3), ("1 0", 3), (101, 3), (None, 1)):
        assert reason(core.token, bad, m) == f"token {str(bad)[:40]!r} is not a bit string of length {m}"
    long = "1" * 60
    assert reason(core.token, long, 3) == f"token {'1' * 40!r} is not a bit string of length 3"


# -------------------------------------------------------------- encode, digest


def test_encode_writes_fractions_in_lowest_terms_and_recurses():
    assert core.encode(Fraction(4, 2)) == 2 and type(core.encode(Fraction(4, 2))) is int
    assert core.encode(Fraction(-2, 4)) == "-1/2"
    assert core.encode({1: (Fraction(1, 3), [Fraction(6, 3)]), "b": "s"}) == {"1": ["1/3", [2]], "b": "s"}
    assert core.encode(None) is None and core.encode(True) is True and core.encode("1/2") == "1/2"


def test_digest_is_the_sha256_of_the_compact_sorted_json():
    """Claims and the report compute the same name for a matrix: the rule must be exactly this one."""
    value = {"b": [1, Fraction(1, 2)], "a": "x"}
    text = '{"a":"x","b":[1,"1/2"]}'
    assert core.digest(value) == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert core.digest("é") == "sha256:" + hashlib.sha256('"\\u00e9"'.encode()).hexdigest()
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", core.digest([]))


# ------------------------------------------------------------------ rules


def test_ranges_cover_at_their_ends():
    assert core._covers([3, 5], [3, 4]) and core._covers([3, 5], [4, 5]) and core._covers([3, 5], [3, 5])
    assert core._covers([3, None], [3, 9]) and core._covers([3, None], [4, None])
    assert not core._covers([3, 5], [2, 5]) and not core._covers([3, 5], [3, 6])
    assert not core._covers([3, 5], [3, None])


def test_a_value_lies_inside_a_range_at_its_ends():
    assert core._inside(3, [3, 5]) and core._inside(5, [3, 5]) and core._inside(4, [3, 5])
    assert core._inside(10**9, [3, None]) and core._inside(3, [3, None])
    assert not core._inside(2, [3, 5]) and not core._inside(6, [3, 5]) and not core._inside(2, [3, None])


SOLVES = {"judgment": "solves", "model": "kernel", "head": "sha256:aa", "rank": 1, "alphabet": "all", "m": [3, 5],
          "lengths": [2, 3], "target": "min-ip", "tolerance": "1/4"}


def test_solves_discharges_through_each_range_end():
    assert discharges(SOLVES, SOLVES | {"m": [3, 4]})
    assert discharges(SOLVES, SOLVES | {"m": [4, 5]})
    assert discharges(SOLVES, SOLVES | {"m": [5, 5], "tolerance": "1/3"})
    assert not discharges(SOLVES, SOLVES | {"m": [2, 5]})
    assert not discharges(SOLVES, SOLVES | {"m": [3, 6]})


def test_fails_discharges_when_its_m_lies_in_the_range():
    fails = {"judgment": "fails", "model": "kernel", "m": 4, "tolerance": "1/2"}
    assert discharges(fails, fails | {"m": [4, 4]}) and discharges(fails, fails | {"m": [2, None], "tolerance": "1/3"})
    assert not discharges(fails, fails | {"m": [5, None]})
    assert not discharges(fails, fails | {"tolerance": "2/3"})


# Which way each numeric field may move, stated here independently of core.RULES: "at most" when a smaller
# proved value is the stronger statement (rank, heads, tolerance of what is solved; an upper bound),
# "at least" when a larger one is (what no head can do; lower bounds; failures).
DIRECTIONS = {
    ("solves", "rank"): "at most", ("solves", "heads"): "at most", ("solves", "tolerance"): "at most",
    ("unsolvable", "rank"): "at least", ("unsolvable", "heads"): "at least", ("unsolvable", "tolerance"): "at least",
    ("fails", "tolerance"): "at least", ("no-readout", "tolerance"): "at least",
    ("rank-at-least", "bound"): "at least", ("rank-at-most", "bound"): "at most",
    ("approx-rank-at-least", "bound"): "at least", ("approx-rank-at-least", "epsilon"): "at least",
    ("approx-rank-at-most", "bound"): "at most", ("approx-rank-at-most", "epsilon"): "at most",
    ("approx-rank-at-most-every", "bound"): "at most", ("approx-rank-at-most-every", "epsilon"): "at most",
    ("approx-rank-at-most-every", "beta_up_to"): "at least", ("approx-rank-at-most-every", "spread_up_to"): "at least",
    ("bits-at-least", "bits"): "at least",
}
RANGES = {("solves", "head"), ("solves", "m"), ("solves", "lengths"), ("unsolvable", "m"), ("fails", "m")}


def test_the_rule_table_has_a_rule_for_exactly_these_fields():
    assert {(name, field) for name, fields in core.RULES.items() for field in fields} == set(DIRECTIONS) | RANGES


@pytest.mark.parametrize("name, field", sorted(DIRECTIONS))
@pytest.mark.parametrize("low, high", [(2, 3), ("1/3", "1/2"), (0, "1/10")])
def test_each_numeric_field_moves_one_way_only(name, field, low, high):
    def j(value):
        return {"judgment": name, field: value, "instance": "sha256:x"}

    weaker, stronger = (high, low) if DIRECTIONS[(name, field)] == "at most" else (low, high)
    proved = j(stronger)
    assert discharges(proved, j(weaker))  # the proved value implies a weaker one
    assert discharges(proved, j(stronger))
    assert not discharges(j(weaker), proved)  # and never a stronger one
    assert not discharges(proved, j(weaker) | {"instance": "sha256:y"})  # other fields stay equal


@pytest.mark.parametrize("name, field", sorted(DIRECTIONS))
def test_a_value_written_another_way_is_the_same_value(name, field):
    assert discharges({"judgment": name, field: "2/4"}, {"judgment": name, field: "1/2"})
    assert discharges({"judgment": name, field: 3}, {"judgment": name, field: "3"})
    assert discharges({"judgment": name, field: "6/2"}, {"judgment": name, field: 3})


def test_lengths_are_a_set():
    assert discharges(SOLVES, SOLVES | {"lengths": [3, 2]}) and discharges(SOLVES | {"lengths": [3, 2]}, SOLVES)
    assert discharges(SOLVES, SOLVES | {"lengths": [3, 3, 2]})


@pytest.mark.parametrize("other", ["x", None, 3, ["judgment", "solves"], ("solves",)])
def test_only_two_objects_can_discharge(other):
    assert discharges(SOLVES, other) is False
    assert discharges(other, SOLVES) is False
    assert discharges(other, other) is False


def test_an_unreadable_value_never_discharges_in_either_direction():
    assert not discharges(SOLVES | {"rank": "one"}, SOLVES | {"rank": 2})
    assert not discharges(SOLVES | {"rank": 1}, SOLVES | {"rank": "two"})
    assert not discharges(SOLVES | {"rank": True}, SOLVES | {"rank": 2})
    assert not discharges(SOLVES | {"m": [3, "x"]}, SOLVES | {"m": [3, 4]})
    assert not discharges(SOLVES | {"m": [3]}, SOLVES | {"m": [3, 4]})


# ------------------------------------------------------------------ envelope


def cert(**changes):
    base = {"format": core.FORMAT, "version": 1, "kind": "k", "claim": "c", "statement": "s", "parameters": {},
            "data": {}}
    return base | changes


def test_an_honest_envelope_passes():
    assert core.envelope(cert()) is None
    assert core.envelope(cert(claim="c" * 200, kind="k" * 200, statement="s" * 200)) is None


@pytest.mark.parametrize("changes, why", [
    ({"claim": "c" * 201}, "field 'claim' must be a short string"),
    ({"kind": "k" * 201}, "field 'kind' must be a short string"),
    ({"statement": 5}, "field 'statement' must be a short string"),
    ({"claim": None}, "field 'claim' must be a short string"),
    ({"kind": ["k"]}, "field 'kind' must be a short string"),
    ({"format": "x" * 60}, f"unknown format {'x' * 40!r}, expected {core.FORMAT!r}"),
    ({"format": 7}, f"unknown format '7', expected {core.FORMAT!r}"),
    ({"version": 2}, "unsupported version '2', this checker reads version 1"),
    ({"version": "1" * 30}, f"unsupported version {'1' * 20!r}, this checker reads version 1"),
    ({"version": True}, "unsupported version 'True', this checker reads version 1"),
    ({"data": []}, "fields 'parameters' and 'data' must be JSON objects"),
    ({"parameters": "p"}, "fields 'parameters' and 'data' must be JSON objects"),
])
def test_envelope_reasons(changes, why):
    assert reason(core.envelope, cert(**changes)) == why


def test_envelope_names_missing_and_extra_fields():
    for key in core.ENVELOPE_KEYS:
        partial = {k: v for k, v in cert().items() if k != key}
        assert reason(core.check, partial) == f"missing envelope field(s) ['{key}']"
    assert reason(core.check, cert(zz=1, aa=2)) == (
        f"unknown envelope field(s) ['aa', 'zz']: a certificate carries only {list(core.ENVELOPE_KEYS)}")
    for bad in ([], "x", None, 3):
        assert reason(core.check, bad) == "a certificate is a JSON object"


# ------------------------------------------------------------------ dispatch


@pytest.fixture
def toy():
    """A kind ``toy`` reading ``n`` and ``v``: work n, judgment carries v exactly; the data it was given is recorded."""
    seen = []

    def check(data):
        seen.append(data)
        v = core.rational(data["v"], "v")
        return {"judgment": "toy", "v": v, "n": data["n"]}, f"toy {v}"

    core.kind("toy", "n", "v", work=lambda data: data["n"])(check)
    try:
        yield seen
    finally:
        del core.KINDS["toy"]


def test_kind_registers_the_fields_the_estimate_and_the_checker(toy):
    fields, work, function = core.KINDS["toy"]
    assert fields == ("n", "v") and work({"n": 9}) == 9
    assert function({"n": 1, "v": 2})[1] == "toy 2"


def test_check_returns_the_encoded_judgment_of_the_data_it_was_given(toy):
    data = {"n": 3, "v": "2/4"}
    accepted = core.check(cert(kind="toy", data=data))
    assert accepted == core.Accepted({"judgment": "toy", "v": "1/2", "n": 3}, "toy 1/2")
    assert toy == [data]


def test_work_exactly_at_the_limit_is_done(toy):
    assert core.check(cert(kind="toy", data={"n": 50, "v": 1}), max_work=50).summary == "toy 1"
    with pytest.raises(Refused) as caught:
        core.check(cert(kind="toy", data={"n": 51, "v": 1}), max_work=50)
    assert str(caught.value) == "toy: asks for about 51 operations, above the limit of 50 (raise --max-work)"
    assert toy == [{"n": 50, "v": 1}]


def test_the_default_work_limit_is_max_work(toy):
    assert core.check(cert(kind="toy", data={"n": core.MAX_WORK, "v": 1})).summary == "toy 1"
    with pytest.raises(Refused, match="operations"):
        core.check(cert(kind="toy", data={"n": core.MAX_WORK + 1, "v": 1}))


def test_data_fields_must_be_exactly_the_kinds(toy):
    assert reason(core.check, cert(kind="toy", data={"n": 1, "v": 1, "w": 2, "a": 0})) == (
        "toy: unused data field(s) ['a', 'w']; this kind reads exactly ['n', 'v']")
    assert reason(core.check, cert(kind="toy", data={})) == "toy: missing data field(s) ['n', 'v']"
    assert toy == []


def test_an_unknown_kind_reason_quotes_40_characters_and_lists_the_known_ones(toy):
    name = "q" * 60
    assert reason(core.check, cert(kind=name)) == f"unknown certificate kind {'q' * 40!r}; known kinds: {sorted(core.KINDS)}"


@pytest.mark.parametrize("data, kind_of_error", [
    ({"n": "5", "v": 1}, "TypeError"),  # the estimate compares a string with an int
    ({"n": 1, "v": [1]}, None),  # the kind's own reader rejects v: its reason is kept
])
def test_a_kind_that_trips_on_its_data_rejects_with_the_error_named(toy, data, kind_of_error):
    why = reason(core.check, cert(kind="toy", data=data))
    if kind_of_error:
        assert why.startswith(f"toy: malformed data ({kind_of_error}: ")
    else:
        assert why == "v must be an int or a string 'p/q', got '[1]'"


@pytest.mark.parametrize("error", [TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError,
                                   OverflowError, RecursionError])
def test_every_python_error_a_kind_trips_on_is_a_rejection_never_an_acceptance(error):
    core.kind("toy-raise", work=lambda data: 0)(lambda data: (_ for _ in ()).throw(error("boom")))
    try:
        why = reason(core.check, cert(kind="toy-raise"))
    finally:
        del core.KINDS["toy-raise"]
    assert why.startswith(f"toy-raise: malformed data ({error.__name__}: ") and "boom" in why


def test_a_refusal_inside_a_kind_stays_a_refusal():
    core.kind("toy-refuse", work=lambda data: 0)(lambda data: (_ for _ in ()).throw(Refused("too big")))
    try:
        with pytest.raises(Refused) as caught:
            core.check(cert(kind="toy-refuse"))
    finally:
        del core.KINDS["toy-refuse"]
    assert str(caught.value) == "too big"


def test_the_malformed_reason_carries_the_error_message_cut_at_80():
    core.kind("toy-raise", work=lambda data: 0)(lambda data: (_ for _ in ()).throw(KeyError("k" * 100)))
    try:
        why = reason(core.check, cert(kind="toy-raise"))
    finally:
        del core.KINDS["toy-raise"]
    assert why == f"toy-raise: malformed data (KeyError: {repr('k' * 100)[:80]})"
