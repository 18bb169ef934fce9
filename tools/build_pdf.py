"""Build ``_build/pdf/book.pdf`` and ``_build/pdf/book-zh.pdf``: each edition of the
book as one HTML page, printed by Chromium.

The Chinese edition (``--edition zh``; both by default) is built the same way with the
Chinese settings (``locale/zh_CN``, see ``tools/build_book.py``) into
``_build/zh-pdf/_build/singlehtml``; Chromium sets its text in the CJK font that
fontconfig offers for ``lang="zh-CN"`` (fonts-noto-cjk).

1. ``jupyter-book build . --all --builder singlehtml`` into ``_build/singlehtml`` with the
   offline configuration of ``tools/build_book.py`` (MathJax vendored from npm, so
   the math renders without network) plus this file loaded as a small Sphinx
   extension (see ``setup`` below).
2. ``_build/singlehtml`` is served from ``http.server`` on 127.0.0.1 (a free port),
   and its page copied to ``print.html`` with the print CSS (short code blocks kept
   whole, long ones continued with their frame: ``prepare_print_page``), then
   opened in headless Chromium (``/usr/bin/chromium`` or ``$CHROMIUM``) through the
   Playwright Python package; the script waits for ``MathJax.startup.promise`` and
   the web fonts, opens the exercise-solution dropdowns (a PDF reader cannot click)
   and calls ``Page.printToPDF`` (A4, page numbers in the footer, bookmarks from
   the headings, tagged).
   Without the Playwright package it falls back to
   ``chromium --headless --print-to-pdf --virtual-time-budget=20000``.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

from tools import build_book
from tools.localserve import serve

ROOT = build_book.ROOT
SINGLEHTML = ROOT / "_build" / "singlehtml"
PDF = ROOT / "_build" / "pdf" / "book.pdf"
# the Chinese edition: its own build folder (own .doctrees) and PDF
ZH_WORK = ROOT / "_build" / "zh-pdf"
PDF_ZH = ROOT / "_build" / "pdf" / "book-zh.pdf"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
# Paper cannot scroll: wrap long code lines instead of clipping them.
# The theme keeps every code block whole (``div.highlight {break-inside: avoid}``).
# A block taller than the room left on a page then jumps to the next page and
# leaves its cell's framed box behind, empty, at the foot of the page.  In print,
# a short block (under KEEP_WHOLE_LINES lines, marked ``print-keep`` by
# ``prepare_print_page``) stays whole together with its frame; a long one breaks,
# and its frame and background continue on the next page (box-decoration-break).
KEEP_WHOLE_LINES = 25
#: a stored value that is one number and its unit ("899 µs") is kept on one line in print
#: (PRINT_CSS); longer ones ("19% / 52%", lists) wrap as usual
NUMBER_AND_UNIT = re.compile(r"[−-]?[\d.,]+ [^\s\d]{1,12}")
PRINT_CSS = """
@media print {
  pre, div.highlight pre, .cell_output pre { white-space: pre-wrap !important;
                                             overflow-wrap: anywhere; }
  div.highlight, .cell_output, div.math, pre { overflow: visible !important; }
  div.highlight, div[class*=highlight-], div.literal-block-wrapper,
  div.cell, div.cell_input, div.cell_output { break-inside: auto; }
  div.cell_input, div.cell_output, div.highlight, div[class*=highlight-],
  div.literal-block-wrapper, pre { -webkit-box-decoration-break: clone;
                                   box-decoration-break: clone; }
  pre { orphans: 3; widows: 3; }
  /* a number and its unit ("899 µs") are one word: the number never ends a line or a
     page without its unit (NUMBER_AND_UNIT; a long value may wrap, or the page would be
     shrunk to fit it) */
  span.print-nowrap { white-space: nowrap; }
  div.print-keep, div.print-keep div, div.print-keep pre { break-inside: avoid !important; }
  /* a heading that wraps stays on one page, and on the page of what follows it */
  h1, h2, h3, h4 { break-inside: avoid; break-after: avoid; }
}
"""
FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


# -- Sphinx extension -----------------------------------------------------------
# sphinx-exercise registers node visitors for the ``singlehtml`` builder, so Sphinx
# no longer falls back to the ``html`` visitors for that builder, and myst-nb's
# HideCodeCellNode (hide-input cells) has none: "departing unknown node type".
# Copy every html visitor that singlehtml lacks.
def _share_html_visitors(app, config) -> None:
    handlers = app.registry.translation_handlers
    if "singlehtml" in handlers:
        for node, fns in handlers.get("html", {}).items():
            handlers["singlehtml"].setdefault(node, fns)


def setup(app):
    app.connect("config-inited", _share_html_visitors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# -- build ----------------------------------------------------------------------
def build_singlehtml(path_output: pathlib.Path | None = None, lang: str = "en") -> pathlib.Path:
    build_book.vendor_mathjax()
    name = "pdf_config.yml" if lang == "en" else f"pdf_{lang}_config.yml"
    cfg = build_book.write_offline_config(ROOT / "_build" / name,
                                          extra_extensions=("build_pdf",), lang=lang)
    # Not -W: the HTML build (`make book`) is the zero-warning gate; the PDF is
    # printed from whatever builds.
    cmd = build_book.build_command(offline=True, builder="singlehtml", config=cfg, strict=False,
                                   path_output=path_output)
    env = dict(os.environ)
    # Sphinx loads this file as the extension ``build_pdf``; its imports of ``tools`` need
    # the repository root on the path
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    print("pdf: " + " ".join(cmd[1:]), flush=True)
    rc = subprocess.call(cmd, cwd=ROOT, env=env)
    if rc != 0:
        raise SystemExit(f"pdf: the singlehtml build failed (exit {rc})")
    return (path_output / "_build" / "singlehtml") if path_output else SINGLEHTML


def main_page(folder: pathlib.Path) -> str:
    """The singlehtml document, as a file at the top of ``folder``.

    With a root document in a subfolder (``book/intro``) Sphinx writes the single
    page to ``book/intro.html`` but computes its links as if it sat at the top
    (``_static/...``), and ``index.html`` is a redirect stub: copy the page to
    ``book.html`` so the links resolve.
    """
    import re

    index = folder / "index.html"
    text = index.read_text(encoding="utf-8", errors="replace") if index.exists() else ""
    m = re.search(r'http-equiv="Refresh" content="0; url=([^"]+)"', text, re.I)
    if not m:
        return "index.html"
    target = m.group(1).split("#")[0]
    if "/" in target:
        shutil.copyfile(folder / target, folder / "book.html")
        return "book.html"
    return target





def _printed_lines(block) -> int:
    """Lines a block of code takes on paper: its source lines, long ones wrapped."""
    n = 0
    for pre in block.find_all("pre"):
        for line in pre.get_text().rstrip("\n").split("\n"):
            n += max(1, -(-len(line) // 90))      # ~90 characters fit on an A4 line
    return n


def prepare_print_page(folder: pathlib.Path, page: str) -> str:
    """Write ``print.html`` next to ``page``: the same document with PRINT_CSS in its
    head and every short code block (cell, cell input or output, literal block)
    marked ``print-keep``.  Both printers (Playwright and the Chromium command line)
    print this file, so they paginate alike."""
    from bs4 import BeautifulSoup  # a dependency of pydata-sphinx-theme

    soup = BeautifulSoup((folder / page).read_text(encoding="utf-8"), "html.parser")
    kept = 0
    for block in soup.select("div.cell, div.cell_input, div.cell_output, "
                             "div[class*=highlight-], div.literal-block-wrapper"):
        if block.find("pre") is not None and _printed_lines(block) < KEEP_WHOLE_LINES:
            block["class"] = block.get("class", []) + ["print-keep"]
            kept += 1
    for value in soup.select("span.stored-eval"):
        if NUMBER_AND_UNIT.fullmatch(value.get_text()):
            value["class"] = value.get("class", []) + ["print-nowrap"]
    style = soup.new_tag("style", id="print-css")
    style.string = PRINT_CSS
    (soup.head or soup).append(style)
    (folder / "print.html").write_text(str(soup), encoding="utf-8")
    print(f"pdf: {kept} short code blocks kept whole on one page", flush=True)
    return "print.html"


# On a busy machine "networkidle" can come before the deferred MathJax has started
# (window.MathJax is then only its configuration) and before sphinx-togglebutton has
# added the solutions' buttons: wait for both, at most a couple of minutes.
WAIT_JS = """async () => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  while (document.readyState !== 'complete') { await sleep(100); }
  const started = () => window.MathJax && MathJax.startup && MathJax.startup.promise;
  const math = document.querySelectorAll('span.math, div.math').length;
  for (let i = 0; math && !started() && i < 1200; i++) { await sleep(100); }
  if (started()) {
    await MathJax.startup.promise;
  }
  const toggles = document.querySelectorAll('.solution.dropdown, .toggle').length;
  for (let i = 0; toggles && !document.querySelector('.toggle-button') && i < 300; i++) {
    await sleep(100);
  }
  if (document.fonts) { await document.fonts.ready; }
  await Promise.all([...document.images].map(i => i.complete ? null :
      new Promise(r => { i.onload = i.onerror = r; })));
  return {
    math: document.querySelectorAll('span.math, div.math').length,
    typeset: document.querySelectorAll('mjx-container').length,
  };
}"""

OPEN_SOLUTIONS_JS = """() => {
  let n = 0;
  for (const b of document.querySelectorAll('.toggle-hidden .toggle-button, button.toggle-button-hidden')) {
    b.click(); n += 1;
  }
  return n;
}"""


ALL_OPEN_JS = """() => document.querySelectorAll(
  '.toggle-hidden .toggle-button, button.toggle-button-hidden').length === 0"""


def print_playwright(url: str, out: pathlib.Path) -> dict:
    from tools.playwright_once import playwright

    browser = playwright().chromium.launch(executable_path=CHROMIUM, headless=True,
                                           args=CHROMIUM_FLAGS)  # one driver per process
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url, wait_until="networkidle", timeout=300_000)
        info = page.evaluate(WAIT_JS)
        info["solutions_opened"] = page.evaluate(OPEN_SOLUTIONS_JS)
        # every solution open before printing: wait for the condition, not a fixed time
        page.wait_for_function(ALL_OPEN_JS, timeout=300_000, polling=100)
        page.emulate_media(media="print")
        page.pdf(path=str(out), format="A4", print_background=True,
                 margin={"top": "15mm", "bottom": "15mm", "left": "12mm", "right": "12mm"},
                 display_header_footer=True, header_template="<span></span>",
                 footer_template=FOOTER, outline=True, tagged=True)
    finally:
        browser.close()
    return info


def print_cli(url: str, out: pathlib.Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="pdf-chromium-") as profile:
        cmd = [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
               "--run-all-compositor-stages-before-draw", "--virtual-time-budget=20000",
               "--no-pdf-header-footer", "--generate-pdf-document-outline",
               f"--print-to-pdf={out}", url]
        subprocess.run(cmd, check=True, timeout=300,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return {}


def _has_cjk_font() -> bool | None:
    if not shutil.which("fc-list"):
        return None
    out = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout
    return bool(out.strip())


def print_pdf(folder: pathlib.Path, out: pathlib.Path = PDF) -> dict:
    if not pathlib.Path(CHROMIUM).exists() and not shutil.which(CHROMIUM):
        raise SystemExit(f"pdf: Chromium not found at {CHROMIUM}: install it "
                         "(apt-get install -y chromium) or set CHROMIUM=/path/to/chromium")
    if _has_cjk_font() is False:
        print("pdf: warning: no CJK font installed; the Chinese terms will print as empty "
              "boxes (apt-get install -y fonts-noto-cjk)", file=sys.stderr, flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".pdf.part")
    with serve(folder) as base:
        url = f"{base}/{prepare_print_page(folder, main_page(folder))}"
        if importlib.util.find_spec("playwright") is not None:
            info = print_playwright(url, tmp)
        else:
            info = print_cli(url, tmp)
    tmp.replace(out)
    return info


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--no-build", action="store_true",
                   help="print the existing _build/singlehtml without rebuilding it")
    p.add_argument("--path-output", type=pathlib.Path, default=None,
                   help="build into PATH/_build/singlehtml and PATH/_build/pdf/book.pdf")
    p.add_argument("--out", type=pathlib.Path, default=None,
                   help=f"the PDF of one edition (default {PDF}, {PDF_ZH})")
    p.add_argument("--edition", choices=("all", "en", "zh"), default="all",
                   help="print both editions (default) or one")
    args = p.parse_args(argv)
    if args.out is not None and args.edition == "all":
        p.error("--out needs --edition en or --edition zh")
    base = args.path_output.resolve() if args.path_output else None
    for lang in (("en", "zh") if args.edition == "all" else (args.edition,)):
        t0 = time.perf_counter()
        if lang == "en":
            out = args.out or ((base / "_build" / "pdf" / "book.pdf") if base else PDF)
            work = base
            folder = (base / "_build" / "singlehtml") if base else SINGLEHTML
        else:
            out = args.out or ((base / "_build" / "pdf" / "book-zh.pdf") if base else PDF_ZH)
            work = (base / "_build" / "zh-pdf") if base else ZH_WORK
            folder = work / "_build" / "singlehtml"
        if not args.no_build:
            folder = build_singlehtml(work, lang=lang)
        info = print_pdf(folder, out)
        pages = ""
        try:
            from pypdf import PdfReader
            pages = f", {len(PdfReader(str(out)).pages)} pages"
        except ImportError:
            pass
        extra = "".join(f", {k}={v}" for k, v in info.items())
        print(f"pdf: wrote {out}{pages}{extra} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
