"""The suite itself: no test times itself, and tests/lib mirrors the library.

A busy 2-core machine makes every clock in a test a source of failures that say nothing
about the code.  So:

* hypothesis runs under the suite's profile (``tests/conftest.py``): no per-example
  deadline, no "too slow" health check, derandomized (a failure is reproducible);
* no test sets its own hypothesis deadline;
* no test or tool waits a fixed time for something to happen (``wait_for_timeout``,
  ``time.sleep``): it waits for the condition, with a limit that only guards a hang.
  The one allowed sleep is the pause between two polls of a condition.

And every public module ``infra_calc/X.py`` has its own ``tests/lib/test_X.py``, and every
public module of a subpackage, ``infra_calc/P/X.py``, its ``tests/lib/test_P_X.py`` (README's
layout and CONTRIBUTING's table say so), unless :data:`MIRRORS` names the file
that tests it and why; so do ``bookkit/`` (``tests/bookkit``) and ``tools/`` (``tests/tools``).
"""
from __future__ import annotations

import re

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, settings

#: file -> why a time.sleep there is a poll of a condition, not a guess of a duration
POLLING_SLEEPS = {
    "tests/lab_server.py": "pause between polls of the server's /api/status, until it answers",
}


def test_hypothesis_profile_has_no_clock():
    s = settings.default
    assert s.deadline is None
    assert s.derandomize is True
    assert HealthCheck.too_slow in s.suppress_health_check


