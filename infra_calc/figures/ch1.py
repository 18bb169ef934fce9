"""Figures for chapter 1, "why one decode step waits for memory" (the source's J07).

Every figure takes the source's case as its default inputs
(:mod:`infra_calc.source`): a 70e9-parameter dense model stored at 1 byte per
parameter on an H100 SXM.  The §5 cases come from
:func:`infra_calc.scenarios.fix_scenarios`; :func:`draw_decode_panel` is shared with the
decode-step explorer widget (:mod:`infra_calc.widgets.decode`).
"""
from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from .. import source as S
from ..accelerators import accelerator
from ..display import in_unit, round_sig, shown, shown_e, sig, tokens_k
from ..scenarios import fix_scenarios, j07_capacity, j07_max_batch
from ..step import batch_turning_point, decode_step
from ._registry import HATCHES, MARKERS, PALETTE, figure

__all__ = ["draw_decode_panel", "update_decode_panel", "fixes_figure",
           "batch_sweep_figure", "capacity_figure", "explorer_snapshot_figure",
           "EXPLORER_SETTINGS"]

_BAR_FLOOR_MS = 1e-6   # bars on a log axis start here (far left of any view)
READ_COLOUR, COMPUTE_COLOUR, STEP_COLOUR = PALETTE["blue"], PALETTE["vermillion"], PALETTE["black"]


# --------------------------------------------------------------------------
# §5: the baseline, the three fixes and the batched case
# --------------------------------------------------------------------------
@figure("j07-fixes",
        "Decode-step lower bounds, weight read against matrix math, for the 70B model on an "
        "H100: the baseline, the three fixes of §5 and a batch sharing one read (log scale).")
def fixes_figure(params=S.J07_PARAMS, hw=None, *, batch=S.J07_BATCHES[0],
                 bytes_per_param=S.J07_BYTES_PER_PARAM, target=S.J07_TARGET_STEP):
    """Grouped horizontal bars: ``T_read`` and ``T_compute`` (ms) per case of §5."""
    cases = fix_scenarios(params, hw, bytes_per_param=bytes_per_param, batch=batch)
    labels = list(cases)
    y = np.arange(len(labels))
    h = 0.38
    fig = Figure(figsize=(7.4, 4.6))
    ax = fig.add_subplot()
    tr = in_unit(np.array([c.t_read for c in cases.values()]), "ms")
    tc = in_unit(np.array([c.t_compute for c in cases.values()]), "ms")
    ax.barh(y - h / 2, tr, height=h, color=READ_COLOUR, hatch=HATCHES[0], edgecolor="white",
            label="read weights  $b_W N/\\beta$")
    ax.barh(y + h / 2, tc, height=h, color=COMPUTE_COLOUR, hatch=HATCHES[1], edgecolor="white",
            label="matrix math  $2BN/\\Pi$")
    for yi, a, b, c in zip(y, tr, tc, cases.values(), strict=True):
        ax.text(a * 1.08, yi - h / 2, str(shown(c.t_read, "ms", 2, bare=True)), va="center", fontsize=8.5)
        ax.text(b * 1.08, yi + h / 2, str(shown(c.t_compute, "ms", 4, bare=True)), va="center",
                fontsize=8.5)
    ax.axvline(in_unit(target, "ms"), color=PALETTE["green"], linestyle="--", linewidth=1.4,
               label=f"{round_sig(target, 'ms')} target")
    ax.set_xscale("log")
    ax.set_xlim(0.02, 5000)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel("lower bound on one decode step (ms, log scale)")
    ax.set_ylabel("case")
    ax.set_title(f"{accelerator(hw if hw is not None else S.j07_h100()).name}, "
                 f"N = {shown_e(params)} parameters, {bytes_per_param:g} byte/parameter")
    ax.legend(loc="center right")
    ax.grid(axis="y", visible=False)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------
# §6: the batch turning point
# --------------------------------------------------------------------------
@figure("j07-batch-sweep",
        "Read, compute and step time against batch size (left) and the tokens per second they "
        "allow (right), 70B model at 1 byte/parameter on an H100; B* marks where compute "
        "overtakes the read, the dotted line how many 8K requests fit in memory.")
