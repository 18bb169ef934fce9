"""Every notebook is committed executed: nbval alone would pass an unexecuted one."""
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for p in (ROOT / "book").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 10, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_cell_executed_without_error(path):
    code = [c for c in cells(path) if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    assert code, "notebook has no code"
    counts = []
    for i, c in enumerate(code):
        assert c.get("execution_count") is not None, f"code cell {i} was never executed"
        assert c.get("outputs") or _silent_ok(c), f"code cell {i} has no stored output"
        for out in c.get("outputs", []):
            assert out["output_type"] != "error", f"code cell {i} stored an error: {out.get('ename')}"
            if out["output_type"] == "stream":
                assert out["name"] != "stderr" or "Warning" not in "".join(out["text"]), \
                    f"code cell {i} printed a warning"
        counts.append(c["execution_count"])
    assert counts == list(range(1, len(counts) + 1)), "cells were not executed top to bottom in one run"


def _silent_ok(cell):
    # a cell that only defines or imports things legitimately prints nothing
    return True


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_notebook_hygiene(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb["metadata"].get("kernelspec", {}).get("name") == "python3"
    for i, c in enumerate(nb["cells"]):
        src = "".join(c["source"])
        assert "init_printing" not in src, f"cell {i}: sympy.init_printing() adds PNG formulas"
        if c["cell_type"] != "code":
            continue
        assert "execution" not in c.get("metadata", {}), f"cell {i}: timing metadata recorded"
        tags = c.get("metadata", {}).get("tags", [])
        for out in c.get("outputs", []):
            data = out.get("data", {})
            assert "image/svg+xml" not in data, f"cell {i}: SVG output embeds a date; use PNG"
            if WIDGET_MIME in data:
                assert "nbval-ignore-output" in tags, f"cell {i}: widget without nbval-ignore-output"
                assert "remove-cell" in tags, f"cell {i}: live widget would be a dead control on the web"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_hand_typed_decimals_in_prose(path):
    decimal = re.compile(r"(?<![\w.{`$\\])\d+\.\d+(?![\w.])")
    for i, c in enumerate(cells(path)):
        if c["cell_type"] != "markdown":
            continue
        src = "".join(c["source"])
        # names, not quantities: licence versions and section numbers
        src = re.sub(r"CC BY-NC-SA \d\.\d|§\d+(?:\.\d+)*", "", src)
        prose = re.sub(r"\{glue[^}]*\}`[^`]*`|`[^`]*`|\$\$.*?\$\$|\$[^$]*\$|\]\([^)]*\)|\(#?[^)]*\)",
                       "", src, flags=re.S)
        assert not decimal.findall(prose), f"cell {i}: typed numbers {decimal.findall(prose)}"
