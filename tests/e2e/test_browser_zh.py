"""The Chinese edition (``_build/html/zh``) as a reader sees it, in headless Chromium.

Every page gets the checks that ``tests/e2e/test_browser.py`` makes of the English pages
(loads cleanly offline, math typeset, every image loaded, solutions hidden until
clicked, explorer fallbacks visible, every internal link resolves, the language switch
included; screenshots ``artifacts/screenshots/zh__*.png``), through the same test
functions.  A file of its own, so pytest-xdist runs it beside the English one.  Then
what only the Chinese pages need: Chinese characters drawn by a font that has them
(no empty boxes), the search for a Chinese term, and the language switch clicked.

Skips, with the reason, where test_browser.py does (no Chromium, Playwright or
offline build).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import urllib.parse

import e2e_helpers as e2e
import pytest
import test_browser as en

from tools import translations as T
from tools import zh_message

PAGES = [e2e.ZH + p for p in en.PAGES]
SEARCH_TERMS = ("算术强度", "转折点")
# the pages whose every message is translated: the Chinese-glyph check reads them
DONE = [e2e.ZH + p for p, pot in (T.templates().items() if T.POT_DIR.is_dir() else [])
        if T.page_status(p, pot).done]


@pytest.fixture(scope="module")
def reader(request):
    """The worker's reader of the built site (``book_reader``, shared with the English pages)."""
    reason = en._skip_reason()
    if reason:
        pytest.skip(reason)
    if not (e2e.HTML_DIR / e2e.ZH).is_dir():
        pytest.fail(f"no Chinese edition in {e2e.HTML_DIR / e2e.ZH}: run `make book OFFLINE=1`")
    return request.getfixturevalue("book_reader")


# -- the English edition's checks, on the Chinese pages ------------------------------------
@pytest.mark.parametrize("page", PAGES)
def test_page_loads_cleanly(reader, page):
    en.test_page_loads_cleanly(reader, page)


@pytest.mark.parametrize("page", PAGES)
def test_no_widget_views(reader, page):
    en.test_no_widget_views(reader, page)


@pytest.mark.parametrize("page", PAGES)
def test_math_typeset(reader, page):
    en.test_math_typeset(reader, page)


@pytest.mark.parametrize("page", PAGES)
def test_images_loaded(reader, page):
    en.test_images_loaded(reader, page)


@pytest.mark.parametrize("page", [p for p in PAGES if en.SOLUTIONS[p]])
def test_solutions_hidden_until_clicked(reader, page):
    en.test_solutions_hidden_until_clicked(reader, page)


@pytest.mark.parametrize("page", [p for p in PAGES if en.EXPLORERS[p]])
def test_explorer_fallback_visible(reader, page):
    en.test_explorer_fallback_visible(reader, page)


@pytest.mark.parametrize("page", PAGES)
def test_internal_links_resolve(reader, page):
    """Every local link resolves, the link to the English page among them."""
    en.test_internal_links_resolve(reader, page)
    links = reader.visit(page).info["links"]
    english = f"{reader.base}/{e2e.source_docname(page)}.html"
    assert english in links, f"no link to {english}"


# -- Chinese characters are drawn --------------------------------------------------------
def cjk_families() -> set[str] | None:
    """The font families fontconfig says cover Chinese (None without fc-list)."""
    if not shutil.which("fc-list"):
        return None
    out = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout
    return {name.strip() for line in out.splitlines() for name in line.split(",") if name.strip()}


def _text_nodes(node: dict, out: list[dict]) -> list[dict]:
    if node.get("nodeType") == 3 and zh_message.HAN.search(node.get("nodeValue", "")):
        out.append(node)
    for child in node.get("children") or []:
        _text_nodes(child, out)
    return out


def glyph_report(reader, page: str) -> list[dict]:
    """For each drawn text node with Chinese characters: how many it has, and how many
    glyphs each platform font drew for it (Chromium's CSS.getPlatformFontsForNode; a
    node that is not drawn, such as a script's text, has no fonts and is left out)."""
    context = reader.browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        tab = context.new_page()
        tab.goto(f"{reader.base}/{page}.html", wait_until="networkidle")
        tab.evaluate("document.fonts && document.fonts.ready")
        cdp = context.new_cdp_session(tab)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        report = []
        for node in _text_nodes(cdp.send("DOM.getDocument", {"depth": -1})["root"], []):
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
            if fonts:
                report.append({"text": node["nodeValue"].strip()[:40],
                               "han": len(zh_message.HAN.findall(node["nodeValue"])),
                               "fonts": {f["familyName"]: f["glyphCount"] for f in fonts}})
        return report
    finally:
        context.close()


@pytest.mark.parametrize("page", DONE or [pytest.param("-", marks=pytest.mark.skip(
    reason="no fully translated page"))])
def test_chinese_characters_are_drawn(reader, page):
    """No empty boxes: every Chinese character is drawn by a font that covers Chinese."""
    families = cjk_families()
    report = glyph_report(reader, page)
    assert len(report) >= 10, report
    for item in report:
        drawn = sum(n for family, n in item["fonts"].items()
                    if (family in families if families is not None
                        else re.search(r"CJK|Hei|Song|Kai|WenQuanYi|Fallback", family)))
        assert drawn >= item["han"], \
            f"{item['han']} Chinese characters but {drawn} glyphs from a Chinese font: {item}"


# -- search --------------------------------------------------------------------------------
@pytest.mark.parametrize("term", SEARCH_TERMS)
def test_search_finds_the_pages_using_a_term(reader, term):
    """Searching the Chinese site for a term lists every translated page that uses it."""
    import test_zh_html as static

    want = {e2e.ZH + p for p in static.pages_using(term)}
    assert want, f"no translated page uses {term}"
    context = reader.browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(f"{reader.base}/{e2e.ZH}search.html?q={urllib.parse.quote(term)}",
                 wait_until="networkidle")
        tab.wait_for_function(
            "() => { const s = document.querySelector('#search-results .search-summary');"
            " return s && s.textContent.trim().length > 0; }", timeout=30_000)
        hrefs = tab.eval_on_selector_all("#search-results ul.search li a",
                                         "els => els.map(e => e.href)")
        summary = tab.inner_text("#search-results .search-summary")
    finally:
        context.close()
    found = {urllib.parse.urlsplit(h).path.lstrip("/").removesuffix(".html") for h in hrefs}
    assert want <= found, f"search for {term} ({summary!r}) misses {want - found}; found {found}"


# -- the language switch, clicked -------------------------------------------------------------
@pytest.mark.parametrize("page", ["book/intro", "book/appendix/glossary"])
def test_language_switch_click(reader, page):
    context = reader.browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(f"{reader.base}/{page}.html", wait_until="networkidle")
        tab.click("div.lang-switch a.lang-switch-link")
        tab.wait_for_load_state("networkidle")
        assert tab.url == f"{reader.base}/{e2e.ZH}{page}.html"
        assert tab.evaluate("document.documentElement.lang") == "zh-CN"
        tab.click("div.lang-switch a.lang-switch-link")
        tab.wait_for_load_state("networkidle")
        assert tab.url == f"{reader.base}/{page}.html"
        assert tab.evaluate("document.documentElement.lang") == "en"
    finally:
        context.close()
