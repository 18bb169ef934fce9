"""Self-test pages and the exercise registry agree (issues 16 §3 and 18 §3), and the
computed answers match the source's stated ones.

For every chapter with registered exercises (``bookkit.exercises``):

* each registered id is the ``:label:`` of an ``{exercise}`` on that chapter's pages, so a
  reader, the checker and the tests all name an exercise the same way, and of the pages
  that pose exercises, only the one that poses it uses it in its code;
* each registered (numerical) exercise sits on the chapter's self-test page, and the cell
  right after the one that poses it shows its checker, ``answer_checker("<id>")``;
* every ``{exercise}`` has exactly one ``{solution}``;
* the chapter's pages pose its registered exercises first, in the registry's order, with
  ``:nonumber:`` on exactly the unnumbered ones: the order the registry numbers the titles
  from (:func:`bookkit.exercises.registry.with_titles`) is the page's;
* in the built HTML (skipped when ``_build/html`` is absent), the registry's ``title`` is
  the name sphinx-exercise shows for that label ("Exercise 1.3"), so the checker calls an
  exercise what the page calls it.

The directives are read with :func:`bookkit.roles.exercise_labels` and
:func:`bookkit.roles.solution_targets`.  The package's own modules have their own tests:
``tests/bookkit/test_exercises_*.py``.
"""
from __future__ import annotations

import html
import re

import pytest
from conftest import BOOK, HTML_DIR, NOTEBOOKS, ROOT, cells, page_text, source

from bookkit import exercises
from bookkit.exercises.registry import CHAPTERS
from bookkit.roles import EXERCISE_LABEL as LABEL
from bookkit.roles import exercise_labels, solution_targets

CHECKER = re.compile(r"""answer_checker\(\s*["']([^"']+)["']""")
REGISTRY_ID = re.compile(r"[\"']([a-z]+\d*-[a-z]?\d+)[\"']")

def chapter_folder(chapter: str):
    """The book folder of a chapter module (``ch2``): its number leads the folder's name
    (``2_full_speed``; numbered in reading order, so JupyterLab's file browser lists them so)."""
    [folder] = BOOK.glob(f"{CHAPTERS.index(chapter) + 1}_*")
    return folder


def chapter_pages(chapter: str) -> list:
    return sorted(chapter_folder(chapter).glob("[0-9]*.ipynb"))


def self_test_page(chapter: str):
    pages = [p for p in chapter_pages(chapter) if "self_test" in p.name]
    assert len(pages) == 1, f"{chapter}: expected one self-test page, found {pages}"
    return pages[0]


def exercise_cells(path) -> dict[str, int]:
    """``{label: index of the cell that poses it}`` for the ``{exercise}`` blocks of a page."""
    found = {}
    for i, c in enumerate(cells(path)):
        if c["cell_type"] == "markdown":
            for label in exercise_labels(source(c)):
                found[label] = i
    return found


def test_the_patterns_see_what_they_should():
    md = "```{exercise}\n:label: ch1-1\nQ?\n```\n\n````{exercise} worked\n:label: ch1-e1\n:nonumber:\n"
    assert exercise_labels(md) == ["ch1-1", "ch1-e1"]
    assert solution_targets("````{solution} ch1-1\n:class: dropdown\n") == ["ch1-1"]
    assert REGISTRY_ID.findall('exercises.get("ch1-n3"), "ch3-2"') == ["ch1-n3", "ch3-2"]
    assert CHECKER.findall('answer_checker("ch1-n3")') == ["ch1-n3"]
    assert chapter_folder("ch1").name == "1_decode_step"


def registered_ids_used(path) -> list[str]:
    """Registry ids a page's code refers to (``exercises.get("ch1-1")`` and the like)."""
    ids = set(exercises.exercise_ids())
    code = "\n".join(source(c) for c in cells(path) if c["cell_type"] == "code")
    return sorted({m for m in REGISTRY_ID.findall(code) if m in ids})


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_registered_ids_are_exercise_labels_used_by_the_page_that_poses_them(chapter):
    posed = {label: page.relative_to(ROOT).as_posix()
             for page in chapter_pages(chapter) for label in exercise_cells(page)}
    users: dict[str, list[str]] = {}      # of the pages that pose exercises (how_to_use
    for path in NOTEBOOKS:                # shows a checker as a demonstration)
        if not exercise_labels(page_text(path)):
            continue
        for i in registered_ids_used(path):
            users.setdefault(i, []).append(path.relative_to(ROOT).as_posix())
    problems = []
    for i in exercises.exercise_ids(chapter):
        if i not in posed:
            problems.append(f"{i}: no {{exercise}} :label: on the chapter's pages")
        elif users.get(i) != [posed[i]]:
            problems.append(f"{i}: posed on {posed[i]}, used by the code of {users.get(i, [])}")
    assert not problems, (f"{chapter} (labels there: {sorted(posed)}):\n  "
                          + "\n  ".join(problems))


def test_every_exercise_has_one_solution():
    bad = {}
    for path in NOTEBOOKS:
        text = page_text(path)
        labels, solutions = exercise_labels(text), solution_targets(text)
        page = path.relative_to(ROOT).as_posix()
        assert len(labels) == len(set(labels)), f"{page}: duplicate exercise labels {labels}"
        wrong = {lab: solutions.count(lab) for lab in labels if solutions.count(lab) != 1}
        orphans = sorted(set(solutions) - set(labels))
        if wrong or orphans:
            bad[page] = {"solutions per exercise": wrong, "solutions without exercise": orphans}
    assert not bad, f"exercises without exactly one solution block: {bad}"


