"""Figures for chapter 2, pages 05-06: capacity stacks, TPU v1 die area, Amdahl's law (J13 §5-§6).

Every function takes its inputs as keyword arguments whose defaults are the
source's case and returns a :class:`matplotlib.figure.Figure`.  The model
logic comes from :mod:`infra_calc` (``planner_state``, ``capacity_reading``,
``amdahl_speedup``); :func:`infra_calc.planner.planner_state` is the one place that
turns planner settings into the numbers the capacity planner widget
(:mod:`infra_calc.widgets.capacity`) and its static snapshot draw.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .. import source as S
from ..accelerators import capacity_reading
from ..amdahl import amdahl_limit, amdahl_speedup
from ..display import in_unit, shown, shown_e, tokens_k
from ..planner import planner_state
from ._registry import HATCHES, MARKERS, PALETTE, figure

__all__ = ["SEGMENT_COLOURS", "SEGMENT_HATCHES", "memory_segments", "legend_handles", "capacity_4090",
           "tpu_area", "amdahl_curves", "capacity_planner_snapshot"]

#: Colour and hatch of each memory segment (weights, workspace, KV cache), shared with
#: the capacity planner widget.
SEGMENT_COLOURS = {"weights": PALETTE["blue"], "workspace": PALETTE["orange"], "kv": PALETTE["green"]}
SEGMENT_HATCHES = {"weights": HATCHES[0], "workspace": HATCHES[2], "kv": HATCHES[1]}


def memory_segments(mem):
    """``(segment, left, width)`` in bytes for weights, workspace and KV cache of a memory
    record, stacked in that order: the stacking of the planner's bar and of its snapshot."""
    left, out = 0.0, []
    for key in SEGMENT_COLOURS:
        width = getattr(mem, key)
        out.append((key, left, width))
        left += width
    return out


def legend_handles(*, per_request: bool = True):
    """Legend patches for the three memory segments (weights, workspace, KV cache)."""
    kv_label = "KV cache, one block per request" if per_request else "KV cache (all requests)"
    return [Patch(facecolor=SEGMENT_COLOURS[k], hatch=SEGMENT_HATCHES[k], edgecolor="white", label=lab)
            for k, lab in (("weights", "resident weights"), ("workspace", "workspace"),
                           ("kv", kv_label))]




@figure("j13-capacity-4090",
        "Qwen3-8B in BF16 on an RTX 4090 with a 2 GiB workspace: four or five 8K-token requests "
        "against the capacity read as 24e9 bytes (the source) and as the physical 24 GiB.")
def capacity_4090(model: str = S.J13_MODEL, hw: str = S.J13_HW, *,
                  batches=(S.J13_BATCH, S.J13_BATCH + 1), context: int = S.J13_CONTEXTS[0],
                  bytes_per_param: float = float(S.J13_BYTES_PER_PARAM),
                  workspace: float = S.J13_WORKSPACE) -> Figure:
    """Stacked bars (weights, workspace, one KV block per request) for each batch.

    Two horizontal lines mark the capacity under both readings
    (:func:`capacity_reading`): the source's ``24 × 10^9`` bytes and the
    physical ``24 GiB``.  Heights in GB (10^9 bytes).
    """
    fig = Figure()
    ax = fig.add_subplot()
    states = [planner_state(model, hw, context=context, batch=b, workspace=workspace,
                            bytes_per_param=bytes_per_param)
              for b in batches]
    x = np.arange(len(states))
    width = 0.5
    for xi, st in zip(x, states, strict=True):
        mem = st.memory
        for key, bottom, size in memory_segments(mem):
            # the cache drawn as one block per request, each of them S m_KV
            blocks = [st.kv_per_request] * st.batch if key == "kv" else [size]
            for block in blocks:
                ax.bar(xi, in_unit(block, "GB"), width, bottom=in_unit(bottom, "GB"),
                       color=SEGMENT_COLOURS[key], hatch=SEGMENT_HATCHES[key], edgecolor="white",
                       **({"linewidth": 1.2} if key == "kv" else {}))
                bottom += block
        ax.annotate(str(shown(mem.total, "GB", 2)), (xi + width / 2, in_unit(mem.total, "GB")), xytext=(4, 0),
                    textcoords="offset points", ha="left", va="center", fontsize=9)
    source_cap = capacity_reading(hw, reading="decimal GB")
    physical_cap = capacity_reading(hw, reading="physical GiB")
    caps = [(source_cap, f"source reading: {shown_e(source_cap, 'B')}", "--",
             PALETTE["vermillion"]),
            (physical_cap, f"physical: {shown(physical_cap, 'GiB', 0)}", "-",
             PALETTE["black"])]
    handles = legend_handles()
    for cap, lab, ls, col in caps:
        line = ax.axhline(in_unit(cap, "GB"), linestyle=ls, color=col, linewidth=1.6,
                          label=f"capacity, {lab} = {shown(cap, 'GB', 2)}")
        handles.append(line)
    ctx = tokens_k(context)
    ax.set_xticks(x, [f"{st.batch} × {ctx} requests" for st in states])
    ax.set_xlim(-0.6, len(states) - 0.2)
    ax.set_ylabel("memory (GB = 10⁹ bytes)")
    ax.set_xlabel("batch")
    top = in_unit(max(max(st.memory.total for st in states), caps[1][0]), "GB")
    ax.set_ylim(0, top * 1.12)
    ax.set_title(f"{states[0].model.name} (BF16) on an {states[0].hw.name}: does the batch fit?")
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8.5)
    fig.set_size_inches(7.0, 5.0)
    fig.subplots_adjust(bottom=0.3)
    return fig


@figure("j13-tpu-area",
        "TPU v1 die area: the source's table against Jouppi et al. (ISCA 2017), Figure 2.")
def tpu_area(*, source_shares=None, paper_shares=None) -> Figure:
    """Two horizontal stacked bars: the source's area table and the paper's.

    ``source_shares`` / ``paper_shares`` map a part to its share of the die
    (defaults: :data:`infra_calc.source.TPU_V1_AREA_SOURCE` and
    :data:`~infra_calc.source.TPU_V1_AREA_PAPER`).  Whatever a table leaves
    out is drawn as a blank "not given" segment.
    """
    rows = [("Source's table", dict(source_shares or S.TPU_V1_AREA_SOURCE)),
            ("Jouppi et al. 2017, Fig. 2", dict(paper_shares or S.TPU_V1_AREA_PAPER))]

    def kind(part: str) -> str:
        p = part.lower()
        if "buffer" in p:
            return "buffers"
        if "compute" in p:
            return "compute"
        if "i/o" in p:
            return "io"
        if "control" in p:
            return "control"
        return "other"

    style = {"buffers": (PALETTE["sky"], HATCHES[1]), "compute": (PALETTE["orange"], HATCHES[2]),
             "io": (PALETTE["green"], HATCHES[3]), "control": (PALETTE["vermillion"], HATCHES[4]),
             "other": (PALETTE["purple"], HATCHES[5])}
    fig = Figure(figsize=(7.0, 3.2))
    ax = fig.add_subplot()
    for y, (_name, shares) in enumerate(rows):
        left = 0.0
        for part, share in shares.items():
            col, hatch = style[kind(part)]
            ax.barh(y, in_unit(share, "%"), left=left, color=col, hatch=hatch, edgecolor="white", height=0.55)
            ax.text(left + in_unit(share, "%") / 2, y, str(shown(share, "%", 0)), ha="center", va="center",
                    fontsize=9, bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0})
            left += in_unit(share, "%")
        if left < 100:
            ax.barh(y, 100 - left, left=left, color="white", edgecolor="0.6", hatch="", height=0.55,
                    linestyle=":")
            rest = shown(1 - sum(shares.values()), "%", 0)
            ax.text(left + (100 - left) / 2, y, f"not given\n{rest}", ha="center", va="center",
                    fontsize=8.5, color="0.35")
    ax.set_yticks(range(len(rows)), [r[0] for r in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of the TPU v1 die area (%)")
    handles = [Patch(facecolor=style[k][0], hatch=style[k][1], edgecolor="white", label=lab)
               for k, lab in (("buffers", "data buffers (source: Unified Buffer)"),
                              ("compute", "compute"), ("io", "I/O"), ("control", "control"))]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=4, fontsize=8.5)
    ax.grid(axis="y", visible=False)
    fig.subplots_adjust(bottom=0.36, left=0.25)
    return fig


@figure("j13-amdahl",
        "Amdahl's law: overall speed-up against the speed-up of the accelerated fraction f; "
        "dashed lines are the ceilings 1/(1 − f).")
def amdahl_curves(*, fractions=(S.AMDAHL_F, 0.8, 0.9), s_max: float = 1000.0,
                  marked=S.AMDAHL_S) -> Figure:
    """S(s) for each ``f`` on a log ``s`` axis, with the limits as dashed lines.

    The points ``marked`` (the source's s = 2 and 4) are drawn on the first curve.
    """
    fig = Figure()
    ax = fig.add_subplot()
    s = np.logspace(0, np.log10(s_max), 300)
    cols = [PALETTE["blue"], PALETTE["vermillion"], PALETTE["green"], PALETTE["purple"]]
    styles = ["-", "-.", ":", "-"]
    for i, f in enumerate(fractions):
        col = cols[i % len(cols)]
        ax.plot(s, amdahl_speedup(f, s=s), color=col, linestyle=styles[i % len(styles)],
                label=f"f = {f:g}")
        lim = amdahl_limit(f)
        ax.axhline(lim, color=col, linestyle="--", linewidth=1.0)
        ax.text(s_max, lim, f" 1/(1−f) = {lim:.3g}", va="center", ha="left", color=col, fontsize=9)
    if marked:
        f0 = fractions[0]
        pts = np.asarray(marked, dtype=float)
        ax.plot(pts, amdahl_speedup(f0, s=pts), linestyle="none", marker=MARKERS[0], color=cols[0],
                label=f"source: f = {f0:g} at s = " + ", ".join(f"{p:g}" for p in pts))
        for p in pts:
            ax.annotate(f"{amdahl_speedup(f0, s=p):.2f}×", (p, amdahl_speedup(f0, s=p)),
                        textcoords="offset points", xytext=(7, -3), ha="left", va="top", fontsize=9)
    ax.set_xscale("log")
    ax.set_xlim(1, s_max)
    ax.set_ylim(0.9, amdahl_limit(max(fractions)) * 1.08)
    ax.set_xlabel("speed-up s of the accelerated part (×, log scale)")
    ax.set_ylabel("overall speed-up S (×)")
    ax.legend(loc="upper left")
    fig.subplots_adjust(right=0.82)
    return fig


#: (card, model, context, batch, bytes/weight, reading): the source's case at its batch and
#: one more under both readings, then two settings of our own
_J13 = (S.J13_HW, S.J13_MODEL, S.J13_CONTEXTS[0])
_SNAPSHOT_SETTINGS = (
    (*_J13, S.J13_BATCH, float(S.J13_BYTES_PER_PARAM), S.J13_READING),
    (*_J13, S.J13_BATCH + 1, float(S.J13_BYTES_PER_PARAM), S.J13_READING),
    (*_J13, S.J13_BATCH + 1, float(S.J13_BYTES_PER_PARAM), "physical GiB"),
    ("L40S", S.J13_MODEL, 32768, 6, 2.0, "physical GiB"),
    ("H100 SXM", S.J07_MODEL, 8192, 2, 1.0, "decimal GB"),
)


@figure("j13-capacity-planner",
        "The capacity planner at five settings: each bar stacks weights, workspace and KV cache "
        "against the card's capacity (black tick).")
def capacity_planner_snapshot(*, settings=_SNAPSHOT_SETTINGS,
                              workspace: float = S.J13_WORKSPACE) -> Figure:
    """Static view of :func:`infra_calc.widgets.capacity_planner` at a few settings.

    ``settings`` is a sequence of ``(accelerator, model, context, batch,
    bytes_per_param, reading)``; each becomes one horizontal stacked bar with
    the capacity as a tick and a verdict (fits / exceeds, B_max) beside it.
    Widths are shown as a share of the capacity, so cards of any size compare.
    """
    states = [planner_state(m, a, context=c, batch=b, workspace=workspace,
                            bytes_per_param=bpp, reading=r) for a, m, c, b, bpp, r in settings]
    fig = Figure(figsize=(7.0, 1.0 + 0.75 * len(states)))
    ax = fig.add_subplot()
    for y, st in enumerate(states):
        mem = st.memory
        for key, start, width in memory_segments(mem):
            ax.barh(y, in_unit(width / mem.capacity, "%"), left=in_unit(start / mem.capacity, "%"),
                    color=SEGMENT_COLOURS[key], hatch=SEGMENT_HATCHES[key], edgecolor="white", height=0.6)
        left = in_unit(mem.total / mem.capacity, "%")
        ax.plot([100, 100], [y - 0.38, y + 0.38], color=PALETTE["black"], linewidth=2.2, linestyle="-")
        verdict = "fits" if st.fits else "exceeds"
        total, cap = shown(mem.total, "GB", 2, bare=True), shown(mem.capacity, "GB", 2)
        ax.text(max(left, 100) + 2, y, f"{total} / {cap}\n"
                f"{verdict}; B_max = {st.max_batch}", va="center", fontsize=8.5)
    ax.set_yticks(range(len(states)), [
        f"{st.hw.name}, {st.model.name.replace('DeepSeek-R1-Distill-', 'R1-Distill-')}\n"
        f"{st.bytes_per_param:g} B/param, {st.batch} × {tokens_k(st.context)}, {st.reading}"
        for st in states], fontsize=8.5)
    ax.invert_yaxis()
    ax.set_xlim(0, 150)
    ax.set_xlabel("share of the card's capacity (%)")
    fig.legend(handles=legend_handles(per_request=False), loc="lower center", ncol=3, fontsize=8.5)
    ax.grid(axis="y", visible=False)
    fig.subplots_adjust(left=0.36, bottom=0.75 / (1.0 + 0.75 * len(states)) + 0.06, right=0.97)
    return fig
