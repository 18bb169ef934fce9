"""Chapter 1's pages: how they show their figures."""
from __future__ import annotations

import pathlib

from conftest import page_text

from bookkit.roles import FIGURE

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "book" / "1_decode_step").glob("[0-9]*.ipynb"))


# --------------------------------------------------------------------------- notebooks
def test_chapter_1_shows_the_j07_figures():
    """Chapter 1's pages show the four figures of infra_calc.figures.ch1 (each from book/figures/<id>.svg with
    :name: <id>: tests/lib/test_figures.py holds that on every page)."""
    found = {target.rsplit("/", 1)[-1].removesuffix(".svg")
             for path in NOTEBOOKS for _, target in FIGURE.findall(page_text(path))}
    assert found == {"j07-fixes", "j07-batch-sweep", "j07-capacity", "j07-explorer"}
