"""Forecast explorer (chapter 4): the floor of a request's time per output token, and the
forecast above it with its band.

Menus for the model, the accelerator and the engine family; sliders for the batch, the
prompt and output lengths and the card count.  One bar is the floor (mean of
:func:`~infra_calc.generation.generation_time`'s ``floor_step_times``); the hatched span is
the band of :func:`infra_calc.forecasting.forecast` with that family's fitted knobs (10th to
90th percentile of its cross-validated errors) and the tick its forecast: a model, not a
floor.  The plot is drawn once and its artists are updated in place
(:class:`~infra_calc.widgets._base.Explorer`).
"""
from __future__ import annotations

import html

import ipywidgets as w

from ..display import in_unit, sig
from ..figures.ch4 import (
    FORECAST_EXPLORER_SETTINGS,
    draw_forecast_panel,
    engine_label,
    forecast_panel_state,
    update_forecast_panel,
)
from ..forecasting import forecast_engines
from ._base import Explorer, fit_warning, model_and_card_menus, ms
from .moe import nice_ceiling

__all__ = ["ForecastExplorer", "forecast_explorer", "BATCH_OPTIONS", "LENGTH_OPTIONS",
           "CARD_OPTIONS"]

BATCH_OPTIONS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
LENGTH_OPTIONS = (1, 128, 200, 500, 1000, 2000, 4000, 8000)
CARD_OPTIONS = (1, 2, 4, 8)


def _readout(f) -> str:
    g = f.floor
    warn = "" if g.fits else fit_warning(g.hw, g.memory_per_card)
    rate = lambda r: f"{sig(r / g.cards)} tokens/s per card"  # noqa: E731
    floor_tpot = g.floor_tpot
    t, r = f.tpot, f.output_tokens_per_s
    return (f"{warn}floor TPOT <b>{ms(floor_tpot)}</b> (no engine is faster); forecast "
            f"({html.escape(engine_label(f))} knobs, {f.rows} rows in {f.groups} groups) "
            f"<b>{ms(t.value)}</b>, band {ms(t.low)} to {ms(t.high)} (a model)<br>"
            f"TTFT: floor {ms(g.prefill.t_floor)}, forecast {ms(f.ttft.value)}; output rate: "
            f"at most {rate(g.floor_tokens_per_s_total)}, forecast "
            f"{rate(r.value)} (band {rate(r.low)} to {rate(r.high)})")


class ForecastExplorer(Explorer):
    """The forecast explorer; ``controls``, ``readout``, ``fig``, ``artists`` stay the same."""

    summary = ("Forecast explorer: menus for the model, the accelerator and the engine family, "
               "sliders for batch, prompt and output tokens and cards; shows the floor of the "
               "time per output token and the fitted forecast above it, with its band.")
    width_px, height_px = 720, 300

    def __init__(self, model, hw, engine, batch, prompt_tokens, output_tokens, cards):
        self._start()
        slider = dict(continuous_update=False, style={"description_width": "initial"})
        self.controls = {
            **model_and_card_menus(model, hw),
            "engine": w.Dropdown(options=forecast_engines(), value=engine,
                                 description="engine", style={"description_width": "initial"},
                                 layout=w.Layout(width="17em")),
            "batch": w.SelectionSlider(options=list(BATCH_OPTIONS), value=int(batch),
                                       description="batch (requests)", **slider),
            "prompt": w.SelectionSlider(options=list(LENGTH_OPTIONS), value=int(prompt_tokens),
                                        description="prompt (tokens)", **slider),
            "output": w.SelectionSlider(options=list(LENGTH_OPTIONS), value=int(output_tokens),
                                        description="output (tokens)", **slider),
            "cards": w.SelectionSlider(options=list(CARD_OPTIONS), value=int(cards),
                                       description="cards", **slider),
        }
        self.ax = self.fig.add_subplot()
        self.artists = draw_forecast_panel(self.ax, self.state())
        self._use_heading(self.artists["title"])
        self.fig.tight_layout()
        a = self.artists
        self._animated = [a["bar"], a["band"], a["tick"], a["legend"], a["title"]]
        c = self.controls
        self._finish([(c["model"], c["hw"], c["engine"]),
                      (c["batch"], c["cards"]), (c["prompt"], c["output"])])

    def state(self):
        """The :class:`~infra_calc.forecasting.Forecast` of the current setting."""
        c = self.controls
        return forecast_panel_state(c["model"].value, c["hw"].value, engine=c["engine"].value,
                                    batch=c["batch"].value, prompt_tokens=c["prompt"].value,
                                    output_tokens=c["output"].value, cards=c["cards"].value)

    def _update(self):
        f = self.state()
        update_forecast_panel(self.artists, f)
        # a little past the round limit, so the last tick label stays inside the image
        self.ax.set_xlim(0, 1.06 * nice_ceiling(in_unit(f.tpot.high, "ms") * 1.15))
        self.readout.value = _readout(f)
        return f


def forecast_explorer(model=FORECAST_EXPLORER_SETTINGS["model"],
                      hw=FORECAST_EXPLORER_SETTINGS["hw"], *,
                      engine=FORECAST_EXPLORER_SETTINGS["engine"],
                      batch=FORECAST_EXPLORER_SETTINGS["batch"],
                      prompt_tokens=FORECAST_EXPLORER_SETTINGS["prompt_tokens"],
                      output_tokens=FORECAST_EXPLORER_SETTINGS["output_tokens"],
                      cards=FORECAST_EXPLORER_SETTINGS["cards"]) -> ForecastExplorer:
    """Build the explorer.

    Returns a :class:`ForecastExplorer` (an ``ipywidgets.VBox``) exposing ``.controls``
    (dict of widgets), ``.readout``, ``.fig``, ``.artists``, ``.image``, ``.state()`` and
    ``.update()``.
    """
    return ForecastExplorer(model, hw, engine, batch, prompt_tokens, output_tokens, cards)
