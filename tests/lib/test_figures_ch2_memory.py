"""infra_calc.figures.ch2_memory: the capacity, TPU-area and Amdahl figures."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from infra_calc.display import shown, tokens_k
from infra_calc.figures import FIGURES
from infra_calc.figures import ch2_memory as figs
from infra_calc.units import GB, GiB

W_BF16 = 8190735360 * 2          # Qwen3-8B parameters x 2 bytes
M_KV = 2 * 36 * 8 * 128 * 2      # 2 (K, V) x layers x kv heads x head dim x 2 bytes = 144 KiB


def _rects(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def _close(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)


# --------------------------------------------------------------------------- figures
def test_captions_state_what_the_figures_draw():
    """Each caption names the inputs its figure is drawn from (a changed default that the
    caption still contradicts fails here); the inputs are serialisable for figures.json."""
    words = dict(enumerate("zero one two three four five six seven".split()))
    cap = FIGURES["j13-capacity-4090"]
    got = cap.inputs
    assert f"{got['model']} in BF16 on an {got['hw']}" in cap.caption and got["bytes_per_param"] == 2
    assert f"{shown(got['workspace'], 'GiB', 0)} workspace" in cap.caption
    assert f"{' or '.join(words[b] for b in got['batches'])} {tokens_k(got['context'])}-token" \
        in cap.caption
    planner = FIGURES["j13-capacity-planner"]
    assert f"at {words[len(planner.inputs['settings'])]} settings" in planner.caption
    assert "1/(1 − f)" in FIGURES["j13-amdahl"].caption and FIGURES["j13-amdahl"].inputs["fractions"]
    assert "Jouppi" in FIGURES["j13-tpu-area"].caption
    for fid in ("j13-capacity-4090", "j13-tpu-area", "j13-amdahl", "j13-capacity-planner"):
        json.dumps(FIGURES[fid].inputs)


def test_capacity_4090_bars_and_capacity_lines():
    fig = figs.capacity_4090()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert "GB" in ax.get_ylabel() and ax.get_xlabel()
    bars = _rects(ax)
    # weights + workspace + one block per request, for 4 and for 5 requests
    assert len(bars) == (2 + 4) + (2 + 5)
    tops = sorted({round(b.get_y() + b.get_height(), 9) for b in bars})
    one8 = 8192 * M_KV
    total4 = W_BF16 + 2 * GiB + 4 * one8
    total5 = total4 + one8
    assert math.isclose(tops[-1], total5 / GB, rel_tol=1e-9)
    assert any(math.isclose(t, total4 / GB, rel_tol=1e-9) for t in tops)
    hlines = sorted(ln.get_ydata()[0] for ln in ax.get_lines())
    assert np.allclose(hlines, [24.0, 24 * GiB / GB])
    # the fifth request crosses the source's line but not the physical one
    assert 24.0 < total5 / GB < 24 * GiB / GB
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["4 × 8K requests", "5 × 8K requests"]
    assert {b.get_hatch() for b in bars} >= {"//", ".."}
    _close(fig)


@pytest.mark.parametrize("hw, n", [("RTX 4090", 24), ("L40S", 48), ("H100 SXM", 80)])
def test_capacity_lines_name_the_cards_own_label(hw, n):
    """The two capacity lines read the card's label "N GB" both ways, whatever N is."""
    fig = figs.capacity_4090(hw=hw)
    labels = [ln.get_label() for ln in fig.axes[0].get_lines()]
    assert labels == [f"capacity, source reading: {n}e9 B = {n:.2f} GB",
                      f"capacity, physical: {n} GiB = {n * GiB / GB:.2f} GB"]
    _close(fig)


def test_tpu_area_two_stacked_bars():
    fig = figs.tpu_area()
    ax = fig.axes[0]
    assert "%" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Source's table", "Jouppi et al. 2017, Fig. 2"]
    bars = _rects(ax)
    row0 = sorted((b.get_x(), b.get_width()) for b in bars if abs(b.get_y() + b.get_height() / 2) < 1e-9)
    row1 = sorted((b.get_x(), b.get_width()) for b in bars if abs(b.get_y() + b.get_height() / 2 - 1) < 1e-9)
    assert np.allclose([w for _, w in row0], [37, 30, 2, 31])       # last = not given
    assert np.allclose([w for _, w in row1], [37, 30, 10, 2, 21])
    assert sum(1 for b in bars if b.get_hatch()) >= 7
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("37%") == 2 and "10%" in texts
    _close(fig)


def test_amdahl_curves_and_asymptotes():
    fig = figs.amdahl_curves()
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert ax.get_xlabel() and ax.get_ylabel()
    lines = ax.get_lines()
    curves = [ln for ln in lines if len(ln.get_xdata()) > 10]
    assert len(curves) == 3
    x, y = curves[0].get_xdata(), curves[0].get_ydata()
    assert np.allclose(y, 1 / (0.4 + 0.6 / x))
    flat = sorted(ln.get_ydata()[0] for ln in lines
                  if ln.get_linestyle() == "--" and len(ln.get_xdata()) == 2)
    assert np.allclose(flat, [2.5, 5.0, 10.0])
    marked = [ln for ln in lines if ln.get_marker() not in (None, "None", "")]
    assert np.allclose(marked[0].get_ydata(), [1 / 0.7, 1 / 0.55])
    _close(fig)


def test_capacity_planner_snapshot_rows():
    fig = figs.capacity_planner_snapshot()
    ax = fig.axes[0]
    assert "capacity" in ax.get_xlabel()
    bars = _rects(ax)
    assert len(bars) == 3 * len(figs._SNAPSHOT_SETTINGS)
    first = sorted((b for b in bars if abs(b.get_y() + b.get_height() / 2) < 1e-9), key=lambda b: b.get_x())
    total4 = W_BF16 + 2 * GiB + 4 * 8192 * M_KV
    assert math.isclose(sum(b.get_width() for b in first), total4 / 24e9 * 100, rel_tol=1e-9)
    texts = " ".join(t.get_text() for t in ax.texts)
    assert "B_max = 4" in texts and "B_max = 5" in texts and "exceeds" in texts
    _close(fig)




def test_memory_segments_stack_weights_workspace_kv_to_the_total():
    from infra_calc.figures.ch2_memory import memory_segments
    from infra_calc.planner import planner_state
    mem = planner_state("qwen3-8b", "RTX 4090", context=8192, batch=4, workspace=2 * 2**30,
                        bytes_per_param=2.0, reading="decimal GB").memory
    segs = memory_segments(mem)
    assert [k for k, _, _ in segs] == ["weights", "workspace", "kv"]
    assert [w for _, _, w in segs] == [mem.weights, mem.workspace, mem.kv]
    for (_, left, width), (_, nxt, _) in zip(segs, segs[1:], strict=False):
        assert nxt == left + width            # each segment starts where the last ended
    assert segs[-1][1] + segs[-1][2] == pytest.approx(mem.total, rel=1e-15)
