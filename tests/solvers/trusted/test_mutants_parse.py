"""Bounded parsing, pinned down where mutation testing found it loose (docs/mutation.md).

test_core.py shows that hostile input is refused; these tests show that honest
input is read back exactly, and that every limit sits exactly where it is
documented: a value *at* the limit is read, one past it is refused.
"""

import json
import os
import sys

import pytest

from solvers.trusted import limits, parse
from solvers.trusted.parse import Refused

# ------------------------------------------------------------------ loads


def test_honest_json_is_read_back_exactly():
    raw = b'{"a": 1, "b": [2, -3, "1/2"], "c": {"d": true, "e": null}, "f": "x"}'
    assert parse.loads(raw) == {"a": 1, "b": [2, -3, "1/2"], "c": {"d": True, "e": None}, "f": "x"}
    assert parse.loads(b"[]") == [] and parse.loads(b"7") == 7 and parse.loads(b'"s"') == "s"


def test_a_duplicate_key_reason_quotes_at_most_40_characters_of_the_key():
    key = "k" * 60
    with pytest.raises(Refused) as caught:
        parse.loads(('{"%s": 1, "%s": 2}' % (key, key)).encode())
    assert str(caught.value) == f"duplicate key {'k' * 40!r} in a JSON object"


def test_a_duplicate_key_is_refused_even_when_nested_and_distinct_keys_are_kept():
    with pytest.raises(Refused, match="duplicate key 'x'"):
        parse.loads(b'{"a": {"x": 1, "y": 2, "x": 3}}')
    assert parse.loads(b'{"x": 1, "y": 2}') == {"x": 1, "y": 2}


@pytest.mark.parametrize("sign", ["", "-"])
def test_integers_of_exactly_max_digits_are_read_one_more_is_refused(sign):
    at = sign + "9" * limits.MAX_DIGITS
    assert parse.loads(f"[{at}]".encode()) == [int(at)]
    over = sign + "9" * (limits.MAX_DIGITS + 1)
    with pytest.raises(Refused) as caught:
        parse.loads(f"[{over}]".encode())
    assert str(caught.value) == f"an integer of {len(over)} digits (at most {limits.MAX_DIGITS})"


def test_deep_nesting_before_a_long_integer_is_refused_never_a_recursion_error():
    """A long integer makes the text be read again, an integer at a time through a Python hook (one
    frame deeper than the decoder's own reading): nesting the first reading just survived must be
    refused by the second too, at every depth up to the interpreter's recursion limit."""
    long = "9" * (limits.MAX_DIGITS + 1)
    for depth in range(100, sys.getrecursionlimit() + 10):
        with pytest.raises(Refused):
            parse.loads(("[" * depth + "0" + "]" * depth + "," + long).join("[]").encode())


def test_integers_up_to_max_digits_are_read_whatever_the_interpreters_own_digit_limit(monkeypatch):
    """Under a lower limit (PYTHONINTMAXSTRDIGITS=640) a long integer's refusal still names it, and the
    limit is as it was afterwards."""
    at = "9" * limits.MAX_DIGITS
    expected = [int(at)]
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        assert parse.loads(f"[{at}]".encode()) == expected
        with pytest.raises(Refused) as caught:
            parse.loads(f"[{at}, 9{at}]".encode())
        assert str(caught.value) == f"an integer of {limits.MAX_DIGITS + 1} digits (at most {limits.MAX_DIGITS})"
        assert sys.get_int_max_str_digits() == 640
    finally:
        sys.set_int_max_str_digits(before)


DEFAULT_LIMIT = getattr(sys, "get_int_max_str_digits", lambda: None)()  # None: an interpreter without the limit


def test_a_long_integer_after_others_is_named_by_its_own_length():
    """The decoder reads integers itself; a file past the digit limit is read again through the hook, which
    passes every shorter integer (one of exactly MAX_DIGITS too) and names the first one over."""
    at, over = "9" * limits.MAX_DIGITS, "-" + "9" * (limits.MAX_DIGITS + 1)
    with pytest.raises(Refused) as caught:
        parse.loads(f'[1, {at}, {{"k": {over}}}]'.encode())
    assert str(caught.value) == f"an integer of {len(over)} digits (at most {limits.MAX_DIGITS})"
    assert getattr(sys, "get_int_max_str_digits", lambda: None)() == DEFAULT_LIMIT  # the interpreter's limit is restored