def batch_sweep_figure(params=S.J07_PARAMS, hw=None, *, context=S.J07_CONTEXT,
                       bytes_per_param=S.J07_BYTES_PER_PARAM, max_b=512):
    """Two log-log panels: times (ms) and tokens/s against batch ``B``."""
    h = accelerator(hw if hw is not None else S.j07_h100())
    b = np.unique(np.round(np.logspace(0, math.log10(max_b), 120)))
    st = decode_step(params, h, bytes_per_param=bytes_per_param, batch=b)
    b_star = batch_turning_point(h, bytes_per_param=bytes_per_param)
    b_fit = j07_max_batch(capacity=h.mem_capacity, context=context)

    fig = Figure(figsize=(8.6, 3.9))
    ax1, ax2 = fig.subplots(1, 2)
    t_read = np.broadcast_to(st.t_read, b.shape)
    ax1.plot(b, in_unit(t_read, "ms"), color=READ_COLOUR, linestyle="-", label="read (whole batch)")
    ax1.plot(b, in_unit(st.t_compute, "ms"), color=COMPUTE_COLOUR, linestyle="--", label="compute")
    ax1.plot(b, in_unit(st.t_step, "ms"), color=STEP_COLOUR, linestyle=":", linewidth=2.6,
             label="step = max")
    ax1.plot(b, in_unit(st.read_time_per_output, "ms"), color=PALETTE["purple"], linestyle="-.",
             label="read per output")
    for ax in (ax1, ax2):
        ax.axvline(b_star, color=PALETTE["green"], linewidth=1.2, label=f"B* = {b_star:.1f}")
        ax.axvline(b_fit, color=PALETTE["orange"], linestyle=":", linewidth=1.4,
                   label=f"{b_fit} x {tokens_k(context)} requests fit")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("batch size B (requests)")
    ax1.set_ylabel("time per decode step (ms)")
    ax1.set_title("lower bounds")
    ax1.legend(loc="lower left", fontsize=8)
    ax2.plot(b, st.tokens_per_s, color=STEP_COLOUR, marker=MARKERS[0], markevery=12,
             label="tokens/s = B / step")
    ax2.set_ylabel("output tokens per second")
    ax2.set_title("throughput")
    ax2.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------
# §3: the capacity check
# --------------------------------------------------------------------------
def _capacity_rows(context=S.J07_CONTEXT):
    src, phys = S.j07_h100().mem_capacity, accelerator("H100 SXM").mem_capacity
    return {f"source reading\n{shown(src, 'GB', 0)} = {shown_e(src, 'B', 0)}":
            j07_capacity(capacity=src, context=context),
            f"physical\n{shown(phys, 'GiB', 0)} = {shown_e(phys, 'B', 1)}":
            j07_capacity(capacity=phys, context=context)}


@figure("j07-capacity",
        "Memory budget of the 70B model (8-bit weights) with one 8K-token request on an H100, "
        "in the source's 80e9-byte reading and in the physical 80 GiB.")
def capacity_figure(*, context=S.J07_CONTEXT):
    """Stacked horizontal bars: weights, KV cache, workspace, headroom (GB)."""
    rows = _capacity_rows(context)
    fig = Figure(figsize=(7.4, 3.0))
    ax = fig.add_subplot()
    parts = (("weights", "weights", PALETTE["blue"]), ("KV cache", "kv", PALETTE["vermillion"]),
             ("workspace", "workspace", PALETTE["orange"]), ("headroom", "headroom", "#DDDDDD"))
    labels = list(rows)
    y = np.arange(len(labels))
    left = np.zeros(len(labels))
    for i, (name, attr, colour) in enumerate(parts):
        vals = in_unit(np.array([getattr(c, attr) for c in rows.values()]), "GB")
        ax.barh(y, vals, left=left, height=0.55, color=colour, hatch=HATCHES[i],
                edgecolor="white" if i < 3 else "grey", label=name)
        left = left + vals
    for yi, c in zip(y, rows.values(), strict=True):
        fit = j07_max_batch(capacity=c.capacity, context=context)
        gb = [shown(x, "GB", 2, bare=True) for x in (c.weights, c.kv, c.workspace)]
        ax.text(1.5, yi, (f"{gb[0]} + {gb[1]} + {gb[2]} "
                          f"= {shown(c.total, 'GB', 2)}; {shown(c.headroom, 'GB', 2)} free\n"
                          f"room after weights: {fit} requests of {tokens_k(context)}"),
                color="white", va="center", fontsize=8.5)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel("memory (GB = 1e9 bytes)")
    ax.set_xlim(0, 90)
    ax.legend(loc="upper center", ncol=4, bbox_to_anchor=(0.5, 1.22), fontsize=8.5)
    ax.grid(axis="y", visible=False)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------
