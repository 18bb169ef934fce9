"""The answer checker for the self-test exercises: it coaches, it does not tell.

* The reader types an answer, with or without a unit (``34.3``, ``34.3 ms``,
  ``0.0343 s``) into an empty text box whose placeholder names the unit.
* **Check** grades what is in the box *at the moment of the click*.  A browser
  sends a box's new text and a button's click over two different widget models,
  and ipywidgets holds back a model's state update while an earlier one is in
  flight, so the click can reach the kernel *before* the last keystrokes (today's
  stale "you gave 20").  The checker therefore never grades inside the click
  message: it marks a check as pending and grades when the box's late update
  arrives, or, when none does, a moment later (:data:`SETTLE_S`), once the
  kernel has taken every message the browser sent before the click.  Should a
  busy kernel get the late update only after that, the attempt is graded again
  with it (:data:`REGRADE_S`).
* A wrong answer gets a hint (direction, order of magnitude, units, then the
  exercise's own hints, one more per attempt), never the answer.  **Show answer**
  reveals the answer and the worked solution when the reader asks.
* Yes/no (pick-one) parts of a question have their own buttons.
"""
from __future__ import annotations

import html
import time

import ipywidgets as w

from .. import exercises

__all__ = ["AnswerChecker", "answer_checker", "SETTLE_S", "REGRADE_S"]

#: seconds a click waits for late box updates before grading (see the module docstring)
SETTLE_S = 0.5
#: a box update this soon after a click that was graded without it re-grades that attempt
#: (a kernel too busy to get the late update within SETTLE_S)
REGRADE_S = 5.0
GOOD, BAD, NOTE = "#009E73", "#D55E00", "#555555"


def _kernel_scheduler():
    """``schedule(delay, fn)`` on the running kernel's event loop; None outside a kernel."""
    try:
        from ipykernel.kernelbase import Kernel

        if not Kernel.initialized():
            return None
        loop = Kernel.instance().io_loop
    except Exception:  # pragma: no cover - not in a kernel
        return None
    return lambda delay, fn: loop.call_later(delay, fn)


class AnswerChecker(w.VBox):
    """One exercise's checker.  ``box``, ``check_button``, ``verdict``, ``reveal_button``,
    ``solution``, ``parts`` (list of ``(ToggleButtons, HTML)``) are its widgets."""

    def __init__(self, exercise_id: str, schedule=None):
        self.exercise = ex = exercises.get(exercise_id)
        self.attempts = 0
        self._pending = None        # the attempt number waiting to be graded
        self._timer = None
        self._graded = None         # (attempt, text, monotonic time of its click) last graded
        self._clicked_at = 0.0
        self._schedule = schedule if schedule is not None else _kernel_scheduler()
        self.box = w.Text(value="", placeholder=f"answer in {ex.unit}",
                          description="Your answer:", continuous_update=False,
                          style={"description_width": "initial"},
                          layout=w.Layout(width="22em"))
        self.box.add_class("ic-answer")
        self.check_button = w.Button(description="Check", button_style="primary",
                                     tooltip="grade the answer in the box")
        self.check_button.add_class("ic-check")
        self.reveal_button = w.Button(description="Show answer",
                                      tooltip="show the answer and the worked solution")
        self.reveal_button.add_class("ic-reveal")
        self.verdict = w.HTML("")
        self.verdict.add_class("ic-verdict")
        self.solution = w.HTML("")
        self.solution.add_class("ic-solution")
        self.parts = []
        rows = [w.HTML(f"<b>{html.escape(ex.id)}.</b> {html.escape(ex.question)}"),
                w.HBox([self.box, self.check_button, self.reveal_button]), self.verdict]
        for i, part in enumerate(ex.parts):
            pick = w.ToggleButtons(options=list(part.options), value=None,
                                   description=part.prompt, style={"description_width": "initial"})
            pick.add_class("ic-part")
            note = w.HTML("")
            note.add_class("ic-part-verdict")
            pick.observe(lambda ch, i=i: self._grade_part(i, ch["new"]), names="value")
            self.parts.append((pick, note))
            rows += [pick, note]
        rows.append(self.solution)
        super().__init__(rows)
        self.add_class("ic-checker")
        self.check_button.on_click(self._on_click)
        self.reveal_button.on_click(lambda _=None: self.reveal())
        self.box.observe(self._on_box, names="value")

    # -- grading -------------------------------------------------------------------------
    def _on_click(self, _=None):
        self.attempts += 1
        self._pending = self.attempts
        self._clicked_at = time.monotonic()
        self.verdict.value = "<span class='ic-checking' style='color:#555555'>Checking…</span>"
        if self._schedule is None:       # outside a kernel (scripts, unit tests): grade now
            self.grade()
            return
        self._timer = self._schedule(SETTLE_S, self.grade)

    def _on_box(self, _change=None):
        if self._pending is not None:    # the late update of a box that was clicked: grade now
            self.grade()
        elif (self._graded is not None and self._graded[1] != self.box.value
              and time.monotonic() - self._graded[2] < REGRADE_S):
            self._pending = self._graded[0]   # graded too early, without this update: again
            self.grade()

    def grade(self):
        """Grade what is in the box now and show the verdict (a hint when wrong)."""
        if self._pending is None:
            return None
        attempt, self._pending = self._pending, None
        text = self.box.value
        self._graded = (attempt, text, self._clicked_at)
        try:
            res = exercises.check_text(self.exercise.id, text, attempt=attempt)
        except ValueError as exc:
            self._show(attempt, NOTE, str(exc).capitalize())
            return None
        self._show(attempt, GOOD if res.correct else BAD, res.message)
        return res

    def _show(self, attempt: int, colour: str, text: str):
        self.verdict.value = (f"<span class='ic-attempt' data-attempt='{attempt}' "
                              f"style='color:{colour}'><b>{html.escape(text)}</b></span>")

    def _grade_part(self, i: int, picked):
        pick, note = self.parts[i]
        if picked is None:
            note.value = ""
            return
        ok, msg = exercises.check_choice(self.exercise.id, i, picked)
        note.value = (f"<span style='color:{GOOD if ok else BAD}'>"
                      f"{html.escape(msg)}</span>")

    def reveal(self):
        """Show the answer, the answers of the yes/no parts and the worked solution."""
        ex = self.exercise
        answer = exercises.check(ex.id, exercises.expected(ex.id)).answer_text
        parts = "".join(f"<br>{html.escape(p.prompt)} <b>{html.escape(p.answer())}</b>"
                        + (f" ({html.escape(p.why)})" if p.why else "") for p in ex.parts)
        self.solution.value = (f"<div class='ic-revealed'>Answer: <b>{html.escape(answer)}</b> "
                               f"(tolerance {html.escape(ex.tolerance_text)}){parts}<br>"
                               f"<small>{html.escape(ex.solution())}</small></div>")

    # -- what an unrun cell shows ----------------------------------------------------------
    def __repr__(self) -> str:
        ex = self.exercise
        return (f"Answer checker for exercise {ex.id}: run this cell to type your answer "
                f"(in {ex.unit}) and press Check; a wrong answer gets a hint, and "
                f"'Show answer' gives the worked solution.")

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
        An id from :func:`infra_calc.exercises.exercise_ids`, e.g. ``"j07-1"``.
    """
    return AnswerChecker(exercise_id)
