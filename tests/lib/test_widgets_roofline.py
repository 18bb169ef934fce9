"""infra_calc.widgets.roofline and .moe: the roofline and MoE-padding explorers."""
from __future__ import annotations

import math

import numpy as np

import infra_calc as ic
from infra_calc import source as S

K, N, B = S.J13_K, S.J13_N, S.J13_BYTES_PER_ELEMENT


# --------------------------------------------------------------------------- widgets
def test_roofline_explorer_updates_in_place():
    from infra_calc.widgets import roofline_explorer

    ex = roofline_explorer()
    fig, point, roof = ex.fig, ex.artists["point"], ex.artists["roof"]
    image0 = ex.image.value
    assert ex.rows == 1 and ex.point.bound == "memory"
    assert np.isclose(point.get_xdata()[0], ic.arithmetic_intensity(1, K, N, bytes_per_element=B))
    assert "295.3 FLOP/byte" in ex.readout.value and "345.1 rows" in ex.readout.value
    assert "346" in ex.readout.value  # smallest whole batch

    ex.controls["m"].value = 256
    assert ex.rows == 256
    assert np.isclose(point.get_xdata()[0], 227.5555, atol=1e-3)
    assert "227.6 FLOP/byte" in ex.readout.value and "memory" in ex.readout.value
    assert ex.image.value != image0

    ex.controls["m"].value = 1024
    assert ex.point.bound == "compute" and "compute" in ex.readout.value
    assert np.isclose(point.get_ydata()[0], 989.4)

    ex.controls["hw"].value = ic.accelerator("B200")      # the menu holds the objects
    assert np.isclose(roof.get_ydata().max(), 2250.0)
    assert np.isclose(ex.m_star, ic.critical_rows(K, N, "B200", bytes_per_element=B))

    ex.controls["k"].value = 512
    ex.controls["n"].value = 512
    assert np.isclose(ex.artists["limit_line"].get_xdata()[0], ic.intensity_limit(512, 512,
                                                                                  bytes_per_element=B))
    assert math.isinf(ex.m_star) and "never" in ex.readout.value
    # the very same figure and artists throughout
    assert ex.fig is fig and ex.artists["point"] is point and ex.artists["roof"] is roof
    assert len(fig.axes) == 1


def test_moe_explorer_updates_in_place():
    from infra_calc.widgets import moe_padding_explorer

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
