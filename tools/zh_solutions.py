"""Sphinx extension of the Chinese edition: a solution's title in Chinese word order.

sphinx-exercise titles a solution with its catalog's word for "Solution to" followed
by a link to the exercise ("Solution to Exercise 1.1"); its zh_CN catalog gives 解答,
so the title reads 「解答 练习 1.1」, an English word order no catalog can change (the
two parts are separate nodes).  This extension, loaded by ``locale/zh_CN/book.yml``
(merged over ``_config.yml`` for the Chinese build only), rewrites every resolved
solution title as 「练习 1.1 的解答」: the link to the exercise first (its text without
the leading space, a custom subtitle in full-width brackets), then 的 and the word.
A title the extension does not recognise (a solution with a title of its own) is left
as it is.
"""
from __future__ import annotations

import re

from docutils import nodes

_ASCII_END = re.compile(r"[A-Za-z0-9)\]]$")


def chinese_title(title: nodes.title, word: str) -> bool:
    """Rewrite ``title`` (word + reference) as reference + 的 + word; False if it is
    not a default solution title."""
    if len(title.children) != 2:
        return False
    first, ref = title.children
    if not (isinstance(first, nodes.Text) and first.astext().strip() == word
            and isinstance(ref, nodes.reference)):
        return False
    for child in list(ref.children):
        if isinstance(child, nodes.Text):
            text = child.astext().replace(" (", "（").replace("(", "（").replace(")", "）")
            ref.replace(child, nodes.Text(text))
    if ref.children and isinstance(ref.children[0], nodes.Text):
        ref.replace(ref.children[0], nodes.Text(ref.children[0].astext().lstrip()))
    title.remove(first)
    shown = ref.astext()
    title += nodes.Text((" 的" if _ASCII_END.search(shown) else "的") + word)
    return True


def reorder_solution_titles(app, doctree, docname) -> None:
    if not str(app.config.language or "").startswith("zh"):
        return
    from sphinx_exercise import translate
    from sphinx_exercise.nodes import solution_node

    word = str(translate("Solution to"))
    for node in doctree.findall(solution_node):
        title = node.children[0] if node.children else None
        if isinstance(title, nodes.title) and chinese_title(title, word):
            node["title"] = title.astext()


def setup(app):
    app.setup_extension("sphinx_exercise")
    app.connect("doctree-resolved", reorder_solution_titles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
