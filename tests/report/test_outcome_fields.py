"""The outcome file's newer fields as the report shows them: when and with which code an outcome was made,
stale outcomes, unknown split by why (open, budget ran out), partial outcomes with what was discharged.

Older outcome files lack these fields: the report reads them defensively.  The toy outcomes are edited
copies of a real check of the two test claims (see ``toy.py``).
"""

import dataclasses
import json
import shutil

from theorems.cli import main
from theorems.report import build
from theorems.report.model import safe

from . import toy


def edit(folder, claim_id, change):
    """Apply ``change(record)`` to the outcome file of ``claim_id`` in ``folder`` and to its line in outcomes.json."""
    path = next(folder.glob(f"{claim_id}/*/outcome.json"))
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))
    listed = json.loads((folder / "outcomes.json").read_text())
    listed = [record if r.get("claim") == claim_id else r for r in listed]
    (folder / "outcomes.json").write_text(json.dumps(listed))
    return path


def copy(outcomes, tmp_path):
    folder = tmp_path / "latest"
    shutil.copytree(outcomes, folder)
    return folder


def entry_of(report, claim_id):
    return next(e for e in report.entries if e.id == claim_id)


def test_each_outcome_says_when_and_with_which_code_it_was_made(outcomes, tmp_path):
    folder = copy(outcomes, tmp_path)
    made = {"at": "2026-11-30T21:04:05Z", "version": "0.1.0", "code": "sha256:" + "ab" * 32}
    edit(folder, "report_test.diagonal_rank", lambda r: r.update(made=made))
    edit(folder, "report_test.unipotent_rank", lambda r: r.pop("made", None))  # a file from before the field
    build(str(folder), str(tmp_path / "site"))
    page = (tmp_path / "site" / "claims" / "report_test.diagonal_rank.html").read_text(encoding="utf-8")
    assert "made 2026-11-30 21:04:05 UTC with attnproof 0.1.0, code sha256:abababababab…" in page
    other = (tmp_path / "site" / "claims" / "report_test.unipotent_rank.html").read_text(encoding="utf-8")
    assert "made: not recorded" in other
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "made 2026-11-30 21:04:05 UTC" in index.split('id="row-report_test.diagonal_rank"')[1].split("</tr>")[0]
    assert "made 2026-11-30 21:04:05 UTC" in (tmp_path / "site" / "index.md").read_text(encoding="utf-8")


def test_a_malformed_made_field_is_not_shown_as_a_date(outcomes, tmp_path):
    folder = copy(outcomes, tmp_path)
    edit(folder, "report_test.diagonal_rank", lambda r: r.update(made={"at": "<script>x</script>", "version": 3}))
    build(str(folder), str(tmp_path / "site"))
    page = (tmp_path / "site" / "claims" / "report_test.diagonal_rank.html").read_text(encoding="utf-8")
    assert "made: not recorded" in page and "<script>" not in page


def test_an_outcome_made_for_another_statement_is_marked_stale(outcomes, tmp_path):
    """Made for an older statement (the outcome and its certificates agree with each other, not with the claim)."""
    folder = copy(outcomes, tmp_path)
    old = "0" * 64
    path = edit(folder, "report_test.diagonal_rank", lambda r: r.update(statement=old))
    for cert in path.parent.glob("*.cert.json"):
        envelope = json.loads(cert.read_text())
        envelope["statement"] = old
        cert.write_text(json.dumps(envelope))
    site = tmp_path / "site"
    assert main(["report", "--outcomes", str(folder), "--out", str(site)]) == 1  # stale establishes nothing
    report = build(str(folder), str(tmp_path / "again"))
    entry = entry_of(report, "report_test.diagonal_rank")
    (point,) = entry.points
    assert point.stale and not point.stands and point.rung == "not established"
    assert entry.standing.key == "stale" and entry.standing.loud
    assert "attnproof check report_test.diagonal_rank" in entry.standing.detail
    index = (site / "index.html").read_text(encoding="utf-8")
    row = index.split('id="row-report_test.diagonal_rank"')[1].split("</tr>")[0]
    assert 'badge stale">STALE' in row and "verified up to" not in row
    assert "1 stale" in index.split('id="summary"')[1].split("</div>")[0]
    page = (site / "claims" / "report_test.diagonal_rank.html").read_text(encoding="utf-8")
    assert "STALE — made for another statement" in page
    assert "**STALE" in (site / "index.md").read_text(encoding="utf-8")
    assert not entry_of(report, "report_test.unipotent_rank").standing.loud  # the other claim is untouched


