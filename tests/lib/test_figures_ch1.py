"""infra_calc.figures.ch1: the chapter-1 figures (decode step, batch sweep, capacity, explorer snapshot)."""
from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

import infra_calc as ic
from infra_calc import source as S
from infra_calc.figures import FIGURES
from infra_calc.figures import ch1 as figs


def _bars(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def _close(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)


# --------------------------------------------------------------------------- figures
@pytest.mark.parametrize("fig_id", ["j07-fixes", "j07-batch-sweep", "j07-capacity", "j07-explorer"])
def test_figures_registered_and_labelled(fig_id):
    spec = FIGURES[fig_id]
    assert spec.caption.endswith(".")
    fig = spec.func()
    assert isinstance(fig, Figure)
    for ax in fig.axes:
        if ax.get_visible():
            assert ax.get_xlabel(), f"{fig_id}: unlabelled x axis"
    _close(fig)


def test_fixes_figure_bars_and_scale():
    fig = figs.fixes_figure()
    (ax,) = fig.axes
    bars = _bars(ax)
    assert len(bars) == 2 * 6                      # read + compute for six cases
    assert ax.get_xscale() == "log"
    assert "ms" in ax.get_xlabel() and ax.get_ylabel() == "case"
    widths = sorted(round(b.get_width(), 4) for b in bars)
    assert widths[-1] == pytest.approx(20.8955, abs=1e-3)
    assert widths[0] == pytest.approx(0.0707, abs=1e-4)
    _close(fig)


def test_batch_sweep_figure():
    fig = figs.batch_sweep_figure()
    ax1, ax2 = fig.axes
    assert len(ax1.get_lines()) == 4 + 2           # read, compute, step, per-output + B*, fit
    assert len(ax2.get_lines()) == 1 + 2
    assert ax1.get_xscale() == ax1.get_yscale() == "log"
    assert "ms" in ax1.get_ylabel() and "tokens" in ax2.get_ylabel()
    vlines = [ln for ln in ax1.get_lines() if len(set(np.asarray(ln.get_xdata(), float))) == 1]
    xs = sorted(float(ln.get_xdata()[0]) for ln in vlines)
    assert xs == pytest.approx([2, 147.68], abs=0.01)   # 8K requests that fit, and B*
    step = ax1.get_lines()[2]
    assert np.max(step.get_ydata()) == pytest.approx(2 * 512 * 70e9 / 989.4e12 * 1e3)
    _close(fig)


def test_capacity_figure_segments():
    fig = figs.capacity_figure()
    (ax,) = fig.axes
    bars = _bars(ax)
    assert len(bars) == 4 * 2                       # weights, KV, workspace, headroom x 2 readings
    ends = sorted({round(b.get_x() + b.get_width(), 3) for b in bars})
    assert ends[-2:] == pytest.approx([80.0, 85.899], abs=1e-3)
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "78.56 GB" in texts and "2 requests" in texts and "4 requests" in texts
    assert "GB" in ax.get_xlabel()
    _close(fig)


def test_explorer_snapshot():
    fig = figs.explorer_snapshot_figure()
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == len(figs.EXPLORER_SETTINGS) == 4
    for ax, (hw, bw, b) in zip(axes, figs.EXPLORER_SETTINGS, strict=True):
        st = ic.decode_step(S.J07_PARAMS, hw, bytes_per_param=bw, batch=b)
        bars = _bars(ax)
        assert len(bars) == 3
        assert bars[0].get_x() + bars[0].get_width() == pytest.approx(st.t_read * 1e3)
        assert bars[2].get_x() + bars[2].get_width() == pytest.approx(st.t_step * 1e3)
        assert hw in ax.get_title()
    assert "memory-bound, 47.9 tokens/s" in axes[0].get_title()
    _close(fig)


def test_explorer_snapshot_keeps_its_text_inside():
    from widget_checks import outside

    fig = figs.explorer_snapshot_figure()
    assert not outside(fig), outside(fig)
