"""Helpers for the end-to-end tests of the built book (tests/e2e/test_browser.py).

* :func:`toc_pages` lists every page of ``_toc.yml`` (globs expanded the way
  sphinx-external-toc does: against the source documents, by docname).
* :func:`serve` serves a folder on 127.0.0.1 at a free port.
* :class:`Reader` drives headless Chromium (``/usr/bin/chromium`` or ``$CHROMIUM``,
  launched once per worker: ``tests/conftest.py``'s ``chromium``)
  through the Playwright Python package and records, per page, what a reader
  would meet: console errors, failed or off-site requests, math, images,
  solution dropdowns, explorer figures and links.  Every page is opened once,
  in a fresh browser context (a first-time reader), and screenshotted.
"""
from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import functools
import html.parser
import os
import pathlib
import re
import urllib.parse

from bookkit.roles import FIGURE, solution_targets

ROOT = pathlib.Path(os.environ.get("BOOK_SOURCE_DIR") or pathlib.Path(__file__).resolve().parents[1])
HTML_DIR = pathlib.Path(os.environ.get("BOOK_HTML_DIR") or ROOT / "_build" / "html")
SCREENSHOTS = pathlib.Path(os.environ.get("E2E_SCREENSHOTS") or ROOT / "artifacts" / "screenshots")
# Written by `tools/build_book.py --offline` next to the site it built.
OFFLINE_MARKER = ".offline-build"
SOURCE_SUFFIXES = (".md", ".ipynb")
# The Chinese edition's folder in the built site (tools/build_book.py): its pages are
# "zh/<docname>", built from the same sources as "<docname>".
ZH = "zh/"


def source_docname(page: str) -> str:
    """The source docname of a built page of either edition ("zh/book/intro" -> "book/intro")."""
    return page[len(ZH):] if page.startswith(ZH) else page


# -- what the sources promise each page shows ---------------------------------------------
# An explorer (an ipywidgets cell, removed from the web page) comes with a static fallback
# figure whose registered id names it an explorer or a planner.
EXPLORER_ID = re.compile(r"explorer|planner")
WIDGET_CALL = re.compile(r"\b\w+_(?:explorer|planner)\(")


def _page_source(docname: str, root: pathlib.Path = ROOT) -> tuple[str, list[str]]:
    """(markdown, code cell sources) of a page's source file."""
    import json

    docname = source_docname(docname)
    for suffix in SOURCE_SUFFIXES:
        path = root / f"{docname}{suffix}"
        if path.is_file():
            if suffix == ".md":
                return path.read_text(encoding="utf-8"), []
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            for c in cells:
                if isinstance(c["source"], list):
                    c["source"] = "".join(c["source"])
            return ("\n\n".join(c["source"] for c in cells if c["cell_type"] == "markdown"),
                    [c["source"] for c in cells if c["cell_type"] == "code"])
    raise FileNotFoundError(docname)


def source_solutions(docname: str) -> list[str]:
    """Labels of the {solution} blocks a page's source holds."""
    return solution_targets(_page_source(docname)[0])


def source_explorer_figures(docname: str) -> list[str]:
    """Ids of the explorer fallback figures a page's source shows."""
    ids = [target.rsplit("/", 1)[-1].rsplit(".", 1)[0] for _, target in FIGURE.findall(
        _page_source(docname)[0])]
    return [i for i in ids if EXPLORER_ID.search(i)]


def source_widget_calls(docname: str) -> list[str]:
    """The explorer/planner calls in a page's code cells."""
    return [m.group(0)[:-1] for src in _page_source(docname)[1] for line in src.splitlines()
            if not line.lstrip().startswith(("def ", "from ", "import ", "#"))
            for m in WIDGET_CALL.finditer(line)]


def explorer_figure_ids(pages) -> list[str]:
    return sorted({i for p in pages for i in source_explorer_figures(p)})

