"""The self-test pages in a real JupyterLab (``tests/lab_pages.py``): the checks of every
page, and **checkers grade what was typed** (issue 18 §1): at least
:data:`MIN_CHECKER_TRIES` type-and-click tries over the checker pages, in single tries
and bursts of :data:`BURST` clicks without waiting.  Each verdict must arrive (no
retry: a click is made once) and be about the text typed for its own click.  The
counts are printed and written to ``artifacts/lab-e2e/checker_tries.json``.
"""
from __future__ import annotations

import collections
import html as html_lib
import json
import math
import re

import pytest
from lab_pages import ARTIFACTS, CHECKER_NOTEBOOKS, NEEDS_CHROMIUM, WAIT_MS, PageChecks, page_code

pytestmark = [NEEDS_CHROMIUM]

PAGES = CHECKER_NOTEBOOKS


class TestCheckerPages(PageChecks):
    PAGES = PAGES


#: checkers the pages show (one per answer_checker( call in their code)
N_CHECKERS = sum(page_code(n).count("answer_checker(") for n in PAGES)
MIN_CHECKER_TRIES, BURST, SINGLES = 100, 10, 2
#: bursts per checker, so that all the checker pages together make MIN_CHECKER_TRIES
BURSTS = max(1, math.ceil((math.ceil(MIN_CHECKER_TRIES / max(N_CHECKERS, 1)) - SINGLES) / BURST))
TRIES = collections.Counter()


@pytest.fixture(scope="module", autouse=True)
def _report_checker_tries():
    yield
    if not TRIES:
        return
    line = (f"checker tries: {TRIES['tries']} type-and-click tries on {TRIES['checkers']} "
            f"checkers ({TRIES['singles']} single, {TRIES['bursts']} bursts of {BURST}); "
            f"{TRIES['no_verdict']} clicks without a verdict, {TRIES['other_value']} verdicts "
            f"about another value")
    print("\n" + line)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "checker_tries.json").write_text(json.dumps({**TRIES, "summary": line}, indent=1))


