"""The built HTML book shows, in its prose, every number its notebooks compute for it.

The needles are the stored ``{eval}`` results (``metadata.user_expressions``) of each
notebook, and they are searched only in the page's prose: code inputs and outputs
(``div.cell_input``, ``div.cell_output``, ``pre``, ``code``) are removed first, so a
needle can only be found where the prose rendered it.  Bare short numbers ("8") are
not needles: they would match "Qwen3-8B".

`make test` builds the book first; run `make book` before running this file alone.
"""
import functools
import re

import e2e_helpers as e2e
import pytest
from bs4 import BeautifulSoup
from conftest import (
    CHAPTER_NOTEBOOKS,
    HTML_DIR,
    NOTEBOOKS,
    ROOT,
    docname,
    is_distinctive,
    nb_id,
    stored_results,
)

CODE_SELECTORS = "div.cell_input, div.cell_output, pre, code, script, style"


def prose_of_html(html: str) -> str:
    """The visible prose of a built page's article: code and outputs removed."""
    soup = BeautifulSoup(html, "html.parser")
    body = soup.select_one("article.bd-article") or soup.body or soup
    for node in body.select(CODE_SELECTORS):
        node.decompose()
    for node in body.select("a.headerlink"):
        node.decompose()
    return re.sub(r"\s+", " ", body.get_text(" ")).replace("\u00a0", " ")


@functools.cache
def built_prose(doc: str) -> str:
    page = HTML_DIR / f"{doc}.html"
    assert page.is_file(), f"no built page {page}: run `make book` first"
    return prose_of_html(page.read_text(encoding="utf-8"))


def needles(path) -> list[str]:
    return sorted({text for _, text in stored_results(path) if is_distinctive(text)})


def contains(prose: str, needle: str) -> bool:
    return re.search(rf"(?<![\d.,]){re.escape(needle)}(?![\d])", prose) is not None


def test_prose_excludes_code_and_outputs():
    html = ('<article class="bd-article"><p>step 20.90 ms</p>'
            '<div class="cell_input"><pre>x = 147.7</pre></div>'
            '<div class="cell_output"><div class="output"><pre>78.56 GB</pre></div></div>'
            '<p>see <code>Qwen3-8B</code></p></article>')
    prose = prose_of_html(html)
    assert contains(prose, "20.90 ms")
    assert not contains(prose, "147.7") and not contains(prose, "78.56 GB") and "Qwen3" not in prose


@pytest.mark.parametrize("text, ok", [("8", False), ("55", False), ("147.7", True),
                                      ("4,096", True), ("20.90 ms", True), ("345", True),
                                      ("8 GB", True), ("memory-bound", False)])
def test_needles_are_distinctive(text, ok):
    assert is_distinctive(text) is ok


@pytest.mark.parametrize("path", CHAPTER_NOTEBOOKS, ids=nb_id)
def test_chapter_page_computes_its_numbers(path):
    """The page design: a chapter page's numbers reach its prose through {eval}."""
    assert needles(path), f"{path.relative_to(ROOT)} stores no {{eval}} result with a number"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_stored_numbers_are_in_the_built_prose(path):
    expected = needles(path)
    if not expected:
        return  # pages without {eval}; chapter pages must have some (test above)
    prose = built_prose(docname(path))
    missing = [n for n in expected if not contains(prose, n)]
    assert not missing, f"stored {{eval}} results not in the prose of the built page: {missing}"


def test_no_unrendered_roles_or_dead_widgets():
    pages = [p for p in HTML_DIR.rglob("*.html") if not {"_static", "_sources"} & set(p.parts)]
    assert pages, f"no built pages under {HTML_DIR}: run `make book` first"
    for page in pages:
        # literal code samples may show the syntax; rendered prose must not
        text = re.sub(r"<code.*?</code>|<pre.*?</pre>", "", page.read_text(encoding="utf-8"), flags=re.S)
        for role in ("{glue:", "{glue}", "{eval}", "{numref}", "{ref}", "{doc}"):
            assert role not in text, (page, role)
        assert "jupyter-widgets" not in text or "widget-view" not in text, page


def test_every_toc_page_built():
    pages = e2e.toc_pages()
    assert len(pages) >= 20, pages
    missing = [p for p in pages if not (HTML_DIR / f"{p}.html").is_file()]
    assert not missing, f"pages of _toc.yml not built: {missing}"
