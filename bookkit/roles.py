"""``{eval}`` roles in a page and the results stored for them: one parser, one reader.

A markdown cell's ``{eval}`expr``` roles are found as jupyterlab-myst finds them
(``inlineExpression`` nodes of the cell's syntax tree): roles in code spans, code
blocks and directives whose body is not markdown are not expressions; a directive's
title and body are markdown, its ``:option:`` lines are not.  ``tools/execute.py``
stores one result per occurrence, in document order, in the cell's
``user_expressions`` metadata (jupyterlab-myst's format); the web build and the tests
read them back with :func:`plain_result`, and the page check compares the stored
``text/plain`` with what the kernel shows now.

The block structure (fences, directives and their options) and the inline syntax (roles
and code spans: :data:`ROLE_OR_CODE_SPAN`, :func:`role_target`, which the Chinese checks
in ``tools/`` read too) are read with the few regexes below, not with markdown-it-py or
myst-parser: what must hold is parity with jupyterlab-myst, whose parser is mystmd's, not
myst-parser's, and that parity is what the tests check (the cases in
``tests/tools/test_execute.py``, the pages as a real JupyterLab writes them back in
``tests/lab_pages.py``).
The same reading gives a cell's code blocks (:func:`code_blocks`) and its prose without
code (:func:`strip_code`), which the tests read instead of parsing fences of their own.

The labels of a page's sphinx-exercise directives are read here too, once
(:func:`exercise_labels`, :func:`solution_targets`): the tests and the browser checks
of the exercises use these patterns.
"""
from __future__ import annotations

import ast
import hashlib
import json
import pathlib
import re

__all__ = ["CODE_DIRECTIVES", "FENCE", "LINK", "FIGURE", "ROLE_OR_CODE_SPAN", "eval_expressions",
           "code_blocks", "strip_code", "split_inline", "role_target", "stored_entries",
           "stored_expressions", "plain_result", "unquoted", "stored_values", "EXERCISE_LABEL",
           "SOLUTION_TARGET", "exercise_labels", "solution_targets"]

#: directives whose body is not MyST markdown (roles in it are not evaluated)
CODE_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode", "literalinclude", "math",
                   "raw", "eval-rst"}
