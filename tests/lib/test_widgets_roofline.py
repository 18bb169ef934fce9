"""infra_calc.widgets.roofline: the roofline explorer updates in place, titles its GEMM and
keeps the operating point's label clear of the line."""
from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from widget_checks import each_setting  # noqa: E402

import infra_calc as ic  # noqa: E402
from infra_calc import source as S  # noqa: E402
from infra_calc.widgets import roofline_explorer  # noqa: E402

K, N, B = S.J13_K, S.J13_N, S.J13_BYTES_PER_ELEMENT


def test_roofline_explorer_updates_in_place():

    ex = roofline_explorer()
    fig, point, roof = ex.fig, ex.artists["point"], ex.artists["roof"]
    image0 = ex.image.value
    assert ex.rows == 1 and ex.point.bound == "memory"
    assert np.isclose(point.get_xdata()[0], ic.arithmetic_intensity(1, K, N, bytes_per_element=B))
    assert "295.3 FLOP/byte" in ex.readout.value and "345.1 rows" in ex.readout.value
    assert "346" in ex.readout.value  # smallest whole batch

    ex.controls["m"].value = 256
    assert ex.rows == 256
    assert np.isclose(point.get_xdata()[0], 227.5555, atol=1e-3)
    assert "227.6 FLOP/byte" in ex.readout.value and "memory" in ex.readout.value
    assert ex.image.value != image0

    ex.controls["m"].value = 1024
    assert ex.point.bound == "compute" and "compute" in ex.readout.value
    assert np.isclose(point.get_ydata()[0], 989.4)

    ex.controls["hw"].value = ic.accelerator("B200")      # the menu holds the objects
    assert np.isclose(roof.get_ydata().max(), 2250.0)
    assert np.isclose(ex.m_star, ic.critical_rows(K, N, "B200", bytes_per_element=B))

    ex.controls["k"].value = 512
    ex.controls["n"].value = 512
    assert np.isclose(ex.artists["limit_line"].get_xdata()[0], ic.intensity_limit(512, 512,
                                                                                  bytes_per_element=B))
    assert math.isinf(ex.m_star) and "never" in ex.readout.value
    # the very same figure and artists throughout
    assert ex.fig is fig and ex.artists["point"] is point and ex.artists["roof"] is roof
    assert len(fig.axes) == 1


def test_roofline_title_and_units():
    ex = roofline_explorer()
    assert ex.artists["title"].get_text() == "H100 SXM: [1 × 4096] @ [4096 × 4096]"
    ex.controls["m"].value = 4096
    assert "MFLOP" not in ex.readout.value and "137.44 GFLOP" in ex.readout.value
    assert ex.renders == 1


def _label_hits_line(ex) -> str | None:
    """Where the operating point's label meets the roofline or leaves the axes (measured
    with the renderer of the explorer's last refresh, see ``outside``)."""
    r = ex.fig.canvas.get_renderer()
    box = ex.artists["point_text"].get_window_extent(r)
    line = ex.artists["roof"]
    xs, ys = line.get_data()
    # the polyline densely sampled (log-spaced data: interpolate in display space)
    pts = ex.ax.transData.transform(np.column_stack([xs, ys]))
    steps = np.arange(8)[None, :, None] * ((pts[1:] - pts[:-1]) / 8)[:, None, :]
    dense = (pts[:-1, None, :] + steps).reshape(-1, 2)   # 8 points per segment, as linspace
    pad = 1.5                                        # the line's half width, in pixels
    inside = ((dense[:, 0] > box.x0 - pad) & (dense[:, 0] < box.x1 + pad)
              & (dense[:, 1] > box.y0 - pad) & (dense[:, 1] < box.y1 + pad))
    if inside.any():
        return f"label {box} meets the line at {dense[inside][0]}"
    ax_box = ex.ax.get_window_extent(r)
    if box.x0 < ax_box.x0 or box.x1 > ax_box.x1 or box.y0 < ax_box.y0 or box.y1 > ax_box.y1:
        return f"label {box} leaves the axes {ax_box}"
    return None


@pytest.mark.parametrize("hw", ["H100 SXM", "B200", "RTX 4090", "A100 80GB"])
def test_roofline_point_label_clear_of_the_line(hw):
    ex = roofline_explorer(hw=hw)
    bad = []
    grid = {"m": (1, 2, 8, 32, 128, 256, 345, 512, 1024, 4096), "k": (256, 4096, 16384)}
    for m, k in each_setting(ex.controls, grid):
        why = _label_hits_line(ex)
        if why:
            bad.append(f"M={m}, K={k}: {why}")
    assert not bad, "\n".join(bad)
