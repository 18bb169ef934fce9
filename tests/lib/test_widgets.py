"""infra_calc.widgets and its shared base (widgets/_base.py): what every explorer does
(crisp images, an HTML title, what an unrun cell shows, one fit warning).  Each explorer's own
tests are in tests/lib/test_widgets_<module>.py; shared helpers in tests/widget_checks.py.
The answer checker (bookkit): tests/bookkit/test_exercises_checker.py; the browser side (a real
JupyterLab): tests/e2e/test_lab_checkers.py and test_lab_explorers.py.
"""
from __future__ import annotations

import itertools
import struct

import pytest

pytest.importorskip("ipywidgets")

from widget_checks import each_setting, outside  # noqa: E402

import infra_calc as ic  # noqa: E402
from infra_calc.widgets import EXPLORERS, decode_step_explorer  # noqa: E402
from infra_calc.widgets._base import PIXEL_RATIO  # noqa: E402


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



@pytest.mark.parametrize("make", EXPLORERS, ids=lambda f: f.__name__)
def test_title_is_an_html_line_not_drawn_in_the_image(make):
    ex = make()
    assert ex.title_artist is not None and not ex.title_artist.get_visible()
    first = ex.title_artist.get_text().split("\n")[0]
    assert first and first.replace("&", "&amp;") in ex.heading.value
    assert "ic-title" in ex.heading._dom_classes and not outside(ex.fig)



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



def test_each_setting_visits_every_combination_moving_one_control():
    class Control:
        value = None
    controls = {"a": Control(), "b": Control(), "c": Control()}
    grid = {"a": (1, 2, 3), "b": ("x", "y"), "c": (0, lambda control: 9)}
    seen = []
    for combo in each_setting(controls, grid):
        assert combo == tuple(controls[n].value for n in grid)
        seen.append(combo)
    grid["c"] = (0, 9)
    assert sorted(seen, key=str) == sorted(itertools.product(*grid.values()), key=str)
    assert all(sum(x != y for x, y in zip(a, b, strict=True)) == 1
               for a, b in itertools.pairwise(seen))
