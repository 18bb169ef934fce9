"""tools/execute.py and tools/lab/: a page is stored as
JupyterLab writes it back (issue 18 §4), so opening it marks nothing modified and
*Run All* + *Save* leaves the file as it was (tests/lab_pages.py checks both in a
real JupyterLab)."""
from __future__ import annotations

import json
import runpy
import sys

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT, cells, load, source

from bookkit.roles import eval_expressions, stored_entries
from bookkit.widget_state import WIDGET_VIEW
from tools.execute import execute, merge_streams

#: the keys of the kernel's language_info that JupyterLab writes into a notebook
LANGUAGE_INFO_KEYS = {"codemirror_mode", "file_extension", "mimetype", "name",
                      "nbconvert_exporter", "pygments_lexer", "version"}


# ------------------------------------------------------------------ execute a page
def test_execute_stores_the_kernels_metadata_and_one_result_per_occurrence(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [nbformat.v4.new_code_cell("x = 6 * 7"),
                nbformat.v4.new_markdown_cell("{eval}`x` and {eval}`x + 1`, again {eval}`x`."),
                nbformat.v4.new_code_cell("import ipywidgets as w\nw.IntSlider()")]
    path = tmp_path / "page.ipynb"
    nbformat.write(nb, path)
    execute(str(path))
    got = load(path)
    info = got["metadata"]["language_info"]
    assert set(info) == LANGUAGE_INFO_KEYS and info["name"] == "python"
    assert info["version"] == ".".join(map(str, sys.version_info[:3]))
    assert got["metadata"]["kernelspec"]["display_name"] == "Python 3 (ipykernel)"
    stored = got["cells"][1]["metadata"]["user_expressions"]
    assert [e["expression"] for e in stored] == ["x", "x + 1", "x"]
    assert [e["result"]["data"]["text/plain"] for e in stored] == ["42", "43", "42"]
    assert stored[0]["result"] == {"status": "ok", "data": {"text/plain": "42"}, "metadata": {}}
    out = got["cells"][2]["outputs"][0]["data"]
    assert WIDGET_VIEW not in out and "text/plain" in out and "widgets" not in got["metadata"]


# ------------------------------------------------------------------ saving in JupyterLab
def test_lab_config_strips_notebooks_on_save():
    class Config(dict):
        def __getattr__(self, name):
            return self.setdefault(name, Config())

        def __setattr__(self, name, value):
            self[name] = value

    cfg = Config()
    ns = runpy.run_path(str(ROOT / "tools" / "lab" / "jupyter_server_config.py"),
                        init_globals={"get_config": lambda: cfg})
    hook = cfg.FileContentsManager.pre_save_hook
    assert hook is ns["keep_live_widgets_out"]
    model = {"type": "notebook", "content": {"metadata": {"widgets": {}}, "cells": []}}
    hook(model=model, path="x.ipynb", contents_manager=None)
    assert model["content"]["metadata"] == {}
    text = {"type": "file", "content": "{}"}
    hook(model=text, path="x.txt", contents_manager=None)
    assert text["content"] == "{}"


def test_merge_streams_joins_only_neighbours_of_one_name():
    out = [{"output_type": "stream", "name": "stdout", "text": "a\n"},
           {"output_type": "stream", "name": "stdout", "text": "b\n"},
           {"output_type": "stream", "name": "stderr", "text": "w\n"},
           {"output_type": "display_data", "data": {}, "metadata": {}},
           {"output_type": "stream", "name": "stdout", "text": "c\n"}]
    got = merge_streams(out)
    assert [(o["output_type"], o.get("text")) for o in got] == [
        ("stream", "a\nb\n"), ("stream", "w\n"), ("display_data", None), ("stream", "c\n")]


# ------------------------------------------------------------------ the stored pages
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_pages_are_stored_as_jupyterlab_writes_them(path):
    """The kernel's language_info, and user_expressions one per {eval} occurrence in
    document order (run `make execute` after changing a page or tools/execute.py)."""
    nb = load(path)
    missing = LANGUAGE_INFO_KEYS - set(nb["metadata"].get("language_info", {}))
    assert not missing, f"language_info lacks {sorted(missing)}: run make execute"
    bad = []
    for i, c in enumerate(cells(path)):
        if c["cell_type"] != "markdown":
            continue
        want = eval_expressions(source(c))
        got = [e.get("expression") for e in stored_entries(c)]
        if got != want:
            bad.append(f"cell {i}: stored {got}, jupyterlab-myst writes {want}")
    assert not bad, "user_expressions not as jupyterlab-myst writes them (make execute):\n" + \
        "\n".join(bad[:5])
    assert "widgets" not in nb["metadata"]
    split = [i for i, c in enumerate(cells(path)) for a, b in
             zip(c.get("outputs", []) or [], (c.get("outputs", []) or [])[1:], strict=False)
             if a.get("output_type") == b.get("output_type") == "stream"
             and a.get("name") == b.get("name")]
    assert not split, f"cells {split} store one stream as two outputs (make execute)"
    assert not any(WIDGET_VIEW in o.get("data", {}) for c in nb["cells"]
                   for o in c.get("outputs", []) or []), json.dumps(path.name)
