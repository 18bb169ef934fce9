"""infra_calc.widgets.kv: the KV explorer updates in place and keeps the objects it is given."""
import pytest

import infra_calc as ic

pytest.importorskip("ipywidgets")


def test_kv_explorer_updates_in_place():
    from infra_calc.widgets import kv_explorer

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
    from infra_calc.widgets import kv_explorer

    box = kv_explorer(context=16384)
    box.controls["model"].value = ic.model("Llama-2-7B")     # built for 4,096 tokens
    assert box.state().context == 4096 and box.controls["context"].value == 4096
    assert max(box.controls["context"].options) == 4096
    assert "capped at 4,096" in box.readout.value


def test_a_changed_card_stays_in_the_menu():
    from infra_calc.widgets import kv_explorer

    fast = ic.accelerator("H100 SXM").with_(mem_bandwidth=2 * 3.35e12)
    box = kv_explorer(hw=fast)
    assert box.state().hw is fast
    names = [name for name, _ in box.controls["hw"].options]
    assert names.count("H100 SXM") == 1
