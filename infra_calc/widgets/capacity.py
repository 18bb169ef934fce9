"""Capacity planner (J13 §5): will this batch fit on this card?

Sliders for context length, batch and workspace, dropdowns for the
accelerator, the model and the bytes per weight (the menus hold the objects
themselves, so a changed card or model keeps its figures), and a toggle between the two
readings of a card's capacity (physical GiB, or the box's number read as
decimal GB).  One horizontal stacked bar (weights, workspace, KV cache) is
drawn once and updated in place (:class:`~infra_calc.widgets._base.Explorer`);
a readout gives the total, the headroom, whether it fits and the largest batch
``B_max``.  The numbers come from
:func:`infra_calc.planner.planner_state`, which calls
:func:`~infra_calc.capacity.capacity_check`, :func:`~infra_calc.capacity.max_batch`
and :func:`~infra_calc.capacity.kv_cache_bytes`.

Units: the bar and the readout are in GB (10⁹ bytes); the workspace slider is in
GiB (2³⁰ bytes, as the source states it), and the readout gives it both ways; the
workspace given to :func:`capacity_planner` is in bytes, converted at the slider.
"""
from __future__ import annotations

import html

import ipywidgets as w

from ..display import in_unit, round_sig, shown, tokens_k
from ..figures.ch2_memory import SEGMENT_COLOURS, SEGMENT_HATCHES, legend_handles, memory_segments
from ..hardware import READINGS
from ..planner import planner_state
from ..units import GiB
from ._base import BYTE_WIDTHS, Explorer, fit_warning, model_and_card_menus
from .moe import nice_ceiling

__all__ = ["CapacityPlanner", "capacity_planner"]