# Console messages that are not the book's doing, each with the reason.
KNOWN_CONSOLE_NOISE = [
    # pydata-sphinx-theme 0.17 on a first visit (empty localStorage) when the
    # theme option default_mode is unset; harmless, it falls back to "auto".
    re.compile(r"^Got invalid theme mode: \. Resetting to auto\.$"),
]
# Uncaught page errors that are not the book's doing, each with the reason.
KNOWN_PAGE_ERRORS = [
    # Sphinx 7.4 + jupyter-book 1.0.4: the inline config scripts that extensions add
    # after the builder is initialised (sphinx-thebe's `const THEBE_JS_URL = ...`,
    # sphinx-togglebutton's selector) are written twice into every page's <head>;
    # the second `const` declaration throws.  Harmless: the first one holds the
    # same values.  Upstream; not fixable from _config.yml.
    re.compile(r"^Identifier 'THEBE_JS_URL' has already been declared$"),
]


# -- table of contents --------------------------------------------------------------
def _source_docnames(root: pathlib.Path) -> list[str]:
    names = []
    for suffix in SOURCE_SUFFIXES:
        for path in root.rglob(f"*{suffix}"):
            rel = path.relative_to(root)
            if any(part.startswith((".", "_")) or part in ("node_modules", "vendor")
                   for part in rel.parts[:-1]):
                continue
            names.append(rel.with_suffix("").as_posix())
    return sorted(set(names))


def load_toc(root: pathlib.Path = ROOT) -> dict:
    """``_toc.yml`` as a dict: the one reader of the table of contents for the tests."""
    import yaml

    return yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))


def _strip_suffix(name: str) -> str:
    for suffix in SOURCE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def toc_chapters(root: pathlib.Path = ROOT) -> list[str]:
    """The root page and every chapter-level ``file`` entry of ``_toc.yml``."""
    toc = load_toc(root)
    return [_strip_suffix(toc["root"])] + [
        _strip_suffix(ch["file"]) for part in toc.get("parts", []) or []
        for ch in part.get("chapters", []) or [] if "file" in ch]


def toc_pages(root: pathlib.Path = ROOT) -> list[str]:
    """Every docname in ``_toc.yml`` in reading order (``file`` entries and ``glob``s)."""
    toc = load_toc(root)
    docs = _source_docnames(root)
    pages: list[str] = []
    strip = _strip_suffix

    def add(name: str) -> None:
        if name not in pages:
            pages.append(name)

    def walk(entries) -> None:
        for entry in entries or []:
            if "file" in entry:
                add(strip(entry["file"]))
            if "glob" in entry:
                for name in sorted(d for d in docs if fnmatch.fnmatchcase(d, entry["glob"])):
                    add(name)
            for key in ("sections", "chapters", "parts"):
                walk(entry.get(key))

    add(strip(toc["root"]))
    walk(toc.get("parts"))
    walk(toc.get("chapters"))
    walk(toc.get("sections"))
    return pages


def html_path(docname: str, html_dir: pathlib.Path = HTML_DIR) -> pathlib.Path:
    return html_dir / f"{docname}.html"


# -- static HTML ----------------------------------------------------------------------
class _IdCollector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if value and (key == "id" or (key == "name" and tag == "a")):
                self.ids.add(value)


@functools.cache
def ids_in(path: pathlib.Path) -> frozenset[str]:
    parser = _IdCollector()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return frozenset(parser.ids)


def check_link(href: str, base: str, html_dir: pathlib.Path = HTML_DIR) -> str | None:
    """None if the local link ``href`` (absolute URL) resolves, else why not."""
    parts = urllib.parse.urlsplit(href)
    path = urllib.parse.unquote(parts.path)
    target = html_dir / path.lstrip("/")
    if path.endswith("/") or target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        shown = target.relative_to(html_dir) if target.is_relative_to(html_dir) else target
        return f"{href}: no file {shown}"
    frag = urllib.parse.unquote(parts.fragment)
    if frag and target.suffix == ".html" and frag not in ids_in(target):
        return f"{href}: no id {frag!r} in {target.relative_to(html_dir)}"
    return None


