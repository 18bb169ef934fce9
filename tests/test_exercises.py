"""Self-test answers: computed answers match the source's stated answers, and the book
poses exactly the registered exercises, each with its solution."""
import re

import pytest
from conftest import NOTEBOOKS, ROOT, page_text

from infra_calc import exercises

EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}[^\n]*\n(?:[^\n]*\n)*?:label:\s*(\S+)", re.M)
SOLUTION = re.compile(r"^(?:`{3,}|:{3,})\{solution(?:-start)?\}\s+(\S+)", re.M)


def decimals(x):
    s = repr(float(x)).rstrip("0").rstrip(".")
    return len(s.split(".")[1]) if "." in s else 0


def registry_id(label: str) -> str:
    """The registry id of an exercise label: "j07-ex-n1" and "j13-selftest-2" -> "j07-n1", "j13-2"."""
    parts = label.split("-")
    return f"{parts[0]}-{parts[-1]}"


def book_exercises() -> dict[str, dict]:
    """{registry id: {"page", "label", "solutions"}} for every {exercise} in the book."""
    found = {}
    for path in NOTEBOOKS:
        text = page_text(path)
        solutions = SOLUTION.findall(text)
        for m in EXERCISE.finditer(text):
            label = m.group(2)
            ex_id = registry_id(label)
            assert ex_id not in found, f"exercise {ex_id} posed twice ({found.get(ex_id)}, {path.name})"
            found[ex_id] = {"page": path.relative_to(ROOT).as_posix(), "label": label,
                            "solutions": solutions.count(label)}
    return found


SOURCE_IDS = ["j07-1", "j07-2", "j07-3", "j07-4", "j13-1", "j13-2", "j13-3", "j13-4"]


def test_source_ids_are_the_registry_source_questions():
    with_answer = [i for i in exercises.exercise_ids() if exercises.get(i).source_answer is not None]
    assert with_answer == SOURCE_IDS


@pytest.mark.parametrize("ex_id", SOURCE_IDS)
def test_source_answers(ex_id):
    ex = exercises.get(ex_id)
    assert ex.source_answer is not None
    assert round(exercises.expected(ex_id), decimals(ex.source_answer)) == ex.source_answer
    assert exercises.check(ex_id, ex.source_answer).correct


def test_book_poses_exactly_the_registered_exercises():
    posed = book_exercises()
    assert sorted(posed) == sorted(exercises.exercise_ids()), \
        (f"registered but not in the book: {sorted(set(exercises.exercise_ids()) - set(posed))}; "
         f"in the book but not registered: {sorted(set(posed) - set(exercises.exercise_ids()))}")


def test_every_exercise_has_one_solution():
    bad = {i: e for i, e in book_exercises().items() if e["solutions"] != 1}
    assert not bad, f"exercises without exactly one solution block: {bad}"


def test_each_chapter_has_new_exercises():
    for ch in ("j07", "j13"):
        new = [i for i in exercises.exercise_ids(ch) if i.startswith(f"{ch}-n")]
        assert new and new == [f"{ch}-n{k}" for k in range(1, len(new) + 1)], (ch, new)


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
