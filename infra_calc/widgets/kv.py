"""KV explorer (chapter 3): weights, KV cache and compute of one decode step.

Sliders for context and batch; menus for the model, the accelerator and the
KV-cache byte width.  Three bars show the time to read the weights, to read
the KV cache and to do the math; the dashed line is the whole read.  All
numbers come from :func:`infra_calc.decode.model_decode_step`; the plot is drawn
once and its artists are updated in place (:class:`~infra_calc.widgets._base.Explorer`).
"""
from __future__ import annotations

import html

import ipywidgets as w

from ..decode import model_decode_step
from ..display import in_unit, sig
from ..figures.ch3 import KV_EXPLORER_SETTINGS, draw_kv_panel, update_kv_panel
from ..kv import critical_context, turning_batch
from ._base import BYTE_WIDTHS, Explorer, fit_warning, model_and_card_menus, ms
from .moe import nice_ceiling

__all__ = ["KvExplorer", "kv_explorer", "BATCH_OPTIONS", "CONTEXT_OPTIONS"]

BATCH_OPTIONS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
CONTEXT_OPTIONS = (0, 128, 256, 512, 1024, 1458, 2048, 4096, 8192, 16384, 32768)


def _readout(st, bytes_per_param, kv_bytes_per_element, capped=None) -> str:
    """The readout's lines; every computed value with 4 significant figures (:func:`sig`)."""
    kw = dict(bytes_per_param=bytes_per_param, kv_bytes_per_element=kv_bytes_per_element)
    s_max = critical_context(st.model, st.hw, **kw)
    b_star = turning_batch(st.model, st.hw, context=st.context, **kw)
    b_text = "none (S ≥ S_max)" if b_star == float("inf") else f"{sig(b_star)} requests"
    s_text = "∞" if s_max == float("inf") else f"{sig(s_max)} tokens"
    warn = "" if st.fits else fit_warning(st.hw, st.memory_per_card, bars="it fitted")
    cap = ("" if capped is None else
           f"<br>context capped at {capped:,} tokens, the model's max_position_embeddings")
    return (f"{warn}<b>{html.escape(st.model.name)}</b> on <b>{html.escape(st.hw.name)}</b>: "
            f"weights {ms(st.t_weights)} + KV {ms(st.t_kv)} = read {ms(st.t_read)}; compute "
            f"{ms(st.t_compute)} (<b>{st.region} bound</b>)<br>{sig(st.tokens_per_s)} tokens/s; "
            f"B*(S) = {b_text}; S_max = {s_text}{cap}")


class KvExplorer(Explorer):
    """The KV explorer; ``controls``, ``readout``, ``fig``, ``artists`` stay the same objects."""

    summary = ("KV explorer: sliders for batch (requests) and context (tokens), menus for the "
               "model, the accelerator and the KV-cache bytes; shows the time to read the "
               "weights, to read the KV cache and to do the math of one decode step as bars, "
               "with tokens/s, B*(S) and S_max.")
    width_px, height_px = 720, 300

    def __init__(self, model, hw, batch, context, kv_bytes_per_element, bytes_per_param):
        self._start()
        self.bytes_per_param = bytes_per_param
        self.capped = None
        self._fitting = False
        # the menus hold the objects themselves (a changed model or card keeps its figures)
        self.controls = {
            **model_and_card_menus(model, hw),
            "kv_bytes_per_element": w.Dropdown(options=list(BYTE_WIDTHS),
                                               value=float(kv_bytes_per_element),
                                               description="KV bytes per element",
                                               style={"description_width": "initial"},
                                               layout=w.Layout(width="22em")),
            "batch": w.SelectionSlider(options=list(BATCH_OPTIONS), value=int(batch),
                                       description="batch (requests)", continuous_update=False,
                                       style={"description_width": "initial"}),
            "context": w.SelectionSlider(options=list(CONTEXT_OPTIONS), value=int(context),
                                         description="context (tokens)", continuous_update=False,
                                         style={"description_width": "initial"}),
        }
        self.ax = self.fig.add_subplot()
        self.artists = draw_kv_panel(self.ax, self.state())
        self._use_heading(self.artists["title"])
        self.fig.tight_layout()
        # room on the right for the last x tick's label, whatever the axis end becomes
        self.fig.subplots_adjust(right=min(self.fig.subplotpars.right, 1 - 30 / self.width_px))
        a = self.artists
        # the legend after the read line: drawn over it, as in the static figure
        self._animated = [*a["bars"], a["read_line"], a["legend"], a["title"]]
        c = self.controls
        self._finish([(c["model"], c["hw"], c["kv_bytes_per_element"]), (c["batch"], c["context"])])

    def state(self):
        """The current :class:`~infra_calc.decode.ModelDecodeStep`.

        A context above the model's ``max_position_embeddings`` is not
        computed: the context slider is moved to the model's limit first, and
        the readout says so (:meth:`_fit_context`).
        """
        c = self.controls
        self._fit_context()
        return model_decode_step(c["model"].value, c["hw"].value, batch=c["batch"].value,
                                 context=c["context"].value, bytes_per_param=self.bytes_per_param,
                                 kv_bytes_per_element=c["kv_bytes_per_element"].value)

    def _fit_context(self):
        """Offer only the contexts the model was built for; move the slider if it is beyond."""
        if self._fitting:           # the slider is being moved below: keep the note
            return
        c = self.controls
        limit = c["model"].value.max_position_embeddings or max(CONTEXT_OPTIONS)
        allowed = [x for x in CONTEXT_OPTIONS if x <= limit]
        if limit not in allowed and limit < max(CONTEXT_OPTIONS):
            allowed.append(limit)
        value = c["context"].value
        self.capped = limit if value > limit else None
        if list(c["context"].options) != allowed or value > limit:
            self._fitting = True
            try:
                c["context"].options = allowed
                c["context"].value = min(value, limit)
            finally:
                self._fitting = False

    def _update(self):
        st = self.state()
        update_kv_panel(self.artists, st)
        # a steady axis: it moves only when the longest bar crosses a 1-2-2.5-5 step
        longest = in_unit(max(st.t_weights + st.t_kv, st.t_compute), "ms")
        self.ax.set_xlim(0, nice_ceiling(longest * 1.15))
        self.readout.value = _readout(st, self.bytes_per_param,
                                      self.controls["kv_bytes_per_element"].value, self.capped)
        return st


def kv_explorer(model=KV_EXPLORER_SETTINGS["model"], hw=KV_EXPLORER_SETTINGS["hw"], *,
                batch=KV_EXPLORER_SETTINGS["batch"], context=KV_EXPLORER_SETTINGS["context"],
                bytes_per_param=KV_EXPLORER_SETTINGS["bytes_per_param"],
                kv_bytes_per_element=KV_EXPLORER_SETTINGS["kv_bytes_per_element"]) -> KvExplorer:
    """Build the explorer.

    Returns a :class:`KvExplorer` (an ``ipywidgets.VBox``) exposing ``.controls``
    (dict of widgets), ``.readout``, ``.fig``, ``.artists``, ``.image``,
    ``.state()`` (the current :class:`~infra_calc.decode.ModelDecodeStep`) and
    ``.update()``.
    """
    return KvExplorer(model, hw, batch, context, kv_bytes_per_element, bytes_per_param)
