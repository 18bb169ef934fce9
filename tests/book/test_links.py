"""Links between pages: one syntax that both readers follow (issue 18 §4).

A ``{doc}`` role builds in Sphinx, but jupyterlab-myst links it to
``/files/book/…/name`` without the suffix: a 404 in JupyterLab.  A Markdown link to the
file with its suffix (``[Formula sheet](../appendix/formulas.ipynb)``) builds under
``-W`` to the page's HTML and opens the page in JupyterLab (tests/lab_pages.py
clicks such links).
"""
from __future__ import annotations

import re

import pytest
from conftest import MARKDOWN_PAGES, NOTEBOOKS, ROOT, page_text

from bookkit.roles import LINK, ROLE_OR_CODE_SPAN

# [text](target) with a relative target: no scheme, no bare anchor, no image
MD_LINK = re.compile(r"(?<!!)" + LINK.pattern)


def _relative_links(text: str) -> list[str]:
    return [t for _, t in MD_LINK.findall(text)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I) and not t.startswith("#")]


# ------------------------------------------------------------------ the book
@pytest.mark.parametrize("path", NOTEBOOKS + MARKDOWN_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_link_of_the_old_kind(path):
    """No {doc} role (a 404 in JupyterLab: write a Markdown link to the file, with its
    suffix), and every relative Markdown link names an existing file."""
    text = page_text(path)
    old = [m.group(0) for m in ROLE_OR_CODE_SPAN.finditer(text) if m.group("role") == "doc"]
    assert not old, (f"{len(old)} {{doc}} link(s) JupyterLab cannot open; write "
                     f"[title](page.ipynb) instead: {old[:5]}")
    bad = []
    for target in _relative_links(text):
        file = (path.parent / target.split("#")[0]).resolve()
        if not file.is_file():
            bad.append(f"{target}: no such file")
        elif file.suffix not in (".ipynb", ".md", ".svg", ".png", ".json", ".csv", ".py"):
            bad.append(f"{target}: not a page")
    assert not bad, bad
