import json
import os
from fractions import Fraction

import pytest

from solvers import certificates as C


def test_encode_is_exact_and_refuses_floats():
    assert C.encode({"a": Fraction(3, 14), "b": [Fraction(2), 5]}) == {"a": "3/14", "b": [2, 5]}
    with pytest.raises(C.CertificateError):
        C.encode({"a": 0.5})


def test_rational_reads_only_exact_numbers():
    assert C.rational("3/14") == Fraction(3, 14)
    assert C.rational(7) == 7
    for bad in (0.5, True, "x", "1/0", None):
        with pytest.raises(C.CertificateError):
            C.rational(bad)


def _cert():
    return C.make("rank-upper", "some.claim", "0" * 64, {"m": 2}, {"matrix": [[1]], "left": [[1]], "right": [[1]]})


def test_envelope_round_trip(tmp_path):
    path = tmp_path / "x.cert.json"
    C.write(str(path), _cert())
    assert C.read(str(path)) == _cert()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".tmp-")]


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda c: c.update(format="other"), "unknown format"),
        (lambda c: c.update(version=2), "unsupported version"),
        (lambda c: c.update(extra=1), "unknown envelope field"),
        (lambda c: c.pop("statement"), "missing envelope field"),
        (lambda c: c.update(data=[]), "must be JSON objects"),
    ],
)
def test_envelope_refusals(change, words):
    cert = _cert()
    change(cert)
    with pytest.raises(C.CertificateError, match=words):
        C.validate_envelope(cert)


def test_float_in_file_is_refused(tmp_path):
    path = tmp_path / "x.cert.json"
    cert = _cert()
    text = json.dumps(cert).replace('"matrix": [[1]]', '"matrix": [[1.0]]')
    path.write_text(text)
    with pytest.raises(C.CertificateError, match="float"):
        C.read(str(path))


def test_atomic_write_leaves_old_content_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "f.txt"
    C.write_atomic(str(path), "old\n")

    def boom(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        C.write_atomic(str(path), "new\n")
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["f.txt"]
