"""The explorer pages in a real JupyterLab: the checks of every page
(``tests/lab_pages.py``), what a reader sees of each explorer at a 1280 × 800 window
(issue 18 §5), and **explorers move**: moving a control changes the readout and the image.

Every test here uses the page the worker's session ``lab`` fixture opened, ran (*Run
All*) and keeps open with its kernel (``lab_pages.KEEP_OPEN``): one JupyterLab server
and one opening per page for all of them (``--dist loadfile`` keeps this file on one
worker, and a kept page is only seen by its own worker's session).  The tests run in
the order of this file: the page checks, then the layout (the explorer as the page
leaves it), then the warnings, then the moves.  For every explorer, what a reader at
1280 px sees:

* **title not clipped**: the explorer's title (an HTML line above the figure,
  ``.ic-title``) shows all its text (``scrollWidth <= clientWidth`` for it and
  every element in it), and the
  figure image is drawn at its own size, inside the output area (so nothing
  drawn in it, title or tick, is cut or shrunk);
* **menus and labels not truncated**: every menu's longest option fits the menu
  (its text width, measured with the menu's own font, against the menu's
  content box), and every control's label shows all its text;
* **controls and plot on screen together**: scrolled to its top, the whole
  explorer (controls, readout, figure) fits in the notebook's visible area (the
  kept page's window is set to 1280 × 800 first, and the notebook laid out again);
* **a setting that does not fit warns**: where the explorer knows about memory
  (KV explorer, capacity planner), a setting that fits shows no ``.ic-warning``
  and one that does not fit shows it.

Screenshots of each explorer (the window, scrolled to it) go to
``artifacts/lab-e2e/explorer-<page>.png`` (``E2E_EXPLORER_SHOTS=folder`` puts them
elsewhere).  Every wait is on a condition with a generous limit (a loaded 2-core
machine), never a sleep; a click or key press is made once, never retried;
nothing asserts a duration.  Skipped only when Chromium is absent.
"""
from __future__ import annotations

import json
import os
import pathlib

import pytest
from lab_pages import EXPLORER_NOTEBOOKS, NEEDS_CHROMIUM, PageChecks, source_file
from lab_server import KERNEL_IDLE_JS, ROOT

pytestmark = [NEEDS_CHROMIUM]

#: the window of the issue: 1280 wide, a laptop's 800 high
VIEWPORT = {"width": 1280, "height": 800}
WAIT_MS = 240_000
SHOTS = pathlib.Path(os.environ.get("E2E_EXPLORER_SHOTS") or ROOT / "artifacts" / "lab-e2e")
CALLS = ("decode_step_explorer(", "roofline_explorer(", "moe_padding_explorer(",
         "capacity_planner(", "kv_explorer(", "forecast_explorer(")


def _explorer_cells(path: pathlib.Path) -> list[int]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [i for i, c in enumerate(cells) if c["cell_type"] == "code"
            and any(call in "".join(c["source"]) for call in CALLS)
            and "import" in "".join(c["source"])]


#: the pages kept open for their explorers (``lab_pages.EXPLORER_NOTEBOOKS``)
PAGES = EXPLORER_NOTEBOOKS
#: those whose explorer the layout tests measure (every one of them, by the CALLS above)
LAYOUT_PAGES = [p for p in PAGES if _explorer_cells(source_file(p))]


class TestExplorerPages(PageChecks):
    PAGES = PAGES


#: explorers whose settings can exceed a card's memory: (page part, how to reach a
#: setting that fits, how to reach one that does not), each a list of actions
MEMORY = {
    "04_batch_turning_point": {"fits": [("select", "bytes per parameter", "0.5 (4-bit)")],
                               "does not fit": [("select", "bytes per parameter", "2 (16-bit)")]},
    "01_kv_cache": {"fits": [("select", "model", "Llama-3.1-8B"), ("key", 0, "Home")],
                    "does not fit": [("key", 0, "End")]},
    "05_memory_capacity": {"fits": [("key", 1, "Home")],
                           "does not fit": [("key", 1, "End")]},
}

READY_JS = """(n) => {
  const e = document.querySelectorAll('.jp-Notebook .ic-explorer');
  return e.length === n && Array.from(e).every(x => {
    const img = x.querySelector('img.ic-figure, .ic-figure img');
    return img && img.src && img.complete && img.naturalWidth > 0; });
}"""

# the scrolling box of the notebook: the first ancestor that scrolls
SCROLLER_JS = """(el) => { let p = el.parentElement;
  while (p) { const s = getComputedStyle(p);
    if (/(auto|scroll)/.test(s.overflowY) && p.scrollHeight > p.clientHeight) return p;
    p = p.parentElement; }
  return document.scrollingElement; }"""

