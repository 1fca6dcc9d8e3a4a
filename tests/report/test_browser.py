"""The report in a real browser: headless Chromium opens it from disk and reads it as a person would.

Needs the Debian packages ``chromium`` and ``chromium-driver`` and the Python
package ``selenium`` (the ``test`` extra).  Without them the test is skipped
with the reason, except in CI (``CI=true``), where it fails.  Screenshots go to
the test's temporary folder (pytest's ``tmp_path``), never into the repository.
"""

import os
import pathlib
import re
import sys
from urllib.parse import unquote

import pytest

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
# Without the networking switches Chromium's background connections are refused here and logged as errors.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1000"]


def require_browser():
    missing = [path for path in (CHROMIUM, DRIVER) if not os.path.exists(path)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the Python package selenium")
    if missing:
        reason = (f"the real-browser test needs {', '.join(missing)} "
                  "(apt-get install chromium chromium-driver; pip install -e '.[test]')")
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " — and CI=true, so this is a failure, not a skip")
        pytest.skip(reason)


@pytest.fixture
def browser(tmp_path):
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={tmp_path / 'profile'}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def errors(driver) -> list:
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def screenshot(driver, folder: pathlib.Path, name: str) -> pathlib.Path:
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(max(height, 800), 12000))
    path = folder / name
    assert driver.save_screenshot(str(path))
    return path


PAGE_STATE = """
const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
const skip = new Set(['CODE', 'PRE', 'SCRIPT', 'STYLE']);
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {acceptNode: n => {
  for (let p = n.parentElement; p; p = p.parentElement) if (skip.has(p.tagName)) return NodeFilter.FILTER_REJECT;
  return NodeFilter.FILTER_ACCEPT; }});
let text = ''; while (walker.nextNode()) text += walker.currentNode.data + ' ';
const maths = Array.from(document.querySelectorAll('math'));
const images = Array.from(document.images);
return {
  text: text,
  maths: maths.length,
  mathsLaidOutAsMath: maths.filter(m => getComputedStyle(m).display.includes('math') && shown(m)).length,
  fractions: Array.from(document.querySelectorAll('mfrac')).filter(f => {
      const [num, den] = f.children; return num && den &&
        num.getBoundingClientRect().bottom <= den.getBoundingClientRect().top + 1; }).length,
  allFractions: document.querySelectorAll('mfrac').length,
  images: images.length,
  imagesLoaded: images.filter(i => i.complete && i.naturalWidth > 0 && shown(i)).length,
};
"""


# What a reader sees that must not be there: a Greek letter spelled as a word inside mathematics, an element
# sticking out of the window (unless inside a box that scrolls or clips it), a link to nowhere.
READER = """
const width = document.documentElement.clientWidth;
const clipped = el => { for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
    const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; }
  return false; };
const wide = Array.from(document.body.querySelectorAll('*')).filter(el => {
    const r = el.getBoundingClientRect(); return r.width > 0 && (r.right > width + 1 || r.left < -1) && !clipped(el); })
  .map(el => el.tagName + (el.id ? '#' + el.id : '') + (el.className && el.className.baseVal === undefined ? '.' + el.className : '')
       + ' ' + Math.round(el.getBoundingClientRect().right));
const words = Array.from(document.querySelectorAll('math mi, math mo, math mtext')).map(e => e.textContent.trim())
  .filter(t => /^(var)?(epsilon|theta|phi|rho|sigma|pi)$|^(alpha|beta|gamma|delta|kappa|lambda|mu|tau|psi|omega|ell|infty|Theta|Omega)$/.test(t));
// mathematics spilling out of its table cell over the next one
const spills = Array.from(document.querySelectorAll('td math')).filter(m => {
    const td = m.closest('td'); return !clipped(m) && m.getBoundingClientRect().right > td.getBoundingClientRect().right + 1; })
  .map(m => m.textContent.slice(0, 40));
return {
  scrollWidth: document.documentElement.scrollWidth, width: width, wide: wide.slice(0, 5), greekWords: words, spills: spills,
  links: Array.from(document.querySelectorAll('a[href], img[src]')).map(a =>
      new URL(a.getAttribute(a.tagName === 'IMG' ? 'src' : 'href'), document.baseURI).href),
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
  title: document.title,
};
"""


