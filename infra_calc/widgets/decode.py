"""Decode-step explorer (J07): read, compute and step time of one decode step.

Pick an accelerator, a model from the catalog (or type any parameter count),
the bytes stored per parameter and the batch size (the accelerator menu holds the
cards themselves, so a changed card keeps its figures; the parameter count is held
as a count and shown in billions only in the text box); the explorer shows the two
lower bounds, the step time (their maximum), tokens per second and which bound decides.  All numbers come from
:func:`infra_calc.step.decode_step`; the plot is drawn once and its artists
are updated in place (:class:`~infra_calc.widgets._base.Explorer`).
"""
from __future__ import annotations

import html
import math

import ipywidgets as w

from .. import source as S
from ..capacity import capacity_check
from ..display import in_unit, round_sig, shown
from ..figures.ch1 import draw_decode_panel, update_decode_panel
from ..models import MODELS
from ..step import batch_turning_point, decode_step
from ..units import UNITS
from ._base import BYTE_WIDTHS, Explorer, card_menu, fit_warning, ms

__all__ = ["DecodeStepExplorer", "decode_step_explorer", "BATCH_OPTIONS", "model_options",
           "OTHER"]

#: batch sizes offered by the slider: roughly even steps on a log scale, 1 … 512
BATCH_OPTIONS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 148, 192, 256, 384, 512)
#: range of the parameter count, in billions (10**0 … 10**3): the text box's range
PARAMS_LOG10_RANGE = (0, 3)
#: the text box's unit: the one conversion between the count the explorer holds and the box
BILLION = UNITS["billion"].scale


def _from_box(billions: float) -> float:
    """The parameter count the text box's number (in billions) stands for."""
    return billions * BILLION


def _to_box(count: float) -> float:
    """The text box's number (in billions) for a parameter count."""
    return in_unit(count, "billion")


#: the box's range as counts
_PARAMS_RANGE = tuple(_from_box(10 ** e) for e in PARAMS_LOG10_RANGE)
#: the menu's entry for a typed parameter count that is no catalog model's
OTHER = "other (type the count)"


def model_options() -> list[tuple[str, float]]:
    """The model menu: ``(label, parameter count)``, the chapter's 70B first.

    Dense catalog models only: the explorer reads every weight each step, which
    for a mixture-of-experts model holds only when the batch reaches every expert.
    """
    opts = [(f"the chapter's model ({round_sig(S.J07_PARAMS, 'billion')})", float(S.J07_PARAMS))]
    opts += [(f"{m.name} ({round_sig(m.params, 'billion')})", float(m.params))
             for m in MODELS.values() if not m.num_experts]
    return opts


def _fixed_xlim(cards) -> tuple[float, float]:
    """One x range (ms) that holds every bar any control setting can draw on ``cards``."""
    lo, hi = math.inf, in_unit(S.J07_TARGET_STEP, "ms")
    n_lo, n_hi = _PARAMS_RANGE
    b_lo, b_hi = min(v for _, v in BYTE_WIDTHS), max(v for _, v in BYTE_WIDTHS)
    for card in cards:
        small = decode_step(n_lo, card, bytes_per_param=b_lo, batch=BATCH_OPTIONS[0])
        big = decode_step(n_hi, card, bytes_per_param=b_hi, batch=BATCH_OPTIONS[-1])
        lo = min(lo, in_unit(small.t_compute, "ms"), in_unit(small.t_read, "ms"))
        hi = max(hi, in_unit(big.t_compute, "ms"), in_unit(big.t_read, "ms"))
    return 10 ** (math.floor(math.log10(lo)) - 0.2), 10 ** (math.ceil(math.log10(hi)) + 0.8)


