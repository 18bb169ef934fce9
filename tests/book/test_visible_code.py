"""Code a reader can copy: the visible cells of a page, run alone, reproduce the page.

For every notebook, the code cells a reader sees on the web page (not tagged
``remove-cell`` or ``remove-input``) are run alone, in order, in a fresh kernel started
in the page's folder: no hidden cell runs before or between them.  Each visible cell
must run without error, and its text outputs (printed text, ``text/plain``,
``text/latex``, ``text/markdown``, ``text/html``) must equal the ones stored in the
notebook, which are what the page shows.  Images are compared by count only (their
bytes are pytest-mpl's business).

Cells tagged ``nbval-skip`` (the lab's live measurement) are not run, as under nbval;
cells tagged ``nbval-ignore-output`` run but their outputs are not compared.
"""
from __future__ import annotations

import configparser
import copy
import re

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT, nb_id, tags
from nbclient import NotebookClient

TEXT_TYPES = ("text/plain", "text/latex", "text/markdown", "text/html")
HIDDEN = {"remove-cell", "remove-input"}


def _sanitizers() -> list[tuple[re.Pattern, str]]:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "tests" / "sanitize.cfg", encoding="utf-8")
    return [(re.compile(cfg[s]["regex"]), cfg[s]["replace"]) for s in cfg.sections()]


SANITIZERS = _sanitizers()


def _clean(text) -> str:
    text = "".join(text) if isinstance(text, list) else str(text)
    for pattern, replacement in SANITIZERS:
        text = pattern.sub(replacement, text)
    return text.rstrip()


def shown_outputs(outputs) -> list[tuple[str, str]]:
    """A cell's outputs as (kind, text) pairs: stream text merged per stream, rich text
    per MIME type, images counted."""
    out: list[tuple[str, str]] = []
    raw = []   # indices of stream entries whose text is still raw (cleaned at the end)
    for o in outputs:
        kind = o.get("output_type")
        if kind == "stream":
            # join the raw text first: how a kernel splits a print into messages is timing
            text = "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
            if out and out[-1][0] == f"stream:{o['name']}" and len(out) - 1 in raw:
                out[-1] = (out[-1][0], out[-1][1] + text)
            else:
                raw.append(len(out))
                out.append((f"stream:{o['name']}", text))
        elif kind in ("display_data", "execute_result"):
            data = o.get("data", {})
            for mime in TEXT_TYPES:
                if mime in data:
                    out.append((mime, _clean(data[mime])))
            for mime in data:
                if mime.startswith("image/"):
                    out.append((mime, "<image>"))
        elif kind == "error":
            out.append(("error", f"{o.get('ename')}: {o.get('evalue')}"))
    return [(k, _clean(t)) if i in raw else (k, t) for i, (k, t) in enumerate(out)]


def test_shown_outputs_do_not_depend_on_how_a_print_was_split():
    one = [{"output_type": "stream", "name": "stdout", "text": "a 1\nb 2\n"}]
    two = [{"output_type": "stream", "name": "stdout", "text": "a 1\n"},
           {"output_type": "stream", "name": "stdout", "text": "b 2\n"}]
    assert shown_outputs(one) == shown_outputs(two) == [("stream:stdout", "a 1\nb 2")]


def is_shown_code(cell) -> bool:
    return cell.cell_type == "code" and cell.source.strip() != "" and not HIDDEN & set(tags(cell))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_visible_code_alone_reproduces_the_page(path):
    nb = nbformat.read(path, as_version=4)
    shown = [c for c in nb.cells if is_shown_code(c) and "nbval-skip" not in tags(c)]
    if not shown:
        pytest.skip("no visible code on this page")
    run_nb = nbformat.v4.new_notebook(metadata=copy.deepcopy(nb.metadata))
    run_nb.cells = [nbformat.v4.new_code_cell(c.source) for c in shown]
    client = NotebookClient(run_nb, timeout=None, record_timing=False, allow_errors=True,
                            kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    problems = []
    for n, (stored, ran) in enumerate(zip(shown, run_nb.cells, strict=True), start=1):
        got = shown_outputs(ran.outputs)
        errors = [text for kind, text in got if kind == "error"]
        if errors:
            problems.append(f"visible cell {n} raises {errors[0]}\n    source: "
                            + stored.source.splitlines()[0])
            continue
        if "nbval-ignore-output" in tags(stored):
            continue
        want = shown_outputs(stored.outputs)
        if got != want:
            problems.append(f"visible cell {n} shows other output when run alone\n"
                            f"    source: {stored.source.splitlines()[0]}\n"
                            f"    page:   {want!r:.300}\n    alone:  {got!r:.300}")
    assert not problems, (f"{nb_id(path)}: the visible code, run alone in a fresh kernel, does not "
                          "reproduce the page:\n  " + "\n  ".join(problems))