def assert_rendered(driver, name):
    state = driver.execute_script(PAGE_STATE)
    assert not re.search(r"\\[A-Za-z]+", state["text"]), f"raw TeX on {name}"
    assert "$" not in state["text"], f"a TeX delimiter on {name}"
    assert not re.search(r"\bvarepsilon\b", state["text"]), f"'varepsilon' as a word on {name}"
    seen = driver.execute_script(READER)
    assert seen["greekWords"] == [], f"Greek letters spelled as words in the mathematics of {name}: {seen['greekWords']}"
    assert seen["scrollWidth"] <= seen["width"] and seen["wide"] == [], f"wider than the window on {name}: {seen}"
    assert seen["spills"] == [], f"mathematics spilling out of its table cell on {name}: {seen['spills']}"
    assert state["maths"] > 0 and state["mathsLaidOutAsMath"] == state["maths"], f"MathML not rendered on {name}: {state}"
    # a fraction laid out as MathML puts its numerator above its denominator
    assert state["fractions"] == state["allFractions"], f"fractions not stacked on {name}: {state}"
    assert state["imagesLoaded"] == state["images"], f"an image did not load on {name}: {state}"
    assert errors(driver) == [], f"console errors on {name}"
    return state


def test_report_opens_from_disk_and_renders_in_chromium(browser, site, tmp_path):
    from selenium.webdriver.common.by import By

    browser.get((site / "index.html").as_uri())
    assert browser.title == "attnproof — proof report"
    index = assert_rendered(browser, "index.html")
    assert browser.find_elements(By.ID, "not-as-expected") == []  # both outcomes stand, as expected
    assert "what the trusted checker accepted" in index["text"]
    nodes = browser.find_elements(By.CSS_SELECTOR, "svg.graph a.node")
    assert len(nodes) >= 2
    assert screenshot(browser, tmp_path, "report-index.png").stat().st_size > 10_000

    # follow the graph: click the node of the claim proved for every parameter
    node = browser.find_element(By.CSS_SELECTOR, 'svg.graph a.node[data-claim="report_test.unipotent_rank"] text')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)
    node.click()
    assert browser.current_url.endswith("/claims/report_test.unipotent_rank.html")
    page = assert_rendered(browser, "the unipotent claim")
    assert page["images"] == 1
    accepted = browser.find_element(By.ID, "accepted-point-default").text
    assert "What the trusted checker accepted" in accepted and "proved for every parameter" in accepted
    assert "symbolic (sympy)" in browser.find_element(By.ID, "standing").text
    shot = screenshot(browser, tmp_path, "report-claim.png")
    assert shot.stat().st_size > 10_000

    # and back, then along the table to the claim verified up to a size, and on to a paper's claim
    browser.find_element(By.LINK_TEXT, "← all claims").click()
    browser.find_element(By.CSS_SELECTOR, '#row-report_test\\.diagonal_rank a[href="claims/report_test.diagonal_rank.html"]').click()
    assert browser.current_url.endswith("/claims/report_test.diagonal_rank.html")
    page = assert_rendered(browser, "the diagonal claim")
    assert page["images"] == 1 and page["fractions"] >= 1
    assert "verifieduptON=3,d=1".lower() in re.sub(r"\s+", "", browser.find_element(By.ID, "accepted-point-n_3").text).lower()
    browser.find_element(By.LINK_TEXT, "← all claims").click()
    browser.find_element(By.CSS_SELECTOR, '#row-kernel_rank\\.softmax_three_tokens a[href="claims/kernel_rank.softmax_three_tokens.html"]').click()
    page = assert_rendered(browser, "the softmax claim")
    assert page["fractions"] >= 1 and "No outcome in this report" in page["text"]


DASHBOARD = """
const sections = Array.from(document.querySelectorAll('section.sentence'));
const top = el => el.getBoundingClientRect().top + window.scrollY;
return {
  sentences: sections.map(s => s.querySelector('blockquote').textContent.trim()),
  rows: sections.map(s => Array.from(s.querySelectorAll('tr[id^="row-"]')).map(r => ({
      id: r.id.slice(4), relation: r.querySelector('.relation') && r.querySelector('.relation').textContent,
      badges: Array.from(r.cells[1].querySelectorAll('.badge')).map(b => b.textContent)}))),
  summaryTop: top(document.getElementById('summary')), legendTop: top(document.getElementById('legend')),
  firstSentenceTop: sections.length ? top(sections[0]) : 0,
  counts: document.getElementById('summary').innerText,
  graph: (() => { const g = document.querySelector('svg.graph').getBoundingClientRect();
                  return {width: g.width, page: document.body.clientWidth}; })(),
};
"""


