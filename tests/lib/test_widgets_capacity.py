"""infra_calc.widgets.capacity: the capacity planner."""
from __future__ import annotations

import math

import pytest

pytest.importorskip("ipywidgets")

from matplotlib.patches import Rectangle  # noqa: E402

import infra_calc as ic  # noqa: E402
from infra_calc.planner import planner_state  # noqa: E402
from infra_calc.units import GB, GiB  # noqa: E402
from infra_calc.widgets import capacity_planner  # noqa: E402

W_BF16 = 8190735360 * 2          # Qwen3-8B parameters x 2 bytes
M_KV = 2 * 36 * 8 * 128 * 2      # 2 (K, V) x layers x kv heads x head dim x 2 bytes = 144 KiB


def _rects(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle)]


# --------------------------------------------------------------------------- widget
def test_capacity_planner_updates_in_place():

    p = capacity_planner()
    fig, ax = p.fig, p.ax
    kv_bar = p.bars["kv"]
    assert "B_max = <b>4</b>" in p.readout.value and "fits" in p.readout.value
    assert math.isclose(kv_bar.get_width(), 4 * 8192 * M_KV / GB)
    assert math.isclose(p.cap_line.get_xdata()[0], 24.0)
    png0 = p.image.value
    assert png0[:8] == b"\x89PNG\r\n\x1a\n"

    p.controls["batch"].value = 5
    assert p.image.value != png0
    assert "does not fit" in p.readout.value
    assert math.isclose(kv_bar.get_width(), 5 * 8192 * M_KV / GB)

    p.controls["reading"].value = "physical GiB"
    assert "B_max = <b>5</b>" in p.readout.value and "does not fit" not in p.readout.value
    assert math.isclose(p.cap_line.get_xdata()[0], 24 * GiB / GB)

    p.controls["context"].value = 16384
    assert p.state().max_batch == 2 and p.state().context == 16384
    assert math.isclose(kv_bar.get_width(), 5 * 16384 * M_KV / GB)
    assert math.isclose(p.bars["workspace"].get_x(), W_BF16 / GB)

    p.controls["bytes_per_param"].value = 1.0
    assert math.isclose(p.bars["weights"].get_width(), W_BF16 / 2 / GB)

    p.controls["workspace_gib"].value = 4.0
    assert math.isclose(p.bars["workspace"].get_width(), 4 * GiB / GB)

    p.controls["hw"].value = ic.accelerator("H100 SXM")        # the menus hold the objects
    p.controls["model"].value = ic.model("DeepSeek-R1-Distill-Llama-70B")
    st = p.state()
    expected = ic.max_batch(80 * GiB,
                            weights=ic.model("DeepSeek-R1-Distill-Llama-70B").weight_bytes(1),
                            context=16384,
                            kv_bytes_per_token=ic.model("DeepSeek-R1-Distill-Llama-70B").kv_bytes_per_token(2),
                            workspace=4 * GiB)
    assert st.max_batch == expected and f"B_max = <b>{expected}</b>" in p.readout.value
    assert ax.get_xlim()[1] >= max(st.memory.total, st.memory.capacity) / GB
    # same figure and artists throughout
    assert p.fig is fig and p.bars["kv"] is kv_bar and len(_rects(ax)) == 3




def test_capacity_planner_starts_where_planner_state_does_and_takes_bytes():

    assert capacity_planner().state() == planner_state()       # one default reading, one case
    p = capacity_planner(workspace=4 * GiB, reading="physical GiB")
    assert p.controls["workspace_gib"].value == 4.0 and p.state().memory.workspace == 4 * GiB
    assert p.state() == planner_state(workspace=4 * GiB, reading="physical GiB")


def test_capacity_planner_keeps_a_changed_card():
    """The menus hold the objects: a 48 GiB RTX 4090 is not looked up again by its name."""

    big = ic.accelerator("RTX 4090").with_(mem_capacity=48 * GiB)
    p = capacity_planner(hw=big, reading="physical GiB")
    assert p.state().memory.capacity == 48 * GiB and p.state().hw is big
    assert p.controls["hw"].label == "RTX 4090" and p.controls["hw"].value is big
    assert p.state() == planner_state(hw=big, reading="physical GiB")
    assert math.isclose(p.cap_line.get_xdata()[0], 48 * GiB / GB)
    p.controls["batch"].value = 20                    # the menu still holds the changed card
    assert p.state().hw is big and p.state().memory.capacity == 48 * GiB
    p.controls["model"].value = ic.model("Llama-3.1-8B")
    assert p.state().hw is big
    odd = ic.accelerator("RTX 4090").with_(mem_capacity=20e9)   # no whole GiB: its bytes, as given
    q = capacity_planner(hw=odd)
    assert q.state().memory.capacity == 20e9 == ic.Workload("Qwen3-8B", odd).memory.capacity
    assert q.controls["reading"].value == "physical GiB"


def test_capacity_planner_width_menu_is_the_shared_table():
    from infra_calc.widgets._base import BYTE_WIDTHS

    p = capacity_planner()
    assert tuple(p.controls["bytes_per_param"].options) == BYTE_WIDTHS


def test_capacity_warns_exactly_when_it_does_not_fit():
    p = capacity_planner()
    assert p.state().fits and "ic-warning" not in p.readout.value
    p.controls["batch"].value = 64
    assert not p.state().fits and "ic-warning" in p.readout.value



def test_capacity_label_fits_and_units_spelled():
    p = capacity_planner("DeepSeek-R1-Distill-Llama-70B", "H200 SXM")
    p.fig.canvas.draw()
    box = p.cap_text.get_window_extent()
    ax_box = p.ax.get_window_extent()
    assert box.x0 >= ax_box.x0 and box.x1 <= ax_box.x1, "capacity label cut at the edge"
    assert "(2 GiB)" in p.readout.value            # the slider's GiB, named in the readout
    p.controls["batch"].value = 64
    p.controls["context"].value = 131072
    assert "," in p.readout.value.split("total ")[1].split(" GB")[0]   # 2,892.03 GB style
    assert p.controls["model"].layout.width == "max-content"