# -- local server and Chromium path: shared with tools/build_pdf.py ----------------------
from tools.build_pdf import CHROMIUM  # noqa: E402, F401  (the one Chromium path: test_browser.py skips without it)
from tools.localserve import serve  # noqa: E402

# -- the browser ------------------------------------------------------------------------
SETTLE_JS = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  for (const img of document.images) { if (img.loading === 'lazy') img.loading = 'eager'; }
  await Promise.all([...document.images].map(i => i.complete ? null :
      new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); })));
  if (document.fonts) { await document.fonts.ready; }
  return true;
}"""

INSPECT_JS = r"""(explorerIds) => {
  const out = {};
  // math
  const maths = [...document.querySelectorAll('span.math, div.math')];
  out.math_count = maths.length;
  out.math_untypeset = maths.filter(m => !m.querySelector('mjx-container'))
      .map(m => m.textContent.trim().slice(0, 80));
  out.mjx_containers = document.querySelectorAll('mjx-container').length;
  out.mjx_errors = [...document.querySelectorAll('mjx-merror')]
      .map(e => (e.getAttribute('data-mjx-error') || e.textContent).slice(0, 80));
  out.mathjax_version = (window.MathJax && MathJax.version) || null;
  out.mathjax_src = [...document.scripts].map(s => s.src).filter(s => /mathjax/i.test(s));
  // raw TeX left in the text (outside code, outside typeset math)
  const skip = 'pre, code, script, style, textarea, mjx-container, .highlight';
  const rawRe = /\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{|\\frac\{/;
  const raw = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const p = node.parentElement;
    if (!p || p.closest(skip)) continue;
    if (rawRe.test(node.nodeValue)) raw.push(node.nodeValue.trim().slice(0, 100));
  }
  out.raw_tex = raw;
  // images
  out.images = [...document.images].map(i => ({
      src: i.getAttribute('src'), natural_width: i.naturalWidth, complete: i.complete}));
  // explorer fallback figures
  const explorers = [];
  const seen = new Set();
  for (const img of document.images) {
    const fig = img.closest('figure, div.figure');
    const cap = fig ? ((fig.querySelector('figcaption, .caption') || {}).textContent || '') : '';
    const idHit = explorerIds.find(id => img.closest('[id="' + id + '"]'));
    if (!(idHit || /explorer/i.test(img.alt || '') || /explorer/i.test(cap))) continue;
    const r = img.getBoundingClientRect();
    const visible = (img.checkVisibility ? img.checkVisibility({checkOpacity: true,
        checkVisibilityCSS: true}) : true) && r.width > 0 && r.height > 0;
    if (idHit) seen.add(idHit);
    explorers.push({id: idHit || (fig && fig.id) || '', alt: img.alt || '',
        caption: cap.trim().slice(0, 100), natural_width: img.naturalWidth,
        width: r.width, height: r.height, visible});
  }
  out.explorers = explorers;
  out.explorer_ids_without_image = explorerIds.filter(id =>
      document.getElementById(id) && !seen.has(id));
  // links
  out.links = [...document.querySelectorAll('a[href]')].map(a => a.href);
  out.solution_count = document.querySelectorAll('.solution').length;
  // widget views: web readers must not meet dead controls (widget cells are removed)
  out.widget_views = document.querySelectorAll(
      'script[type="application/vnd.jupyter.widget-view+json"], .jupyter-widgets, .widget-area').length;
  return out;
}"""

SOLUTION_VISIBLE_JS = """(sol) => {
  const body = [...sol.children].filter(c => !c.classList.contains('admonition-title'));
  return body.some(c => (c.checkVisibility ? c.checkVisibility({checkVisibilityCSS: true}) : true)
                        && c.getBoundingClientRect().height > 0);
}"""


@dataclasses.dataclass
class Visit:
    docname: str
    url: str
    status: int | None
    console_errors: list[str]
    page_errors: list[str]
    failed_requests: list[str]
    info: dict
    solutions: list[dict]
    screenshot: pathlib.Path | None


class Reader:
    """The built site served on 127.0.0.1, read in ``browser`` (a Playwright Chromium, shared
    with the worker's other browser tests); :meth:`visit` opens a page in a fresh context,
    once per page: every test of that page reads the same visit."""

    def __init__(self, browser, html_dir: pathlib.Path = HTML_DIR,
                 screenshots: pathlib.Path = SCREENSHOTS, explorer_ids: tuple[str, ...] = ()):
        self.browser = browser
        self.explorer_ids = list(explorer_ids)
        self.html_dir = html_dir
        self.screenshots = screenshots
        self._stack = contextlib.ExitStack()
        self._cache: dict[str, Visit] = {}

    def __enter__(self):
        self.base = self._stack.enter_context(serve(self.html_dir))
        self.screenshots.mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(self, *exc):
        self._stack.close()

    def _local(self, url: str) -> bool:
        return url.startswith(self.base + "/") or url == self.base or url.startswith(("data:", "blob:"))

    def visit(self, docname: str) -> Visit:
        from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

        if docname in self._cache:
            return self._cache[docname]
        console_errors: list[str] = []
        page_errors: list[str] = []
        failed: list[str] = []
        blocked: set[str] = set()

        context = self.browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            def route(r):
                if self._local(r.request.url):
                    r.continue_()
                else:  # the offline site must not reach the network
                    blocked.add(r.request.url)
                    failed.append(f"off-site request (blocked): {r.request.url}")
                    r.abort()

            context.route("**/*", route)
            page = context.new_page()

            def on_console(msg):
                if msg.type != "error":
                    return
                text = msg.text
                where = (msg.location or {}).get("url", "")
                if any(p.search(text) for p in KNOWN_CONSOLE_NOISE):
                    return
                # Chromium probes /favicon.ico by itself; the book has no favicon.
                if where.endswith("/favicon.ico") or "favicon.ico" in text:
                    return
                console_errors.append(f"{text} ({where})" if where else text)

            page.on("console", on_console)
            page.on("pageerror", lambda exc: any(p.search(str(exc)) for p in KNOWN_PAGE_ERRORS)
                    or page_errors.append(str(exc)))
            page.on("requestfailed", lambda req: req.url in blocked or failed.append(
                f"request failed: {req.url} ({req.failure})"))
            page.on("response", lambda resp: resp.status >= 400 and failed.append(
                f"HTTP {resp.status}: {resp.url}"))

            url = f"{self.base}/{docname}.html"
            response = page.goto(url, wait_until="networkidle", timeout=180_000)
            page.evaluate(SETTLE_JS)
            info = page.evaluate(INSPECT_JS, self.explorer_ids)
            shot = self.screenshots / (docname.replace("/", "__") + ".png")
            page.screenshot(path=str(shot), full_page=True)

            solutions = []
            sols = page.locator(".solution")
            for i in range(sols.count()):
                sol = sols.nth(i)
                rec = {"id": sol.get_attribute("id"),
                       "classes": sol.get_attribute("class"),
                       "visible_before": sol.evaluate(SOLUTION_VISIBLE_JS)}
                button = sol.locator(".toggle-button")
                target = button.first if button.count() else sol.locator(".admonition-title").first
                target.click()
                # wait for the solution to open (a condition, not a fixed sleep: a busy
                # machine may take longer than any guess); the limit only guards a hang
                try:
                    page.wait_for_function(SOLUTION_VISIBLE_JS, arg=sol.element_handle(),
                                           timeout=60_000, polling=100)
                except PlaywrightTimeoutError:
                    pass                    # reported below as not visible after the click
                rec["visible_after"] = sol.evaluate(SOLUTION_VISIBLE_JS)
                solutions.append(rec)
            visit = Visit(docname, url, response.status if response else None, console_errors,
                          page_errors, failed, info, solutions, shot)
        finally:
            context.close()
        self._cache[docname] = visit
        return visit