def test_the_dashboard_reads_as_sentences_with_their_claims_and_every_page_holds_up(browser, site):
    """Each sentence once, its claims beneath with relation and own badge, counts and legend first;
    then every page of the report, reached by following links from the dashboard: loads, no raw TeX,
    no Greek word in its mathematics, nothing wider than the window, every link and #fragment resolves."""
    from theorems.core import registry
    from theorems.report.model import relation_of

    browser.get((site / "index.html").as_uri())
    board = browser.execute_script(DASHBOARD)
    assert len(board["sentences"]) == len(set(board["sentences"])), "a sentence shown twice"
    claims = registry()
    rows = [r for group in board["rows"] for r in group]
    assert sorted(r["id"] for r in rows) == sorted(claims)  # every claim once, beneath its sentence
    for group, text in zip(board["rows"], board["sentences"]):
        sentences = {claims[r["id"]].sentence for r in group}
        assert len(sentences) == 1  # a claim sits under its own sentence
        for r in group:
            assert r["relation"] == relation_of(claims[r["id"]]) and len(r["badges"]) >= 1, r
    verdicts = {r["id"]: r["badges"] for r in rows}
    assert verdicts["report_test.unipotent_rank"][0] == "proved for every parameter"
    assert verdicts["report_test.diagonal_rank"][0] == "verified up to n=3, d=1"  # n = 3, d = 1 as MathML
    assert board["summaryTop"] < board["firstSentenceTop"] and board["legendTop"] < board["firstSentenceTop"]
    assert f"{len(claims)} claim(s)" in board["counts"] and "2 outcome(s)" in board["counts"]
    assert board["graph"]["width"] <= board["graph"]["page"] + 1  # the graph fits the page

    # a narrow window: the graph scales, nothing sticks out
    browser.set_window_size(760, 1000)
    browser.get((site / "index.html").as_uri())
    assert_rendered(browser, "index.html at 760 px")
    browser.set_window_size(1280, 1000)

    todo, seen, pages, links = [(site / "index.html").as_uri()], set(), {}, {}
    while todo:
        url = todo.pop()
        page_url = url.split("#")[0]
        if page_url in seen:
            continue
        seen.add(page_url)
        assert pathlib.Path(unquote(page_url[len("file://"):])).is_file(), f"a link to nowhere: {page_url}"
        if not page_url.endswith(".html"):
            continue
        browser.get(page_url)
        state = assert_rendered(browser, page_url.rsplit("/", 1)[1]) if "<math" in browser.page_source else None
        if state is None:  # a page without mathematics: the reader's checks still hold
            seen_state = browser.execute_script(READER)
            assert seen_state["wide"] == [] and seen_state["scrollWidth"] <= seen_state["width"], page_url
        reader = browser.execute_script(READER)
        pages[page_url] = set(reader["ids"])
        links[page_url] = reader["links"]
        todo += [link for link in reader["links"] if link.startswith("file://")]
        assert all(link.startswith("file://") for link in reader["links"]), f"a link off disk on {page_url}"
    for page_url, found in links.items():  # every #fragment names an element of its page
        for link in found:
            target, _, fragment = link.partition("#")
            if fragment:
                assert target in pages and unquote(fragment) in pages[target], f"{page_url}: no #{fragment} in {target}"
    assert len([p for p in pages if "/claims/" in p]) == len(claims)


def test_a_missing_browser_skips_outside_ci_and_fails_in_ci(monkeypatch):
    here = sys.modules[__name__]
    monkeypatch.setattr(here, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match="chromium"):
        here.require_browser()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        here.require_browser()


# ------------------------------------------------------------ the papers' report, as a researcher reads it

# A Greek letter spelled as a word (rank_eps and sigma_i included), raw TeX, JSON's null or Python's None:
# none may stand in what a reader sees (code and preformatted text apart, which are shown as written).
SPELLED = re.compile(r"(?<![A-Za-z])(alpha|beta|gamma|delta|eps|epsilon|varepsilon|theta|kappa|lambda|sigma|tau|phi"
                     r"|psi|rho|omega|Omega|Theta|Lambda|Sigma|Phi|Psi|Delta|Gamma)(?![a-z])")
RAW = re.compile(r"\\[A-Za-z]+|\^\{|_\{|\$")
JSON = re.compile(r"(?<![\w-])(null|None)(?![\w-])")
SEEN_TEXT = """
const skip = new Set(['CODE', 'PRE', 'SCRIPT', 'STYLE', 'TITLE']);
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {acceptNode: n => {
  for (let p = n.parentElement; p; p = p.parentElement) if (skip.has(p.tagName)) return NodeFilter.FILTER_REJECT;
  return NodeFilter.FILTER_ACCEPT; }});
const parts = []; while (walker.nextNode()) parts.push(walker.currentNode.data);
return parts.join(' ');
"""