#: a fence line (an opening or closing line of a code block or a directive): the fence
#: (group 1: ```` ``` ````, ``~~~`` or ``:::``, three or more) and what follows it (group 2)
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}|:{3,})\s*(.*?)\s*$")
#: a Markdown link ``[text](target)`` or ``[text](<target> "title")``: its text (group 1, may be
#: empty, ``\]`` escapes) and its target (group 2).  It also matches the ``[alt](src)`` of an image
#: ``![alt](src)``: prefix ``(?<!!)`` for links only (tests/book/test_links.py)
LINK = re.compile(r"\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: a ``{figure}`` (or ``{glue:figure}``) directive's first line: its fence (group 1) and its
#: target (group 2), a path or a glue key
FIGURE = re.compile(r"^(`{3,}|:{3,})\{(?:glue:)?figure\}\s+(\S+)", re.M)
_OPTION = re.compile(r"^:[\w-]+:(\s|$)")
# a code span, CommonMark's rule: a whole backtick run (group ticks) opens it, the next
# run of the same length closes it; its text is group code
_CODE_SPAN = r"(?<!`)(?P<ticks>`+)(?!`)(?P<code>(?:.|\n)*?)(?<!`)(?P=ticks)(?!`)"
# an {eval} role, or a code span (which can hide a role): whichever starts first
_INLINE = re.compile(r"\{eval\}`(?P<expr>[^`]+)`|" + _CODE_SPAN)
#: a role (``{name}`` and a code span right after it: group ``role`` its name, ``code`` its
#: text) or a code span (``role`` None, ``code`` its text), whichever starts first, so a role
#: in a code span is code.  A span closes only on a backtick run as long as the one that
#: opens it: in "`a`` b`" one span holds "a`` b"; in "``a` b`" the two backticks open
#: none (no run of two closes them) and the span is "` b`"
ROLE_OR_CODE_SPAN = re.compile(r"(?:\{(?P<role>[\w:-]+)\})?" + _CODE_SPAN)

#: an ``{exercise}`` directive (backtick or colon fence) and its ``:label:`` (group 2)
EXERCISE_LABEL = re.compile(r"^(`{3,}|:{3,})\{exercise\}[^\n]*\n(?:[^\n]*\n)*?:label:\s*(\S+)", re.M)
#: a ``{solution}`` (or gated ``{solution-start}``) directive and the label it solves (group 1)
SOLUTION_TARGET = re.compile(r"^(?:`{3,}|:{3,})\{solution(?:-start)?\}\s+(\S+)", re.M)


def eval_expressions(markdown: str) -> list[str]:
    """Every ``{eval}`` expression of a markdown cell, one per occurrence, in document order.

    >>> eval_expressions("{eval}`v.a` and ``{eval}`v.code` `` and {eval}`v.a`")
    ['v.a', 'v.a']
    """
    return split_inline(_markdown_text(markdown))[1::2]


def code_blocks(markdown: str) -> list[tuple[str, str]]:
    """The code blocks of a markdown cell, in document order: ``(info, body)``, ``info`` the
    text after the opening fence (``"python"``, ``"{code-cell} ipython3"``).  A code block
    is a fence that opens no directive, or a directive of :data:`CODE_DIRECTIVES`.

    >>> code_blocks("Type:\\n```python\\nic.x()\\n```\\n```{note}\\nprose\\n```")
    [('python', 'ic.x()')]
    """
    return [(info, "\n".join(lines)) for info, lines in _blocks(markdown) if info is not None]


def strip_code(markdown: str) -> str:
    """A markdown cell as prose: code blocks, fence lines, directive options, code spans
    and roles (``{eval}`` and the others, with their targets) removed; a directive's title
    and body kept.  Math and links stay.

    >>> strip_code("a {eval}`v.x`, `1.5`, {numref}`f-2` b\\n```python\\nx = 3\\n```\\n"
    ...            ":::{note} Title\\n:class: tip\\nBody\\n:::")
    'a  ,  ,   b\\nTitle\\nBody'
    """
    return ROLE_OR_CODE_SPAN.sub(" ", _markdown_text(markdown))


def _markdown_text(markdown: str) -> str:
    """The markdown lines of a cell (:func:`_blocks`), joined."""
    return "\n".join(line for info, lines in _blocks(markdown) if info is None for line in lines)


def _blocks(markdown: str) -> list[tuple[str | None, list[str]]]:
    """A markdown cell cut at its code blocks, as jupyterlab-myst reads the cell:
    ``(None, lines)`` of markdown (a directive's title and body; not its fences nor its
    ``:option:`` lines), ``(info, lines)`` of a code block (see :func:`code_blocks`)."""
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    stack = []          # (fence char, fence length, body is code)
    for line in markdown.splitlines():
        m = FENCE.match(line)
        if m:
            fence, info = m.groups()
            if stack and fence[0] == stack[-1][0] and len(fence) >= stack[-1][1] and not info:
                if stack.pop()[2]:
                    blocks.append((None, []))
                continue
            if not (stack and stack[-1][2]):
                name = re.match(r"\{([\w:-]+)\}\s*(.*)$", info)
                if name or fence[0] != ":":
                    code = not name or name.group(1) in CODE_DIRECTIVES
                    stack.append((fence[0], len(fence), code))
                    if code:
                        blocks.append((info, []))
                    else:
                        blocks[-1][1].append(name.group(2))     # a directive's title is markdown
                    continue
        if stack and not stack[-1][2] and _OPTION.match(line.strip()):
            continue
        blocks[-1][1].append(line)
    return blocks


def split_inline(text: str) -> list[str]:
    """One block of markdown (a paragraph, a gettext message) cut at its ``{eval}`` roles,
    as :func:`re.split` cuts: text, expression, text, ..., text; a role inside a code
    span stays text.

    >>> split_inline("a {eval}`v.a` b ``{eval}`v.c` `` c")
    ['a ', 'v.a', ' b ``{eval}`v.c` `` c']
    """
    parts, last = [], 0
    for m in _INLINE.finditer(text):
        if m.group("expr"):
            parts += [text[last:m.start()], m.group("expr")]
            last = m.end()
    parts.append(text[last:])
    return parts


def role_target(text: str) -> tuple[str | None, str]:
    """A role's text (:data:`ROLE_OR_CODE_SPAN` group ``code``) as ``(title, target)``: a
    reference with a title of its own, ``title <target>``, or the target alone (title None).

    >>> role_target("the sheet <../appendix/formulas>"), role_target(" fig-a ")
    (('the sheet', '../appendix/formulas'), (None, 'fig-a'))
    """
    text = text.strip()
    if text.endswith(">") and "<" in text:
        cut = text.rindex("<")
        return text[:cut].strip(), text[cut + 1:-1].strip()
    return None, text


def stored_entries(cell: dict) -> list[dict]:
    """A markdown cell's ``metadata.user_expressions``: one entry per ``{eval}`` occurrence,
    in document order (an expression used twice is stored twice).

    jupyterlab-myst's format:
    ``[{"expression": "v.x", "result": {"status": "ok", "data": {"text/plain": ...}}}]``.
    """
    stored = cell.get("metadata", {}).get("user_expressions") or []
    return [e for e in stored if isinstance(e, dict)]


def stored_expressions(cell: dict) -> dict[str, dict]:
    """``{expression: result}`` of a markdown cell's :func:`stored_entries`."""
    return {e.get("expression"): e.get("result") or {} for e in stored_entries(cell)}


def plain_result(result: dict) -> str | None:
    """The text a stored result renders as: its ``text/plain``, a Python str repr unquoted.

    None for a failed or missing result.

    >>> plain_result({"status": "ok", "data": {"text/plain": "20.90 ms"}})
    '20.90 ms'
    >>> plain_result({"status": "ok", "data": {"text/plain": "'H100 SXM'"}})
    'H100 SXM'
    """
    if not result or result.get("status") != "ok":
        return None
    text = (result.get("data") or {}).get("text/plain")
    if isinstance(text, list):
        text = "".join(text)
    if not isinstance(text, str):
        return None
    return unquoted(text)


def unquoted(text: str) -> str:
    """A ``text/plain`` as the page shows it: a Python str repr unquoted, anything else kept.

    >>> unquoted("'H100 SXM'"), unquoted("20.90 ms")
    ('H100 SXM', '20.90 ms')
    """
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = None
        if isinstance(value, str):
            return value
    return text


_STORED: dict[str, tuple[bytes, dict[str, str]]] = {}


def stored_values(path: pathlib.Path | str) -> dict[str, str]:
    """``{expression: text}`` of every stored ``{eval}`` result of a notebook.

    The one reader of stored results: the web build's role (``tools/stored_eval.py``,
    once per role), the Chinese checks (``tools/zh_checks.py``) and the tests call it.
    A notebook is parsed again only when its bytes change (a digest, not the
    modification time, which two quick writes can share); each call gets its own dict.
    """
    path = pathlib.Path(path)
    raw = path.read_bytes()
    key, digest = str(path.resolve()), hashlib.blake2b(raw, digest_size=16).digest()
    hit = _STORED.get(key)
    if hit is None or hit[0] != digest:
        values: dict[str, str] = {}
        for cell in json.loads(raw.decode("utf-8")).get("cells", []):
            for expr, result in stored_expressions(cell).items():
                text = plain_result(result)
                if expr is not None and text is not None:
                    values[expr] = text
        hit = _STORED[key] = (digest, values)
    return dict(hit[1])


def exercise_labels(markdown: str) -> list[str]:
    """The ``:label:`` of every ``{exercise}`` in ``markdown``, in document order.

    >>> exercise_labels("```{exercise}\\n:label: ch1-1\\nQ?\\n```\\n::::{exercise} worked\\n"
    ...                 ":label: ch1-e1\\n:nonumber:\\n")
    ['ch1-1', 'ch1-e1']
    """
    return [m.group(2) for m in EXERCISE_LABEL.finditer(markdown)]


def solution_targets(markdown: str) -> list[str]:
    """The label each ``{solution}`` (or ``{solution-start}``) in ``markdown`` solves.

    >>> solution_targets("````{solution} ch1-1\\n:class: dropdown\\n````\\n:::{solution-start} ch1-2\\n")
    ['ch1-1', 'ch1-2']
    """
    return SOLUTION_TARGET.findall(markdown)
