"""Chapter 3's self-test keeps its answers to itself (issue 16 §3).

No chapter-3 page other than the self-test may show the answer of a chapter-3
exercise: not in the prose (the stored ``{eval}`` results) and not in a code cell's
printed output.  An answer counts as shown when the number, as the self-test's
solution writes it (:func:`bookkit.exercises.ch3.selftest_values`), appears as a
whole number token on the page: ``83.44`` does not match inside ``183.44``.
"""
from __future__ import annotations

import re

import pytest
from conftest import BOOK, cells, plain_result, source, stored_expressions

from bookkit import exercises
from bookkit.exercises.ch3 import selftest_values

FOLDER = BOOK / "3_whole_request"
PAGES = sorted(p for p in FOLDER.glob("[0-9]*.ipynb") if "self_test" not in p.name)
#: the value in selftest_values() that is each exercise's answer
ANSWER_KEYS = {f"ch3-n{i}": f"n{i}" for i in range(1, 10)}


def page_text(path) -> str:
    """Everything a reader sees of a page's numbers: markdown, stored {eval} results,
    and the text outputs of its code cells."""
    parts = []
    for c in cells(path):
        parts.append(source(c))
        parts.extend(plain_result(r) or "" for r in stored_expressions(c).values())
        for o in c.get("outputs", []):
            if o.get("output_type") == "stream":
                parts.append("".join(o.get("text", "")))
            elif "data" in o:
                parts.append("".join(o["data"].get("text/plain", "")))
    return "\n".join(parts)


def number_of(shown_text: str) -> str:
    """The number of a shown value: ``"83.44 GB"`` -> ``"83.44"``, ``"2.98×"`` -> ``"2.98"``."""
    m = re.match(r"[\d,]+(?:\.\d+)?", shown_text)
    assert m, shown_text
    return m.group(0)


def shows(text: str, number: str) -> bool:
    return re.search(rf"(?<![\d.,]){re.escape(number)}(?![\d]|\.\d)", text) is not None


def test_the_matcher_sees_whole_numbers_only():
    assert shows("needs 83.44 GB", "83.44") and shows("(83.44)", "83.44")
    assert not shows("183.44 GB", "83.44") and not shows("83.441", "83.44")
    assert not shows("1,352 tokens", "352") and shows("352 tokens.", "352")
    assert number_of("2.98×") == "2.98" and number_of("1,476 tokens") == "1,476"


def test_every_ch3_exercise_has_its_answer_key():
    assert sorted(ANSWER_KEYS) == sorted(exercises.exercise_ids("ch3"))
    v = selftest_values()
    for eid, key in ANSWER_KEYS.items():
        assert exercises.check_text(eid, getattr(v, key).text.replace(",", "")).correct, eid


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_self_test_answer_on_a_chapter_page(page):
    v = selftest_values()
    text = page_text(page)
    shown = {eid: getattr(v, key).text for eid, key in ANSWER_KEYS.items()
             if shows(text, number_of(getattr(v, key).text))}
    assert not shown, f"{page.name} shows self-test answers: {shown}"
