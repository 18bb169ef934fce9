"""infra_calc.widgets.moe: the MoE-padding explorer updates in place on fixed axes."""
from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from widget_checks import limits  # noqa: E402

from infra_calc.widgets import moe_padding_explorer  # noqa: E402


def test_moe_explorer_updates_in_place():

    ex = moe_padding_explorer()
    fig, bars = ex.fig, ex.artists["bars"]
    assert [b.get_height() for b in bars] == [512, 4096]
    assert "12.5%" in ex.readout.value and "8.00×" in ex.readout.value

    ex.controls["skew"].value = 1.0
    assert [b.get_height() for b in bars] == [512, 512]
    assert ex.result.efficiency == 1.0 and "100.0%" in ex.readout.value

    ex.controls["skew"].value = 0.5
    assert [b.get_height() for b in bars] == [512, 720]

    ex.controls["tokens"].value = 128
    assert bars[0].get_height() == 1024

    ex.controls["experts"].value = 4  # fewer experts than top-k: top-k follows
    assert ex.controls["top_k"].value == 4 and ex.result.active_experts == 4

    assert ex.fig is fig and ex.artists["bars"] is bars and len(fig.axes) == 1


def test_moe_axis_fixed_while_skew_moves_and_ticks_separated():
    ex = moe_padding_explorer(tokens=1024, top_k=16, tile_rows=1)
    lims = limits(ex)
    for skew in (0.25, 0.5, 0.75, 1.0):
        ex.controls["skew"].value = skew
        assert limits(ex) == lims
    ex.fig.canvas.draw()
    ticks = [t.get_text() for t in ex.ax.get_yticklabels()]
    assert any("," in t for t in ticks), ticks
