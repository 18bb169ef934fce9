"""Sphinx extension: render ``{eval}`expr``` from the results stored in the notebook.

The book is built with execution off (the HTML uses exactly the outputs that
nbval verified), and myst-nb's own ``{eval}`` role then has no kernel to ask
(MyST-NB issue 596). ``tools/execute.py`` stores every result in its markdown
cell's ``user_expressions`` metadata, the format jupyterlab-myst writes, and this
role looks the expression up there.

The lookup is by expression over the whole notebook, not by position, so the
role also works inside a translated sentence (Sphinx gettext re-parses the
translated text outside the original cell).

A missing result is a build warning (and so an error under ``-W``).

In the Chinese edition (``language: zh_CN``) every value goes through
``infra_calc.display.zh_text``: the unit words that some values carry ("295.3
requests", "8.03 billion") are written in Chinese ("295.3 个请求", "80.3 亿") from the
one table ``infra_calc.display.ZH_UNITS``; symbols (ms, GB, ×, %) stay.
"""
from __future__ import annotations

import json
import pathlib

from docutils import nodes

_CACHE: dict[str, tuple[float, dict[str, str]]] = {}


def stored_values(path: pathlib.Path) -> dict[str, str]:
    """``{expression: text}`` for every stored ``{eval}`` result of a notebook."""
    key, mtime = str(path), path.stat().st_mtime
    hit = _CACHE.get(key)
    if hit and hit[0] == mtime:
        return hit[1]
    nb = json.loads(path.read_text(encoding="utf-8"))
    values: dict[str, str] = {}
    for cell in nb.get("cells", []):
        for item in cell.get("metadata", {}).get("user_expressions", []):
            res = item.get("result", {})
            if res.get("status") == "ok" and "text/plain" in res.get("data", {}):
                text = res["data"]["text/plain"]
                if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
                    text = text[1:-1]
                values[item["expression"]] = text
    _CACHE[key] = (mtime, values)
    return values


def stored_eval_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    path = pathlib.Path(env.doc2path(env.docname))
    values = stored_values(path) if path.suffix == ".ipynb" else {}
    if text not in values:
        msg = inliner.reporter.warning(
            f"{{eval}}`{text}` has no stored result in {path.name}: run `make execute`",
            line=lineno)
        prb = inliner.problematic(rawtext, rawtext, msg)
        return [prb], [msg]
    shown = values[text]
    if (env.config.language or "en").startswith("zh"):
        from infra_calc.display import zh_text

        shown = zh_text(shown)
    return [nodes.inline(rawtext, shown, classes=["stored-eval"])], []


def setup(app):
    app.setup_extension("myst_nb")
    app.add_role("eval", stored_eval_role, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
