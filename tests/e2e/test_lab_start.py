"""Where a student starts in JupyterLab (issue 18 §5), in a real JupyterLab driven by Chromium.

``tests/lab_server.py`` starts JupyterLab the way ``make lab`` does: the book's
settings come from ``tools/lab/`` (``JUPYTER_CONFIG_PATH``), whose
``jupyter_server_config.py`` sets the first page and points JupyterLab's
settings overrides at ``tools/lab/settings/overrides.json``.  The server serves
this checkout.  Checked here:

* the lab's default URL (what ``make lab`` opens) shows ``how_to_use`` first;
* every Markdown page a student is likely to open (``book/intro.md``, each
  chapter's ``index.md``, the glossary) opens as a rendered page: a Markdown
  viewer with the page's title as a heading, no editor, and none of the MyST
  source (``# `` headings, ```` ```{admonition} ```` fences, ``:class:`` options);
* the file browser lists ``book/``'s folders in reading order;
* without a browser: the front pages say where to start (the intro's Contents links every
  chapter of ``_toc.yml`` in order; how_to_use names the first chapter page first);
* and that ``make lab`` takes these settings from ``tools/lab/`` and
  overrides none of them on its command line, so that the test sees what a student sees.

Every wait is on a condition with a generous limit (a loaded 2-core machine),
never a sleep, and nothing is retried.  Screenshots land in
``artifacts/lab-start/``.  Skipped only when Chromium is absent.
"""
from __future__ import annotations

import json
import pathlib
import re

import pytest
from e2e_helpers import toc_chapters
from lab_server import CHROMIUM, ROOT, lab_server

needs_chromium = pytest.mark.skipif(
    not pathlib.Path(CHROMIUM).exists(),
    reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium, or set CHROMIUM=/path/to/chromium)")

VIEWPORT = {"width": 1280, "height": 900}
WAIT_MS = 240_000
ARTIFACTS = ROOT / "artifacts" / "lab-start"
FRONT_PAGE = "book/0_start/how_to_use.ipynb"
#: book/'s folders as the book reads them (the file browser sorts by name)
READING_ORDER = ["0_start", "1_decode_step", "2_full_speed", "3_whole_request", "4_forecast",
                 "5_lab", "appendix"]
#: the Markdown pages a student meets: the front page, each chapter's index, the glossary
MARKDOWN_PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "book").rglob("*.md")
                        if not any(part.startswith((".", "_")) for part in p.parts))
#: MyST source that must not show on a rendered page (a line's start, or anywhere)
SOURCE_LINE_STARTS = ("# ", "## ", ":class:", ":name:", ":label:")
SOURCE_ANYWHERE = ("```{", "{admonition}", "{eval}", "{ref}", "{doc}", "Unknown Directive",
                   "Unknown Role")


def _screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _links(markdown: str) -> list[str]:
    """Targets of the Markdown links to pages of the book, in order, without their suffix."""
    return [t.rsplit(".", 1)[0] for t in re.findall(r"\]\(([^)#\s]+\.(?:ipynb|md))\)", markdown)]


def test_intro_contents_lists_every_chapter_in_order():
    """The intro's Contents names every chapter of the table of contents, in its order."""
    text = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    contents = text.split("## Contents", 1)[1]
    linked = ["book/" + t for t in _links(contents)]
    chapters = toc_chapters()[1:]                      # without the intro itself
    assert [c for c in linked if c in chapters] == chapters, linked


def test_how_to_use_names_the_first_page_first():
    """how_to_use's first section says where to start: chapter 1's first page, then the order."""
    cells = json.loads((ROOT / FRONT_PAGE).read_text(encoding="utf-8"))["cells"]
    text = "".join(cells[0]["source"]) if isinstance(cells[0]["source"], list) else cells[0]["source"]
    start = text.split("## Where to start", 1)[1].split("\n## ", 1)[0]
    first = sorted((ROOT / "book" / "1_decode_step").glob("0*.ipynb"))[0]
    assert _links(start)[0] == "../1_decode_step/" + first.stem, _links(start)
    positions = [start.index(folder) for folder in READING_ORDER[1:5]]
    assert positions == sorted(positions), "the chapters are not named in reading order"


def test_make_lab_uses_the_settings_the_test_checks():
    """``make lab`` loads tools/lab/ and sets neither the first page nor the settings elsewhere."""
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nlab:", 1)[1].split("\n\n", 1)[0]
    assert 'JUPYTER_CONFIG_PATH="$(CURDIR)/tools/lab' in recipe, recipe
    for option in ("default_url", "app_settings_dir", "overrides"):
        assert option not in recipe, f"make lab sets {option} on its command line: {recipe}"
    config = (ROOT / "tools" / "lab" / "jupyter_server_config.py").read_text(encoding="utf-8")
    assert f'FRONT_PAGE = "{FRONT_PAGE}"' in config
    assert (ROOT / FRONT_PAGE).is_file()
    overrides = json.loads((ROOT / "tools" / "lab" / "settings" / "overrides.json").read_text())
    assert overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]["markdown"] == \
        "Markdown Preview"


@pytest.fixture(scope="module")
def lab(chromium):
    """A JupyterLab of its own on this checkout (the session's ``lab`` keeps pages open in
    its workspace; a first start must not meet them), in the worker's ``chromium``."""
    with lab_server() as (base, token):
        context = chromium.new_context(viewport=VIEWPORT)
        try:
            yield base, token, context
        finally:
            context.close()


# the widget in JupyterLab's main area that shows ``path``, once its file is loaded
CURRENT_PATH_JS = """() => { const app = window.jupyterapp; if (!app) return null;
  const w = app.shell.currentWidget;
  return (w && w.context && w.context.isReady) ? w.context.path : null; }"""