MEASURE_JS = """(el) => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width,
            height: r.height}; };
  const scroller = (""" + SCROLLER_JS + """)(el);
  const out = {explorer: box(el), view: box(scroller),
               area: box(el.closest('.jp-OutputArea-output') || el)};
  const title = el.querySelector('.ic-title');
  // the element and everything in it: any box whose content is wider than the box is cut
  const overflow = (e) => Math.max(...[e, ...e.querySelectorAll('*')].map(
      x => x.clientWidth > 0 ? x.scrollWidth - x.clientWidth : 0));
  out.title = title ? {text: title.textContent, overflow: overflow(title),
                       box: box(title)} : null;
  const img = el.querySelector('img.ic-figure, .ic-figure img');
  out.image = {box: box(img), natural_width: img.naturalWidth, natural_height: img.naturalHeight};
  const ctx = document.createElement('canvas').getContext('2d');
  out.menus = Array.from(el.querySelectorAll('select')).map(s => {
    const cs = getComputedStyle(s);
    ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const opts = Array.from(s.options).map(o => [o.text, ctx.measureText(o.text).width]);
    const label = s.closest('.widget-dropdown').querySelector('.widget-label');
    return {label: label ? label.textContent : '', room, options: opts};
  });
  out.labels = Array.from(el.querySelectorAll('.widget-label, .widget-readout'))
    .filter(l => l.getBoundingClientRect().width > 0)
    .map(l => ({text: l.textContent, overflow: overflow(l)}));
  out.warnings = Array.from(el.querySelectorAll('.ic-warning'))
    .filter(w => w.getBoundingClientRect().height > 0).map(w => w.textContent);
  out.readout = (el.querySelector('.ic-readout') || {}).textContent || '';
  return out;
}"""


#: per page: the explorer's height, the notebook's visible height, the title's width
MEASURED: dict[str, dict] = {}


#: the kept pages already set to the 1280 × 800 window
RESIZED: set[str] = set()

#: the explorer's notebook laid out for the window: its scrolling box ends inside it
LAID_OUT_JS = """([el, h]) => { const s = (""" + SCROLLER_JS + """)(el);
  return window.innerHeight === h && s.getBoundingClientRect().bottom <= h + 0.5; }"""


def explorer_page(lab, relpath):
    """The session's kept page of ``relpath`` (opened and run once), at 1280 × 800, its
    explorer drawn."""
    page = lab.page(relpath).page
    if relpath not in RESIZED:
        RESIZED.add(relpath)
        page.set_viewport_size(VIEWPORT)
    page.wait_for_function(READY_JS, arg=len(_explorer_cells(source_file(relpath))),
                           timeout=WAIT_MS, polling=100)
    page.wait_for_function(LAID_OUT_JS, arg=[_explorer(page).element_handle(), VIEWPORT["height"]],
                           timeout=WAIT_MS, polling=100)
    return page


@pytest.fixture(scope="module", autouse=True)
def _record_layout():
    yield
    if MEASURED:        # what each explorer measured, for the record (not asserted here)
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "explorer_layout.json").write_text(json.dumps(MEASURED, indent=1))
        print("\n" + "\n".join(f"{k}: {v}" for k, v in MEASURED.items()))


def _explorer(page, i=0):
    return page.locator(".jp-Notebook .ic-explorer").nth(i)


def _scroll_to(explorer) -> None:
    """Bring the explorer's top to the top of the notebook's visible area."""
    explorer.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    explorer.page.wait_for_function(
        "(el) => { const s = (" + SCROLLER_JS + ")(el);"
        " return Math.abs(el.getBoundingClientRect().top - s.getBoundingClientRect().top) < 2"
        " || s.scrollTop + s.clientHeight >= s.scrollHeight - 1; }",
        arg=explorer.element_handle(), timeout=WAIT_MS, polling=100)


def _shot(page, relpath, suffix="") -> pathlib.Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"explorer-{pathlib.Path(relpath).stem}{suffix}.png"
    page.screenshot(path=str(path))
    return path


@pytest.mark.parametrize("relpath", LAYOUT_PAGES)
def test_title_and_figure_not_clipped(lab, relpath):
    page = explorer_page(lab, relpath)
    ex = _explorer(page)
    _scroll_to(ex)
    _shot(page, relpath)
    m = ex.evaluate(MEASURE_JS)
    assert m["title"] is not None, f"{relpath}: the explorer has no .ic-title line"
    t = m["title"]
    assert t["text"].strip() and t["overflow"] <= 0, \
        f"{relpath}: title clipped ({t['overflow']} px of text cut off): {t['text']!r}"
    assert t["box"]["right"] <= m["area"]["right"] + 0.5, (relpath, t, m["area"])
    img = m["image"]
    # drawn at its own CSS size (the PNG is PIXEL_RATIO = 2 times that): not shrunk, not cut
    assert abs(img["box"]["width"] - img["natural_width"] / 2) <= 1, (relpath, img)
    assert img["box"]["right"] <= m["area"]["right"] + 0.5, (relpath, img, m["area"])


