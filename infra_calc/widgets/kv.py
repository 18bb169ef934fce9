"""KV explorer (chapter 3): weights, KV cache and compute of one decode step.

Sliders for context and batch; menus for the model, the accelerator and the
KV-cache byte width.  Three bars show the time to read the weights, to read
the KV cache and to do the math; the dashed line is the whole read.  All
numbers come from :func:`infra_calc.kv.model_decode_step`; the plot is drawn
once and its artists are updated in place.
"""
from __future__ import annotations

import html

import ipywidgets as w
from IPython.display import display
from matplotlib.figure import Figure

from ..figures._registry import style
from ..figures.ch3 import KV_EXPLORER_SETTINGS, draw_kv_panel, update_kv_panel
from ..hardware import accelerator_names
from ..kv import critical_context, model_decode_step
from ..models import model, model_names
from ..step import batch_turning_point

__all__ = ["kv_explorer", "BATCH_OPTIONS", "CONTEXT_OPTIONS", "KV_BYTES_OPTIONS"]

BATCH_OPTIONS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
CONTEXT_OPTIONS = (0, 128, 256, 512, 1024, 1458, 2048, 4096, 8192, 16384, 32768)
KV_BYTES_OPTIONS = (("2 (BF16)", 2.0), ("1 (FP8)", 1.0), ("0.5 (4-bit)", 0.5))


def _readout(st, bytes_per_param, kv_bytes) -> str:
    m = model(st.model)
    mkv = m.kv_bytes_per_token(kv_bytes)
    s_max = critical_context(m.active_params, st.hw, mkv)
    b_star = batch_turning_point(st.hw, bytes_per_param, params=m.active_params,
                                 context=st.context, kv_bytes_per_token=mkv)
    b_text = "none (S ≥ S_max)" if b_star == float("inf") else f"{b_star:,.1f}"
    return (f"<b>{html.escape(st.model)}</b> on <b>{html.escape(st.hw)}</b>: weights "
            f"{st.t_weights * 1e3:.2f} ms + KV {st.t_kv * 1e3:.2f} ms = read "
            f"{st.t_read * 1e3:.2f} ms; compute {st.t_compute * 1e3:.3f} ms "
            f"(<b>{st.region} bound</b>)<br>{st.tokens_per_s:,.0f} tokens/s; "
            f"B*(S) = {b_text}; S_max = {s_max:,.0f} tokens")


def kv_explorer(model_name=KV_EXPLORER_SETTINGS["model"], hw=KV_EXPLORER_SETTINGS["hw"],
                batch=KV_EXPLORER_SETTINGS["batch"], context=KV_EXPLORER_SETTINGS["context"],
                kv_bytes_per_element=KV_EXPLORER_SETTINGS["kv_bytes_per_element"],
                bytes_per_param=KV_EXPLORER_SETTINGS["bytes_per_param"]) -> w.VBox:
    """Build the explorer.

    Returns an ``ipywidgets.VBox`` exposing ``.controls`` (dict of widgets),
    ``.readout``, ``.fig``, ``.artists``, ``.state()`` (the current
    :class:`~infra_calc.kv.ModelDecodeStep`) and ``.update()``.
    """
    m_dd = w.Dropdown(options=model_names(), value=model(model_name).name, description="model")
    hw_dd = w.Dropdown(options=accelerator_names(), value=hw, description="accelerator")
    kv_dd = w.Dropdown(options=list(KV_BYTES_OPTIONS), value=float(kv_bytes_per_element),
                       description="KV bytes", style={"description_width": "initial"})
    b_sl = w.SelectionSlider(options=list(BATCH_OPTIONS), value=int(batch), description="batch B",
                             continuous_update=False)
    s_sl = w.SelectionSlider(options=list(CONTEXT_OPTIONS), value=int(context),
                             description="context S", continuous_update=False)
    readout = w.HTML()

    def state():
        spec = model(m_dd.value)
        s = s_sl.value
        if spec.max_position_embeddings:
            s = min(s, spec.max_position_embeddings)
        return model_decode_step(spec, hw_dd.value, batch=b_sl.value, context=s,
                                 bytes_per_param=bytes_per_param,
                                 kv_bytes_per_element=kv_dd.value)

    with style():
        fig = Figure(figsize=(7.0, 2.8))
        ax = fig.add_subplot()
        artists = draw_kv_panel(ax, state())
        fig.tight_layout()
    out = w.Output()

    def update(_=None):
        st = state()
        update_kv_panel(artists, st)
        readout.value = _readout(st, bytes_per_param, kv_dd.value)
        with out:
            out.clear_output(wait=True)
            display(fig)
        return st

    for c in (m_dd, hw_dd, kv_dd, b_sl, s_sl):
        c.observe(update, names="value")
    update()

    box = w.VBox([w.HBox([m_dd, hw_dd, kv_dd]), w.HBox([b_sl, s_sl]), readout, out])
    box.controls = {"model": m_dd, "hw": hw_dd, "kv_bytes": kv_dd, "batch": b_sl, "context": s_sl}
    box.readout = readout
    box.fig = fig
    box.artists = artists
    box.state = state
    box.update = update
    return box
