"""Checking a page: every stored ``{eval}`` result must match what the code computes now.

Both sides are compared as the page shows them (:func:`bookkit.roles.plain_result`).

``tools/execute.py`` stores each markdown cell's ``{eval}`` results in its metadata
(:mod:`bookkit.roles`) and writes the page before it runs the page's last hidden
cell, :func:`check_page_values`; under nbval the same cell runs against the committed
file.  Either way the check compares what is stored with what the code computes, so
a stale number fails ``make test``.
"""
from __future__ import annotations

import json
import pathlib

from .roles import eval_expressions, plain_result, stored_expressions, unquoted

__all__ = ["check_page_values"]


def _plain(value) -> str:
    try:
        from IPython import get_ipython

        ip = get_ipython()
    except ImportError:  # pragma: no cover - IPython ships with the book's extras
        ip = None
    if ip is not None:
        data, _ = ip.display_formatter.format(value)
        return data.get("text/plain", repr(value))
    return repr(value)


def check_page_values(namespace: dict, notebook: str) -> int:
    """Re-evaluate every stored ``{eval}`` result of ``notebook`` in ``namespace``.

    Fails (``AssertionError``, every problem listed) when a result is missing,
    raises, or differs from what the code computes now.  Returns the number of
    expressions checked (an ``int`` that prints as a sentence, since it is the
    last output of a page in JupyterLab).
    """
    nb = json.loads(pathlib.Path(notebook).read_text(encoding="utf-8"))
    problems, count = [], 0
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        stored = stored_expressions(cell)
        for expr in dict.fromkeys(eval_expressions("".join(cell["source"]))):
            count += 1
            if expr not in stored:
                problems.append(f"cell {i}: {{eval}}`{expr}` has no stored result (run `make execute`)")
                continue
            try:
                got = unquoted(_plain(eval(expr, namespace)))  # the page's own expressions
            except Exception as exc:  # report every failure at once
                problems.append(f"cell {i}: {{eval}}`{expr}` raises {type(exc).__name__}: {exc}")
                continue
            want = plain_result(stored[expr])
            if got != want:
                problems.append(f"cell {i}: {{eval}}`{expr}` is {got!r} now, stored {want!r}")
    if problems:
        raise AssertionError(f"{notebook}: {len(problems)} stored value(s) out of date:\n  "
                             + "\n  ".join(problems))
    return _Checked(count)


class _Checked(int):
    def __repr__(self) -> str:
        return f"all {int(self)} numbers in the prose match what the code computes"

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(repr(self))
