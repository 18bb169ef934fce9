"""bookkit/exercises/registry.py: every exercise by id; and the package's imports."""
import ast
import importlib
import json
import pathlib
import re

import pytest

from bookkit import exercises
from bookkit.exercises import registry, spec
from bookkit.exercises.spec import Exercise

PACKAGE = pathlib.Path(exercises.__file__).parent
BOOK = PACKAGE.parents[1] / "book"


def chapter_module(name):
    return importlib.import_module(f"bookkit.exercises.{name}")


def test_the_book_is_the_chapters_lists_in_chapter_order():
    ids = exercises.exercise_ids()
    assert ids and len(ids) == len(set(ids))
    for name in registry.CHAPTERS:
        assert exercises.exercise_ids(name) == [ex.id for ex in chapter_module(name).EXERCISES]
    assert ids == [i for name in registry.CHAPTERS for i in exercises.exercise_ids(name)]
    with pytest.raises(ValueError, match="unknown chapter 'j07'; known: ch1, ch2, ch3, ch4"):
        exercises.exercise_ids("j07")


def test_with_titles_numbers_a_chapter_as_its_page_does():
    worked, a, b = (Exercise(i, "ms", lambda: 1.0, numbered=i != "t-e1")
                    for i in ("t-e1", "t-1", "t-2"))
    titled = registry.with_titles([worked, a, b], 7)
    assert [ex.title for ex in titled] == ["Exercise", "Exercise 7.1", "Exercise 7.2"]
    assert [ex.id for ex in titled] == ["t-e1", "t-1", "t-2"] and a.title == ""
    assert [ex.title for ex in registry.with_titles([a, worked, b], 2)] == [
        "Exercise 2.1", "Exercise", "Exercise 2.2"]
    # the registered ones: a chapter's place in CHAPTERS is its number
    assert exercises.get("ch1-e1").title == "Exercise"
    assert exercises.get("ch2-n6").title == "Exercise 2.10"
    assert exercises.get("ch4-n1").title == "Exercise 4.1"


def test_a_typed_title_is_refused():
    with pytest.raises(ValueError, match="t-1: the registry gives the title"):
        registry.with_titles([Exercise("t-1", "ms", lambda: 1.0, title="Exercise 1.1")], 1)


def test_an_id_in_two_chapters_is_refused(monkeypatch):
    ch1, ch4 = chapter_module("ch1"), chapter_module("ch4")
    monkeypatch.setattr(ch4, "EXERCISES", (*ch4.EXERCISES, ch1.EX_1))
    with pytest.raises(ValueError, match=r"exercise ids listed twice: \['ch1-1'\]"):
        registry._chapters.__wrapped__()


def test_get_ignores_case_and_blanks_and_lists_known_ids():
    assert exercises.get(" CH1-1 ") is exercises.get("ch1-1")
    with pytest.raises(ValueError, match="unknown exercise 'j99-1'; known: ch1-e1, ch1-1"):
        exercises.get("j99-1")
    with pytest.raises(TypeError, match="must be a string"):
        exercises.get(1)


def test_expected_is_the_computed_answer_in_the_display_unit():
    val = exercises.expected("ch2-4")
    assert isinstance(val, float) and val == float(exercises.get("ch2-4").answer())
    # answers are SI: a time in seconds shown in ms, a fraction shown in %
    assert exercises.expected("ch1-1") == exercises.get("ch1-1").answer() * 1e3
    assert exercises.expected("ch1-n2") == pytest.approx(exercises.get("ch1-n2").answer() * 100)


def test_names_the_chapters_import_stay_in_the_package():
    """The chapter files import these from ``bookkit.exercises``: same objects, same meaning."""
    from bookkit.exercises import answers, grading, hints
    for name, mod in (("Exercise", spec), ("Choice", spec), ("yes_no", spec),
                      ("get", registry), ("expected", registry), ("exercise_ids", registry),
                      ("check", grading), ("check_text", grading), ("check_choice", grading),
                      ("CheckResult", grading), ("parse_answer", answers), ("hint_for", hints)):
        assert getattr(exercises, name) is getattr(mod, name), name
    assert set(exercises.__all__) <= set(dir(exercises))


