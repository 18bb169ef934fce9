"""The explorer pages in a real JupyterLab (``tests/lab_pages.py``): the checks of every
page, and **explorers move**: moving a control changes the readout and the image.

Never a sleep: every wait is on a condition with a generous limit.
"""
from __future__ import annotations

import pytest
from lab_pages import EXPLORER_NOTEBOOKS, NEEDS_CHROMIUM, PageChecks
from lab_server import KERNEL_IDLE_JS

pytestmark = [NEEDS_CHROMIUM]

PAGES = EXPLORER_NOTEBOOKS


class TestExplorerPages(PageChecks):
    PAGES = PAGES


# readout HTML and image src of every explorer on the page
EXPLORER_STATE_JS = """() => Array.from(document.querySelectorAll('.ic-explorer')).map(e => ({
  readout: (e.querySelector('.ic-readout') || {}).innerHTML || '',
  src: (e.querySelector('img.ic-figure, .ic-figure img, img') || {}).src || '',
  complete: !!(e.querySelector('img') || {}).complete}))"""


#: what the page's notebook and kernel report, for a failure message
KERNEL_STATE_JS = """() => { const w = window.jupyterapp.shell.currentWidget;
  const s = w && w.sessionContext, k = s && s.session && s.session.kernel;
  return {path: w && w.context ? w.context.path : null, session: s ? s.session && s.session.id : null,
          kernel: k ? {id: k.id, status: k.status, connection: k.connectionStatus} : null}; }"""

#: a guard against a hang only: with both cores busy an update can take minutes
EXPLORER_WAIT_MS = 300_000


@pytest.mark.parametrize("relpath", PAGES)
def test_explorer_moves(lab, relpath):
    page = lab.page(relpath).page
    # settled: the kernel idle (no update still on its way) and every explorer's image
    # loaded with a readout beside it, so "before" is the state the key press changes
    try:
        page.wait_for_function(KERNEL_IDLE_JS, timeout=EXPLORER_WAIT_MS, polling=250)
    except Exception as exc:
        raise AssertionError(f"{relpath}: the kernel never became idle: "
                             f"{page.evaluate(KERNEL_STATE_JS)}") from exc
    page.wait_for_function("() => document.querySelectorAll('.ic-explorer img').length > 0 && "
                           "Array.from(document.querySelectorAll('.ic-explorer')).every(e => {"
                           " const i = e.querySelector('img'), r = e.querySelector('.ic-readout');"
                           " return i && i.src && i.complete && r && r.innerHTML; })",
                           timeout=EXPLORER_WAIT_MS, polling=250)
    n = page.evaluate("() => document.querySelectorAll('.ic-explorer').length")
    assert n >= 1
    for i in range(n):
        before = page.evaluate(EXPLORER_STATE_JS)[i]
        handle = page.locator(".ic-explorer").nth(i).locator(".noUi-handle").first
        handle.scroll_into_view_if_needed()
        handle.focus()
        page.wait_for_function("h => document.activeElement === h", arg=handle.element_handle(),
                               timeout=EXPLORER_WAIT_MS, polling=100)
        handle.press("End")       # the slider's far end: a change every explorer shows
        page.wait_for_function(
            """([i, r, s]) => { const e = document.querySelectorAll('.ic-explorer')[i];
               const img = e.querySelector('img');
               return e.querySelector('.ic-readout').innerHTML !== r && img.src !== s; }""",
            arg=[i, before["readout"], before["src"]], timeout=EXPLORER_WAIT_MS, polling=100)


