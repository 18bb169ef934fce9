"""infra_calc.figures.catalog: the ridge points of the catalog's accelerators."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

import infra_calc as ic
from infra_calc import source as S
from infra_calc.figures import FIGURES
from infra_calc.figures.catalog import catalog_ridge_points


# ----------------------------------------------------------------- the figure
@pytest.fixture(scope="module")
def ridge_fig():
    fig = catalog_ridge_points()
    yield fig
    plt.close(fig)


def test_catalog_figure_registered():
    spec = FIGURES["catalog-ridge-points"]
    assert spec.caption
    assert spec.function.endswith("catalog_ridge_points")
    assert spec.inputs["k"] == S.J13_K and spec.inputs["n"] == S.J13_N


def test_catalog_figure_one_bar_per_entry(ridge_fig):
    assert isinstance(ridge_fig, Figure)
    ax = ridge_fig.axes[0]
    bars = ax.patches
    assert len(bars) == len(ic.CATALOG)
    widths = [b.get_width() for b in bars]
    expected = sorted(a.ridge_point for a in ic.CATALOG.values())
    assert widths == pytest.approx(expected)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [a.name for a in sorted(ic.CATALOG.values(), key=lambda a: a.ridge_point)]


def test_catalog_figure_axes_and_reference_lines(ridge_fig):
    ax = ridge_fig.axes[0]
    assert "FLOP/byte" in ax.get_xlabel()
    assert ax.get_ylabel()
    xs = sorted(line.get_xdata()[0] for line in ax.get_lines())
    want = [ic.arithmetic_intensity(m, S.J13_K, S.J13_N, bytes_per_element=2) for m in (1, 256)]
    assert xs == pytest.approx(want)


def test_catalog_figure_subset_and_errors():
    fig = catalog_ridge_points(names=("H100", "A100"))
    try:
        assert len(fig.axes[0].patches) == 2
    finally:
        plt.close(fig)
    with pytest.raises(ValueError):
        catalog_ridge_points(names=("no such card",))
    with pytest.raises(ValueError):
        catalog_ridge_points(names=())
