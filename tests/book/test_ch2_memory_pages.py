"""Chapter 2's memory pages (05-08): stored values, structure, no typed decimals."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bookkit import eval_expressions, stored_values

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "book" / "2_full_speed").glob("0[5-8]_*.ipynb"))


# --------------------------------------------------------------------------- notebooks
def _nb(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_my_notebooks_exist():
    assert [p.name for p in NOTEBOOKS] == ["05_memory_capacity.ipynb", "06_area_power_amdahl.ipynb",
                                          "07_reproduce_and_limits.ipynb", "08_self_test.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_values_and_structure(path):
    nb = _nb(path)
    md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "CC BY-NC-SA 4.0" in md and "S23-J13" in md
    used, stored = set(), set(stored_values(path))
    for c in nb["cells"]:
        if c["cell_type"] == "markdown":
            used |= set(eval_expressions("".join(c["source"])))
    assert used and used <= stored, used - stored
    for c in nb["cells"]:
        src = "".join(c["source"])
        if c["cell_type"] == "code" and "widgets import" in src:
            assert {"nbval-ignore-output", "remove-cell"} <= set(c["metadata"].get("tags", []))
