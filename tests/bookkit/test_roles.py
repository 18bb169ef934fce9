"""bookkit.roles: the one parser of {eval} roles and the one reader of their stored results."""
import re

import pytest

from bookkit import eval_expressions, plain_result
from bookkit.roles import ROLE_OR_CODE_SPAN, code_blocks, split_inline, strip_code
from tools import zh_message

ROLE_IN_CODE = "{eval}`v.a` and ``{eval}`v.code` `` and {eval}`v.a`"


def test_one_parser_for_every_reader():
    """A role in a code span or a code block is no expression, for the check, the store
    and the tests alike (one parser: the three used to disagree on this string)."""
    md = ROLE_IN_CODE + "\n```python\n{eval}`v.b`\n```\n"
    assert eval_expressions(md) == ["v.a", "v.a"]


# a page's markdown: prose numbers 1.1, 4.4 and 7.7; the others are in code, roles and options
PAGE = ("Prose 1.1, {eval}`v.a`, `x = 2.2` and {numref}`fig-3.3`.\n"
        "````{note} A title 4.4\n:class: tip-5.5\n```{code-cell} ipython3\n6.6\n```\nBody 7.7\n````\n"
        "```python\nic.shown(8.8)\n```\n")


def test_strip_code_keeps_prose_titles_and_bodies_only():
    """The tests' one reader of prose (hand-typed numbers): code blocks, nested ones too,
    code spans, roles and directive options go; a directive's title and body stay."""
    text = strip_code(PAGE)
    assert re.findall(r"\d\.\d", text) == ["1.1", "4.4", "7.7"]
    assert "{" not in text and "`" not in text and "tip" not in text, text


def test_code_blocks_are_the_fences_and_code_directives():
    assert code_blocks(PAGE) == [("{code-cell} ipython3", "6.6"), ("python", "ic.shown(8.8)")]


def test_the_catalog_checks_read_roles_with_the_same_parser():
    """The Chinese checks (parity, the rendering of a message, the words a reader sees)
    find the roles the page check and the store find, on the same string."""
    want = eval_expressions(ROLE_IN_CODE)
    assert split_inline(ROLE_IN_CODE)[1::2] == want
    evals = [k for k in zh_message.parity_items(ROLE_IN_CODE).elements() if k.startswith("{eval}")]
    assert evals == [f"{{eval}}`{e}`" for e in want]
    text, spans = zh_message.render(ROLE_IN_CODE, {"v.a": "1 ms", "v.code": "2 ms"})
    assert [text[a:b] for a, b in spans] == ["1 ms", "1 ms"] and "2 ms" not in text
    assert "eval" not in zh_message.prose("{eval}`v.a` 个")



@pytest.mark.parametrize("text, spans, prose", [
    ("`a`` b` c", [(None, "a`` b")], "  c"),          # a run of two does not close a span of one
    ("``x` b` c", [(None, " b")], "``x  c"),          # `` has no closing run of two: it is text
    ("`` {eval}`v` `` {numref}`t <f>`", [(None, " {eval}`v` "), ("numref", "t <f>")], "   "),
])
def test_a_code_span_closes_on_a_run_of_its_own_length(text, spans, prose):
    """The one reader of roles and code spans (the Chinese checks read them with it too)
    cuts spans as CommonMark does: (role or None, text) of each, and the prose left."""
    assert [m.group("role", "code") for m in ROLE_OR_CODE_SPAN.finditer(text)] == spans
    assert strip_code(text) == prose


def test_stored_text_is_unquoted_once():
    assert plain_result({"status": "ok", "data": {"text/plain": "'H100 SXM'"}}) == "H100 SXM"
    assert plain_result({"status": "ok", "data": {"text/plain": "20.90 ms"}}) == "20.90 ms"
    assert plain_result({"status": "error"}) is None


@pytest.mark.parametrize("markdown, exprs", [
    ("a {eval}`x` b {eval}`y` c {eval}`x`", ["x", "y", "x"]),            # one per occurrence
    ("``{eval}`no` `` and `{eval}` {eval}`yes`", ["yes"]),              # code spans
    ("```python\n{eval}`no`\n```\n{eval}`yes`", ["yes"]),                 # code blocks
    ("```{exercise} Title {eval}`t`\n:label: e1\nBody {eval}`b`\n```", ["t", "b"]),
    ("````{solution} e1\n:class: dropdown\n```{math}\n{eval}`no`\n```\nS {eval}`s`\n````", ["s"]),
    (":::{note}\n{eval}`n`\n:::\n", ["n"]),
    ("", []),
])
def test_eval_expressions_as_jupyterlab_myst_finds_them(markdown, exprs):
    assert eval_expressions(markdown) == exprs
