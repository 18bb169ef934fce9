"""The built Chinese edition (``_build/html/zh``), read as files: pages, language
switch, numbers, words, the theme's strings and the search index.

`make test` builds both editions first; run `make book` before running this file alone.
"""
from __future__ import annotations

import functools
import json
import re
import urllib.parse

import e2e_helpers as e2e
import pytest
from bs4 import BeautifulSoup
from conftest import HTML_DIR, NOTEBOOKS, docname, is_distinctive, nb_id, stored_results

from bookkit import zh_text
from tools import translations as T
from tools import zh_checks as C
from tools import zh_message

ZH_DIR = HTML_DIR / "zh"
PAGES = e2e.toc_pages()
SEARCH_TERMS = ("算术强度", "转折点")
# theme strings a Chinese page must not show (their Chinese comes from the catalogs)
ENGLISH_CHROME = ("Search this book", "Print to PDF", "列印", "Click to show", "previous page",
                  "next page", "© Copyright")
GENERATED_TITLES = {"Note", "Warning", "Tip", "Hint", "Important", "Caution", "Attention",
                    "Danger", "Error", "See also", "Todo", "Exercise", "Solution", "Contents"}


def translated_pages() -> list[str]:
    """Pages whose every message is translated (from the last templates built)."""
    if not T.POT_DIR.is_dir():
        return []
    return [doc for doc, pot in T.templates().items() if T.page_status(doc, pot).done]


DONE = translated_pages()


@functools.cache
def soup(path) -> BeautifulSoup:
    assert path.is_file(), f"no built page {path}: run `make book` first"
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def zh_page(page: str):
    return ZH_DIR / f"{page}.html"


def article_prose(page_soup: BeautifulSoup, *, drop_first_column: bool = False) -> str:
    """The article's visible prose: code, outputs, math, the language switch removed."""
    body = BeautifulSoup(str(page_soup.select_one("article.bd-article") or page_soup.body),
                         "html.parser")
    for node in body.select("div.cell_input, div.cell_output, pre, code, script, style, "
                            "span.math, div.math, a.headerlink, div.lang-switch"):
        node.decompose()
    if drop_first_column:
        for node in body.select("tr > td:first-child"):
            node.decompose()
    return re.sub(r"\s+", " ", body.get_text(" ")).replace("\u00a0", " ")


@functools.cache
def zh_prose(page: str, *, drop_first_column: bool = False) -> str:
    """:func:`article_prose` of a Chinese page, worked out once per page for every test
    that reads it (the numbers, the words, and the search tests of both files)."""
    return article_prose(soup(zh_page(page)), drop_first_column=drop_first_column)


# -- the site ----------------------------------------------------------------------------
def test_every_toc_page_built_in_chinese():
    missing = [p for p in PAGES if not zh_page(p).is_file()]
    assert not missing, f"pages of _toc.yml with no Chinese page: {missing}"


@pytest.mark.parametrize("page", PAGES)
def test_pages_declare_their_language(page):
    assert soup(zh_page(page)).html.get("lang") == "zh-CN"
    assert soup(HTML_DIR / f"{page}.html").html.get("lang") == "en"


def _switch_target(path, page_soup) -> tuple[str, object]:
    links = page_soup.select("div.lang-switch a.lang-switch-link")
    assert len(links) == 1, f"{path}: {len(links)} language links"
    href = links[0]["href"]
    target = (path.parent / urllib.parse.unquote(href)).resolve()
    return href, target


@pytest.mark.parametrize("page", PAGES)
def test_language_switch_leads_to_the_same_page(page):
    """Each page links to the same page of the other edition, and the file is there."""
    en, zh = HTML_DIR / f"{page}.html", zh_page(page)
    href, target = _switch_target(en, soup(en))
    assert target == zh.resolve() and target.is_file(), f"{en}: {href} -> {target}"
    href, target = _switch_target(zh, soup(zh))
    assert target == en.resolve() and target.is_file(), f"{zh}: {href} -> {target}"
    for path in (en, zh):
        assert soup(path).select('link[rel="alternate"][hreflang]'), f"{path}: no hreflang link"


# -- numbers -------------------------------------------------------------------------------
@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_stored_numbers_in_the_chinese_prose(path):
    """Every number the English prose shows is in the Chinese page, unit words in Chinese."""
    needles = sorted({zh_text(t) for _, t in stored_results(path) if is_distinctive(t)})
    if not needles:
        return
    prose = zh_prose(docname(path))
    missing = [n for n in needles
               if re.search(rf"(?<![\d.,]){re.escape(n)}(?![\d])", prose) is None]
    assert not missing, f"stored {{eval}} results not in the Chinese page: {missing}"