# the decode-step explorer panel (shared with the widget)
# --------------------------------------------------------------------------
def _xlim_for(values_ms):
    lo = min(values_ms)
    hi = max(values_ms)
    return 10 ** (math.floor(math.log10(lo)) - 0.3), 10 ** (math.ceil(math.log10(hi)) + 0.6)


def _panel_text(st):
    return (f"{st.hw.name}, N = {round_sig(st.params, 'billion')}, b_W = {st.bytes_per_param:g} byte, "
            f"B = {st.batch:g}\n{st.bound}-bound, {st.tokens_per_s:,.1f} tokens/s")


def _times(step):
    """The panel's three times, SI: read, compute, step."""
    return [step.t_read, step.t_compute, step.t_step]


def draw_decode_panel(ax, step, *, target=S.J07_TARGET_STEP):
    """Draw one explorer panel for a :class:`~infra_calc.step.DecodeStep` on ``ax``.

    Three horizontal bars on a log axis (read, compute, step, in ms), each with
    its value, the target line and a summary title.  Returns a dict of the
    artists so :func:`update_decode_panel` can change them in place.
    """
    vals = [in_unit(step.t_read, "ms"), in_unit(step.t_compute, "ms"), in_unit(step.t_step, "ms")]
    bars = ax.barh([0, 1, 2], [v - _BAR_FLOOR_MS for v in vals], left=_BAR_FLOOR_MS, height=0.6,
                   color=[READ_COLOUR, COMPUTE_COLOUR, STEP_COLOUR], edgecolor="white")
    for patch, hatch in zip(bars.patches, HATCHES[:3], strict=True):
        patch.set_hatch(hatch)
    ax.set_xscale("log")
    ax.set_yticks([0, 1, 2], ["read", "compute", "step"])
    ax.invert_yaxis()
    ax.set_xlabel("time (ms, log scale)")
    ax.grid(axis="y", visible=False)
    labels = [ax.text(v * 1.1, i, sig(t, "ms"), va="center", fontsize=8.5)
              for i, (v, t) in enumerate(zip(vals, _times(step), strict=True))]
    ax.axvline(in_unit(target, "ms"), color=PALETTE["green"], linestyle="--", linewidth=1.2)
    ax.text(in_unit(target, "ms") * 1.08, 0.5, f"{round_sig(target, 'ms')} target", ha="left",
            va="center", fontsize=8, color=PALETTE["green"])  # between the read and compute bars
    title = ax.set_title(_panel_text(step), fontsize=9.5)
    ax.set_xlim(*_xlim_for(vals + [in_unit(target, "ms")]))
    return {"bars": list(bars.patches), "labels": labels, "title": title, "ax": ax,
            "target": target}


def update_decode_panel(artists, step):
    """Move the bars, labels and title of a panel made by :func:`draw_decode_panel`."""
    vals = [in_unit(step.t_read, "ms"), in_unit(step.t_compute, "ms"), in_unit(step.t_step, "ms")]
    for patch, label, v, t in zip(artists["bars"], artists["labels"], vals, _times(step), strict=True):
        patch.set_width(v - _BAR_FLOOR_MS)
        label.set_position((v * 1.1, label.get_position()[1]))
        label.set_text(sig(t, "ms"))
    artists["title"].set_text(_panel_text(step))
    # a fixed range (the explorer's) keeps an unchanged bar the same length
    artists["ax"].set_xlim(*(artists.get("xlim") or _xlim_for(vals + [in_unit(artists["target"], "ms")])))
    return artists


#: (accelerator, bytes per parameter, batch) of each snapshot panel
EXPLORER_SETTINGS = (("H100 SXM", 1.0, 1), ("H100 SXM", 1.0, 8), ("H200 SXM", 0.5, 1),
                     ("H200 SXM", 1.0, 128))


@figure("j07-explorer",
        "The decode-step explorer at four settings (70B model): H100 at batch 1 and 8, H200 "
        "with 4-bit weights at batch 1 and with 8-bit weights at batch 128; the dashed line is "
        "the 10 ms target.")
def explorer_snapshot_figure(*, params=S.J07_PARAMS, settings=EXPLORER_SETTINGS):
    """A grid of explorer panels, one per ``(accelerator, bytes/param, batch)`` setting."""
    n = len(settings)
    ncols = 2 if n > 1 else 1
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(9.0, 2.6 * nrows + 0.4))
    axes = np.atleast_1d(fig.subplots(nrows, ncols)).ravel()
    for ax, (hw, bw, b) in zip(axes, settings, strict=False):
        draw_decode_panel(ax, decode_step(params, hw, bytes_per_param=bw, batch=b))
    for ax in axes[n:]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig
