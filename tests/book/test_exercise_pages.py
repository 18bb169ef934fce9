"""Self-test pages and the exercise registry agree (issues 16 §3 and 18 §3).

For every chapter with registered exercises (``infra_calc.exercises``):

* each registered id is the ``:label:`` of an ``{exercise}`` on that chapter's pages, so a
  reader, the checker and the tests all name an exercise the same way;
* each registered (numerical) exercise sits on the chapter's self-test page, and the cell
  right after the one that poses it shows its checker, ``answer_checker("<id>")``;
* in the built HTML (skipped when ``_build/html`` is absent), the registry's ``title`` is
  the name sphinx-exercise shows for that label ("Exercise 1.3"), so the checker calls an
  exercise what the page calls it.

Chapters still being rewritten are strict xfails that name the chapter: the entry goes
when the chapter passes.
"""
from __future__ import annotations

import html
import re

import pytest
from conftest import BOOK, HTML_DIR, cells, source

from infra_calc import exercises

LABEL = re.compile(r"^(`{3,}|:{3,})\{exercise\}[^\n]*\n(?:[^\n]*\n)*?:label:\s*(\S+)", re.M)
CHECKER = re.compile(r"""answer_checker\(\s*["']([^"']+)["']""")

CHAPTERS = sorted({exercises.get(i).chapter for i in exercises.exercise_ids()})
#: chapter -> why it is expected to fail (strict: a chapter that passes must leave the list)
NOT_YET: dict[str, str] = {
}


def _params():
    return [pytest.param(ch, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[ch]))
            if ch in NOT_YET else ch for ch in CHAPTERS]


#: exercise-id chapter -> the book folder that holds its pages (folders are numbered in
#: reading order so JupyterLab's file browser lists them that way)
FOLDERS = {"j07": "1_decode_step", "j13": "2_full_speed", "ch3": "3_whole_request",
           "ch4": "4_forecast"}


def chapter_pages(chapter: str) -> list:
    return sorted((BOOK / FOLDERS[chapter]).glob("[0-9]*.ipynb"))


def self_test_page(chapter: str):
    pages = [p for p in chapter_pages(chapter) if "self_test" in p.name]
    assert len(pages) == 1, f"{chapter}: expected one self-test page, found {pages}"
    return pages[0]


def exercise_cells(path) -> dict[str, int]:
    """``{label: index of the cell that poses it}`` for the ``{exercise}`` blocks of a page."""
    found = {}
    for i, c in enumerate(cells(path)):
        if c["cell_type"] == "markdown":
            for m in LABEL.finditer(source(c)):
                found[m.group(2)] = i
    return found


def test_the_patterns_see_what_they_should():
    md = "```{exercise}\n:label: j07-1\nQ?\n```\n\n````{exercise} worked\n:label: j07-e1\n:nonumber:\n"
    assert [m.group(2) for m in LABEL.finditer(md)] == ["j07-1", "j07-e1"]
    assert CHECKER.findall('answer_checker("j07-n3")') == ["j07-n3"]
    assert CHAPTERS and "j07" in CHAPTERS


@pytest.mark.parametrize("chapter", _params())
def test_registered_ids_are_exercise_labels(chapter):
    labels = {}
    for page in chapter_pages(chapter):
        for label in exercise_cells(page):
            labels[label] = page.name
    missing = [i for i in exercises.exercise_ids(chapter) if i not in labels]
    assert not missing, (f"{chapter}: registered ids that are no {{exercise}} :label: on the "
                         f"chapter's pages: {missing}; labels there: {sorted(labels)}")


@pytest.mark.parametrize("chapter", _params())
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


def numbered_titles(chapter: str) -> dict[str, str]:
    """``{label: "Exercise <chapter>.<k>"}`` as sphinx-exercise numbers the chapter's
    ``{exercise}`` blocks (in page order, ``:nonumber:`` ones just "Exercise"), read from
    the sources: the chapter's number is its folder's."""
    number = int(FOLDERS[chapter].split("_")[0])
    out, k = {}, 0
    for page in chapter_pages(chapter):
        for c in cells(page):
            if c["cell_type"] != "markdown":
                continue
            for m in LABEL.finditer(source(c)):
                options = re.match(r"[^\n]*\n((?::[^\n]*\n)*)", source(c)[m.start():] + "\n")
                if ":nonumber:" in options.group(1):
                    out[m.group(2)] = "Exercise"
                else:
                    k += 1
                    out[m.group(2)] = f"Exercise {number}.{k}"
    return out


@pytest.mark.parametrize("chapter", _params())
def test_each_registered_exercise_is_posed_once_under_its_title(chapter):
    """The page is the one place a question is written: each registered id labels exactly
    one ``{exercise}`` in the book, and the registry's title is the number it gets there."""
    labels = [m.group(2) for page in BOOK.rglob("*.ipynb") if "_build" not in page.parts
              for c in cells(page) if c["cell_type"] == "markdown"
              for m in LABEL.finditer(source(c))]
    titles = numbered_titles(chapter)
    problems = {i: (labels.count(i), exercises.get(i).title, titles.get(i))
                for i in exercises.exercise_ids(chapter)
                if labels.count(i) != 1 or exercises.get(i).title != titles.get(i)}
    assert not problems, f"{chapter}: id -> (times posed, registry title, page title): {problems}"


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


@pytest.mark.parametrize("chapter", _params())
def test_registry_titles_match_the_built_pages(chapter):
    folder = HTML_DIR / "book" / FOLDERS[chapter]
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