# ------------------------------------------------------------------ imports
def _imports(path: pathlib.Path) -> set[str]:
    """Modules of this package that ``path`` imports anywhere (functions included)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:                                  # from . import x, y
                out |= {a.name if (PACKAGE / f"{a.name}.py").exists() else "__init__"
                        for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "bookkit.exercises"):
            rest = node.module[len("bookkit.exercises"):].lstrip(".")
            out.add(rest.split(".")[0] or "__init__")
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module"
              and path.stem == "registry"):
            out |= set(registry.CHAPTERS)          # the registry imports the chapters it lists
    return out


def test_module_graph_has_no_cycle():
    """No module of the package imports the package itself or forms a cycle, lazily or
    not: the chapters import ``spec``, and ``registry`` imports the chapters."""
    graph = {p.stem: _imports(p) for p in PACKAGE.glob("*.py")}
    assert not any("__init__" in deps for m, deps in graph.items() if m != "__init__"), graph
    assert set(registry.CHAPTERS) <= graph["registry"]
    # every module that defines exercises is a chapter the registry lists (and imports)
    defining = {p.stem for p in PACKAGE.glob("*.py") if " = Exercise(" in p.read_text()}
    assert defining == set(registry.CHAPTERS), defining
    assert not any("registry" in graph[ch] for ch in registry.CHAPTERS), graph

    def visit(m, stack):
        assert m not in stack, f"import cycle: {' -> '.join([*stack, m])}"
        for d in graph.get(m, ()):
            visit(d, [*stack, m])

    for m in graph:
        visit(m, [])


def test_book_order_whichever_chapter_was_imported_first():
    """The registry orders the exercises by chapter, not by which module some caller
    (a test, a page) imported first."""
    import subprocess
    import sys

    code = ("import bookkit.exercises.ch4, bookkit.exercises.ch3\n"
            "from bookkit import exercises\n"
            "print(' '.join(exercises.exercise_ids()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    book = [ex.id for name in registry.CHAPTERS for ex in chapter_module(name).EXERCISES]
    assert out.stdout.split() == book


@pytest.mark.parametrize("chapter", registry.CHAPTERS)
def test_selftest_values_lists_every_part_of_its_page_in_order(chapter):
    """A chapter's ``selftest_values`` lists each ``_values_<id>`` function of its module once,
    in the order they stand there (beside their exercises, in the page's order): none is
    left out, so no number of the page goes missing."""
    tree = ast.parse((PACKAGE / f"{chapter}.py").read_text(encoding="utf-8"))
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    defined = [f.name for f in functions if f.name.startswith("_values_")]
    listed = [a.id for f in functions if f.name == "selftest_values" for call in ast.walk(f)
              if isinstance(call, ast.Call) for a in call.args if isinstance(a, ast.Name)]
    assert len(defined) > 3 and listed == defined, (defined, listed)


@pytest.mark.parametrize("name", registry.CHAPTERS)
def test_exercises_lists_every_exercise_of_its_module_in_order(name):
    """A chapter's ``EXERCISES`` holds each ``Exercise`` its module defines once, in the
    order they stand there (beside their ``_values_<id>``, in the page's order): none is
    left out of the registry, and the order the titles are numbered from is the file's."""
    tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
    defined = [n.targets[0].id for n in tree.body if isinstance(n, ast.Assign)
               and isinstance(n.value, ast.Call) and getattr(n.value.func, "id", None) == "Exercise"]
    listed = [n.value for n in tree.body if isinstance(n, ast.Assign)
              and getattr(n.targets[0], "id", None) == "EXERCISES"]
    assert len(listed) == 1 and [e.id for e in listed[0].elts] == defined and len(defined) > 3


def _plain(text: str) -> str:
    """Text compared case- and spacing-blind: lower case, every run of blanks one space."""
    return re.sub(r"\s+", " ", text).strip().lower()


def checker_texts() -> list[tuple[str, str]]:
    """``(id, text)`` for every sentence the registry writes for the checker to show: each
    pick-one part's prompt and its note, and each hint.  The options are left out: they
    are the words the page's question poses the choice in ("yes", "compute-bound")."""
    return [(ex.id, text) for ex in map(registry.get, registry.exercise_ids())
            for text in (*(t for p in ex.parts for t in (p.prompt, p.why)), *ex.hints) if text]


def test_no_checker_text_is_written_on_a_page_too():
    """The checker's texts live in the registry, not on the page (CONTRIBUTING.md,
    Exercises): no prompt, note or hint of the registry stands in any page's markdown,
    so the two cannot say the same thing in two places that drift apart."""
    pages = {p.relative_to(BOOK).as_posix(): _plain(" ".join(
                "".join(c["source"]) for c in json.loads(p.read_text(encoding="utf-8"))["cells"]
                if c["cell_type"] == "markdown"))
             for p in sorted(BOOK.rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts}
    texts = checker_texts()
    assert len(pages) > 20 and len(texts) > 20
    twice = [(eid, text, page) for eid, text in texts for page, md in pages.items()
             if _plain(text) in md]
    assert not twice, twice
