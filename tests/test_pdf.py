"""The PDF of the book (``make pdf`` -> ``_build/pdf/book.pdf``): length and text layer.

Skips, with the reason, when the PDF has not been built or pypdf is missing.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import unicodedata

import pytest

ROOT = pathlib.Path(os.environ.get("BOOK_SOURCE_DIR") or pathlib.Path(__file__).resolve().parents[1])
PDF = pathlib.Path(os.environ.get("BOOK_PDF") or ROOT / "_build" / "pdf" / "book.pdf")
# Numbers the chapters glue into their prose (J07 §7 and J13); they must survive
# into the PDF's text layer, i.e. be typeset as text, not lost or rasterised.
GLUED_NUMBERS = ("20.90", "0.1415", "147.7", "295.3", "78.56")


def _squash(text: str) -> str:
    """NFKC (undo ligatures such as 'ﬁ'), drop whitespace: robust to line wraps."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def _title(source: pathlib.Path) -> str | None:
    """The H1 of a page source (.md or .ipynb), markdown markup stripped."""
    if source.suffix == ".ipynb":
        nb = json.loads(source.read_text(encoding="utf-8"))
        lines = [line for cell in nb["cells"] if cell["cell_type"] == "markdown"
                 for line in "".join(cell["source"]).splitlines()]
    else:
        lines = source.read_text(encoding="utf-8").splitlines()
    for line in lines:
        if line.startswith("# "):
            return re.sub(r"[`*_]", "", line[2:]).strip()
    return None


def chapter_titles() -> dict[str, str]:
    """Title of the root page and of every chapter-level entry of _toc.yml."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]] + [ch["file"] for part in toc.get("parts", [])
                             for ch in part.get("chapters", []) if "file" in ch]
    titles = {}
    for name in files:
        for suffix in (".md", ".ipynb"):
            src = ROOT / f"{name}{suffix}"
            if src.is_file() and (title := _title(src)):
                titles[name] = title
    return titles


@pytest.fixture(scope="module")
def pdf_reader():
    if not PDF.is_file():
        pytest.skip(f"no PDF at {PDF} (run `make pdf`)")
    pypdf = pytest.importorskip("pypdf", reason="pypdf is not installed")
    return pypdf.PdfReader(str(PDF))


@pytest.fixture(scope="module")
def pdf_text(pdf_reader):
    return (len(pdf_reader.pages),
            "\n".join(page.extract_text() or "" for page in pdf_reader.pages))


def test_chapter_titles_found_in_sources():
    titles = chapter_titles()
    assert len(titles) >= 5, titles
    assert "book/j07/index" in titles and "book/j13/index" in titles


def test_pdf_page_count(pdf_text):
    pages, _ = pdf_text
    assert pages > 20, f"only {pages} pages"


def test_pdf_has_chapter_titles(pdf_text):
    _, text = pdf_text
    flat = _squash(text)
    missing = {k: t for k, t in chapter_titles().items() if _squash(t) not in flat}
    assert not missing, f"chapter titles not in the PDF text layer: {missing}"


@pytest.mark.parametrize("number", GLUED_NUMBERS)
def test_pdf_has_glued_number(pdf_text, number):
    _, text = pdf_text
    found = number in unicodedata.normalize("NFKC", text)
    assert found, f"{number} not in the PDF text layer"


def test_pdf_outline_has_chapters(pdf_reader):
    """Bookmarks (from the headings) lead to every chapter."""
    def flat(items):
        for item in items:
            if isinstance(item, list):
                yield from flat(item)
            else:
                yield item.title
    outline = _squash(" ".join(flat(pdf_reader.outline)))
    missing = {k: t for k, t in chapter_titles().items() if _squash(t) not in outline}
    assert not missing, f"chapters without a PDF bookmark: {missing}"
