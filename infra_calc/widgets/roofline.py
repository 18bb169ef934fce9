"""Roofline explorer (J13): move one GEMM along an accelerator's roofline.

The figure is built once; every control change moves the existing artists
(``set_data`` / ``set_text``) and re-renders that same figure into an image
widget, so it works in any Jupyter front end without an interactive backend.
All numbers come from :func:`infra_calc.gemm_roofline` and
:func:`infra_calc.critical_rows`.
"""
from __future__ import annotations

import html
import io

import ipywidgets as w
from matplotlib.figure import Figure

from .. import source as S
from ..hardware import accelerator_names, resolve_hw
from ..units import MiB, TERA
from ..figures._registry import style
from ..figures.j13 import roofline_axes, update_roofline_axes

__all__ = ["RooflineExplorer", "roofline_explorer"]


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
    return buf.getvalue()


class RooflineExplorer(w.VBox):
    """The explorer's box; ``fig``, ``artists``, ``controls``, ``readout`` stay the same objects."""

    def __init__(self, m=1, k=S.J13_K, n=S.J13_N, hw="H100 SXM",
                 bytes_per_element=S.J13_BYTES_PER_ELEMENT):
        self.bytes_per_element = bytes_per_element
        names = list(accelerator_names())
        hw_name = resolve_hw(hw).name
        self.controls = {
            "m": w.FloatLogSlider(value=m, base=2, min=0, max=12, step=0.25, description="rows M",
                                  readout_format=".0f", continuous_update=False),
            "k": w.IntSlider(value=k, min=256, max=16384, step=256, description="K",
                             continuous_update=False),
            "n": w.IntSlider(value=n, min=256, max=16384, step=256, description="N",
                             continuous_update=False),
            "hw": w.Dropdown(options=names, value=hw_name, description="accelerator"),
        }
        with style():
            self.fig = Figure(figsize=(7.0, 4.4))
            self.ax = self.fig.subplots()
            self.artists = roofline_axes(self.ax)
            self.ax.legend(handles=[self.artists["roof"], self.artists["ridge"],
                                    self.artists["limit_line"], self.artists["point"]],
                           loc="lower right", fontsize=8)
        self.image = w.Image(format="png")
        self.readout = w.HTML()
        self.point = None
        self.m_star = None
        for c in self.controls.values():
            c.observe(self.update, names="value")
        super().__init__([w.HBox([self.controls["m"], self.controls["hw"]]),
                          w.HBox([self.controls["k"], self.controls["n"]]),
                          self.image, self.readout])
        self.update()
        self.fig.tight_layout()  # once, now that the titles have their text
        self.image.value = _png(self.fig)

    @property
    def rows(self) -> int:
        """The slider's M rounded to a whole number of rows."""
        return max(1, int(round(self.controls["m"].value)))

    def update(self, _change=None):
        """Recompute from the controls and move the artists in place."""
        c = self.controls
        acc = resolve_hw(c["hw"].value)
        m, k, n = self.rows, c["k"].value, c["n"].value
        self.point, self.m_star = update_roofline_axes(self.artists, acc, m, k, n,
                                                       self.bytes_per_element)
        pt = self.point
        m_star = ("never (ridge above the M → ∞ limit)" if self.m_star == float("inf")
                  else f"{self.m_star:,.1f} rows (smallest whole batch {int(-(-self.m_star // 1)):,})")
        rows = [
            ("F = 2MKN", f"{pt.flops / 1e6:,.2f} MFLOP"),
            ("V = b(MK + KN + MN)", f"{pt.nbytes / MiB:,.2f} MiB"),
            ("I = F/V", f"{pt.intensity:,.1f} FLOP/byte"),
            ("I* = Π/β", f"{pt.ridge:,.1f} FLOP/byte"),
            ("attainable", f"{pt.attainable / TERA:,.1f} TFLOP/s ({pt.fraction_of_peak:.1%} of peak)"),
            ("bound", f"{pt.bound}"),
            ("M* (I reaches I*)", m_star),
        ]
        self.readout.value = "<table>" + "".join(
            f"<tr><td>{html.escape(a)}</td><td><b>{html.escape(b)}</b></td></tr>" for a, b in rows
        ) + "</table>"
        self.image.value = _png(self.fig)


def roofline_explorer(m=1, k=S.J13_K, n=S.J13_N, hw="H100 SXM",
                      bytes_per_element=S.J13_BYTES_PER_ELEMENT) -> RooflineExplorer:
    """Sliders for M (log scale, 1 … 4096), K, N and an accelerator menu.

    The operating point of ``[M, K] @ [K, N]`` moves along the roofline;
    the readout gives F, V, I, I*, the attainable TFLOP/s, which resource
    bounds it, and M*.  Defaults: the source's Q projection on the H100.
    """
    return RooflineExplorer(m, k, n, hw, bytes_per_element)
