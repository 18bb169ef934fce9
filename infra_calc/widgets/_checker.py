"""A small answer-checker widget for the self-test exercises."""
from __future__ import annotations

import html

import ipywidgets as w

from .. import exercises


def answer_checker(exercise_id: str) -> "w.VBox":
    """Type a number, press *Check*: right or wrong, then the worked solution.

    Parameters
    ----------
    exercise_id : str
        An id from :func:`infra_calc.exercises.exercise_ids`, e.g. ``"j07-1"``.
    """
    ex = exercises.get(exercise_id)
    box = w.FloatText(description=f"{ex.id} ({ex.unit})", style={"description_width": "initial"})
    button = w.Button(description="Check", button_style="primary")
    out = w.HTML()

    def on_click(_=None):
        res = exercises.check(ex.id, box.value)
        colour = "#009E73" if res.correct else "#D55E00"
        out.value = (f"<b style='color:{colour}'>{html.escape(res.message)}</b>"
                     f"<br><small>{html.escape(res.solution)}</small>")

    button.on_click(on_click)
    return w.VBox([w.HTML(f"<b>{html.escape(ex.question)}</b>"), w.HBox([box, button]), out])
