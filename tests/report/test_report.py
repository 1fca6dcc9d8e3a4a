import html
import json
import math
import os
import re
import shutil
from fractions import Fraction
from html.parser import HTMLParser
from urllib.parse import unquote

import pytest
import sympy

import theorems.cli as cli
from theorems.cli import main
from theorems.core import Plot, get, registry
import theorems.report as report_module
from theorems.report import build, graph, mathml, plots, reading, values
from theorems.report.model import safe

from . import toy
from .conftest import SMALL, TOYS


class Links(HTMLParser):
    """Every href/src and every id of an HTML page."""

    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)
            if name == "id":
                self.ids.add(value)


def parse(path):
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def tree(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def visible_text(markup: str) -> str:
    """The text a reader sees outside code: tags, code and preformatted blocks removed."""
    markup = re.sub(r"<(code|pre|style|title)\b.*?</\1>", " ", markup, flags=re.S)
    return re.sub(r"<[^>]+>", " ", markup)


# ------------------------------------------------------------------ the site


def test_two_reports_of_the_same_outcomes_are_byte_identical(outcomes, site, tmp_path):
    # the package's report of these outcomes (conftest's site, made earlier in the run) and one made now
    build(str(outcomes), str(tmp_path / "b"))
    a, b = tree(site), tree(tmp_path / "b")
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []
    assert any(k.endswith(".svg") and "plots" in k for k in a)  # the figures are part of the comparison


def test_every_registered_claim_has_a_page_a_markdown_copy_and_a_dashboard_row(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    markdown = (site / "index.md").read_text(encoding="utf-8")
    for claim_id in registry():
        assert (site / "claims" / f"{claim_id}.html").is_file()
        assert (site / "claims" / f"{claim_id}.md").is_file()
        assert f'href="claims/{claim_id}.html"' in index
        assert f"(claims/{claim_id}.md)" in markdown


def test_every_link_resolves_and_nothing_points_off_disk(site):
    pages = sorted(site.rglob("*.html"))
    from theorems.report import coq

    assert len(pages) == len(registry()) + 1 + len(coq.SOURCES)  # the dashboard, a page per claim, formal/'s sources
    ids = {page: parse(page).ids for page in pages}
    for page in pages:
        for link in parse(page).links:
            assert not re.match(r"^[a-z]+:", link), f"{page.name} links off disk: {link}"
            target, _, fragment = link.partition("#")
            path = (page.parent / unquote(target)).resolve() if target else page
            assert path.is_file(), f"{page.name}: {link} does not resolve"
            if fragment and path.suffix == ".html":
                assert fragment in ids[path], f"{page.name}: no #{fragment} in {path.name}"


def test_no_raw_latex_left_in_any_page(site):
    for page in site.rglob("*.html"):
        markup = page.read_text(encoding="utf-8")
        text = visible_text(markup)
        assert not re.search(r"\\[A-Za-z]+", text), f"a TeX command in {page.name}"
        assert "$" not in text, f"a TeX delimiter in {page.name}"
        assert "<mi>varepsilon</mi>" not in markup, f"varepsilon as a word in {page.name}"
    for page in [*site.rglob("*.html"), *site.rglob("*.md")]:  # no reST leaks: roles become code
        assert not re.search(r":(mod|func|meth|class|attr):`", page.read_text(encoding="utf-8")), page.name


def test_readings_are_markdown_with_their_ascii_mathematics_as_mathml():
    doc = """Model: scores ``-beta <q, x>``, the threshold ``beta*(m) = max_{d<=m} ln(2(2d-1))/d``.

Found by :func:`solvers.lp.decide` at ``m_max``; kind ``approx-rank-lower-points``; **bold**.

    y(X) = sum_j psi(x_j) U[q, x_j] / sum_j psi(x_j)
"""
    out = reading.to_html(doc)
    assert "<mi>β</mi>" in out and "⟨" in out and "<mo>≤</mo>" in out  # Greek letters, <x, q>, <=
    assert "<msup><mi>β</mi><mrow><mo>*</mo></mrow></msup>" in out  # beta*: a starred beta
    assert "<code>solvers.lp.decide</code>" in out and "<code>m_max</code>" in out
    assert "<code>approx-rank-lower-points</code>" in out and "<strong>bold</strong>" in out
    assert 'class="display"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in out
    assert ":func:" not in out and "``" not in out and "\\" not in out and "beta" not in out
    for code in ("theorems.kernel_rank._linearised", "m_max", "search_rounds", "ResidualErrorTanh", "1100, 0011"):
        assert reading.is_code(code), code
    for math in ("psi_j", "rank_eps(A) <= k", "kappa(q, x) = phi(q) psi(x)", "T", "eps in (0, 1)"):
        assert not reading.is_code(math), math


def test_statements_are_mathml_from_the_sympy_objects(site):
    page = (site / "claims" / "kernel_rank.softmax_three_tokens.html").read_text(encoding="utf-8")
    statement = page.split('id="statement"')[1].split("</table>")[0]
    # one formula with its quantifiers, then each part beside its words (whose own mathematics is MathML too)
    assert statement.count('<div class="cell-math">') == len(get("softmax_three_tokens").statement().hypotheses) + 1
    assert statement.count('id="formula"') == 1
    formula = statement.split('id="formula"')[1].split("</div>")[0]
    assert formula.startswith('><math') and "<mo>∀</mo><mrow><mi>m</mi></mrow>" in formula and "<mo>⟹</mo>" in formula
    assert "<mo>∀</mo><mrow><mi>X</mi></mrow>" in formula  # "on every sequence X": bound in the conclusion
    assert "<mtable" in statement  # the Piecewise threshold as cases
    assert "κ" in statement and "<mi>T</mi>" in statement  # names as written, case kept
    assert "<mfrac><mn>1</mn><mn>2</mn></mfrac>" in page


def test_claim_page_shows_what_the_checker_accepted_then_what_the_check_reported(site, outcomes):
    page = (site / "claims" / "report_test.diagonal_rank.html").read_text(encoding="utf-8")
    assert "What the paper states" in page and "diagonal matrix" in page
    assert "Two small claims for the report" in page  # the reading, from the module docstring
    section = accepted(page, "n=3")
    assert says(section, "verified up to n = 3, d = 1") and "proved for every parameter" not in section
    assert says(section, "the 3 x 3 matrix diag(1, ..., 1, 1) has rank at least 3")
    assert "discharged by" in section and "00-rank-lower.cert.json" in section
    assert "rank at most 2" in section and "not discharged" in section  # the refutation, not discharged
    # the certificate: the checker's own words, a link to the copy, the command that re-checks it
    assert says(page, "rank >= 3 (3 x 3 matrix sha256:")
    where = next(outcomes.glob("report_test.diagonal_rank/*/outcome.json")).parent
    record = json.loads((where / "outcome.json").read_text())
    for path in record["certificates"]:  # names in the point folder (older files: paths ending in one)
        rel = f"data/report_test.diagonal_rank/{where.name}/{os.path.basename(path)}"
        assert f"attnproof verify {rel}" in page
        assert (site / rel).read_bytes() == (where / os.path.basename(path)).read_bytes()
    reported = page.split("Reported by the check, unchecked")[1]
    assert "<mfrac><mn>1</mn><mn>2</mn></mfrac>" in reported  # the fact 1/2 as a fraction, among the unchecked
    assert page.count('<img src="../assets/plots/report_test.diagonal_rank/') == 1  # the generic table figure


def test_the_copied_data_re_checks(site, capsys):
    assert main(["verify", str(site / "data")]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 certificate(s) accepted; 2 of 2 outcome(s) stand" in out


def test_graph_links_every_claim_and_draws_every_uses_edge(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    svg = index.split("<svg", 1)[1].split("</svg>", 1)[0]
    claims = registry()
    for claim_id in claims:
        assert f'<a class="node" href="claims/{claim_id}.html" data-claim="{claim_id}">' in svg
    edges = sum(len(set(c.uses) - {c.id}) for c in claims.values())
    assert svg.count('<path class="edge"') == edges
    assert "report_test.unipotent_rank rests on report_test.diagonal_rank" in svg


# ---------------------------------------------------------- rungs from evidence


def accepted(page: str, slug: str) -> str:
    """The section "what the trusted checker accepted" of one point of a claim page."""
    return page.split(f'<div class="accepted" id="accepted-point-{safe(slug)}">')[1].split("</div>")[0]


def dashboard_row(index: str, claim_id: str) -> str:
    return index.split(f'<tr id="row-{safe(claim_id)}">')[1].split("</tr>")[0]


def test_the_rung_comes_from_the_discharged_obligations_not_the_class_attribute(outcomes, tmp_path, monkeypatch):
    monkeypatch.setattr(toy.DiagonalRank, "established", "proved")  # what the class says no longer decides
    report = build(str(outcomes), str(tmp_path / "site"))
    standing = {e.id: e.standing for e in report.entries}
    assert standing["report_test.diagonal_rank"].label == "verified up to n = 3, d = 1"
    assert standing["report_test.unipotent_rank"].label == "proved for every parameter"  # reach "all", discharged
    for page in (tmp_path / "site").rglob("*.*"):
        if page.suffix in (".html", ".md"):
            text = page.read_text(encoding="utf-8")
            assert "symbolic argument, and checked exactly" not in text, page.name
            assert "symbolic argument, exactly checked" not in text, page.name
    row = dashboard_row((tmp_path / "site" / "index.html").read_text(encoding="utf-8"), "report_test.diagonal_rank")
    assert "proved for every parameter" not in row


def test_sympy_steps_are_their_own_rung_beside_what_the_checker_accepted(site):
    page = (site / "claims" / "report_test.unipotent_rank.html").read_text(encoding="utf-8")
    assert 'badge proved">proved for every parameter' in page.split('id="standing"')[1].split("</div>")[0]
    assert 'badge symbolic">symbolic (sympy)' in page.split('id="standing"')[1].split("</div>")[0]
    assert "symbolic_determinant" not in accepted(page, "default")
    symbolic = page.split('id="symbolic-point-default"')[1].split("<h3>")[0]
    assert "symbolic_determinant" in symbolic and says(symbolic, "det U = 1")
    row = dashboard_row((site / "index.html").read_text(encoding="utf-8"), "report_test.unipotent_rank")
    cells = row.split("<td")
    assert "symbolic (sympy)" in cells[2] and "symbolic" not in cells[3]  # established here / the checker's column


def test_editing_message_or_covered_changes_nothing_the_checker_accepted(outcomes, site, tmp_path):
    before = site  # the report of the unedited outcomes (conftest's site: its report exited 0, as expected)
    copy = tmp_path / "latest"
    shutil.copytree(outcomes, copy)
    forged = "FORGED: proved for every m by a symbolic argument"
    for path in [copy / "outcomes.json", *copy.glob("*/*/outcome.json")]:
        records = json.loads(path.read_text())
        for record in records if isinstance(records, list) else [records]:
            record["message"] = forged
            record["covered"] = {"certificates": [forged], "up to": forged}
        path.write_text(json.dumps(records))
    after = build(str(copy), str(tmp_path / "after"))
    assert after.as_expected  # message and covered are not part of any verdict
    for claim_id, slug in (("report_test.diagonal_rank", "n=3"), ("report_test.unipotent_rank", "default")):
        one = (before / "claims" / f"{claim_id}.html").read_text(encoding="utf-8")
        two = (tmp_path / "after" / "claims" / f"{claim_id}.html").read_text(encoding="utf-8")
        assert accepted(one, slug) == accepted(two, slug) and forged not in accepted(two, slug)
        assert says(two.split("Reported by the check, unchecked")[1], forged)  # shown, as unchecked
        assert forged not in two.split("Reported by the check, unchecked")[0]
        index_one = (before / "index.html").read_text(encoding="utf-8")
        index_two = (tmp_path / "after" / "index.html").read_text(encoding="utf-8")
        assert dashboard_row(index_one, claim_id) == dashboard_row(index_two, claim_id)
        md = (tmp_path / "after" / "claims" / f"{claim_id}.md").read_text(encoding="utf-8")
        assert forged not in md.split("### What the trusted checker accepted")[1].split("### Reported by the check")[0]


def test_a_removed_certificate_makes_the_outcome_not_stand(outcomes, tmp_path, monkeypatch):
    copy = tmp_path / "latest"
    shutil.copytree(outcomes, copy)
    next(copy.glob("report_test.diagonal_rank/*/00-rank-lower.cert.json")).unlink()
    site = tmp_path / "site"
    built = []  # the Report the command built (read here, not built a second time)
    monkeypatch.setattr(report_module, "build", lambda *a, **k: built.append(build(*a, **k)) or built[-1])
    assert main(["report", "--outcomes", str(copy), "--out", str(site)]) == 1
    (report,) = built
    entry = next(e for e in report.entries if e.id == "report_test.diagonal_rank")
    (point,) = entry.points
    assert not point.stands and point.rung == "not established" and "missing" in point.why_not
    assert entry.standing.loud and entry.standing.label.startswith("DOES NOT STAND")
    page = (site / "claims" / "report_test.diagonal_rank.html").read_text(encoding="utf-8")
    section = accepted(page, "n=3")
    assert "DOES NOT STAND" in section and "verified up to" not in section
    assert says(section, "the 3 x 3 matrix diag(1, ..., 1, 1) has rank at least 3")  # what was needed, still listed
    assert 'class="loud" id="not-as-expected"' in (site / "index.html").read_text(encoding="utf-8")
    other = (site / "claims" / "report_test.unipotent_rank.html").read_text(encoding="utf-8")
    assert "proved for every parameter" in accepted(other, "default")  # the rest of the run still stands


def test_a_certificate_bound_to_another_statement_does_not_stand(outcomes, tmp_path):
    copy = tmp_path / "latest"
    shutil.copytree(outcomes, copy)
    path = next(copy.glob("report_test.unipotent_rank/*/00-*.cert.json"))
    cert = json.loads(path.read_text())
    cert["statement"] = "0" * 64
    path.write_text(json.dumps(cert))
    report = build(str(copy), str(tmp_path / "site"))
    entry = next(e for e in report.entries if e.id == "report_test.unipotent_rank")
    assert entry.standing.loud and "another claim, statement or point" in entry.standing.detail
    assert not report.as_expected


def test_a_reach_widened_in_the_outcome_file_is_not_believed(outcomes, tmp_path):
    copy = tmp_path / "latest"
    shutil.copytree(outcomes, copy)
    path = next(copy.glob("report_test.diagonal_rank/*/outcome.json"))
    record = json.loads(path.read_text())
    record["obligations"]["reach"] = "all"
    path.write_text(json.dumps(record))
    report = build(str(copy), str(tmp_path / "site"))
    entry = next(e for e in report.entries if e.id == "report_test.diagonal_rank")
    assert entry.standing.loud and entry.points[0].rung == "not established"
    assert "proved for every parameter" not in dashboard_row((tmp_path / "site" / "index.html").read_text(encoding="utf-8"),
                                                             "report_test.diagonal_rank")


def test_hostile_outcome_files_are_reported_as_not_standing_never_a_crash(outcomes, tmp_path):
    copy = tmp_path / "latest"
    shutil.copytree(outcomes, copy)
    next(copy.glob("report_test.unipotent_rank/*/outcome.json")).write_bytes(b'{"claim": 1.5, "claim": [')
    path = next(copy.glob("report_test.diagonal_rank/*/outcome.json"))
    record = json.loads(path.read_text())
    record.update(facts=["not", "a", "table"], covered="x", seconds=True, parameters={"n": "three"})
    path.write_text(json.dumps(record))
    report = build(str(copy), str(tmp_path / "site"))
    standing = {e.id: e.standing for e in report.entries}
    assert standing["report_test.unipotent_rank"].loud and "REFUSED" in standing["report_test.unipotent_rank"].detail
    assert standing["report_test.diagonal_rank"].loud and not report.as_expected


def test_an_outcome_not_as_expected_is_shown_loudly(tmp_path):
    out, site = tmp_path / "o", tmp_path / "site"
    assert main(["check", "report_test.diagonal_rank", "--param", "d=0", "--out", str(out)]) == 1
    assert main(["report", "--outcomes", str(out), "--out", str(site)]) == 1
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'class="loud" id="not-as-expected"' in index
    assert "NOT AS EXPECTED: expected verified, got refuted" in index
    assert says(index, "certified that the 2 x 2 matrix diag(1, ..., 1, 0) has rank at most 1")
    page = (site / "claims" / "report_test.diagonal_rank.html").read_text(encoding="utf-8")
    section = accepted(page, "d=0")
    assert "refuted with a certified counterexample" in section and "00-rank-upper.cert.json" in section
    reported = page.split("Reported by the check, unchecked")[1]
    assert "<h4>Counterexample</h4>" in reported
    assert "NOT AS EXPECTED" in (site / "index.md").read_text(encoding="utf-8")


def test_unchecked_claims_are_listed_as_not_checked(site):
    report_ids = set(TOYS)
    index = (site / "index.html").read_text(encoding="utf-8")
    for claim_id, claim in registry().items():
        if claim_id not in report_ids:
            page = (site / "claims" / f"{claim_id}.html").read_text(encoding="utf-8")
            assert "No outcome in this report" in page
    tables = "".join(t.split("</table>")[0] for t in index.split('<table class="dashboard wide">')[1:])
    assert tables.count("badge not-run") + tables.count("badge stated") == len(registry()) - len(report_ids)


# ------------------------------------------------------------------- the CLI


def test_report_runs_the_default_check_first_when_there_are_no_outcomes(tmp_path, monkeypatch):
    seen = []
    real = cli.cmd_check

    def small_check(args):  # the default check, at the small parameters of these tests
        seen.append(args.out)
        return real(cli.build_parser().parse_args(["check", *TOYS, *SMALL, "--out", args.out]))

    monkeypatch.setattr(cli, "cmd_check", small_check)
    outcomes, site = tmp_path / "none", tmp_path / "site"
    monkeypatch.setattr(cli, "DEFAULT_OUT", str(outcomes))  # the default folder, empty: the check runs first
    assert main(["report", "--out", str(site)]) == 0
    assert seen == [str(outcomes)]
    assert (outcomes / "outcomes.json").is_file() and (site / "index.html").is_file()


def test_report_refuses_to_replace_a_folder_that_is_not_a_report(outcomes, tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    assert main(["report", "--outcomes", str(outcomes), "--out", str(mine)]) == 2
    assert "is not a report folder" in capsys.readouterr().err
    assert (mine / "notes.txt").read_text() == "keep me"


# ---------------------------------------------------------------- the pieces


@pytest.mark.parametrize("tex", [r"m", r"2^{m-1} \le \frac{1}{2}\log_2 n", r"\ell_1", r"\mathbb{R}^{n\times n}",
                                 r"\Omega(\sqrt{n})", r"\left(\sum_{j} x_j\right)", r"\unknowncommand{x}", r"a \{b\} \, c",
                                 r"\begin{pmatrix}1&1\\0&1\end{pmatrix}"])
def test_tex_subset_becomes_mathml_without_a_backslash(tex):
    out = mathml.tex_to_mathml(tex)
    assert out.startswith("<math") and "\\" not in out


def visible(markup: str) -> str:
    """The text a reader sees, without spaces (MathML sets its own): for comparing sentences that hold mathematics."""
    import html as _html

    return re.sub(r"\s+", "", _html.unescape(re.sub(r"<[^>]+>", "", markup)))


def says(markup: str, sentence: str) -> bool:
    """The markup shows the sentence, its ASCII mathematics as the report sets it (<= as ≤, x as ×, ...)."""
    said = sentence.replace("<=", "≤").replace(">=", "≥").replace(" x ", "×").replace("...", "…")
    return re.sub(r"\s+", "", said) in visible(markup)


def test_prose_escapes_html_and_converts_math():
    out = mathml.prose("a <b> & $x_1$ costs $5")
    assert "&lt;b&gt; &amp;" in out and "<msub><mi>x</mi><mn>1</mn></msub>" in out
    assert "$5" in out  # an unpaired dollar stays text


def test_exact_values_are_read_exactly_and_only_closed_forms_are_evaluated():
    assert mathml.rational("-3/4") == Fraction(-3, 4) and mathml.rational("3/4 ") is None
    assert mathml.constant("log(6)/2") == sympy.log(6) / 2
    assert abs(float(mathml.constant("log(6)/2")) - math.log(6) / 2) < 1e-15
    assert mathml.constant("verified") is None and mathml.constant("__import__('os')") is None
    assert mathml.constant("1/3") is None  # a rational is shown as a fraction, not evaluated
    assert "<mfrac><mn>1</mn><mn>3</mn></mfrac>" in values.to_html("1/3")
    assert values.to_html(["010", "110"]).count('class="token"') == 2
    assert "… and 4 more" in values.to_html(list(range(20)))


def crosses(a, b, box) -> bool:
    """Does the segment a-b pass through the inside of box (x, y, w, h)? (Liang-Barsky clipping, shrunk by 1 px.)"""
    x, y, w, h = box
    lo, hi = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - (x + 1)), (dx, (x + w - 1) - a[0]), (-dy, a[1] - (y + 1)), (dy, (y + h - 1) - a[1])):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            lo = max(lo, q / p)
        else:
            hi = min(hi, q / p)
    return lo < hi


def test_layout_puts_a_claim_right_of_what_it_rests_on_and_survives_a_cycle():
    boxes, paths, width, height = graph.layout({"a": ("b",), "b": ("c",), "c": (), "d": ("c",), "e": ()})
    assert boxes["c"][0] < boxes["b"][0] < boxes["a"][0] and boxes["c"][0] < boxes["d"][0]
    assert set(paths) == {("b", "a"), ("c", "b"), ("c", "d")}
    for (used, node), points in paths.items():  # from the right side of what it rests on to the left of the claim
        assert points[0][0] == pytest.approx(boxes[used][0] + boxes[used][2], abs=0.1) and points[-1][0] == pytest.approx(boxes[node][0], abs=0.1)
    cyclic, routes, _, _ = graph.layout({"x": ("y",), "y": ("x",)})
    assert set(cyclic) == {"x", "y"} and len(routes) == 2
    svg = graph.svg({"x": ("y",), "y": ("x",), "z": ("missing",)}, {}, {}, {"x": "x.html"})
    assert svg.count('<path class="edge"') == 3 and 'href="x.html"' in svg and "not registered" in svg


def test_the_claims_graph_has_no_edge_through_a_box_fits_the_page_and_is_the_same_every_time():
    nodes = {claim_id: tuple(c.uses) for claim_id, c in registry().items()}
    status = {claim_id: ("verified", "verified up to a size") for claim_id in nodes}
    boxes, paths, width, height = graph.layout(nodes, status)
    assert len(paths) == sum(len(set(u) - {n}) for n, u in nodes.items())
    for (used, node), points in paths.items():
        for a, b in zip(points, points[1:]):
            through = [k for k, box in boxes.items() if crosses(a, b, box)]
            assert through == [], f"the edge {used} -> {node} runs through {through}"
    for k, (x, y, w, h) in boxes.items():  # inside the drawing, no two boxes overlap
        assert 0 <= x and x + w <= width and 0 <= y and y + h <= height
        for j, (x2, y2, w2, h2) in boxes.items():
            assert j == k or x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y, (k, j)
    alone = [k for k in boxes if not any(k in key for key in paths)]
    assert all(boxes[k][0] + boxes[k][2] <= max(graph.WIDTH, width - graph.MARGIN) for k in alone)  # packed in rows
    assert width <= 1.5 * graph.WIDTH  # about the page's width; drawn at its own size, in a box that scrolls
    svg = graph.svg(nodes, status, {}, {})
    assert f'width="{width}" height="{height}" viewBox="0 0 {width} {height}"' in svg and "max-width: 100%" not in svg
    assert graph.svg(nodes, status, {}, {}) == svg
    # each edge is its own: no two edges share an end point (a port on a box's side), so each can be traced
    ends = [points[-1] for points in paths.values()] + [points[0] for points in paths.values()]
    assert len(ends) == len(set(ends))
    for (used, node), points in paths.items():  # and the svg names both ends of every edge, for highlighting
        assert f'data-from="{used}" data-to="{node}"' in svg


def test_arrows_at_one_box_never_meet_each_edge_ends_in_its_own_horizontal_stub():
    """The arrows into one box (three of them at feature_rank_table, calibration and spherical_law) stay apart:
    each edge leaves and enters its boxes horizontally for at least STUB px, at ports at least 10 px apart (an
    arrowhead is about 9 px tall), and no two edges share any point of their paths."""
    nodes = {claim_id: tuple(c.uses) for claim_id, c in registry().items()}
    status = {claim_id: ("verified", "verified up to a size") for claim_id in nodes}
    boxes, paths, _, _ = graph.layout(nodes, status)
    for (used, node), points in paths.items():
        (x0, y0), (x1, y1) = points[0], points[1]
        (a, b), (c, d) = points[-2], points[-1]
        assert y0 == y1 and abs(x1 - x0) >= graph.STUB - 0.1, (used, node, points[:2])
        assert b == d and abs(c - a) >= graph.STUB - 0.1, (used, node, points[-2:])
    for box in boxes:
        for end in (-1, 0):
            ys = sorted(points[end][1] for key, points in paths.items() if key[1 if end == -1 else 0] == box)
            assert all(b - a >= 10 for a, b in zip(ys, ys[1:])), (box, "in" if end == -1 else "out", ys)
    crowded = {box for box in boxes if sum(key[1] == box for key in paths) >= 3}
    assert {"kernel_rank.feature_rank_table", "softmax_rank.calibration"} <= crowded  # the cases a reader found
    seen: dict = {}
    for key, points in paths.items():
        for point in set(points):
            assert seen.setdefault(point, key) == key, f"{key} and {seen[point]} meet at {point}"


def test_the_claims_rest_on_each_other_without_a_cycle():
    """The uses of the installed claims form no cycle (feature_rank_table builds on rank_two, not both ways)."""
    claims = registry()
    state: dict = {}

    def visit(n, path):
        state[n] = 1
        for u in getattr(claims.get(n), "uses", ()):
            assert state.get(u) != 1, f"a cycle: {' -> '.join(path + [n, u])}"
            if u not in state:
                visit(u, path + [n])
        state[n] = 2

    for n in sorted(claims):
        if n not in state:
            visit(n, [])
    assert "kernel_rank.rank_two" in claims["kernel_rank.feature_rank_table"].uses
    assert "kernel_rank.feature_rank_table" not in claims["kernel_rank.rank_two"].uses


def test_figures_are_reproducible_and_carry_no_date():
    plot = Plot(name="p", title="t (m = 3)", xlabel="x (bits)", ylabel="y", series=(("s", (1, 2, 3), (1.0, 4.0, 9.0)),), logy=True)
    one, two = plots.draw(plot), plots.draw(plot)
    assert one == two
    assert b"<dc:date>" not in one and b"Created with matplotlib" not in one


def test_softmax_error_curve_crosses_one_half_at_the_critical_temperature():
    record = {"parameters": {"m": 20, "base": 4}, "facts": {"worst_error": "1/3"}}  # as a check at m = 20 records it
    figures = {p.name: p for p in get("softmax_three_tokens").plots(record)}
    label, betas, errors = figures["error-against-temperature"].series[0]
    bases = [Fraction(k, 4) for k in range(5, 49)]
    assert len(betas) == len(errors) == len(bases)
    # beta* = ln 6 / 2, i.e. b* = sqrt 6 (between 9/4 and 10/4): at or above 1/2 below it, under 1/2 above it
    for b, e in zip(bases, errors):
        assert (e < 0.5) == (b * b > 6)
    assert errors[bases.index(Fraction(4))] == pytest.approx(1 / 3, abs=1e-15)  # the run's exact worst error


def test_polynomials_in_facts_become_formulas_and_words_stay_words():
    assert "<msup><mi>x</mi><mn>2</mn></msup>" in values.to_html("x**2 + 3*x")
    assert "<math" in values.to_html("2*s - w")
    for words in ("verified", "U(w, w) - w = 0", "for all m", "(4d-2)^2 <= 6^d", "0101"):
        assert mathml.formula(words) is None  # never read by sympy as a product of symbols
    # words stay words; ASCII mathematics among them is mathematics (through the one renderer, tex.words)
    assert values.to_html("verified") == "verified" and values.to_html("0101") == "0101"
    assert values.to_html("for all m").startswith("for all <math")
    assert "<mo>≤</mo>" in values.to_html("(4d-2)^2 <= 6^d") and "&lt;=" not in values.to_html("(4d-2)^2 <= 6^d")


def test_report_never_checks_into_a_folder_that_holds_something_else(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "cmd_check", lambda args: pytest.fail("the check must not run"))
    other = tmp_path / "papers"
    other.mkdir()
    (other / "draft.tex").write_text("keep me")
    assert main(["report", "--outcomes", str(other), "--out", str(tmp_path / "site")]) == 2
    assert "holds no outcomes.json" in capsys.readouterr().err
    assert (other / "draft.tex").read_text() == "keep me" and not (tmp_path / "site").exists()


def test_sentences_come_once_in_the_abstracts_order_with_claims_by_relation(monkeypatch):
    from theorems.report import model

    entries = [model.Entry(c, [], model.standing(c, []), "") for c in registry().values()]
    found = model.sentences(entries)
    texts = [s.text for s in found]
    assert len(texts) == len(set(texts)) and sum(len(s.entries) for s in found) == len(entries)
    from theorems import kernel_rank

    abstract = [kernel_rank.LENGTH_TWO, kernel_rank.THREE_TOKENS, kernel_rank.SOFTMAX]
    assert [t for t in texts if t in abstract] == abstract  # the abstract's order
    three = next(s for s in found if s.text == kernel_rank.THREE_TOKENS)
    relations = [model.relation_of(e.claim) for e in three.entries]
    assert relations == sorted(relations, key=model.RELATION_ORDER.index)
    assert "a lemma toward it" in relations and "a finite step of an asymptotic" in relations
    # a claim of no paper comes last, under a heading of its own
    monkeypatch.setattr(toy.UnipotentRank, "paper", "")
    last = model.sentences([model.Entry(c, [], model.standing(c, []), "") for c in registry().values()])[-1]
    assert last.paper == "" and last.entries[0].id == "report_test.unipotent_rank"


def test_a_conjecture_page_says_who_states_it_and_never_credits_the_paper(monkeypatch):
    """A user's conjecture about a paper: its sentence sits under its own source, not under "What the paper states"."""
    from types import SimpleNamespace

    from theorems.report import markdown, model, site

    monkeypatch.setattr(toy.UnipotentRank, "source", "user conjecture", raising=False)
    monkeypatch.setattr(toy.UnipotentRank, "relation", "a conjecture")
    claim = get("report_test.unipotent_rank")
    entry = model.Entry(claim, [], model.standing(claim, []), "")
    report = SimpleNamespace(entries=[entry])
    page = site.claim_page(report, entry).decode("utf-8")
    text = markdown.claim_page(report, entry)
    for shown in (visible_text(page), text):
        assert "What the paper states" not in shown
        assert "Stated by user conjecture" in shown
        head = shown.split("Stated by user conjecture")[0]
        title = model.paper_title(claim.paper)
        # the paper appears only as what the conjecture is about, after who states it
        assert "about arXiv:2608.28150" in " ".join(head.split()) and (not title or title in head)
    # a claim its paper states keeps the paper's heading
    paper_claim = get("report_test.diagonal_rank")
    paper_entry = model.Entry(paper_claim, [], model.standing(paper_claim, []), "")
    assert "What the paper states" in markdown.claim_page(SimpleNamespace(entries=[paper_entry]), paper_entry)


def test_an_analogue_never_reads_as_the_papers_sentence_verified(outcomes, tmp_path, monkeypatch):
    """S7's calibration repeats the paper's experiment on other data (all-MiniLM-L6-v2, not BERT-base): on its
    page and beneath the sentence its badges are quiet (white, outlined), the page says the sentence is not
    checked here, and the sentence's headline badge says "an analogue only"; a claim reading its sentence
    keeps the full colour."""
    from theorems.report import model

    analogue = "an analogue on a toy matrix (3 x 3), not the paper's data"
    monkeypatch.setattr(toy.DiagonalRank, "analogue", analogue, raising=False)
    monkeypatch.setattr(toy.DiagonalRank, "relation", "an analogue, not the paper's data")
    assert model.role_of(get("report_test.diagonal_rank")) == "analogue"
    out = tmp_path / "site"
    assert main(["report", "--outcomes", str(outcomes), "--out", str(out)]) == 0
    page = (out / "claims" / "report_test.diagonal_rank.html").read_text(encoding="utf-8")
    standing = page.split('id="standing"')[1].split("</div>")[0]
    assert "on the analogue's own data only" in standing and '<span class="badge quiet verified">' in standing
    assert 'class="badge verified"' not in page and 'class="badge proved"' not in page  # no full-colour verdict
    assert "Not checked here." in visible_text(page) and html.escape(analogue) in page
    index = (out / "index.html").read_text(encoding="utf-8")
    row = index.split('id="row-report_test.diagonal_rank"')[1].split("</tr>")[0]
    assert '<span class="badge quiet verified">' in row and 'class="badge verified"' not in row
    other = (out / "claims" / "report_test.unipotent_rank.html").read_text(encoding="utf-8")
    assert '<span class="badge proved">' in other and "Not checked here." not in other
    # the real one: S7's calibration is an analogue, named with its data, never as reading the sentence
    calibration = get("softmax_rank.calibration")
    assert model.role_of(calibration) == "analogue"
    assert "not the paper's BERT-base set" in model.relation_of(calibration)