def _typed_texts(eid: str, n: int) -> list[str]:
    """``n`` answers to type: right ones in several spellings, wrong ones all different."""
    from bookkit.exercises import expected, get
    from bookkit.exercises.answers import unit_kind
    from infra_calc.units import UNITS

    ex, exp = get(eid), expected(eid)
    rights = [f"{exp:.8g}", f"{exp:.8g} {ex.unit}"]
    kind = unit_kind(ex.unit)
    other = next((u for u in ("s", "MB", "GFLOP", "GFLOP/s", "GB/s")
                  if u != ex.unit and unit_kind(u) == kind), None) if kind else None
    if other:
        rights.append(f"{exp * UNITS[ex.unit].scale / UNITS[other].scale:.8g} {other}")
    elif ex.unit == "×":
        rights.append(f"{exp:.8g}x")
    whole = ex.rel_tol == 0 and ex.abs_tol == 0
    out = []
    for k in range(n):
        if k % 2 == 0:
            out.append(rights[(k // 2) % len(rights)])
        else:
            out.append(f"{exp + 1 + k:.0f}" if whole else f"{exp * (1.3 + 0.05 * k) + 1:.6g}")
    return out


def _judge(eid: str, verdict: dict | None, typed: str) -> str | None:
    """What is wrong with the verdict of a click that carried ``typed`` (None: nothing)."""
    from bookkit.exercises import check_text, get
    from infra_calc.display import plain_number

    if verdict is None:
        return "no verdict"
    if verdict.get("text") != typed:
        return f"graded {verdict.get('text')!r}"
    want = check_text(eid, typed)
    message = html_lib.unescape(re.sub(r"<[^>]+>", "", verdict.get("html", "")))
    if bool(verdict.get("correct")) != want.correct:
        return f"graded {'right' if verdict.get('correct') else 'wrong'}: {message!r}"
    if "you gave" in want.message and f"you gave {plain_number(want.value)} {get(eid).unit}" \
            not in message:
        return f"about another value: {message!r}"
    return None


#: resolves, once each wanted attempt has its verdict or ``limit`` ms have passed, with the
#: verdicts of the exercise so far (checked on each verdict event: one round trip, no polling)
VERDICTS_JS = """([eid, want, limit]) => new Promise(resolve => {
  const mine = () => window.__icVerdicts.filter(v => v.exercise === eid);
  const finish = () => {
    document.removeEventListener('ic-verdict', check); clearTimeout(timer); resolve(mine()); };
  // the log's own listener (VERDICT_LOG_JS, added first) has run when this one runs
  const check = () => { const got = new Set(mine().map(v => v.attempt));
                        if (want.every(a => got.has(a))) finish(); };
  const timer = setTimeout(finish, limit);
  document.addEventListener('ic-verdict', check);
  check();
})"""


def _verdicts(page, eid: str, attempts: list[int]) -> dict[int, dict]:
    """Wait until each of ``attempts`` has its verdict (or the limit passes); what arrived
    (a missing one is reported by the caller as a click without a verdict)."""
    got: dict[int, dict] = {}
    for v in page.evaluate(VERDICTS_JS, [eid, attempts, WAIT_MS]):
        got.setdefault(v["attempt"], v)
    return got


@pytest.mark.parametrize("relpath", PAGES)
def test_checkers_grade_exactly_what_was_typed(lab, relpath):
    """Type, click once, read the verdict: single tries and bursts of BURST clicks without
    waiting.  Every click gets a verdict, about the text typed for that click."""
    from bookkit import exercises

    page = lab.page(relpath).page
    page.wait_for_selector(".ic-checker .ic-answer-box", timeout=WAIT_MS)
    ids = page.evaluate("""() => Array.from(document.querySelectorAll('.ic-checker'))
        .map(c => c.querySelector('.ic-answer-box').dataset.exercise)""")
    assert len(ids) == page_code(relpath).count("answer_checker("), ids
    problems = []
    for i, eid in enumerate(ids):
        ex = exercises.get(eid)
        answer = exercises.check(eid, exercises.expected(eid)).answer_text
        checker = page.locator(".ic-checker").nth(i)
        box = checker.locator(".ic-answer-input")
        check = checker.locator("button.ic-check")
        assert checker.locator(".ic-title").inner_text().strip() == f"{ex.title}."
        assert box.input_value() == "" and ex.unit in (box.get_attribute("placeholder") or "")
        TRIES["checkers"] += 1
        # a wrong answer coaches, and shows neither the answer nor the solution
        attempt = 1
        box.fill(f"{exercises.expected(eid) * 1.5 + 1:.6g}")
        check.click()
        text = _verdicts(page, eid, [attempt]).get(attempt, {}).get("html", "")
        assert "Not yet" in text and not re.search(r"(?<![\d.,])" + re.escape(answer), text), text
        assert checker.locator(".ic-revealed").count() == 0
        # single tries, then bursts: one click per text, never a second one
        texts = _typed_texts(eid, SINGLES + BURSTS * BURST)
        groups = [texts[k:k + 1] for k in range(SINGLES)]
        groups += [texts[SINGLES + b * BURST:SINGLES + (b + 1) * BURST] for b in range(BURSTS)]
        for group in groups:
            numbers = list(range(attempt + 1, attempt + 1 + len(group)))
            # a single try waits for the box and the button to be actionable (visible,
            # enabled, stable, not covered); a burst types and clicks as fast as
            # Playwright can, without those waits (the singles just showed both usable;
            # a click that lands on anything else than the button gets no verdict)
            burst = len(group) > 1
            for typed in group:
                box.fill(typed, force=burst)
                check.click(force=burst)
            attempt = numbers[-1]
            got = _verdicts(page, eid, numbers)
            for n, typed in zip(numbers, group, strict=True):
                TRIES["tries"] += 1
                why = _judge(eid, got.get(n), typed)
                if why == "no verdict":
                    TRIES["no_verdict"] += 1
                elif why:
                    TRIES["other_value"] += 1
                if why:
                    problems.append(f"{eid} attempt {n}: typed {typed!r}: {why}")
            TRIES["bursts" if len(group) > 1 else "singles"] += 1
        # the newest attempt's verdict is the one on screen
        shown = checker.locator(".ic-verdict [data-attempt]").get_attribute("data-attempt")
        assert shown == str(attempt), (eid, shown, attempt)
        checker.locator("button.ic-reveal").click()
        page.wait_for_selector(f".ic-checker >> nth={i} >> .ic-revealed", timeout=WAIT_MS)
        assert answer in checker.locator(".ic-revealed").inner_text()
    assert not problems, f"{relpath}: {len(problems)} clicks graded wrongly:\n  " + \
        "\n  ".join(problems[:30])


