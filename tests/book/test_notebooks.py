"""Every notebook is committed executed (nbval alone would pass an unexecuted one), and
no number is typed by hand into the prose."""
import ast
import re

import pytest
from conftest import MARKDOWN_PAGES, NOTEBOOKS, ROOT, cells, load, nb_id, page_text, parse, source, tags

from bookkit.roles import LINK, strip_code

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# calls that return None and print nothing, allowed as a silent cell's last statement
SILENT_CALLS = {"check_page_values", "close", "seed", "use", "filterwarnings", "simplefilter"}
PRINTING_CALLS = {"print", "display", "Math", "Markdown"}


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 10, [p.name for p in NOTEBOOKS]


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
    return None


def _top_level(body):
    """Statements run at the top level of a cell, loop and branch bodies included
    (not function or class bodies)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _top_level(getattr(stmt, field, []) or [])
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _top_level(handler.body)


def silent_ok(cell) -> bool:
    """True when a code cell legitimately prints nothing: its last statement is not an
    expression (or is ``...;`` or a known silent call) and nothing at its top level
    prints or displays."""
    src = source(cell).rstrip()
    try:
        tree = parse(cell)
    except SyntaxError:
        return False
    if not tree.body:
        return True
    for stmt in _top_level(tree.body):
        for node in ast.walk(stmt) if isinstance(stmt, ast.Expr) else [stmt]:
            if _call_name(node) in PRINTING_CALLS:
                return False
    last = tree.body[-1]
    if not isinstance(last, ast.Expr):
        return True
    if src.endswith(";"):
        return True
    return _call_name(last.value) in SILENT_CALLS


@pytest.mark.parametrize("code, silent", [
    ("import numpy as np\nx = 1", True),
    ("def f():\n    print(1)\n", True),
    ("x = 1\nx", False),
    ("print('hi')", False),
    ("for i in range(2):\n    print(i)\nz = 3", False),
    ("fig = make()\nfig", False),
    ("plt.close(fig)", True),
    ("ic.check_page_values(globals(), 'a.ipynb')", True),
    ("x = 1\nx;", True),
    ("display(Math('x'))\ny = 2", False),
])
def test_silent_ok_tells_silent_from_printing(code, silent):
    assert silent_ok({"source": code}) is silent


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_every_code_cell_executed_without_error(path):
    code = [c for c in cells(path) if c["cell_type"] == "code" and source(c).strip()]
    assert code, "notebook has no code"
    counts = []
    for i, c in enumerate(code):
        first = source(c).strip().splitlines()[0][:60]
        assert c.get("execution_count") is not None, f"code cell {i} ({first!r}) was never executed"
        assert c.get("outputs") or silent_ok(c), \
            f"code cell {i} ({first!r}) has no stored output but would print or display"
        for out in c.get("outputs", []):
            assert out["output_type"] != "error", f"code cell {i} stored an error: {out.get('ename')}"
            assert out.get("name") != "stderr", \
                f"code cell {i} wrote to stderr: {''.join(out.get('text', ''))[:200]}"
        counts.append(c["execution_count"])
    assert counts == list(range(1, len(counts) + 1)), "cells were not executed top to bottom in one run"


#: What each adapted chapter's pages must name: the source chapter they come from.
SOURCE_NAMED = {"1_decode_step": ("clxhxhhr.top/posts/5534",),
                "2_full_speed": ("S23-J13", "CC BY-NC-SA 4.0")}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_one_title_and_the_source_named(path):
    text = "\n".join(source(c) for c in cells(path) if c["cell_type"] == "markdown")
    assert len([line for line in text.splitlines() if line.startswith("# ")]) == 1, "one H1 title"
    for needle in SOURCE_NAMED.get(path.parent.name, ()):
        assert needle in text, f"the page does not name its source ({needle})"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_notebook_hygiene(path):
    nb = load(path)
    assert nb["metadata"].get("kernelspec", {}).get("name") == "python3"
    for i, c in enumerate(nb["cells"]):
        src = source(c)
        assert "init_printing" not in src, f"cell {i}: sympy.init_printing() adds PNG formulas"
        if c["cell_type"] != "code":
            continue
        assert "execution" not in c.get("metadata", {}), f"cell {i}: timing metadata recorded"
        t = tags(c)
        for out in c.get("outputs", []):
            data = out.get("data", {})
            assert "image/svg+xml" not in data, f"cell {i}: SVG output embeds a date; use PNG"
            if WIDGET_MIME in data:
                assert "nbval-ignore-output" in t, f"cell {i}: widget without nbval-ignore-output"
                assert "remove-cell" in t, f"cell {i}: live widget would be a dead control on the web"


# -- hand-typed numbers ------------------------------------------------------------------
# a decimal number, not part of a name such as "Llama-3.1-8B" or "Qwen2.5"
DECIMAL = re.compile(r"(?<![\w.])(?<!\w-)\d+\.\d+(?![\w.])(?!-\w)")
# names, not quantities: the licence's version and section numbers of the source
NAMES = re.compile(r"CC BY-NC-SA \d\.\d|§\s?\d+(?:\.\d+)*")


def prose(markdown: str) -> str:
    """Markdown with only what may legitimately hold a number removed: code (blocks, spans,
    {eval} and other roles: bookkit's :func:`~bookkit.roles.strip_code`), math and link
    targets.  Parenthesised prose and directives' bodies stay."""
    text = strip_code(NAMES.sub("", markdown))
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)
    text = re.sub(r"(?<!\\)\$[^$]*\$", "", text)
    return LINK.sub(lambda m: m.group(1), text)


@pytest.mark.parametrize("md, typed", [
    ("a step takes (about 20.90 ms) here", ["20.90"]),
    ("a step takes {eval}`v.t_step` here", []),
    ("the ratio $I = 295.3$ and `x = 1.5`", []),
    ("see [the table](../1_decode_step/02.ipynb#t-1.2) and CC BY-NC-SA 4.0 and §5.3", []),
    ("```{note}\nthe card says 3.35 TB/s\n```", ["3.35"]),
    ("```python\nic.shown(0.5)\n```", []),
    ("Llama-3.1-8B and Qwen2.5-7B, a gap of -3.5 points", ["3.5"]),
])
def test_prose_filter(md, typed):
    assert DECIMAL.findall(prose(md)) == typed


@pytest.mark.parametrize("path", NOTEBOOKS + MARKDOWN_PAGES, ids=nb_id)
def test_no_hand_typed_decimals_in_prose(path):
    if path.suffix == ".md":
        chunks = [page_text(path)]
    else:
        chunks = [source(c) for c in cells(path) if c["cell_type"] == "markdown"]
    typed = {i: DECIMAL.findall(prose(md)) for i, md in enumerate(chunks)}
    typed = {i: t for i, t in typed.items() if t}
    assert not typed, f"{path.relative_to(ROOT)}: hand-typed numbers in markdown cells {typed}"
