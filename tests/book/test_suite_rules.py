"""The suite itself: no test times itself, and tests/lib mirrors the library.

A busy 2-core machine makes every clock in a test a source of failures that say nothing
about the code.  So:

* hypothesis runs under the suite's profile (``tests/conftest.py``): no per-example
  deadline, no "too slow" health check, derandomized (a failure is reproducible);
* no test sets its own hypothesis deadline;
* no test or tool waits a fixed time for something to happen (``wait_for_timeout``,
  ``time.sleep``): it waits for the condition, with a limit that only guards a hang.
  The one allowed sleep is the pause between two polls of a condition.

And every public module ``infra_calc/X.py`` has its own ``tests/lib/test_X.py``
(README's layout and CONTRIBUTING's table say so).
"""
from __future__ import annotations

import re

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


def modules_without_tests(package, tests) -> list[str]:
    """Public modules ``package/X.py`` (not starting with ``_``) with no ``tests/test_X.py``."""
    return sorted(p.stem for p in package.glob("*.py")
                  if not p.stem.startswith("_") and not (tests / f"test_{p.stem}.py").is_file())


def test_every_library_module_has_its_test_file():
    missing = modules_without_tests(ROOT / "infra_calc", ROOT / "tests" / "lib")
    assert not missing, ("library modules without tests/lib/test_<module>.py: "
                         + ", ".join(f"infra_calc/{m}.py" for m in missing))


def test_the_module_rule_fails_when_a_test_file_is_missing(tmp_path):
    package, tests = tmp_path / "pkg", tmp_path / "tests"
    package.mkdir()
    tests.mkdir()
    for name in ("__init__", "_private", "tested", "untested"):
        (package / f"{name}.py").write_text("", encoding="utf-8")
    (tests / "test_tested.py").write_text("", encoding="utf-8")
    assert modules_without_tests(package, tests) == ["untested"]
    (tests / "test_untested.py").write_text("", encoding="utf-8")
    assert modules_without_tests(package, tests) == []
