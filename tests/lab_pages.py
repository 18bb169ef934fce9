"""A real JupyterLab on a copy of the book, each page opened, run and saved once, and
the checks every page gets (tests/e2e/test_lab_*.py).

* :class:`Session`: one JupyterLab server (``tests/lab_server.py``: free port, token
  auth, ``make lab``'s server settings, jupyterlab-myst) on a temporary copy of
  ``book/`` (``LAB_E2E_BOOK=folder`` serves another) and one headless Chromium
  (Playwright, 1280 × 900), a session fixture per pytest-xdist worker
  (``tests/conftest.py``).  :meth:`Session.page` opens, checks, runs (*Run All*) and
  saves a page once and keeps the result for every test that asks
  (``LAB_E2E_NOTEBOOKS=glob`` narrows the pages).  Pages kept open for their widgets
  (``KEEP_OPEN``) get a browser page each; the others share one, where JupyterLab's
  front end starts once and each page is opened (``docmanager:open``), checked and
  closed before the next.
* :class:`PageChecks`: the checks of that one run: **pages read** before and after
  *Run All* (no raw MyST markup in the prose, code spans excepted; every solution
  collapsed; every ``{eval}`` showing its stored value; no error output); **pages stay
  clean** (issue 18 §4: opening does not mark a page modified, and *Run All* + *Save*
  writes back the file as it was, :func:`allowed_change`); **links open** (every link
  between pages names a file of the book, with its suffix, and a click on the first one
  of a few pages opens it, in the same run).  A
  test file subclasses it with its pages (``PAGES``), split over files so that
  ``--dist loadfile`` spreads them over the workers; a page whose widgets are tested
  further is checked in the file that tests them (one run).
* :func:`box_of` and :func:`screenshot` measure and record what a reader sees.

Every wait is on a condition with a generous limit, never a sleep; nothing asserts a duration.
"""
from __future__ import annotations

import fnmatch
import json
import os
import pathlib
import re
import urllib.request

import pytest
from lab_server import (
    BACK_TO_JS,
    CELL_TIMEOUT_MS,
    CHROMIUM,
    CLOSE_JS,
    NO_NOTEBOOK_JS,
    OPEN_IN_TAB_JS,
    OPENED_JS,
    OPENED_WITH_SESSION_JS,
    POLL_MS,
    ROOT,
    SHUTDOWN_JS,
    is_dirty_after_opening,
    open_notebook,
    run_all,
    save,
)

from bookkit import eval_expressions, plain_result, stored_expressions

#: the mark of every test file that drives the lab
NEEDS_CHROMIUM = pytest.mark.skipif(
    not pathlib.Path(CHROMIUM).exists(),
    reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium, or set CHROMIUM=/path/to/chromium)")

BOOK = pathlib.Path(os.environ.get("LAB_E2E_BOOK") or ROOT / "book").resolve()
NOTEBOOKS = sorted("book/" + p.relative_to(BOOK).as_posix() for p in BOOK.rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts
                   and not p.name.startswith("_"))
if os.environ.get("LAB_E2E_NOTEBOOKS"):
    NOTEBOOKS = [n for n in NOTEBOOKS if fnmatch.fnmatch(n, os.environ["LAB_E2E_NOTEBOOKS"])]

VIEWPORT = {"width": 1280, "height": 900}
WAIT_MS = 120_000
ARTIFACTS = ROOT / "artifacts" / "lab-e2e"
RAW_MARKUP = ("{glue", ":class:", ":label:", "```{", "{eval}", "{numref}", ":name:", "{doc}")
UNKNOWN = ("Unknown Directive", "Unknown Role")


def source_file(relpath: str) -> pathlib.Path:
    """The file as it was before the session (``relpath`` is ``book/...``)."""
    return BOOK / pathlib.Path(relpath).relative_to("book")


def page_cells(relpath):
    return json.loads(source_file(relpath).read_text(encoding="utf-8"))["cells"]


def page_code(relpath) -> str:
    return "\n".join("".join(c["source"]) for c in page_cells(relpath) if c["cell_type"] == "code")