def test_each_source_chapter_has_new_exercises():
    for ch in ("ch1", "ch2"):
        new = [i for i in exercises.exercise_ids(ch) if i.startswith(f"{ch}-n")]
        assert new and new == [f"{ch}-n{k}" for k in range(1, len(new) + 1)], (ch, new)


# ------------------------------------------------------------------ the source's answers
def decimals(x):
    s = repr(float(x)).rstrip("0").rstrip(".")
    return len(s.split(".")[1]) if "." in s else 0


SOURCE_IDS = ["ch1-1", "ch1-3", "ch2-1", "ch2-2", "ch2-3", "ch2-4"]


def test_source_ids_are_the_registry_source_questions():
    with_answer = [i for i in exercises.exercise_ids() if exercises.get(i).source_answer is not None]
    assert with_answer == SOURCE_IDS


@pytest.mark.parametrize("ex_id", SOURCE_IDS)
def test_source_answers(ex_id):
    ex = exercises.get(ex_id)
    assert ex.source_answer is not None
    assert round(exercises.expected(ex_id), decimals(ex.source_answer)) == ex.source_answer
    assert exercises.check(ex_id, ex.source_answer).correct


# ------------------------------------------------------------------ the checker below each
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_numeric_exercise_has_its_checker_right_below(chapter):
    page = self_test_page(chapter)
    nb_cells = cells(page)
    posed = exercise_cells(page)
    problems = []
    for eid in exercises.exercise_ids(chapter):
        if eid not in posed:
            problems.append(f"{eid}: not posed on {page.name}")
            continue
        nxt = nb_cells[posed[eid] + 1] if posed[eid] + 1 < len(nb_cells) else None
        if nxt is None or nxt["cell_type"] != "code" or CHECKER.findall(source(nxt)) != [eid]:
            problems.append(f"{eid}: the cell after the exercise does not show "
                            f"answer_checker({eid!r})")
    stray = [m for c in nb_cells if c["cell_type"] == "code"
             for m in CHECKER.findall(source(c)) if m not in posed]
    problems += [f"a checker for {m!r}, which the page does not pose" for m in stray]
    assert not problems, f"{page.name}:\n  " + "\n  ".join(problems)


def posed(chapter: str) -> list[tuple[str, bool]]:
    """``(label, numbered)`` of each ``{exercise}`` on the chapter's pages, in page order;
    ``numbered`` is ``False`` for one with the ``:nonumber:`` option."""
    out = []
    for page in chapter_pages(chapter):
        for c in cells(page):
            if c["cell_type"] == "markdown":
                for m in LABEL.finditer(source(c)):
                    options = re.match(r"[^\n]*\n((?::[^\n]*\n)*)", source(c)[m.start():] + "\n")
                    out.append((m.group(2), ":nonumber:" not in options.group(1)))
    return out


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_pages_pose_the_registered_exercises_first_in_the_registry_order(chapter):
    """The page is the one place a question is written: each registered id labels exactly
    one ``{exercise}`` in the book.  The registry numbers a chapter's titles from the order
    of its ``EXERCISES``; the pages pose them first and in that order, ``:nonumber:`` where
    the exercise is not ``numbered``, so the titles are the numbers sphinx-exercise gives."""
    labels = [m.group(2) for page in BOOK.rglob("*.ipynb") if "_build" not in page.parts
              for c in cells(page) if c["cell_type"] == "markdown"
              for m in LABEL.finditer(source(c))]
    twice = {i: labels.count(i) for i in exercises.exercise_ids(chapter) if labels.count(i) != 1}
    assert not twice, f"{chapter}: id -> times posed in the book: {twice}"
    registered = [(i, exercises.get(i).numbered) for i in exercises.exercise_ids(chapter)]
    on_pages = posed(chapter)
    assert on_pages[:len(registered)] == registered, (
        f"{chapter}: the pages' first exercises (label, numbered) {on_pages} against the registry's "
        f"{registered}")


EXERCISE_DIV = re.compile(r'<div class="exercise admonition" id="([^"]+)">\s*'
                          r'<p class="admonition-title">(.*?)</p>', re.S)


def shown_titles(html_text: str) -> dict[str, str]:
    """``{label: the exercise's name as sphinx-exercise shows it}``: "Exercise 1.3", or for an
    unnumbered one the whole title ("Exercise (worked example)")."""
    out = {}
    for label, title in EXERCISE_DIV.findall(html_text):
        number = re.search(r'<span class="caption-number">(.*?)</span>', title, re.S)
        text = number.group(1) if number else title
        out[label] = " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())
    return out


def test_shown_titles_reads_both_kinds():
    page = ('<div class="exercise admonition" id="a-1">\n\n<p class="admonition-title">'
            '<span class="caption-number">Exercise 1.1 </span></p>'
            '<div class="exercise admonition" id="a-e">\n<p class="admonition-title">Exercise '
            '<span class="exercise-subtitle">(worked example)</span></p>')
    assert shown_titles(page) == {"a-1": "Exercise 1.1", "a-e": "Exercise (worked example)"}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_registry_titles_match_the_built_pages(chapter):
    folder = HTML_DIR / "book" / chapter_folder(chapter).name
    if not folder.is_dir():
        pytest.skip(f"no built book in {HTML_DIR} (run `make book`)")
    shown = {}
    for page in chapter_pages(chapter):
        built = folder / f"{page.stem}.html"
        if built.is_file():
            shown.update(shown_titles(built.read_text(encoding="utf-8")))
    pairs = {i: (getattr(exercises.get(i), "title", None), shown.get(i))
             for i in exercises.exercise_ids(chapter)}
    wrong = {i: p for i, p in pairs.items() if None in p or p[0] != p[1]}
    assert not wrong, (f"{chapter}: (registry title, name on the built page), None where "
                       f"there is none: {wrong}")
