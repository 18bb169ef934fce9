"""The answer checker (bookkit/exercises/checker.py) without a browser.

The front end sends one message per click, ``{"event": "check", "text", "attempt"}``;
these tests send exactly those messages to the kernel side and read the verdicts it
answers.  The browser side (a real JupyterLab, bursts of clicks on a busy machine) is
tests/e2e/test_lab_checkers.py.
"""
from __future__ import annotations

import re

import pytest

pytest.importorskip("anywidget")

from bookkit import exercises  # noqa: E402
from bookkit.exercises.checker import AnswerBox, answer_checker  # noqa: E402


def click(chk, text, attempt):
    """What the front end sends when Check is pressed with ``text`` in the box."""
    chk.box._handle(chk.box, {"event": "check", "text": text, "attempt": attempt}, [])
    return chk.box.verdict


def recorder(chk) -> list[dict]:
    got: list[dict] = []
    chk.box.observe(lambda ch: got.append(ch["new"]), names="verdict")
    return got


# ------------------------------------------------------------------ one message, one verdict
def test_a_click_grades_the_text_it_carries():
    chk = answer_checker("ch1-1")
    v = click(chk, "34.3", 1)
    assert v["attempt"] == 1 and v["text"] == "34.3" and v["correct"]
    assert "data-attempt='1'" in v["html"] and "Right" in v["html"] and "34.3 ms" in v["html"]


def test_a_burst_of_clicks_gets_one_verdict_each_about_its_own_text():
    """Ten clicks without waiting, each with another text: ten verdicts, in order, each
    about the text of its own click (the old checker graded some against another value)."""
    chk = answer_checker("ch2-4")                   # 4 requests, exact
    got = recorder(chk)
    texts = ["4", "7", "4 requests", "5", "4", "450", "3 requests", "4", "551", "4 req"]
    for n, text in enumerate(texts, start=1):
        click(chk, text, n)
    assert [v["attempt"] for v in got] == list(range(1, 11))
    for v, text in zip(got, texts, strict=True):
        assert v["text"] == text
        value = exercises.parse_answer(text, "requests")
        if value == 4:
            assert v["correct"] and "Right" in v["html"], v
        else:
            assert not v["correct"] and f"you gave {value:,.0f} requests" in v["html"], v


def test_verdict_answers_the_attempt_the_front_end_numbered():
    chk = answer_checker("ch1-1")
    assert click(chk, "20", 7)["attempt"] == 7 and chk.box.attempts == 7
    assert click(chk, "20", 3)["attempt"] == 3 and chk.box.attempts == 7   # late: kept apart
    assert click(chk, "20", None)["attempt"] == 8                           # no number: next


def test_empty_and_bad_text_get_a_message_not_an_error():
    chk = answer_checker("ch1-1")
    assert "Type a number, in ms" in click(chk, "", 1)["html"]
    assert "is not a number" in click(chk, "abc", 2)["html"]
    assert "unit of bytes" in click(chk, "34.3 GB", 3)["html"]


def test_units_are_converted():
    for eid, typed in (("ch1-1", "34.3"), ("ch1-1", "34.3 ms"), ("ch1-1", "0.0343 s"),
                       ("ch1-1", "34,330 us"), ("ch1-1", "3.433e-2 s"),
                       ("ch1-n1", "0.01415 s"), ("ch3-n5", "2.98x"), ("ch3-n5", "2.98 ×"),
                       ("ch2-4", "4 requests"), ("ch2-2", "295.3 flop/byte")):
        v = click(answer_checker(eid), typed, 1)
        assert v["correct"], (eid, typed, v["html"])


# ------------------------------------------------------------------ coaching
def test_box_starts_empty_with_the_unit_as_placeholder():
    chk = answer_checker("ch1-1")
    assert chk.box.placeholder == "answer in ms" and chk.verdict == ""
    assert chk.revealed.value == "" and chk.box.exercise_id == "ch1-1"


def test_wrong_answer_hints_without_the_answer():
    chk = answer_checker("ch1-1")
    answer = exercises.check("ch1-1", exercises.expected("ch1-1")).answer_text   # "34.33 ms"
    for n, (typed, hint) in enumerate((("20", "too low"), ("0.0343", "Check your units"),
                                       ("34300 ms", "Check your units"), ("300", "too high")), 1):
        text = click(chk, typed, n)["html"]
        assert "Not yet" in text and hint in text, text
        assert answer.split()[0] not in text and "34.3" not in text.replace(typed, "")
        assert not re.search(r"\d+(\.\d+)?\s*%", text), text            # no percentages
        assert chk.revealed.value == ""            # no answer unless asked


def test_show_answer_reveals_answer_and_parts_and_points_to_the_page():
    from bookkit.exercises.checker import SEE_SOLUTION

    chk = answer_checker("ch1-1")
    chk.box._handle(chk.box, {"event": "reveal"}, [])
    text = chk.revealed.value
    assert "34.33 ms" in text and "reachable" in text and "<b>no</b>" in text
    assert SEE_SOLUTION in text


def test_yes_no_part_has_its_own_control():
    chk = answer_checker("ch1-1")
    (pick, note), = chk.parts
    assert list(pick.options) == ["yes", "no"] and pick.value is None
    pick.value = "yes"
    assert "Not yes" in note.value
    pick.value = "no"
    assert "Right" in note.value


def test_title_is_shown_instead_of_the_id():
    from bookkit import exercises

    title = exercises.get("ch1-1").title
    chk = answer_checker("ch1-1")
    assert title and chk.header.value == f"<b>{title}.</b>"  # no question, no id
    assert f"for {title}:" in repr(chk) and chk.box.exercise_id == "ch1-1"


@pytest.mark.parametrize("eid", exercises.exercise_ids())
def test_every_exercise_checker_builds_and_accepts_its_answer(eid):
    chk = answer_checker(eid)
    assert click(chk, repr(exercises.expected(eid)), 1)["correct"]
    assert "run this cell" in repr(chk) and "children" not in repr(chk)


# ------------------------------------------------------------------ the front end's contract
def test_front_end_sends_text_and_attempt_with_the_click_and_needs_no_network():
    js = AnswerBox._esm if isinstance(AnswerBox._esm, str) else str(AnswerBox._esm)
    assert 'model.send({ event: "check", text, attempt })' in js
    assert "change:verdict" in js
    assert not re.search(r"\bimport\b|https?://", js.split("\n", 3)[-1]), "no imports, no URLs"
    # the box's text is not a synced trait: nothing else can carry it
    synced = set(AnswerBox.class_traits(sync=True))
    assert not {"value", "text"} & synced
