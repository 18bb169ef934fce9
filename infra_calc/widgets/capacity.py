"""Capacity planner (J13 §5): will this batch fit on this card?

Sliders for context length, batch and workspace, dropdowns for the
accelerator, the model and the bytes per weight, and a toggle between the two
readings of a card's capacity (physical GiB, or the box's number read as
decimal GB).  One horizontal stacked bar (weights, workspace, KV cache) is
drawn once and updated in place (and shown as a PNG image widget, so no
interactive matplotlib backend is needed); a readout gives the total, the headroom,
whether it fits and the largest batch ``B_max``.  The numbers come from
:func:`infra_calc.figures.j13_memory.planner_state`, which calls
:func:`~infra_calc.capacity.capacity_check`, :func:`~infra_calc.capacity.max_batch`
and :func:`~infra_calc.capacity.kv_cache_bytes`.
"""
from __future__ import annotations

import html
import io

import ipywidgets as w
from matplotlib.figure import Figure

from .. import source as S
from ..figures._registry import style
from ..figures.j13_memory import (_SEG_COLOURS, _SEG_HATCH, READINGS, _legend_handles,
                                  planner_state)
from ..hardware import accelerator_names
from ..models import model_names
from ..units import GB, GiB

__all__ = ["capacity_planner", "BYTES_PER_PARAM_OPTIONS"]

#: Weight formats offered by the planner: label -> bytes per parameter.
BYTES_PER_PARAM_OPTIONS = (("BF16 / FP16 (2 B)", 2.0), ("FP8 / INT8 (1 B)", 1.0),
                           ("INT4 (0.5 B)", 0.5))


def _fmt_ctx(tokens: float) -> str:
    return f"{tokens / 1024:g}K"


def capacity_planner(accelerator: str = "RTX 4090", model: str = S.J13_MODEL,
                     context: int = S.J13_CONTEXTS[0], batch: int = 4,
                     workspace_gib: float = S.J13_WORKSPACE / GiB, bytes_per_param: float = 2.0,
                     reading: str = "decimal GB") -> "w.VBox":
    """Build the planner; the defaults are the source's RTX 4090 case.

    Returns
    -------
    ipywidgets.VBox
        The widget.  For scripting and tests it also carries ``.controls``
        (dict of the input widgets), ``.readout`` (HTML widget), ``.fig``,
        ``.ax``, ``.bars`` (dict of the three bar patches), ``.cap_line``, ``.image``
        and ``.state()`` (the current :class:`~infra_calc.figures.j13_memory.PlannerState`).
    """
    controls = {
        "context": w.FloatLogSlider(value=context, base=2, min=10, max=17, step=0.5,
                                    description="context (tokens)", readout_format=".0f",
                                    continuous_update=False, style={"description_width": "initial"}),
        "batch": w.IntSlider(value=batch, min=1, max=64, description="batch (requests)",
                             continuous_update=False, style={"description_width": "initial"}),
        "workspace_gib": w.FloatSlider(value=workspace_gib, min=0.0, max=16.0, step=0.25,
                                       description="workspace (GiB)", continuous_update=False,
                                       style={"description_width": "initial"}),
        "accelerator": w.Dropdown(options=accelerator_names(), value=accelerator,
                                  description="accelerator"),
        "model": w.Dropdown(options=model_names(), value=model, description="model"),
        "bytes_per_param": w.Dropdown(options=BYTES_PER_PARAM_OPTIONS, value=float(bytes_per_param),
                                      description="weights"),
        "reading": w.ToggleButtons(options=list(READINGS), value=reading,
                                   description="capacity reading", style={"description_width": "initial"}),
    }
    readout = w.HTML()
    image = w.Image(format="png")

    with style():
        fig = Figure(figsize=(7.0, 2.6))
        ax = fig.add_subplot()
        bars = {}
        for key in ("weights", "workspace", "kv"):
            bars[key] = ax.barh(0, 1.0, left=0.0, height=0.5, color=_SEG_COLOURS[key],
                                hatch=_SEG_HATCH[key], edgecolor="white")[0]
        cap_line = ax.axvline(1.0, color="black", linestyle="-", linewidth=2.0)
        cap_text = ax.text(1.0, 0.36, "", ha="right", va="bottom", fontsize=9)
        ax.set_yticks([])
        ax.set_ylim(-0.5, 0.62)
        ax.set_xlabel("memory (GB = 10⁹ bytes)")
        ax.legend(handles=_legend_handles(per_request=False), loc="upper center",
                  bbox_to_anchor=(0.5, -0.35), ncol=3, fontsize=8.5)
        fig.subplots_adjust(bottom=0.42, left=0.04, right=0.97, top=0.88)

    def current():
        c = controls
        return planner_state(c["accelerator"].value, c["model"].value, int(round(c["context"].value)),
                             int(c["batch"].value), c["workspace_gib"].value * GiB,
                             float(c["bytes_per_param"].value), c["reading"].value)

    def update(_=None):
        st = current()
        left = 0.0
        for key, val in (("weights", st.weights), ("workspace", st.workspace), ("kv", st.kv)):
            bars[key].set_x(left / GB)
            bars[key].set_width(val / GB)
            left += val
        cap = st.capacity / GB
        cap_line.set_xdata([cap, cap])
        cap_text.set_position((cap, 0.36))
        cap_text.set_text(f"capacity {cap:.2f} GB ")
        ax.set_xlim(0, max(st.total, st.capacity) / GB * 1.08)
        ax.set_title(f"{st.model} on {st.accelerator}: {st.batch} × {_fmt_ctx(st.context)} tokens",
                     fontsize=10)
        verdict = ("<b style='color:#009E73'>fits</b>" if st.fits
                   else "<b style='color:#D55E00'>does not fit</b>")
        readout.value = (
            f"total {st.total / GB:.2f} GB = weights {st.weights / GB:.2f} + workspace "
            f"{st.workspace / GB:.2f} + KV {st.kv / GB:.2f} GB "
            f"({st.batch} × {st.kv_per_request / GB:.3f} GB)<br>"
            f"capacity {st.capacity / GB:.2f} GB ({html.escape(st.reading)}), headroom "
            f"{st.headroom / GB:+.2f} GB: {verdict}; "
            f"B_max = <b>{st.b_max}</b> requests of {_fmt_ctx(st.context)} tokens")
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
        image.value = buf.getvalue()

    for c in controls.values():
        c.observe(update, names="value")
    update()

    box = w.VBox([
        w.HBox([controls["accelerator"], controls["model"], controls["bytes_per_param"]]),
        w.HBox([controls["context"], controls["batch"], controls["workspace_gib"]]),
        controls["reading"], readout, image,
    ])
    box.controls = controls
    box.readout = readout
    box.fig = fig
    box.ax = ax
    box.bars = bars
    box.cap_line = cap_line
    box.image = image
    box.state = current
    box.update = update
    return box
