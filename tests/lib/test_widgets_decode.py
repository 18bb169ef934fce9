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

    box.controls["hw"].value = "A100 80GB"
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

    assert decode.BATCH_OPTIONS[0] == 1 and decode.BATCH_OPTIONS[-1] == 512
    assert [v for _, v in decode.BYTES_OPTIONS] == [2.0, 1.0, 0.5]
    box = decode.decode_step_explorer()
    assert list(box.controls["hw"].options) == ic.accelerator_names()
    _close(box.fig)