def _eval_values(relpath) -> list[list[tuple[str, str | None]]]:
    """Per markdown cell: ``(expression, stored text)`` of each ``{eval}`` role."""
    out = []
    for c in page_cells(relpath):
        if c["cell_type"] != "markdown":
            continue
        stored = stored_expressions(c)
        out.append([(e, plain_result(stored[e]) if e in stored else None)
                    for e in eval_expressions("".join(c["source"]))])
    return out


#: pages with explorers or answer checkers: browser page and kernel stay up (widgets tested later)
EXPLORER_NOTEBOOKS = [n for n in NOTEBOOKS if any(
    f in page_code(n) for f in ("explorer(", "capacity_planner("))]
CHECKER_NOTEBOOKS = [n for n in NOTEBOOKS if "answer_checker(" in page_code(n)]
KEEP_OPEN = set(EXPLORER_NOTEBOOKS) | set(CHECKER_NOTEBOOKS)
#: the other pages: the page checks only (``EARLY`` chapters in one test file, the rest in another)
PLAIN_NOTEBOOKS = [n for n in NOTEBOOKS if n not in KEEP_OPEN]
EARLY = ("0_", "1_", "2_")


# ====================================================================== the session
# What the rendered markdown cells show (the DOM jupyterlab-myst builds).
MARKDOWN_JS = """() => {
  const cells = Array.from(document.querySelectorAll('.jp-Notebook .jp-MarkdownCell'));
  const out = {raw: [], open_details: [], unexecuted: [], n_details: 0};
  cells.forEach((c, i) => {
    // the rendered part only (the hidden editor next to it holds the source)
    const r = c.querySelector('.jp-InputArea > .myst, .jp-InputArea > .jp-RenderedMarkdown');
    if (!r) { out.raw.push([i, '[not rendered]', '']); return; }
    const text = r.textContent || '';
    // markup shown on purpose, as code (the front page explains {eval}), is not raw markup
    const prose = r.cloneNode(true);
    prose.querySelectorAll('code, pre').forEach(e => e.remove());
    out.raw.push([i, text, prose.textContent || '']);
    r.querySelectorAll('details').forEach(d => { out.n_details++; if (d.open) out.open_details.push(
        [i, (d.querySelector('summary') || d).textContent.slice(0, 80)]); });
    if (text.includes('Unexecuted inline expression')) out.unexecuted.push(i);
  });
  return out;
}"""

RENDERED_JS = """() => {
  const c = document.querySelectorAll('.jp-Notebook .jp-MarkdownCell');
  return c.length === 0 || Array.from(c).every(x => x.querySelector(
      '.jp-InputArea > .myst, .jp-InputArea > .jp-RenderedMarkdown'));
}"""

ERRORS_JS = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const errs = [];
  w.content.widgets.forEach((c, i) => {
    if (c.model.type !== 'code') return;
    c.model.outputs.toJSON().forEach(o => {
      if (o.output_type === 'error') errs.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
    });
  });
  return errs;
}"""

# every verdict a checker's front end receives, in order (its "ic-verdict" DOM event)
VERDICT_LOG_JS = """() => {
  if (!window.__icVerdicts) {
    window.__icVerdicts = [];
    document.addEventListener('ic-verdict', e => window.__icVerdicts.push(
        Object.assign({exercise: e.target.dataset.exercise}, e.detail)));
  }
  return true;
}"""


class PageRun:
    """One page as the session saw it: opened, run once, saved once.  ``page`` stays open
    (kernel running) only for the pages whose widgets later tests use; else None."""

    def __init__(self, page, dirty_on_open, before, after, errors, saved, links, click=None):
        self.page, self.dirty_on_open = page, dirty_on_open
        self.before, self.after, self.errors, self.saved = before, after, errors, saved
        self.links, self.click = links, click      # click: Session._click_first_link


class Session:
    """One JupyterLab on a copy of the book, one browser; each page opened once."""

    def __init__(self, server, b, root: pathlib.Path):
        self.base, self.token = server
        self.browser = b
        self.root = root
        self.runs: dict[str, PageRun | Exception] = {}
        #: the browser page the plain pages open in, one after the other (None: none yet)
        self.tab = None

    def new_page(self, relpath):
        ctx = self.browser.new_context(viewport=VIEWPORT)
        return open_notebook(ctx, self.base, self.token, relpath)

    def _open_in_tab(self, relpath):
        """``relpath`` opened in the shared page (the first one opens it, by its URL),
        its kernel idle; the page shows no other notebook."""
        if self.tab is None:
            self.tab = self.new_page(relpath)
            return self.tab
        self.tab.wait_for_function(NO_NOTEBOOK_JS, timeout=WAIT_MS, polling=POLL_MS)
        self.tab.evaluate(OPEN_IN_TAB_JS, relpath)
        self.tab.wait_for_function(OPENED_JS, arg=relpath, timeout=CELL_TIMEOUT_MS,
                                   polling=POLL_MS)
        return self.tab

    def _drop_tab(self) -> None:
        """After a failure in the shared page: close it; the next plain page gets a new one."""
        if self.tab is not None:
            tab, self.tab = self.tab, None
            try:
                tab.context.close()
            except Exception:       # already gone with what failed: nothing left to close
                pass

    def _api(self, path, method="GET"):
        req = urllib.request.Request(f"{self.base}/api/{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=60) as r:
            body = r.read()
        return json.loads(body) if body else None

    def session_ids(self) -> set[str]:
        """The server's sessions (one per open notebook path, shared by every browser
        page that opens that path)."""
        return {s["id"] for s in self._api("sessions")}

    def shut_down_sessions_except(self, keep: set[str]) -> None:
        """Shut down the sessions (and kernels) started since ``keep`` was taken.  A page
        that opens a notebook already open elsewhere joins that notebook's session and
        kernel: shutting it down from the second page would kill the kernel of a page a
        later test still uses (a kept explorer page then never reports an idle kernel)."""
        for sid in self.session_ids() - keep:
            self._api(f"sessions/{sid}", method="DELETE")

    def page(self, relpath) -> PageRun:
        """The page's run; a page that failed to open or run fails every test that asks
        for it with the first error (it is never opened a second time)."""
        if relpath not in self.runs:
            try:
                self.runs[relpath] = self._run(relpath)
            except Exception as exc:
                self.runs[relpath] = exc
        run = self.runs[relpath]
        if isinstance(run, Exception):
            raise AssertionError(f"{relpath}: the page did not open and run: "
                                 f"{type(run).__name__}: {str(run)[:2000]}") from run
        return run

    def _run(self, relpath) -> PageRun:
        if relpath in KEEP_OPEN:
            return self._check(self.new_page(relpath), relpath)
        try:
            return self._check(self._open_in_tab(relpath), relpath)
        except Exception:
            self._drop_tab()
            raise

    def _check(self, page, relpath) -> PageRun:
        # jupyterlab-myst renders markdown cells asynchronously: wait for the last one
        page.wait_for_function(RENDERED_JS, timeout=WAIT_MS, polling=POLL_MS)
        dirty = is_dirty_after_opening(page)
        before = page.evaluate(MARKDOWN_JS)
        page.evaluate(VERDICT_LOG_JS)
        run_all(page)
        after = page.evaluate(MARKDOWN_JS)
        errors = page.evaluate(ERRORS_JS)
        save(page)
        saved = (self.root / relpath).read_bytes()
        links = page.evaluate(LINKS_JS)
        click = self._click_first_link(page, relpath, links) if relpath in CLICKED else None
        if relpath not in KEEP_OPEN:
            page.evaluate(SHUTDOWN_JS)      # one kernel and one notebook less
            page.evaluate(CLOSE_JS)
            page = None
        return PageRun(page, dirty, before, after, errors, saved, links, click)

    def _click_first_link(self, page, relpath, links):
        """Click the page's first link to a page, in its run: ``(text, path, the path opened
        or why none, the other pages' kernels lost)``; then the opened tab is closed and
        the kernel the click started shut down (None: the page links to no page)."""
        found, _ = _page_links(self.base, relpath, links)
        if not found:
            return None
        text, path = found[0]
        running = self.session_ids()
        link = page.locator(".jp-MarkdownCell .jp-InputArea a", has_text=text).first
        link.scroll_into_view_if_needed()
        link.click()
        try:
            page.wait_for_function(OPENED_WITH_SESSION_JS, arg=path, timeout=WAIT_MS, polling=POLL_MS)
            opened = path
        except Exception as exc:        # reported by the links test; the run goes on
            opened = f"no page opened: {type(exc).__name__}: {str(exc)[:300]}"
        page.evaluate(BACK_TO_JS, relpath)
        self.shut_down_sessions_except(running)     # a target open elsewhere keeps its kernel
        return text, path, opened, running - self.session_ids()


# ====================================================================== pages read
def _source_problems(relpath) -> list[str]:
    """jupyterlab-myst renders an unknown role such as {glue:text} as its bare key
    ("lab-ex-bw:.1f"), not as raw markup, so a glue role is caught in the source."""
    return [f"markdown cell {i}: {{{role}}} (jupyterlab-myst cannot render glue)"
            for i, c in enumerate(c for c in page_cells(relpath) if c["cell_type"] == "markdown")
            for role in re.findall(r"\{(glue(?::\w+)?)\}", "".join(c["source"]))]


def _markup_problems(relpath, md) -> list[str]:
    problems = []
    for i, text, prose in md["raw"]:
        if text == "[not rendered]":
            problems.append(f"markdown cell {i}: not rendered")
        for msg in UNKNOWN:   # jupyterlab-myst's red box for a directive it does not know
            if msg in text:
                problems.append(f"markdown cell {i}: {msg}: "
                                f"…{text[max(0, text.index(msg) - 40):][:100]}…")
        for mark in RAW_MARKUP:
            if mark in prose:
                problems.append(f"markdown cell {i}: raw {mark!r}: "
                                f"…{prose[max(0, prose.index(mark) - 60):][:140]}…")
    problems += [f"cell {i}: solution or dropdown open: {s!r}" for i, s in md["open_details"]]
    problems += [f"markdown cell {i}: an {{eval}} shows 'Unexecuted inline expression'"
                 for i in md["unexecuted"]]
    for (i, text, _), evals in zip(md["raw"], _eval_values(relpath), strict=True):
        for expr, value in evals:
            if value is None:
                problems.append(f"markdown cell {i}: {{eval}}`{expr}` has no stored value")
            elif not value.strip():      # a number, or a computed word such as "yes"
                problems.append(f"markdown cell {i}: {{eval}}`{expr}` is empty")
            elif value not in text:
                problems.append(f"markdown cell {i}: {{eval}}`{expr}` = {value!r} not shown")
    return problems


# ====================================================================== pages stay clean
#: what *Run All* + *Save* may change in a page's file: the outputs of the cells tagged
#: ``nbval-skip`` (live measurements of this machine: the lab page's numbers change on
#: every run), and nothing else
LIVE_TAG = "nbval-skip"


def allowed_change(relpath: str, path: str) -> bool:
    m = re.fullmatch(r"/cells/(\d+)/outputs(/.*)?", path)
    if not m:
        return False
    cell = page_cells(relpath)[int(m.group(1))]
    return LIVE_TAG in cell.get("metadata", {}).get("tags", [])


def json_diff(a, b, path="") -> list[str]:
    """Paths where two JSON values differ: ``~ /cells/4/metadata/user_expressions``."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a:
                out.append(f"+ {path}/{k}")
            elif k not in b:
                out.append(f"- {path}/{k}")
            else:
                out += json_diff(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in json_diff(x, y, f"{path}/{i}")]
    return [] if a == b else [f"~ {path}"]


# ====================================================================== links open
LINKS_JS = """() => Array.from(document.querySelectorAll('.jp-MarkdownCell .jp-InputArea a'))
  .map(a => ({text: a.textContent, href: a.href}))"""
#: pages whose first link is also clicked (a click opens a page and starts a kernel: a few suffice)
CLICKED = ("book/0_start/how_to_use.ipynb", "book/2_full_speed/01_intensity_and_ridge.ipynb",
           "book/appendix/accelerators.ipynb")


def _page_links(base: str, relpath: str, links) -> tuple[list[tuple[str, str]], list[str]]:
    """Links of a page to files of the server: (text, path) of each; and the bad ones."""
    files_prefix = f"{base}/files/"
    found, bad = [], []
    for link in links:
        href = link["href"].split("?")[0].split("#")[0]
        if not href.startswith(files_prefix):
            continue
        path = href[len(files_prefix):]
        found.append((link["text"], path))
        if pathlib.Path(path).suffix not in (".ipynb", ".md"):
            bad.append(f"{link['text']!r} -> /files/{path} (no page suffix: 404 in JupyterLab)")
    return found, bad


# ====================================================================== the page checks
class PageChecks:
    """The checks of every page, on its one run; a test file subclasses it (``class
    TestPages(PageChecks)``) and names its pages in ``PAGES`` (``tests/conftest.py``
    parametrises ``relpath`` over them)."""

    PAGES: list[str] = []

    def test_page_reads_before_and_after_run_all(self, lab, relpath):
        run = lab.page(relpath)
        assert not run.errors, f"{relpath}: error output after Run All:\n" + "\n".join(run.errors)
        problems = _source_problems(relpath)
        problems += [f"before run: {p}" for p in _markup_problems(relpath, run.before)]
        problems += [f"after run: {p}" for p in _markup_problems(relpath, run.after)]
        assert not problems, f"{relpath}:\n  " + "\n  ".join(problems)

    def test_opening_a_page_does_not_mark_it_modified(self, lab, relpath):
        """JupyterLab writes the kernel's language_info (and kernelspec) into a page when the
        kernel starts; ``make execute`` stores them as it does, so nothing changes."""
        assert lab.page(relpath).dirty_on_open is False, \
            f"{relpath}: modified on opening (run `make execute` to store the kernel's metadata)"

    def test_run_all_and_save_write_the_page_back_as_it_was(self, lab, relpath):
        """No growth, no corruption: the same user_expressions (one per {eval}, as
        jupyterlab-myst writes them), no widget views or widget state in the file."""
        run = lab.page(relpath)
        before = source_file(relpath).read_bytes()
        if run.saved == before:
            return
        diffs = [d for d in json_diff(json.loads(before), json.loads(run.saved))
                 if not allowed_change(relpath, d[2:])]
        assert not diffs, (f"{relpath}: Run All + Save changed the file ({len(before)} -> "
                           f"{len(run.saved)} bytes):\n  " + "\n  ".join(diffs[:40]))

    def test_links_between_pages_open_the_page(self, lab, relpath):
        run = lab.page(relpath)
        found, bad = _page_links(lab.base, relpath, run.links)
        bad += [f"{text!r} -> {path}: no such file" for text, path in found
                if pathlib.Path(path).suffix in (".ipynb", ".md") and not (lab.root / path).is_file()]
        assert not bad, f"{relpath}: links JupyterLab cannot open:\n  " + "\n  ".join(bad)
        if relpath not in CLICKED or not found:
            return
        text, path, opened, lost = run.click
        assert opened == path, f"{relpath}: clicking {text!r} ({path}): {opened}"
        # the kernels of the pages kept open (explorers, checkers) are untouched
        assert not lost, f"{relpath}: a click test shut down another page's kernel: {lost}"


# ====================================================================== layout at 1280 px
BOX_JS = """(el) => { const r = el.getBoundingClientRect();
  return {x: r.x, y: r.y, width: r.width, height: r.height,
          scroll_width: el.scrollWidth, client_width: el.clientWidth,
          viewport_width: window.innerWidth, viewport_height: window.innerHeight}; }"""


def box_of(locator) -> dict:
    """Where an element is on screen, its size, and whether its content overflows it."""
    return locator.evaluate(BOX_JS)


def screenshot(page, name: str, locator=None) -> pathlib.Path:
    """Save what the reader sees (the element, or the window) as artifacts/lab-e2e/<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    (locator or page).screenshot(path=str(path))
    return path
