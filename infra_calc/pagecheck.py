"""Checking a page: every stored ``{eval}`` result must match what the code computes now.

``tools/execute.py`` stores each markdown cell's ``{eval}`` results in its
metadata (``user_expressions``, the format jupyterlab-myst writes); the last
hidden cell of every page runs :func:`check_page_values` under nbval, so a
stale number fails ``make test``.  The numbers themselves are formatted by
:mod:`infra_calc.display`.
"""
from __future__ import annotations

import re

__all__ = ["check_page_values", "eval_expressions"]

_EVAL = re.compile(r"\{eval\}`([^`]+)`")


def eval_expressions(markdown: str) -> list[str]:
    """The ``{eval}`` expressions of a markdown cell, in order, without repeats."""
    seen: list[str] = []
    for expr in _EVAL.findall(markdown):
        if expr not in seen:
            seen.append(expr)
    return seen


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

    ``tools/execute.py`` stores each markdown cell's results in its metadata
    (``user_expressions``, the format jupyterlab-myst writes).  This check, run as
    a page's last hidden cell under nbval, fails when a stored result is missing
    or differs from what the code computes now.

    While ``tools/execute.py`` itself runs the page (it sets
    ``INFRA_CALC_STORING=1``), nothing is stored yet: the check then only makes
    sure that every expression evaluates.

    Returns the number of expressions checked (an ``int`` that prints as a
    sentence, since it is the last output of a page in JupyterLab).
    """
    import json
    import os
    import pathlib

    storing = os.environ.get("INFRA_CALC_STORING") == "1"

    nb = json.loads(pathlib.Path(notebook).read_text(encoding="utf-8"))
    problems, count = [], 0
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        exprs = eval_expressions("".join(cell["source"]))
        if not exprs:
            continue
        stored = {e["expression"]: e.get("result", {})
                  for e in cell.get("metadata", {}).get("user_expressions", [])}
        for expr in exprs:
            count += 1
            if expr not in stored and not storing:
                problems.append(f"cell {i}: {{eval}}`{expr}` has no stored result (run `make execute`)")
                continue
            try:
                got = _plain(eval(expr, namespace))  # the page's own expressions
            except Exception as exc:  # report every failure at once
                problems.append(f"cell {i}: {{eval}}`{expr}` raises {type(exc).__name__}: {exc}")
                continue
            if storing:
                continue
            res = stored[expr]
            want = res.get("data", {}).get("text/plain") if res.get("status") == "ok" else None
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
