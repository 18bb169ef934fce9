"""The built HTML book holds the source's headline numbers (all computed and glued).

`make test` builds the book first; run `make book` before running this file alone.
"""
import html as htmlmod
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"


def page_text(folder):
    pages = sorted((HTML / "book" / folder).glob("*.html"))
    assert pages, f"no built pages under {HTML / 'book' / folder}: run `make book` first"
    text = " ".join(re.sub(r"<[^>]+>", " ", p.read_text(encoding="utf-8")) for p in pages)
    return htmlmod.unescape(re.sub(r"\s+", " ", text))


J07_NUMBERS = ["20.90 ms", "0.1415 ms", "147.7", "148", "99.3", "0.7", "78.56 GB", "73.73",
               "2.68", "2.15", "6.27", "10.45", "0.0707", "1.13", "2.61", "383", "47.9",
               "4.53", "20.94", "34.3", "0.449", "0.65"]
J13_NUMBERS = ["295.3", "227.6", "62.1", "345", "346", "344", "33.6", "8.59", "22.9", "23.0",
               "4,096", "512", "8", "16.38", "5.47", "1.21", "4.83", "6.04", "2.42", "1.43",
               "2.5", "55", "37", "30", "25.77", "144 KiB"]


@pytest.mark.parametrize("number", J07_NUMBERS)
def test_j07_html_holds(number):
    assert re.search(rf"(?<![\d.,]){re.escape(number)}(?![\d])", page_text("j07")), number


@pytest.mark.parametrize("number", J13_NUMBERS)
def test_j13_html_holds(number):
    assert re.search(rf"(?<![\d.,]){re.escape(number)}(?![\d])", page_text("j13")), number


def test_no_unrendered_roles_or_dead_widgets():
    for page in HTML.rglob("*.html"):
        if "_static" in page.parts or "_sources" in page.parts:
            continue
        # literal code samples may show the syntax; rendered prose must not
        text = re.sub(r"<code.*?</code>|<pre.*?</pre>", "", page.read_text(encoding="utf-8"), flags=re.S)
        assert "{glue:" not in text and "{numref}" not in text, page
        assert "jupyter-widgets" not in text or "widget-view" not in text, page


def test_every_toc_page_built():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    for f in re.findall(r"file:\s*(\S+)", toc):
        assert (HTML / f"{f}.html").is_file(), f
    for g in re.findall(r"glob:\s*(\S+)", toc):
        sources = sorted(ROOT.glob(g))
        assert sources, g
        for s in sources:
            assert (HTML / s.relative_to(ROOT).with_suffix(".html")).is_file(), s
