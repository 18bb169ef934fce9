"""The one pattern every explorer follows.

An :class:`Explorer` is an ``ipywidgets.VBox`` holding its controls, a text
readout and one image of a matplotlib figure.  The figure is built once; a
control change calls :meth:`Explorer.refresh`, which asks the subclass to move
the existing artists (:meth:`Explorer._update`) and re-renders the image:

* **Crisp.** The figure is ``width_px × height_px`` CSS pixels (``figsize`` in
  inches = px / 100 at 100 dpi) and is rendered at :data:`PIXEL_RATIO` × that, so
  it is sharp on high-density screens and never stretched: the image widget is
  pinned to ``width_px`` (shrinking only when the column is narrower).
* **Fast.** Axis limits stay fixed while a control moves, so the static part
  (axes, ticks, labels, legend) is drawn once and cached; an update restores it
  and draws only the artists that moved (``_animated``), then encodes a PNG with
  light compression.  When a subclass does change a limit, the cache is rebuilt.
* **Nothing cut.** The title is an HTML line above the figure (``.ic-title``),
  which wraps in a narrow column instead of running off the image; a warning
  (:func:`warning_html`, ``.ic-warning``) stands out from the readout.
* **Honest before it runs.** ``repr()`` (the cell's stored ``text/plain``) says
  what running the cell will show instead of printing the widget tree.
"""
from __future__ import annotations

import html
import io

import ipywidgets as w
import numpy as np
import PIL.Image
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .. import models
from ..accelerators import CATALOG, accelerator
from ..display import sig
from ..figures._registry import style

__all__ = ["Explorer", "PIXEL_RATIO", "CSS_DPI", "BYTE_WIDTHS", "table_html", "object_options",
           "card_menu", "model_and_card_menus", "warning_html", "fit_warning", "ms"]

#: rendering scale over CSS pixels (2 = sharp on a HiDPI / Retina screen)
PIXEL_RATIO = 2
#: CSS pixels per inch of figure size (the browser's nominal 96 would do too; 100 keeps sums round)
CSS_DPI = 100

#: the byte widths a menu offers, for weights and KV cache alike: option label -> bytes per
#: parameter (or per KV element); every explorer's width menu is built from this one table
BYTE_WIDTHS = (("2 (16-bit)", 2.0), ("1 (8-bit)", 1.0), ("0.5 (4-bit)", 0.5))


def object_options(given, catalog) -> list:
    """Dropdown options ``(name, object)``: the catalog's objects, with ``given`` in its place.

    A menu that holds the objects (not their names) keeps a changed model or
    card as it was given; its name is only the label.
    """
    opts = [(obj.name, given if obj.name == given.name else obj) for obj in catalog]
    if not any(obj is given for _, obj in opts):
        opts.insert(0, (given.name, given))
    return opts


def card_menu(hw) -> w.Dropdown:
    """The ``"hw"`` menu of an explorer, holding the accelerators themselves.

    ``hw`` is resolved here (a name or the object) and takes its catalog namesake's
    place, so a changed card (``accelerator("RTX 4090").with_(mem_capacity=...)``)
    keeps its figures; its name is only the label.
    """
    acc = accelerator(hw)
    return w.Dropdown(options=object_options(acc, CATALOG.values()), value=acc,
                      description="accelerator", style={"description_width": "initial"},
                      layout=w.Layout(width="17em"))


def model_and_card_menus(model, hw) -> dict:
    """The ``"model"`` and ``"hw"`` menus of an explorer, holding the objects themselves.

    ``model`` and ``hw`` are resolved here (a name or the object); a changed model or
    card keeps its figures.  The model menu is wide enough for the catalog's longest
    name ("DeepSeek-R1-Distill-Llama-70B", tests/e2e/test_lab_explorers.py).
    """
    spec = models.model(model)
    return {
        "model": w.Dropdown(options=object_options(spec, models.MODELS.values()), value=spec,
                            description="model", style={"description_width": "initial"},
                            layout=w.Layout(width="max-content", min_width="25em")),
        "hw": card_menu(hw),
    }


