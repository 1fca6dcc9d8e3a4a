"""Coq in the report: the KTheorems.v statements a claim names, and the rung "checked by Coq" (report --coq).

The tests that run Coq need ``coqc`` (Debian's ``coq``); without it they are skipped, except under
``CI=true``, where they fail.  The first build of ``formal/`` takes a minute or two and is cached.
"""

import hashlib
import html
import os
import re
import shutil

import pytest

from theorems import formal
from theorems.cli import main
from theorems.core import get
from theorems.report import coq

from .test_browser import browser  # noqa: F401 (the fixture)

CLAIMS = ["three_token_lower_bound", "rank_two"]


def require_coqc():
    if shutil.which("coqc") is None:
        reason = f"the Coq tests need coqc (apt-get install {formal.PACKAGES})"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " — and CI=true, so this is a failure, not a skip")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """The two claims of paper K that Coq can check, at their default points (a few seconds)."""
    out = tmp_path_factory.mktemp("coq-outcomes") / "out"
    assert main(["check", *CLAIMS, "--out", str(out)]) == 0
    return out


def exported_files(done) -> str:
    """The digest of an export's ``.v`` files (names and bytes): two exports with the same digest ask Coq the
    same questions."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(done.folder)):
        if name.endswith(".v"):
            with open(os.path.join(done.folder, name), "rb") as handle:
                digest.update(name.encode() + b"\0" + handle.read() + b"\0")
    return digest.hexdigest()


@pytest.fixture(scope="module")
def coq_report(checked, tmp_path_factory):
    """``report --coq`` of ``checked`` (coqc really runs), and what Coq answered for each exported obligation
    file, keyed by the digest of the export: ``(site, digest, {file: (accepted, error)})``."""
    require_coqc()
    site = tmp_path_factory.mktemp("coq-report") / "site"
    compile_files, answered = formal.compile, {}

    def recorded(done, jobs=2):
        compile_files(done, jobs)
        answered[exported_files(done)] = {o.file: (o.accepted, o.error) for o in done.obligations if o.file}

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(formal, "compile", recorded)
        assert main(["report", "--coq", "--outcomes", str(checked), "--out", str(site)]) == 0
    ((digest, results),) = answered.items()
    return site, digest, results


@pytest.fixture(scope="module")
def with_coq(coq_report):
    return coq_report[0]


def page(site, claim_id: str) -> str:
    return (site / "claims" / f"{claim_id}.html").read_text(encoding="utf-8")


def accepted_section(text: str) -> str:
    return text.split('id="accepted-point-')[1].split("</div>")[0]


def test_the_claim_page_shows_the_coq_statement_verbatim_linked_readable_and_glossed(with_coq):
    text = page(with_coq, "kernel_rank.three_token_lower_bound")
    statement = formal.statements()["K3_rank_one_iff"]
    assert statement.startswith("forall m : nat,")
    said = text.split('id="statement"')[1].split('id="rests-on"')[0]
    assert f"<code>{html.escape(f'Theorem K3_rank_one_iff : {statement}.')}</code>" in said  # verbatim, monospace
    line = 1 + (with_coq / "formal" / "KTheorems.v").read_text(encoding="utf-8").split("Theorem K3_rank_one_iff")[0].count("\n")
    assert f'href="../formal/KTheorems.html#K3_rank_one_iff"' in said and f"line {line})" in said
    theorems = (with_coq / "formal" / "KTheorems.html").read_text(encoding="utf-8")
    assert 'id="K3_rank_one_iff"' in theorems and f'id="L{line}"' in theorems
    assert (with_coq / "formal" / "KTheorems.v").read_bytes() == open(os.path.join(formal.FORMAL, "KTheorems.v"), "rb").read()
    assert "∀ m : ℕ, 1 ≤ m → (solvable 1 m 3 ↔ m ≤ 3)" in said  # readable: no %nat, no ->
    # the gloss of solvable is the comment KDefs.v writes above its definition
    defs = open(os.path.join(formal.FORMAL, "KDefs.v"), encoding="utf-8").read()
    comment = re.search(r"\(\*\*\s*((?:(?!\(\*).)*?)\s*\*\)\s*Definition solvable\b", defs, re.S).group(1)
    # the gloss, its mathematics set as MathML (through the report's one renderer): compared as a reader sees it
    shown = re.sub(r"\s+", "", html.unescape(re.sub(r"<[^>]+>", "", said)))
    assert re.sub(r"\s+", "", " ".join(comment.split()).replace("<=", "≤").replace("^", "")) in shown  # ^m: a superscript
    assert 'href="../formal/KDefs.html#solvable"' in said and 'id="solvable"' in (with_coq / "formal" / "KDefs.html").read_text()
    # the project's own reading stays, below the Coq statement, labelled so
    assert said.index("K3_rank_one_iff") < said.index("The project's own reading (sympy)") < said.index('id="formula"')
    markdown = (with_coq / "claims" / "kernel_rank.three_token_lower_bound.md").read_text(encoding="utf-8")
    assert f"```coq\nTheorem K3_rank_one_iff : {statement}.\n```" in markdown and "The project's own reading (sympy)" in markdown


def test_an_outcome_whose_obligations_coq_all_accepted_shows_the_rung(with_coq):
    for claim_id in ("kernel_rank.three_token_lower_bound", "kernel_rank.rank_two"):
        text = page(with_coq, claim_id)
        section = accepted_section(text)
        assert re.search(r'<span class="badge (proved|verified)">.*?</span> <span class="badge coqchecked">checked by Coq</span>',
                         section), claim_id
        k, n = re.search(r"Checked by Coq: (\d+) of (\d+) verify obligation", section).groups()
        assert k == n and int(n) == section.count("<strong>accepted by Coq</strong>") >= 1
    section = accepted_section(page(with_coq, "kernel_rank.three_token_lower_bound"))
    assert "<code>solvable 1 1 3</code>" in section  # the statement Coq accepted, per obligation
    assert re.search(r'href="\.\./coq/o\d{4}\.v"', section)
    for name in re.findall(r'href="\.\./coq/(o\d{4}\.v)"', section):
        assert (with_coq / "coq" / name).read_text().startswith("(*")
    index = (with_coq / "index.html").read_text(encoding="utf-8")
    assert index.count('<span class="badge coqchecked">checked by Coq</span>') >= 2 and "Coq accepted 6 of 6" in index
    assert "*checked by Coq*" in (with_coq / "claims" / "kernel_rank.rank_two.md").read_text(encoding="utf-8")


def test_without_coq_no_coq_rung_is_shown(checked, tmp_path):
    site = tmp_path / "site"
    assert main(["report", "--outcomes", str(checked), "--out", str(site)]) == 0
    for path in [*site.rglob("*.html"), *site.rglob("*.md")]:
        assert "checked by Coq" not in path.read_text(encoding="utf-8"), path.name
    text = page(site, "kernel_rank.three_token_lower_bound")
    assert html.escape(f"Theorem K3_rank_one_iff : {formal.statements()['K3_rank_one_iff']}.") in text  # still stated
    assert "Not compiled for this report" in text and not (site / "coq").exists()


def test_an_obligation_coq_did_not_accept_takes_the_rung_away(checked, coq_report, tmp_path, monkeypatch, capsys):
    _, digest, results = coq_report

    def one_refused(done, jobs=2):
        # the same outcomes export the same files as coq_report's run: Coq's answers to them are that run's (the
        # files are compared, not assumed; coqc is not run twice on them), then one obligation is marked refused
        assert exported_files(done) == digest
        for item in done.obligations:
            if item.file:
                item.accepted, item.error = results[item.file]
        assert all(item.accepted for item in done.obligations if item.file)
        mine = [o for o in done.obligations if o.file and "three_token_lower_bound" in o.outcome]
        mine[0].accepted, mine[0].error = False, "Error: refused (marked by the test)"

    monkeypatch.setattr(formal, "compile", one_refused)
    site = tmp_path / "site"
    assert main(["report", "--coq", "--outcomes", str(checked), "--out", str(site)]) == 1
    section = accepted_section(page(site, "kernel_rank.three_token_lower_bound"))
    assert "checked by Coq</span>" in section and '<span class="badge coqchecked">' not in section
    assert re.search(r'<span class="badge coqpartial">(\d+) of (\d+) obligation\(s\) checked by Coq</span>', section)
    k, n = re.search(r"(\d+) of (\d+) obligation\(s\) checked by Coq", section).groups()
    assert int(k) == int(n) - 1
    assert "NOT ACCEPTED BY COQ</strong>: Error: refused (marked by the test)" in section
    assert "NOT ACCEPTED BY COQ" in (site / "index.html").read_text(encoding="utf-8")  # loudly, on the dashboard
    # the other claim keeps its rung; the first claim's own badge does not get one
    assert '<span class="badge coqchecked">' in accepted_section(page(site, "kernel_rank.rank_two"))
    standing = page(site, "kernel_rank.three_token_lower_bound").split('id="standing"')[1].split("</div>")[0]
    assert "coqchecked" not in standing


def test_report_coq_without_coqc_is_one_line_naming_the_packages(checked, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(formal.shutil, "which", lambda name: None)
    assert main(["report", "--coq", "--outcomes", str(checked), "--out", str(tmp_path / "site")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"apt-get install -y {formal.PACKAGES}" in err
    assert not (tmp_path / "site").exists()  # said before any work


def test_readable_coq_and_the_glossary_come_from_the_files():
    assert coq.readable("forall m n : nat, (4 <= m)%nat -> (3 <= n)%nat -> ~ psolvable 1 m n /\\ ~ csolvable 1 m n") == \
        "∀ m n : ℕ, 4 ≤ m → 3 ≤ n → ¬ psolvable 1 m n ∧ ¬ csolvable 1 m n"
    assert coq.readable("forall m : nat, (1 <= m <= 3)%nat -> psolvable 1 m 3") == "∀ m : ℕ, 1 ≤ m ≤ 3 → psolvable 1 m 3"
    assert coq.readable("exists h : head 1, solves_within (Q2R (1#2)) 3 3 h") == "∃ h : head 1, solves_within (1/2) 3 3 h"
    assert coq.readable("solves_within (Q2R (0#1)) m 1 h") == "solves_within 0 m 1 h"
    words = coq.glossary()
    for name in ("solvable", "psolvable", "csolvable", "solves_within", "min_feature_rank"):
        assert name in words and re.search(rf"^Definition {name}\b", open(os.path.join(formal.FORMAL, "KDefs.v")).read(), re.M)
    assert words["solvable"].signature == "solvable r m n" and words["solvable"].body == "∃ h : head r, solves m n h"
    # every word a stated theorem uses is glossed, and one level down what their short bodies use
    for claim_id in ("kernel_rank.position_and_causal", "kernel_rank.rank_one_short", "kernel_rank.feature_rank_table"):
        stated = [s.statement for s in coq.stated(get(claim_id))]
        assert stated and all(stated)
        shown = {g.name for g in coq.glosses(stated)}
        assert {w for s in stated for w in re.findall(r"[a-z_]+", s) if w in words} <= shown


def test_the_coq_statements_read_in_a_browser_at_760_px(with_coq, browser, tmp_path):
    """Chromium at 760 px: the Coq statement, its readable form and the rung are on the page as a reader sees
    it, nothing is wider than the window, the mathematics is laid out; the theorem's link lands on its line."""
    from selenium.webdriver.common.by import By

    from .test_browser import READER, assert_rendered

    browser.set_window_size(760, 1000)
    browser.get((with_coq / "claims" / "kernel_rank.three_token_lower_bound.html").as_uri())
    assert_rendered(browser, "the three-token claim with Coq, at 760 px")
    box = browser.find_element(By.ID, "coq").text
    assert f"Theorem K3_rank_one_iff : {formal.statements()['K3_rank_one_iff']}." in " ".join(box.split())
    assert "∀ m : ℕ, 1 ≤ m → (solvable 1 m 3 ↔ m ≤ 3)" in box
    assert "checked by Coq" in browser.find_element(By.ID, "accepted-point-default").text
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(760, min(height, 12000))
    assert browser.save_screenshot(str(tmp_path / "report-coq-claim-760.png"))
    browser.set_window_size(760, 1000)
    browser.find_element(By.CSS_SELECTOR, 'a[href="../formal/KTheorems.html#K3_rank_one_iff"]').click()
    assert browser.current_url.endswith("/formal/KTheorems.html#K3_rank_one_iff")
    seen = browser.execute_script(READER)
    assert seen["wide"] == [] and seen["scrollWidth"] <= seen["width"], seen
    top = browser.execute_script("return document.getElementById('K3_rank_one_iff').getBoundingClientRect().top")
    assert -2 <= top < 200  # the theorem's line is at the top of the window
