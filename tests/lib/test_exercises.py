"""Self-test answers in the book: computed answers match the source's stated answers, and
the book poses exactly the registered exercises, each with its solution.

The package's modules have their own tests: test_exercises_{spec,registry,answers,hints,grading}.py.
"""
import re

import pytest
from conftest import NOTEBOOKS, ROOT, cells, page_text, source

from infra_calc import exercises

EXERCISE = re.compile(r"^(`{3,}|:{3,})\{exercise\}[^\n]*\n(?:[^\n]*\n)*?:label:\s*(\S+)", re.M)
SOLUTION = re.compile(r"^(?:`{3,}|:{3,})\{solution(?:-start)?\}\s+(\S+)", re.M)
REGISTRY_ID = re.compile(r"[\"']([a-z]+\d*-[a-z]?\d+)[\"']")


def decimals(x):
    s = repr(float(x)).rstrip("0").rstrip(".")
    return len(s.split(".")[1]) if "." in s else 0


def registered_ids_used(path) -> list[str]:
    """Registry ids a page's code refers to (``exercises.get("j07-1")`` and the like)."""
    ids = set(exercises.exercise_ids())
    code = "\n".join(source(c) for c in cells(path) if c["cell_type"] == "code")
    return sorted({m for m in REGISTRY_ID.findall(code) if m in ids})


def book_exercises() -> dict[str, dict]:
    """Per page with exercises: its exercise labels, solution labels and registry ids used."""
    found = {}
    for path in NOTEBOOKS:
        text = page_text(path)
        labels = [m.group(2) for m in EXERCISE.finditer(text)]
        if labels:
            found[path.relative_to(ROOT).as_posix()] = {
                "exercises": labels, "solutions": SOLUTION.findall(text),
                "registry": registered_ids_used(path)}
    return found


SOURCE_IDS = ["j07-1", "j07-3", "j13-1", "j13-2", "j13-3", "j13-4"]


def test_source_ids_are_the_registry_source_questions():
    with_answer = [i for i in exercises.exercise_ids() if exercises.get(i).source_answer is not None]
    assert with_answer == SOURCE_IDS


@pytest.mark.parametrize("ex_id", SOURCE_IDS)
def test_source_answers(ex_id):
    ex = exercises.get(ex_id)
    assert ex.source_answer is not None
    assert round(exercises.expected(ex_id), decimals(ex.source_answer)) == ex.source_answer
    assert exercises.check(ex_id, ex.source_answer).correct


def test_book_uses_exactly_the_registered_exercises():
    """Every registered answer is used by the page that poses it, and nothing else is."""
    pages = book_exercises()
    used = sorted(i for e in pages.values() for i in e["registry"])
    assert sorted(set(used)) == sorted(exercises.exercise_ids()), \
        f"registered but used by no page: {sorted(set(exercises.exercise_ids()) - set(used))}"
    assert len(used) == len(set(used)), f"a registered exercise is used on two pages: {used}"
    for page, e in pages.items():
        assert len(e["exercises"]) >= len(e["registry"]), \
            f"{page}: {len(e['registry'])} registered answers but {len(e['exercises'])} exercises"


def test_every_exercise_has_one_solution():
    bad = {}
    for page, e in book_exercises().items():
        labels = e["exercises"]
        assert len(labels) == len(set(labels)), f"{page}: duplicate exercise labels {labels}"
        wrong = {lab: e["solutions"].count(lab) for lab in labels if e["solutions"].count(lab) != 1}
        orphans = sorted(set(e["solutions"]) - set(labels))
        if wrong or orphans:
            bad[page] = {"solutions per exercise": wrong, "solutions without exercise": orphans}
    assert not bad, f"exercises without exactly one solution block: {bad}"


def test_each_chapter_has_new_exercises():
    for ch in ("j07", "j13"):
        new = [i for i in exercises.exercise_ids(ch) if i.startswith(f"{ch}-n")]
        assert new and new == [f"{ch}-n{k}" for k in range(1, len(new) + 1)], (ch, new)
