"""infra_calc/exercises/registry.py: every exercise by id; and the package's imports."""
import ast
import pathlib

import pytest

from infra_calc import exercises
from infra_calc.exercises import registry
from infra_calc.exercises.spec import Exercise

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
    with pytest.raises(ValueError, match="unknown exercise 'j99-1'; known: j07-1"):
        exercises.get("j99-1")
    with pytest.raises(TypeError, match="must be a string"):
        exercises.get(1)


def test_expected_is_the_computed_answer_as_float():
    val = exercises.expected("j13-4")
    assert isinstance(val, float) and val == float(exercises.get("j13-4").answer())


def test_register_refuses_duplicates_and_non_exercises():
    ex = exercises.get("j07-1")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(ex)
    with pytest.raises(TypeError, match="must be an Exercise"):
        registry.register({"id": "x-1"})
    new = Exercise("zz-1", "q", "ms", lambda: 1.0, lambda: "s")
    try:
        assert registry.register(new) is new and exercises.get("zz-1") is new
    finally:
        registry.EXERCISES.pop("zz-1")


def test_names_the_chapters_import_stay_in_the_package():
    """The chapter files import these from ``infra_calc.exercises``: same objects, same meaning."""
    from infra_calc.exercises import answers, grading, hints, spec
    for name, mod in (("Exercise", spec), ("Choice", spec), ("yes_no", spec), ("tflops", spec),
                      ("tbs", spec), ("register", registry), ("get", registry),
                      ("expected", registry), ("exercise_ids", registry), ("EXERCISES", registry),
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
                "infra_calc.exercises"):
            rest = node.module[len("infra_calc.exercises"):].lstrip(".")
            out.add(rest.split(".")[0] or "__init__")
    return out


def test_module_graph_has_no_cycle_outside_the_chapter_files():
    """No module of the package imports the package itself or forms a cycle, lazily or
    not; the chapter modules are loaded by name, by the registry.  The chapter files
    (j07, j13, ch3) still take their names from the package (``from . import ...``):
    importing them from ``.spec`` and ``.registry`` instead closes the last loop."""
    graph = {p.stem: _imports(p) for p in PACKAGE.glob("*.py")}
    # a chapter and its page's numbers (j07_page) are chapter files
    jobs = {m: deps for m, deps in graph.items()
            if m not in registry.CHAPTERS and m.removesuffix("_page") not in registry.CHAPTERS}
    assert not any(set(registry.CHAPTERS) & deps for deps in jobs.values()), jobs
    assert not any("__init__" in deps for m, deps in jobs.items() if m != "__init__"), jobs

    def visit(m, stack):
        assert m not in stack, f"import cycle: {' -> '.join([*stack, m])}"
        for d in jobs.get(m, ()):
            visit(d, [*stack, m])

    for m in jobs:
        visit(m, [])
