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
``bookkit.zh_text``: the unit words that some values carry ("295.3
requests", "8.03 billion") are written in Chinese ("295.3 个请求", "80.3 亿") from the
one table ``bookkit.ZH_UNITS``; symbols (ms, GB, ×, %) stay; a stored list
reads "RTX 4090、L40S".  After the translated messages are in place, ``ZhValueSpacing``
drops the space a translator wrote between a value that ends in a Chinese character
and the Chinese text that follows it ("8 个请求 时" reads "8 个请求时"), and before a
value that starts with one: ``bookkit.zh_glue_after`` / ``zh_glue_before``,
the same rule ``tools/zh_checks.py`` checks the catalogs with (through
``tools.zh_message.render``).
"""
from __future__ import annotations

import pathlib

from docutils import nodes
from sphinx.transforms import SphinxTransform

import bookkit


def stored_eval_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    path = pathlib.Path(env.doc2path(env.docname))
    values = bookkit.stored_values(path) if path.suffix == ".ipynb" else {}
    if text not in values:
        msg = inliner.reporter.warning(
            f"{{eval}}`{text}` has no stored result in {path.name}: run `make execute`",
            line=lineno)
        prb = inliner.problematic(rawtext, rawtext, msg)
        return [prb], [msg]
    shown = values[text]
    if (env.config.language or "en").startswith("zh"):
        from bookkit import zh_text

        shown = zh_text(shown)
    return [nodes.inline(rawtext, shown, classes=["stored-eval"])], []


def _block(node):
    """The nearest ancestor that is not an inline element (a paragraph, a title, a cell)."""
    while node is not None and isinstance(node, (nodes.Inline, nodes.Text)):
        node = node.parent
    return node


def glue_values(document) -> int:
    """Apply the Chinese spacing rule around every filled-in value of ``document``;
    returns how many spaces it dropped."""
    from bookkit import zh_glue_after, zh_glue_before

    texts = list(document.findall(nodes.Text))
    index = {id(t): i for i, t in enumerate(texts)}
    dropped = 0

    def replace(i: int, new: str) -> None:
        old = texts[i]
        node = nodes.Text(new)
        old.parent.replace(old, node)
        texts[i] = node

    for value_node in list(document.findall(nodes.inline)):
        if "stored-eval" not in value_node.get("classes", []):
            continue
        inner = list(value_node.findall(nodes.Text))
        if not inner:
            continue
        value, block = value_node.astext(), _block(value_node)
        first, last = index[id(inner[0])], index[id(inner[-1])]
        if last + 1 < len(texts) and _block(texts[last + 1].parent) is block:
            after = str(texts[last + 1])
            new = zh_glue_after(value, after)
            if new != after:
                replace(last + 1, new)
                dropped += 1
        if first > 0 and _block(texts[first - 1].parent) is block:
            before = str(texts[first - 1])
            new = zh_glue_before(before, value)
            if new != before:
                replace(first - 1, new)
                dropped += 1
    return dropped


class ZhValueSpacing(SphinxTransform):
    """In the Chinese edition, no space between a value's Chinese end and Chinese text.

    Runs after Sphinx's Locale transform (priority 20), which parses the translated
    messages and so renders their ``{eval}`` roles."""

    default_priority = 30

    def apply(self, **kwargs) -> None:
        if (self.config.language or "en").startswith("zh"):
            glue_values(self.document)


def setup(app):
    app.setup_extension("myst_nb")
    app.add_role("eval", stored_eval_role, override=True)
    app.add_transform(ZhValueSpacing)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
