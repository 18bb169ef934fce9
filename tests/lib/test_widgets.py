"""The explorers without a browser: crisp images, fixed axes, one number format, and
what an unrun cell shows.  The answer checker (bookkit): tests/bookkit/test_exercises_checker.py.

The browser side (a real JupyterLab) is tests/e2e/test_lab_checkers.py and test_lab_explorers.py.
"""
from __future__ import annotations

import struct

import pytest

pytest.importorskip("ipywidgets")

import infra_calc as ic  # noqa: E402
from infra_calc.widgets import (  # noqa: E402
    EXPLORERS,
    capacity_planner,
    decode_step_explorer,
    moe_padding_explorer,
    roofline_explorer,
)
from infra_calc.widgets._base import PIXEL_RATIO  # noqa: E402


# ------------------------------------------------------------------ explorers
def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("make", EXPLORERS, ids=lambda f: f.__name__)
def test_image_is_rendered_at_twice_the_shown_size(make):
    ex = make()
    width, height = _png_size(ex.image.value)
    assert ex.image.layout.width == f"{ex.width_px}px"
    assert (width, height) == (ex.width_px * PIXEL_RATIO, ex.height_px * PIXEL_RATIO)


def test_image_holds_the_canvas_pixels():
    """The PNG decodes to the canvas's RGB, pixel for pixel (the alpha channel dropped)."""
    import io

    import numpy as np
    import PIL.Image

    ex = EXPLORERS[0]()
    decoded = np.asarray(PIL.Image.open(io.BytesIO(ex.image.value)))
    assert np.array_equal(decoded, np.asarray(ex.canvas.buffer_rgba())[:, :, :3])


@pytest.mark.parametrize("make", EXPLORERS, ids=lambda f: f.__name__)
def test_unrun_cell_says_what_running_it_shows(make):
    ex = make()
    text = ex._repr_mimebundle_()["text/plain"]
    assert text == repr(ex) and "Run this cell" in text and "children=" not in text
    assert len(text) > 110           # not cut the way ipywidgets cuts a repr


def _limits(ex):
    return [(ax.get_xlim(), ax.get_ylim()) for ax in ex.fig.axes]


def test_decode_axes_fixed_and_one_precision():
    ex = decode_step_explorer()
    lims = _limits(ex)
    for key, value in (("batch", 64), ("hw", ic.accelerator("A100 80GB")), ("bytes_per_param", 0.5),
                       ("params", 400.0), ("batch", 512), ("params", 1.0)):
        ex.controls[key].value = value
        assert _limits(ex) == lims
        st = ex.state()
        for label in ex.artists["labels"][:1]:       # the read bar's label is in the readout
            assert f"read {label.get_text()}" in ex.readout.value
        assert st.t_read * 1e3 < lims[0][0][1] and st.t_compute * 1e3 > lims[0][0][0]
    assert ex.renders == 1        # the static layer was drawn once: nothing rescaled


def test_decode_warns_when_the_weights_outgrow_the_card():
    ex = decode_step_explorer()                  # the chapter's 70B at 8 bits: fits on an H100
    assert "ic-warning" not in ex.readout.value
    ex.controls["bytes_per_param"].value = 2.0   # BF16: 140 GB of weights
    assert "ic-warning" in ex.readout.value and "Does not fit" in ex.readout.value
    assert ex.state().params * 2.0 > ex.state().hw.mem_capacity
    ex.controls["hw"].value = ic.accelerator("H200 SXM")     # 141 GiB: the weights alone fit
    assert "ic-warning" not in ex.readout.value


def test_one_fit_warning_for_every_readout():
    """The three readouts' "Does not fit" line comes from fit_warning: what one card must
    hold against the card's capacity, both in GB with 4 significant figures."""
    from infra_calc.widgets._base import fit_warning, ms
    h100 = ic.accelerator("H100 SXM")
    text = fit_warning(h100, 140e9, weights_only=True, bars="they fitted on one card")
    assert text.startswith("<div class='ic-warning'")
    assert ("<b>Does not fit</b>: the weights alone are 140.0 GB; the H100 SXM has "
            f"{ic.display.sig(h100.mem_capacity, 'GB')}. The bars are the bounds as if they "
            "fitted on one card.</div>") in text
    assert "needs 90.00 GB per card; the H100 SXM has" in fit_warning(h100, 90e9)
    assert fit_warning(h100, 90e9).endswith("GB.</div>")
    assert ms(0.0123456) == "12.35 ms"
    ex = decode_step_explorer()
    ex.controls["bytes_per_param"].value = 2.0
    st = ex.state()
    assert fit_warning(st.hw, st.params * 2.0, weights_only=True,
                       bars="they fitted on one card") in ex.readout.value


def test_decode_target_line_is_labelled():
    ex = decode_step_explorer()
    assert any(t.get_text() == "10 ms target" for t in ex.ax.texts)


def test_moe_axis_fixed_while_skew_moves_and_ticks_separated():
    ex = moe_padding_explorer(tokens=1024, top_k=16, tile_rows=1)
    lims = _limits(ex)
    for skew in (0.25, 0.5, 0.75, 1.0):
        ex.controls["skew"].value = skew
        assert _limits(ex) == lims
    ex.fig.canvas.draw()
    ticks = [t.get_text() for t in ex.ax.get_yticklabels()]
    assert any("," in t for t in ticks), ticks


def test_roofline_title_and_units():
    ex = roofline_explorer()
    assert ex.artists["title"].get_text() == "H100 SXM: [1 × 4096] @ [4096 × 4096]"
    ex.controls["m"].value = 4096
    assert "MFLOP" not in ex.readout.value and "137.44 GFLOP" in ex.readout.value
    assert ex.renders == 1


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
