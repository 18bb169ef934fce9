"""Shared helpers of the explorer tests (tests/lib/test_widgets*.py): what a figure draws
outside its edges, the axes' limits, and every combination of control settings."""
from __future__ import annotations


def outside(fig, rendered: bool = False) -> list[str]:
    """What the figure draws beyond its own edges (a cut title or tick label).

    ``rendered``: an explorer's figure that its last refresh has just rendered (its image
    is what a reader sees); the extents are measured with that render's renderer instead
    of drawing the whole figure again (the same boxes: text extents come from the
    renderer's font metrics, the tick labels are brought up to date when asked for).
    """
    if not hasattr(fig.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    if not rendered:
        fig.canvas.draw()
    r = fig.canvas.get_renderer()
    w, h = fig.bbox.width, fig.bbox.height
    bad = []
    for ax in fig.axes:
        for art in [*ax.texts, ax.title, *ax.get_xticklabels(), *ax.get_yticklabels(),
                    ax.xaxis.label, ax.yaxis.label]:
            if not art.get_visible() or not art.get_text():
                continue
            if art in ax.get_xticklabels() and not (
                    min(ax.get_xlim()) <= art.get_position()[0] <= max(ax.get_xlim())):
                continue        # a tick beyond the view is not drawn
            if art in ax.get_yticklabels() and not (
                    min(ax.get_ylim()) <= art.get_position()[1] <= max(ax.get_ylim())):
                continue
            b = art.get_window_extent(r)
            if b.x0 < -0.5 or b.y0 < -0.5 or b.x1 > w + 0.5 or b.y1 > h + 0.5:
                bad.append(f"{art.get_text()!r} at x {b.x0:.0f}–{b.x1:.0f} of {w:.0f}, "
                           f"y {b.y0:.0f}–{b.y1:.0f} of {h:.0f}")
    return bad


def each_setting(controls, grid: dict):
    """Every combination of ``grid``'s values (control name -> values), one control moved
    per step (a reflected Gray order: one refresh per combination, none redundant);
    yields each combination once its controls are set.  A callable value is asked for
    the value when the control is set (``lambda control: max(control.options)``), after
    the controls before it in ``grid``."""
    def walk(names):
        if not names:
            yield ()
            return
        rest = list(walk(names[1:]))
        for j, value in enumerate(grid[names[0]]):
            for tail in (rest if j % 2 == 0 else reversed(rest)):
                yield (value, *tail)

    names = list(grid)
    for combo in walk(names):
        for name, value in zip(names, combo, strict=True):
            control = controls[name]
            control.value = value(control) if callable(value) else value  # unchanged: no refresh
        yield tuple(controls[name].value for name in names)


def limits(ex):
    """The (x, y) limits of each of an explorer's axes."""
    return [(ax.get_xlim(), ax.get_ylim()) for ax in ex.fig.axes]