@pytest.fixture(scope="module")
def papers_site(default_check, toys, tmp_path_factory):
    """The default check of every installed claim (the papers' and the conjectures': the session's
    ``default_check``, copied; then the report package's two test claims, checked into the copy at their
    defaults, as a check of everything installed here would), verified, as a report."""
    require_browser()
    import shutil

    from theorems.cli import main

    out = tmp_path_factory.mktemp("papers") / "latest"
    shutil.copytree(default_check, out)
    assert main(["check", *(claim.id for claim in toys), "--out", str(out)]) == 0
    site = tmp_path_factory.mktemp("papers-report") / "site"
    assert main(["report", "--outcomes", str(out), "--out", str(site)]) == 0
    return site


# The checker's one-word codes and fractions of long integers without their decimal: a reader cannot read them.
CODES = re.compile(r"sequences \((none|coordinates|context)\)|\{'\w+':")
LONG_FRACTION = re.compile(r"(?<![\d.])\d{5,}\s*/\s*\d{5,}(?!\d)(?!\s*≈)")


def assert_reads_right(driver, name: str):
    text = driver.execute_script(SEEN_TEXT)
    for pattern, what in ((SPELLED, "a Greek letter spelled out"), (RAW, "raw TeX"), (JSON, "null/None"),
                          (CODES, "the checker's code words"), (LONG_FRACTION, "a long fraction with no decimal")):
        found = [text[max(0, m.start() - 30):m.end() + 30] for m in pattern.finditer(text)]
        assert found == [], f"{what} on {name}: {found[:5]}"
    seen = driver.execute_script(READER)
    assert seen["greekWords"] == [], f"Greek letters spelled as words in the mathematics of {name}: {seen['greekWords']}"
    assert seen["scrollWidth"] <= seen["width"] and seen["wide"] == [], f"wider than the window on {name}: {seen}"
    broken = driver.execute_script(BROKEN_NUMBERS)
    assert broken == [], f"numbers broken over lines on {name} (13 read as 1 3): {broken[:5]}"
    assert errors(driver) == [], f"console errors on {name}"
    return seen


# A number of a table laid out on two lines reads as two numbers.
BROKEN_NUMBERS = """
return Array.from(document.querySelectorAll('span.num')).filter(s => s.getClientRects().length > 1).map(s => s.textContent);
"""


FIRST_SCREEN = """
const papers = document.getElementById('papers');
return {
  papersTop: papers.getBoundingClientRect().top + window.scrollY, height: window.innerHeight,
  before: Array.from(document.body.children).filter(el => el.compareDocumentPosition(papers) & Node.DOCUMENT_POSITION_FOLLOWING)
      .map(el => el.tagName + (el.id ? '#' + el.id : '') + (el.className ? '.' + el.className : '')),
  headlines: Array.from(papers.querySelectorAll('li.headline')).map(li => ({
      text: li.querySelector('.sentence-text').textContent.replace(/\\s+/g, ''),
      badges: Array.from(li.querySelectorAll(':scope > .badge')).map(b => b.textContent)})),
  toc: Array.from(document.querySelectorAll('nav.toc a')).map(a => a.getAttribute('href')),
  countLinks: Array.from(document.querySelectorAll('#summary a.count')).map(a => a.getAttribute('href')),
  legendOpen: document.getElementById('legend').open,
  edges: Array.from(document.querySelectorAll('svg.graph path.edge')).map(p => [p.dataset.from, p.dataset.to]),
};
"""


EDGE_ENDS = """
return Array.from(document.querySelectorAll('svg.graph path.edge')).map(p => {
  const n = p.getTotalLength(), end = p.getPointAtLength(n); return [p.dataset.to, end.y]; });
"""
ANALOGUE = """
const badges = Array.from(document.querySelectorAll('.badge'));
return {full: badges.filter(b => /\\b(verified|proved)\\b/.test(b.className) && !b.classList.contains('quiet')).map(b => b.textContent),
        quiet: badges.filter(b => b.classList.contains('quiet')).length,
        note: (document.getElementById('not-checked') || {textContent: ''}).textContent};
"""
STANDALONE = """
const svg = document.documentElement, rects = Array.from(svg.querySelectorAll('rect')).map(r => r.getBBox());
return {boxes: rects.length, bottom: Math.max(...rects.map(r => r.y + r.height)), right: Math.max(...rects.map(r => r.x + r.width)),
        height: svg.height.baseVal.value, width: svg.width.baseVal.value,
        scrollHeight: svg.scrollHeight || document.scrollingElement.scrollHeight,
        scrollWidth: svg.scrollWidth || document.scrollingElement.scrollWidth};
"""


