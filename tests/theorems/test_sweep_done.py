"""``theorems.sweep.done``: which stored points a sweep may skip, each condition on its own.

A stand-in claim (an id, a statement hash, obligations) and records written by hand: no check runs, so
every condition of the module docstring is tested alone against a record that is done, and the record
that is done is returned whole.  The sweep itself (skipping, resuming, --force) is tested end to end in
test_sweep.py.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction

import pytest

from solvers import certificates
from theorems import sweep
from theorems.core import code_digest
from theorems.store import OUTCOME

SLUG = "m=3"


class Obligations:
    def __init__(self, data):
        self.data = data

    def to_json(self):
        return self.data


class Claim:
    id = "test.sweep_done"

    def __init__(self, obligations=None, fails=False):
        self.obligations_json, self.fails = obligations or {"verify": [{"words": "w"}], "refute": [], "reach": "m <= 3"}, fails
        self.asked = []

    def statement_hash(self):
        return "5" * 64

    def obligations(self, point):
        self.asked.append(dict(point))
        if self.fails:
            raise ZeroDivisionError("the claim's own code")
        return Obligations(self.obligations_json)


POINT = {"m": 3, "eps": Fraction(1, 10)}


def record(of, **fields) -> dict:
    claim = of
    base = {"claim": claim.id, "statement": claim.statement_hash(), "parameters": certificates.encode(dict(POINT)),
            "made": {"code": code_digest(), "at": "2026"}, "obligations": claim.obligations_json,
            "status": "verified", "unknown": None, "certificates": ["00-a.cert.json", "01-b.cert.json"]}
    return base | fields


def put(tmp_path, claim, data, slug=SLUG, files=("00-a.cert.json", "01-b.cert.json")) -> None:
    folder = tmp_path / claim.id / slug
    folder.mkdir(parents=True, exist_ok=True)
    for name in files:
        (folder / name).write_text("{}")
    (folder / OUTCOME).write_text(data if isinstance(data, str) else json.dumps(data))


def done(tmp_path, claim, slug=SLUG):
    return sweep.done(str(tmp_path), claim, dict(POINT), slug)


def test_a_point_stored_by_the_same_claim_code_and_obligations_is_done_and_its_record_returned(tmp_path):
    claim = Claim()
    put(tmp_path, claim, record(claim))
    assert done(tmp_path, claim) == record(claim)
    assert claim.asked[-1] == POINT
    assert done(tmp_path, claim, slug="m=4") is None  # looked for in the point's own folder only
    assert record(claim)["parameters"] == {"m": 3, "eps": "1/10"}


@pytest.mark.parametrize("field, value", [
    ("claim", "test.other"), ("statement", "6" * 64), ("parameters", {"m": 3, "eps": "1/11"}),
    ("parameters", {"m": 3}), ("made", {"code": "sha256:other"}), ("made", {}), ("made", None), ("made", "x"),
    ("obligations", {"verify": [], "refute": [], "reach": "m <= 3"}), ("obligations", None),
])
def test_a_point_stored_otherwise_is_not_done(tmp_path, field, value):
    claim = Claim()
    put(tmp_path, claim, record(claim, **{field: value}))
    assert done(tmp_path, claim) is None


@pytest.mark.parametrize("data", ["", "not json", "[1, 2]", '"text"', "null", "{\"made\": {}}"])
def test_an_unreadable_or_malformed_file_is_not_done(tmp_path, data):
    claim = Claim()
    put(tmp_path, claim, data)
    assert done(tmp_path, claim) is None
    assert done(tmp_path / "nowhere", claim) is None


def test_a_claim_that_cannot_state_its_obligations_is_never_done(tmp_path):
    claim = Claim(fails=True)
    put(tmp_path, claim, record(claim))
    assert done(tmp_path, claim) is None
    # not even a record that states none: a failure to state them is not "no obligations"
    put(tmp_path, claim, {k: v for k, v in record(claim).items() if k != "obligations"})
    assert done(tmp_path, claim) is None
    put(tmp_path, claim, record(claim, obligations=None))
    assert done(tmp_path, claim) is None


@pytest.mark.parametrize("status, unknown, is_done", [
    ("unknown", {"why": "budget", "partial": True}, False),  # a larger budget may finish it
    ("unknown", {"why": "not established", "partial": False}, False),  # a failure (a lost worker) is worth a re-run
    ("unknown", {"why": "undecided", "partial": False}, True),
    ("unknown", {"why": "open", "partial": True}, True),
    ("unknown", "budget", True),  # not a record of why: nothing says a re-run could do better
    ("refuted", None, True),
    ("refuted", {"why": "budget"}, True),  # only an unknown is re-run
])
def test_only_an_unknown_a_rerun_could_improve_is_run_again(tmp_path, status, unknown, is_done):
    claim = Claim()
    put(tmp_path, claim, record(claim, status=status, unknown=unknown))
    assert (done(tmp_path, claim) is not None) is is_done
    assert sweep.RETRY == ("budget", "not established") and sweep.LOST == "lost"


@pytest.mark.parametrize("names, files", [
    (["00-a.cert.json", "01-b.cert.json", "02-c.cert.json"], ("00-a.cert.json", "01-b.cert.json")),  # one removed by hand
    ("00-a.cert.json", ("00-a.cert.json",)),  # not a list
    ([0], ()),
    (None, ()),
])
def test_every_certificate_the_record_names_must_be_there(tmp_path, names, files):
    claim = Claim()
    put(tmp_path, claim, record(claim, certificates=names), files=files)
    assert done(tmp_path, claim) is None


def test_a_record_naming_no_certificate_or_only_those_present_is_done(tmp_path):
    claim = Claim()
    put(tmp_path, claim, record(claim, certificates=[]), files=())
    assert done(tmp_path, claim) == record(claim, certificates=[])
    folder = tmp_path / claim.id / SLUG
    os.mkdir(folder / "02-dir.cert.json")  # a folder of that name is not the certificate
    put(tmp_path, claim, record(claim, certificates=["02-dir.cert.json"]), files=())
    assert done(tmp_path, claim) is None


def test_a_file_read_as_utf8_whatever_the_locale(tmp_path):
    claim = Claim(obligations={"verify": [{"words": "ε ≤ 1/10"}], "refute": [], "reach": ""})
    folder = tmp_path / claim.id / SLUG
    folder.mkdir(parents=True)
    for name in ("00-a.cert.json", "01-b.cert.json"):
        (folder / name).write_text("{}")
    (folder / OUTCOME).write_bytes(json.dumps(record(claim), ensure_ascii=False).encode("utf-8"))
    assert done(tmp_path, claim) == record(claim)
