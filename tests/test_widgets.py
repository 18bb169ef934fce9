"""The widgets without a browser: checker grading order and coaching, explorers'
crisp images, fixed axes, one number format, and what an unrun cell shows.

The browser side (a real JupyterLab) is tests/test_lab_e2e.py.
"""
from __future__ import annotations

import struct

import pytest

pytest.importorskip("ipywidgets")

from infra_calc import exercises  # noqa: E402
from infra_calc.widgets import (  # noqa: E402
    answer_checker,
    capacity_planner,
    decode_step_explorer,
    kv_explorer,
    moe_padding_explorer,
    roofline_explorer,
)
from infra_calc.widgets._base import PIXEL_RATIO  # noqa: E402
from infra_calc.widgets._checker import AnswerChecker  # noqa: E402

EXPLORERS = [decode_step_explorer, roofline_explorer, moe_padding_explorer, capacity_planner,
             kv_explorer]


class FakeLoop:
    """Stands in for the kernel's event loop: callbacks run when the test says."""

    def __init__(self):
        self.calls = []

    def __call__(self, delay, fn):
        self.calls.append(fn)
        return fn

    def run(self):
        calls, self.calls = self.calls, []
        for fn in calls:
            fn()


def _verdict(chk) -> str:
    return chk.verdict.value


# ------------------------------------------------------------------ checker: the race
def test_click_before_the_late_box_update_grades_the_new_value():
    """Today's race, message by message: the reader typed 34.3, ipywidgets held the
    box's update back behind an earlier one, and the click reached the kernel first.
    The old checker graded the stale "20"; this one waits for the update."""
    loop = FakeLoop()
    chk = AnswerChecker("j07-1", schedule=loop)
    chk.box.value = "20"                 # an earlier update, already in the kernel
    chk.check_button.click()             # the click overtakes ...
    assert "Checking" in _verdict(chk)   # ... and nothing is graded inside it
    chk.box.value = "34.3"               # ... the held-back update arrives
    assert "Right" in _verdict(chk) and "34.3 ms" in _verdict(chk)
    loop.run()                           # the settle timer finds nothing left to grade
    assert "Right" in _verdict(chk)


def test_update_later_than_the_settle_time_regrades_the_attempt():
    loop = FakeLoop()
    chk = AnswerChecker("j07-1", schedule=loop)
    chk.box.value = "20"
    chk.check_button.click()
    loop.run()                           # a busy kernel: the timer fires first ...
    assert "Not yet" in _verdict(chk)
    chk.box.value = "34.3"               # ... then the held-back update arrives
    assert "Right" in _verdict(chk) and "data-attempt='1'" in _verdict(chk)


def test_click_after_the_update_is_graded_when_the_loop_settles():
    loop = FakeLoop()
    chk = AnswerChecker("j07-1", schedule=loop)
    for attempt in range(1, 51):
        chk.box.value = "20" if attempt % 2 else "34.3"
        chk.check_button.click()
        loop.run()
        want = "Not yet" if attempt % 2 else "Right"
        assert want in _verdict(chk) and f"data-attempt='{attempt}'" in _verdict(chk)


# ------------------------------------------------------------------ checker: coaching
def test_box_starts_empty_with_the_unit_as_placeholder():
    chk = answer_checker("j07-1")
    assert chk.box.value == "" and chk.box.placeholder == "answer in ms"
    assert chk.solution.value == ""


def test_wrong_answer_hints_without_the_answer():
    chk = answer_checker("j07-1")
    answer = exercises.check("j07-1", exercises.expected("j07-1")).answer_text   # "34.33 ms"
    for typed, hint in (("20", "too low"), ("0.0343", "Check your units"),
                        ("34300 ms", "Check your units"), ("300", "too high")):
        chk.box.value = typed
        chk.check_button.click()
        text = _verdict(chk)
        assert "Not yet" in text and hint in text, text
        assert answer.split()[0] not in text and "34.3" not in text.replace(typed, "")
        assert chk.solution.value == ""            # no worked solution unless asked


def test_units_are_converted():
    chk = answer_checker("j07-1")
    for typed in ("34.3", "34.3 ms", "0.0343 s", "34,330 us", "3.433e-2 s"):
        chk.box.value = typed
        chk.check_button.click()
        assert "Right" in _verdict(chk), (typed, _verdict(chk))
    chk.box.value = "34.3 GB"
    chk.check_button.click()
    assert "unit of bytes" in _verdict(chk)


def test_show_answer_reveals_answer_parts_and_solution():
    chk = answer_checker("j07-1")
    chk.reveal_button.click()
    text = chk.solution.value
    assert "34.33 ms" in text and "T_read" in text and "reachable" in text and "<b>no</b>" in text


def test_yes_no_part_has_its_own_control():
    chk = answer_checker("j07-1")
    (pick, note), = chk.parts
    assert list(pick.options) == ["yes", "no"] and pick.value is None
    pick.value = "yes"
    assert "Not yes" in note.value
    pick.value = "no"
    assert "Right" in note.value


@pytest.mark.parametrize("eid", exercises.exercise_ids())
def test_every_exercise_checker_builds_and_accepts_its_answer(eid):
    chk = answer_checker(eid)
    chk.box.value = repr(exercises.expected(eid))
    chk.check_button.click()
    assert "Right" in _verdict(chk)
    assert "run this cell" in repr(chk) and "children" not in repr(chk)


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
    for key, value in (("batch", 64), ("hw", "A100 80GB"), ("bytes_per_param", 0.5),
                       ("params", 400.0), ("batch", 512), ("params", 1.0)):
        ex.controls[key].value = value
        assert _limits(ex) == lims
        st = ex.state()
        for label in ex.artists["labels"][:1]:       # the read bar's label is in the readout
            assert f"read {label.get_text()}" in ex.readout.value
        assert st.t_read * 1e3 < lims[0][0][1] and st.t_compute * 1e3 > lims[0][0][0]
    assert ex.renders == 1        # the static layer was drawn once: nothing rescaled


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
    p = capacity_planner(accelerator="H200 SXM", model="DeepSeek-R1-Distill-Llama-70B")
    p.fig.canvas.draw()
    box = p.cap_text.get_window_extent()
    ax_box = p.ax.get_window_extent()
    assert box.x0 >= ax_box.x0 and box.x1 <= ax_box.x1, "capacity label cut at the edge"
    assert "(2 GiB)" in p.readout.value            # the slider's GiB, named in the readout
    p.controls["batch"].value = 64
    p.controls["context"].value = 131072
    assert "," in p.readout.value.split("total ")[1].split(" GB")[0]   # 2,892.03 GB style
    assert p.controls["model"].layout.width == "max-content"
