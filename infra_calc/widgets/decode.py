"""Decode-step explorer (J07): read, compute and step time of one decode step.

Pick an accelerator, the parameter count, the bytes stored per parameter and
the batch size; the explorer shows the two lower bounds, the step time (their
maximum), tokens per second and which bound decides.  All numbers come from
:func:`infra_calc.step.decode_step`; the plot is drawn once and its artists
are updated in place.
"""
from __future__ import annotations

import html

import ipywidgets as w
from IPython.display import display
from matplotlib.figure import Figure

from .. import source as S
from ..hardware import accelerator_names
from ..step import batch_turning_point, decode_step
from ..figures._registry import style
from ..figures.j07 import draw_decode_panel, update_decode_panel

__all__ = ["decode_step_explorer", "BATCH_OPTIONS", "BYTES_OPTIONS"]

#: batch sizes offered by the slider: roughly even steps on a log scale, 1 … 512
BATCH_OPTIONS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 148, 192, 256, 384, 512)
#: bytes per parameter: 16-bit, 8-bit, 4-bit weights
BYTES_OPTIONS = (("2 (16-bit)", 2.0), ("1 (8-bit)", 1.0), ("0.5 (4-bit)", 0.5))


def _readout(st) -> str:
    b_star = batch_turning_point(st.hw, st.bytes_per_param)
    return (
        f"<b>{html.escape(st.hw)}</b>: read {st.t_read * 1e3:.3f} ms, compute "
        f"{st.t_compute * 1e3:.4f} ms, step {st.t_step * 1e3:.3f} ms "
        f"(<b>{st.bound}-bound</b>, read/compute = {st.ratio:.1f}×)<br>"
        f"{st.tokens_per_s:,.1f} tokens/s; read per output {st.read_time_per_output * 1e3:.3f} ms; "
        f"B* = {b_star:.1f}"
    )


def decode_step_explorer(hw="H100 SXM", params_billion=S.J07_PARAMS / 1e9,
                         bytes_per_param=S.J07_BYTES_PER_PARAM, batch=1) -> "w.VBox":
    """Build the explorer.

    Returns an ``ipywidgets.VBox`` holding the controls, a text readout and the
    matplotlib figure.  For tests the box exposes ``.controls`` (dict of
    widgets), ``.readout`` (HTML widget), ``.fig``, ``.artists`` (from
    :func:`~infra_calc.figures.j07.draw_decode_panel`), ``.state()`` (the
    current :class:`~infra_calc.step.DecodeStep`) and ``.update()``.
    """
    names = accelerator_names()
    hw_dd = w.Dropdown(options=names, value=hw, description="accelerator")
    n_sl = w.FloatLogSlider(value=params_billion, base=10, min=0, max=3, step=0.01,
                            description="params (B)", readout_format=".3g", continuous_update=False,
                            style={"description_width": "initial"})
    bw_dd = w.Dropdown(options=list(BYTES_OPTIONS), value=float(bytes_per_param),
                       description="bytes/param", style={"description_width": "initial"})
    b_sl = w.SelectionSlider(options=list(BATCH_OPTIONS), value=int(batch), description="batch B",
                             continuous_update=False)
    readout = w.HTML()

    def state():
        return decode_step(n_sl.value * 1e9, bw_dd.value, hw_dd.value, batch=b_sl.value)

    with style():
        fig = Figure(figsize=(7.0, 3.0))
        ax = fig.add_subplot()
        artists = draw_decode_panel(ax, state())
        fig.tight_layout()
    out = w.Output()

    def update(_=None):
        st = state()
        update_decode_panel(artists, st)
        readout.value = _readout(st)
        with out:
            out.clear_output(wait=True)
            display(fig)
        return st

    for c in (hw_dd, n_sl, bw_dd, b_sl):
        c.observe(update, names="value")
    update()

    box = w.VBox([w.HBox([hw_dd, bw_dd]), w.HBox([n_sl, b_sl]), readout, out])
    box.controls = {"hw": hw_dd, "params": n_sl, "bytes_per_param": bw_dd, "batch": b_sl}
    box.readout = readout
    box.fig = fig
    box.artists = artists
    box.state = state
    box.update = update
    return box