@pytest.mark.parametrize("page", PAGES)
def test_values_carry_no_english_words(page):
    """Every number the Chinese edition shows reads as Chinese: no English word in a
    rendered value but the allow-list's (names, symbols), translated page or not."""
    values = [s.get_text() for s in soup(zh_page(page)).select("span.stored-eval")]
    left = {v: words for v in values if (words := C.english_words(v))}
    assert not left, f"values with English words: {left}"


def test_unit_words_rendered_in_chinese():
    """The pages do store values with unit words, and the Chinese edition rewrites them."""
    pairs = [(t, zh_text(t)) for p in NOTEBOOKS for _, t in stored_results(p) if zh_text(t) != t]
    assert len(pairs) >= 20, pairs
    zh_values = {s.get_text() for p in PAGES for s in soup(zh_page(p)).select("span.stored-eval")}
    en_values = {s.get_text() for p in PAGES
                 for s in soup(HTML_DIR / f"{p}.html").select("span.stored-eval")}
    for en, zh in pairs:
        assert zh in zh_values and en in en_values, (en, zh)


# -- words ---------------------------------------------------------------------------------
@pytest.mark.parametrize("page", DONE or [pytest.param("-", marks=pytest.mark.skip(
    reason="no fully translated page (or no templates: run `make book`)"))])
def test_translated_page_reads_in_chinese(page):
    """A fully translated page shows no English word outside code, math and the allow-list
    (this also catches a translation that Sphinx ignored: its English stays)."""
    prose = zh_prose(page, drop_first_column=page in C.BILINGUAL_PAGES)
    assert len(zh_message.HAN.findall(prose)) > 20, prose[:200]
    words = C.english_words(prose)
    assert not words, f"English words on the Chinese page: {words}"
    title = soup(zh_page(page)).select_one("article h1")
    assert title is not None and zh_message.HAN.search(title.get_text()), title


@pytest.mark.parametrize("page", PAGES)
def test_theme_and_titles_in_chinese(page):
    """Sidebar captions, search box, generated admonition/exercise/solution titles,
    figure numbers and the footer are Chinese on every Chinese page."""
    s = soup(zh_page(page))
    html = str(s)
    chrome = BeautifulSoup(html, "html.parser")
    for node in chrome.select("article.bd-article"):
        node.decompose()
    for text in ENGLISH_CHROME:
        assert text not in str(chrome), f"{text!r} on the Chinese page, outside the article"
    captions = [c.get_text(strip=True) for c in s.select(".bd-sidebar-primary .caption-text")]
    assert captions and all(zh_message.HAN.search(c) for c in captions), captions
    search = s.select_one("input[name=q]")
    assert search is not None and zh_message.HAN.search(search.get("placeholder", "")), search
    assert "版权所有" in html
    titles = [t.get_text(" ", strip=True) for t in s.select(".admonition-title")]
    assert not [t for t in titles if t in GENERATED_TITLES], titles
    for t in s.select("div.exercise > .admonition-title"):
        assert t.get_text(strip=True).startswith("练习"), t
    for t in s.select("div.solution > .admonition-title"):     # 练习 1.1 的解答 (tools/zh_solutions.py)
        text = t.get_text(strip=True)
        assert text.startswith("练习") and text.endswith("的解答"), t
    for n in s.select("span.caption-number"):
        assert n.get_text(strip=True).startswith(("图", "表", "练习")), n


# -- search --------------------------------------------------------------------------------
@functools.cache
def search_index() -> dict:
    text = (ZH_DIR / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1:text.rindex(")")])


def pages_using(term: str) -> list[str]:
    """Translated pages whose Chinese prose uses ``term``."""
    return [p for p in DONE if term in zh_prose(p)]


@pytest.mark.parametrize("term", SEARCH_TERMS)
def test_search_index_holds_chinese_terms(term):
    """jieba split the pages with the term list as its dictionary: the whole term is a
    search word, and every translated page that uses it is listed under it."""
    index = search_index()
    # Sphinx files a page under a word once: in "titleterms" when its title holds the
    # word (then not again in "terms"), and the search reads both
    hits = [index[kind].get(term) for kind in ("terms", "titleterms")]
    assert any(h is not None for h in hits), f"{term} is not a search word of the Chinese site"
    docs = [i for h in hits if h is not None for i in ([h] if isinstance(h, int) else h)]
    found = {index["docnames"][i] for i in docs}
    want = pages_using(term)
    assert want, f"no translated page uses {term}"
    assert set(want) <= found, f"pages using {term} that its search misses: {set(want) - found}"
