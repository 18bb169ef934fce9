"""The built book as a reader sees it: every page of _toc.yml in headless Chromium.

Runs against the OFFLINE build in ``_build/html`` (``make book OFFLINE=1``; override
the folder with ``BOOK_HTML_DIR``), served from 127.0.0.1; every request that
leaves the local server is blocked and counted as a failure.  Screenshots go to
``artifacts/screenshots/``.  Skips, with the reason, when Chromium
(``/usr/bin/chromium`` or ``$CHROMIUM``), the Playwright package or the offline
build is missing.
"""
from __future__ import annotations

import importlib.util
import pathlib

import e2e_helpers as e2e
import pytest

PAGES = e2e.toc_pages()
# what the sources promise, page by page: the built pages must hold at least this much
# (for the Chinese edition's pages too: tests/e2e/test_browser_zh.py runs these tests on them)
_BOTH = PAGES + [e2e.ZH + p for p in PAGES]
SOLUTIONS = {p: len(e2e.source_solutions(p)) for p in _BOTH}
EXPLORERS = {p: e2e.source_explorer_figures(p) for p in _BOTH}
WIDGETS = {p: e2e.source_widget_calls(p) for p in _BOTH}


def _skip_reason() -> str | None:
    if not pathlib.Path(e2e.CHROMIUM).is_file():
        return (f"Chromium not found at {e2e.CHROMIUM} "
                "(apt-get install -y chromium, or set CHROMIUM=/path/to/chromium)")
    if importlib.util.find_spec("playwright") is None:
        return "the playwright Python package is not installed (pip install -r requirements.txt)"
    if not (e2e.HTML_DIR / e2e.OFFLINE_MARKER).is_file():
        return (f"no offline build in {e2e.HTML_DIR} (run `make book OFFLINE=1`; "
                "the default build loads MathJax from a CDN)")
    return None


