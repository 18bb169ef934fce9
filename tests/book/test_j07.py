"""Chapter 1's pages: how they show their figures."""
from __future__ import annotations

import pathlib

import nbformat
import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

import infra_calc as ic
from bookkit import exercises as E
from infra_calc import source as S
from infra_calc.figures import FIGURES
from infra_calc.figures import j07 as figs

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "book" / "1_decode_step").glob("[0-9]*.ipynb"))


# --------------------------------------------------------------------------- notebooks
def test_figures_shown_with_figure_directives():
    """The page design: each J07 figure is shown from book/figures/<id>.svg with :name: <id>."""
    import re

    found = set()
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        for fig_id in re.findall(r"```\{figure\} \.\./figures/(j07-[\w-]+)\.svg\n:name: \1\n", text):
            found.add(fig_id)
    assert found == {"j07-fixes", "j07-batch-sweep", "j07-capacity", "j07-explorer"}
