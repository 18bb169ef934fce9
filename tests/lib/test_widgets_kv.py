"""infra_calc.widgets.kv: the KV explorer updates in place, keeps the objects it is given,
draws nothing outside its image and warns when a setting does not fit."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("ipywidgets")

from widget_checks import each_setting, outside  # noqa: E402

import infra_calc as ic  # noqa: E402
from infra_calc.figures import ch3  # noqa: E402
from infra_calc.widgets import kv_explorer  # noqa: E402


def test_kv_explorer_updates_in_place():

    box = kv_explorer()
    bars = list(box.artists["bars"])
    st = box.state()
    assert bars[1].get_width() == pytest.approx(st.t_kv * 1e3)
    box.controls["context"].value = 16384
    st2 = box.state()
    assert st2.t_kv > st.t_kv
    assert list(box.artists["bars"]) == bars            # same artists, updated
    assert bars[1].get_width() == pytest.approx(st2.t_kv * 1e3)
    assert "kv-read" in box.readout.value or "compute" in box.readout.value
    assert "ic-warning" in box.readout.value and "Does not fit" in box.readout.value  # 70B BF16, 1 H100


def test_a_context_beyond_the_model_is_capped_visibly():

    box = kv_explorer(context=16384)
    box.controls["model"].value = ic.model("Llama-2-7B")     # built for 4,096 tokens
    assert box.state().context == 4096 and box.controls["context"].value == 4096
    assert max(box.controls["context"].options) == 4096
    assert "capped at 4,096" in box.readout.value


def test_a_changed_card_stays_in_the_menu():

    fast = ic.accelerator("H100 SXM").with_(mem_bandwidth=2 * 3.35e12)
    box = kv_explorer(hw=fast)
    assert box.state().hw is fast
    names = [name for name, _ in box.controls["hw"].options]
    assert names.count("H100 SXM") == 1


def test_kv_explorer_draws_nothing_outside_at_any_setting():
    ex = kv_explorer()
    c = ex.controls
    grid = {"model": [ic.model(name) for name in ic.MODELS], "batch": (1, 1024),
            "context": (0, lambda control: max(control.options))}   # the model's longest
    for model, batch, ctx in each_setting(c, grid):
        bad = outside(ex.fig, rendered=True)
        assert not bad, (model.name, batch, ctx, bad)


def test_kv_numbers_follow_one_rule():
    """Every computed time with 4 significant figures: '3,282 ms' and '146.0 ms', never
    '3282.12 ms' next to '146.042 ms'."""
    ex = kv_explorer(batch=1024, context=32768 // 8)
    for text in (ex.readout.value, ex.heading.value):
        for number in re.findall(r"([\d,.]+) ms", text):
            digits = number.replace(",", "").replace(".", "").lstrip("0")
            assert len(digits) == 4 or ("." not in number and len(digits) > 4), (number, text)


def test_kv_warns_exactly_when_it_does_not_fit():
    ex = kv_explorer()
    assert not ex.state().fits and "ic-warning" in ex.readout.value
    assert "does not fit" in ex.heading.value
    ex.controls["model"].value = ic.model("Llama-3.1-8B")
    ex.controls["batch"].value = 1
    assert ex.state().fits and "ic-warning" not in ex.readout.value
    assert "does not fit" not in ex.heading.value


def test_kv_snapshot_figure_keeps_its_title_inside():
    fig = ch3.kv_explorer_snapshot_figure()
    assert not outside(fig), outside(fig)
    assert "does not fit" in fig.axes[0].get_title()

