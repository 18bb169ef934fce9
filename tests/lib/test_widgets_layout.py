"""The explorers' layout without a browser (issue 18 §5): nothing drawn outside the
image, titles as HTML lines, one number format, a warning when a setting does not
fit, a model menu for the decode explorer, the roofline's label clear of the line.

What a reader sees at 1280 px in JupyterLab is tests/e2e/test_lab_explorers.py.
"""
from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

import infra_calc as ic  # noqa: E402
from infra_calc.figures import ch3, j07, j13  # noqa: E402
from infra_calc.widgets import (  # noqa: E402
    EXPLORERS,
    capacity_planner,
    decode_step_explorer,
    kv_explorer,
    roofline_explorer,
)
from infra_calc.widgets.decode import OTHER  # noqa: E402


def outside(fig, rendered: bool = False) -> list[str]:
    """What the figure draws beyond its own edges (a cut title or tick label).

    ``rendered``: an explorer's figure that its last refresh has just rendered (its image
    is what a reader sees); the extents are measured with that render's renderer instead
    of drawing the whole figure again (the same boxes: text extents come from the
    renderer's font metrics, the tick labels are brought up to date when asked for).
    """
    if not hasattr(fig.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    if not rendered:
        fig.canvas.draw()
    r = fig.canvas.get_renderer()
    w, h = fig.bbox.width, fig.bbox.height
    bad = []
    for ax in fig.axes:
        for art in [*ax.texts, ax.title, *ax.get_xticklabels(), *ax.get_yticklabels(),
                    ax.xaxis.label, ax.yaxis.label]:
            if not art.get_visible() or not art.get_text():
                continue
            if art in ax.get_xticklabels() and not (
                    min(ax.get_xlim()) <= art.get_position()[0] <= max(ax.get_xlim())):
                continue        # a tick beyond the view is not drawn
            if art in ax.get_yticklabels() and not (
                    min(ax.get_ylim()) <= art.get_position()[1] <= max(ax.get_ylim())):
                continue
            b = art.get_window_extent(r)
            if b.x0 < -0.5 or b.y0 < -0.5 or b.x1 > w + 0.5 or b.y1 > h + 0.5:
                bad.append(f"{art.get_text()!r} at x {b.x0:.0f}–{b.x1:.0f} of {w:.0f}, "
                           f"y {b.y0:.0f}–{b.y1:.0f} of {h:.0f}")
    return bad


@pytest.mark.parametrize("make", EXPLORERS, ids=lambda f: f.__name__)
def test_title_is_an_html_line_not_drawn_in_the_image(make):
    ex = make()
    assert ex.title_artist is not None and not ex.title_artist.get_visible()
    first = ex.title_artist.get_text().split("\n")[0]
    assert first and first.replace("&", "&amp;") in ex.heading.value
    assert "ic-title" in ex.heading._dom_classes and not outside(ex.fig)


def each_setting(controls, grid: dict):
    """Every combination of ``grid``'s values (control name -> values), one control moved
    per step (a reflected Gray order: one refresh per combination, none redundant);
    yields each combination once its controls are set.  A callable value is asked for
    the value when the control is set (``lambda control: max(control.options)``), after
    the controls before it in ``grid``."""
    def walk(names):
        if not names:
            yield ()
            return
        rest = list(walk(names[1:]))
        for j, value in enumerate(grid[names[0]]):
            for tail in (rest if j % 2 == 0 else reversed(rest)):
                yield (value, *tail)

    names = list(grid)
    for combo in walk(names):
        for name, value in zip(names, combo, strict=True):
            control = controls[name]
            control.value = value(control) if callable(value) else value  # unchanged: no refresh
        yield tuple(controls[name].value for name in names)


def test_each_setting_visits_every_combination_moving_one_control():
    class Control:
        value = None
    controls = {"a": Control(), "b": Control(), "c": Control()}
    grid = {"a": (1, 2, 3), "b": ("x", "y"), "c": (0, lambda control: 9)}
    seen = []
    for combo in each_setting(controls, grid):
        assert combo == tuple(controls[n].value for n in grid)
        seen.append(combo)
    grid["c"] = (0, 9)
    assert sorted(seen, key=str) == sorted(itertools.product(*grid.values()), key=str)
    assert all(sum(x != y for x, y in zip(a, b, strict=True)) == 1
               for a, b in itertools.pairwise(seen))


def test_kv_explorer_draws_nothing_outside_at_any_setting():
    ex = kv_explorer()
    c = ex.controls
    grid = {"model": [ic.model(name) for name in ic.model_names()], "batch": (1, 1024),
            "context": (0, lambda control: max(control.options))}   # the model's longest
    for model, batch, ctx in each_setting(c, grid):
        bad = outside(ex.fig, rendered=True)
        assert not bad, (model.name, batch, ctx, bad)


def test_kv_numbers_follow_one_rule():
    """Every computed time with 4 significant figures: '3,282 ms' and '146.0 ms', never
    '3282.12 ms' next to '146.042 ms'."""
    ex = kv_explorer(batch=1024, context=32768 // 8)
    for text in (ex.readout.value, ex.heading.value):
        for number in re.findall(r"([\d,.]+) ms", text):
            digits = number.replace(",", "").replace(".", "").lstrip("0")
            assert len(digits) == 4 or ("." not in number and len(digits) > 4), (number, text)


def test_kv_warns_exactly_when_it_does_not_fit():
    ex = kv_explorer()
    assert not ex.state().fits and "ic-warning" in ex.readout.value
    assert "does not fit" in ex.heading.value
    ex.controls["model"].value = ic.model("Llama-3.1-8B")
    ex.controls["batch"].value = 1
    assert ex.state().fits and "ic-warning" not in ex.readout.value
    assert "does not fit" not in ex.heading.value


def test_capacity_warns_exactly_when_it_does_not_fit():
    p = capacity_planner()
    assert p.state().fits and "ic-warning" not in p.readout.value
    p.controls["batch"].value = 64
    assert not p.state().fits and "ic-warning" in p.readout.value


def test_kv_snapshot_figure_keeps_its_title_inside():
    fig = ch3.kv_explorer_snapshot_figure()
    assert not outside(fig), outside(fig)
    assert "does not fit" in fig.axes[0].get_title()


@pytest.mark.parametrize("figure", [j07.explorer_snapshot_figure, j13.roofline_explorer_snapshot],
                         ids=lambda f: f.__name__)
def test_other_snapshot_figures_keep_their_text_inside(figure):
    fig = figure()
    assert not outside(fig), outside(fig)


# ------------------------------------------------------------------ decode explorer
def test_decode_menu_holds_catalog_models_and_a_typed_count():
    ex = decode_step_explorer()
    c = ex.controls
    labels = list(c["model"].options)
    assert any(label.startswith("Llama-3.1-8B (") for label in labels) and OTHER in labels
    assert not any("Mixtral" in label for label in labels)      # MoE: not every weight read
    assert c["model"].value.startswith("the chapter's model")
    c["model"].value = next(x for x in labels if x.startswith("Llama-3.1-8B"))
    assert c["params"].value == pytest.approx(ic.model("Llama-3.1-8B").params / 1e9)
    assert ex.state().params == pytest.approx(ic.model("Llama-3.1-8B").params)
    c["params"].value = 3.46737
    assert c["model"].value == OTHER and ex.state().params == pytest.approx(3.46737e9)
    assert "N = 3.47 billion" in ex.heading.value


def test_decode_title_rounds_the_parameter_count():
    st = ic.decode_step(3.46737e9, "H100 SXM", bytes_per_param=2)
    assert "N = 3.47 billion" in j07._panel_text(st)


def test_decode_explorer_draws_nothing_outside():
    ex = decode_step_explorer()
    for params, batch in ((1.0, 1), (1000.0, 512), (3.46737, 8)):
        ex.controls["params"].value = params
        ex.controls["batch"].value = batch
        assert not outside(ex.fig), outside(ex.fig)


# ------------------------------------------------------------------ roofline explorer
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
