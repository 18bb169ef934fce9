"""infra_calc.widgets.forecast: the forecast explorer (chapter 4)."""
from __future__ import annotations

import html

import pytest

import infra_calc as ic
from infra_calc.display import in_unit, sig
from infra_calc.figures.ch4 import FORECAST_EXPLORER_SETTINGS


def _library(model, hw, *, engine, batch, prompt_tokens, output_tokens, cards):
    """The library's own forecast of one setting ("any" is the pooled fit)."""
    return ic.forecast(model, hw, prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                       batch=batch, cards=cards, engine=None if engine == "any" else engine)


def _assert_panel_follows(box, f):
    """The bar is the floor's mean TPOT, the band and its tick the forecast's, in ms; the
    readout states the same numbers."""
    a = box.artists
    assert a["bar"].get_width() == pytest.approx(in_unit(f.floor.floor_tpot, "ms"))
    assert a["band"].get_x() == pytest.approx(in_unit(f.tpot.low, "ms"))
    assert a["band"].get_width() == pytest.approx(in_unit(f.tpot.high - f.tpot.low, "ms"))
    assert list(a["tick"].get_xdata()) == pytest.approx([in_unit(f.tpot.value, "ms")] * 2)
    assert box.ax.get_xlim()[1] > in_unit(f.tpot.high, "ms")      # the whole band is shown
    text = box.readout.value
    for t in (f.floor.floor_tpot, f.tpot.value, f.tpot.low, f.tpot.high, f.ttft.value):
        assert sig(t, "ms").text in text
    assert f"{f.rows} rows in {f.groups} groups" in text


def test_forecast_explorer_starts_at_the_snapshot_settings():
    """The explorer's first state is the library's forecast of the snapshot figure's settings."""
    from infra_calc.widgets import forecast_explorer

    box = forecast_explorer()
    f, want = box.state(), _library(**FORECAST_EXPLORER_SETTINGS)
    assert (f.tpot, f.ttft, f.engine) == (want.tpot, want.ttft, want.engine)
    _assert_panel_follows(box, want)
    assert "pooled knobs" in box.readout.value and "Does not fit" not in box.readout.value
    assert "floor and forecast (pooled knobs" in box.heading.value


def test_forecast_explorer_updates_in_place():
    from infra_calc.widgets import forecast_explorer

    box = forecast_explorer()
    fig, bar, band, tick = (box.fig, box.artists["bar"], box.artists["band"],
                            box.artists["tick"])
    png0 = box.image.value
    setting = dict(FORECAST_EXPLORER_SETTINGS)

    for control, key, value in (("batch", "batch", 16), ("prompt", "prompt_tokens", 4000),
                                ("output", "output_tokens", 1000), ("cards", "cards", 2),
                                ("engine", "engine", "vLLM")):
        box.controls[control].value = value
        setting[key] = value
        want = _library(**setting)
        assert box.state().tpot == want.tpot
        _assert_panel_follows(box, want)
        assert box.fig is fig and (box.artists["bar"], box.artists["band"],
                                   box.artists["tick"]) == (bar, band, tick)
    assert box.image.value != png0
    assert "vLLM knobs" in box.readout.value
    title = box.artists["title"].get_text()
    assert "2 × H100 SXM, batch 16" in title and "P = 4,000, O = 1,000" in title
    assert html.escape("2 × H100 SXM") in box.heading.value          # the title shown as HTML

    box.controls["model"].value = ic.model("Mixtral-8x7B")         # the menus hold the objects
    setting["model"] = "Mixtral-8x7B"
    _assert_panel_follows(box, _library(**setting))


def test_forecast_explorer_says_when_a_setting_does_not_fit():
    """A setting that does not fit a card is still forecast, under a warning stating what it
    needs and what the card has."""
    from infra_calc.widgets import forecast_explorer

    box = forecast_explorer()
    box.controls["model"].value = ic.model("DeepSeek-R1-Distill-Llama-70B")
    box.controls["hw"].value = ic.accelerator("RTX 4090")
    want = _library(**dict(FORECAST_EXPLORER_SETTINGS, model="DeepSeek-R1-Distill-Llama-70B",
                           hw="RTX 4090"))
    g = want.floor
    assert not g.fits
    text = box.readout.value
    assert "ic-warning" in text and "<b>Does not fit</b>" in text
    assert (f"needs {sig(g.memory_per_card, 'GB')} per card; the RTX 4090 has "
            f"{sig(g.hw.mem_capacity, 'GB')}") in text
    _assert_panel_follows(box, want)

    box.controls["cards"].value = 8                 # an eighth of the weights each: it fits
    assert box.state().floor.fits and "Does not fit" not in box.readout.value


def test_forecast_explorer_options():
    from infra_calc.widgets import forecast

    box = forecast.forecast_explorer()
    assert tuple(box.controls["engine"].options) == tuple(ic.forecast_engines())
    assert tuple(box.controls["batch"].options) == forecast.BATCH_OPTIONS
    assert tuple(box.controls["prompt"].options) == forecast.LENGTH_OPTIONS
    assert tuple(box.controls["cards"].options) == forecast.CARD_OPTIONS
