"""Roofline explorer (J13): move one GEMM along an accelerator's roofline.

The figure is built once on fixed log–log axes; every control change moves the
existing artists (``set_data`` / ``set_text``) and re-renders that same figure
into an image widget (:class:`~infra_calc.widgets._base.Explorer`), so it works
in any Jupyter front end without an interactive backend.  All numbers come
from :func:`infra_calc.gemm_roofline` and :func:`infra_calc.critical_rows`.
"""
from __future__ import annotations

import math

import ipywidgets as w

from .. import source as S
from ..accelerators import CATALOG, accelerator
from ..display import shown, shown_prefixed
from ..figures.ch2 import roofline_axes, update_roofline_axes
from ._base import Explorer, object_options, table_html

__all__ = ["RooflineExplorer", "roofline_explorer"]


class RooflineExplorer(Explorer):
    """The explorer's box; ``fig``, ``artists``, ``controls``, ``readout`` stay the same objects."""

    summary = ("Roofline explorer: sliders for the rows M, K and N of one [M × K] @ [K × N] "
               "matrix multiply and an accelerator menu; shows the operating point moving along "
               "the roofline, its intensity I, the ridge point I*, the attainable TFLOP/s, which "
               "resource bounds it, and M*.")
    #: 380 px tall: with the controls, the title and the two-column readout, the whole
    #: explorer fits the ~680 px JupyterLab shows of a notebook in a 1280 × 800 window
    width_px, height_px = 720, 380

    def __init__(self, m=1, k=S.J13_K, n=S.J13_N, hw="H100 SXM",
                 bytes_per_element=S.J13_BYTES_PER_ELEMENT):
        self._start()
        self.bytes_per_element = bytes_per_element
        acc = accelerator(hw)
        self.controls = {
            "m": w.FloatLogSlider(value=m, base=2, min=0, max=12, step=0.25, description="rows M",
                                  readout_format=".0f", continuous_update=False),
            "k": w.IntSlider(value=k, min=256, max=16384, step=256, description="K",
                             continuous_update=False),
            "n": w.IntSlider(value=n, min=256, max=16384, step=256, description="N",
                             continuous_update=False),
            # the menu holds the accelerators themselves (a changed card keeps its figures)
            "hw": w.Dropdown(options=object_options(acc, CATALOG.values()), value=acc,
                             description="accelerator"),
        }
        self.ax = self.fig.subplots()
        self.artists = roofline_axes(self.ax)
        self.ax.legend(handles=[self.artists["roof"], self.artists["ridge"],
                                self.artists["limit_line"], self.artists["point"]],
                       loc="lower right", fontsize=8)
        self.point = None
        self.m_star = None
        a = self.artists
        self._animated = [a[key] for key in ("roof", "ridge_line", "limit_line", "ridge", "point",
                                             "ridge_text", "point_text", "title")]
        self._update()
        self._use_heading(a["title"])
        self.fig.tight_layout()  # once, now that the labels have their text
        c = self.controls
        self._finish([(c["m"], c["hw"]), (c["k"], c["n"])])

    @property
    def rows(self) -> int:
        """The slider's M rounded to a whole number of rows."""
        return max(1, int(round(self.controls["m"].value)))

    def _update(self):
        """Recompute from the controls and move the artists in place."""
        c = self.controls
        acc = c["hw"].value
        m, k, n = self.rows, c["k"].value, c["n"].value
        self.point, self.m_star = update_roofline_axes(self.artists, acc, m=m, k=k, n=n,
                                                       bytes_per_element=self.bytes_per_element)
        pt = self.point
        m_star = ("never (ridge above the M → ∞ limit)" if self.m_star == float("inf")
                  else f"{shown(self.m_star, 'rows', 1)} (smallest whole batch {math.ceil(self.m_star):,})")
        self.readout.value = table_html([
            ("F = 2MKN", str(shown_prefixed(pt.flops, ("MFLOP", "GFLOP", "TFLOP")))),
            ("V = b(MK + KN + MN)", str(shown_prefixed(pt.bytes_read, ("MB", "GB")))),
            ("I = F/V", str(shown(pt.intensity, "FLOP/byte", 1))),
            ("I* = Π/β", str(shown(pt.ridge, "FLOP/byte", 1))),
            ("attainable", f"{shown(pt.attainable, 'TFLOP/s', 1)} "
                           f"({shown(pt.fraction_of_peak, '%', 1)} of peak)"),
            ("bound", f"{pt.bound}"),
            ("M* (I reaches I*)", m_star),
        ], columns=2)
        return pt


def roofline_explorer(m=1, k=S.J13_K, n=S.J13_N, hw="H100 SXM", *,
                      bytes_per_element=S.J13_BYTES_PER_ELEMENT) -> RooflineExplorer:
    """Sliders for M (log scale, 1 … 4096), K, N and an accelerator menu.

    The operating point of ``[M, K] @ [K, N]`` moves along the roofline;
    the readout gives F, V, I, I*, the attainable TFLOP/s, which resource
    bounds it, and M*.  Defaults: the source's Q projection on the H100.
    """
    return RooflineExplorer(m, k, n, hw, bytes_per_element)
