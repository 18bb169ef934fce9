"""bookkit: the {eval} parser, the stored results and the page check."""
import json
import re

import pytest

import infra_calc as ic
from bookkit import PageValues, check_page_values, eval_expressions, plain_result
from bookkit.roles import code_blocks, split_inline, strip_code
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


def test_a_stored_str_and_its_value_compare_as_shown(tmp_path):
    """The page check reads the stored text with the one reader (quotes of a str repr
    dropped on both sides)."""
    v = PageValues()
    v.t = "H100 SXM"
    assert check_page_values({"v": v}, _notebook(tmp_path, "'H100 SXM'")) == 1


def test_stored_text_is_unquoted_once():
    assert plain_result({"status": "ok", "data": {"text/plain": "'H100 SXM'"}}) == "H100 SXM"
    assert plain_result({"status": "ok", "data": {"text/plain": "20.90 ms"}}) == "20.90 ms"
    assert plain_result({"status": "error"}) is None


def _notebook(tmp_path, stored):
    cell = {"cell_type": "markdown", "source": "T = {eval}`v.t`", "metadata": {}}
    if stored is not None:
        cell["metadata"]["user_expressions"] = [
            {"expression": "v.t", "result": {"status": "ok", "data": {"text/plain": stored}}}]
    path = tmp_path / "page.ipynb"
    path.write_text(json.dumps({"cells": [cell]}))
    return str(path)


def test_check_page_values_passes_when_stored_matches(tmp_path):
    v = PageValues()
    v.t = ic.shown(0.0209, "ms", 2)
    assert check_page_values({"v": v}, _notebook(tmp_path, "20.90 ms")) == 1


@pytest.mark.parametrize("stored", ["20.91 ms", None])
def test_check_page_values_fails_on_stale_or_missing(tmp_path, stored):
    v = PageValues()
    v.t = ic.shown(0.0209, "ms", 2)
    with pytest.raises(AssertionError, match="out of date"):
        check_page_values({"v": v}, _notebook(tmp_path, stored))




def test_a_role_in_a_code_span_needs_no_stored_result(tmp_path):
    v = PageValues()
    v.t = ic.shown(0.0209, "ms", 2)
    nb = json.loads(open(_notebook(tmp_path, "20.90 ms")).read())
    nb["cells"][0]["source"] += " and ``{eval}`v.not_a_role` ``"
    path = tmp_path / "code_span.ipynb"
    path.write_text(json.dumps(nb))
    assert check_page_values({"v": v}, str(path)) == 1


def test_stored_values_reads_a_notebook_again_when_it_changes(tmp_path):
    """The one reader caches a notebook by its bytes: a rewrite is seen at once (even within
    one tick of the clock), and a caller that changes its dict changes no later answer."""
    from bookkit import stored_values

    path = _notebook(tmp_path, "20.90 ms")
    first = stored_values(path)
    assert first == {"v.t": "20.90 ms"}
    first["v.t"] = "changed"
    assert stored_values(path) == {"v.t": "20.90 ms"}
    _notebook(tmp_path, "20.91 ms")
    assert stored_values(path) == {"v.t": "20.91 ms"}