def _python_files():
    for folder in ("tests", "tools", "benchmarks"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_no_test_sets_its_own_deadline():
    bad = [f"{p.relative_to(ROOT)}:{i}" for p in _python_files() if p.relative_to(ROOT).parts[0] == "tests"
           for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if re.search(r"@settings\(.*deadline\s*=", line)]
    assert not bad, f"hypothesis deadlines set per test (the profile handles it): {bad}"


def test_no_fixed_waits():
    bad = []
    for p in _python_files():
        rel = p.relative_to(ROOT).as_posix()
        if rel == "tests/book/test_suite_rules.py":
            continue
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if "wait_for_timeout(" in code:
                bad.append(f"{rel}:{i}: {line.strip()}")
            elif re.search(r"\btime\.sleep\(", code) and rel not in POLLING_SLEEPS:
                bad.append(f"{rel}:{i}: {line.strip()}")
    assert not bad, "fixed waits (wait for a condition instead):\n  " + "\n  ".join(bad)


def test_readme_layout_names_every_book_folder_and_top_level_package():
    """README's layout lists each folder of pages (a new chapter, a moved lab) and each
    top-level Python package, so a newcomer finds them."""
    layout = (ROOT / "README.md").read_text(encoding="utf-8").split("## Layout", 1)[1]
    book = layout.split("| `book/` |", 1)[1].split("\n", 1)[0]
    folders = [p.name for p in (ROOT / "book").iterdir() if p.is_dir() and any(p.glob("*.ipynb"))]
    assert folders and all(f"`{f}`" in book for f in folders), (folders, book)
    packages = [p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()]
    assert all(f"| `{p}/` |" in layout for p in packages), packages


#: package -> (its mirror folder of tests, {module tested in a file not named after it:
#: (that file, why)})
MIRRORS = {
    "infra_calc": ("tests/lib", {
        **{f"measure/{m}.py": ("tests/lib/test_measure.py",
                               "the lab is tested through its package's names, at tiny sizes")
           for m in ("arithmetic", "backends", "bench", "cli", "machine", "progress", "results")},
        "figures/ch3.py": ("tests/lib/test_figures.py",
                           "every published figure is compared with its committed PNG (the kv "
                           "explorer's snapshot also in tests/lib/test_widgets_kv.py)"),
        "figures/lab.py": ("tests/lib/test_measure.py", "the lab's figure, with the lab's run"),
    }),
    "bookkit": ("tests/bookkit", {}),
    "tools": ("tests/tools", {
        **{f"{m}.py": ("tests/book/test_translations.py",
                       "run on the book's own catalogs and built templates, which are their input")
           for m in ("bilingual", "translations", "zh_checks", "zh_message")},
        **{f"{m}.py": ("tests/e2e_helpers.py",
                       "the end-to-end tests build, serve and print the book with it")
           for m in ("build_book", "build_pdf", "localserve")},
        "playwright_once.py": ("tests/lab_server.py", "every browser test starts Chromium with it"),
        "stored_eval.py": ("tests/bookkit/test_zh.py",
                           "the stored values it reads are the Chinese value forms' input"),
        "lab/jupyter_server_config.py": ("tests/tools/test_execute.py",
                                         "a JupyterLab config file, loaded as `make lab` loads it"),
    }),
}


def modules_without_tests(package, tests, elsewhere=()) -> list[str]:
    """Public modules of ``package`` and its subpackages (no part of the path starting with
    ``_``), as paths relative to ``package`` without ``.py``, with no test file: ``X.py``
    wants ``tests/test_X.py`` and ``P/X.py`` ``tests/test_P_X.py``, unless ``elsewhere``
    holds its path (``"P/X.py"``)."""
    out = []
    for p in sorted(package.rglob("*.py")):
        rel = p.relative_to(package)
        if any(part.startswith("_") for part in rel.parts) or rel.as_posix() in elsewhere:
            continue
        if not (tests / f"test_{'_'.join(rel.with_suffix('').parts)}.py").is_file():
            out.append(rel.with_suffix("").as_posix())
    return out


@pytest.mark.parametrize("package", MIRRORS)
def test_every_module_has_its_test_file(package):
    tests, elsewhere = MIRRORS[package]
    missing = modules_without_tests(ROOT / package, ROOT / tests, elsewhere)
    assert not missing, (f"modules without {tests}/test_<module>.py (or "
                         "test_<package>_<module>.py), nor an entry in MIRRORS: "
                         + ", ".join(f"{package}/{m}.py" for m in missing))


@pytest.mark.parametrize("package", MIRRORS)
def test_modules_tested_elsewhere_name_real_files_and_need_the_entry(package):
    """Each entry names a module that exists, has no mirror file of its own (else the entry
    is stale), a reason, and a test file that exists and uses the module (names its import
    path, its file, or one of its public names)."""
    import ast

    tests, elsewhere = MIRRORS[package]
    for module, (test, why) in elsewhere.items():
        path = ROOT / package / module
        assert path.is_file(), f"{package}/{module}: no such module"
        mirror = ROOT / tests / f"test_{module[:-3].replace('/', '_')}.py"
        assert not mirror.is_file(), f"{module} has {mirror.name}: drop its MIRRORS entry"
        names = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__"
                                                    for t in node.targets):
                names = set(ast.literal_eval(node.value))
        text = (ROOT / test).read_text(encoding="utf-8")
        first = module.split("/")[0].removesuffix(".py")
        uses = (re.search(rf"\b{package}[./]{first}\b", text)
                or re.search(rf"from {package} import [^\n]*\b{first}\b", text)
                or any(re.search(rf"\b{n}\b", text) for n in names))
        assert why and uses, f"{test} neither imports {package}.{first} nor names anything of {module}"


def test_the_module_rule_fails_when_a_test_file_is_missing(tmp_path):
    package, tests = tmp_path / "pkg", tmp_path / "tests"
    package.mkdir()
    tests.mkdir()
    (package / "sub").mkdir()
    (package / "_private_pkg").mkdir()
    for name in ("__init__", "_private", "tested", "untested", "sub/__init__", "sub/_helper",
                 "sub/mod", "sub/other", "_private_pkg/mod"):
        (package / f"{name}.py").write_text("", encoding="utf-8")
    (tests / "test_tested.py").write_text("", encoding="utf-8")
    (tests / "test_sub_other.py").write_text("", encoding="utf-8")
    assert modules_without_tests(package, tests) == ["sub/mod", "untested"]
    assert modules_without_tests(package, tests, {"sub/mod.py": ()}) == ["untested"]
    (tests / "test_untested.py").write_text("", encoding="utf-8")
    (tests / "test_sub_mod.py").write_text("", encoding="utf-8")
    assert modules_without_tests(package, tests) == []