class CapacityPlanner(Explorer):
    """The planner's box; ``controls``, ``readout``, ``fig``, ``bars`` stay the same objects."""

    summary = ("Capacity planner: sliders for context (tokens), batch (requests) and workspace "
               "(GiB), menus for the accelerator, the model and the weight format, and a toggle "
               "between the physical GiB and decimal GB readings of capacity; shows one stacked "
               "bar (weights, workspace, KV cache) against the capacity, whether it fits and "
               "B_max.")
    width_px, height_px = 760, 270

    def __init__(self, model=None, hw=None, *, context=None, batch=None, workspace=None,
                 bytes_per_param=None, reading=None):
        self._start()
        st = planner_state(model, hw, context=context, batch=batch, workspace=workspace,
                           bytes_per_param=bytes_per_param, reading=reading)
        wide = {"description_width": "initial"}
        self.controls = {
            "context": w.FloatLogSlider(value=st.context, base=2, min=10, max=17, step=0.5,
                                        description="context (tokens)", readout_format=",.0f",
                                        continuous_update=False, style=wide),
            "batch": w.IntSlider(value=st.batch, min=1, max=64, description="batch (requests)",
                                 continuous_update=False, style=wide),
            "workspace_gib": w.FloatSlider(value=in_unit(st.memory.workspace, "GiB"), min=0.0, max=16.0,
                                           step=0.25, description="workspace (GiB)", continuous_update=False,
                                           style=wide),
            # the menus hold the objects themselves (a changed model or card keeps its figures)
            **model_and_card_menus(st.model, st.hw),
            "bytes_per_param": w.Dropdown(options=list(BYTE_WIDTHS), value=st.bytes_per_param,
                                          description="bytes per parameter", style=wide),
            "reading": w.ToggleButtons(options=list(READINGS), value=st.reading,
                                       description="capacity reading", style=wide),
        }
        ax = self.fig.add_subplot()
        self.ax = ax
        self.bars = {}
        for key in SEGMENT_COLOURS:
            self.bars[key] = ax.barh(0, 1.0, left=0.0, height=0.5, color=SEGMENT_COLOURS[key],
                                     hatch=SEGMENT_HATCHES[key], edgecolor="white")[0]
        self.cap_line = ax.axvline(1.0, color="black", linestyle="-", linewidth=2.0)
        self.cap_text = ax.text(1.0, 0.36, "", ha="right", va="bottom", fontsize=9)
        ax.set_yticks([])
        ax.set_ylim(-0.5, 0.62)
        ax.set_xlabel("memory (GB = 10⁹ bytes)")
        ax.xaxis.set_major_formatter("{x:,.0f}")
        ax.legend(handles=legend_handles(per_request=False), loc="upper center",
                  bbox_to_anchor=(0.5, -0.35), ncol=3, fontsize=8.5)
        self.title = ax.set_title("", fontsize=10)
        self._use_heading(self.title)
        self.fig.subplots_adjust(bottom=0.42, left=0.03, right=0.97, top=0.95)
        self._animated = [*self.bars.values(), self.cap_line, self.cap_text, self.title]
        c = self.controls
        self._finish([(c["hw"], c["model"], c["bytes_per_param"]),
                      (c["context"], c["batch"], c["workspace_gib"]), (c["reading"],)])

    def state(self):
        """The current :class:`~infra_calc.planner.PlannerState`."""
        c = self.controls
        return planner_state(c["model"].value, c["hw"].value,
                             context=int(round(c["context"].value)), batch=int(c["batch"].value),
                             workspace=c["workspace_gib"].value * GiB,
                             bytes_per_param=float(c["bytes_per_param"].value),
                             reading=c["reading"].value)

    def _update(self):
        st = self.state()
        mem = st.memory
        for key, start, width in memory_segments(mem):
            self.bars[key].set_x(in_unit(start, "GB"))
            self.bars[key].set_width(in_unit(width, "GB"))
        cap = in_unit(mem.capacity, "GB")
        # steady axis: a 1-2-2.5-5 step above the larger of total and capacity
        hi = nice_ceiling(in_unit(max(mem.total, mem.capacity), "GB") * 1.05)
        self.ax.set_xlim(0, hi)
        self.cap_line.set_xdata([cap, cap])
        # the label sits on whichever side of the line has room, so it is never cut
        right_side = cap < 0.45 * hi
        self.cap_text.set_position((cap, 0.36))
        self.cap_text.set_horizontalalignment("left" if right_side else "right")
        self.cap_text.set_text((" " if right_side else "") + f"capacity {shown(mem.capacity, 'GB')}"
                               + ("" if right_side else " "))
        self.title.set_text(f"{st.model.name} on {st.hw.name}: {st.batch} × "
                            f"{tokens_k(st.context)} tokens")
        verdict = ("<b style='color:#009E73'>fits</b>" if st.fits
                   else "<b style='color:#D55E00'>does not fit</b>")
        warn = "" if st.fits else fit_warning(
            st.hw, mem.total, capacity=mem.capacity,
            then=f"At most {st.max_batch} requests of {tokens_k(st.context)} tokens fit.")
        self.readout.value = warn + (
            f"total {shown(mem.total, 'GB')} = weights {shown(mem.weights, 'GB', bare=True)} + "
            f"workspace {shown(mem.workspace, 'GB', bare=True)} ({round_sig(mem.workspace, 'GiB')}) + "
            f"KV {shown(mem.kv, 'GB')} "
            f"({st.batch} × {shown(st.kv_per_request, 'GB', 3)})<br>"
            f"capacity {shown(mem.capacity, 'GB')} ({html.escape(st.reading)}), headroom "
            f"{'+' if mem.headroom >= 0 else '−'}{shown(abs(mem.headroom), 'GB')}: {verdict}; "
            f"B_max = <b>{st.max_batch}</b> requests of {tokens_k(st.context)} tokens")
        return st


def capacity_planner(model=None, hw=None, *, batch=None, context=None, bytes_per_param=None,
                     workspace=None, reading=None) -> CapacityPlanner:
    """Build the planner; inputs left at None start it on the source's RTX 4090 case
    (:func:`~infra_calc.planner.planner_state`'s defaults).  ``workspace`` is in bytes, as
    everywhere in the library; only the slider shows it in GiB.

    Returns
    -------
    CapacityPlanner
        An ``ipywidgets.VBox``.  For scripting and tests it also carries
        ``.controls`` (dict of the input widgets), ``.readout`` (HTML widget),
        ``.fig``, ``.ax``, ``.bars`` (dict of the three bar patches),
        ``.cap_line``, ``.image`` and ``.state()`` (the current
        :class:`~infra_calc.planner.PlannerState`).
    """
    return CapacityPlanner(model, hw, context=context, batch=batch, workspace=workspace,
                           bytes_per_param=bytes_per_param, reading=reading)
