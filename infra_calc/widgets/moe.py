"""MoE padding explorer (J13): how routing skew changes the rows a matrix unit runs.

Routing comes from :func:`infra_calc.route_tokens`, padding from
:func:`infra_calc.padded_rows`.  The bar chart is built once and its bars are
resized in place (``set_height``) on every control change
(:class:`~infra_calc.widgets._base.Explorer`).
"""
from __future__ import annotations

import math

import ipywidgets as w

from .. import source as S
from ..display import shown
from ..figures.ch2 import moe_axes, update_moe_axes
from ..shape import padded_rows, route_tokens
from ._base import Explorer, table_html

__all__ = ["MoePaddingExplorer", "moe_padding_explorer", "nice_ceiling"]


def nice_ceiling(x: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k that is >= ``x`` (a steady axis end).

    >>> nice_ceiling(604), nice_ceiling(4833), nice_ceiling(5000), nice_ceiling(0.3)
    (1000.0, 5000.0, 5000.0, 1.0)
    """
    if x <= 1:
        return 1.0
    k = 10 ** math.floor(math.log10(x))
    for f in (1, 2, 2.5, 5, 10):
        if f * k >= x - 1e-9:
            return float(f * k)
    return float(10 * k)  # pragma: no cover


class MoePaddingExplorer(Explorer):
    """The explorer's box; ``fig``, ``artists``, ``controls``, ``readout`` stay the same objects."""

    summary = ("MoE padding explorer: sliders for tokens, experts, top-k, routing skew and the "
               "tile rows; shows useful against executed (padded) rows as two bars, with the "
               "efficiency and the waste ratio.")
    width_px, height_px = 640, 340   # with the controls and the readout: fits 680 px

    def __init__(self, tokens=S.MOE_TOKENS, experts=S.MOE_EXPERTS, top_k=S.MOE_TOP_K, skew=0.0,
                 tile_rows=S.MOE_TILE_ROWS):
        self._start()
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
        self.ax = self.fig.subplots()
        self.artists = moe_axes(self.ax)
        a = self.artists
        self._animated = [*a["bars"], *a["labels"], a["title"]]
        self.result = None
        self._update()
        self._use_heading(a["title"])
        self.fig.tight_layout()  # once, now that the labels have their text
        c = self.controls
        self._finish([(c["tokens"], c["experts"], c["top_k"]), (c["skew"], c["tile_rows"])])

    def _ylim(self):
        """Fixed while skew moves: the most rows any skew can execute, rounded up nicely."""
        c = self.controls
        k = min(c["top_k"].value, c["experts"].value)
        worst = max(padded_rows(route_tokens(c["tokens"].value, experts=c["experts"].value, top_k=k, skew=s),
                                tile_rows=c["tile_rows"].value).executed for s in (0.0, 1.0))
        return (0, nice_ceiling(worst * 1.12))

    def _update(self):
        """Route, pad, resize the bars in place and refresh the readout."""
        c = self.controls
        if c["top_k"].value > c["experts"].value:  # a token cannot pick more experts than exist
            c["top_k"].value = c["experts"].value  # re-enters refresh() through observe
            return False
        self.artists["ylim"] = self._ylim()
        pr = update_moe_axes(self.artists, tokens=c["tokens"].value, experts=c["experts"].value,
                             top_k=c["top_k"].value, skew=c["skew"].value,
                             tile_rows=c["tile_rows"].value)
        self.result = pr
        self.readout.value = table_html([
            ("dispatches (useful rows)", f"{pr.useful:,}"),
            ("experts that receive tokens", f"{pr.active_experts:,}"),
            ("rows executed after padding", f"{pr.executed:,}"),
            ("efficiency useful / executed", str(shown(pr.efficiency, "%", 1))),
            ("waste ratio executed / useful", str(shown(pr.waste_ratio, "×", 2))),
        ])
        return pr


def moe_padding_explorer(*, tokens=S.MOE_TOKENS, experts=S.MOE_EXPERTS, top_k=S.MOE_TOP_K,
                         skew=0.0, tile_rows=S.MOE_TILE_ROWS) -> MoePaddingExplorer:
    """Tokens, experts, top-k, routing skew (0 uniform … 1 concentrated) and tile rows.

    Shows useful vs executed rows as two bars, plus the efficiency and the
    waste ratio.  Defaults: the source's 64 tokens, top-8 of 256 experts,
    16-row tiles, uniform routing.
    """
    return MoePaddingExplorer(tokens, experts, top_k, skew, tile_rows)
