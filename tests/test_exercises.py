"""Self-test answers: computed answers match the source's stated answers."""
import pytest

from infra_calc import exercises


def decimals(x):
    s = repr(float(x)).rstrip("0").rstrip(".")
    return len(s.split(".")[1]) if "." in s else 0


SOURCE_IDS = ["j07-1", "j07-2", "j07-3", "j07-4", "j13-1", "j13-2", "j13-3", "j13-4"]


@pytest.mark.parametrize("ex_id", SOURCE_IDS)
def test_source_answers(ex_id):
    ex = exercises.get(ex_id)
    assert ex.source_answer is not None
    assert round(exercises.expected(ex_id), decimals(ex.source_answer)) == ex.source_answer
    assert exercises.check(ex_id, ex.source_answer).correct


def test_each_chapter_has_new_exercises():
    for ch in ("j07", "j13"):
        new = [i for i in exercises.exercise_ids(ch) if i.startswith(f"{ch}-n")]
        assert len(new) >= 4, (ch, new)


@pytest.mark.parametrize("ex_id", exercises.exercise_ids())
def test_checker_right_and_wrong(ex_id):
    exp = exercises.expected(ex_id)
    right = exercises.check(ex_id, exp)
    assert right.correct and right.message.startswith("Right") and right.solution
    wrong = exercises.check(ex_id, exp * 1.5 + 1)
    assert not wrong.correct and wrong.message.startswith("Not yet")


def test_checker_errors():
    with pytest.raises(ValueError, match="unknown exercise"):
        exercises.check("j99-1", 1.0)
    with pytest.raises(TypeError, match=r"value \(ms\) must be a number"):
        exercises.check("j07-1", "34.3")
    with pytest.raises(ValueError, match="finite"):
        exercises.check("j07-1", float("nan"))
