"""A fuzzer: real certificates and outcome folders, mutated structurally and numerically.

Whatever the mutation, the checker answers accepted / REJECTED / REFUSED —
never a traceback, never past a time bound; a mutated certificate it accepts
never discharges what the honest one did unless its judgment is the honest
one's; and a mutated verdict that still stands discharges exactly what the
claim states.
"""

import copy
import glob
import json
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solvers.trusted import core
from solvers.trusted.core import CertificateError, Refused
from theorems import verification
from theorems.cli import main

# quick claims whose certificates cover several families
QUICK = ["rank_one_short", "rational_decoding_collision", "duality", "residual_error_tanh", "row_lemma"]
SMALL_WORK = 2 * 10**7


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    out = tmp_path_factory.mktemp("fuzz") / "out"
    main(["check", *QUICK, "--out", str(out), "--jobs", "1"])
    return out


@pytest.fixture(scope="module")
def certificates(outcomes):
    """Each certificate the quick claims wrote, with the judgment the checker accepts from it and the
    obligations of its outcome that judgment discharges (at least one)."""
    found = []
    for record_path in sorted(glob.glob(str(outcomes / "*" / "*" / "outcome.json"))):
        with open(record_path, encoding="utf-8") as handle:
            record = json.load(handle)
        obligations = [o["judgment"] for side in ("verify", "refute") for o in record["obligations"][side]]
        for name in record["certificates"]:
            with open(os.path.join(os.path.dirname(record_path), name), encoding="utf-8") as handle:
                cert = json.load(handle)
            judgment = core.check(cert, SMALL_WORK).judgment
            discharged = [o for o in obligations if core.discharges(judgment, o)]
            assert discharged, f"{record_path}: {name} discharges none of its outcome's obligations"
            found.append((cert, judgment, discharged))
    assert found, "the quick claims wrote no certificates"
    return found


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.integers(10**30, 10**31), st.just("1/0"),
                   st.just("1e1000000000"), st.just("x"), st.just([]), st.just({}), st.just([[1]]), st.just("-1/2"))


def _paths(value, prefix=()):
    """Every path into nested lists and dicts."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            yield from _paths(v, prefix + (i,))


def _mutate(cert, choice, how, value):
    cert = copy.deepcopy(cert)
    paths = [p for p in _paths(cert["data"]) if p]
    if not paths:
        return cert
    path = paths[choice % len(paths)]
    parent = cert["data"]
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if how == "replace":
        parent[last] = value
    elif how == "delete":
        del parent[last]
    elif how == "bump" and isinstance(parent[last], int) and not isinstance(parent[last], bool):
        parent[last] += 1
    elif how == "bump" and isinstance(parent[last], str) and "/" in parent[last]:
        p, q = parent[last].split("/")
        parent[last] = f"{int(p) + 1}/{q}"
    elif how == "duplicate" and isinstance(parent[last], list) and parent[last]:
        parent[last] = parent[last] + parent[last][:1]
    elif how == "truncate" and isinstance(parent[last], list):
        parent[last] = parent[last][:-1]
    return cert


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(["replace", "delete", "bump", "duplicate", "truncate"]), VALUES)
def test_mutated_certificates_never_crash_the_checker_nor_pass_for_the_original(certificates, which, choice, how, value):
    """A mutated certificate is rejected, refused, or accepted with a judgment that is the original's
    or discharges neither the original's judgment nor any obligation the original discharged: a
    mutation never passes for what the honest certificate proved."""
    original, judgment, discharged = certificates[which % len(certificates)]
    cert = _mutate(original, choice, how, value)
    start = time.monotonic()
    try:
        accepted = core.check(cert, SMALL_WORK)
    except (CertificateError, Refused):
        accepted = None
    assert time.monotonic() - start < 30
    if accepted is not None and accepted.judgment != judgment:
        assert isinstance(accepted.judgment, dict) and accepted.judgment.get("judgment")
        forged = [o for o in [judgment, *discharged] if core.discharges(accepted.judgment, o)]
        assert not forged, f"a {how} mutation of a {original['kind']} certificate is accepted as {accepted.judgment}, which discharges {forged}"


OUTCOME_EDITS = {
    "raise a tolerance": lambda r: _first_field(r, ("tolerance", "epsilon"), lambda v: "7/8"),
    "relabel a parameter": lambda r: r["parameters"].update({k: (v + 1 if isinstance(v, int) else v) for k, v in list(r["parameters"].items())[:1]}),
    "edit an obligation's words": lambda r: r["obligations"]["verify" if r["obligations"]["verify"] else "refute"][0].update(words="anything"),
    "drop a certificate": lambda r: r["certificates"].pop(),
    "claim another status": lambda r: r.update(status="verified" if r["status"] != "verified" else "refuted"),
    "another statement": lambda r: r.update(statement="0" * 64),
}


def _first_field(record, names, change):
    for side in ("verify", "refute"):
        for ob in record["obligations"][side]:
            for name in names:
                if name in ob["judgment"]:
                    ob["judgment"][name] = change(ob["judgment"][name])
                    return
    record["status"] = "refuted" if record["status"] == "verified" else "verified"  # no tolerance: break it otherwise


@pytest.mark.parametrize("edit", sorted(OUTCOME_EDITS))
def test_every_edit_of_an_outcome_file_is_caught(outcomes, tmp_path, edit):
    import shutil

    copy_ = tmp_path / "out"
    shutil.copytree(outcomes, copy_)
    files = sorted(glob.glob(str(copy_ / "*" / "*" / "outcome.json")))
    edited = next(f for f in files if json.load(open(f))["certificates"])
    record = json.load(open(edited))
    OUTCOME_EDITS[edit](record)
    with open(edited, "w") as handle:
        json.dump(record, handle)
    result = verification.verify([os.path.dirname(edited)])
    assert not result.ok
    (bad,) = result.outcomes
    assert not bad.ok and (bad.reason or bad.binding)


def test_the_honest_folder_stands(outcomes):
    result = verification.verify([str(outcomes)])
    assert result.ok, [(o.claim, o.reason, o.binding) for o in result.outcomes if not o.ok]
    assert result.foreign_modules == []


def test_a_certificate_moved_to_another_claim_is_caught(outcomes, tmp_path):
    import shutil

    copy_ = tmp_path / "out"
    shutil.copytree(outcomes, copy_)
    folders = sorted(os.path.dirname(f) for f in glob.glob(str(copy_ / "*" / "*" / "outcome.json")))
    source = next(f for f in folders if glob.glob(os.path.join(f, "*.cert.json")))
    target = next(f for f in folders if f.split(os.sep)[-2] != source.split(os.sep)[-2])
    cert = sorted(glob.glob(os.path.join(source, "*.cert.json")))[0]
    shutil.copy(cert, target)
    record_path = os.path.join(target, "outcome.json")
    record = json.load(open(record_path))
    record["certificates"].append(os.path.basename(cert))
    with open(record_path, "w") as handle:
        json.dump(record, handle)
    result = verification.verify([target])
    assert not result.ok and "another claim" in result.outcomes[0].reason