def test_the_papers_report_reads_right_at_1280_and_760_px(browser, papers_site, tmp_path):
    """Every page at 1280 and 760 px: no Greek letter spelled out, no raw TeX, no null/None, no checker code word or
    long fraction without its decimal, nothing wider than the window; the first screen names both papers' headline
    sentences, each with one badge; a search box finds rank_two; the graph has no cycle and its arrows into one box
    stay apart; the analogue's page carries no full-colour verdict; the graph alone is drawn whole. A screenshot of
    the dashboard at 1280 px goes to the test's temporary folder."""
    from selenium.webdriver.common.by import By

    from theorems.report import model

    sentences = {k: v for k, v in model._abstract_order().items()}
    pages = sorted(papers_site.glob("*.html")) + sorted((papers_site / "claims").glob("*.html")) \
        + sorted((papers_site / "formal").glob("*.html"))
    assert len(pages) > 25
    for width in (1280, 760):
        browser.set_window_size(width, 1000)
        for path in pages:
            browser.get(path.as_uri())
            assert_reads_right(browser, f"{path.name} at {width} px")
        browser.get((papers_site / "index.html").as_uri())
        board = browser.execute_script(FIRST_SCREEN)
        # the papers come first: only the title, its one-line lede, the contents and the search stand before them
        assert board["papersTop"] < board["height"], board
        assert [b.split("#")[0].split(".")[0] for b in board["before"]] == ["H1", "P", "NAV", "DIV"], board["before"]
        shown = [h["text"] for h in board["headlines"]]
        assert len(shown) == len(sentences) == 13
        for h in board["headlines"]:
            assert len(h["badges"]) == 1, h  # one badge each, summarising the claims that read it
        assert "#papers" in board["toc"] and "#graph" in board["toc"] and "#summary" in board["toc"]
        assert board["countLinks"] and all(link.startswith("#group-") for link in board["countLinks"])
        for link in board["countLinks"]:
            assert browser.find_elements(By.ID, link[1:]), link
        assert board["legendOpen"] is False
        # no refuted badge in full colour beside a paper's sentence unless a claim reading it is refuted
        assert not any(b.startswith("refuted") for h in board["headlines"] for b in h["badges"])
        # the graph: no cycle among its edges
        uses: dict = {}
        for used, node in board["edges"]:
            uses.setdefault(node, set()).add(used)
        state: dict = {}

        def visit(n):
            state[n] = 1
            for u in sorted(uses.get(n, ())):
                assert state.get(u) != 1, f"a cycle in the graph through {u} and {n}"
                if u not in state:
                    visit(u)
            state[n] = 2

        for n in sorted(uses):
            if n not in state:
                visit(n)
        # the search box finds rank_two (offline: the index ships with the report)
        box = browser.find_element(By.ID, "search")
        box.clear()
        box.send_keys("rank_two")
        found = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "#search-results a")]
        assert any(href.endswith("/claims/kernel_rank.rank_two.html") for href in found), found
        assert errors(browser) == []
        # each edge is its own: the arrows into one box end at least 10 px apart (drawn, as the browser lays them out)
        ends: dict = {}
        for to, y in browser.execute_script(EDGE_ENDS):
            ends.setdefault(to, []).append(y)
        for to, ys in ends.items():
            ys.sort()
            assert all(b - a >= 10 for a, b in zip(ys, ys[1:])), (to, ys)
        # the analogue (S7 on all-MiniLM-L6-v2): no full-colour verdict on its page, none beside its sentence
        browser.get((papers_site / "claims" / "softmax_rank.calibration.html").as_uri())
        analogue = browser.execute_script(ANALOGUE)
        assert analogue["full"] == [] and analogue["quiet"] and "Not checked here." in analogue["note"], analogue
        # the graph alone (assets/graph.svg): every box inside the drawing, and the page scrolls to all of it
        browser.get((papers_site / "assets" / "graph.svg").as_uri())
        drawn = browser.execute_script(STANDALONE)
        assert drawn["boxes"] > 20 and drawn["bottom"] <= drawn["height"] - 4 and drawn["right"] <= drawn["width"] - 4, drawn
        assert drawn["scrollHeight"] >= drawn["height"] and drawn["scrollWidth"] >= min(drawn["width"], width), drawn
    # each sentence of both abstracts is on the first screen's list, in the abstracts' order
    for text, sentence in zip(shown, sentences):
        words = re.findall(r"[A-Za-z]{4,}", re.sub(r"\$[^$]*\$", " ", sentence))
        assert words and all(word in text for word in words), (text, sentence)
    browser.set_window_size(1280, 1000)
    browser.get((papers_site / "index.html").as_uri())
    shot = screenshot(browser, tmp_path, "papers-index-1280.png")
    assert shot.stat().st_size > 10_000
