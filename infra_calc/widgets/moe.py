"""MoE padding explorer (J13): how routing skew changes the rows a matrix unit runs.

Routing comes from :func:`infra_calc.route_tokens`, padding from
:func:`infra_calc.padded_rows`.  The bar chart is built once and its bars are
resized in place (``set_height``) on every control change.
"""
from __future__ import annotations

import html
import io

import ipywidgets as w
from matplotlib.figure import Figure

from .. import source as S
from ..figures._registry import style
from ..figures.j13 import moe_axes, update_moe_axes

__all__ = ["MoePaddingExplorer", "moe_padding_explorer"]


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
    return buf.getvalue()


class MoePaddingExplorer(w.VBox):
    """The explorer's box; ``fig``, ``artists``, ``controls``, ``readout`` stay the same objects."""

    def __init__(self, tokens=S.MOE_TOKENS, experts=S.MOE_EXPERTS, top_k=S.MOE_TOP_K, skew=0.0,
                 tile_rows=S.MOE_TILE_ROWS):
        self.controls = {
            "tokens": w.IntSlider(value=tokens, min=1, max=1024, description="tokens",
                                  continuous_update=False),
            "experts": w.IntSlider(value=experts, min=1, max=512, description="experts",
                                   continuous_update=False),
            "top_k": w.IntSlider(value=top_k, min=1, max=16, description="top-k",
                                 continuous_update=False),
            "skew": w.FloatSlider(value=skew, min=0.0, max=1.0, step=0.05, description="skew",
                                  continuous_update=False),
            "tile_rows": w.Dropdown(options=[1, 8, 16, 32, 64, 128], value=tile_rows,
                                    description="tile rows"),
        }
        with style():
            self.fig = Figure(figsize=(6.0, 3.8))
            self.ax = self.fig.subplots()
            self.artists = moe_axes(self.ax)
        self.image = w.Image(format="png")
        self.readout = w.HTML()
        self.result = None
        for c in self.controls.values():
            c.observe(self.update, names="value")
        c = self.controls
        super().__init__([w.HBox([c["tokens"], c["experts"], c["top_k"]]),
                          w.HBox([c["skew"], c["tile_rows"]]), self.image, self.readout])
        self.update()
        self.fig.tight_layout()  # once, now that the titles have their text
        self.image.value = _png(self.fig)

    def update(self, _change=None):
        """Route, pad, resize the bars in place and refresh the readout."""
        c = self.controls
        if c["top_k"].value > c["experts"].value:  # a token cannot pick more experts than exist
            c["top_k"].value = c["experts"].value  # re-enters update() through observe
            return
        pr = update_moe_axes(self.artists, c["tokens"].value, c["experts"].value, c["top_k"].value,
                             c["skew"].value, c["tile_rows"].value)
        self.result = pr
        rows = [
            ("dispatches (useful rows)", f"{pr.useful:,}"),
            ("experts that receive tokens", f"{pr.active_experts:,}"),
            ("rows executed after padding", f"{pr.executed:,}"),
            ("efficiency useful / executed", f"{pr.efficiency:.1%}"),
            ("waste ratio executed / useful", f"{pr.waste_ratio:.2f}×"),
        ]
        self.readout.value = "<table>" + "".join(
            f"<tr><td>{html.escape(a)}</td><td><b>{html.escape(b)}</b></td></tr>" for a, b in rows
        ) + "</table>"
        self.image.value = _png(self.fig)


def moe_padding_explorer(tokens=S.MOE_TOKENS, experts=S.MOE_EXPERTS, top_k=S.MOE_TOP_K,
                         skew=0.0, tile_rows=S.MOE_TILE_ROWS) -> MoePaddingExplorer:
    """Tokens, experts, top-k, routing skew (0 uniform … 1 concentrated) and tile rows.

    Shows useful vs executed rows as two bars, plus the efficiency and the
    waste ratio.  Defaults: the source's 64 tokens, top-8 of 256 experts,
    16-row tiles, uniform routing.
    """
    return MoePaddingExplorer(tokens, experts, top_k, skew, tile_rows)
