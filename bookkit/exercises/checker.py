"""The answer checker for the self-test exercises: it coaches, it does not tell.

* The reader types an answer, with or without a unit (``34.3``, ``34.3 ms``,
  ``0.0343 s``) into an empty text box whose placeholder names the unit, and
  presses **Check** (or Enter).
* The click and the text travel as **one message**: the checker's front end (a
  small anywidget, :file:`checker.js`, shipped with the package and loaded
  from the kernel, so it works offline) sends ``{text, attempt}`` when the
  button is pressed, and the kernel grades exactly that text and answers for
  that attempt (the ``verdict`` trait).  The box's text is never synced on its
  own, so there is nothing to wait for: no settle timer, no re-grading.
* A wrong answer gets a hint (direction and a coarse size, or a unit slip, then
  the exercise's own hints, one more per attempt), never the answer.
  **Show answer** reveals the answer when asked; the worked solution is the page's
  own, folded below the checker.
* Yes/no (pick-one) parts of a question have their own buttons.
* The checker shows the exercise's title only: the page above it poses the question.
"""
from __future__ import annotations

import html
import pathlib

import anywidget
import ipywidgets as w
import traitlets

from .grading import check, check_choice, check_text
from .registry import expected, get

__all__ = ["AnswerBox", "AnswerChecker", "answer_checker"]

GOOD, BAD, NOTE = "#009E73", "#D55E00", "#555555"
#: what the reveal says of the worked solution, which the page holds
SEE_SOLUTION = "The worked solution is in the Solution block below."
_HERE = pathlib.Path(__file__).resolve().parent


class AnswerBox(anywidget.AnyWidget):
    """Text box, **Check** and **Show answer** of one checker; the verdict below them.

    Messages from the front end: ``{"event": "check", "text": str, "attempt": int}``
    and ``{"event": "reveal"}``.  The kernel answers a check by setting
    ``verdict = {"attempt", "text", "html", "correct"}``.
    """

    _esm = (_HERE / "checker.js").read_text(encoding="utf-8")
    _css = (_HERE / "checker.css").read_text(encoding="utf-8")
    exercise_id = traitlets.Unicode("").tag(sync=True)
    placeholder = traitlets.Unicode("").tag(sync=True)
    #: the highest attempt graded so far (a view drawn again counts on from it)
    attempts = traitlets.Int(0).tag(sync=True)
    verdict = traitlets.Dict({}).tag(sync=True)

    def __init__(self, exercise_id: str, on_check, on_reveal, **kwargs):
        super().__init__(exercise_id=exercise_id, **kwargs)
        self._on_check, self._on_reveal = on_check, on_reveal
        self.on_msg(self._handle)

    def _handle(self, _widget, content, _buffers=None):
        if not isinstance(content, dict):
            return
        if content.get("event") == "check":
            attempt = content.get("attempt")
            if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
                attempt = self.attempts + 1
            self.submit(str(content.get("text", "")), attempt)
        elif content.get("event") == "reveal":
            self._on_reveal()

    def submit(self, text: str, attempt: int | None = None) -> dict:
        """Grade ``text`` as attempt ``attempt`` (the next one by default); the new verdict."""
        attempt = self.attempts + 1 if attempt is None else attempt
        correct, colour, message = self._on_check(text, attempt)
        self.attempts = max(self.attempts, attempt)
        head, sep, rest = message.partition(": ")
        body = (f"<b>{html.escape(head + sep.rstrip())}</b> {html.escape(rest)}" if sep
                else html.escape(message))
        self.verdict = {
            "attempt": attempt, "text": text, "correct": correct,
            "html": (f"<span class='ic-attempt' data-attempt='{attempt}' "
                     f"data-correct='{str(correct).lower()}' style='color:{colour}'>"
                     f"{body}</span>")}
        return self.verdict


class AnswerChecker(w.VBox):
    """One exercise's checker: ``header``, ``box`` (:class:`AnswerBox`), ``parts`` (list of
    ``(ToggleButtons, HTML)``) and ``revealed`` (the answer, once asked for)."""

    def __init__(self, exercise_id: str):
        self.exercise = ex = get(exercise_id)
        self.header = w.HTML(f"<b>{html.escape(ex.title)}.</b>")
        self.header.add_class("ic-title")
        self.box = AnswerBox(ex.id, self._grade, self.reveal, placeholder=f"answer in {ex.unit}")
        self.revealed = w.HTML("")
        self.revealed.add_class("ic-reveal-box")
        self.parts = []
        rows = [self.header, self.box]
        for i, part in enumerate(ex.parts):
            pick = w.ToggleButtons(options=list(part.options), value=None,
                                   description=part.prompt, style={"description_width": "initial"})
            pick.add_class("ic-part")
            note = w.HTML("")
            note.add_class("ic-part-verdict")
            pick.observe(lambda ch, i=i: self._grade_part(i, ch["new"]), names="value")
            self.parts.append((pick, note))
            rows += [pick, note]
        rows.append(self.revealed)
        super().__init__(rows)
        self.add_class("ic-checker")

    # -- grading -------------------------------------------------------------------------
    def _grade(self, text: str, attempt: int) -> tuple[bool, str, str]:
        try:
            res = check_text(self.exercise.id, text, attempt=attempt)
        except ValueError as exc:
            return False, NOTE, str(exc)[:1].upper() + str(exc)[1:]
        return res.correct, GOOD if res.correct else BAD, res.message

    def check(self, text: str) -> dict:
        """Grade ``text`` as the next attempt, as a click on **Check** does; the verdict."""
        return self.box.submit(text)

    @property
    def verdict(self) -> str:
        """The HTML of the last verdict ("" before the first check)."""
        return self.box.verdict.get("html", "")

    def _grade_part(self, i: int, picked):
        pick, note = self.parts[i]
        if picked is None:
            note.value = ""
            return
        ok, msg = check_choice(self.exercise.id, i, picked)
        note.value = (f"<span style='color:{GOOD if ok else BAD}'>"
                      f"{html.escape(msg)}</span>")

    def reveal(self):
        """Show the answer and the answers of the yes/no parts; the worked solution is the page's."""
        ex = self.exercise
        answer = check(ex.id, expected(ex.id)).answer_text
        parts = "".join(f"<br>{html.escape(p.prompt)} <b>{html.escape(p.answer())}</b>"
                        + (f" ({html.escape(p.why)})" if p.why else "") for p in ex.parts)
        self.revealed.value = (f"<div class='ic-revealed'>Answer: <b>{html.escape(answer)}</b> "
                               f"(tolerance {html.escape(ex.tolerance_text)}){parts}<br>"
                               f"<small>{SEE_SOLUTION}</small></div>")

    # -- what an unrun cell shows ----------------------------------------------------------
    def __repr__(self) -> str:
        ex = self.exercise
        return (f"Answer checker for {ex.title}: run this cell to type your answer "
                f"(in {ex.unit}) and press Check; a wrong answer gets a hint, and "
                f"'Show answer' gives the answer (the worked solution is the page's).")

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(repr(self))

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = repr(self)
        return data


def answer_checker(exercise_id: str) -> AnswerChecker:
    """Type an answer (a unit is optional), press *Check*: a verdict or a hint.

    Parameters
    ----------
    exercise_id : str
        An id from :func:`bookkit.exercises.exercise_ids`, e.g. ``"ch1-1"``; the checker
        shows the exercise's ``title``, the name its page gives it.
    """
    return AnswerChecker(exercise_id)