def test_a_float_reason_quotes_at_most_40_characters():
    text = "1." + "2" * 60
    with pytest.raises(Refused) as caught:
        parse.loads(f"[{text}]".encode())
    assert str(caught.value) == f"a float ({text[:40]}) in the file: exact numbers are ints or strings 'p/q'"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_json_constants_are_refused_by_name(constant):
    with pytest.raises(Refused) as caught:
        parse.loads(f"[{constant}]".encode())
    assert str(caught.value) == f"the non-JSON constant {constant}"


def test_floats_are_kept_as_their_text_only_when_asked():
    assert parse.loads(b'{"seconds": 1.25, "n": 2}', floats=True) == {"seconds": "1.25", "n": 2}
    with pytest.raises(Refused, match="float"):
        parse.loads(b'{"seconds": 1.25}')


def nested(depth: int, container: str) -> object:
    """A value whose nesting depth (as ``parse`` counts it: a scalar alone is 1) is ``depth``."""
    value: object = 0
    for _ in range(depth - 1):
        value = [value] if container == "list" else {"k": value}
    return value


@pytest.mark.parametrize("container", ["list", "dict"])
def test_nesting_of_exactly_max_depth_is_read_one_more_is_refused(container):
    at = nested(limits.MAX_DEPTH, container)
    assert parse.loads(json.dumps(at).encode()) == at
    with pytest.raises(Refused) as caught:
        parse.loads(json.dumps(nested(limits.MAX_DEPTH + 1, container)).encode())
    assert str(caught.value) == f"nesting deeper than {limits.MAX_DEPTH}"


@pytest.mark.parametrize("outer", ["list", "dict"])
@pytest.mark.parametrize("inner", ["list", "dict"])
def test_a_deep_branch_is_found_beside_shallow_siblings(outer, inner):
    """Depth is the deepest branch, whichever container holds it and whatever comes after it."""
    deep = nested(limits.MAX_DEPTH, inner)  # one level more once inside ``outer``
    sibling = [] if inner == "list" else {}
    for shallow in (sibling, [sibling], {"s": sibling}, 5):
        value = [deep, shallow] if outer == "list" else {"a": deep, "b": shallow}
        with pytest.raises(Refused, match="nesting deeper"):
            parse.loads(json.dumps(value).encode())


def test_depth_counts_a_scalar_as_one_and_each_container_as_one_more(monkeypatch):
    def depth(value):  # the least MAX_DEPTH that admits the value
        for limit in range(1, 10):
            monkeypatch.setattr(limits, "MAX_DEPTH", limit)
            try:
                return limits.depth(value) or limit
            except Refused:
                continue

    assert depth(0) == 1
    assert depth([]) == 1 and depth({}) == 1
    assert depth([0]) == 2 and depth({"a": 0}) == 2
    assert depth([0, [0, {"a": [0]}], {"b": 0}]) == 5
    assert depth({"a": {"b": 0}, "c": [[[0]]]}) == 5


def test_the_byte_cap_admits_exactly_max_bytes(monkeypatch):
    monkeypatch.setattr(limits, "MAX_BYTES", 10)
    assert parse.loads(b"[1,2,3,45]") == [1, 2, 3, 45]  # 10 bytes
    with pytest.raises(Refused) as caught:
        parse.loads(b"[1,2,3,456]")
    assert str(caught.value) == "11 bytes (at most 10)"


def test_the_utf8_reason_names_the_first_bad_byte():
    with pytest.raises(Refused) as caught:
        parse.loads(b'["ok", "\xff"]')
    assert str(caught.value) == "not UTF-8 (byte 8)"


def test_the_syntax_reason_says_where():
    with pytest.raises(Refused) as caught:
        parse.loads(b'{\n  "a": }')
    assert str(caught.value).startswith("not JSON (Expecting value at line 2 column")


