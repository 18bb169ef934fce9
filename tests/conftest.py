"""Shared set-up of the test suite: backend, paths, the book's notebooks, figure closing.

* Matplotlib runs on Agg, whatever the environment sets; matplotlib itself is imported only
  by the tests that draw, so library tests run without it (and the notebooks' kernels keep
  their own inline backend: nothing here touches the environment they inherit).
* pytest-mpl's comparison is switched on (``--mpl``) however pytest is invoked, so the
  figure tests in ``test_figures.py`` can never pass by comparing nothing.
* Every test closes the figures it leaves open.
* One Chromium per worker (the session fixture ``chromium``) for every browser test; the
  built book's reader (``book_reader``) and the lab tests' JupyterLab (``lab``) are one per
  worker too.
* Hypothesis runs under one profile for the whole suite: no per-example deadline and no
  "too slow" health check (both are clocks, and a busy 2-core machine trips them), and
  derandomized, so a failing example is the same on every run and every machine.
* Paths (``ROOT``, ``BOOK``, ``HTML_DIR``, ``FIG_DIR``), the list of notebooks and small
  readers of a notebook's cells, tags, ``{eval}`` roles and stored ``user_expressions``
  are imported by the test modules (``from conftest import ...``).
"""
from __future__ import annotations

import ast
import json
import os
import pathlib
import re
import sys

import pytest
from hypothesis import HealthCheck, settings

from bookkit import eval_expressions, plain_result, stored_expressions  # noqa: F401  (re-exported)

# No test times itself: hypothesis's default 200 ms deadline per example and its
# too_slow health check are timing assertions.  derandomize=True: a failure is reproducible.
settings.register_profile("book", deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("book")

ROOT = pathlib.Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
HTML_DIR = pathlib.Path(os.environ.get("BOOK_HTML_DIR") or ROOT / "_build" / "html")
FIG_DIR = BOOK / "figures"


def _is_source(path: pathlib.Path) -> bool:
    return not ({".ipynb_checkpoints", "_build"} & set(path.parts))


NOTEBOOKS = sorted(p for p in BOOK.rglob("*.ipynb") if _is_source(p))
MARKDOWN_PAGES = sorted(p for p in BOOK.rglob("*.md") if _is_source(p))
# the chapter pages proper (the numbered notebooks of every chapter folder): the page
# design puts their numbers into the prose with {eval}
CHAPTER_NOTEBOOKS = [p for p in NOTEBOOKS if p.name[:1].isdigit()]


def nb_id(path: pathlib.Path) -> str:
    return path.relative_to(ROOT).as_posix()


def docname(path: pathlib.Path) -> str:
    return path.relative_to(ROOT).with_suffix("").as_posix()


# -- reading a notebook -------------------------------------------------------------------
def load(path: pathlib.Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def cells(path: pathlib.Path) -> list[dict]:
    return load(path)["cells"]


def source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def tags(cell: dict) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def is_visible_code(cell: dict) -> bool:
    """A code cell the reader sees on the web page (not tagged remove-cell)."""
    return cell["cell_type"] == "code" and "remove-cell" not in tags(cell) \
        and bool(source(cell).strip())


def page_text(path: pathlib.Path) -> str:
    """All markdown of a page: the markdown cells of a notebook, or a .md file."""
    if path.suffix == ".md":
        return path.read_text(encoding="utf-8")
    return "\n\n".join(source(c) for c in cells(path) if c["cell_type"] == "markdown")


def python_source(cell: dict) -> str:
    """A code cell's source with IPython magics and shell escapes blanked out."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source(cell).splitlines())


def parse(cell: dict) -> ast.Module:
    return ast.parse(python_source(cell))


# -- {eval} roles and their stored results: bookkit's one parser and reader -------------
def stored_results(path: pathlib.Path) -> list[tuple[str, str]]:
    """(expression, rendered text) of every {eval} role with a stored result in a notebook."""
    out = []
    for c in cells(path):
        if c["cell_type"] != "markdown":
            continue
        stored = stored_expressions(c)
        for expr in eval_expressions(source(c)):
            text = plain_result(stored.get(expr, {}))
            if text is not None:
                out.append((expr, text))
    return out


NUMBER_NEEDLE = re.compile(r"\d")


def is_distinctive(text: str) -> bool:
    """A number that can only come from the prose: bare short numbers ("8") are not."""
    text = text.strip()
    if not NUMBER_NEEDLE.search(text):
        return False
    return "." in text or bool(re.search(r"[A-Za-z%/µ]", text)) or len(text) >= 3


# -- pytest hooks -----------------------------------------------------------------------
@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # before pytest-mpl's own pytest_configure reads the option: never compare nothing
    if hasattr(config.option, "mpl"):
        config.option.mpl = True


def pytest_runtest_setup(item):
    # a test module that draws has imported matplotlib by now: put it on Agg before it runs
    if "matplotlib" in sys.modules:
        sys.modules["matplotlib"].use("Agg", force=True)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    if "matplotlib.pyplot" in sys.modules:      # only tests that drew have figures to close
        sys.modules["matplotlib.pyplot"].close("all")


# -- the browser and the JupyterLab of the e2e tests ---------------------------------------
@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium per pytest-xdist worker, for every browser test it runs: the
    built book of both editions (``book_reader``) and the JupyterLab tests (``lab``)."""
    from lab_server import browser

    with browser() as b:
        yield b


@pytest.fixture(scope="session")
def book_reader(chromium):
    """The built site (``_build/html``, both editions) served once per worker and read in
    ``chromium``; each page is visited once for all its tests.  The test files' ``reader``
    fixtures say first why they would skip (tests/e2e/test_browser.py)."""
    import e2e_helpers as e2e

    ids = e2e.explorer_figure_ids(e2e.toc_pages())
    with e2e.Reader(chromium, explorer_ids=tuple(ids)) as r:
        yield r


@pytest.fixture(scope="session")
def lab(chromium):
    """One JupyterLab on a copy of the book per pytest-xdist worker, shared by every lab
    test file the worker runs, driven in the worker's ``chromium``."""
    from lab_pages import BOOK, Session
    from lab_server import book_copy, lab_server

    with book_copy("lab-e2e-book-", BOOK) as root, lab_server(root) as server:
        yield Session(server, chromium, root)


def pytest_generate_tests(metafunc):
    """The pages of a ``lab_pages.PageChecks`` subclass, as its tests' ``relpath``."""
    pages = getattr(metafunc.cls, "PAGES", None)
    if pages is not None and "relpath" in metafunc.fixturenames:
        metafunc.parametrize("relpath", pages)
