"""infra_calc.figures.ch2: the chapter-2 compute figures and the explorer snapshots."""
from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

import infra_calc as ic
from infra_calc import source as S
from infra_calc.figures import FIGURES
from infra_calc.figures import ch2 as fig13

K, N, B = S.J13_K, S.J13_N, S.J13_BYTES_PER_ELEMENT
H100 = S.j13_h100()


def _points(ax):
    """(x, y) of every single-point marker line on ``ax``."""
    return [(float(line.get_xdata()[0]), float(line.get_ydata()[0])) for line in ax.get_lines()
            if len(line.get_xdata()) == 1 and line.get_marker() not in (None, "None", "")]


def _texts(ax):
    return " ".join(t.get_text() for t in ax.texts) + " " + ax.get_title()


def _close(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)


# --------------------------------------------------------------------------- figures
IDS = ("j13-roofline-h100", "j13-intensity-vs-m", "j13-moe-padding", "j13-roofline-explorer",
       "j13-moe-explorer", "j13-padding-time")


@pytest.mark.parametrize("fig_id", IDS)
def test_figures_registered_and_labelled(fig_id):
    spec = FIGURES[fig_id]
    assert spec.caption.endswith(".")
    fig = spec.func()
    try:
        assert isinstance(fig, Figure)
        for ax in fig.axes:
            for label in (ax.get_xlabel(), ax.get_ylabel()):
                if label:  # an axis label names its unit in parentheses
                    assert "(" in label and ")" in label, label
            assert ax.get_ylabel(), f"{fig_id}: y axis not labelled"
    finally:
        _close(fig)


def test_roofline_h100_marks_rows_ridge_and_m_star():
    fig = fig13.roofline_h100()
    try:
        (ax,) = fig.axes
        assert ax.get_xscale() == ax.get_yscale() == "log"
        assert "FLOP/byte" in ax.get_xlabel() and "TFLOP/s" in ax.get_ylabel()
        roof = ax.get_lines()[0]
        assert np.isclose(roof.get_ydata().max(), H100.peak_flops / 1e12)
        pts = _points(ax)
        for m in fig13.FIGURE_ROWS:
            i = ic.arithmetic_intensity(m, K, N, bytes_per_element=B)
            assert any(np.isclose(x, i) and np.isclose(y, i * H100.mem_bandwidth / 1e12) for x, y in pts)
        assert any(np.isclose(x, H100.ridge_point) and np.isclose(y, 989.4) for x, y in pts)
        text = _texts(ax)
        assert "M* = 345.1" in text and "I = 15.9" in text and "I = 227.6" in text
        assert "I = 62.1" not in text      # Exercise 2.1's answer stays off the chapter pages
    finally:
        _close(fig)


def test_intensity_vs_rows_lines():
    fig = fig13.intensity_vs_rows()
    try:
        (ax,) = fig.axes
        assert ax.get_xscale() == "log"
        flat = [float(line.get_ydata()[0]) for line in ax.get_lines()
                if len(line.get_ydata()) == 2 and line.get_ydata()[0] == line.get_ydata()[1]]
        assert any(np.isclose(y, H100.ridge_point) for y in flat)
        assert any(np.isclose(y, 2048.0) for y in flat)
        m_star = ic.critical_rows(K, N, H100, bytes_per_element=B)
        assert any(np.isclose(x, m_star) and np.isclose(y, H100.ridge_point) for x, y in _points(ax))
        curve = ax.get_lines()[0]
        assert np.allclose(curve.get_ydata(), ic.arithmetic_intensity(curve.get_xdata(), K, N,
                                                                      bytes_per_element=B))
    finally:
        _close(fig)


def test_moe_padding_bars():
    fig = fig13.moe_padding()
    try:
        (ax,) = fig.axes
        heights = sorted(p.get_height() for p in ax.patches)
        assert heights == [512, 512, 512, 4096]
        assert any(p.get_hatch() for p in ax.patches)  # reads in grey
        assert "8×" in ax.get_title()
    finally:
        _close(fig)


def test_roofline_explorer_snapshot_panels():
    fig = fig13.roofline_explorer_snapshot()
    try:
        assert len(fig.axes) == 2
        titles = [ax.get_title() for ax in fig.axes]
        assert "H100 SXM" in titles[0] and "M* = 345.1" in titles[0]
        assert "B200" in titles[1]
        for ax, hw in zip(fig.axes, ("H100 SXM", "B200"), strict=True):
            acc = ic.accelerator(hw)
            pts = _points(ax)
            for m in (1, 16, 256, 1024):
                pt = ic.gemm_roofline(m, K, N, acc, bytes_per_element=B)
                assert any(np.isclose(x, pt.intensity) and np.isclose(y, pt.attainable / 1e12)
                           for x, y in pts)
        assert "compute-bound" in _texts(fig.axes[0]) and "memory-bound" in _texts(fig.axes[0])
    finally:
        _close(fig)


def test_padding_time_panels():
    fig = fig13.padding_time()
    try:
        top, bottom = fig.axes
        for t, flops_line, time_line in zip((16, 64, 128), top.get_lines(), bottom.get_lines(),
                                            strict=False):
            rows = flops_line.get_xdata()
            for r in (1, 2, 100, 300, 1000):
                g = ic.padded_gemm(r, K, N, H100, bytes_per_element=B, tile=(t, 16, 16))
                assert np.isclose(flops_line.get_ydata()[r - 1], g.executed_flops / g.useful_flops)
                assert np.isclose(time_line.get_ydata()[r - 1], g.padding_slowdown)
            assert rows[0] == 1
            # a few rows: memory-bound, the zeros cost no time however many there are
            assert np.allclose(time_line.get_ydata()[:200], 1.0)
            assert flops_line.get_ydata()[0] == t
        assert bottom.get_lines()[2].get_ydata().max() > 1.3
        assert top.get_yscale() == "log" and "(rows)" in bottom.get_xlabel()
    finally:
        _close(fig)


def test_moe_explorer_snapshot_bars():
    fig = fig13.moe_explorer_snapshot()
    try:
        (ax,) = fig.axes
        executed = sorted((p.get_height() for p in ax.patches if p.get_height() != 512), reverse=True)
        assert executed == [4096, 1728, 720, 608]
        assert len(ax.patches) == 10
    finally:
        _close(fig)


def test_explorer_snapshot_keeps_its_text_inside():
    from widget_checks import outside

    fig = fig13.roofline_explorer_snapshot()
    assert not outside(fig), outside(fig)
