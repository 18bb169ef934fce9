"""The page design (CONTRIBUTING / the page-design rules), checked on every notebook.

* A visible code cell (not tagged ``remove-cell``) teaches: no ``glue(``, no line
  starting with ``assert``, at most 15 non-comment lines.
* The first code cell imports only names that the page's visible code uses (hidden
  cells import their own extras).
* Every ``{eval}`` role in a markdown cell has a stored result in that cell's
  ``metadata.user_expressions``, so the web build and JupyterLab render it.
* Exercises use a non-gated ``{solution}`` dropdown.
"""
import ast
import re

import pytest
from conftest import (
    NOTEBOOKS,
    cells,
    eval_expressions,
    is_visible_code,
    nb_id,
    parse,
    source,
    stored_expressions,
)
from hand_scaling import hand_scalings

from bookkit.roles import code_blocks

MAX_LINES = 15


def visible_cells(path):
    return [(i, c) for i, c in enumerate(cells(path)) if is_visible_code(c)]


def code_lines(cell) -> list[str]:
    return [line for line in source(cell).splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_visible_code_has_no_glue_or_assert(path):
    bad = {}
    for i, c in visible_cells(path):
        hits = [line.strip() for line in source(c).splitlines()
                if "glue(" in line or line.lstrip().startswith("assert")]
        if hits:
            bad[i] = hits
    assert not bad, f"visible code cells with glue( or assert (move them to a remove-cell cell): {bad}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_visible_code_cells_are_short(path):
    long = {i: len(code_lines(c)) for i, c in visible_cells(path) if len(code_lines(c)) > MAX_LINES}
    assert not long, f"visible code cells over {MAX_LINES} non-comment lines: {long}"


def imported_names(tree: ast.Module) -> dict[str, int]:
    """Names bound by the import statements of a cell, with their line."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = node.lineno
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                names[a.asname or a.name] = node.lineno
    return names


def used_names(tree: ast.Module) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def typed_code(markdown: str) -> list[str]:
    """The ```python literal blocks of a markdown cell: calls the reader is shown to type."""
    return [body for info, body in code_blocks(markdown) if info in ("python", "py", "ipython", "ipython3")]


def unused_first_cell_imports(nb_cells) -> list[str]:
    """Names the first code cell imports that no visible code uses.  Visible code is
    every code cell not tagged remove-cell and every ```python block of the prose.  A
    hidden first cell imports for the hidden cells, like any hidden cell."""
    code = [c for c in nb_cells if c["cell_type"] == "code" and source(c).strip()]
    if not code or not is_visible_code(code[0]):
        return []
    names = imported_names(parse(code[0]))
    if "*" in names:
        return ["*"]
    used = set()
    for c in code:
        if is_visible_code(c):
            used |= used_names(parse(c))
    for c in nb_cells:
        if c["cell_type"] == "markdown":
            for block in typed_code(source(c)):
                try:
                    used |= used_names(ast.parse(block))
                except SyntaxError:
                    used |= set(re.findall(r"[A-Za-z_]\w*", block))
    return sorted(n for n in names if n not in used)


@pytest.mark.parametrize("first, later, unused", [
    ("import numpy as np\nimport infra_calc as ic", "ic.estimate('x', 'y')", ["np"]),
    ("import infra_calc as ic\nfrom IPython.display import Math, display", "display(Math(ic.x))", []),
    ("from myst_nb import glue", "x = 1", ["glue"]),
    ("import infra_calc as ic\nimport numpy as np", "x = 1", ["np"]),
])
def test_unused_import_detector(first, later, unused):
    nb = [{"cell_type": "code", "source": first}, {"cell_type": "code", "source": later},
          {"cell_type": "markdown", "source": "Type this:\n\n```python\nic.estimate('a', 'b')\n```\n"},
          {"cell_type": "code", "source": "import numpy as np\nnp.ones(1)",
           "metadata": {"tags": ["remove-cell"]}}]
    assert unused_first_cell_imports(nb) == unused


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_first_cell_imports_only_what_visible_code_uses(path):
    unused = unused_first_cell_imports(cells(path))
    assert not unused, f"the first cell imports names no visible cell uses: {unused}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_every_eval_has_a_stored_result(path):
    missing = {}
    for i, c in enumerate(cells(path)):
        if c["cell_type"] != "markdown":
            continue
        stored = stored_expressions(c)
        bad = [e for e in eval_expressions(source(c))
               if (stored.get(e) or {}).get("status") != "ok" or not (stored[e].get("data") or {})]
        if bad:
            missing[i] = bad
    assert not missing, f"{{eval}} roles without a stored result (run make execute): {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_no_glue_roles_and_no_gated_solutions(path):
    text = "\n".join(source(c) for c in cells(path) if c["cell_type"] == "markdown")
    old = sorted(set(re.findall(r"\{glue(?::\w+)?\}|\{solution-(?:start|end)\}", text)))
    assert not old, f"page design: use {{eval}} and a non-gated {{solution}} dropdown, not {old}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=nb_id)
def test_hidden_cells_do_not_scale_by_hand(path):
    """The code that makes the prose's numbers gives infra_calc.display the SI value and
    its unit (CONTRIBUTING.md, "Numbers as text"); only visible cells, typed by a reader,
    may print with a conversion in view."""
    found = [(i, expr) for i, c in enumerate(cells(path))
             if c["cell_type"] == "code" and not is_visible_code(c)
             for _, expr in hand_scalings(source(c))]
    assert not found, found