def table_html(rows, columns: int = 1) -> str:
    """A readout table from ``(label, value)`` pairs, ``columns`` pairs side by side.

    Two columns halve the table's height (the roofline explorer's seven rows
    would otherwise push its figure off a laptop's screen).
    """
    rows = list(rows)
    per = -(-len(rows) // columns)
    cols = [rows[i * per:(i + 1) * per] for i in range(columns)]
    cell = "<td style='padding-right:0.6em'>{}</td><td style='padding-right:2em'><b>{}</b></td>"
    lines = []
    for r in range(per):
        lines.append("<tr>" + "".join(cell.format(html.escape(c[r][0]), html.escape(c[r][1]))
                                      if r < len(c) else "<td></td><td></td>"
                                      for c in cols) + "</tr>")
    return "<table>" + "".join(lines) + "</table>"


#: how a warning looks: a tinted box with a bar on its left, above the readout's lines
WARNING_STYLE = ("background:#fdf0e6;border-left:4px solid #D55E00;color:#8a3200;"
                 "padding:2px 8px;margin:2px 0;display:block")


def warning_html(text: str) -> str:
    """A warning line for a readout (``.ic-warning``): ``text`` is HTML, already escaped."""
    return f"<div class='ic-warning' style='{WARNING_STYLE}'>⚠ {text}</div>"


def fit_warning(hw, need: float, *, capacity: float | None = None, weights_only: bool = False,
                bars: str = "", then: str = "") -> str:
    """Every readout's "Does not fit" warning: ``need`` bytes against ``hw``'s capacity (GB).

    ``need`` is what one card must hold (``weights_only``: the weights alone); ``capacity``
    replaces the card's own (another reading of it, the capacity planner's); ``bars``,
    if given, says what the bars assume ("it fitted": "The bars are the bounds as if it
    fitted."); ``then`` is a last sentence (HTML, escaped).
    """
    cap = hw.mem_capacity if capacity is None else capacity
    what = (f"the weights alone are {sig(need, 'GB')}" if weights_only
            else f"this setting needs {sig(need, 'GB')} per card")
    tail = (f" The bars are the bounds as if {bars}." if bars else "") + (f" {then}" if then else "")
    return warning_html(f"<b>Does not fit</b>: {what}; the {html.escape(hw.name)} has "
                        f"{sig(cap, 'GB')}.{tail}")


def ms(t) -> str:
    """A time in a readout: ``t`` seconds in ms, 4 significant figures (the bar labels' format)."""
    return str(sig(t, "ms"))


def _png_rgb(rgba) -> bytes:
    """A PNG of an ``(h, w, 4)`` uint8 array, RGB, written by Pillow (matplotlib's own PNG
    writer) at zlib level 1: light compression, since it runs on every slider move."""
    out = io.BytesIO()
    PIL.Image.fromarray(np.asarray(rgba)[:, :, :3]).save(out, format="PNG", compress_level=1)
    return out.getvalue()


class Explorer(w.VBox):
    """Base class: controls + readout + one crisp, cached figure image.

    Subclasses set :attr:`summary` (what running the cell shows), build
    ``self.controls`` and the figure in ``__init__`` between :meth:`_start` and
    :meth:`_finish`, and implement :meth:`_update`, which moves the artists and
    sets ``self.readout.value``.  ``self._animated`` lists the artists that move.
    """

    #: one sentence: what the explorer shows once its cell runs
    summary = "Explorer"
    width_px = 700
    height_px = 300

    def _start(self):
        self.readout = w.HTML()
        self.image = w.Image(format="png", layout=w.Layout(width=f"{self.width_px}px",
                                                           max_width="100%", height="auto"))
        with style():
            self.fig = Figure(figsize=(self.width_px / CSS_DPI, self.height_px / CSS_DPI),
                              dpi=CSS_DPI * PIXEL_RATIO)
        self.canvas = FigureCanvasAgg(self.fig)
        self._animated: list = []
        self._bg = None
        self._bg_key = None
        self.renders = 0          # full redraws of the static part (for tests)
        self.title_artist = None  # see _use_heading

    def _use_heading(self, title):
        """Show the figure's ``title`` artist as the HTML line ``self.heading`` instead.

        The artist is not drawn in the image; :meth:`refresh` copies its text
        (set it as usual) above the image, where it wraps instead of being cut.
        Call before the figure's layout is fixed (``tight_layout``), so that the
        plot takes the title's room.
        """
        self.title_artist = title
        title.set_visible(False)

    def _finish(self, rows):
        """Lay out ``rows`` (lists of controls), the readout, the title and the image;
        first render."""
        self.heading = w.HTML(layout=w.Layout(width=f"{self.width_px}px", max_width="100%"))
        for c in self.controls.values():
            c.observe(self.refresh, names="value")
        super().__init__([w.HBox(list(r), layout=w.Layout(flex_flow="row wrap")) for r in rows]
                         + [self.readout, self.heading, self.image])
        # stable hooks for the browser tests (tests/lab_pages.py, tests/e2e/test_lab_explorers.py)
        self.add_class("ic-explorer")
        self.readout.add_class("ic-readout")
        self.heading.add_class("ic-title")
        self.image.add_class("ic-figure")
        self.refresh()

    # -- one update ------------------------------------------------------------------
    def _update(self):  # pragma: no cover - every subclass implements it
        raise NotImplementedError

    def refresh(self, _change=None):
        """Recompute from the controls, move the artists, re-render the image."""
        result = self._update()
        if result is False:   # the subclass changed a control; its own refresh has run
            return None
        if self.title_artist is not None:
            lines = self.title_artist.get_text().split("\n")
            self.heading.value = ("<div style='text-align:center;font-size:14px;line-height:1.35;"
                                  "white-space:normal;overflow-wrap:anywhere'>"
                                  + "<br>".join(html.escape(x) for x in lines) + "</div>")
        self.image.value = self.png()
        return result

    update = refresh  # the name the explorers had

    def _static_key(self):
        return tuple((ax.get_xlim(), ax.get_ylim()) for ax in self.fig.axes)

    def png(self) -> bytes:
        """The figure as PNG bytes, at ``PIXEL_RATIO`` × its CSS size."""
        with style():
            key = self._static_key()
            if self._bg is None or key != self._bg_key:
                for a in self._animated:
                    a.set_animated(True)
                self.canvas.draw()                      # everything but the moving artists
                self._bg = self.canvas.copy_from_bbox(self.fig.bbox)
                self._bg_key = key
                self.renders += 1
            else:
                self.canvas.restore_region(self._bg)
            renderer = self.canvas.get_renderer()
            for a in self._animated:
                if a.get_visible():
                    a.draw(renderer)
        return _png_rgb(np.asarray(self.canvas.buffer_rgba()))

    # -- what an unrun cell shows ----------------------------------------------------------
    def __repr__(self) -> str:
        return f"{self.summary} (Run this cell to show the controls and the figure.)"

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(repr(self))

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)   # ipywidgets cuts text/plain at 110 chars
        data["text/plain"] = repr(self)
        return data
