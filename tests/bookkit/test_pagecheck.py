"""bookkit.pagecheck: a page's values against the results stored in its notebook."""
import json

import pytest

import infra_calc as ic
from bookkit import PageValues, check_page_values


def test_a_stored_str_and_its_value_compare_as_shown(tmp_path):
    """The page check reads the stored text with the one reader (quotes of a str repr
    dropped on both sides)."""
    v = PageValues()
    v.t = "H100 SXM"
    assert check_page_values({"v": v}, _notebook(tmp_path, "'H100 SXM'")) == 1


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