class DecodeStepExplorer(Explorer):
    """The decode-step explorer; ``controls``, ``readout``, ``fig``, ``artists`` stay the same."""

    summary = ("Decode-step explorer: menus for the accelerator, the bytes per parameter and "
               "the model (or a typed parameter count, in billions), a slider for the batch "
               "(requests); shows the read, compute and step "
               "time of one decode step as bars against the 10 ms target, tokens/s and which "
               "bound decides.")
    width_px, height_px = 720, 320

    def __init__(self, params=S.J07_PARAMS, hw="H100 SXM", *,
                 bytes_per_param=S.J07_BYTES_PER_PARAM, batch=1):
        self._start()
        wide = {"description_width": "initial"}
        self._menu = dict(model_options())
        self._syncing = False
        #: the parameter count (a count, not billions), within the text box's range; the
        #: box shows it in billions
        self.params = min(max(float(params), _PARAMS_RANGE[0]), _PARAMS_RANGE[1])
        hw_menu = card_menu(hw)     # holds the cards themselves (a changed card keeps its figures)
        self.controls = {
            "hw": hw_menu,
            "bytes_per_param": w.Dropdown(options=list(BYTE_WIDTHS), value=float(bytes_per_param),
                                          description="bytes per parameter", style=wide),
            # a catalog model, or any count typed in the box next to it
            "model": w.Dropdown(options=[*self._menu, OTHER],
                                value=self._model_for(self.params), description="model",
                                style=wide, layout=w.Layout(width="max-content", min_width="30em")),
            "params": w.BoundedFloatText(value=_to_box(self.params),
                                         min=10 ** PARAMS_LOG10_RANGE[0],
                                         max=10 ** PARAMS_LOG10_RANGE[1], step=1,
                                         description="parameters (billions)", style=wide,
                                         layout=w.Layout(width="16em")),
            "batch": w.SelectionSlider(options=list(BATCH_OPTIONS), value=int(batch),
                                       description="batch (requests)", continuous_update=False,
                                       style=wide, layout=w.Layout(width="36em")),
        }
        ax = self.fig.add_subplot()
        self.ax = ax
        self.artists = draw_decode_panel(ax, self.state())
        self.artists["xlim"] = _fixed_xlim([card for _, card in hw_menu.options])
        ax.set_xlim(*self.artists["xlim"])
        self._use_heading(self.artists["title"])
        self.fig.tight_layout()
        a = self.artists
        self._animated = [*a["bars"], *a["labels"], a["title"]]
        c = self.controls
        self._finish([(c["hw"], c["bytes_per_param"]), (c["model"], c["params"]), (c["batch"],)])

    def _model_for(self, params) -> str:
        """The menu entry whose parameter count is ``params``, else :data:`OTHER`."""
        return next((k for k, v in self._menu.items() if math.isclose(v, params, rel_tol=1e-9)),
                    OTHER)

    def refresh(self, change=None):
        """Keep the menu, the typed count and :attr:`params` in step, then recompute (once
        per change)."""
        if self._syncing:
            return None
        c = self.controls
        owner = change["owner"] if change else None
        if owner is c["model"] and change["new"] in self._menu:
            self.params = self._menu[change["new"]]
            if not math.isclose(c["params"].value, _to_box(self.params), rel_tol=1e-9):
                self._syncing = True
                try:
                    c["params"].value = _to_box(self.params)   # the box shows the menu's count
                finally:
                    self._syncing = False
        elif owner is c["params"]:
            self.params = _from_box(change["new"])
            self._syncing = True
            try:
                c["model"].value = self._model_for(self.params)
            finally:
                self._syncing = False
        return super().refresh(change)

    def state(self):
        """The current :class:`~infra_calc.step.DecodeStep` (on the card the menu holds)."""
        c = self.controls
        return decode_step(self.params, c["hw"].value,
                           bytes_per_param=c["bytes_per_param"].value, batch=c["batch"].value)

    def _update(self):
        st = self.state()
        update_decode_panel(self.artists, st)
        hw = st.hw.name                     # the name of the card the step was computed on
        b_star = batch_turning_point(st.hw, bytes_per_param=st.bytes_per_param)
        weights = st.params * st.bytes_per_param
        # capacity first (chapter 1): weights that outgrow the card get a warning
        alone = capacity_check(st.hw.mem_capacity, weights=weights, kv=0.0, workspace=0)
        warn = "" if alone.fits else fit_warning(st.hw, weights, weights_only=True,
                                                 bars="they fitted on one card")
        self.readout.value = warn + (
            f"<b>{html.escape(hw)}</b>: read {ms(st.t_read)}, compute {ms(st.t_compute)}, "
            f"step {ms(st.t_step)} (<b>{st.bound}-bound</b>, read/compute = {shown(st.ratio, '×', 1)})<br>"
            f"{shown(st.tokens_per_s, 'tokens/s', 1)}; read time per output token "
            f"{ms(st.read_time_per_output)}; batch turning point B* = {shown(b_star, 'requests', 1)}")
        return st


def decode_step_explorer(params=S.J07_PARAMS, hw="H100 SXM", *, batch=1,
                         bytes_per_param=S.J07_BYTES_PER_PARAM) -> DecodeStepExplorer:
    """Build the explorer, starting at ``params`` parameters (a count; the box shows billions).

    Returns a :class:`DecodeStepExplorer` (an ``ipywidgets.VBox``) holding the
    controls, a text readout and the figure.  For tests it exposes
    ``.controls`` (dict of widgets), ``.readout`` (HTML widget), ``.fig``,
    ``.artists`` (from :func:`~infra_calc.figures.ch1.draw_decode_panel`),
    ``.image``, ``.state()`` (the current :class:`~infra_calc.step.DecodeStep`)
    and ``.update()``.
    """
    return DecodeStepExplorer(params, hw, bytes_per_param=bytes_per_param, batch=batch)
