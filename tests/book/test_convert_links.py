"""Links between pages: one syntax that both readers follow (issue 18 §4), and
tools/convert_links.py, which rewrites the old kind.

A ``{doc}`` role builds in Sphinx, but jupyterlab-myst links it to
``/files/book/…/name`` without the suffix: a 404 in JupyterLab.  A Markdown link to the
file with its suffix (``[Formula sheet](../appendix/formulas.ipynb)``) builds under
``-W`` to the page's HTML and opens the page in JupyterLab (tests/e2e/test_lab_e2e.py
clicks such links).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from conftest import MARKDOWN_PAGES, NOTEBOOKS, ROOT, page_text

sys.path.insert(0, str(ROOT / "tools"))
import convert_links as CL  # noqa: E402

# [text](target) with a relative target: no scheme, no bare anchor, no image
MD_LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(<?([^)\s>]+)>?\)")


def _relative_links(text: str) -> list[str]:
    return [t for t in MD_LINK.findall(text)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I) and not t.startswith("#")]


# ------------------------------------------------------------------ the book
@pytest.mark.parametrize("path", NOTEBOOKS + MARKDOWN_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_link_of_the_old_kind(path):
    """No {doc} role (run `python tools/convert_links.py`), and every relative Markdown
    link names an existing file with its suffix."""
    text = page_text(path)
    old = re.findall(r"\{doc\}`[^`]*`", text)
    assert not old, (f"{len(old)} {{doc}} link(s) JupyterLab cannot open; run "
                     f"`python tools/convert_links.py`: {old[:5]}")
    bad = []
    for target in _relative_links(text):
        file = (path.parent / target.split("#")[0]).resolve()
        if not file.is_file():
            bad.append(f"{target}: no such file")
        elif file.suffix not in (".ipynb", ".md", ".svg", ".png", ".json", ".csv", ".py"):
            bad.append(f"{target}: not a page")
    assert not bad, bad


# ------------------------------------------------------------------ the converter
@pytest.fixture
def book(tmp_path):
    (tmp_path / "book" / "a").mkdir(parents=True)
    (tmp_path / "book" / "b").mkdir()

    def nb(path, *markdown):
        cells = [{"cell_type": "markdown", "id": f"c{i}", "metadata": {},
                  "source": m.splitlines(keepends=True)} for i, m in enumerate(markdown)]
        cells.append({"cell_type": "code", "execution_count": 1, "id": "code", "metadata": {},
                      "outputs": [], "source": ["x = '{doc}`not <a link>`'"]})
        data = {"cells": cells, "metadata": {"kernelspec": {"name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
        path.write_text(json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        return path

    nb(tmp_path / "book/a/one.ipynb", "# Page one\n\nSee {doc}`the second <../b/two>` and\n"
       "{doc}`../b/three` and {doc}`Absolute </book/b/two>`, {doc}`x <two#sec>`.\n",
       "No role here: `{doc}` in code.")
    nb(tmp_path / "book/a/two.ipynb", "# Two\n")
    nb(tmp_path / "book/b/two.ipynb", "# Page [two]\n")
    (tmp_path / "book/b/three.md").write_text("---\nx: 1\n---\n# Page three\n\n{doc}`One <../a/one>`\n",
                                              encoding="utf-8")
    return tmp_path


def test_roles_become_markdown_links_with_the_suffix(book):
    page = book / "book/a/one.ipynb"
    before = page.read_text(encoding="utf-8")
    assert CL.convert_file(page, book) == 4
    after = json.loads(page.read_text(encoding="utf-8"))
    assert "".join(after["cells"][0]["source"]) == (
        "# Page one\n\nSee [the second](../b/two.ipynb) and\n[Page three](../b/three.md) and "
        "[Absolute](../b/two.ipynb), [x](two.ipynb#sec).\n")
    # nothing else changed: the other cells, the keys, the JSON layout
    old = json.loads(before)
    old["cells"][0]["source"] = after["cells"][0]["source"]
    assert page.read_text(encoding="utf-8") == CL._dump(old)
    assert CL.convert_file(page, book) == 0                      # idempotent


def test_md_pages_and_titles_from_the_target(book):
    assert CL.convert_file(book / "book/b/three.md", book) == 1
    assert (book / "book/b/three.md").read_text(encoding="utf-8").endswith("[One](../a/one.ipynb)\n")
    assert CL.page_title(book / "book/b/two.ipynb") == "Page [two]"
    text, n = CL.convert_text("{doc}`two`", book / "book/b/x.md", book)
    assert (text, n) == (r"[Page \[two\]](two.ipynb)", 1)


def test_a_missing_target_is_an_error_naming_it(book):
    with pytest.raises(CL.LinkError, match="'../b/nothere' is no page"):
        CL.convert_text("{doc}`x <../b/nothere>`", book / "book/a/one.ipynb", book)


def test_command_line_check_and_rewrite(book):
    tool = [sys.executable, str(ROOT / "tools" / "convert_links.py"), "--srcdir", str(book)]
    check = subprocess.run([*tool, "--check", str(book / "book")], capture_output=True, text=True)
    assert check.returncode == 1 and "5 {doc} link(s) in 2 file(s) left to rewrite" in check.stdout
    run = subprocess.run([*tool, str(book / "book")], capture_output=True, text=True)
    assert run.returncode == 0 and "5 {doc} link(s) in 2 file(s) rewritten" in run.stdout
    again = subprocess.run([*tool, "--check", str(book / "book")], capture_output=True, text=True)
    assert again.returncode == 0 and "0 {doc} link(s)" in again.stdout


def test_every_book_link_converts(tmp_path):
    """The converter knows every {doc} target of the book (run on a copy)."""
    import shutil

    shutil.copytree(ROOT / "book", tmp_path / "book",
                    ignore=shutil.ignore_patterns("figures", "_build", ".ipynb_checkpoints"))
    pages = CL.pages([tmp_path / "book"])
    roles = sum(len(re.findall(r"\{doc\}`", page_text(p))) for p in pages)
    assert sum(CL.convert_file(p, tmp_path) for p in pages) == roles
    assert all(not re.search(r"\{doc\}`", page_text(p)) for p in pages)
    for p in pages:
        for target in _relative_links(page_text(p)):
            assert (p.parent / target.split("#")[0]).exists() or "figures" in target, (p, target)
