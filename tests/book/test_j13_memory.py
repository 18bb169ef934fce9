"""Chapter 2's memory pages (05-08): stored values, structure, no typed decimals."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

import infra_calc as ic
from bookkit import exercises
from bookkit import eval_expressions, stored_values
from infra_calc.figures import FIGURES
from infra_calc.figures import j13_memory as figs
from infra_calc.units import GB, GiB

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
    assert len(re.findall(r"^# ", md, flags=re.M)) == 1
    assert "CC BY-NC-SA 4.0" in md and "S23-J13" in md
    used, stored = set(), set(stored_values(path))
    for c in nb["cells"]:
        if c["cell_type"] == "markdown":
            used |= set(eval_expressions("".join(c["source"])))
    assert used and used <= stored, used - stored
    for fig in re.findall(r"```\{figure\} \.\./figures/([\w.-]+)", md):
        assert (path.parents[1] / "figures" / fig).is_file(), fig
    for c in nb["cells"]:
        src = "".join(c["source"])
        if c["cell_type"] == "code" and "widgets import" in src:
            assert {"nbval-ignore-output", "remove-cell"} <= set(c["metadata"].get("tags", []))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_typed_decimals_in_prose(path):
    nb = _nb(path)
    for c in nb["cells"]:
        if c["cell_type"] != "markdown":
            continue
        text = "".join(c["source"])
        text = re.sub(r"`[^`]*`", "", text)           # roles, inline code
        text = re.sub(r"\$[^$]*\$", "", text)          # math
        assert not re.search(r"(?<![\w.])\d+\.\d+", text), text