# ------------------------------------------------------------------ load


def write(tmp_path, text: str, name: str = "x.json") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def test_load_reads_a_regular_file_exactly(tmp_path):
    value = {"format": "f", "data": {"matrix": [[1, "1/2"], [-3, 4]]}, "note": "é"}
    assert parse.load(write(tmp_path, json.dumps(value, ensure_ascii=False))) == value


def test_load_reads_a_file_larger_than_one_read_chunk(tmp_path):
    value = ["x" * 1000] * 3000  # about 3 MB: several reads
    assert parse.load(write(tmp_path, json.dumps(value))) == value


def test_load_refuses_floats_unless_asked_and_then_keeps_their_text(tmp_path):
    path = write(tmp_path, '{"seconds": 0.5}')
    with pytest.raises(Refused, match="float"):
        parse.load(path)
    assert parse.load(path, floats=True) == {"seconds": "0.5"}
    assert parse.load(path, True) == {"seconds": "0.5"}


def test_load_refuses_a_fifo_without_blocking_and_says_why(tmp_path):
    fifo = tmp_path / "f.json"
    os.mkfifo(fifo)
    with pytest.raises(Refused) as caught:
        parse.load(str(fifo))
    assert str(caught.value) == "not a regular file"


def test_load_says_why_it_cannot_open(tmp_path):
    with pytest.raises(Refused) as caught:
        parse.load(str(tmp_path / "missing.json"))
    assert str(caught.value) == "cannot open: No such file or directory"


def test_the_file_size_cap_admits_exactly_max_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_BYTES", 10)
    assert parse.load(write(tmp_path, "[1,2,3,45]")) == [1, 2, 3, 45]
    with pytest.raises(Refused) as caught:
        parse.load(write(tmp_path, "[1,2,3,456]", "y.json"))
    assert str(caught.value) == "11 bytes (at most 10)"


def lying_size(monkeypatch):
    """``fstat`` reports size 0 (as /proc files do, or a file that grows after it is measured)."""
    real = os.fstat

    def fstat(fd):
        info = real(fd)
        return os.stat_result((info.st_mode, info.st_ino, info.st_dev, info.st_nlink, info.st_uid, info.st_gid, 0,
                               int(info.st_atime), int(info.st_mtime), int(info.st_ctime)))

    monkeypatch.setattr(parse.os, "fstat", fstat)


def test_the_read_loop_caps_a_file_whose_size_was_misreported(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_BYTES", 10)
    lying_size(monkeypatch)
    assert parse.load(write(tmp_path, "[1,2,3,45]")) == [1, 2, 3, 45]  # exactly the cap: read
    with pytest.raises(Refused) as caught:
        parse.load(write(tmp_path, "[1,2,3,456]", "y.json"))
    assert str(caught.value) == "more than 10 bytes"


def test_a_proc_file_that_reports_size_zero_is_still_capped(monkeypatch):
    monkeypatch.setattr(limits, "MAX_BYTES", 16)
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc")
    with pytest.raises(Refused) as caught:
        parse.load("/proc/self/status")
    assert str(caught.value) == "more than 16 bytes"


def test_the_read_loop_counts_every_chunk_not_only_the_last(tmp_path, monkeypatch):
    """Reads of at most 1 MiB each stay under a 1.5 MiB cap one at a time, not together."""
    monkeypatch.setattr(limits, "MAX_BYTES", 3 << 19)
    lying_size(monkeypatch)
    path = write(tmp_path, json.dumps(["x" * (7 << 18)]))
    with pytest.raises(Refused) as caught:
        parse.load(path)
    assert str(caught.value) == f"more than {3 << 19} bytes"


def test_load_reads_a_regular_file_where_the_platform_has_no_o_nonblock(tmp_path, monkeypatch):
    """``O_NONBLOCK`` is POSIX; elsewhere the flag is left out and a regular file is read the same way."""
    monkeypatch.delattr(os, "O_NONBLOCK")
    path = write(tmp_path, '{"a": [1, "2/3"]}')
    os.chmod(path, 0o444)
    assert parse.load(path) == {"a": [1, "2/3"]}
