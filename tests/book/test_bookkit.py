"""bookkit: the {eval} parser, the stored results and the page check."""
import json

import pytest

import infra_calc as ic
from bookkit import check_page_values, eval_expressions, plain_result


def test_one_parser_for_every_reader():
    """A role in a code span or a code block is no expression, for the check, the store
    and the tests alike (one parser: the three used to disagree on this string)."""
    md = "{eval}`v.a` and ``{eval}`v.code` `` and {eval}`v.a`\n```python\n{eval}`v.b`\n```\n"
    assert eval_expressions(md) == ["v.a", "v.a"]


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
    v = ic.PageValues()
    v.t = ic.shown(0.0209, "ms", 2)
    assert check_page_values({"v": v}, _notebook(tmp_path, "20.90 ms")) == 1


@pytest.mark.parametrize("stored", ["20.91 ms", None])
def test_check_page_values_fails_on_stale_or_missing(tmp_path, stored):
    v = ic.PageValues()
    v.t = ic.shown(0.0209, "ms", 2)
    with pytest.raises(AssertionError, match="out of date"):
        check_page_values({"v": v}, _notebook(tmp_path, stored))




def test_a_role_in_a_code_span_needs_no_stored_result(tmp_path):
    v = ic.PageValues()
    v.t = ic.shown(0.0209, "ms", 2)
    nb = json.loads(open(_notebook(tmp_path, "20.90 ms")).read())
    nb["cells"][0]["source"] += " and ``{eval}`v.not_a_role` ``"
    path = tmp_path / "code_span.ipynb"
    path.write_text(json.dumps(nb))
    assert check_page_values({"v": v}, str(path)) == 1
