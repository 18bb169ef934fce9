"""bookkit/exercises/registry.py: every exercise by id; and the package's imports."""
import ast
import pathlib

import pytest

from bookkit import exercises
from bookkit.exercises import registry, spec
from bookkit.exercises.spec import Exercise

PACKAGE = pathlib.Path(exercises.__file__).parent


def test_every_chapter_registers_its_own_ids():
    ids = exercises.exercise_ids()
    assert ids and len(ids) == len(set(ids))
    assert {exercises.get(i).chapter for i in ids} == set(registry.CHAPTERS)
    for ch in registry.CHAPTERS:
        assert (PACKAGE / f"{ch}.py").exists()
        assert all(i.startswith(f"{ch}-") for i in exercises.exercise_ids(ch))
    assert sum(len(exercises.exercise_ids(ch)) for ch in registry.CHAPTERS) == len(ids)


def test_get_ignores_case_and_blanks_and_lists_known_ids():
    assert exercises.get(" J07-1 ") is exercises.get("j07-1")
    with pytest.raises(ValueError, match="unknown exercise 'j99-1'; known: j07-e1, j07-1"):
        exercises.get("j99-1")
    with pytest.raises(TypeError, match="must be a string"):
        exercises.get(1)


def test_expected_is_the_computed_answer_in_the_display_unit():
    val = exercises.expected("j13-4")
    assert isinstance(val, float) and val == float(exercises.get("j13-4").answer())
    # answers are SI: a time in seconds shown in ms, a fraction shown in %
    assert exercises.expected("j07-1") == exercises.get("j07-1").answer() * 1e3
    assert exercises.expected("j07-n2") == pytest.approx(exercises.get("j07-n2").answer() * 100)


def test_register_refuses_duplicates_and_non_exercises():
    ex = exercises.get("j07-1")
    with pytest.raises(ValueError, match="already registered"):
        spec.register(ex)
    with pytest.raises(TypeError, match="must be an Exercise"):
        spec.register({"id": "x-1"})
    new = Exercise("zz-1", "Exercise 0.1", "ms", lambda: 1.0)
    try:
        assert spec.register(new) is new and exercises.get("zz-1") is new
    finally:
        spec.EXERCISES.pop("zz-1")


def test_names_the_chapters_import_stay_in_the_package():
    """The chapter files import these from ``bookkit.exercises``: same objects, same meaning."""
    from bookkit.exercises import answers, grading, hints
    for name, mod in (("Exercise", spec), ("Choice", spec), ("yes_no", spec), ("register", spec),
                      ("get", registry), ("expected", registry), ("exercise_ids", registry),
                      ("EXERCISES", spec),
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
    not: the chapters register into ``spec``, and ``registry`` imports the chapters."""
    graph = {p.stem: _imports(p) for p in PACKAGE.glob("*.py")}
    assert not any("__init__" in deps for m, deps in graph.items() if m != "__init__"), graph
    assert set(registry.CHAPTERS) <= graph["registry"]
    # every module that registers exercises is a chapter the registry lists (and imports)
    registering = {p.stem for p in PACKAGE.glob("*.py") if "register(Exercise(" in p.read_text()}
    assert registering == set(registry.CHAPTERS), registering
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
            "print(' '.join(dict.fromkeys(exercises.get(i).chapter for i in exercises.exercise_ids())))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == list(registry.CHAPTERS)


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
