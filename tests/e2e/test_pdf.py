"""The PDF of the book (``make pdf`` -> ``_build/pdf/book.pdf``): length and text layer.

Skips, with the reason, when the PDF has not been built or pypdf/pypdfium2 is missing.
The text layer is read with pypdfium2 (PDFium, the extractor of Chromium, which wrote the
PDF; seconds for the whole book where pypdf takes half a minute); pypdf reads the outline.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import unicodedata

import e2e_helpers as e2e
import pytest
from conftest import NOTEBOOKS, cells, is_distinctive, source, stored_results

ROOT = pathlib.Path(os.environ.get("BOOK_SOURCE_DIR") or pathlib.Path(__file__).resolve().parents[2])
PDF = pathlib.Path(os.environ.get("BOOK_PDF") or ROOT / "_build" / "pdf" / "book.pdf")


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
    titles = {}
    for name in e2e.toc_chapters(ROOT):
        for suffix in (".md", ".ipynb"):
            src = ROOT / f"{name}{suffix}"
            if src.is_file() and (title := _title(src)):
                titles[name] = title
    return titles


def _code_text(path: pathlib.Path) -> str:
    """Everything a notebook shows as code: inputs and stored outputs."""
    parts = []
    for c in cells(path):
        if c["cell_type"] != "code":
            continue
        parts.append(source(c))
        for out in c.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            for mime, value in (out.get("data") or {}).items():
                if mime.startswith("text/"):
                    parts.append("".join(value) if isinstance(value, list) else str(value))
    return "\n".join(parts)


def prose_numbers() -> list[str]:
    """Stored {eval} results that no code cell or output of the book shows: in the PDF's
    text layer they can only come from the typeset prose."""
    code = _squash("\n".join(_code_text(p) for p in NOTEBOOKS))
    found = {text for p in NOTEBOOKS for _, text in stored_results(p) if is_distinctive(text)}
    return sorted(n for n in found if _squash(n) not in code)


@pytest.fixture(scope="module")
def pdf_reader():
    if not PDF.is_file():
        pytest.skip(f"no PDF at {PDF} (run `make pdf`)")
    pypdf = pytest.importorskip("pypdf", reason="pypdf is not installed")
    return pypdf.PdfReader(str(PDF))


def text_layer(path: pathlib.Path) -> tuple[int, str]:
    """(number of pages, the text layer of every page), read by PDFium."""
    pdfium = pytest.importorskip("pypdfium2", reason="pypdfium2 is not installed")
    doc = pdfium.PdfDocument(str(path))
    try:
        texts = []
        for page in doc:
            textpage = page.get_textpage()
            texts.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return len(doc), "\n".join(texts)
    finally:
        doc.close()


@pytest.fixture(scope="module")
def pdf_text(pdf_reader):
    pages, text = text_layer(PDF)
    assert pages == len(pdf_reader.pages), (pages, len(pdf_reader.pages))
    return pages, text


def test_chapter_titles_found_in_sources():
    titles = chapter_titles()
    assert set(titles) == set(e2e.toc_chapters(ROOT)), "a chapter page has no '# ' title"
    assert len(titles) >= 5, titles
    assert "book/1_decode_step/index" in titles and "book/2_full_speed/index" in titles


def test_pdf_page_count(pdf_text):
    pages, _ = pdf_text
    assert pages > 20, f"only {pages} pages"


def test_pdf_has_chapter_titles(pdf_text):
    _, text = pdf_text
    flat = _squash(text)
    missing = {k: t for k, t in chapter_titles().items() if _squash(t) not in flat}
    assert not missing, f"chapter titles not in the PDF text layer: {missing}"


def test_book_has_prose_numbers():
    """Without a PDF too: the book stores numbers that only its prose shows."""
    assert len(prose_numbers()) >= 20, prose_numbers()


def test_pdf_has_prose_numbers(pdf_text):
    _, text = pdf_text
    flat = _squash(text)
    numbers = prose_numbers()
    missing = [n for n in numbers if _squash(n) not in flat]
    assert numbers and not missing, \
        f"{len(missing)} of {len(numbers)} prose numbers not in the PDF: {missing}"


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