@needs_chromium
def test_default_url_opens_how_to_use(lab):
    """``make lab`` opens the server's default URL: the first page is how_to_use."""
    base, token, context = lab
    page = context.new_page()
    try:
        page.goto(f"{base}/?token={token}", wait_until="domcontentloaded", timeout=WAIT_MS)
        page.wait_for_function(f"() => ({CURRENT_PATH_JS})() !== null", timeout=WAIT_MS,
                               polling=250)
        assert page.evaluate(CURRENT_PATH_JS) == FRONT_PAGE
        assert f"/lab/tree/{FRONT_PAGE}" in page.url
        _screenshot(page, "default-url")
        page.evaluate("""async () => { for (const w of Array.from(window.jupyterapp.shell.widgets('main')))
                          if (w.sessionContext) await w.sessionContext.shutdown(); }""")
    finally:
        page.close()


def _title(relpath: str) -> str:
    """The page's title: its first ``# `` heading."""
    for line in (ROOT / relpath).read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise AssertionError(f"{relpath} has no '# ' title")


# what the main area shows for the open file: viewer or editor, headings, text
MAIN_AREA_JS = """(path) => { const w = window.jupyterapp.shell.currentWidget;
  if (!w || !w.context || w.context.path !== path || !w.context.isReady) return null;
  return {viewer: !!w.node.querySelector('.jp-MarkdownViewer'),
          editor: !!w.node.querySelector('.jp-FileEditor, .cm-editor'),
          headings: Array.from(w.node.querySelectorAll('h1, h2')).map(h => h.textContent.trim()),
          text: w.node.innerText}; }"""


#: opens a file as a double click in the file browser does (the default viewer of its type),
#: in the page's JupyterLab, and shows it
OPEN_JS = """async (path) => { const app = window.jupyterapp;
  const w = await app.commands.execute('docmanager:open', {path});
  app.shell.activateById(w.id); return true; }"""
#: closes what the main area shows (the page opened before the next one opens)
CLOSE_ALL_JS = """() => { for (const w of Array.from(window.jupyterapp.shell.widgets('main')))
  w.dispose(); return true; }"""


# the file is open and something of it is laid out (a heading or an editor line)
OPEN_AND_LAID_OUT_JS = """(path) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return !!w && !!w.context && w.context.path === path && w.context.isReady &&
         !!w.node.querySelector('h1, .cm-line'); }"""


@pytest.fixture(scope="module")
def md_tab(lab):
    """One JupyterLab front end (loaded once) in which the Markdown pages are opened in
    turn, as a student opens them from the file browser."""
    base, token, context = lab
    page = context.new_page()
    # loaded as a student's link to the first page opens it (a fresh workspace); then
    # every test opens its page in this front end
    first = MARKDOWN_PAGES[0]
    page.goto(f"{base}/lab/tree/{first}?token={token}&reset", wait_until="domcontentloaded",
              timeout=WAIT_MS)
    page.wait_for_function(OPEN_AND_LAID_OUT_JS, arg=first, timeout=WAIT_MS, polling=250)
    try:
        yield page
    finally:
        page.close()


@needs_chromium
@pytest.mark.parametrize("relpath", MARKDOWN_PAGES)
def test_markdown_page_opens_rendered(md_tab, relpath):
    """A chapter's index.md (and every other .md page) opens as a page, not as MyST source."""
    title = _title(relpath)
    page = md_tab
    page.evaluate(CLOSE_ALL_JS)
    page.evaluate(OPEN_JS, relpath)
    page.wait_for_function(OPEN_AND_LAID_OUT_JS, arg=relpath, timeout=WAIT_MS, polling=250)
    shown = page.evaluate(MAIN_AREA_JS, relpath)
    _screenshot(page, relpath.replace("/", "__"))
    assert shown["viewer"] and not shown["editor"], \
        f"{relpath} opens in an editor, not as a rendered page"
    assert title in shown["headings"], \
        f"{relpath}: title {title!r} not rendered as a heading; headings: {shown['headings'][:5]}"
    lines = [line.strip() for line in shown["text"].splitlines()]
    raw = sorted({s for s in SOURCE_LINE_STARTS for line in lines if line.startswith(s)}
                 | {s for s in SOURCE_ANYWHERE if s in shown["text"]})
    assert not raw, f"{relpath} shows MyST source on the page: {raw}"


LISTING_JS = """() => Array.from(document.querySelectorAll(
  '.jp-FileBrowser .jp-DirListing-content .jp-DirListing-item .jp-DirListing-itemText'))
  .map(e => e.textContent.trim())"""


@needs_chromium
def test_file_browser_lists_book_in_reading_order(lab):
    """The file browser, opened on book/, lists the chapters' folders as the book reads them."""
    base, token, context = lab
    on_disk = sorted(p.name for p in (ROOT / "book").iterdir()
                     if p.is_dir() and not p.name.startswith((".", "_")))
    assert set(READING_ORDER) <= set(on_disk), on_disk
    page = context.new_page()
    try:
        page.goto(f"{base}/lab/tree/book?token={token}&reset", wait_until="domcontentloaded",
                  timeout=WAIT_MS)
        # every folder of book/ is listed (the listing is complete, not half loaded)
        page.wait_for_function(f"(names) => {{ const got = ({LISTING_JS})();"
                               " return names.every(n => got.includes(n)); }",
                               arg=on_disk, timeout=WAIT_MS, polling=250)
        listed = page.evaluate(LISTING_JS)
        _screenshot(page, "file-browser-book")
        folders = [name for name in listed if name in on_disk]
        assert [name for name in folders if name in READING_ORDER] == READING_ORDER, listed
        # the chapters come first: only support folders (figures) may follow the appendix
        assert folders[:len(READING_ORDER)] == READING_ORDER, listed
    finally:
        page.close()
