"""The Chinese PDF (``make pdf`` -> ``_build/pdf/book-zh.pdf``): length, CJK font, text layer.

Skips, with the reason, when the PDF has not been built or pypdf/pypdfium2 is missing.
The text layer is read with pypdfium2 (see test_pdf.py); pypdf reads the fonts of the
first pages.
"""
from __future__ import annotations

import collections
import os
import pathlib
import unicodedata

import pytest
import test_pdf as en
from conftest import ROOT

from bookkit import zh_text
from tools import zh_checks as C
from tools import zh_message

PDF_ZH = pathlib.Path(os.environ.get("BOOK_PDF_ZH") or ROOT / "_build" / "pdf" / "book-zh.pdf")


@pytest.fixture(scope="module")
def pdf_reader():
    if not PDF_ZH.is_file():
        pytest.skip(f"no PDF at {PDF_ZH} (run `make pdf`)")
    pypdf = pytest.importorskip("pypdf", reason="pypdf is not installed")
    return pypdf.PdfReader(str(PDF_ZH))


@pytest.fixture(scope="module")
def pdf_text(pdf_reader):
    pages, text = en.text_layer(PDF_ZH)
    assert pages == len(pdf_reader.pages), (pages, len(pdf_reader.pages))
    return text


def test_pdf_page_count(pdf_reader):
    assert len(pdf_reader.pages) > 20, len(pdf_reader.pages)


def han_by_font(pdf_reader, pages: int = 12) -> collections.Counter:
    """How many Chinese characters of the text layer each font draws (first pages)."""
    drawn: collections.Counter = collections.Counter()

    def visit(text, cm, tm, font, size):
        n = len(zh_message.HAN.findall(unicodedata.normalize("NFKC", text)))
        if n:
            font = font or {}
            drawn[(str(font.get("/Subtype")), str(font.get("/BaseFont")))] += n

    for page in pdf_reader.pages[:pages]:
        page.extract_text(visitor_text=visit)
    return drawn


def test_pdf_draws_chinese_with_a_chinese_font(pdf_reader):
    """No empty boxes: the Chinese characters are drawn by a CJK font (Chromium embeds
    Noto CJK as Type3 glyph procedures), not by the Latin font's missing-glyph box."""
    drawn = han_by_font(pdf_reader)
    assert sum(drawn.values()) > 500, drawn
    latin = {font: n for font, n in drawn.items()
             if not (font[0] == "/Type3" or "CJK" in font[1])}
    assert not latin, f"Chinese characters drawn by a font without them: {latin}"


def test_pdf_has_the_chinese_titles(pdf_text):
    """Chapter-level pages whose title is translated appear under their Chinese title."""
    flat = en._squash(pdf_text)
    titles = {doc: t for doc in en.e2e.toc_chapters(ROOT) if (t := C.translated_title(doc))}
    assert titles, "no translated chapter title"
    missing = {doc: t for doc, t in titles.items() if en._squash(t) not in flat}
    assert not missing, f"Chinese titles not in the PDF text layer: {missing}"


def test_pdf_has_the_prose_numbers_in_chinese(pdf_text):
    flat = en._squash(pdf_text)
    numbers = [zh_text(n) for n in en.prose_numbers()]
    missing = [n for n in numbers if en._squash(n) not in flat]
    assert numbers and not missing, f"{len(missing)} of {len(numbers)} numbers not in the PDF: {missing}"