def test_a_budget_run_out_is_partial_with_each_discharged_obligation_and_its_certificate(outcomes, tmp_path, monkeypatch):
    """A real budget run out between two obligations (``tests/theorems/cli_toy.py``): 1 of 2 discharged, it stands."""
    from tests.theorems import cli_toy
    from theorems import core

    two = cli_toy.CLAIM.id
    core.register(cli_toy.CLAIM)
    monkeypatch.setenv(core.MODULES_VARIABLE, "tests.report.toy,tests.theorems.cli_toy")  # for verify's binding process
    try:
        folder = copy(outcomes, tmp_path)
        assert main(["check", two, "--budget", "0.000001", "--jobs", "1", "--out", str(folder)]) == 1
        report = build(str(folder), str(tmp_path / "site"))
    finally:
        core._REGISTRY.pop(two, None)
    entry = entry_of(report, two)
    (point,) = entry.points
    assert point.stands and point.partial and point.unknown_why == "budget"  # unknown claims nothing: it stands
    assert point.status_label == "unknown: budget ran out (partial)"
    assert [o["by"] for o in point.discharged] == ["00-rank-lower.cert.json"]  # the discharged ones, each with its certificate
    assert "NOT AS EXPECTED" in entry.standing.label and "budget ran out" in entry.standing.label
    assert "partial: 1 of 2 obligation(s) discharged" in entry.standing.detail
    page = (tmp_path / "site" / "claims" / f"{two}.html").read_text(encoding="utf-8")
    section = page.split(f'id="accepted-point-{safe(point.slug)}"')[1].split("</div>")[0]
    assert "Partial:" in section and "1 of 2 obligation(s)" in section and "00-rank-lower.cert.json" in section
    assert "verified up to" not in section and "proved for every parameter" not in section
    assert "3 × 3 identity has rank at least 3" in section
    assert "not discharged" in section  # the undischarged one too
    row = (tmp_path / "site" / "index.html").read_text(encoding="utf-8").split(f'id="row-{two}"')[1].split("</tr>")[0]
    assert "unknown: budget ran out (partial)" in row and "discharged by 00-rank-lower.cert.json" in row
    assert "partial, never verified" in row


def test_an_unknown_whose_certificates_discharge_every_verify_obligation_does_not_stand(outcomes, tmp_path):
    """diag(1, 1, 1)'s one verify obligation is discharged: an outcome edited to say unknown hides a verification."""
    folder = copy(outcomes, tmp_path)
    edit(folder, "report_test.diagonal_rank", lambda r: r.update(
        status="unknown", message="budget ran out before the check finished", unknown={"why": "budget", "partial": True}))
    report = build(str(folder), str(tmp_path / "site"))
    entry = entry_of(report, "report_test.diagonal_rank")
    (point,) = entry.points
    assert not point.stands and "must say verified" in point.why_not and entry.standing.loud


def test_an_old_outcome_file_without_unknown_why_reads_it_from_the_message(outcomes, tmp_path):
    folder = copy(outcomes, tmp_path)
    edit(folder, "report_test.unipotent_rank", lambda r: (r.update(
        status="unknown", message="budget ran out before the check finished", certificates=[]), r.pop("unknown", None)))
    report = build(str(folder), str(tmp_path / "site"))
    (point,) = entry_of(report, "report_test.unipotent_rank").points
    assert point.unknown_why == "budget" and not point.partial and point.status_label == "unknown: budget ran out"


def test_an_open_conjecture_is_open_not_budget(outcomes, tmp_path, monkeypatch):
    """A real check of an open conjecture (``open_toy.py``): every verify obligation discharged, unknown, and it stands."""
    from theorems import core

    from . import open_toy

    name = open_toy.CLAIM.id
    core.register(open_toy.CLAIM)
    monkeypatch.setenv(core.MODULES_VARIABLE, "tests.report.toy,tests.report.open_toy")  # for verify's binding process
    try:
        folder = copy(outcomes, tmp_path)
        assert main(["check", name, "--jobs", "1", "--out", str(folder)]) == 0
        report = build(str(folder), str(tmp_path / "site"))
    finally:
        core._REGISTRY.pop(name, None)
    entry = entry_of(report, name)
    (point,) = entry.points
    assert point.stands and point.unknown_why == "open" and point.status_label == "unknown: open (partial)"
    assert entry.standing.key == "open" and not entry.standing.loud
    assert "on the way, at default: partial: 1 of 1" in entry.standing.detail
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    summary = index.split('id="summary"')[1].split("</div>")[0]
    assert "unknown: open (partial)" in summary and 'badge open">open conjecture' in summary


def test_the_files_own_discharged_list_is_shown_unchecked_and_a_false_claim_in_it_is_loud(outcomes, tmp_path):
    folder = copy(outcomes, tmp_path)
    claimed = [{"side": "verify", "obligation": "the 3 x 3 matrix diag(1, ..., 1, 1) has rank at least 3",
                "certificate": "00-rank-lower.cert.json"},
               {"side": "refute", "obligation": "the 3 x 3 matrix diag(1, ..., 1, 1) has rank at most 2",
                "certificate": "00-rank-lower.cert.json"}]  # the second is false: that file proves no refutation
    edit(folder, "report_test.diagonal_rank", lambda r: r.update(discharged=claimed))
    report = build(str(folder), str(tmp_path / "site"))
    (point,) = entry_of(report, "report_test.diagonal_rank").points
    assert point.stands and len(point.disagreements) == 1 and "rank at most 2" in point.disagreements[0]
    page = (tmp_path / "site" / "claims" / "report_test.diagonal_rank.html").read_text(encoding="utf-8")
    checked, reported = page.split("Reported by the check, unchecked")
    assert "What the check says it discharged" in reported and "What the check says it discharged" not in checked
    assert "the trusted checker finds it not discharged" in reported
    untouched = build(str(outcomes), str(tmp_path / "as-checked"))  # as the check wrote it, the two agree
    assert [p.disagreements for e in untouched.entries for p in e.points] == [[], []]
    # when the checker stopped before examining any obligation (a certificate refused for its work, say), it found
    # nothing either way: no row is reported as "not discharged" by it, and why_not carries the reason
    point.check = dataclasses.replace(point.check, obligations=[], checked=False, reason="a certificate was refused")
    assert point.disagreements == [] and "a certificate was refused" in point.why_not