@pytest.mark.parametrize("relpath", LAYOUT_PAGES)
def test_menus_and_labels_not_truncated(lab, relpath):
    m = _explorer(explorer_page(lab, relpath)).evaluate(MEASURE_JS)
    cut = [f"menu {s['label']!r}: {text!r} is {w:.0f} px in {s['room']:.0f} px"
           for s in m["menus"] for text, w in s["options"] if w > s["room"]]
    cut += [f"label {lab_['text']!r}: {lab_['overflow']} px of text cut off"
            for lab_ in m["labels"] if lab_["overflow"] > 0]
    assert not cut, f"{relpath}:\n  " + "\n  ".join(cut)


@pytest.mark.parametrize("relpath", LAYOUT_PAGES)
def test_controls_and_plot_visible_together(lab, relpath):
    page = explorer_page(lab, relpath)
    ex = _explorer(page)
    _scroll_to(ex)
    m = ex.evaluate(MEASURE_JS)
    e, v = m["explorer"], m["view"]
    MEASURED[relpath] = {"explorer_px": round(e["height"]), "visible_px": round(v["height"]),
                         "title": m["title"]["text"] if m["title"] else None,
                         "title_overflow_px": m["title"]["overflow"] if m["title"] else None,
                         "menus": {s["label"]: [round(max((w for _, w in s["options"]), default=0)),
                                                round(s["room"])] for s in m["menus"]}}
    assert e["top"] >= v["top"] - 1 and e["bottom"] <= v["bottom"] + 1, (
        f"{relpath}: the explorer is {e['height']:.0f} px tall, the notebook shows "
        f"{v['height']:.0f} px (explorer {e['top']:.0f}–{e['bottom']:.0f}, "
        f"view {v['top']:.0f}–{v['bottom']:.0f})")


def _act(page, ex, action) -> None:
    kind, which, value = action
    if kind == "select":
        menu = ex.locator(".widget-dropdown", has_text=which).locator("select")
        menu.select_option(label=value)
    else:
        handle = ex.locator(".noUi-handle").nth(which)
        handle.focus()
        handle.press(value)


IMAGE_SRC_JS = "(el) => el.querySelector('img.ic-figure, .ic-figure img').src"


def _settle(page, ex, before: str, src: str) -> dict:
    """Wait until the readout differs from ``before`` and the image from ``src`` (the
    kernel has answered with both: they travel as separate messages)."""
    page.wait_for_function(
        "([el, r, s]) => el.querySelector('.ic-readout').textContent !== r && "
        "el.querySelector('img.ic-figure, .ic-figure img').src !== s",
        arg=[ex.element_handle(), before, src], timeout=WAIT_MS, polling=100)
    return ex.evaluate(MEASURE_JS)


@pytest.mark.parametrize("relpath", [p for p in LAYOUT_PAGES if pathlib.Path(p).stem in MEMORY])
def test_a_setting_that_does_not_fit_warns(lab, relpath):
    page = explorer_page(lab, relpath)
    ex = _explorer(page)
    _scroll_to(ex)
    plan = MEMORY[pathlib.Path(relpath).stem]
    seen = {}
    for verdict in ("fits", "does not fit"):
        for action in plan[verdict]:
            before = ex.evaluate(MEASURE_JS)["readout"]
            src = ex.evaluate(IMAGE_SRC_JS)
            _act(page, ex, action)
            m = _settle(page, ex, before, src)
        seen[verdict] = m
        _shot(page, relpath, "-fits" if verdict == "fits" else "-does-not-fit")
    assert not seen["fits"]["warnings"], (relpath, seen["fits"]["warnings"])
    assert seen["does not fit"]["warnings"], \
        f"{relpath}: no .ic-warning for a setting that does not fit: {seen['does not fit']['readout']!r}"
    assert "not fit" in seen["does not fit"]["warnings"][0], seen["does not fit"]["warnings"]


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
        # the slider's far end, away from where it is: a change every explorer shows (the
        # warning test before this one may have left a slider at its End)
        at_end = handle.evaluate("h => parseFloat(h.getAttribute('aria-valuenow')) >= "
                                 "parseFloat(h.getAttribute('aria-valuemax'))")
        handle.press("Home" if at_end else "End")
        page.wait_for_function(
            """([i, r, s]) => { const e = document.querySelectorAll('.ic-explorer')[i];
               const img = e.querySelector('img');
               return e.querySelector('.ic-readout').innerHTML !== r && img.src !== s; }""",
            arg=[i, before["readout"], before["src"]], timeout=EXPLORER_WAIT_MS, polling=100)
