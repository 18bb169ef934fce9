"""Registry, shared style and writer of the book's published figures.

The figure modules register their figures with :func:`figure` when imported;
:mod:`infra_calc.figures` imports every one of them (statically: the import graph has
no cycle, since no figure module imports the package).
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import json
import pathlib
import sys
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FigureSpec", "FIGURES", "figure", "STYLE", "PALETTE", "HATCHES", "MARKERS",
           "style", "render_all", "SAVE_KWARGS", "main"]

STYLE = str(pathlib.Path(__file__).with_name("infra_calc.mplstyle"))
#: Okabe-Ito colours, safe for colour-blind readers; pair them with HATCHES /
#: MARKERS / line styles so the figures also read in grey.
PALETTE = {"blue": "#0072B2", "vermillion": "#D55E00", "green": "#009E73", "purple": "#CC79A7",
           "orange": "#E69F00", "sky": "#56B4E9", "yellow": "#F0E442", "black": "#000000"}
HATCHES = ("", "//", "..", "xx", "\\\\", "oo", "--", "++")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: How each format of a published figure is written (no dates, no software tag):
#: :func:`render_all` saves with ``SAVE_KWARGS[fmt]``, pytest-mpl compares PNGs with
#: ``SAVE_KWARGS["png"]``.
SAVE_KWARGS = {"png": {"metadata": {"Software": None}},
               "svg": {"metadata": {"Date": None, "Creator": None}},
               "pdf": {"metadata": {"CreationDate": None, "ModDate": None, "Producer": None,
                                    "Creator": None}}}


@dataclass(frozen=True)
class FigureSpec:
    """A published figure: id (file stem), caption and the function drawing it."""

    #: File stem and MyST ``:name:`` of the figure, e.g. ``"j07-fixes"``.
    id: str
    #: The caption the book prints under it.
    caption: str
    #: Draws the figure in the book's style and returns it.
    func: Callable

    @property
    def function(self) -> str:
        """Dotted path of the drawing function."""
        return f"{self.func.__module__}.{self.func.__qualname__}"

    @property
    def inputs(self) -> dict:
        """The function's keyword defaults (the source's case), JSON-ready."""
        sig = inspect.signature(self.func)
        return {k: _jsonable(p.default) for k, p in sig.parameters.items()
                if p.default is not inspect.Parameter.empty}


FIGURES: dict = {}


def figure(fig_id: str, caption: str):
    """Decorator: register ``func`` as the published figure ``fig_id``."""
    def wrap(func):
        if fig_id in FIGURES:
            raise ValueError(f"figure id {fig_id!r} registered twice")

        @functools.wraps(func)
        def styled(*args, **kwargs):
            with style():
                return func(*args, **kwargs)

        styled.figure_id = fig_id
        styled.caption = caption
        FIGURES[fig_id] = FigureSpec(fig_id, caption, styled)
        return styled
    return wrap


@contextlib.contextmanager
def style():
    """Context manager applying the book's style sheet."""
    import matplotlib.pyplot as plt

    with plt.style.context(STYLE):
        yield


def _jsonable(v):
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return getattr(v, "name", repr(v))


def render_all(out_dir, *, formats=("png", "svg"), progress=True) -> list[pathlib.Path]:
    """Write every figure as each of ``formats`` plus ``figures.json``.

    Output is byte-stable: no dates, fixed SVG hash salt, no software tag
    (:data:`SAVE_KWARGS`).
    """
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    ids = sorted(FIGURES)
    manifest = []
    for i, fid in enumerate(ids, 1):
        spec = FIGURES[fid]
        if progress:
            print(f"[{i:2d}/{len(ids)}] {fid}", file=sys.stderr, flush=True)
        with style():
            fig = spec.func()
            for fmt in formats:
                path = out / f"{fid}.{fmt}"
                fig.savefig(path, format=fmt, **SAVE_KWARGS[fmt])
                written.append(path)
        plt.close(fig)
        manifest.append({"id": fid, "caption": spec.caption, "function": spec.function,
                         "inputs": spec.inputs, "files": [f"{fid}.{f}" for f in formats]})
    mpath = out / "figures.json"
    mpath.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written.append(mpath)
    return written


def main(argv=None) -> int:
    """``python -m infra_calc figures [--out DIR] [--format png svg pdf] [--list]``."""
    from .._parser import Parser

    p = Parser(prog="python -m infra_calc figures",
                                description="Regenerate every published figure.")
    p.add_argument("--out", default="book/figures", help="output folder (default book/figures)")
    p.add_argument("--format", nargs="+", default=["png", "svg"], choices=["png", "svg", "pdf"])
    p.add_argument("--list", action="store_true", help="list figure ids and captions")
    args = p.parse_args(argv)
    if args.list:
        for fid in sorted(FIGURES):
            print(f"{fid}: {FIGURES[fid].caption}")
        return 0
    files = render_all(args.out, formats=tuple(args.format))
    print(f"wrote {len(files)} files ({len(FIGURES)} figures) to {args.out}")
    return 0
