"""infra_calc.widgets.decode: the decode-step explorer."""
from __future__ import annotations

import pytest

import infra_calc as ic


def _close(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)


# --------------------------------------------------------------------------- widget
def test_decode_step_explorer_updates_in_place():
    from infra_calc.widgets import decode_step_explorer

    box = decode_step_explorer()
    fig, bars = box.fig, box.artists["bars"]
    assert "read 20.90 ms" in box.readout.value and "memory-bound" in box.readout.value
    assert "47.9 tokens/s" in box.readout.value
    def end(patch):
        return patch.get_x() + patch.get_width()

    compute_before = end(bars[1])

    box.controls["batch"].value = 8
    assert box.fig is fig and box.artists["bars"] is bars      # no new figure, same artists
    assert end(bars[1]) == pytest.approx(8 * compute_before, rel=1e-9)
    assert "382.9 tokens/s" in box.readout.value
    assert "B = 8" in box.artists["title"].get_text()

    box.controls["batch"].value = 256
    assert "compute-bound" in box.readout.value
    assert box.state().bound == "compute"

    box.controls["hw"].value = ic.accelerator("A100 80GB")     # the menu holds the cards
    box.controls["batch"].value = 1
    assert "read 34.33 ms" in box.readout.value
    assert end(bars[0]) == pytest.approx(34.3306, rel=1e-4)
    assert box.artists["labels"][0].get_text() == "34.33 ms"

    box.controls["bytes_per_param"].value = 0.5
    box.controls["params"].value = 8.0
    st = box.state()
    assert st.bytes_read == pytest.approx(4e9) and st.hw.name == "A100 80GB"
    assert box.fig is fig
    _close(fig)


def test_explorer_options():
    from infra_calc.widgets import decode
    from infra_calc.widgets._base import BYTE_WIDTHS

    assert decode.BATCH_OPTIONS[0] == 1 and decode.BATCH_OPTIONS[-1] == 512
    assert [v for _, v in BYTE_WIDTHS] == [2.0, 1.0, 0.5]
    box = decode.decode_step_explorer()
    assert tuple(box.controls["bytes_per_param"].options) == BYTE_WIDTHS
    assert [name for name, _ in box.controls["hw"].options] == ic.accelerator_names()
    assert [card for _, card in box.controls["hw"].options] == list(ic.CATALOG.values())
    _close(box.fig)


def test_decode_explorer_keeps_a_given_card():
    """The menu holds the cards: the source's H100 (not the catalog's) is the one bounded."""
    from infra_calc import source
    from infra_calc.widgets import decode_step_explorer

    h100 = source.j07_h100()
    assert h100 != ic.accelerator("H100 SXM")         # else the test could not tell them apart
    box = decode_step_explorer(hw=h100)
    assert box.controls["hw"].value is h100 and box.state().hw is h100
    assert box.state() == ic.decode_step(source.J07_PARAMS, h100,
                                         bytes_per_param=source.J07_BYTES_PER_PARAM)
    box.controls["batch"].value = 8
    assert box.state().hw is h100
    _close(box.fig)


def test_decode_explorer_holds_the_count_and_shows_billions():
    """(params, hw, *, ...) like every explorer; the count is a count, the box shows billions."""
    from infra_calc.widgets import decode_step_explorer
    from infra_calc.widgets.decode import DecodeStepExplorer

    m = ic.model("Llama-3.1-8B")
    box = DecodeStepExplorer(m.params, "A100 80GB", bytes_per_param=2.0, batch=4)
    assert box.params == m.params and box.state().params == m.params     # exact, no round trip
    assert box.controls["params"].value == pytest.approx(m.params / 1e9)
    assert box.controls["model"].value.startswith("Llama-3.1-8B")
    assert box.state() == ic.decode_step(m.params, "A100 80GB", bytes_per_param=2.0, batch=4)
    f = decode_step_explorer(m.params, "A100 80GB", bytes_per_param=2.0, batch=4)
    assert f.state() == box.state()
    box.controls["params"].value = 12.5
    assert box.params == pytest.approx(12.5e9) and box.state().params == pytest.approx(12.5e9)
    assert box.controls["model"].value == "other (type the count)"
    _close(box.fig)
    _close(f.fig)