@pytest.fixture(scope="module")
def reader(request):
    """The worker's reader of the built site (``book_reader``, shared with the Chinese pages)."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    return request.getfixturevalue("book_reader")


# -- without a browser ---------------------------------------------------------------
def test_toc_pages_listed():
    """The TOC parser sees the root, the front matter, the appendices and the globs."""
    assert PAGES[0] == "book/intro"
    for page in ("book/0_start/how_to_use", "book/1_decode_step/index", "book/2_full_speed/index",
                 "book/appendix/glossary"):
        assert page in PAGES
    assert len(PAGES) == len(set(PAGES))
    for page in PAGES:
        assert any((e2e.ROOT / f"{page}{s}").is_file() for s in e2e.SOURCE_SUFFIXES), page
    # each glob in _toc.yml expands to the numbered pages of its folder
    chapters = sorted({p.parent.name for p in (e2e.ROOT / "book").glob("*/[0-9]*")})
    assert {"1_decode_step", "2_full_speed", "5_lab"} <= set(chapters), chapters
    for chapter in chapters:
        numbered = sorted(p.with_suffix("").relative_to(e2e.ROOT).as_posix()
                          for s in e2e.SOURCE_SUFFIXES
                          for p in (e2e.ROOT / "book" / chapter).glob(f"[0-9]*{s}"))
        assert [p for p in PAGES if p.startswith(f"book/{chapter}/") and p in numbered] == \
            sorted(set(numbered))


def test_check_link_detects_missing_targets(tmp_path):
    (tmp_path / "a.html").write_text('<p id="here">x</p><a name="old">y</a>')
    base = "http://127.0.0.1:1"
    assert e2e.check_link(f"{base}/a.html#here", base, tmp_path) is None
    assert e2e.check_link(f"{base}/a.html#old", base, tmp_path) is None
    assert "no id" in e2e.check_link(f"{base}/a.html#gone", base, tmp_path)
    assert "no file" in e2e.check_link(f"{base}/b.html", base, tmp_path)


def test_sources_promise_solutions_and_explorers():
    """The book has exercise solutions and explorers to check (they cannot vanish unseen)."""
    assert sum(SOLUTIONS.values()) >= 20, SOLUTIONS
    assert len([p for p in PAGES if WIDGETS[p]]) >= 4, WIDGETS


@pytest.mark.parametrize("page", [p for p in PAGES if WIDGETS[p]])
def test_every_explorer_has_a_static_fallback(page):
    """A web reader cannot run an explorer: each one needs a fallback figure on its page."""
    assert len(EXPLORERS[page]) >= len(WIDGETS[page]), \
        f"explorers {WIDGETS[page]} but fallback figures {EXPLORERS[page]}"


# -- in the browser ------------------------------------------------------------------
@pytest.mark.parametrize("page", PAGES)
def test_page_loads_cleanly(reader, page):
    assert e2e.html_path(page).is_file(), f"{page} is in _toc.yml but was not built"
    v = reader.visit(page)
    assert v.status == 200
    assert v.screenshot is not None and v.screenshot.stat().st_size > 0
    assert not v.page_errors, f"uncaught JavaScript errors: {v.page_errors}"
    assert not v.console_errors, f"console errors: {v.console_errors}"
    assert not v.failed_requests, f"failed or off-site requests: {v.failed_requests}"


@pytest.mark.parametrize("page", PAGES)
def test_no_widget_views(reader, page):
    """Widget cells carry tag remove-cell: no dead controls on the web page."""
    assert reader.visit(page).info["widget_views"] == 0


@pytest.mark.parametrize("page", PAGES)
def test_math_typeset(reader, page):
    info = reader.visit(page).info
    assert not info["raw_tex"], f"raw TeX delimiters left in the visible text: {info['raw_tex']}"
    if info["math_count"] == 0:
        return
    assert info["mathjax_version"] and info["mathjax_version"].startswith("3."), info["mathjax_version"]
    assert info["mathjax_src"] and all(s.startswith(reader.base + "/") for s in info["mathjax_src"]), \
        f"MathJax not loaded from the vendored copy: {info['mathjax_src']}"
    assert not info["math_untypeset"], f"math MathJax did not typeset: {info['math_untypeset']}"
    assert info["mjx_containers"] >= info["math_count"]
    assert not info["mjx_errors"], f"TeX errors: {info['mjx_errors']}"


@pytest.mark.parametrize("page", PAGES)
def test_images_loaded(reader, page):
    images = reader.visit(page).info["images"]
    broken = [i["src"] for i in images if not (i["complete"] and i["natural_width"] > 0)]
    assert not broken, f"images that did not load: {broken}"


@pytest.mark.parametrize("page", [p for p in PAGES if SOLUTIONS[p]])
def test_solutions_hidden_until_clicked(reader, page):
    v = reader.visit(page)
    assert len(v.solutions) >= SOLUTIONS[page], \
        f"the source has {SOLUTIONS[page]} solutions, the built page {len(v.solutions)}"
    shown_early = [s["id"] for s in v.solutions if s["visible_before"]]
    not_opened = [s["id"] for s in v.solutions if not s["visible_after"]]
    assert not shown_early, f"solutions visible before a click (no `:class: dropdown`?): {shown_early}"
    assert not not_opened, f"solutions still hidden after a click: {not_opened}"


@pytest.mark.parametrize("page", [p for p in PAGES if EXPLORERS[p]])
def test_explorer_fallback_visible(reader, page):
    info = reader.visit(page).info
    assert not info["explorer_ids_without_image"], \
        f"explorer figure ids with no image: {info['explorer_ids_without_image']}"
    seen = {e["id"] for e in info["explorers"] if e["visible"] and e["natural_width"] > 0}
    missing = [i for i in EXPLORERS[page] if i not in seen]
    assert not missing, f"explorer fallback figures not visible on the built page: {missing} " \
        f"(found {info['explorers']})"


@pytest.mark.parametrize("page", PAGES)
def test_internal_links_resolve(reader, page):
    v = reader.visit(page)
    local = [h for h in v.info["links"] if h.startswith(reader.base + "/")]
    assert local, "a book page always links to other pages (navigation)"
    bad = sorted({why for h in local if (why := e2e.check_link(h, reader.base)) is not None})
    assert not bad, f"{len(bad)} broken internal links: {bad}"
