"""Tests for J13 §5-§11: figures, capacity planner, new exercises, notebooks."""
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
from infra_calc import exercises
from bookkit import eval_expressions, stored_values
from infra_calc.figures import FIGURES
from infra_calc.figures import j13_memory as figs
from infra_calc.units import GB, GiB

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "book" / "2_full_speed").glob("0[5-8]_*.ipynb"))
QWEN = ic.model("Qwen3-8B")
W_BF16 = 8190735360 * 2          # Qwen3-8B parameters x 2 bytes
M_KV = 2 * 36 * 8 * 128 * 2      # 2 (K, V) x layers x kv heads x head dim x 2 bytes = 144 KiB


def _rects(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def _close(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)


# --------------------------------------------------------------------------- figures
def test_figures_registered_with_captions():
    for fid, func in (("j13-capacity-4090", figs.capacity_4090), ("j13-tpu-area", figs.tpu_area),
                      ("j13-amdahl", figs.amdahl_curves),
                      ("j13-capacity-planner", figs.capacity_planner_snapshot)):
        assert fid in FIGURES
        assert FIGURES[fid].func is func
        assert len(FIGURES[fid].caption) > 20
        json.dumps(FIGURES[fid].inputs)  # inputs are serialisable for figures.json


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


# --------------------------------------------------------------------------- widget
def test_capacity_planner_updates_in_place():
    from infra_calc.widgets import capacity_planner

    p = capacity_planner()
    fig, ax = p.fig, p.ax
    kv_bar = p.bars["kv"]
    assert "B_max = <b>4</b>" in p.readout.value and "fits" in p.readout.value
    assert math.isclose(kv_bar.get_width(), 4 * 8192 * M_KV / GB)
    assert math.isclose(p.cap_line.get_xdata()[0], 24.0)
    png0 = p.image.value
    assert png0[:8] == b"\x89PNG\r\n\x1a\n"

    p.controls["batch"].value = 5
    assert p.image.value != png0
    assert "does not fit" in p.readout.value
    assert math.isclose(kv_bar.get_width(), 5 * 8192 * M_KV / GB)

    p.controls["reading"].value = "physical GiB"
    assert "B_max = <b>5</b>" in p.readout.value and "does not fit" not in p.readout.value
    assert math.isclose(p.cap_line.get_xdata()[0], 24 * GiB / GB)

    p.controls["context"].value = 16384
    assert p.state().max_batch == 2 and p.state().context == 16384
    assert math.isclose(kv_bar.get_width(), 5 * 16384 * M_KV / GB)
    assert math.isclose(p.bars["workspace"].get_x(), W_BF16 / GB)

    p.controls["bytes_per_param"].value = 1.0
    assert math.isclose(p.bars["weights"].get_width(), W_BF16 / 2 / GB)

    p.controls["workspace_gib"].value = 4.0
    assert math.isclose(p.bars["workspace"].get_width(), 4 * GiB / GB)

    p.controls["accelerator"].value = "H100 SXM"
    p.controls["model"].value = "DeepSeek-R1-Distill-Llama-70B"
    st = p.state()
    expected = ic.max_batch(80 * GiB, ic.model("DeepSeek-R1-Distill-Llama-70B").weight_bytes(1), 4 * GiB,
                            16384, ic.model("DeepSeek-R1-Distill-Llama-70B").kv_bytes_per_token(2))
    assert st.max_batch == expected and f"B_max = <b>{expected}</b>" in p.readout.value
    assert ax.get_xlim()[1] >= max(st.total, st.capacity) / GB
    # same figure and artists throughout
    assert p.fig is fig and p.bars["kv"] is kv_bar and len(_rects(ax)) == 3


# --------------------------------------------------------------------------- exercises
def test_source_exercises_keep_source_answers():
    assert round(exercises.expected("j13-1"), 1) == exercises.get("j13-1").source_answer == 62.1
    assert round(exercises.expected("j13-2"), 1) == exercises.get("j13-2").source_answer == 295.3
    assert exercises.expected("j13-3") == exercises.get("j13-3").source_answer == 4096
    assert exercises.expected("j13-4") == exercises.get("j13-4").source_answer == 4


def _m_star(pi, beta, k=4096, n=4096):
    ridge = pi / beta
    return ridge * k * n / (k * n - ridge * (k + n))


def _padding_cost(rows, tile_rows, k=4096, n=4096, pi=989.4e12, beta=3.35e12):
    padded = -(-rows // tile_rows) * tile_rows
    t_read = 2 * (rows * k + k * n + rows * n) / beta
    return (max(2 * padded * k * n / pi, t_read) / max(2 * rows * k * n / pi, t_read) - 1) * 100


VOCAB_ROWS = 151936 * 4096 * 2 - 4096 * 2        # the untied embedding table, less the row gathered


@pytest.mark.parametrize("ex_id, value", [
    ("j13-n1", _m_star(1307.4e12, 5.3e12)),
    ("j13-n2", 2 * 989.4e12 / 3.35e12),
    ("j13-n3", (24 * GiB - W_BF16 - 2 * GiB) // (4 * M_KV)),
    ("j13-n4", _padding_cost(300, 128)),
    ("j13-n5", (1 - 1 / 2) / (1 - 1 / 4) * 100),
    ("j13-n6", (W_BF16 - VOCAB_ROWS + 4096 * M_KV) / 3.35e12 / 8e-3 * 100),
])
def test_new_exercises_answers(ex_id, value):
    assert math.isclose(exercises.expected(ex_id), value, rel_tol=1e-9)
    assert exercises.check(ex_id, value).correct
    assert not exercises.check(ex_id, value * 1.2 + 1).correct
    sol = exercises.get(ex_id).solution()
    assert sol and "{" not in sol


def test_new_exercise_values_and_count():
    new = [i for i in exercises.exercise_ids("j13") if i.startswith("j13-n")]
    assert new == [f"j13-n{k}" for k in range(1, 7)]
    assert round(exercises.expected("j13-n1")) == 280
    assert exercises.expected("j13-n3") == 12276
    # the boundary is exact: 4 requests fit at S_max tokens, not at S_max + 1
    cap, w, ws = 24 * GiB, QWEN.weight_bytes(2), 2 * GiB
    s_max = exercises.expected("j13-n3")
    assert ic.max_batch(cap, w, ws, s_max, M_KV) == 4 and ic.max_batch(cap, w, ws, s_max + 1, M_KV) == 3
    # Amdahl turned around: the f found gives the target back
    assert math.isclose(ic.amdahl_speedup(exercises.expected("j13-n5") / 100, 4), 2.0)
    # padding in time costs less than the padded FLOPs suggest (compute-bound once padded)
    assert 0 < exercises.expected("j13-n4") < (384 / 300 - 1) * 100


def test_j13_titles_number_the_exercises_in_page_order():
    ids = exercises.exercise_ids("j13")
    assert [exercises.get(i).title for i in ids] == [f"Exercise 2.{k}" for k in range(1, len(ids) + 1)]


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
