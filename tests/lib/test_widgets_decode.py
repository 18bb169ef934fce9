"""infra_calc.widgets.decode: the decode-step explorer."""
from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from widget_checks import limits, outside  # noqa: E402

import infra_calc as ic  # noqa: E402
from infra_calc.figures import ch1  # noqa: E402
from infra_calc.widgets import decode_step_explorer  # noqa: E402
from infra_calc.widgets.decode import OTHER  # noqa: E402


# --------------------------------------------------------------------------- widget
def test_decode_step_explorer_updates_in_place():

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


def test_explorer_options():
    from infra_calc.widgets import decode
    from infra_calc.widgets._base import BYTE_WIDTHS

    box = decode.decode_step_explorer()
    assert tuple(box.controls["bytes_per_param"].options) == BYTE_WIDTHS
    assert [name for name, _ in box.controls["hw"].options] == list(ic.CATALOG)
    assert [card for _, card in box.controls["hw"].options] == list(ic.CATALOG.values())


def test_decode_explorer_keeps_a_given_card():
    """The menu holds the cards: the source's H100 (not the catalog's) is the one bounded."""
    from infra_calc import source

    h100 = source.j07_h100()
    assert h100 != ic.accelerator("H100 SXM")         # else the test could not tell them apart
    box = decode_step_explorer(hw=h100)
    assert box.controls["hw"].value is h100 and box.state().hw is h100
    assert box.state() == ic.decode_step(source.J07_PARAMS, h100,
                                         bytes_per_param=source.J07_BYTES_PER_PARAM)
    box.controls["batch"].value = 8
    assert box.state().hw is h100


def test_decode_explorer_holds_the_count_and_shows_billions():
    """(params, hw, *, ...) like every explorer; the count is a count, the box shows billions."""
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


def test_decode_axes_fixed_and_one_precision():
    ex = decode_step_explorer()
    lims = limits(ex)
    for key, value in (("batch", 64), ("hw", ic.accelerator("A100 80GB")), ("bytes_per_param", 0.5),
                       ("params", 400.0), ("batch", 512), ("params", 1.0)):
        ex.controls[key].value = value
        assert limits(ex) == lims
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


def test_decode_target_line_is_labelled():
    ex = decode_step_explorer()
    assert any(t.get_text() == "10 ms target" for t in ex.ax.texts)



def test_decode_menu_holds_catalog_models_and_a_typed_count():
    ex = decode_step_explorer()
    c = ex.controls
    labels = list(c["model"].options)
    assert any(label.startswith("Llama-3.1-8B (") for label in labels) and OTHER in labels
    assert not any("Mixtral" in label for label in labels)      # MoE: not every weight read
    assert c["model"].value.startswith("the chapter's model")
    c["model"].value = next(x for x in labels if x.startswith("Llama-3.1-8B"))
    assert c["params"].value == pytest.approx(ic.model("Llama-3.1-8B").params / 1e9)
    assert ex.state().params == pytest.approx(ic.model("Llama-3.1-8B").params)
    c["params"].value = 3.46737
    assert c["model"].value == OTHER and ex.state().params == pytest.approx(3.46737e9)
    assert "N = 3.47 billion" in ex.heading.value


def test_decode_title_rounds_the_parameter_count():
    st = ic.decode_step(3.46737e9, "H100 SXM", bytes_per_param=2)
    assert "N = 3.47 billion" in ch1._panel_text(st)


def test_decode_explorer_draws_nothing_outside():
    ex = decode_step_explorer()
    for params, batch in ((1.0, 1), (1000.0, 512), (3.46737, 8)):
        ex.controls["params"].value = params
        ex.controls["batch"].value = batch
        assert not outside(ex.fig), outside(ex.fig)
